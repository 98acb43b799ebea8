"""Fixtures of the external-call tests (the compiler fixtures come from tests/compiler).

``extern_compile(body)`` / ``extern_error(body)`` wrap ``body`` (the statements of
a unified operation ``op(inp, out)`` with DFBs ``src`` and ``dst``) in a
program that imports ttl and defines ``HEADER``; ``top=`` adds module-level
code before the operation, ``whole=True`` takes ``body`` as the full program.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from typing import Any

import pytest
from extern_testlib import INCLUDE_DIR, REPO

SPECS = {"inp": "bf16[32,128]", "out": "bf16[32,128]"}
TEMPLATE = """\
import ttl

HEADER = "extern_entries.hpp"
{top}

@ttl.operation(grid=(1, 1))
def op(inp, out):
    src = ttl.make_dataflow_buffer_like(inp, shape=(1, 1))
    dst = ttl.make_dataflow_buffer_like(out, shape=(1, 1))
{body}
"""


def program(body: str, top: str = "", whole: bool = False) -> str:
    if whole:
        return textwrap.dedent(body).lstrip("\n")
    return TEMPLATE.format(
        top=textwrap.dedent(top), body=textwrap.indent(textwrap.dedent(body).strip("\n"), "    ")
    )


def _options(kwargs: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    name = kwargs.pop("name", "op")
    kwargs.setdefault("include_dirs", (str(REPO / INCLUDE_DIR),))
    return name, kwargs


@pytest.fixture
def extern_compile(compile_source: Callable[..., Any]) -> Callable[..., Any]:
    def run(body: str, top: str = "", whole: bool = False, **kwargs: Any) -> Any:
        name, kw = _options(kwargs)
        return compile_source(program(body, top, whole), name, kw.pop("specs", SPECS), **kw)

    return run


@pytest.fixture
def extern_error(compile_error: Callable[..., Any]) -> Callable[..., Any]:
    def run(body: str, top: str = "", whole: bool = False, **kwargs: Any) -> Any:
        name, kw = _options(kwargs)
        return compile_error(program(body, top, whole), name, kw.pop("specs", SPECS), **kw)

    return run
