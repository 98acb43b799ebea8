"""``ttl-prove-slice-bounds``: marks the tile-slice offsets proven inside their tensor.

A copy between a block and ``tensor[offset : offset + size, ...]`` whose offset
is not a constant gets a run-time check (``ttl_check_slice``), which stops the
run instead of reading or writing past the tensor. Most offsets in real kernels
are loop variables and node coordinates with known ranges, guarded by
conditions such as ``if row < rows:``; for those the integer range analysis
(:mod:`ttl.compiler.analysis.ranges`) proves ``0 <= offset`` and ``offset +
size <= extent`` and this pass records the dimension in the slice's
``in_bounds``, so the emitter leaves the check out. What it cannot prove stays
checked.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, ModuleOp, i64
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from ttl.compiler import dialect as d
from ttl.compiler.analysis.ranges import Scope, walk_kernel
from ttl.compiler.passes.common import ttl_operations


def _prove(op: Operation, scope: Scope) -> None:
    if not isinstance(op, d.SliceOp):
        return
    tensor, result = op.tensor.type, op.result.type
    assert isinstance(tensor, d.TensorType) and isinstance(result, d.SliceType)
    proven = [
        dim
        for dim, (offset, size, extent) in enumerate(
            zip(op.offsets, result.dims, tensor.unit_dims, strict=True)
        )
        if (r := scope.range_of(offset)).lo >= 0 and r.hi + size <= extent
    ]
    op.in_bounds = DenseArrayBase.from_list(i64, proven) if proven else None


class ProveSliceBoundsPass(ModulePass):
    """Records in each ``ttl.slice`` the dimensions whose offsets are proven in range."""

    name = "ttl-prove-slice-bounds"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for operation in ttl_operations(op):
            grid = tuple(operation.grid.get_values())
            for kernel in operation.body.ops:
                if isinstance(kernel, d.KernelOp):
                    walk_kernel(kernel, grid, _prove)
