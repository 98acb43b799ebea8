"""Target assignment on the IR: processor slots (DFB indices: ``allocate.py``)."""

from __future__ import annotations

from xdsl.dialects.builtin import StringAttr

from ttl.compiler import dialect as d
from ttl.targets import COMPUTE, DATA_MOVEMENT, Target

_SLOT_KIND = {d.KernelKindEnum.COMPUTE: COMPUTE, d.KernelKindEnum.DATA_MOVEMENT: DATA_MOVEMENT}


def assign_slots(op: d.OperationOp, target: Target) -> None:
    """Canonical explicit-form assignment: slots of each kind in declaration order.

    Capacity was checked before, so every kernel finds a slot.
    """
    taken: dict[str, int] = {}
    for k in op.body.ops:
        if isinstance(k, d.KernelOp):
            kind = _SLOT_KIND[k.kind.data]
            n = taken.get(kind, 0)
            k.slot = StringAttr(target.slots[kind][n])
            taken[kind] = n + 1
