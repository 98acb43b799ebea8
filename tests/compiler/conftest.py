"""Fixtures of the compiler tests; plain helpers live in compiler_testlib.py."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from compiler_testlib import _TMP

from ttl.compiler.driver import CompileResult, compile_operation, load_operation
from ttl.errors import TTLCompileError


@pytest.fixture(autouse=True)
def _tmp_for_filecheck(tmp_path: Path):
    _TMP.append(tmp_path)
    yield
    _TMP.pop()


SpecMap = dict[str, str]


@pytest.fixture
def write_source(tmp_path: Path) -> Callable[[str], Path]:
    """Write a TT-Lang program (dedented) to a fresh file; returns its path."""
    counter = [0]

    def write(source: str) -> Path:
        counter[0] += 1
        path = tmp_path / f"prog{counter[0]}.py"
        path.write_text(textwrap.dedent(source).lstrip("\n"))
        return path

    return write


@pytest.fixture
def compile_source(write_source: Callable[[str], Path]) -> Callable[..., CompileResult]:
    """Compile operation ``name`` of ``source`` for ``specs``."""

    def run(source: str, name: str, specs: SpecMap, **kwargs: Any) -> CompileResult:
        path = write_source(source)
        return compile_operation(load_operation(str(path), name), specs, **kwargs)

    return run


@pytest.fixture
def compile_error(write_source: Callable[[str], Path]) -> Callable[..., TTLCompileError]:
    """Compile and expect a TTLCompileError located on the line marked ``# ERROR``."""

    def run(source: str, name: str, specs: SpecMap, **kwargs: Any) -> TTLCompileError:
        path = write_source(source)
        with pytest.raises(TTLCompileError) as info:
            compile_operation(load_operation(str(path), name), specs, **kwargs)
        err = info.value
        lines = path.read_text().splitlines()
        marked = [i + 1 for i, line in enumerate(lines) if "# ERROR" in line]
        assert err.loc is not None, err.render()
        assert err.loc.filename == str(path)
        if marked:
            assert err.loc.line == marked[0], err.render()
        text = err.render()
        assert f"{path}:{err.loc.line}:{err.loc.col + 1}: error:" in text
        assert lines[err.loc.line - 1] in text  # the source line is shown
        assert err.hint, "every diagnostic says what to write instead"
        return err

    return run
