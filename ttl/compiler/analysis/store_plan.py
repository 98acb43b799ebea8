"""How a ``ttl.store`` uses the DST registers: registers per tile, tiles per acquire.

An IR analysis shared by the frontend (which diagnoses a store whose tile
does not fit in DST) and the compute emitter (which chunks the store loop).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import Operation, SSAValue

from ttl.compiler import dialect as d
from ttl.compiler.compute_config import ComputeConfig
from ttl.targets import Target


def registers(value: SSAValue, fpu: bool = True) -> int:
    """DST registers needed to compute one tile of ``value`` (``fpu``: FPU binaries allowed)."""
    op = value.owner
    if isinstance(op, d.UnaryOp):
        return registers(op.operand, fpu)
    if isinstance(op, d.ScalarOp):
        return registers(op.operand, fpu)
    if isinstance(op, d.BinaryFnOp):  # SFPU binary: both operands in DST
        scratch = 3 if op.fn.data is d.BinaryFnEnum.FLOORDIV else 0  # and a % b (emit)
        return max(registers(op.lhs, fpu), 1 + registers(op.rhs, fpu), scratch)
    if isinstance(op, d.AddOp | d.SubOp | d.MulOp | d.DivOp):
        if fpu_binary(op, fpu):
            return 1
        return max(registers(op.lhs, fpu), 1 + registers(op.rhs, fpu))
    if isinstance(op, d.WhereOp):  # where_tile: three operands in DST
        c, t, f = op.operands
        return max(registers(c, fpu), 1 + registers(t, fpu), 2 + registers(f, fpu))
    if isinstance(op, d.ReduceOp) and not reduces_within_tiles(op):
        return 2  # accumulator + the tile added into it
    if isinstance(op, d.MaskOp):  # mask_tile: data and mask in DST
        return max(registers(op.operand, fpu), 1 + registers(op.mask, fpu))
    return 1  # read, fill, broadcast, matmul, reduce, transpose: one register each


def reduces_within_tiles(op: d.ReduceOp) -> bool:
    """Whether ``op`` reduces one of the two tile dims (else it only combines whole tiles)."""
    rank = len(op.result.type.dims)
    return bool(set(op.normalized_dims) & {rank - 1, rank - 2})


def reads_reserved(op: Operation) -> bool:
    """A ``ttl.read`` of a block acquired with reserve() (read back after a store)."""
    return isinstance(op, d.ReadOp) and isinstance(op.block.owner, d.ReserveOp)


def read_back_blocks(store: d.StoreOp) -> list[SSAValue]:
    """The reserved blocks ``store``'s value reads, each once, in reading order."""
    found: list[SSAValue] = []
    pending = [store.value]
    seen: set[SSAValue] = set()
    while pending:
        value = pending.pop()
        if value in seen:
            continue
        seen.add(value)
        op = value.owner
        if isinstance(op, d.ReadOp):
            if reads_reserved(op) and op.block not in found:
                found.append(op.block)
        elif isinstance(op, Operation):
            pending.extend(reversed(op.operands))
    return found


def is_in_place(store: d.StoreOp) -> bool:
    """Whether ``store`` packs into a block its value reads."""
    return store.block in read_back_blocks(store)


def fpu_binary(op: Operation, allowed: bool = True) -> bool:
    """Both operands straight from the front of DFBs: the FPU op reads them without copies.

    A reserved block read back (block state RW) lives at the DFB's write pointer, which
    the FPU's unpackers do not read; it is copied into DST first. ``allowed`` is
    ``ttl.CompilerOptions.enable_fpu_binary_ops``.
    """
    a, b = op.operands[0].owner, op.operands[1].owner
    return (
        allowed
        and not isinstance(op, d.DivOp)
        and isinstance(a, d.ReadOp)
        and isinstance(b, d.ReadOp)
        and not reads_reserved(a)
        and not reads_reserved(b)
    )


@dataclass(frozen=True)
class StorePlan:
    """How a store is split: ``regs`` per tile, ``chunk`` tiles per DST acquire.

    ``fpu``: whether + - * of two DFB tiles use the FPU form (``add_tiles``).
    """

    tiles: int
    regs: int
    capacity: int
    chunk: int
    fpu: bool = True


def plan_store(store: d.StoreOp, target: Target, config: ComputeConfig) -> StorePlan:
    """The chunking of ``store`` on ``target`` in DST mode ``config``; ``chunk`` is 0
    if one tile needs more registers than DST has."""
    value = store.value
    # (ignore: operand_def fields are SSAValue[Attribute]; the verifier checked it)
    tiles = value.type.num_tiles  # type: ignore[attr-defined]
    regs = registers(value, config.fpu_binary_ops)
    capacity = config.dst_tiles(target)
    per = capacity // regs if config.maximize_dst else min(1, capacity // regs)
    chunk = max((c for c in range(1, min(per, tiles) + 1) if tiles % c == 0), default=0)
    return StorePlan(tiles, regs, capacity, chunk, config.fpu_binary_ops)
