"""Kernel functions that lost their decorator.

A function in an operation body without ``@ttl.compute()`` or
``@ttl.datamovement()`` is plain Python: unless something calls it, it never
runs. When such a dead function is the only function of the operation that
touches a tensor, that tensor provably stays unread and unwritten: the
program's output would silently stay as it was. That, and only that, is an
error here; a dead function beside kernels that use the same tensors is left
alone (it is valid Python, and a DFB it would have drained may simply keep its
data: ``ttl-check-dfb-protocol``).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import Any

from ttl.errors import TTLCompileError
from ttl.source import node_loc


def _loaded_names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def check_lost_kernels(
    op_name: str,
    filename: str,
    def_node: ast.FunctionDef,
    kernel_names: set[str],
    tensors: Mapping[str, Any],
    local_vars: Mapping[str, Any],
) -> None:
    """Raise if an uncalled, undecorated function of the operation body is the only one
    that uses one of ``tensors`` (parameter name -> the value the body was called with)."""
    functions = [s for s in def_node.body if isinstance(s, ast.FunctionDef)]
    loaded_outside: dict[str, set[str]] = {f.name: set() for f in functions}
    for f in functions:
        for other in functions:
            if other is not f:
                loaded_outside[f.name] |= _loaded_names(other)
    top_level = [s for s in def_node.body if not isinstance(s, ast.FunctionDef)]
    called_at_top = set().union(*(_loaded_names(s) for s in top_level)) if top_level else set()
    dead = [
        f
        for f in functions
        if f.name not in kernel_names
        and not f.decorator_list
        and f.name not in loaded_outside[f.name]
        and f.name not in called_at_top
    ]
    if not dead:
        return
    live_loads = set().union(*(_loaded_names(f) for f in functions if f not in dead))
    for name, value in tensors.items():
        aliases = {n for n, v in local_vars.items() if v is value} | {name}
        if aliases & live_loads:
            continue
        for f in dead:
            if aliases & _loaded_names(f):
                kind = "datamovement" if _copies(f) else "compute"
                raise TTLCompileError(
                    f"function '{f.name}' of operation '{op_name}' is the only code that uses "
                    f"tensor '{name}', but it is not a kernel and nothing calls it, so "
                    f"'{name}' is never read or written",
                    node_loc(filename, f),
                    f"is it missing its decorator? write @ttl.{kind}() above 'def {f.name}():'",
                )


def _copies(f: ast.FunctionDef) -> bool:
    """Whether ``f`` calls ``ttl.copy`` (a data-movement kernel's work)."""
    return any(
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == "copy"
        and isinstance(n.func.value, ast.Name)
        and n.func.value.id == "ttl"
        for n in ast.walk(f)
    )
