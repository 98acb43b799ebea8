"""pytest setup for tests/rules: the rule tools on sys.path, Bazel fixtures."""

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "ttl" / "rules" / "private" / "tools"))
