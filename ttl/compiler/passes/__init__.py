"""The compiler's IR passes: xDSL ``ModulePass``es over a ``builtin.module`` holding one
``ttl.operation``.

Each pass is runnable alone on IR text (``ttl-opt -p <name> file.mlir``): it
reads what it needs from the IR (the target from the operation's ``target``,
earlier analysis results from attributes on ``ttl.dfb``) and records its own
results there. :data:`DEFAULT_PIPELINE` is what the driver runs after the
frontend; :func:`available_passes` maps every pass name ``ttl-opt`` accepts to
a factory of its class (xDSL's convention, so modules load on first use).
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException

from ttl.compiler import dialect as d

DEFAULT_PIPELINE = (
    "ttl-check-conditions,ttl-assign-slots,ttl-check-dfb-protocol,"
    "ttl-compute-lifetimes,ttl-allocate-dfbs,dce"
)
"""The driver's pipeline, in ``ttl-opt -p`` syntax."""


class TTLPassError(DiagnosticException):
    """A diagnostic of pass ``pass_name`` about ``op`` (a program error, not a compiler bug).

    The driver turns it into a located ``TTLCompileError`` (it knows where each
    ``ttl.dfb`` was declared in the Python source); ``ttl-opt`` prints it.
    """

    def __init__(self, pass_name: str, op: Operation, message: str, hint: str | None = None):
        self.pass_name = pass_name
        self.op = op
        self.message = message
        self.hint = hint
        super().__init__(self.render())

    def render(self) -> str:
        """``error: <message>``, where (op, pass) and the hint, one per line."""
        sym = op_symbol(self.op)
        lines = [
            f"error: {self.message}",
            f"  at: {self.op.name}{f' @{sym}' if sym else ''} (pass {self.pass_name})",
        ]
        if self.hint:
            lines.append(f"hint: {self.hint}")
        return "\n".join(lines)


def op_symbol(op: Operation) -> str | None:
    """The ``sym_name`` of a symbol op, else None."""
    sym = op.properties.get("sym_name")
    return sym.data if isinstance(sym, StringAttr) else None


def ttl_operations(module: ModuleOp) -> list[d.OperationOp]:
    """The ``ttl.operation``s of ``module`` and of modules nested in it, in order (the
    compiler makes one)."""
    found: list[d.OperationOp] = []
    for op in module.ops:
        if isinstance(op, d.OperationOp):
            found.append(op)
        elif isinstance(op, ModuleOp):
            found += ttl_operations(op)
    return found


def _conditions() -> type[ModulePass]:
    from ttl.compiler.passes.conditions import CheckConditionsPass

    return CheckConditionsPass


def _assign() -> type[ModulePass]:
    from ttl.compiler.passes.assign import AssignSlotsPass

    return AssignSlotsPass


def _protocol() -> type[ModulePass]:
    from ttl.compiler.passes.dfb_protocol import CheckDFBProtocolPass

    return CheckDFBProtocolPass


def _lifetimes() -> type[ModulePass]:
    from ttl.compiler.passes.lifetimes import ComputeLifetimesPass

    return ComputeLifetimesPass


def _allocate() -> type[ModulePass]:
    from ttl.compiler.passes.allocate import AllocateDFBsPass

    return AllocateDFBsPass


def _dce() -> type[ModulePass]:
    from xdsl.transforms.dead_code_elimination import DeadCodeElimination

    return DeadCodeElimination


def _cse() -> type[ModulePass]:
    from xdsl.transforms.common_subexpression_elimination import (
        CommonSubexpressionElimination,
    )

    return CommonSubexpressionElimination


def available_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Pass name -> factory of its ``ModulePass`` class: the ttl passes in pipeline order,
    then xDSL's generic ``dce`` and ``cse``."""
    return {
        "ttl-check-conditions": _conditions,
        "ttl-assign-slots": _assign,
        "ttl-check-dfb-protocol": _protocol,
        "ttl-compute-lifetimes": _lifetimes,
        "ttl-allocate-dfbs": _allocate,
        "dce": _dce,
        "cse": _cse,
    }
