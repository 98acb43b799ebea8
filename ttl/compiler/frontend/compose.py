"""Composition: a unified operation calling another unified operation.

A top-level statement ``stage(a, b)`` whose callee is a ``@ttl.operation``
is composed in two halves:

* host: while the caller's host statements run, ``__ttl_compose__`` runs the
  callee's host statements with the caller's tensors, and for an expand-only
  callee (spec v0.19: parameters ``d: ttl.DFB``) the caller's DFBs (its own DFBs
  join the caller's operation), and returns the callee's locals;
* work: the callee's work statements are inlined in place, every name
  renamed ``<callee>_<n>_<name>`` and resolved in the callee's scope (locals,
  closure, globals), so callee handles keep their identity: repeated calls of
  one callee put their work in the callee's logical kernel.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable
from typing import Any

from ttl import dsl
from ttl.errors import SourceLoc, TTLCompileError
from ttl.operation import Operation
from ttl.source import function_def, node_loc

COMPOSE = "__ttl_compose__"
#: What a composed operation's parameters take (spec v0.19): tensors, and, for an
#: expand-only operation, the caller's DFBs (pipe-net parameters are not supported yet).
_COMPOSABLE = (dsl.TensorArg, dsl.DataflowBuffer)
SCOPE = "__ttl_scope_{}"


def composed_callee(stmt: ast.stmt, static: Callable[[ast.expr], Any]) -> Operation | None:
    """The operation a top-level ``callee(args)`` statement composes, else None."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        callee = static(stmt.value.func)
        if isinstance(callee, Operation):
            return callee
    return None


def host_statement(stmt: ast.Expr, index: int) -> ast.stmt:
    """``__ttl_scope_<index> = __ttl_compose__(line, col, callee, *args)`` at ``stmt``."""
    call = stmt.value
    assert isinstance(call, ast.Call)
    pos = [ast.Constant(stmt.lineno), ast.Constant(stmt.col_offset), call.func]
    new = ast.Assign(
        targets=[ast.Name(SCOPE.format(index), ast.Store())],
        value=ast.Call(ast.Name(COMPOSE, ast.Load()), pos + list(call.args), call.keywords),
    )
    return ast.copy_location(new, stmt)


def make_composer(filename: str, host_function: Callable[..., Any]) -> Callable[..., Any]:
    """The ``__ttl_compose__`` helper of one caller (``filename`` locates diagnostics)."""

    def compose(line: int, col: int, callee: Operation, *args: Any, **kwargs: Any) -> dict:
        loc = SourceLoc(filename, line, col)
        cfile, cdef = function_def(callee.fn)
        if any(isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef) for s in cdef.body):
            raise TTLCompileError(
                f"operation '{callee.name}' has thread functions; only unified operations can "
                "be composed",
                loc,
                "write the callee as a unified operation (work directly in its body)",
            )
        params = [a.arg for a in cdef.args.args]
        if kwargs or len(args) != len(params) or not all(isinstance(a, _COMPOSABLE) for a in args):
            raise TTLCompileError(
                f"composing '{callee.name}' needs one argument per parameter "
                f"({', '.join(params)}): a tensor or DFB of this operation (pipe-net "
                "parameters are not supported yet)",
                loc,
                f"call it as {callee.name}({', '.join(params)}) with this operation's tensors "
                "(or DFBs for an expand-only operation)",
            )
        scope = host_function(callee, cfile, cdef, return_locals=True)(*args)
        from ttl.identity import bind_handles

        bind_handles(callee, sorted(scope.items(), key=lambda kv: kv[0]))
        return scope

    return compose


class _Rename(ast.NodeTransformer):
    def __init__(self, prefix: str):
        self.prefix = prefix
        self.names: set[str] = set()

    def visit_Name(self, node: ast.Name) -> ast.Name:
        self.names.add(node.id)
        return ast.copy_location(ast.Name(self.prefix + node.id, node.ctx), node)


def inline(
    callee: Operation,
    stmts: list[ast.stmt],
    callee_scope: dict[str, Any],
    lookup: Callable[[str], Any],
    unbound: object,
    prefix: str,
    scope: dict[str, Any],
) -> list[ast.stmt]:
    """Renamed copies of the callee's work ``stmts``; their names are added to ``scope``."""
    renamer = _Rename(prefix)
    out = [renamer.visit(copy.deepcopy(s)) for s in stmts]
    for name in sorted(renamer.names):
        value = callee_scope[name] if name in callee_scope else lookup(name)
        if value is not unbound:
            scope[prefix + name] = value
    for name, value in sorted(callee_scope.items(), key=lambda kv: kv[0]):
        if isinstance(value, dsl.DataflowBuffer) and value.name == f"dfb{value.order}":
            value.name = f"{prefix}{name}"
    return out


def nested_composition_error(filename: str, node: ast.AST, callee: Operation) -> TTLCompileError:
    return TTLCompileError(
        f"operation '{callee.name}' is composed inside control flow",
        node_loc(filename, node),
        "compose operations with a top-level statement of the unified body, e.g. "
        f"{callee.name}(a, b)",
    )
