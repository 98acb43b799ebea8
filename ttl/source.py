"""Finding the AST of user functions and turning nodes into source locations."""

from __future__ import annotations

import ast
import functools
import linecache
from collections.abc import Callable
from typing import Any

from ttl.errors import SourceLoc, TTLCompileError


@functools.lru_cache(maxsize=64)
def _module_ast(filename: str, text: str) -> ast.Module:
    return ast.parse(text, filename=filename)


def source_text(filename: str) -> str:
    """The full text of ``filename`` as Python's line cache sees it."""
    linecache.checkcache(filename)
    return "".join(linecache.getlines(filename))


def source_lines(filename: str) -> list[str]:
    """The lines of ``filename`` without newlines (index 0 is line 1)."""
    return source_text(filename).splitlines()


def node_loc(filename: str, node: ast.AST) -> SourceLoc:
    """The location of an AST node (first line, 0-based column)."""
    return SourceLoc(filename, getattr(node, "lineno", 0), getattr(node, "col_offset", 0))


def function_def(fn: Callable[..., Any]) -> tuple[str, ast.FunctionDef]:
    """The file and the ``def`` node of a Python function, with real positions."""
    code = fn.__code__
    filename = code.co_filename
    text = source_text(filename)
    if not text:
        raise TTLCompileError(
            f"cannot read the source of '{fn.__qualname__}' ({filename})",
            None,
            "TT-Lang kernels must be defined in a Python source file",
        )
    tree = _module_ast(filename, text)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == fn.__name__:
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            if first == code.co_firstlineno or node.lineno == code.co_firstlineno:
                if isinstance(node, ast.AsyncFunctionDef):
                    raise TTLCompileError(
                        "kernel functions cannot be async",
                        node_loc(filename, node),
                        "write a plain 'def'",
                    )
                return filename, node
    raise TTLCompileError(
        f"cannot find the definition of '{fn.__qualname__}' in {filename}", None, None
    )
