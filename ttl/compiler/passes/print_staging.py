"""L1 pages for tensor prints.

Pass ``ttl-stage-tensor-prints`` (:class:`StageTensorPrintsPass`). TT-Metal
kernels print tile data from L1 (``TSLICE`` of a circular buffer), never from
DRAM, so ``print(t, num_pages=2)`` in a data-movement kernel reads each page
into a CB first. This pass gives each data-movement kernel that prints
tensors a compiler-made DFB ``print_<kernel>`` of one tile per printed dtype
and names it as the ``staging`` operand of those ``ttl.print``s; the emitter
reads each page into its reserved page and prints it from there
(``emit/debug.py``). The DFB is never pushed: it only lends the kernel L1.
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
from ttl.targets import tile_bytes


def tensor_prints(kernel: d.KernelOp) -> list[d.PrintOp]:
    """The ``ttl.print``s of ``kernel`` that print a tensor."""
    return [
        op
        for op in kernel.walk()
        if isinstance(op, d.PrintOp)
        and op.object is not None
        and isinstance(op.object.type, d.TensorType)
    ]


def stage_tensor_prints(operation: d.OperationOp, pass_name: str) -> None:
    """Gives the tensor prints of each data-movement kernel of ``operation`` a staging DFB."""
    allowed = compiler_dfbs_allowed(operation)
    for kernel in [k for k in operation.body.ops if isinstance(k, d.KernelOp)]:
        prints = tensor_prints(kernel)
        if not prints:
            continue
        if kernel.is_compute:
            raise TTLPassError(
                pass_name,
                prints[0],
                "a compute kernel cannot print a tensor: TT-Metal compute kernels have no "
                "NOC access to read its pages",
                "print the tensor from a data-movement kernel, or print a block of it",
            )
        if not allowed:
            raise TTLPassError(
                pass_name,
                prints[0],
                "printing a tensor reads its pages into a compiler-made DFB (TT-Metal prints "
                "tiles from L1), and --no-ttl-compiler-dfbs forbids them",
                "print a block the tensor was copied into, or drop --no-ttl-compiler-dfbs",
            )
        staging: dict[str, d.GetDFBOp] = {}  # dtype -> the kernel's get_dfb of its DFB
        for op in prints:
            tensor = op.object
            assert tensor is not None and isinstance(tensor.type, d.TensorType)
            dtype = tensor.type.dtype
            get = staging.get(dtype)
            if get is None:
                get = staging[dtype] = _declare(operation, kernel, tensor, dtype)
            _set_staging(op, get)


def _declare(operation: d.OperationOp, kernel: d.KernelOp, tensor, dtype: str) -> d.GetDFBOp:
    """Declares a one-tile DFB of ``dtype`` for ``kernel``'s prints; its ``ttl.get_dfb``
    at the kernel's entry."""
    owner = tensor.owner
    assert isinstance(owner, d.GetTensorOp)
    ty = d.DFBType((1, 1), tensor.type.element_type)
    symbol = owner.ref.root_reference.data
    return declare_staging_dfb(operation, kernel, "print", symbol, ty, tile_bytes(dtype))


def _set_staging(op: d.PrintOp, get: d.GetDFBOp) -> None:
    """Replaces ``op`` by the same print with ``get``'s DFB as its staging operand."""
    props = {k: v for k, v in op.properties.items() if k != "operandSegmentSizes"}
    staged = d.PrintOp.build(
        operands=[list(op.values), [get.result]], properties=props, attributes=op.attributes
    )
    Rewriter.replace_op(op, staged)


@dataclass(frozen=True)
class StageTensorPrintsPass(ModulePass):
    """Gives the tensor prints of data-movement kernels a DFB to read pages into."""

    name = "ttl-stage-tensor-prints"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for operation in ttl_operations(op):
            stage_tensor_prints(operation, self.name)
