"""Scalar element access (spec v0.18 and v0.21, "Scalar element access functions").

In a data-movement kernel, ``ttl.read_index(blk, *coords)`` reads an element of a
block as an index, ``ttl.raw_element_read(blk, *coords)`` as a raw element value,
and ``ttl.raw_element_write(blk, *coords, value)`` writes one. Coordinates are
scalar-element positions, one per block dimension. A raw element value is an
f32's bits (a bf16 element widened, :class:`ElementValue`): it can be written to
a block, compared with another or with a float constant, and nothing else.
"""

from __future__ import annotations

import ast
import struct
from typing import Any

from xdsl.dialects import arith
from xdsl.ir import SSAValue

from ttl.compiler import dialect as d
from ttl.compiler.frontend import block_expr as bx
from ttl.compiler.frontend.protocol import MixinBase
from ttl.compiler.frontend.values import BlockHandle, Dyn, ElementValue, is_scalar
from ttl.targets import TILE_COLS, TILE_ROWS

_PREDICATES = {
    ast.Eq: "eq",
    ast.NotEq: "ne",
    ast.Lt: "lt",
    ast.LtE: "le",
    ast.Gt: "gt",
    ast.GtE: "ge",
}


def f32_bits(value: float) -> int:
    """The bits of ``value`` as an f32, as a signed 32-bit integer (an i32 constant)."""
    return struct.unpack("<i", struct.pack("<f", value))[0]


class ElementsMixin(MixinBase):
    """Element reads, writes and comparisons of raw element values (mixed into
    KernelCompiler)."""

    def call_read_index(self, node: ast.Call) -> Dyn:
        """``ttl.read_index(blk, *coords)``: an element of a block holding data, as an
        index, truncated toward zero."""
        blk, coords = self._element_access(node, "ttl.read_index", read=True)
        op = self.emit(d.ReadIndexOp(blk.value, coords))
        return Dyn(op.results[0], "int")

    def call_raw_element_read(self, node: ast.Call) -> ElementValue:
        """``ttl.raw_element_read(blk, *coords)``: an element of a block holding data."""
        blk, coords = self._element_access(node, "ttl.raw_element_read", read=True)
        return ElementValue(self.emit(d.RawElementReadOp(blk.value, coords)).result)

    def call_raw_element_write(self, node: ast.Call) -> None:
        """``ttl.raw_element_write(blk, *coords, value)`` (``value=`` as a keyword or the
        last argument): a raw element value or a float constant, into a block."""
        what = "ttl.raw_element_write"
        value_kw = [k for k in node.keywords if k.arg == "value"]
        if value_kw:
            value_node = value_kw[0].value
            call = ast.Call(node.func, node.args, [k for k in node.keywords if k.arg != "value"])
        elif len(node.args) >= 2:
            value_node = node.args[-1]
            call = ast.Call(node.func, node.args[:-1], node.keywords)
        else:
            self.fail(
                f"{what} takes a block, its coordinates and a value",
                node,
                "write e.g. ttl.raw_element_write(blk, 0, c, value)",
            )
        ast.copy_location(call, node)
        blk, coords = self._element_access(call, what, read=False)
        value = self.visit(value_node)
        if isinstance(value, ElementValue):
            bits = value.value
        elif isinstance(value, int | float) and not isinstance(value, bool):
            bits = self._float_constant(value)
        else:
            self.fail(
                f"{what} writes a value read with ttl.raw_element_read or a float constant, "
                f"got {self.describe(value)}",
                value_node,
                "read the value with ttl.raw_element_read(...), or write a Python float",
            )
        self.check_not_read_by_copy(blk, node, what)
        blk.written = True  # a reserved block written so may be pushed (state MW left)
        self.emit(d.RawElementWriteOp(blk.value, coords, bits))

    def element_compare(self, op: ast.cmpop, left: Any, right: Any, node: ast.AST) -> Dyn:
        """``left <op> right`` where one side is a raw element value: as the floats they
        hold (the other side may be a float constant)."""
        sides = []
        for v in (left, right):
            if isinstance(v, ElementValue):
                sides.append(v.value)
            elif isinstance(v, int | float) and not isinstance(v, bool):
                sides.append(self._float_constant(v))
            else:
                self.fail(
                    f"a value read with ttl.raw_element_read compares with another such value "
                    f"or a float constant, not {self.describe(v)}",
                    node,
                    "compare raw element values with each other or with a constant like 0.5",
                )
        predicate = _PREDICATES.get(type(op))
        if predicate is None:
            self.fail(
                f"comparison '{type(op).__name__}' is not supported on element values",
                node,
                "compare with == != < <= > >=",
            )
        result = self.emit(d.ElementCompareOp(sides[0], sides[1], predicate))
        return Dyn(result.results[0], "bool")

    def _float_constant(self, value: float) -> SSAValue:
        """A float constant as an element value: its f32 bits (an i32 constant)."""
        return self.emit(arith.ConstantOp.from_int_and_width(f32_bits(float(value)), 32)).result

    def _element_access(
        self, node: ast.Call, what: str, read: bool
    ) -> tuple[BlockHandle, list[SSAValue]]:
        """The block and coordinates of an element access, checked: a data-movement kernel,
        a live block of bf16 or f32 that holds data (a read) or is not being copied into,
        one integer coordinate per dimension, constant ones inside the block."""
        if self.is_compute:
            self.fail(
                f"{what} is only allowed in data-movement kernels",
                node,
                "access elements in a @ttl.datamovement() kernel; compute kernels see tiles, "
                "not elements",
            )
        if node.keywords or not node.args:
            self.fail(
                f"{what} takes a block and its coordinates: {what}(blk, *coords)",
                node,
                f"write e.g. {what}(blk, 0, 0)",
            )
        blk = self.visit(node.args[0])
        if not isinstance(blk, BlockHandle):
            self.fail(
                f"{what} accesses a block, got {self.describe(blk)}",
                node.args[0],
                "pass a block acquired with wait() or reserve()",
            )
        self.check_live(blk, node)
        self.check_not_writing(blk, node, what)
        if read and blk.acquire == "reserve" and not blk.written:
            self.fail(
                f"{blk.describe()} was acquired with reserve() and holds no data yet (block "
                "state MW, Must be Written: reserve() -> read is not a transition)",
                node,
                f"copy into it and wait for the copy first, or read a block from "
                f"{blk.dfb.name}.wait()",
            )
        if blk.dfb.dtype not in ("bf16", "f32"):
            self.fail(
                f"{what} accesses bf16 or f32 elements; '{blk.dfb.name}' holds {blk.dfb.dtype}",
                node,
                "make the DFB like a bf16 or f32 tensor",
            )
        shape = blk.dfb.shape
        if blk.dfb.is_row_major:
            extents = shape
        elif len(shape) >= 2:  # a tile is 32x32 elements of the two innermost dimensions
            extents = (*shape[:-2], shape[-2] * TILE_ROWS, shape[-1] * TILE_COLS)
        else:
            self.fail(
                f"{what} needs a block of tiles of two dimensions or more; "
                f"'{blk.dfb.name}' has shape {bx._fmt(shape)}",
                node,
                f"make '{blk.dfb.name}' with shape=(1, {shape[0]})",
            )
        coords = [self.visit(a) for a in node.args[1:]]
        if len(coords) != len(shape):
            self.fail(
                f"{what} on a block of rank {len(shape)} takes {len(shape)} coordinates, got "
                f"{len(coords)}",
                node,
                "give one scalar-element coordinate per block dimension, e.g. "
                f"{what}({blk.name or 'blk'}, {', '.join(['0'] * len(shape))})",
            )
        for i, (c, extent, arg) in enumerate(zip(coords, extents, node.args[1:], strict=True)):
            if not is_scalar(c) or self._kind(c) != "int":
                self.fail(
                    f"coordinate {i} of {what} must be an integer, got {self.describe(c)}",
                    arg,
                    "use loop indices, constants or index arithmetic",
                )
            if isinstance(c, int) and not 0 <= c < extent:
                self.fail(
                    f"{what}'s coordinate {c} is outside the block: dimension {i} has "
                    f"{extent} elements",
                    arg,
                    f"use 0..{extent - 1}",
                )
        if read:
            blk.unread = False
        return blk, [self.to_ssa(c, node) for c in coords]
