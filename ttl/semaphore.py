"""Semaphores and group transfers (TT-Lang spec "Semaphore", "Group transfer").

A :class:`Semaphore` is declared at the operation's top level; its methods that
wait or change values only have meaning in data-movement kernel bodies, which
the compiler reads from their AST. ``get_remote``/``get_remote_multicast``
also run at the top level (the spec allows both scopes), where they check the
node coordinates against the grid and return the remote semaphore objects the
kernels capture. :class:`GroupTransfer` is constructed inside kernels only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ttl._intrinsic import INTRINSIC_ATTR
from ttl.dsl import active_context, node_at_index
from ttl.errors import SourceLoc, TTLCompileError, caller_loc

SEMAPHORE_MAX = 2**32 - 1


def check_count(value: Any, loc: SourceLoc, what: str) -> int:
    """A semaphore value (``ttl.Count``): an int in [0, 2**32 - 1], else a located error."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TTLCompileError(
            f"{what} must be an integer, got {value!r}",
            loc,
            "semaphore values are unsigned 32-bit integers, e.g. 0 or 1",
        )
    if not 0 <= value <= SEMAPHORE_MAX:
        raise TTLCompileError(
            f"{what} {value} is {'negative' if value < 0 else 'larger than 2**32 - 1'}",
            loc,
            "semaphore values are unsigned 32-bit integers (ttl.Count): use 0..4294967295",
        )
    return value


def node_coord(node: Any, grid: tuple[int, int], loc: SourceLoc) -> tuple[int, int]:
    """An (x, y) node inside ``grid`` from a ``ttl.NodeCoord`` (an index or a tuple)."""
    gx, gy = grid
    if isinstance(node, int) and not isinstance(node, bool):
        if not 0 <= node < gx * gy:
            raise TTLCompileError(
                f"node {node} is outside the {gx}x{gy} grid ({gx * gy} nodes)",
                loc,
                f"use a node index in 0..{gx * gy - 1}, or an (x, y) coordinate",
            )
        return node_at_index(node, grid)
    if isinstance(node, tuple) and len(node) >= 2:
        if not all(isinstance(c, int) and not isinstance(c, bool) for c in node):
            raise TTLCompileError(
                f"node coordinates must be integers, got {node!r}", loc, "write e.g. (0, 0)"
            )
        x, y, *rest = node
        if not (0 <= x < gx and 0 <= y < gy) or any(r != 0 for r in rest):
            raise TTLCompileError(
                f"node {node!r} is outside the {gx}x{gy} grid",
                loc,
                f"use 0 <= x < {gx} and 0 <= y < {gy}",
            )
        return (x, y)
    raise TTLCompileError(
        f"a node is an index or an (x, y) tuple, got {node!r}",
        loc,
        "write e.g. sem.get_remote((0, 0))",
    )


def _range_dim(r: Any, extent: int, axis: str, loc: SourceLoc) -> tuple[int, int]:
    """Inclusive [first, last] of one dimension of a node range (an index or a slice)."""
    if isinstance(r, slice):
        if r.step not in (None, 1):
            raise TTLCompileError(
                f"node range {axis}: slice steps are not supported (a multicast range is "
                "contiguous)",
                loc,
                "write start:stop without a step",
            )
        lo = 0 if r.start is None else r.start
        hi = extent if r.stop is None else r.stop
    elif isinstance(r, int) and not isinstance(r, bool):
        lo, hi = r, r + 1
    else:
        raise TTLCompileError(
            f"node range {axis} must be an index or a slice, got {r!r}",
            loc,
            "write e.g. get_remote_multicast((slice(0, 4), 0))",
        )
    if not (isinstance(lo, int) and isinstance(hi, int)) or not 0 <= lo < hi <= extent:
        raise TTLCompileError(
            f"node range {axis} {r!r} is empty or outside the grid (extent {extent})",
            loc,
            f"use indices in 0..{extent - 1} and slices start:stop with start < stop <= {extent}",
        )
    return lo, hi - 1


def node_rect(node_range: Any, grid: tuple[int, int], loc: SourceLoc) -> tuple[int, ...]:
    """``(x0, y0, x1, y1)`` (inclusive) of a ``ttl.NodeRange``; None means the whole grid."""
    gx, gy = grid
    if node_range is None:
        return (0, 0, gx - 1, gy - 1)
    if not isinstance(node_range, tuple) or len(node_range) != 2:
        raise TTLCompileError(
            f"a node range is an (x, y) tuple of indices and slices, got {node_range!r}",
            loc,
            "write e.g. (slice(0, 4), 0) for nodes (0..3, 0), or omit it for the whole grid",
        )
    x0, x1 = _range_dim(node_range[0], gx, "x", loc)
    y0, y1 = _range_dim(node_range[1], gy, "y", loc)
    return (x0, y0, x1, y1)


class Semaphore:
    """A per-node 32-bit semaphore, declared at the operation's top level.

    ``wait_eq``, ``wait_ge`` and ``set`` are for data-movement kernel bodies;
    ``get_remote`` and ``get_remote_multicast`` work in both scopes.
    """

    def __init__(self, initial_value: int = 0):
        loc = caller_loc(2)
        ctx = active_context("ttl.Semaphore()")
        self.initial_value = check_count(initial_value, loc, "the initial semaphore value")
        self.loc = loc
        self.grid = ctx.grid
        self.order = len(ctx.semaphores)
        self.name = f"sem{self.order}"  # the top-level variable name, set after evaluation
        ctx.semaphores.append(self)

    def _kernel_only(self, what: str) -> Any:
        raise TTLCompileError(
            f"Semaphore.{what}() can only be used inside a data-movement kernel body",
            caller_loc(3),
            "call it inside a @ttl.datamovement() function",
        )

    def wait_eq(self, value: int) -> None:
        """Block until the local value equals ``value`` (data-movement kernels)."""
        self._kernel_only("wait_eq")

    def wait_ge(self, value: int) -> None:
        """Block until the local value is at least ``value`` (data-movement kernels)."""
        self._kernel_only("wait_ge")

    def set(self, value: int) -> None:
        """Set the local value (data-movement kernels)."""
        self._kernel_only("set")

    def get_remote(self, node: Any) -> UnicastRemoteSemaphore:
        """This semaphore on another node (``set``/``inc`` from a data-movement kernel)."""
        loc = caller_loc(2)
        return UnicastRemoteSemaphore(self, node_coord(node, self.grid, loc), loc)

    def get_remote_multicast(self, node_range: Any = None) -> MulticastRemoteSemaphore:
        """This semaphore on a range of nodes (the whole grid by default), for ``set``."""
        loc = caller_loc(2)
        return MulticastRemoteSemaphore(self, node_rect(node_range, self.grid, loc), loc)

    def __ttl_fingerprint__(self) -> str:
        return f"Semaphore({self.initial_value})"


def _remote_kernel_only(cls: str, what: str) -> Any:
    raise TTLCompileError(
        f"{cls}.{what}() can only be used inside a data-movement kernel body",
        caller_loc(3),
        "call it inside a @ttl.datamovement() function",
    )


@dataclass
class UnicastRemoteSemaphore:
    """A semaphore on one node: ``set`` and ``inc`` from data-movement kernels."""

    semaphore: Semaphore
    node: tuple[Any, ...]  # (x, y): ints, or per-node values after evaluation
    loc: SourceLoc

    def set(self, value: int) -> None:
        _remote_kernel_only("UnicastRemoteSemaphore", "set")

    def inc(self, value: int) -> None:
        _remote_kernel_only("UnicastRemoteSemaphore", "inc")


@dataclass
class MulticastRemoteSemaphore:
    """A semaphore on a rectangle of nodes ``(x0, y0, x1, y1)``: ``set`` only."""

    semaphore: Semaphore
    rect: tuple[Any, ...]
    loc: SourceLoc

    def set(self, value: int) -> None:
        _remote_kernel_only("MulticastRemoteSemaphore", "set")


class GroupTransfer:
    """A group of transfer handles waited on together (data-movement kernels only)."""

    def __init__(self) -> None:
        raise TTLCompileError(
            "ttl.GroupTransfer() can only be used inside a data-movement kernel body",
            caller_loc(2),
            "create the group inside the @ttl.datamovement() function that adds transfers to it",
        )


setattr(GroupTransfer, INTRINSIC_ATTR, "group_transfer")

SYNC_DSL_VALUES = (Semaphore, UnicastRemoteSemaphore, MulticastRemoteSemaphore)
