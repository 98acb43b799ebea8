"""Target assignment on the IR: processor slots (DFB indices: ``allocate.py``).

Pass ``ttl-assign-slots`` (:class:`AssignSlotsPass`): the target is the
``target`` attribute of each ``ttl.operation``; every ``ttl.kernel`` gets
``slot`` = the next free processor slot of its kind in the target's slot
table, in declaration order.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.passes import ModulePass

from ttl.compiler import dialect as d
from ttl.compiler.analysis.capacity import kernel_capacity_error
from ttl.compiler.passes.common import TTLPassError, ttl_operations
from ttl.targets import COMPUTE, DATA_MOVEMENT, TARGETS, Target

_SLOT_KIND = {d.KernelKindEnum.COMPUTE: COMPUTE, d.KernelKindEnum.DATA_MOVEMENT: DATA_MOVEMENT}


def assign_slots(op: d.OperationOp, target: Target, pass_name: str = "ttl-assign-slots") -> None:
    """Canonical explicit-form assignment: slots of each kind in declaration order.

    The driver checks capacity before building the IR, so there every kernel
    finds a slot; on other IR a kernel beyond its kind's slots is an error.
    """
    kernels = [k for k in op.body.ops if isinstance(k, d.KernelOp)]
    taken: dict[str, int] = {}
    for k in kernels:
        kind = _SLOT_KIND[k.kind.data]
        n = taken.get(kind, 0)
        if n >= len(target.slots[kind]):
            needed = sum(1 for x in kernels if _SLOT_KIND[x.kind.data] == kind)
            err = kernel_capacity_error(op.sym_name.data, kind, needed, target, None)
            assert err is not None
            raise TTLPassError(pass_name, k, err.message, err.hint)
        k.slot = StringAttr(target.slots[kind][n])
        taken[kind] = n + 1


@dataclass(frozen=True)
class AssignSlotsPass(ModulePass):
    """Sets ``slot`` on every ``ttl.kernel`` from the slot table of the operation's target."""

    name = "ttl-assign-slots"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for operation in ttl_operations(op):
            target = TARGETS.get(operation.target.data)
            if target is None:
                raise TTLPassError(
                    self.name,
                    operation,
                    f"unknown target '{operation.target.data}'",
                    f"set target to one of: {', '.join(sorted(TARGETS))}",
                )
            assign_slots(operation, target, self.name)
