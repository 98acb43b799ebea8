"""Helpers of the external-call tests (uniquely named module)."""

from __future__ import annotations

import contextlib
import importlib.util
from pathlib import Path
from typing import Any

from ttl.compiler.driver import CompileResult, compile_operation, load_operation

REPO = Path(__file__).resolve().parents[3]
SPEC_EXAMPLES = REPO / "examples" / "extern" / "spec_examples.py"
INCLUDE_DIR = "examples/extern/include"
HEADER_PRELUDE = """
import ttl
HEADER = "extern_entries.hpp"
"""


def load_spec_examples() -> Any:
    spec = importlib.util.spec_from_file_location("_extern_spec_examples", SPEC_EXAMPLES)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def compile_spec_example(name: str) -> CompileResult:
    module = load_spec_examples()
    op = load_operation(str(SPEC_EXAMPLES.relative_to(REPO)), name)
    return compile_operation(op, module.SPECS, include_dirs=(INCLUDE_DIR,))


def build_bundle(result: CompileResult, out: Path) -> Path:
    """Builds the bundle of ``result`` with the JIT's device build (include paths from REPO)."""
    from ttl.host import toolchain

    bundle = out / "bundle"
    with contextlib.chdir(REPO):
        toolchain.build_bundle(
            bundle, result.sources, result.manifest, result.ir, include_dirs=[INCLUDE_DIR]
        )
    return bundle
