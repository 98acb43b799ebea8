"""Shared helpers of the compiler tests (a uniquely named module: every test
directory has its own conftest.py)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from xdsl.context import Context
from xdsl.dialects.arith import Arith
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.dialects.func import Func
from xdsl.dialects.scf import Scf
from xdsl.parser import Parser

from ttl.compiler.dialect import TTL
from ttl.compiler.driver import CompileResult, compile_operation, load_operation

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((REPO / "examples" / "basic").glob("*.py"))


def load_example(path: Path) -> Any:
    """Import an example module (for OPERATION, SPECS, reference)."""
    spec = importlib.util.spec_from_file_location(f"_example_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def compile_example(path: Path, **kwargs: Any) -> CompileResult:
    module = load_example(path)
    return compile_operation(load_operation(str(path), module.OPERATION), module.SPECS, **kwargs)


def write_bundle_sources(result: CompileResult, bundle: Path) -> Path:
    """``result``'s kernel sources and manifest laid out as a bundle's (``kernels/``,
    ``manifest.json``; no ELFs): what the hardware check and ttl.device_build.program
    read."""
    result.write(str(bundle / "kernels"))
    (bundle / "kernels" / "manifest.json").rename(bundle / "manifest.json")
    return bundle


def parse_ir(text: str) -> ModuleOp:
    """IR text parsed with the dialects ``ttl-opt`` knows (builtin, func, scf, arith, ttl)."""
    ctx = Context()
    for dialect in (Builtin, Func, Scf, Arith, TTL):
        ctx.load_dialect(dialect)
    return Parser(ctx, text).parse_module()


def filecheck(text: str, checks: str) -> None:
    """Run the ``filecheck`` tool with ``checks`` (CHECK lines) over ``text``."""
    check_file = Path(_current_tmp()) / "checks.txt"
    check_file.write_text(textwrap.dedent(checks))
    filecheck_file(check_file, text)


def filecheck_file(check_file: Path, text: str, what: str = "input") -> None:
    """Run the ``filecheck`` tool with the CHECK lines of ``check_file`` over ``text``."""
    proc = subprocess.run(
        [sys.executable, "-m", "filecheck", str(check_file)],
        input=text,
        check=False,
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        pytest.fail(f"filecheck failed:\n{proc.stdout}\n{proc.stderr}\n--- {what} ---\n{text}")


_TMP: list[Path] = []


def _current_tmp() -> Path:
    return _TMP[-1]
