"""What the ttl passes share: their diagnostic and the ops they run on."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.utils.exceptions import DiagnosticException

from ttl.compiler import dialect as d
from ttl.options import CompilerOptions


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


def compiler_dfbs_allowed(operation: d.OperationOp) -> bool:
    """Whether the operation's options let passes add DFBs (not ``--no-ttl-compiler-dfbs``)."""
    text = operation.options.data if operation.options is not None else None
    return CompilerOptions.from_string(text).compiler_dfbs


def new_dfb_name(operation: d.OperationOp, base: str) -> str:
    """``base``, or ``base_2``, ``base_3``, ...: a symbol ``operation`` does not declare."""
    taken = {op.sym_name.data for op in operation.body.ops if isinstance(op, d.DFBOp | d.TensorOp)}
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}_{n}"
    return name


def add_dfb(operation: d.OperationOp, decl: d.DFBOp) -> None:
    """Declares a compiler-made DFB after ``operation``'s other DFBs, so that their physical
    indices stay as they were."""
    last = [op for op in operation.body.ops if isinstance(op, d.DFBOp | d.TensorOp)][-1]
    operation.body.block.insert_op_after(decl, last)


def insert_at_entry(kernel: d.KernelOp, ops: Sequence[Operation]) -> None:
    """Inserts ``ops`` before the first op of ``kernel``'s body."""
    block = kernel.body.block
    if block.first_op is None:
        block.add_ops(ops)
    else:
        block.insert_ops_before(ops, block.first_op)


def declare_staging_dfb(
    operation: d.OperationOp,
    kernel: d.KernelOp,
    base: str,
    tensor: str,
    dfb_type: d.DFBType,
    page_size: int,
) -> d.GetDFBOp:
    """Declares a compiler-made one-block DFB ``<base>_<kernel>`` that lends ``kernel``
    L1 (never pushed: a staging page), like tensor ``tensor``; returns its ``ttl.get_dfb``,
    inserted at the kernel's entry."""
    name = new_dfb_name(operation, f"{base}_{kernel.sym_name.data}")
    add_dfb(operation, d.DFBOp(name, tensor, dfb_type, 1, page_size))
    get = d.GetDFBOp(name, dfb_type)
    get.result.name_hint = f"dfb_{name}"
    insert_at_entry(kernel, [get])
    return get
