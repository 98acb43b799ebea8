"""Kernel frontend: compiles one kernel function's AST into a ``ttl.kernel`` op.

One ``visit_*`` method per AST node kind. Statements append ops to the current
xDSL block; expressions return frontend values (see ``values.py``). Every
diagnostic is raised at the node that caused it.
"""

from __future__ import annotations

import ast
import builtins
import os
import re
from collections.abc import Callable
from typing import Any, NoReturn

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, StringAttr, i1, i32
from xdsl.ir import Block, Operation, Region, SSAValue

from ttl import dsl
from ttl._intrinsic import intrinsic_name
from ttl.compiler import dialect as d
from ttl.compiler.emit.compute import plan_store
from ttl.compiler.evaluate import OperationModel, ThreadModel, is_unbound
from ttl.compiler.frontend import block_expr as bx
from ttl.compiler.frontend.scopes import assigned_names
from ttl.compiler.frontend.values import (
    Affine,
    BlockHandle,
    BoundMethod,
    Dyn,
    Poison,
    SliceVal,
    TransferHandle,
)
from ttl.compiler.source import node_loc
from ttl.errors import TTLCompileError
from ttl.math import UNARY_FUNCTIONS

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
    ast.JoinedStr: ("an f-string", "kernels have no strings; remove it"),
    ast.Dict: ("a dict", "use integer locals instead"),
    ast.Set: ("a set", "use integer locals instead"),
    ast.Await: ("await", "kernels are synchronous; remove await"),
    ast.Yield: ("yield", "kernels are not generators; remove yield"),
    ast.Starred: ("star-unpacking", "unpack into individual names"),
    ast.NamedExpr: ("an assignment expression (:=)", "assign in a separate statement"),
    ast.Match: ("a match statement", "use if/elif/else"),
}

_INT_OPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.FloorDiv: "floordiv", ast.Mod: "mod"}
_BLOCK_OPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div"}
_CMP = {ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "slt", ast.LtE: "sle", ast.Gt: "sgt", ast.GtE: "sge"}
_STATIC_BUILTINS = {builtins.min, builtins.max, builtins.abs, builtins.int, builtins.len}
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _scalar(v: Any) -> bool:
    return isinstance(v, Dyn) or (isinstance(v, int) and not isinstance(v, bool)) or isinstance(
        v, bool
    )


class ModuleSymbols:
    """Symbol names and types of the operation's tensors and DFBs."""

    def __init__(self, model: OperationModel):
        self.tensor_types = {
            t.name: d.TensorType(t.spec.shape, bx.element_type(t.spec.dtype))
            for t in model.tensors
        }
        self.dfb_types = {
            f.name: d.DFBType(f.shape, bx.element_type(f.dtype)) for f in model.dfbs
        }


class KernelCompiler(ast.NodeVisitor):
    """Compiles one kernel function (never executed) from its AST."""

    def __init__(self, model: OperationModel, thread: ThreadModel, symbols: ModuleSymbols):
        self.model = model
        self.thread = thread
        self.symbols = symbols
        self.filename = thread.filename
        self.basename = os.path.basename(thread.filename)
        self.is_compute = thread.kind is dsl.KernelKind.COMPUTE
        self.vars: dict[str, Any] = {}
        self.entry = Block()
        self.blocks: list[Block] = [self.entry]
        self.header: list[Operation] = []
        self.refs: dict[str, SSAValue] = {}
        self.handles: list[BlockHandle] = []
        self.loop_depth = 0
        self.stmt: ast.AST = thread.def_node

    # ------------------------------------------------------------ plumbing
    def error(self, message: str, node: ast.AST, hint: str | None = None) -> TTLCompileError:
        return TTLCompileError(message, node_loc(self.filename, node), hint)

    def fail(self, message: str, node: ast.AST, hint: str | None = None) -> NoReturn:
        raise self.error(message, node, hint)

    def _loc(self, node: ast.AST) -> FileLineColLoc:
        return FileLineColLoc(
            StringAttr(self.basename),
            IntAttr(getattr(node, "lineno", 0)),
            IntAttr(getattr(node, "col_offset", 0) + 1),
        )

    def emit(self, op: Operation) -> Operation:
        """Append ``op`` to the current block, located at the current statement."""
        op.location = self._loc(self.stmt)
        self.blocks[-1].add_op(op)
        return op

    def ref(self, name: str, tensor: bool) -> SSAValue:
        """The kernel-entry value of a tensor or DFB symbol (created on first use)."""
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
        if isinstance(v, Dyn):
            return "a runtime " + v.kind
        return f"{type(v).__name__} value"

    def bind(self, name: str, value: Any) -> None:
        named = _IDENT.match(name) and not name.startswith("_")
        if isinstance(value, Dyn) and value.value.name_hint is None and named:
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
        self.visit_body(body)
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
        kop = d.KernelOp(
            self.thread.name, kind, f"{self.model.name}.{self.thread.name}", Region(self.entry)
        )
        kop.location = self._loc(fn)
        return kop

    def visit_body(self, stmts: list[ast.stmt]) -> None:
        for stmt in stmts:
            self.stmt = stmt
            self.visit(stmt)

    def generic_visit(self, node: ast.AST) -> Any:
        what, hint = _UNSUPPORTED_HINTS.get(
            type(node), (f"'{type(node).__name__}'", "use the TT-Lang kernel subset (LANGUAGE.md)")
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
            self._assign_target(target, value)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is None:
            return
        self._assign_target(node.target, self.visit(node.value))

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if not isinstance(node.target, ast.Name):
            self._assign_target(node.target, None)
        current = self.visit_Name(ast.Name(node.target.id, ast.Load(), **_pos(node.target)))
        self.bind(node.target.id, self.binop(node.op, current, self.visit(node.value), node))

    # ------------------------------------------------------------ control flow
    def _snapshot_handles(self) -> list[tuple[BlockHandle, int | None, bool]]:
        return [(h, h.released_line, h.stored) for h in self.handles]

    def _check_region_releases(self, start: int, node: ast.AST, region: str) -> None:
        for h in self.handles[start:]:
            if h.released_line is None and h.with_line is None:
                self.fail(
                    f"{h.describe()} is acquired inside {region} but not released in it",
                    h.node,
                    f"release it with {h.name or 'blk'}.{h.release_name}() in the same "
                    f"{region}, or use 'with'",
                )

    def _carried(self, stmts: list[ast.stmt], exclude: set[str]) -> tuple[list[str], list[str]]:
        """Names assigned in ``stmts``: (scalars bound before -> loop-carried, the rest)."""
        carried, other = [], []
        for name in assigned_names(stmts):
            if name in exclude:
                continue
            if name in self.vars and _scalar(self.vars[name]):
                carried.append(name)
            else:
                other.append(name)
        return carried, other

    def _kind(self, v: Any) -> str:
        if isinstance(v, Dyn):
            return v.kind
        return "bool" if isinstance(v, bool) else "int"

    def _yield_values(self, names: list[str], kinds: list[str], node: ast.AST) -> list[SSAValue]:
        out = []
        for name, kind in zip(names, kinds, strict=True):
            v = self.vars.get(name)
            if isinstance(v, Poison) or not _scalar(v) or self._kind(v) != kind:
                self.fail(
                    f"'{name}' must stay a{'n' if kind == 'int' else ''} {kind} across this "
                    f"{'loop' if isinstance(node, ast.For | ast.While) else 'if'}",
                    node,
                    "use a separate variable for values of another kind",
                )
            out.append(self.to_ssa(v, node))
        return out

    def _poison_after(self, names: list[str], node: ast.AST, what: str) -> None:
        for name in names:
            self.vars[name] = Poison(
                f"'{name}' is assigned inside the {what} on line {node.lineno} "  # type: ignore[attr-defined]
                "and cannot be used after it"
            )

    def _range_bounds(self, it: ast.expr) -> tuple[Any, Any, int]:
        callee = self.visit(it.func) if isinstance(it, ast.Call) else None
        if callee is not builtins.range or not isinstance(it, ast.Call):
            self.fail(
                "kernel for-loops must iterate over range(...)",
                it,
                "write 'for i in range(n):' (or range(start, stop[, step]))",
            )
        if it.keywords or not 1 <= len(it.args) <= 3:
            self.fail("range() takes 1 to 3 positional arguments", it, "write range(start, stop)")
        args = [self.visit(a) for a in it.args]
        for a, n in zip(args, it.args, strict=True):
            if not (isinstance(a, Dyn) and a.kind == "int") and not (
                isinstance(a, int) and not isinstance(a, bool)
            ):
                self.fail(f"range() bounds must be integers, got {self.describe(a)}", n, None)
        start, stop, step = (0, args[0], 1) if len(args) == 1 else (args[0], args[1], 1)
        if len(args) == 3:
            step = args[2]
            if not isinstance(step, int) or step <= 0:
                self.fail(
                    "range() step must be a positive compile-time integer",
                    it.args[2],
                    "use a positive constant step, or count up and compute the index",
                )
        return start, stop, step

    def visit_For(self, node: ast.For) -> None:
        if node.orelse:
            self.fail("for-else is not supported in a kernel", node, "remove the else clause")
        if not isinstance(node.target, ast.Name):
            self.fail("the loop variable must be a single name", node.target, "write 'for i in ...'")
        start, stop, step = self._range_bounds(node.iter)
        lb, ub, st = (self.to_ssa(v, node) for v in (start, stop, step))
        carried, other = self._carried(node.body, {node.target.id})
        kinds = [self._kind(self.vars[n]) for n in carried]
        inits = [self.to_ssa(self.vars[n], node) for n in carried]
        body = Block(arg_types=[i32] + [i1 if k == "bool" else i32 for k in kinds])
        saved = dict(self.vars)
        iv = body.args[0]
        if _IDENT.match(node.target.id) and not node.target.id.startswith("_"):
            iv.name_hint = node.target.id
        self.vars[node.target.id] = Dyn(iv, "int", Affine.var(iv))
        for name, kind, arg in zip(carried, kinds, body.args[1:], strict=True):
            self.bind(name, Dyn(arg, kind, Affine.var(arg) if kind == "int" else None))
        start_handles = len(self.handles)
        self.blocks.append(body)
        self.loop_depth += 1
        self.visit_body(node.body)
        self.stmt = node
        self._check_region_releases(start_handles, node, "a loop iteration")
        self.emit(scf.YieldOp(*self._yield_values(carried, kinds, node)))
        self.loop_depth -= 1
        self.blocks.pop()
        loop = self.emit(scf.ForOp(lb, ub, st, inits, body))
        self.vars = saved
        for name, kind, res in zip(carried, kinds, loop.results, strict=True):
            self.bind(name, Dyn(res, kind))
        self._poison_after(other + [node.target.id], node, "for loop")

    def visit_While(self, node: ast.While) -> None:
        if node.orelse:
            self.fail("while-else is not supported in a kernel", node, "remove the else clause")
        cond = self.visit(node.test)
        if isinstance(cond, bool | int) and not isinstance(cond, Dyn):
            if not cond:
                return
            self.fail(
                "this while loop never ends: its condition is always true",
                node.test,
                "loop on a runtime condition, or use for i in range(n)",
            )
        carried, other = self._carried(node.body, set())
        kinds = [self._kind(self.vars[n]) for n in carried]
        inits = [self.to_ssa(self.vars[n], node) for n in carried]
        types_ = [i1 if k == "bool" else i32 for k in kinds]
        before, after = Block(arg_types=types_), Block(arg_types=types_)
        saved = dict(self.vars)
        for name, kind, arg in zip(carried, kinds, before.args, strict=True):
            self.bind(name, Dyn(arg, kind))
        self.blocks.append(before)
        test = self.truth(self.visit(node.test), node.test)
        self.emit(scf.ConditionOp(test, *before.args))
        self.blocks.pop()
        for name, kind, arg in zip(carried, kinds, after.args, strict=True):
            self.bind(name, Dyn(arg, kind))
        start_handles = len(self.handles)
        self.blocks.append(after)
        self.loop_depth += 1
        self.visit_body(node.body)
        self.stmt = node
        self._check_region_releases(start_handles, node, "a loop iteration")
        self.emit(scf.YieldOp(*self._yield_values(carried, kinds, node)))
        self.loop_depth -= 1
        self.blocks.pop()
        loop = self.emit(scf.WhileOp(inits, types_, Region(before), Region(after)))
        self.vars = saved
        for name, kind, res in zip(carried, kinds, loop.results, strict=True):
            self.bind(name, Dyn(res, kind))
        self._poison_after(other, node, "while loop")

    def visit_If(self, node: ast.If) -> None:
        cond = self.visit(node.test)
        if not isinstance(cond, Dyn):
            if isinstance(cond, BlockHandle | bx.Expr | TransferHandle):
                self.fail(f"cannot branch on {self.describe(cond)}", node.test, None)
            self.visit_body(node.body if cond else node.orelse)
            return
        test = self.truth(cond, node.test)
        names = assigned_names(node.body + node.orelse)
        before_vars = dict(self.vars)
        before_handles = self._snapshot_handles()

        def run(stmts: list[ast.stmt]) -> tuple[Block, dict[str, Any], list[Any]]:
            self.vars = dict(before_vars)
            for h, rel, stored in before_handles:
                h.released_line, h.stored = rel, stored
            blk = Block()
            self.blocks.append(blk)
            start = len(self.handles)
            self.visit_body(stmts)
            self.stmt = node
            self._check_region_releases(start, node, "an if branch")
            self.blocks.pop()
            return blk, self.vars, [h.released_line for h, _, _ in before_handles]

        then_blk, then_vars, then_rel = run(node.body)
        else_blk, else_vars, else_rel = run(node.orelse)
        for (h, _, _), a, b in zip(before_handles, then_rel, else_rel, strict=True):
            if (a is None) != (b is None):
                self.fail(
                    f"{h.describe()} is released on only one branch of this if",
                    node,
                    "release the block on both branches, or after the if",
                )
            h.released_line = a or b
        results = [
            n for n in names
            if _scalar(then_vars.get(n)) and _scalar(else_vars.get(n))
            and self._kind(then_vars[n]) == self._kind(else_vars[n])
        ]
        kinds = [self._kind(then_vars[n]) for n in results]
        for blk, scope in ((then_blk, then_vars), (else_blk, else_vars)):
            self.vars = scope
            self.blocks.append(blk)
            self.emit(scf.YieldOp(*self._yield_values(results, kinds, node)))
            self.blocks.pop()
        op = self.emit(
            scf.IfOp(test, [i1 if k == "bool" else i32 for k in kinds], [then_blk], [else_blk])
        )
        self.vars = before_vars
        for name, kind, res in zip(results, kinds, op.results, strict=True):
            self.bind(name, Dyn(res, kind))
        self._poison_after([n for n in names if n not in results], node, "if statement")

    def visit_With(self, node: ast.With) -> None:
        acquired: list[BlockHandle] = []
        for item in node.items:
            value = self.visit(item.context_expr)
            if not isinstance(value, BlockHandle) or value.with_line is not None or not (
                isinstance(item.context_expr, ast.Call)
            ):
                self.fail(
                    "'with' needs a block acquisition",
                    item.context_expr,
                    "write 'with dfb.reserve() as blk:' or 'with dfb.wait() as blk:'",
                )
            value.with_line = node.lineno
            if item.optional_vars is not None:
                self._assign_target(item.optional_vars, value)
            acquired.append(value)
        self.visit_body(node.body)
        self.stmt = node
        for h in reversed(acquired):
            self.release(h, node, implicit=True)

    # ------------------------------------------------------------ expressions
    def visit_Constant(self, node: ast.Constant) -> Any:
        if isinstance(node.value, bool | int | float) or node.value is None:
            return node.value
        self.fail(
            f"{type(node.value).__name__} constants are not supported in a kernel",
            node,
            "kernels compute with integers and blocks",
        )

    def visit_Name(self, node: ast.Name) -> Any:
        if node.id in self.vars:
            value = self.vars[node.id]
            if isinstance(value, Poison):
                self.fail(value.reason, node, "define the value before the loop or branch")
            return value
        value = self.thread.lookup(node.id)
        if is_unbound(value):
            self.fail(
                f"name '{node.id}' is not defined",
                node,
                "define it in the kernel, or at the operation's top level before the kernel",
            )
        return value

    def visit_Tuple(self, node: ast.Tuple) -> tuple[Any, ...]:
        return tuple(self.visit(e) for e in node.elts)

    def visit_List(self, node: ast.List) -> list[Any]:
        return [self.visit(e) for e in node.elts]

    def visit_Attribute(self, node: ast.Attribute) -> Any:
        base = self.visit(node.value)
        attr = node.attr
        if isinstance(base, dsl.DataflowBuffer):
            if attr in ("reserve", "wait"):
                return BoundMethod(base, attr)
            if attr == "shape":
                return base.shape
        elif isinstance(base, BlockHandle):
            if attr in ("push", "pop", "store"):
                return BoundMethod(base, attr)
            if attr == "shape":
                return base.dfb.shape
        elif isinstance(base, TransferHandle):
            if attr == "wait":
                return BoundMethod(base, attr)
        elif isinstance(base, dsl.TensorArg):
            if attr in ("shape", "dtype"):
                return getattr(base, attr)
        elif not isinstance(base, Dyn | bx.Expr | SliceVal | int | float | tuple | list) and (
            hasattr(base, attr)
        ):
            return getattr(base, attr)
        self.fail(
            f"{self.describe(base)} has no attribute '{attr}' in a kernel",
            node,
            "see LANGUAGE.md for the methods of DFBs, blocks and transfers",
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
            return self.visit(node.body if cond else node.orelse)
        a, b = self.visit(node.body), self.visit(node.orelse)
        if not (_scalar(a) and _scalar(b)) or self._kind(a) != self._kind(b):
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
        if _scalar(v):
            op = arith.CmpiOp(self.to_ssa(v, node), self.const(0), "ne")
            return self.emit(op).results[0]
        self.fail(f"cannot use {self.describe(v)} as a condition", node, None)

    def visit_BoolOp(self, node: ast.BoolOp) -> Any:
        values = [self.visit(v) for v in node.values]
        if all(not isinstance(v, Dyn) and _scalar(v) for v in values):
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
        result: Any = True
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = self.visit(right_node)
            if type(op) not in _CMP:
                self.fail(
                    f"comparison '{type(op).__name__}' is not supported in a kernel",
                    node,
                    "compare integers with == != < <= > >=",
                )
            for v, n in ((left, node.left), (right, right_node)):
                if not _scalar(v):
                    self.fail(f"cannot compare {self.describe(v)}", n, "compare integers")
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
        return Dyn(self.emit(arith.AndIOp(self.truth(a, node), self.truth(b, node))).results[0], "bool")

    def visit_UnaryOp(self, node: ast.UnaryOp) -> Any:
        v = self.visit(node.operand)
        if isinstance(node.op, ast.Not):
            if isinstance(v, Dyn):
                one = self.const(True)
                return Dyn(self.emit(arith.XOrIOp(self.truth(v, node), one)).results[0], "bool")
            if _scalar(v):
                return not v
        elif isinstance(node.op, ast.USub):
            if isinstance(v, BlockHandle | bx.Expr):
                return bx.Unary(node, "neg", self.block_operand(v, node))
            if _scalar(v) or isinstance(v, float):
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
            return self.block_binop(op, left, right, node)
        if not isinstance(left, Dyn) and not isinstance(right, Dyn):
            if isinstance(left, int | float) and isinstance(right, int | float):
                try:
                    return _static_binop(op, left, right)
                except ZeroDivisionError:
                    self.fail("division by zero", node, None)
                except TypeError:
                    pass
            self.fail(
                f"operator '{type(op).__name__}' is not supported on "
                f"{self.describe(left)} and {self.describe(right)}",
                node,
                None,
            )
        return self.int_binop(op, left, right, node)

    def int_binop(self, op: ast.operator, left: Any, right: Any, node: ast.AST) -> Dyn:
        for v in (left, right):
            if not _scalar(v) or self._kind(v) != "int":
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
        la, ra = _affine(left), _affine(right)
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
            if v.acquire == "reserve":
                self.fail(
                    f"{v.describe()} was acquired with reserve() and cannot be read here",
                    node,
                    "read blocks acquired with wait(); push the reserved block and wait() on "
                    "it to read it back",
                )
            return bx.Leaf(node, v)
        self.fail(
            f"{self.describe(v)} cannot be used in block math",
            node,
            "use blocks, or ttl.block.fill(value, shape=...) for constants",
        )

    def block_binop(self, op: ast.operator, left: Any, right: Any, node: ast.AST) -> bx.Expr:
        lhs, rhs = self.block_operand(left, node), self.block_operand(right, node)
        if isinstance(op, ast.MatMult):
            return bx.Matmul(node, lhs, rhs)
        name = _BLOCK_OPS.get(type(op))
        if name is None:
            self.fail(
                f"operator '{type(op).__name__}' is not supported on blocks",
                node,
                "block math supports + - * / @ and ttl.math functions",
            )
        return bx.Binary(node, name, lhs, rhs)

    # ------------------------------------------------------------ calls
    def visit_Call(self, node: ast.Call) -> Any:
        callee = self.visit(node.func)
        if isinstance(callee, BoundMethod):
            return self.call_method(callee, node)
        if callee is dsl.grid_size:
            return self.call_grid_size(node)
        name = intrinsic_name(callee)
        if name is not None:
            if name.startswith("math."):
                return self.call_unary(name, node)
            return getattr(self, "call_" + name)(node)
        if callee is builtins.range:
            self.fail("range() is only supported as a for-loop iterable", node, "write 'for i in range(n):'")
        if callee in _STATIC_BUILTINS:
            args = [self.visit(a) for a in node.args]
            if all(not isinstance(a, Dyn | BlockHandle | bx.Expr) for a in args) and not node.keywords:
                return callee(*args)
        fname = ast.unparse(node.func)
        self.fail(
            f"call to '{fname}' is not supported in a kernel",
            node,
            "kernels may call ttl functions (ttl.copy, ttl.math.*, ttl.node, ...) and DFB, "
            "block and transfer methods; compute other values at the operation's top level",
        )

    def args(self, node: ast.Call, names: list[str], required: int) -> dict[str, Any]:
        """Bind a call's positional/keyword arguments to ``names`` (first ``required`` needed)."""
        fname = ast.unparse(node.func)
        if len(node.args) > len(names):
            self.fail(f"{fname}() takes at most {len(names)} arguments", node, None)
        out: dict[str, Any] = {}
        for n, a in zip(names, node.args, strict=False):
            out[n] = self.visit(a)
        for kw in node.keywords:
            if kw.arg not in names or kw.arg in out:
                self.fail(
                    f"{fname}() got an unexpected keyword argument '{kw.arg}'",
                    kw.value,
                    f"its arguments are: {', '.join(names)}",
                )
            out[kw.arg] = self.visit(kw.value)
        for n in names[:required]:
            if n not in out:
                self.fail(f"{fname}() is missing its '{n}' argument", node, None)
        return out

    def static_int(self, v: Any, node: ast.AST, what: str) -> int:
        if isinstance(v, int) and not isinstance(v, bool):
            return v
        self.fail(f"{what} must be a compile-time integer", node, "use a constant or a captured int")

    def static_shape(self, v: Any, node: ast.AST) -> tuple[int, ...]:
        if isinstance(v, int) and not isinstance(v, bool):
            v = (v,)
        if isinstance(v, tuple | list) and v and all(
            isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in v
        ):
            return tuple(v)
        self.fail("shape must be a tuple of positive compile-time integers", node, "write shape=(1, 1)")

    def call_grid_size(self, node: ast.Call) -> Any:
        dims = self.static_int(self.args(node, ["dims"], 0).get("dims", 2), node, "dims")
        sizes = dsl._flatten(self.model.grid, dims, 1)
        return sizes[0] if dims == 1 else sizes

    def call_node(self, node: ast.Call) -> Any:
        dims = self.static_int(self.args(node, ["dims"], 0).get("dims", 2), node, "dims")
        if dims < 1:
            self.fail("dims must be at least 1", node, None)
        x, y = (self.emit(d.NodeOp(i)).results[0] for i in (0, 1))
        x.name_hint, y.name_hint = "node_x", "node_y"
        dx, dy = Dyn(x, "int", Affine.var(x)), Dyn(y, "int", Affine.var(y))
        if dims == 1:  # flatten: x varies fastest
            return self.int_binop(ast.Add(), dx, self.int_binop(ast.Mult(), dy, self.model.grid[0], node), node)
        return (dx, dy) + (0,) * (dims - 2)

    def call_copy(self, node: ast.Call) -> TransferHandle:
        if self.is_compute:
            self.fail(
                "ttl.copy is only allowed in data-movement kernels",
                node,
                "move the copy into a @ttl.datamovement() kernel and hand data to compute "
                "through a DFB",
            )
        a = self.args(node, ["src", "dst"], 2)
        src, dst = a["src"], a["dst"]
        if isinstance(src, SliceVal) and isinstance(dst, BlockHandle):
            blk, sl, is_read = dst, src, True
        elif isinstance(src, BlockHandle) and isinstance(dst, SliceVal):
            blk, sl, is_read = src, dst, False
        else:
            self.fail(
                f"ttl.copy needs a tensor slice and a block, got {self.describe(src)} and "
                f"{self.describe(dst)}",
                node,
                "write ttl.copy(t[r, c], blk) to read or ttl.copy(blk, t[r, c]) to write",
            )
        self.check_live(blk, node)
        if is_read and blk.acquire != "reserve":
            self.fail(
                f"cannot copy into {blk.describe()}: it was acquired with wait()",
                node,
                "copy into a block acquired with reserve()",
            )
        if sl.sizes != blk.dfb.shape:
            self.fail(
                f"slice shape {bx._fmt(sl.sizes)} differs from the block shape "
                f"{bx._fmt(blk.dfb.shape)} of '{blk.dfb.name}'",
                sl.node,
                f"slice exactly one block of {bx._fmt(blk.dfb.shape)} tiles, e.g. "
                f"t[r:r + {blk.dfb.shape[0]}, ...]",
            )
        if sl.tensor.dtype != blk.dfb.dtype:
            self.fail(
                f"tensor '{sl.tensor.name}' is {sl.tensor.dtype} but '{blk.dfb.name}' holds "
                f"{blk.dfb.dtype}",
                node,
                "make the DFB like a tensor of the same dtype",
            )
        offsets = [self.to_ssa(o, sl.node) for o in sl.offsets]
        sop = self.emit(d.SliceOp(self.ref(sl.tensor.name, True), offsets, sl.sizes))
        a_, b_ = (sop.results[0], blk.value) if is_read else (blk.value, sop.results[0])
        cop = self.emit(d.CopyOp(a_, b_))
        tx = TransferHandle(cop.results[0], is_read, blk)
        blk.pending.append(tx)
        return tx

    def call_unary(self, name: str, node: ast.Call) -> bx.Expr:
        fn = name.split(".", 1)[1]
        assert fn in UNARY_FUNCTIONS
        x = self.args(node, ["x"], 1)["x"]
        return bx.Unary(node, fn, self.block_operand(x, node))

    def call_broadcast(self, node: ast.Call) -> bx.Expr:
        a = self.args(node, ["x", "out", "dims", "shape"], 1)
        if "dims" not in a:
            self.fail("broadcast() needs dims=[...]", node, "e.g. ttl.math.broadcast(x, dims=[-1])")
        dims = a["dims"]
        if not isinstance(dims, list | tuple) or not dims:
            self.fail("dims must be a list of compile-time integers", node, "write dims=[-1]")
        dims_t = tuple(self.static_int(x, node, "each broadcast dim") for x in dims)
        shape = None
        if a.get("shape") is not None:
            shape = self.static_shape(a["shape"], node)
        elif isinstance(a.get("out"), BlockHandle):
            shape = a["out"].dfb.shape
        elif a.get("out") is not None:
            self.fail("the second argument of broadcast must be a block", node, None)
        return bx.Broadcast(node, self.block_operand(a["x"], node), dims_t, shape)

    def call_fill(self, node: ast.Call) -> bx.Expr:
        if not self.is_compute:
            self.block_operand(None, node)
        a = self.args(node, ["value", "shape", "dtype"], 1)
        value, shape = a["value"], a.get("shape")
        if isinstance(value, BlockHandle):  # ttl.math.fill(blk, value) form
            shape, value = value.dfb.shape, shape
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.fail("the fill value must be a compile-time number", node, "e.g. fill(0.0, shape=(1, 1))")
        return bx.Fill(node, float(value), None if shape is None else self.static_shape(shape, node))

    # ------------------------------------------------------------ methods
    def call_method(self, m: BoundMethod, node: ast.Call) -> Any:
        obj = m.obj
        if isinstance(obj, dsl.DataflowBuffer):
            self.args(node, [], 0)
            op = d.ReserveOp if m.method == "reserve" else d.WaitOp
            res = self.emit(op(self.ref(obj.name, False))).results[0]
            h = BlockHandle(res, obj, m.method, node, self.loop_depth)
            self.handles.append(h)
            return h
        if isinstance(obj, TransferHandle):
            self.args(node, [], 0)
            if obj.waited:
                self.fail("this transfer was already waited on", node, "wait on a transfer once")
            self.emit(d.TransferWaitOp(obj.value))
            obj.waited = True
            obj.block.pending = [t for t in obj.block.pending if t is not obj]
            return None
        assert isinstance(obj, BlockHandle)
        if m.method == "store":
            return self.store(obj, node)
        self.args(node, ["kernel"], 0)
        if m.method != obj.release_name:
            self.fail(
                f"{obj.describe()} was acquired with {obj.acquire}() and is released with "
                f"{obj.release_name}(), not {m.method}()",
                node,
                f"call {obj.name or 'blk'}.{obj.release_name}()",
            )
        self.release(obj, node, implicit=False)
        return None

    def check_live(self, h: BlockHandle, node: ast.AST) -> None:
        if h.released_line is not None:
            self.fail(
                f"{h.describe()} is used after its release on line {h.released_line}",
                node,
                f"use the block before {h.release_name}(), or acquire a new one",
            )

    def release(self, h: BlockHandle, node: ast.AST, implicit: bool) -> None:
        """Emit push/pop for ``h`` after checking the protocol."""
        if not implicit and h.with_line is not None:
            self.fail(
                f"{h.describe()} is released twice: 'with' on line {h.with_line} already "
                f"releases it at the end of its scope",
                node,
                f"remove this {h.release_name}(), or acquire the block without 'with'",
            )
        self.check_live(h, node)
        if not implicit and h.loop_depth != self.loop_depth:
            self.fail(
                f"{h.describe()} is acquired outside this loop but released inside it",
                node,
                "acquire and release a block in the same loop iteration",
            )
        for tx in h.pending:
            self.fail(
                f"{h.describe()} is released while a copy "
                f"{'into' if tx.is_read else 'from'} it is still in flight",
                node,
                "call .wait() on the transfer returned by ttl.copy before releasing the block",
            )
        self.emit((d.PushOp if h.acquire == "reserve" else d.PopOp)(h.value))
        h.released_line = getattr(node, "lineno", 0)

    def store(self, h: BlockHandle, node: ast.Call) -> None:
        if not self.is_compute:
            self.fail(
                "block math (store) is only allowed in compute kernels",
                node,
                "store in the @ttl.compute() kernel; data-movement kernels use ttl.copy",
            )
        a = self.args(node, ["expr", "acc"], 1)
        self.check_live(h, node)
        if h.acquire != "reserve":
            self.fail(
                f"cannot store into {h.describe()}: it was acquired with wait() and is read-only",
                node,
                "store into a block acquired with reserve() from an output DFB",
            )
        acc = a.get("acc", False)
        if not isinstance(acc, bool):
            self.fail("acc must be True or False", node, "write acc=True to accumulate")
        expr = self.block_operand(a["expr"], node.args[0] if node.args else node)
        lowering = bx.ExprLowering(self.emit, self.error, h.dfb.dtype)
        shape = lowering.shape_of(expr)
        if shape is not None and shape != h.dfb.shape:
            self.fail(
                f"cannot store a {bx._fmt(shape)} expression into {h.describe()} of shape "
                f"{bx._fmt(h.dfb.shape)}",
                node,
                "store an expression with the block's shape",
            )
        value = lowering.lower(expr, h.dfb.shape)
        store = self.emit(d.StoreOp(h.value, value, acc))
        plan = plan_store(store, self.model.target)  # type: ignore[arg-type]
        if plan is None or plan.chunk == 0:
            self.fail(
                f"this expression needs {plan.regs if plan else '?'} DST registers per tile but "
                f"{self.model.target.name} has {plan.capacity if plan else '?'}",
                node,
                "split the expression: store part of it into an intermediate DFB block",
            )
        h.stored = True

    # ------------------------------------------------------------ slices
    def tensor_slice(self, t: dsl.TensorArg, node: ast.Subscript) -> SliceVal:
        tiles = t.spec.tile_shape
        elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if len(elts) > len(tiles):
            self.fail(
                f"tensor '{t.name}' has {len(tiles)} dimensions but is indexed with {len(elts)}",
                node,
                "index each dimension once, in tile units",
            )
        offsets: list[int | Dyn] = []
        sizes: list[int] = []
        for i, extent in enumerate(tiles):
            e = elts[i] if i < len(elts) else None
            if e is None or isinstance(e, ast.Slice):
                if e is not None and e.step is not None:
                    self.fail("slice steps are not supported", e, "write t[a:b]")
                lo = self.visit(e.lower) if e is not None and e.lower is not None else 0
                hi = self.visit(e.upper) if e is not None and e.upper is not None else extent
                la, ha = _affine(lo), _affine(hi)
                size = ha.sub(la).constant if la and ha else None
                where = e if e is not None else node
                if size is None:
                    self.fail(
                        f"the extent of dimension {i} of this slice is not a compile-time constant",
                        where,
                        "write bounds that differ by a constant, e.g. t[r * 2:(r + 1) * 2]",
                    )
                if size <= 0:
                    self.fail(f"dimension {i} of this slice is empty", where, "write t[a:b] with b > a")
                offset = lo
            else:
                offset, size, where = self.visit(e), 1, e
            if not _scalar(offset) or self._kind(offset) != "int":
                self.fail(f"tensor indices must be integers, got {self.describe(offset)}", where, None)
            if not isinstance(offset, Dyn) and (offset < 0 or offset + size > extent):
                shown = f"{offset}" if size == 1 else f"{offset}:{offset + size}"
                self.fail(
                    f"slice [{shown}] is out of bounds for dimension {i} of tensor '{t.name}' "
                    f"({extent} tiles)",
                    where,
                    f"indices are in tiles: use 0 <= index < {extent}",
                )
            offsets.append(offset)
            sizes.append(size)
        return SliceVal(t, offsets, tuple(sizes), node)


def _pos(node: ast.AST) -> dict[str, int]:
    return {k: getattr(node, k) for k in ("lineno", "col_offset", "end_lineno", "end_col_offset")}


def _affine(v: Any) -> Affine | None:
    if isinstance(v, Dyn):
        return v.affine
    if isinstance(v, int) and not isinstance(v, bool):
        return Affine(v)
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


def _static_compare(op: type, a: Any, b: Any) -> bool:
    return {
        ast.Eq: a == b,
        ast.NotEq: a != b,
        ast.Lt: a < b,
        ast.LtE: a <= b,
        ast.Gt: a > b,
        ast.GtE: a >= b,
    }[op]
