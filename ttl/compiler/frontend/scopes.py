"""Static analysis helpers over kernel ASTs (assigned names of a region, positions)."""

from __future__ import annotations

import ast


def assigned_names(stmts: list[ast.stmt]) -> list[str]:
    """Names bound anywhere in ``stmts`` (assignments, loop targets, ``with ... as``).

    Sorted, so that loop-carried values get a deterministic order.
    """
    names: set[str] = set()

    def add_target(t: ast.expr) -> None:
        if isinstance(t, ast.Name):
            names.add(t.id)
        elif isinstance(t, ast.Tuple | ast.List):
            for e in t.elts:
                add_target(e)
        elif isinstance(t, ast.Starred):
            add_target(t.value)

    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    add_target(t)
            elif isinstance(node, ast.AugAssign | ast.AnnAssign | ast.For):
                add_target(node.target)
            elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                add_target(node.optional_vars)
            elif isinstance(node, ast.NamedExpr):
                add_target(node.target)
    return sorted(names)


def position(node: ast.AST) -> dict[str, int]:
    """``node``'s source position, for an AST node the compiler builds in its place."""
    return {k: getattr(node, k) for k in ("lineno", "col_offset", "end_lineno", "end_col_offset")}
