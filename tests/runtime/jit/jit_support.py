"""Paths shared by the JIT tests (a uniquely named module: every suite has a conftest)."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE_OP = ROOT / "examples" / "ttnn" / "eltwise_add_mul_op.py"
GUARDED_STATIC = ROOT / "examples" / "extern" / "guarded_static.py"
