"""Top-level values that differ between nodes (``ttl.node()`` at operation scope).

When an operation's top level calls ``ttl.node()``, the compiler runs the top
level once per node of the grid (spec "Node function": it is evaluated per
node). A kernel's captured name then has one value per node; :func:`merge`
folds them: equal values stay one value, integers and bools that differ become
a :class:`PerNode` table (lowered in the kernel to arithmetic on the node's
coordinates, or a lookup), tuples and remote semaphores merge element-wise.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ttl.semaphore import MulticastRemoteSemaphore, UnicastRemoteSemaphore

Coord = tuple[int, int]


@dataclass(frozen=True)
class PerNode:
    """An integer (``kind`` ``int``) or bool per node, indexed ``y * grid_x + x``."""

    values: tuple[int, ...]
    kind: str
    grid: Coord

    def affine(self) -> tuple[int, int, int] | None:
        """``(c, a, b)`` with value = c + a * x + b * y on every node, if there is one."""
        gx, gy = self.grid
        v = self.values
        c = v[0]
        a = v[1] - c if gx > 1 else 0
        b = v[gx] - c if gy > 1 else 0
        ok = all(v[y * gx + x] == c + a * x + b * y for y in range(gy) for x in range(gx))
        return (c, a, b) if ok else None


class NodeVariesError(ValueError):
    """A captured value of a kind that cannot differ between nodes does."""


def node_order(grid: Coord) -> list[Coord]:
    """The grid's nodes in table order (x varies fastest)."""
    gx, gy = grid
    return [(x, y) for y in range(gy) for x in range(gx)]


def merge(values: list[Any], grid: Coord) -> Any:
    """One value for ``values`` (one per node, in :func:`node_order`; the first is the
    primary evaluation's, whose objects the compiler knows)."""
    first = values[0]
    if isinstance(first, bool | int) and all(type(v) is type(first) for v in values):
        if all(v == first for v in values):
            return first
        kind = "bool" if isinstance(first, bool) else "int"
        return PerNode(tuple(int(v) for v in values), kind, grid)
    if isinstance(first, tuple | list) and all(
        isinstance(v, type(first)) and len(v) == len(first) for v in values
    ):
        merged = [merge([v[i] for v in values], grid) for i in range(len(first))]
        return type(first)(merged)
    if isinstance(first, UnicastRemoteSemaphore):
        return replace(first, node=merge([v.node for v in values], grid))
    if isinstance(first, MulticastRemoteSemaphore):
        return replace(first, rect=merge([v.rect for v in values], grid))
    if isinstance(first, float | str) and any(v != first for v in values):
        raise NodeVariesError(f"a {type(first).__name__} value")
    return first  # objects the top level declares (DFBs, tensors, semaphores, functions)
