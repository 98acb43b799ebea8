"""How a ``ttl.store`` uses the DST registers: registers per tile, tiles per acquire.

An IR analysis shared by the frontend (which diagnoses a store whose tile
does not fit in DST) and the compute emitter (which chunks the store loop).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import Operation, SSAValue

from ttl.compiler import dialect as d
from ttl.targets import Target


def registers(value: SSAValue) -> int:
    """DST registers needed to compute one tile of ``value``."""
    op = value.owner
    if isinstance(op, d.UnaryOp):
        return registers(op.operand)
    if isinstance(op, d.ScalarOp):
        return registers(op.operand)
    if isinstance(op, d.BinaryFnOp):  # SFPU binary: both operands in DST
        return max(registers(op.lhs), 1 + registers(op.rhs))
    if isinstance(op, d.AddOp | d.SubOp | d.MulOp | d.DivOp):
        if fpu_binary(op):
            return 1
        return max(registers(op.lhs), 1 + registers(op.rhs))
    if isinstance(op, d.WhereOp):  # where_tile: three operands in DST
        c, t, f = op.operands
        return max(registers(c), 1 + registers(t), 2 + registers(f))
    if isinstance(op, d.ReduceOp) and not reduces_within_tiles(op):
        return 2  # accumulator + the tile added into it
    if isinstance(op, d.MaskOp):  # mask_tile: data and mask in DST
        return max(registers(op.operand), 1 + registers(op.mask))
    return 1  # read, fill, broadcast, matmul, reduce, transpose: one register each


def reduces_within_tiles(op: d.ReduceOp) -> bool:
    """Whether ``op`` reduces one of the two tile dims (else it only combines whole tiles)."""
    rank = len(op.result.type.dims)
    return bool(set(op.normalized_dims) & {rank - 1, rank - 2})


def reads_reserved(op: Operation) -> bool:
    """A ``ttl.read`` of a block acquired with reserve() (read back after a store)."""
    return isinstance(op, d.ReadOp) and isinstance(op.block.owner, d.ReserveOp)


def fpu_binary(op: Operation) -> bool:
    """Both operands straight from the front of DFBs: the FPU op reads them without copies.

    A reserved block read back (block state RW) lives at the DFB's write pointer, which
    the FPU's unpackers do not read; it is copied into DST first.
    """
    a, b = op.operands[0].owner, op.operands[1].owner
    return (
        not isinstance(op, d.DivOp)
        and isinstance(a, d.ReadOp)
        and isinstance(b, d.ReadOp)
        and not reads_reserved(a)
        and not reads_reserved(b)
    )


def dtypes(value: SSAValue, out: set[str]) -> set[str]:
    # (ignores: a block-expression value, TilesType or BlockType, is an op result)
    out.add(value.type.dtype)  # type: ignore[attr-defined]
    for operand in value.owner.operands:  # type: ignore[union-attr]
        if isinstance(operand.type, d.TilesType | d.BlockType):
            dtypes(operand, out)
    return out


@dataclass(frozen=True)
class StorePlan:
    """How a store is split: ``regs`` per tile, ``chunk`` tiles per DST acquire."""

    tiles: int
    regs: int
    capacity: int
    chunk: int


def plan_store(store: d.StoreOp, target: Target) -> StorePlan | None:
    """The chunking of ``store`` on ``target``; None if one tile exceeds DST."""
    value = store.value
    # (ignore: operand_def fields are SSAValue[Attribute]; the verifier checked it)
    tiles = value.type.num_tiles  # type: ignore[attr-defined]
    regs = registers(value)
    capacity = target.dst_capacity(dtypes(value, set()))
    per = capacity // regs
    if per == 0:
        return StorePlan(tiles, regs, capacity, 0)
    chunk = max(c for c in range(1, min(per, tiles) + 1) if tiles % c == 0)
    return StorePlan(tiles, regs, capacity, chunk)
