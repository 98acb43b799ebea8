"""Kernel frontend: compiles one kernel function's AST into a ``ttl.kernel`` op.

One ``visit_*`` method per AST node kind. Statements append ops to the current
xDSL block; expressions return frontend values (see ``values.py``). Every
diagnostic is raised at the node that caused it.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

from xdsl.dialects import arith
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, StringAttr
from xdsl.ir import Block, Operation, Region, SSAValue

from ttl import dsl
from ttl.compiler import dialect as d
from ttl.compiler.frontend import block_expr as bx
from ttl.compiler.frontend import unary_math
from ttl.compiler.frontend.accumulate import AccumulateMixin, accumulator_names
from ttl.compiler.frontend.calls import CallsMixin
from ttl.compiler.frontend.calls_reduce import ReduceCallsMixin
from ttl.compiler.frontend.control import ControlFlowMixin
from ttl.compiler.frontend.debug import DebugMixin
from ttl.compiler.frontend.elements import ElementsMixin
from ttl.compiler.frontend.extern import ExternMixin
from ttl.compiler.frontend.inline import InlineMixin, kernel_body
from ttl.compiler.frontend.pipes import PipesMixin
from ttl.compiler.frontend.scopes import position
from ttl.compiler.frontend.symbols import ModuleSymbols
from ttl.compiler.frontend.sync import SYNC_VALUES, SyncMixin
from ttl.compiler.frontend.values import (
    IDENT,
    Affine,
    BlockHandle,
    BoundMethod,
    Dyn,
    ElementValue,
    Poison,
    ReadyReceive,
    SliceVal,
    TransferHandle,
    affine_of,
    is_scalar,
)
from ttl.compiler.model import OperationModel, ThreadModel, is_unbound
from ttl.compiler.per_node import NodeVariesError
from ttl.errors import TTLCompileError
from ttl.pipes import PipeNet
from ttl.source import node_loc

_UNSUPPORTED_HINTS: dict[type, tuple[str, str]] = {
    ast.Try: ("a try statement", "kernels cannot handle exceptions; remove the try"),
    ast.Raise: ("a raise statement", "kernels cannot raise; check conditions with if"),
    ast.Lambda: ("a lambda", "compute values at the operation's top level and capture them"),
    ast.ListComp: ("a list comprehension", "write an explicit for loop"),
    ast.SetComp: ("a set comprehension", "write an explicit for loop"),
    ast.DictComp: ("a dict comprehension", "write an explicit for loop"),
    ast.GeneratorExp: ("a generator expression", "write an explicit for loop"),
    ast.Break: ("break", "bound the loop with range() or a while condition instead"),
    ast.Continue: ("continue", "guard the rest of the loop body with an if statement"),
    ast.Return: ("return", "kernels return nothing; remove the return"),
    ast.FunctionDef: ("a nested function", "define helpers at the operation's top level"),
    ast.ClassDef: ("a class definition", "define classes outside the operation"),
    ast.Import: ("an import", "import modules at the top of the file"),
    ast.ImportFrom: ("an import", "import modules at the top of the file"),
    ast.Global: ("a global statement", "capture values from the operation instead"),
    ast.Nonlocal: ("a nonlocal statement", "capture values from the operation instead"),
    ast.Delete: ("del", "remove the del statement"),
    ast.Assert: ("assert", "check conditions at the operation's top level"),
    ast.JoinedStr: ("an f-string", "an f-string may be an argument of print(), nothing else"),
    ast.Dict: ("a dict", "use integer locals instead"),
    ast.Set: ("a set", "use integer locals instead"),
    ast.Await: ("await", "kernels are synchronous; remove await"),
    ast.Yield: ("yield", "kernels are not generators; remove yield"),
    ast.Starred: ("star-unpacking", "unpack into individual names"),
    ast.NamedExpr: ("an assignment expression (:=)", "assign in a separate statement"),
    ast.Match: ("a match statement", "use if/elif/else"),
}

_INT_OPS = {
    ast.Add: "add",
    ast.Sub: "sub",
    ast.Mult: "mul",
    ast.FloorDiv: "floordiv",
    ast.Mod: "mod",
}
_BLOCK_OPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div"}
_BLOCK_FN_OPS: dict[type, str] = {ast.Mod: "mod", ast.FloorDiv: "floordiv"}
_BLOCK_FN_NAMES = {"mod": "'%'", "floordiv": "'//'"}
_BLOCK_CMP: dict[type, str] = {
    ast.Gt: "gt",
    ast.Lt: "lt",
    ast.GtE: "ge",
    ast.LtE: "le",
    ast.Eq: "eq",
    ast.NotEq: "ne",
}
_STR_CMP = (ast.Eq, ast.NotEq)
_CMP = {ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "slt", ast.LtE: "sle", ast.Gt: "sgt", ast.GtE: "sge"}

_OpT = TypeVar("_OpT", bound=Operation)


class KernelCompiler(
    AccumulateMixin,
    ControlFlowMixin,
    ReduceCallsMixin,
    CallsMixin,
    ElementsMixin,
    ExternMixin,
    DebugMixin,
    PipesMixin,
    SyncMixin,
    InlineMixin,
    ast.NodeVisitor,
):
    """Compiles one kernel function (never executed) from its AST."""

    def __init__(self, model: OperationModel, thread: ThreadModel, symbols: ModuleSymbols):
        self.model = model
        self.thread = thread
        self.symbols = symbols
        self.filename = thread.filename
        self.is_compute = thread.kind is dsl.KernelKind.COMPUTE
        self.vars: dict[str, Any] = {}
        self.entry = Block()
        self.blocks: list[Block] = [self.entry]
        self.header: list[Operation] = []
        self.refs: dict[str, SSAValue] = {}
        self.handles: list[BlockHandle] = []
        self.published: set[str] = set()  # tensor-backed DFBs this kernel published
        self.loop_depth = 0
        self.stmt: ast.AST = thread.def_node
        self.inline_stack: list[str] = []  # helpers being inlined (inline.py)
        self.resolvers: list[Callable[[str], Any]] = []  # their free-name lookups
        self.accumulators: dict[str, BlockHandle] = {}
        # Per open statement list: sub-expressions stored into compiler-made DFBs.
        self.materialized: list[list[BlockHandle]] = []
        self.accumulator_names = (
            accumulator_names(thread.def_node) if self.is_compute else frozenset()
        )

    # ------------------------------------------------------------ plumbing
    def error(self, message: str, node: ast.AST, hint: str | None = None) -> TTLCompileError:
        return TTLCompileError(message, node_loc(self.filename, node), hint)

    def fail(self, message: str, node: ast.AST, hint: str | None = None) -> NoReturn:
        raise self.error(message, node, hint)

    def _loc(self, node: ast.AST) -> FileLineColLoc:
        return FileLineColLoc(
            StringAttr(os.path.basename(self.filename)),  # a helper's own file when inlined
            IntAttr(getattr(node, "lineno", 0)),
            IntAttr(getattr(node, "col_offset", 0) + 1),
        )

    def emit(self, op: _OpT) -> _OpT:
        """Append ``op`` to the current block, located at the current statement."""
        op.location = self._loc(self.stmt)
        self.blocks[-1].add_op(op)
        return op

    def ref(self, obj: dsl.TensorArg | dsl.DataflowBuffer, node: ast.AST) -> SSAValue:
        """The kernel-entry value of a tensor or DFB symbol (created on first use)."""
        tensor = isinstance(obj, dsl.TensorArg)
        owned = self.model.tensors if tensor else self.model.dfbs
        if not any(obj is o for o in owned):
            self.fail(
                f"{self.describe(obj)} does not belong to operation '{self.model.name}'",
                node,
                "use the operation's own tensor parameters and the DFBs it creates",
            )
        name = obj.name
        key = ("t:" if tensor else "d:") + name
        if key not in self.refs:
            op: Operation
            if tensor:
                op = d.GetTensorOp(name, self.symbols.tensor_types[name])
            else:
                op = d.GetDFBOp(name, self.symbols.dfb_types[name])
            op.location = self._loc(self.thread.def_node)
            op.results[0].name_hint = name
            self.header.append(op)
            self.refs[key] = op.results[0]
        return self.refs[key]

    def const(self, value: int | bool) -> SSAValue:
        width = 1 if isinstance(value, bool) else 32
        return self.emit(arith.ConstantOp.from_int_and_width(int(value), width)).results[0]

    def to_ssa(self, v: Any, node: ast.AST) -> SSAValue:
        if isinstance(v, Dyn):
            return v.value
        if isinstance(v, bool | int):
            if not isinstance(v, bool) and not -(2**31) <= v < 2**31:
                self.fail(f"integer {v} does not fit in 32 bits", node, "use smaller values")
            return self.const(v)
        self.fail(f"expected an integer here, got {self.describe(v)}", node, None)

    def describe(self, v: Any) -> str:
        if isinstance(v, BlockHandle):
            return v.describe()
        if isinstance(v, bx.Expr):
            return "a block expression"
        if isinstance(v, dsl.DataflowBuffer):
            return f"dataflow buffer '{v.name}'"
        if isinstance(v, dsl.TensorArg):
            return f"tensor '{v.name}'"
        if isinstance(v, TransferHandle):
            return "a transfer"
        if isinstance(v, ElementValue):
            return "an element value (from ttl.raw_element_read)"
        if isinstance(v, Dyn):
            return "a runtime " + v.kind
        return f"{type(v).__name__} value"

    def bind(self, name: str, value: Any) -> None:
        named = IDENT.match(name) and not name.startswith("_")
        if isinstance(value, Dyn | ElementValue) and value.value.name_hint is None and named:
            value.value.name_hint = name
        if isinstance(value, BlockHandle) and not value.name:
            value.name = name
            if named:
                value.value.name_hint = name
        self.vars[name] = value

    # ------------------------------------------------------------ entry
    def compile(self) -> d.KernelOp:
        """Build the ``ttl.kernel`` op for this thread."""
        fn = self.thread.def_node
        body = fn.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]  # docstring
        self.visit_body(kernel_body(body, self, fn))
        self.stmt = fn
        self.release_accumulators()
        for h in self.handles:
            if (
                h.released_line is None
                and h.acquire == "wait"
                and h.value.owner.parent_block() is self.entry
            ):
                # A block waited at the kernel's top level and never popped (the spec's
                # operation_function.py copies out `out_dfb.wait()` inline): its data is
                # consumed, so it is popped when the kernel ends, as if by a with.
                self.release(h, fn, implicit=True)
        for h in self.handles:
            if h.released_line is None:
                self.fail(
                    f"{h.describe()} is acquired here but never released",
                    h.node,
                    f"call {h.name or 'blk'}.{h.release_name}() when done, or use "
                    f"'with {h.dfb.name}.{h.acquire}() as {h.name or 'blk'}:'",
                )
        first = self.entry.first_op
        for op in self.header:
            if first is None:
                self.entry.add_op(op)
            else:
                self.entry.insert_op_before(op, first)
        kind = d.KernelKindEnum.COMPUTE if self.is_compute else d.KernelKindEnum.DATA_MOVEMENT
        kop = d.KernelOp(self.thread.name, kind, self.thread.logical_kernel, Region(self.entry))
        kop.location = self._loc(fn)
        return kop

    def visit_body(self, stmts: list[ast.stmt]) -> None:
        self.materialized.append([])
        i = 0
        while i < len(stmts):
            stmt, count = stmts[i], 1
            switch = self.exhaustive_switch(stmts, i)
            if switch is not None:
                stmt, count = switch
            self.stmt = stmt
            self.visit(stmt)
            i += count
        self.pop_materialized(self.materialized.pop())

    def generic_visit(self, node: ast.AST) -> Any:
        what, hint = _UNSUPPORTED_HINTS.get(
            type(node),
            (f"'{type(node).__name__}'", "use the TT-Lang kernel subset (docs/language.md)"),
        )
        self.fail(f"{what} is not supported in a kernel", node, hint)

    # ------------------------------------------------------------ statements
    def visit_Pass(self, node: ast.Pass) -> None:
        pass

    def visit_Expr(self, node: ast.Expr) -> None:
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # a string statement is a comment
        self.visit(node.value)

    def _assign_target(self, target: ast.expr, value: Any) -> None:
        if isinstance(target, ast.Name):
            if target.id in self.accumulator_names and (
                isinstance(value, bx.Expr)
                # a named block (not a fresh acquisition): acc = blk copies it
                or (isinstance(value, BlockHandle) and value.name not in ("", target.id))
            ):
                value = self.materialize(target.id, value, target)
            self.bind(target.id, value)
        elif isinstance(target, ast.Tuple | ast.List):
            if not isinstance(value, tuple | list) or len(value) != len(target.elts):
                self.fail(
                    f"cannot unpack {self.describe(value)} into {len(target.elts)} names",
                    target,
                    "unpack a tuple of the same length, e.g. x, y = ttl.node(dims=2)",
                )
            for t, v in zip(target.elts, value, strict=True):
                self._assign_target(t, v)
        elif isinstance(target, ast.Attribute):
            self.fail(
                "attribute writes are not supported in a kernel",
                target,
                "assign to a local variable instead",
            )
        elif isinstance(target, ast.Subscript):
            self.fail(
                "item assignment is not supported in a kernel",
                target,
                "copy into blocks with ttl.copy, or store block math with blk.store(...)",
            )
        else:
            self.generic_visit(target)

    def visit_Assign(self, node: ast.Assign) -> None:
        value = self.visit(node.value)
        for target in node.targets:
            self._check_not_rebinding_unwritten(target, value, node)
            self._assign_target(target, value)

    def _check_not_rebinding_unwritten(self, target: ast.expr, value: Any, node: ast.Assign):
        """``y_blk = a * b`` on a reserved block not written yet only rebinds the name:
        the block itself would be pushed holding garbage (``y_blk.store(a * b)`` writes it)."""
        if not isinstance(target, ast.Name) or not isinstance(value, bx.Expr):
            return
        held = self.vars.get(target.id)
        if (
            isinstance(held, BlockHandle)
            and held.acquire == "reserve"
            and not held.written
            and held.released_line is None
            and target.id not in self.accumulator_names
        ):
            self.fail(
                f"assigning to '{target.id}' rebinds the name of the block reserved on line "
                f"{getattr(held.node, 'lineno', 0)}; the block itself stays unwritten (block "
                "state MW, Must be Written)",
                node,
                f"store into the block: {target.id}.store({ast.unparse(node.value)})",
            )

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is None:
            return
        self._assign_target(node.target, self.visit(node.value))

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if not isinstance(node.target, ast.Name):
            self._assign_target(node.target, None)
        assert isinstance(node.target, ast.Name)  # _assign_target rejected the other targets
        current = self.visit_Name(ast.Name(node.target.id, ast.Load(), **position(node.target)))
        rhs = self.visit(node.value)
        if self.is_compute and self.augmented_block(node, current, rhs):
            return
        self.bind(node.target.id, self.binop(node.op, current, rhs, node))

    # ------------------------------------------------------------ expressions
    def visit_Constant(self, node: ast.Constant) -> Any:
        # A str is a compile-time name (``blk.dtype == "bf16"``, print's text).
        if isinstance(node.value, bool | int | float | str) or node.value is None:
            return node.value
        self.fail(
            f"{type(node.value).__name__} constants are not supported in a kernel",
            node,
            "kernels compute with integers, strings known at compile time and blocks",
        )

    def visit_Name(self, node: ast.Name) -> Any:
        if node.id in self.vars:
            value = self.vars[node.id]
            if isinstance(value, Poison):
                self.fail(value.reason, node, value.hint)
            return value
        try:
            value = self.lookup_free_name(node.id)
        except NodeVariesError as e:
            self.fail(
                f"'{node.id}' is {e} that differs between nodes (the top level calls "
                "ttl.node()); only integers, bools and tuples of them may differ",
                node,
                "compute the per-node value as an integer at the top level",
            )
        if is_unbound(value):
            self.fail(
                f"name '{node.id}' is not defined",
                node,
                "define it in the kernel, or at the operation's top level before the kernel",
            )
        value = self.per_node(value)
        if isinstance(value, Dyn) and value.value.name_hint is None:
            value.value.name_hint = node.id  # a per-node top-level value keeps its name
        return value

    def visit_Tuple(self, node: ast.Tuple) -> tuple[Any, ...]:
        return tuple(self.visit(e) for e in node.elts)

    def visit_List(self, node: ast.List) -> list[Any]:
        return [self.visit(e) for e in node.elts]

    def visit_Attribute(self, node: ast.Attribute) -> Any:
        base = self.visit(node.value)
        attr = node.attr
        if isinstance(base, dsl.DataflowBuffer):
            if attr in ("reserve", "wait", "publish"):
                return BoundMethod(base, attr)
            if attr in ("shape", "dtype"):  # compile-time: the block shape, "bf16"/"f32"/"bfp8"
                return getattr(base, attr)
        elif isinstance(base, BlockHandle):
            if attr in ("push", "pop", "store"):
                return BoundMethod(base, attr)
            if attr in ("shape", "dtype"):
                return getattr(base.dfb, attr)
        elif isinstance(base, TransferHandle):
            if attr == "wait":
                return BoundMethod(base, attr)
        elif isinstance(base, ReadyReceive):
            if attr == "index":
                return BoundMethod(base, attr)
        elif isinstance(base, dsl.TensorArg):
            if attr in ("shape", "padded_shape", "dtype"):
                return getattr(base, attr)
        elif isinstance(base, PipeNet):
            if attr in ("if_src", "if_dst", "is_src", "is_dst", "is_active"):
                return BoundMethod(base, attr)
        elif isinstance(base, SYNC_VALUES):
            return self.sync_attribute(base, node)
        elif not isinstance(base, Dyn | bx.Expr | SliceVal | int | float | tuple | list) and (
            hasattr(base, attr)
        ):
            return getattr(base, attr)
        unary_math.unknown_attribute(self, base, node)
        self.fail(
            f"{self.describe(base)} has no attribute '{attr}' in a kernel",
            node,
            "see docs/language.md for the methods of DFBs, blocks and transfers",
        )

    def visit_Subscript(self, node: ast.Subscript) -> Any:
        base = self.visit(node.value)
        if isinstance(base, dsl.TensorArg):
            return self.tensor_slice(base, node)
        if isinstance(base, tuple | list):
            index = self.visit(node.slice)
            if isinstance(index, int) and not isinstance(index, bool):
                try:
                    return base[index]
                except IndexError:
                    self.fail(f"index {index} is out of range", node.slice, None)
            self.fail(
                "tuples can only be indexed with compile-time integers",
                node.slice,
                "index with a constant, e.g. shape[0]",
            )
        self.fail(f"cannot index {self.describe(base)}", node, None)

    def visit_IfExp(self, node: ast.IfExp) -> Any:
        cond = self.visit(node.test)
        if not isinstance(cond, Dyn):
            self.refuse_branch_on(cond, node.test)
            return self.visit(node.body if cond else node.orelse)
        a, b = self.visit(node.body), self.visit(node.orelse)
        if not (is_scalar(a) and is_scalar(b)) or self._kind(a) != self._kind(b):
            self.fail("both arms of a conditional expression must be integers", node, None)
        test = self.truth(cond, node.test)
        op = self.emit(arith.SelectOp(test, self.to_ssa(a, node), self.to_ssa(b, node)))
        return Dyn(op.results[0], self._kind(a))

    def truth(self, v: Any, node: ast.AST) -> SSAValue:
        """An i1 value for a condition (integers compare against zero)."""
        if isinstance(v, Dyn) and v.kind == "bool":
            return v.value
        if isinstance(v, bool):
            return self.const(v)
        if isinstance(v, Dyn) and v.kind == "i64":
            zero = self.emit(arith.ConstantOp.from_int_and_width(0, 64)).results[0]
            return self.emit(arith.CmpiOp(v.value, zero, "ne")).results[0]
        if isinstance(v, ElementValue):
            self.fail(
                "an element value (from ttl.raw_element_read) is not a condition",
                node,
                "compare it: e.g. 'if value > 0.0:'",
            )
        if is_scalar(v):
            op = arith.CmpiOp(self.to_ssa(v, node), self.const(0), "ne")
            return self.emit(op).results[0]
        self.fail(f"cannot use {self.describe(v)} as a condition", node, None)

    def visit_BoolOp(self, node: ast.BoolOp) -> Any:
        values = [self.visit(v) for v in node.values]
        if all(not isinstance(v, Dyn) and is_scalar(v) for v in values):
            result = values[0]
            for v in values[1:]:
                result = (result and v) if isinstance(node.op, ast.And) else (result or v)
            return result
        bits = [self.truth(v, n) for v, n in zip(values, node.values, strict=True)]
        cls = arith.AndIOp if isinstance(node.op, ast.And) else arith.OrIOp
        acc = bits[0]
        for b in bits[1:]:
            acc = self.emit(cls(acc, b)).results[0]
        return Dyn(acc, "bool")

    def visit_Compare(self, node: ast.Compare) -> Any:
        left = self.visit(node.left)
        first = self.visit(node.comparators[0])
        if isinstance(left, BlockHandle | bx.Expr) or isinstance(first, BlockHandle | bx.Expr):
            return self.block_compare(node, left, first)
        if isinstance(left, ElementValue) or isinstance(first, ElementValue):
            if len(node.ops) > 1:
                self.fail(
                    "element values (from ttl.raw_element_read) compare two at a time",
                    node,
                    "write 'a < b and b < c' instead of 'a < b < c'",
                )
            return self.element_compare(node.ops[0], left, first, node)
        result: Any = True
        for i, (op, right_node) in enumerate(zip(node.ops, node.comparators, strict=True)):
            right = first if i == 0 else self.visit(right_node)
            if type(op) not in _CMP:
                self.fail(
                    f"comparison '{type(op).__name__}' is not supported in a kernel",
                    node,
                    "compare integers with == != < <= > >=",
                )
            if isinstance(left, str) and isinstance(right, str) and type(op) in _STR_CMP:
                # Compile-time names (``blk.dtype == "bf16"``): decided here.
                result = self._and(result, (left == right) == (type(op) is ast.Eq), node)
                left = right
                continue
            for v, n in ((left, node.left), (right, right_node)):
                if not is_scalar(v):
                    self.fail(
                        f"cannot compare {self.describe(v)}",
                        n,
                        "compare integers, or two strings with == or !=",
                    )
            if isinstance(left, Dyn) or isinstance(right, Dyn):
                cmp = self.emit(
                    arith.CmpiOp(self.to_ssa(left, node), self.to_ssa(right, node), _CMP[type(op)])
                )
                step: Any = Dyn(cmp.results[0], "bool")
            else:
                step = _static_compare(type(op), left, right)
            result = self._and(result, step, node)
            left = right
        return result

    def _and(self, a: Any, b: Any, node: ast.AST) -> Any:
        if a is True:
            return b
        if not isinstance(a, Dyn) and not isinstance(b, Dyn):
            return a and b
        return Dyn(
            self.emit(arith.AndIOp(self.truth(a, node), self.truth(b, node))).results[0], "bool"
        )

    def visit_UnaryOp(self, node: ast.UnaryOp) -> Any:
        v = self.visit(node.operand)
        if isinstance(node.op, ast.Not):
            if isinstance(v, Dyn):
                one = self.const(True)
                return Dyn(self.emit(arith.XOrIOp(self.truth(v, node), one)).results[0], "bool")
            if is_scalar(v):
                return not v
        elif isinstance(node.op, ast.USub):
            if isinstance(v, BlockHandle | bx.Expr):
                return bx.Unary(node, "neg", self.block_operand(v, node))
            if is_scalar(v) or isinstance(v, float):
                return self.binop(ast.Sub(), 0, v, node)
        elif isinstance(node.op, ast.UAdd):
            return v
        self.fail(f"unary '{type(node.op).__name__}' is not supported on {self.describe(v)}", node)

    def visit_BinOp(self, node: ast.BinOp) -> Any:
        return self.binop(node.op, self.visit(node.left), self.visit(node.right), node)

    def binop(self, op: ast.operator, left: Any, right: Any, node: ast.AST) -> Any:
        """Fold constants, build block expressions, or emit integer arithmetic."""
        blockish = (BlockHandle, bx.Expr)
        if isinstance(left, blockish) or isinstance(right, blockish):
            if isinstance(op, ast.Pow):
                return unary_math.block_pow(self, left, right, node)
            return self.block_binop(op, left, right, node)
        if (
            isinstance(op, ast.BitOr)
            and isinstance(left, dsl.KernelKind)
            and isinstance(right, dsl.KernelKind)
        ):
            return left | right
        if not isinstance(left, Dyn) and not isinstance(right, Dyn):
            if isinstance(left, int | float) and isinstance(right, int | float):
                try:
                    return _static_binop(op, left, right)
                except ZeroDivisionError:
                    self.fail("division by zero", node, None)
                except TypeError:
                    pass
            sequence = _static_sequence_op(op, left, right)
            if sequence is not None:
                return sequence
            if isinstance(left, ElementValue) or isinstance(right, ElementValue):
                self.fail(
                    f"operator '{type(op).__name__}' is not supported on an element value "
                    "(from ttl.raw_element_read): element values are written or compared, "
                    'nothing else (spec v0.18, "Limitations")',
                    node,
                    "write it with ttl.raw_element_write, compare it, or do the math on blocks "
                    "in the compute kernel",
                )
            self.fail(
                f"operator '{type(op).__name__}' is not supported on "
                f"{self.describe(left)} and {self.describe(right)}",
                node,
                "kernels compute with integers and blocks; tuples and lists concatenate (+) "
                "and repeat (* n) at compile time",
            )
        return self.int_binop(op, left, right, node)

    def int_binop(self, op: ast.operator, left: Any, right: Any, node: ast.AST) -> Dyn:
        for v in (left, right):
            if not is_scalar(v) or self._kind(v) != "int":
                self.fail(
                    f"integer arithmetic needs integers, got {self.describe(v)}",
                    node,
                    "use int values; kernels have no runtime floats",
                )
        name = _INT_OPS.get(type(op))
        if name is None:
            hint = "use // for integer division" if isinstance(op, ast.Div) else None
            self.fail(f"operator '{type(op).__name__}' is not supported on integers", node, hint)
        if name in ("floordiv", "mod") and right == 0:
            self.fail("division by zero", node, None)
        a, b = self.to_ssa(left, node), self.to_ssa(right, node)
        la, ra = affine_of(left), affine_of(right)
        aff: Affine | None = None
        if name == "add":
            res = self.emit(arith.AddiOp(a, b)).results[0]
            aff = la.add(ra) if la and ra else None
        elif name == "sub":
            res = self.emit(arith.SubiOp(a, b)).results[0]
            aff = la.sub(ra) if la and ra else None
        elif name == "mul":
            res = self.emit(arith.MuliOp(a, b)).results[0]
            if la and ra and ra.constant is not None:
                aff = la.scale(ra.constant)
            elif la and ra and la.constant is not None:
                aff = ra.scale(la.constant)
        elif name == "floordiv":
            res = self.emit(arith.FloorDivSIOp(a, b)).results[0]
        else:  # Python's floor modulo: a - (a // b) * b
            q = self.emit(arith.FloorDivSIOp(a, b)).results[0]
            qb = self.emit(arith.MuliOp(q, b)).results[0]
            res = self.emit(arith.SubiOp(a, qb)).results[0]
        return Dyn(res, "int", aff)

    # ------------------------------------------------------------ block math
    def block_operand(self, v: Any, node: ast.AST) -> bx.Expr:
        """``v`` as a block-expression node, checking the block protocol."""
        if not self.is_compute:
            self.fail(
                "block math is only allowed in compute kernels",
                node,
                "do the math in the @ttl.compute() kernel; data-movement kernels only copy",
            )
        if isinstance(v, bx.Expr):
            return v
        if isinstance(v, BlockHandle):
            self.check_live(v, node)
            self.check_not_writing(v, node, "a read")
            v.unread = False
            if v.acquire == "reserve" and not v.stored:
                self.fail(
                    f"{v.describe()} was acquired with reserve() and cannot be read before it "
                    "is written (block state MW, Must be Written: reserve() -> read is not a "
                    "transition)",
                    node,
                    f"store into it first ({v.name or 'blk'}.store(...)); a stored block can be "
                    "read back (block state RW)",
                )
            return bx.Leaf(node, v)
        self.fail(
            f"{self.describe(v)} cannot be used in block math",
            node,
            "use blocks, or ttl.block.fill(value, shape=...) for constants",
        )

    def block_binop(self, op: ast.operator, left: Any, right: Any, node: ast.AST) -> bx.Expr:
        blockish = (BlockHandle, bx.Expr)
        if not isinstance(op, ast.Pow) and not (
            isinstance(left, blockish) and isinstance(right, blockish)
        ):
            scalar = self.scalar_operand(right if isinstance(left, blockish) else left, node)
            return self.block_scalar_binop(op, left, right, scalar, node)
        lhs, rhs = self.block_operand(left, node), self.block_operand(right, node)
        if type(op) in _BLOCK_FN_OPS:
            return bx.BinaryFn(node, _BLOCK_FN_OPS[type(op)], lhs, rhs)
        if isinstance(op, ast.MatMult):
            lhs = self.materialize_operand(lhs, node, "'@'")
            rhs = self.materialize_operand(rhs, node, "'@'")
            return bx.Matmul(node, lhs, rhs)
        name = _BLOCK_OPS.get(type(op))
        if name is None:
            self.fail(
                f"operator '{type(op).__name__}' is not supported on blocks",
                node,
                "block math supports + - * / @ and ttl.math functions",
            )
        return bx.Binary(node, name, lhs, rhs)

    def scalar_operand(self, v: Any, node: ast.AST) -> float:
        """``v`` as the compile-time scalar operand of block math, or a located error."""
        if isinstance(v, int | float) and not isinstance(v, bool):
            return float(v)
        if isinstance(v, Dyn):
            self.fail(
                f"a scalar operand of block math must be a compile-time number, got "
                f"{self.describe(v)}",
                node,
                "block math takes constant scalars only; compute the value at the "
                "operation's top level",
            )
        self.fail(
            f"a scalar operand of block math must be an int or float, got {self.describe(v)}",
            node,
            "write a number, e.g. blk * 2.0, or use a block",
        )

    def block_compare(self, node: ast.Compare, left: Any, right: Any) -> bx.Expr:
        """``a > b`` (and ``< >= <= == !=``) on block expressions: a 0/1 block."""
        if len(node.ops) != 1:
            self.fail(
                "chained comparisons are not supported on blocks",
                node,
                "compare two operands at a time, e.g. (a > b) * (b > c)",
            )
        fn = _BLOCK_CMP.get(type(node.ops[0]))
        if fn is None:
            self.fail(
                f"comparison '{type(node.ops[0]).__name__}' is not supported on blocks",
                node,
                "blocks compare with > < >= <= == !=",
            )
        return self.block_fn(fn, left, right, node)

    def block_fn(self, fn: str, left: Any, right: Any, node: ast.AST) -> bx.Expr:
        """A ``BinaryFn`` node of two operands, either of which may be a scalar."""
        blockish = (BlockHandle, bx.Expr)
        if not isinstance(left, blockish) and not isinstance(right, blockish):
            self.fail(
                f"{_BLOCK_FN_NAMES.get(fn, fn)} needs at least one block operand, got "
                f"{self.describe(left)} and {self.describe(right)}",
                node,
                "pass blocks or block expressions",
            )
        if not isinstance(left, blockish):
            lhs: bx.Expr = bx.Fill(node, self.scalar_operand(left, node), None)
        else:
            lhs = self.block_operand(left, node)
        if not isinstance(right, blockish):
            rhs: bx.Expr = bx.Fill(node, self.scalar_operand(right, node), None)
        else:
            rhs = self.block_operand(right, node)
        return bx.BinaryFn(node, fn, lhs, rhs)

    def block_scalar_binop(
        self, op: ast.operator, left: Any, right: Any, value: float, node: ast.AST
    ) -> bx.Expr:
        """``blk op c`` or ``c op blk`` with a compile-time scalar ``c``."""
        scalar_left = not isinstance(left, BlockHandle | bx.Expr)
        blk = self.block_operand(right if scalar_left else left, node)
        kind = type(op)
        if kind in (ast.Add, ast.Mult):
            return bx.Scalar(node, "add" if kind is ast.Add else "mul", blk, value)
        if kind in (ast.Sub, ast.Div):
            names = ("rsub", "rdiv") if scalar_left else ("sub", "div")
            return bx.Scalar(node, names[kind is ast.Div], blk, value)
        if kind in _BLOCK_FN_OPS:
            fill = bx.Fill(node, value, None)
            lhs, rhs = (fill, blk) if scalar_left else (blk, fill)
            return bx.BinaryFn(node, _BLOCK_FN_OPS[kind], lhs, rhs)
        self.fail(
            f"operator '{type(op).__name__}' is not supported between a block and a scalar",
            node,
            "block math with a scalar supports + - * / % //",
        )


def _static_sequence_op(op: ast.operator, left: Any, right: Any) -> tuple | list | None:
    """``left op right`` for compile-time tuples and lists, as Python computes it:
    concatenation of two of one type, repetition by a compile-time integer; else None."""
    if isinstance(op, ast.Add) and type(left) is type(right) and isinstance(left, tuple | list):
        return left + right
    if isinstance(op, ast.Mult):
        for seq, n in ((left, right), (right, left)):
            if isinstance(seq, tuple | list) and isinstance(n, int) and not isinstance(n, bool):
                return seq * n
    return None


def _static_binop(op: ast.operator, a: Any, b: Any) -> Any:
    ops: dict[type, Callable[[Any, Any], Any]] = {
        ast.Add: lambda x, y: x + y,
        ast.Sub: lambda x, y: x - y,
        ast.Mult: lambda x, y: x * y,
        ast.FloorDiv: lambda x, y: x // y,
        ast.Mod: lambda x, y: x % y,
        ast.Div: lambda x, y: x / y,
        ast.Pow: lambda x, y: x**y,
    }
    if type(op) not in ops:
        raise TypeError(type(op).__name__)
    return ops[type(op)](a, b)


def _static_compare(op: type[ast.cmpop], a: Any, b: Any) -> bool:
    return {
        ast.Eq: a == b,
        ast.NotEq: a != b,
        ast.Lt: a < b,
        ast.LtE: a <= b,
        ast.Gt: a > b,
        ast.GtE: a >= b,
    }[op]
