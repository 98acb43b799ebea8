"""Logical-kernel selectors: ``KernelKind`` members, ``|`` unions, handles, tuples."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ttl import dsl

if TYPE_CHECKING:
    from ttl.compiler.frontend.protocol import Reporter

_HINT = (
    "write kernel=ttl.KernelKind.COMPUTE, kernel=ttl.KernelKind.COMPUTE | "
    "ttl.KernelKind.DATA_MOVEMENT, kernel=handle (a ttl.Kernel) or a nonempty tuple of "
    "distinct selectors such as kernel=(ttl.KernelKind.COMPUTE, reader)"
)

Target = dsl.KernelKind | dsl.Kernel  # a single canonical kind or an operation-local handle


@dataclass(frozen=True)
class Selection:
    """The logical kernels a ``kernel=`` argument selects, in source order, distinct."""

    targets: tuple[Target, ...]

    def selects(self, kind: dsl.KernelKind, handle: dsl.Kernel | None) -> bool:
        """Whether a thread of ``kind`` (bound to ``handle`` if any) is selected."""
        for t in self.targets:
            if isinstance(t, dsl.Kernel) and t is handle:
                return True
            if t is kind and handle is None:
                return True
        return False


def _single_kinds(flag: dsl.KernelKind) -> list[dsl.KernelKind]:
    return [k for k in (dsl.KernelKind.COMPUTE, dsl.KernelKind.DATA_MOVEMENT) if k in flag]


def parse_selector(compiler: Reporter, value: Any, node: ast.AST) -> Selection:
    """Validate a ``kernel=`` value; duplicates and empty selections are errors."""
    items = list(value) if isinstance(value, tuple) else [value]
    if isinstance(value, tuple) and not value:
        compiler.fail("kernel=() selects no logical kernel", node, _HINT)
    targets: list[Target] = []
    for item in items:
        if isinstance(item, dsl.KernelKind) and item:
            new: list[Target] = list(_single_kinds(item))
        elif isinstance(item, dsl.Kernel):
            new = [item]
        else:
            compiler.fail(f"{item!r} is not a logical-kernel selector", node, _HINT)
        for t in new:
            if any(t is u for u in targets):
                compiler.fail(f"kernel= selects {_name(t)} twice", node, _HINT + "; list each once")
            targets.append(t)
    return Selection(tuple(targets))


def _name(t: Target) -> str:
    if isinstance(t, dsl.Kernel):
        return f"the ttl.Kernel handle {t.name or '(unbound)'}"
    return f"ttl.KernelKind.{t.name}"


def release_selector(compiler: Reporter, value: Any, node: ast.Call) -> Target:
    """Validate ``push(kernel=)``/``pop(kernel=)``: exactly one selector.

    It only steers unified-operation splitting; in an explicit thread the
    decorator already decides, so it has no further effect.
    """
    expr = next(k.value for k in node.keywords if k.arg == "kernel")
    selection = parse_selector(compiler, value, expr)
    if len(selection.targets) != 1:
        compiler.fail(
            f"a release takes one kernel= selector, got {ast.unparse(expr)}",
            expr,
            "select one kernel, e.g. blk.pop(kernel=ttl.KernelKind.DATA_MOVEMENT) or "
            "blk.pop(kernel=reader)",
        )
    return selection.targets[0]
