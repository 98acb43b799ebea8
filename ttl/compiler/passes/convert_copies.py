"""L1 pages for copies that convert between bf16 and f32.

Pass ``ttl-stage-converting-copies`` (:class:`StageConvertingCopiesPass`). A
NOC transfer moves bytes; it cannot turn a bf16 tensor page into an f32 block
tile. TT-Metal converts formats in the compute core's unpacker and packer,
which a copy never passes through, so a data-movement kernel that copies an
f32 block into a bf16 tensor (or the reverse) converts in software: each
tensor page travels through an L1 page of the tensor's dtype, and the kernel
widens or narrows it between that page and the block (``emit/cpp.py``).

This pass gives each data-movement kernel with such copies a compiler-made DFB
``convert_<kernel>`` per tensor dtype and layout, one page large enough for
any of them (a tile, or the longest row segment of a row-major copy), and
names it as the ``staging`` operand of those ``ttl.copy``s. The DFB is never
pushed: it only lends the kernel L1.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from ttl.compiler import dialect as d
from ttl.compiler.passes.common import (
    TTLPassError,
    compiler_dfbs_allowed,
    declare_staging_dfb,
    ttl_operations,
)
from ttl.specs import ROW_MAJOR, TILE
from ttl.targets import tile_bytes


def converting_copies(kernel: d.KernelOp) -> list[d.CopyOp]:
    """The ``ttl.copy``s of ``kernel`` between a tensor and a block of another dtype."""
    return [op for op in kernel.walk() if isinstance(op, d.CopyOp) and op.converts]


def tensor_side(op: d.CopyOp) -> d.SliceOp:
    """The tensor slice a copy reads or writes."""
    sl = (op.src if op.is_read else op.dst).owner
    assert isinstance(sl, d.SliceOp)
    return sl


def stage_converting_copies(operation: d.OperationOp, pass_name: str) -> None:
    """Gives the converting copies of each kernel of ``operation`` a staging DFB."""
    allowed = compiler_dfbs_allowed(operation)
    for kernel in [k for k in operation.body.ops if isinstance(k, d.KernelOp)]:
        copies = converting_copies(kernel)
        if not copies:
            continue
        if not allowed:
            sl = tensor_side(copies[0]).result.type
            raise TTLPassError(
                pass_name,
                copies[0],
                f"this copy converts between a {sl.dtype} tensor and a block of the other "
                "dtype through a compiler-made DFB, and --no-ttl-compiler-dfbs forbids them",
                "make the DFB like a tensor of the tensor's dtype, or drop --no-ttl-compiler-dfbs",
            )
        groups: dict[tuple[str, str], list[d.CopyOp]] = {}
        for op in copies:
            ty = tensor_side(op).result.type
            groups.setdefault((ty.dtype, ty.layout_name), []).append(op)
        for (dtype, layout), ops in sorted(groups.items()):
            get = _declare(operation, kernel, ops, dtype, layout)
            for op in ops:
                staged = d.CopyOp(op.src, op.dst, get.result)
                staged.location = op.location  # the copy's source line, for the C++ comment
                Rewriter.replace_op(op, staged)


def _declare(
    operation: d.OperationOp, kernel: d.KernelOp, ops: list[d.CopyOp], dtype: str, layout: str
) -> d.GetDFBOp:
    """Declares the one-page staging DFB of ``ops`` (tensor pages of ``dtype`` and
    ``layout``) and returns its ``ttl.get_dfb`` at ``kernel``'s entry."""
    sl = tensor_side(ops[0])
    elem = sl.result.type.element_type
    if layout == ROW_MAJOR:  # the longest row segment any of the copies moves
        run = max(tensor_side(op).result.type.dims[-1] for op in ops)
        ty = d.DFBType((1, run), elem, ROW_MAJOR)
    else:
        ty = d.DFBType((1, 1), elem, TILE)
    tensor = sl.tensor.owner
    assert isinstance(tensor, d.GetTensorOp)
    symbol = tensor.ref.root_reference.data
    return declare_staging_dfb(operation, kernel, "convert", symbol, ty, tile_bytes(dtype))


@dataclass(frozen=True)
class StageConvertingCopiesPass(ModulePass):
    """Gives copies between bf16 and f32 an L1 page to convert tensor pages in."""

    name = "ttl-stage-converting-copies"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for operation in ttl_operations(op):
            stage_converting_copies(operation, self.name)
