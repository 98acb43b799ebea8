"""Paths shared by the JIT tests (a uniquely named module: every suite has a conftest)."""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE_OP = ROOT / "examples" / "ttnn" / "eltwise_add_mul_op.py"
GUARDED_STATIC = ROOT / "examples" / "extern" / "guarded_static.py"


def assert_located(info: pytest.ExceptionInfo, *fragments: str) -> None:
    """The error points at the calling test file's line, echoes it, says what to write
    instead, and contains every fragment."""
    here = sys._getframe(1).f_code.co_filename
    err = info.value
    text = err.render()
    assert err.loc is not None and err.loc.filename == here, text
    assert f"{here}:{err.loc.line}:{err.loc.col + 1}: error:" in text
    assert err.hint and "hint:" in text
    for fragment in fragments:
        assert fragment in text, text
