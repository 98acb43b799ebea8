"""Pipes and pipe nets (TT-Lang spec "Pipe", "Pipe net"): node-to-node transfers.

A :class:`Pipe` names a source node and a destination: one node (unicast) or a
node range of indices and slices (multicast, a contiguous rectangle). A
:class:`PipeNet` groups pipes; data-movement kernels call ``net.if_src(fn)`` /
``net.if_dst(fn)`` and copy blocks into and out of the pipe identity their
condition body receives. Both are built at the operation's top level, where
the grid is known, so every endpoint is checked here; the compiler resolves
which node runs which condition body at compile time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ttl.dsl import active_context, node_at_index
from ttl.errors import SourceLoc, TTLCompileError, caller_loc

Rect = tuple[tuple[int, int], tuple[int, int]]  # ((x0, x1), (y0, y1)), half-open


def _is_index(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _coord(value: Any, grid: tuple[int, int], what: str, loc: SourceLoc) -> tuple[int, int]:
    """A node coordinate (an int for 1-D, or (x, y) / (x, y, 0)) as (x, y) inside ``grid``."""
    gx, gy = grid
    if isinstance(value, tuple) and len(value) == 1 and _is_index(value[0]):
        value = value[0]  # (i,): a 1-D coordinate, as ttl.node(dims=1) gives it
    if _is_index(value):
        if not 0 <= value < gx * gy:
            raise TTLCompileError(
                f"pipe {what} node {value} is outside the {gx}x{gy} grid "
                f"(1-D node indices are 0..{gx * gy - 1})",
                loc,
                "use node coordinates inside ttl.grid_size()",
            )
        return node_at_index(value, grid)
    if isinstance(value, tuple) and len(value) >= 2 and all(_is_index(v) for v in value):
        x, y, *rest = value
        if any(rest) or not (0 <= x < gx and 0 <= y < gy):
            raise TTLCompileError(
                f"pipe {what} node {value} is outside the {gx}x{gy} grid",
                loc,
                f"use x in 0..{gx - 1} and y in 0..{gy - 1}, e.g. (x, y) from ttl.grid_size()",
            )
        return (x, y)
    raise TTLCompileError(
        f"pipe {what} must be a node coordinate, got {value!r}",
        loc,
        "write a node index or an (x, y) tuple of non-negative ints",
    )


def _axis(item: Any, size: int, axis: str, loc: SourceLoc) -> tuple[int, int]:
    """One axis of a node range: an index or a slice, as half-open bounds inside ``size``."""
    if _is_index(item):
        if not 0 <= item < size:
            raise TTLCompileError(
                f"pipe destination {axis} index {item} is outside the grid (size {size})",
                loc,
                f"use an index in 0..{size - 1}",
            )
        return (item, item + 1)
    if isinstance(item, slice):
        start = 0 if item.start is None else item.start
        stop = size if item.stop is None else item.stop
        if not (_is_index(start) and _is_index(stop)) or item.step not in (None, 1):
            raise TTLCompileError(
                f"malformed node range: {axis} slice {item!r} must have integer bounds and no step",
                loc,
                f"write a contiguous slice such as slice(0, {size})",
            )
        if not 0 <= start < stop <= size:
            raise TTLCompileError(
                f"malformed node range: {axis} slice({start}, {stop}) is empty or leaves the "
                f"grid (size {size})",
                loc,
                f"use 0 <= start < stop <= {size}",
            )
        return (start, stop)
    raise TTLCompileError(
        f"malformed node range: {axis} entry {item!r} is neither an index nor a slice",
        loc,
        "write each dimension as an int or a slice, e.g. (x, slice(1, grid_y))",
    )


def _flat_range(item: slice, grid: tuple[int, int], loc: SourceLoc) -> Rect:
    """A 1-D node range (``(slice(a, b),)``, node indices ``x * grid_y + y``) as the
    rectangle of the grid it covers: part of one column, or whole columns."""
    gx, gy = grid
    start, stop = _axis(item, gx * gy, "1-D", loc)
    (x0, y0), (x1, y1) = node_at_index(start, grid), node_at_index(stop - 1, grid)
    if x0 == x1:
        return ((x0, x0 + 1), (y0, y1 + 1))
    if y0 == 0 and y1 == gy - 1:
        return ((x0, x1 + 1), (0, gy))
    raise TTLCompileError(
        f"the 1-D node range slice({start}, {stop}) is not a rectangle of the {gx}x{gy} "
        f"grid (node i is (i // {gy}, i % {gy})): it spans columns {x0}..{x1} partly, and "
        "a pipe multicasts to one rectangle of nodes",
        loc,
        "split the destination into pipes of whole columns or of parts of one column, or "
        "write an (x, y) node range",
    )


def _destination(value: Any, grid: tuple[int, int], loc: SourceLoc) -> Rect:
    """A pipe destination (node coordinate or node range) as a rectangle inside ``grid``."""
    if isinstance(value, tuple) and len(value) == 1 and isinstance(value[0], slice):
        return _flat_range(value[0], grid, loc)
    if isinstance(value, tuple) and any(isinstance(v, slice) for v in value):
        if len(value) != 2:
            raise TTLCompileError(
                f"malformed node range {value!r}: a node range has one entry per grid "
                "dimension (x, y)",
                loc,
                "write (x, slice(y0, y1)), (slice(x0, x1), y) or two slices",
            )
        return (_axis(value[0], grid[0], "x", loc), _axis(value[1], grid[1], "y", loc))
    x, y = _coord(value, grid, "destination", loc)
    return ((x, x + 1), (y, y + 1))


def _show(value: Any) -> str:
    """A coordinate or node range as the user wrote it (slices without their None step)."""
    if isinstance(value, slice):
        return f"slice({value.start}, {value.stop})"
    if isinstance(value, tuple):
        return "(" + ", ".join(_show(v) for v in value) + ")"
    return repr(value)


@dataclass(frozen=True)
class PipeEnds:
    """The resolved endpoints of one pipe: source (x, y) and destination rectangle."""

    src: tuple[int, int]
    rect: Rect


class Pipe:
    """``ttl.Pipe(src, dst)``: a transfer from node ``src`` to a node or node range."""

    def __init__(self, src: Any, dst: Any):
        self.loc = caller_loc(2)
        grid = active_context("ttl.Pipe()").grid
        self.src = src
        self.dst = dst
        self.ends = PipeEnds(
            _coord(src, grid, "source", self.loc), _destination(dst, grid, self.loc)
        )

    def __repr__(self) -> str:
        return f"ttl.Pipe(src={_show(self.src)}, dst={_show(self.dst)})"


class PipeNet:
    """``ttl.PipeNet([pipes])``: pipes used together through ``if_src`` / ``if_dst``.

    ``is_src()``, ``is_dst()`` and ``is_active()`` say whether the running node
    takes part, in kernels and at the operation's top level.
    """

    def __init__(self, pipes: Any):
        self.loc = caller_loc(2)
        ctx = active_context("ttl.PipeNet()")
        pipes = list(pipes) if isinstance(pipes, list | tuple) else pipes
        if not isinstance(pipes, list) or not pipes:
            raise TTLCompileError(
                "ttl.PipeNet takes a non-empty list of ttl.Pipe",
                self.loc,
                "write ttl.PipeNet([ttl.Pipe(src, dst) for ...])",
            )
        for p in pipes:
            if not isinstance(p, Pipe):
                raise TTLCompileError(
                    f"ttl.PipeNet takes ttl.Pipe objects, got {p!r}",
                    self.loc,
                    "build each element with ttl.Pipe(src=..., dst=...)",
                )
        self.pipes: list[Pipe] = pipes
        self.order = len(ctx.pipe_nets)
        ctx.pipe_nets.append(self)

    def sends_from(self, node: tuple[int, int]) -> bool:
        """Whether node (x, y) is the source of one of the net's pipes."""
        return any(p.ends.src == tuple(node) for p in self.pipes)

    def receives_at(self, node: tuple[int, int]) -> bool:
        """Whether node (x, y) is in the destination of one of the net's pipes."""
        x, y = node
        rects = (p.ends.rect for p in self.pipes)
        return any(x0 <= x < x1 and y0 <= y < y1 for (x0, x1), (y0, y1) in rects)

    def role_at(self, role: str, node: tuple[int, int]) -> bool:
        """Whether node (x, y) plays ``role``: ``is_src`` (sends on a pipe), ``is_dst``
        (receives on one) or ``is_active`` (either)."""
        if role == "is_src":
            return self.sends_from(node)
        if role == "is_dst":
            return self.receives_at(node)
        assert role == "is_active", role
        return self.sends_from(node) or self.receives_at(node)

    def _role_here(self, role: str) -> bool:
        ctx = active_context(f"{role}()")
        ctx.node_used = True  # the answer differs between nodes: evaluate per node
        return self.role_at(role, ctx.node)

    def is_src(self) -> bool:
        """Whether this node is the source of one of the net's pipes."""
        return self._role_here("is_src")

    def is_dst(self) -> bool:
        """Whether this node is a destination of one of the net's pipes."""
        return self._role_here("is_dst")

    def is_active(self) -> bool:
        """Whether this node sends or receives on the net (``is_src() or is_dst()``)."""
        return self._role_here("is_active")

    def _kernel_only(self, what: str) -> Any:
        raise TTLCompileError(
            f"{what}() on a pipe net can only be used inside a data-movement kernel",
            caller_loc(3),
            "call it inside a @ttl.datamovement() function with a local condition body",
        )

    def if_src(self, cond_fun: Any) -> None:
        """Run ``cond_fun(pipe)`` for each pipe whose source is this node (kernels only)."""
        self._kernel_only("if_src")

    def if_dst(self, cond_fun: Any) -> None:
        """Run ``cond_fun(pipe)`` for each pipe whose destination holds this node."""
        self._kernel_only("if_dst")

    def __ttl_fingerprint__(self) -> str:
        """Identity fingerprint as a capture: every pipe's endpoints."""
        return "PipeNet(" + ";".join(f"{p.ends.src}->{p.ends.rect}" for p in self.pipes) + ")"
