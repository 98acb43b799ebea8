"""``ttl-dce``: dead-code elimination that keeps every ``while`` loop.

xDSL's ``dce`` erases an ``scf.while`` whose body has no side effects and
whose results are unused, which assumes the loop ends. A kernel loop the
compiler cannot prove finite must stay, so that a loop that never ends is
reported by the emulator as a runaway kernel instead of vanishing. Everything
else is removed as ``dce`` removes it.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.transforms.dead_code_elimination import LiveSet


class _LiveSetKeepingLoops(LiveSet):
    def propagate_op_liveness(self, op: Operation) -> None:
        if isinstance(op, scf.WhileOp):
            self.set_live(op)  # may not terminate: an effect of its own
        super().propagate_op_liveness(op)


class TTLDeadCodeEliminationPass(ModulePass):
    """Removes unused pure operations; ``scf.while`` loops are never removed."""

    name = "ttl-dce"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        live = _LiveSetKeepingLoops()
        while live.changed:
            live.changed = False
            live.propagate_region_liveness(op.body)
        live.delete_dead(op.body, None)
