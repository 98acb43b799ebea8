"""Scaler tiles of reductions written without a scaler block.

Pass ``ttl-materialize-scalers`` (:class:`MaterializeScalersPass`). TT-Metal's
``reduce_tile`` reads its scaler from a tile at the front of a circular buffer;
there is no "scale by one" form. ``ttl.math.reduce_sum(x, dims=[-1])`` reaches
the IR with a ``ttl.fill 1.0`` scaler, and this pass gives each compute kernel
that has such a reduction within tiles a compiler-made DFB ``scaler_<kernel>``
of one bf16 tile, as TT-Metal kernels do:

* the operation's first data-movement kernel fills it once, at its entry
  (``ttl.reserve``, ``ttl.fill_scaler 1.0``, ``ttl.push``); an operation with
  no data-movement kernel packs a ``ttl.fill 1.0`` into it from the compute
  kernel instead;
* the compute kernel waits for it once, at its entry, reads it as the scaler
  of those reductions, and pops it at its end.

A reduction over outer dims only combines whole tiles and reads no scaler
tile (``emit/compute.py``); its ``ttl.fill 1.0`` stays.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, bf16
from xdsl.passes import ModulePass

from ttl.compiler import dialect as d
from ttl.compiler.analysis.store_plan import reduces_within_tiles
from ttl.compiler.passes.common import (
    TTLPassError,
    add_dfb,
    compiler_dfbs_allowed,
    insert_at_entry,
    new_dfb_name,
    ttl_operations,
)
from ttl.targets import tile_bytes

SCALER_TYPE = d.DFBType((1, 1), bf16)
"""The scaler DFB's block: one bf16 tile."""


def ones_scaler_reductions(kernel: d.KernelOp) -> list[d.ReduceOp]:
    """The reductions within tiles of ``kernel`` whose scaler is a ``ttl.fill 1.0``."""
    return [
        op
        for op in kernel.walk()
        if isinstance(op, d.ReduceOp)
        and isinstance(op.scaler.owner, d.FillOp)
        and op.scaler.owner.value.value.data == 1.0
        and reduces_within_tiles(op)
    ]


def materialize_scalers(operation: d.OperationOp, pass_name: str) -> None:
    """Gives each compute kernel of ``operation`` with ones-scaler reductions its DFB."""
    kernels = [k for k in operation.body.ops if isinstance(k, d.KernelOp)]
    allowed = compiler_dfbs_allowed(operation)
    tensor = next((op for op in operation.body.ops if isinstance(op, d.TensorOp)), None)
    producer = next((k for k in kernels if not k.is_compute), None)
    for kernel in kernels:
        reductions = ones_scaler_reductions(kernel) if kernel.is_compute else []
        if not reductions:
            continue
        if not allowed:
            raise TTLPassError(
                pass_name,
                reductions[0],
                "a reduction without a scaler block needs a compiler-made DFB for the scaler "
                "tile TT-Metal's reduce_tile reads, and --no-ttl-compiler-dfbs forbids them",
                "pass a scaler block of your own (ttl.math.reduce_sum(x, s_blk, dims=[-1]), "
                "s_blk filled with 1.0), or drop --no-ttl-compiler-dfbs",
            )
        name = new_dfb_name(operation, f"scaler_{kernel.sym_name.data}")
        assert tensor is not None  # a reduction reads a DFB, which is like a tensor
        add_dfb(operation, d.DFBOp(name, tensor.sym_name.data, SCALER_TYPE, 1, tile_bytes("bf16")))
        _wait_at_entry(kernel, name, reductions)
        if producer is None:  # a compute-only operation: the kernel packs the tile itself
            _pack_at_entry(kernel, name)
        else:
            _fill_at_entry(producer, name)


def _acquire(
    name: str, acquire: type[d.ReserveOp | d.WaitOp]
) -> tuple[d.GetDFBOp, d.ReserveOp | d.WaitOp]:
    """``ttl.get_dfb`` of the scaler DFB ``name`` and a reserve or wait of its block."""
    get = d.GetDFBOp(name, SCALER_TYPE)
    get.result.name_hint = f"dfb_{name}"
    block = acquire(get.result)
    block.result.name_hint = name
    return get, block


def _fill_at_entry(kernel: d.KernelOp, name: str) -> None:
    get, reserve = _acquire(name, d.ReserveOp)
    block = reserve.result
    insert_at_entry(kernel, [get, reserve, d.FillScalerOp(block, 1.0), d.PushOp(block)])


def _pack_at_entry(kernel: d.KernelOp, name: str) -> None:
    get, reserve = _acquire(name, d.ReserveOp)
    block = reserve.result
    ones = d.FillOp(1.0, d.TilesType((1, 1), bf16))
    ops = [get, reserve, ones, d.StoreOp(block, ones.result, False), d.PushOp(block)]
    insert_at_entry(kernel, ops)


def _wait_at_entry(kernel: d.KernelOp, name: str, reductions: list[d.ReduceOp]) -> None:
    get, wait = _acquire(name, d.WaitOp)
    insert_at_entry(kernel, [get, wait])
    kernel.body.block.add_op(d.PopOp(wait.result))
    for reduce in reductions:
        fill = reduce.scaler.owner
        assert isinstance(fill, d.FillOp)
        read = d.ReadOp(wait.result)
        assert reduce.parent is not None
        reduce.parent.insert_op_before(read, reduce)
        reduce.operands[1] = read.result
        if not fill.result.uses:
            fill.detach()
            fill.erase()


@dataclass(frozen=True)
class MaterializeScalersPass(ModulePass):
    """Replaces the ``ttl.fill 1.0`` scalers of reductions within tiles by a tile of a
    compiler-made DFB that a data-movement kernel fills."""

    name = "ttl-materialize-scalers"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for operation in ttl_operations(op):
            materialize_scalers(operation, self.name)
