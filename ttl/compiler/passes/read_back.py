"""Reads of reserved blocks (block state RW) in terms TT-Metal's unpackers can do.

Pass ``ttl-prepare-read-back`` (:class:`PrepareReadBackPass`). A compute kernel may
read a block it reserved and stored into (``acc = acc + c``, ``y_blk -= x``,
``out.store(acc)``). TT-Metal's unpackers read only the front of a circular
buffer (what ``cb_wait_front`` returned), and a reserved block is at its back.
The emitter reads such a block by publishing it for the statement that reads it
(``cb_push_back``, ``cb_wait_front``; the unpackers read the front; then
``cb_pop_front``, and ``cb_reserve_back`` again: ``emit/cpp.py``,
``op_StoreOp``). That is only correct in a DFB no other kernel sees, holding
no other block: a *scratch* DFB (``scratch`` on its ``ttl.dfb``), as the
compiler makes for accumulators. This pass makes sure every read-back is of
one:

* A reserved block of any other DFB that is read back is *shadowed*: a scratch
  DFB ``shadow_<dfb>`` of the same block type takes its stores and reads; at
  each push of the block, the shadow's value is copied into it first (push,
  wait, read, store, pop of the shadow).
* A scratch DFB whose block a statement updates in place (a store into a
  block whose value reads that block) gets 2 blocks: the statement reads the
  published block at the front and packs into the next block at the back.
  With one block, publishing and reserving again keeps the value where it
  was, so a read that stores elsewhere needs no second block.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass

from ttl.compiler import dialect as d
from ttl.compiler.analysis.store_plan import is_in_place, reads_reserved
from ttl.compiler.passes.common import (
    TTLPassError,
    add_dfb,
    compiler_dfbs_allowed,
    new_dfb_name,
    ttl_operations,
)
from ttl.compiler.passes.dfb_protocol import block_dfb


def _read_back(kernel: d.KernelOp) -> list[SSAValue]:
    """The reserved blocks that ``ttl.read`` ops of ``kernel`` read, in program order."""
    blocks: list[SSAValue] = []
    for op in kernel.walk():
        if reads_reserved(op) and op.block not in blocks:  # type: ignore[attr-defined]
            blocks.append(op.block)  # type: ignore[attr-defined]
    return blocks


def _dfb_of(block: SSAValue, dfbs: dict[str, d.DFBOp]) -> d.DFBOp:
    name, _ = block_dfb(block)
    assert name is not None, "a reserve's DFB is a ttl.get_dfb"
    return dfbs[name]


def _shadow(block: SSAValue, dfb: d.DFBOp, operation: d.OperationOp) -> None:
    """Moves ``block``'s stores and reads to a reserved block of a new scratch DFB,
    copied into ``block`` before each of its pushes."""
    reserve = block.owner
    assert isinstance(reserve, d.ReserveOp)
    name = new_dfb_name(operation, f"shadow_{dfb.sym_name.data}")
    tensor = dfb.tensor.root_reference.data if dfb.tensor is not None else None
    page_size = dfb.page_size.value.data
    add_dfb(operation, d.DFBOp(name, tensor, dfb.dfb_type, 1, page_size, scratch=True))
    get = d.GetDFBOp(name, dfb.dfb_type)
    shadow = d.ReserveOp(get.result)
    shadow.result.name_hint = f"{block.name_hint or 'blk'}_shadow"
    assert reserve.parent is not None
    reserve.parent.insert_ops_after([get, shadow], reserve)
    for use in list(block.uses):
        if not isinstance(use.operation, d.PushOp):
            use.operation.operands[use.index] = shadow.result
    for use in list(block.uses):
        push = use.operation
        if not isinstance(push, d.PushOp):
            continue
        wait = d.WaitOp(get.result)
        read = d.ReadOp(wait.result)
        copy = [
            d.PushOp(shadow.result),
            wait,
            read,
            d.StoreOp(block, read.result, False),
            d.PopOp(wait.result),
        ]
        for op in copy:
            op.location = push.location  # the C++ comment names the with that pushes
        assert push.parent is not None
        push.parent.insert_ops_before(copy, push)


def prepare_read_back(operation: d.OperationOp, pass_name: str) -> None:
    """Shadows read-back blocks of non-scratch DFBs; 2 blocks for in-place updates."""
    dfbs = {op.sym_name.data: op for op in operation.body.ops if isinstance(op, d.DFBOp)}
    kernels = [k for k in operation.body.ops if isinstance(k, d.KernelOp) and k.is_compute]
    for kernel in kernels:
        for block in _read_back(kernel):
            dfb = _dfb_of(block, dfbs)
            if dfb.scratch is not None:
                continue
            if not compiler_dfbs_allowed(operation):
                reserve = block.owner
                assert isinstance(reserve, d.ReserveOp)
                raise TTLPassError(
                    pass_name,
                    reserve,
                    f"a block of '{dfb.sym_name.data}' is read back after a store, which on "
                    "TT-Metal (whose unpackers read only a DFB's front) needs a compiler-made "
                    "DFB, and --no-ttl-compiler-dfbs forbids them",
                    "store the value into a block of another DFB of your own and read that "
                    "one, or drop --no-ttl-compiler-dfbs",
                )
            _shadow(block, dfb, operation)
    dfbs = {op.sym_name.data: op for op in operation.body.ops if isinstance(op, d.DFBOp)}
    for kernel in kernels:
        for op in kernel.walk():
            if isinstance(op, d.StoreOp) and is_in_place(op):
                dfb = _dfb_of(op.block, dfbs)
                if dfb.block_count.value.data < 2:
                    dfb.block_count = IntegerAttr(2, i64)


@dataclass(frozen=True)
class PrepareReadBackPass(ModulePass):
    """Gives every read of a reserved block a scratch DFB the emitter can publish."""

    name = "ttl-prepare-read-back"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for operation in ttl_operations(op):
            prepare_read_back(operation, self.name)
