"""Control flow of kernel bodies: for/while loops, if/elif/else, ``with`` blocks.

Loop-carried and branch-merged scalars become scf iter-args/results; the
block protocol is checked per region (acquired blocks released in the region).
"""

from __future__ import annotations

import ast
import builtins
from typing import Any

from xdsl.dialects import scf
from xdsl.dialects.builtin import i32
from xdsl.ir import Block, Region, SSAValue

from ttl.compiler import dialect as d
from ttl.compiler.frontend import block_expr as bx
from ttl.compiler.frontend.protocol import MixinBase
from ttl.compiler.frontend.scopes import assigned_names, position
from ttl.compiler.frontend.values import (
    IDENT,
    Affine,
    BlockHandle,
    Dyn,
    ElementValue,
    Poison,
    TransferHandle,
    is_scalar,
    scalar_type,
)


class ControlFlowMixin(MixinBase):
    """Statement visitors for structured control flow (mixed into KernelCompiler)."""

    # ------------------------------------------------------------ control flow
    def _snapshot_handles(self) -> list[tuple[BlockHandle, int | None, bool, bool]]:
        return [(h, h.released_line, h.stored, h.unread) for h in self.handles]

    def _selectable_receives(self) -> list[TransferHandle]:
        """The pending receives given to ``ttl.wait_any``, of blocks still held."""
        return [t for h in self.handles for t in h.pending if t.selectable]

    def _restore_receives(
        self, receives: list[TransferHandle], waited: set[int] | None = None
    ) -> None:
        """Back to pending (as before a branch), except the ``waited`` ones (by id)."""
        for t in receives:
            done = waited is not None and id(t) in waited
            t.waited = done
            others = [p for p in t.block.pending if p is not t]
            t.block.pending = others if done else [*others, t]

    def exhaustive_switch(self, stmts: list[ast.stmt], i: int) -> tuple[ast.If, int] | None:
        """``if k == 0: ...`` / ``if k == 1: ...`` (consecutive ifs, or an elif chain) on
        the index of a ``ttl.wait_any`` with one case per request: exactly one case runs,
        so it is the if/else chain whose last case is the else (the spec's receive
        selection). The chain and how many statements it replaces, or None."""
        first = stmts[i]
        if not isinstance(first, ast.If):
            return None
        cases: list[tuple[int, list[ast.stmt]]] = []
        name: str | None = None
        count = 0
        if first.orelse:  # an elif chain
            node: Any = first
            while isinstance(node, ast.If):
                case = _index_case(node)
                if case is None or (name is not None and case[0] != name):
                    return None
                name = case[0]
                cases.append((case[1], node.body))
                rest = node.orelse
                node = rest[0] if len(rest) == 1 and isinstance(rest[0], ast.If) else rest
            if node:  # a final else: not a chain of cases
                return None
            count = 1
        else:  # consecutive ifs
            for stmt in stmts[i:]:
                if not isinstance(stmt, ast.If) or stmt.orelse:
                    break
                case = _index_case(stmt)
                if case is None or (name is not None and case[0] != name):
                    break
                name = case[0]
                cases.append((case[1], stmt.body))
                count += 1
        if name is None or len(cases) < 2:  # one case is an if as it stands
            return None
        index = self.vars.get(name)
        if not (isinstance(index, Dyn) and isinstance(index.value.owner, d.WaitAnyOp)):
            return None
        n = len(index.value.owner.requests)
        if sorted(k for k, _ in cases) != list(range(n)) or name in assigned_names(
            [s for _, body in cases for s in body]
        ):
            return None
        chain: list[ast.stmt] = cases[-1][1]
        for k, body in reversed(cases[:-1]):
            test = ast.Compare(
                ast.Name(name, ast.Load()), [ast.Eq()], [ast.Constant(k)], **position(body[0])
            )
            chain = [ast.If(test, body, chain, **position(body[0]))]
        assert isinstance(chain[0], ast.If)
        return chain[0], count

    def _check_region_releases(self, start: int, node: ast.AST, region: str) -> None:
        for h in self.handles[start:]:
            if h.released_line is None and h.with_line is None:
                self.fail(
                    f"{h.describe()} is acquired inside {region} but not released in it",
                    h.node,
                    f"release it with {h.name or 'blk'}.{h.release_name}() before it ends, "
                    "or use 'with'",
                )

    def _carried(self, stmts: list[ast.stmt], exclude: set[str]) -> tuple[list[str], list[str]]:
        """Names assigned in ``stmts``: (scalars bound before -> loop-carried, the rest)."""
        carried, other = [], []
        for name in assigned_names(stmts):
            if name in exclude:
                continue
            if name in self.vars and is_scalar(self.vars[name]):
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
            if isinstance(v, Poison) or not is_scalar(v) or self._kind(v) != kind:
                self.fail(
                    f"'{name}' must stay a{'n' if kind == 'int' else ''} {kind} across this "
                    f"{'loop' if isinstance(node, ast.For | ast.While) else 'if'}",
                    node,
                    "use a separate variable for values of another kind",
                )
            out.append(self.to_ssa(v, node))
        return out

    def _poison_after(
        self, names: list[str], node: ast.stmt, what: str, inside: dict[str, Any] | None = None
    ) -> None:
        """Makes ``names`` unusable after ``node``; ``inside``: their values in its body."""
        for name in names:
            v = self.vars.get(name)
            if isinstance(v, BlockHandle) and (
                v.accumulator or (name in self.accumulator_names and v.name == name)
            ):
                continue  # updated in place (+=, accumulate.py): the same block after it
            reason = (
                f"'{name}' is assigned inside the {what} on line {node.lineno} "
                "and cannot be used after it"
            )
            if isinstance((inside or self.vars).get(name), BlockHandle | bx.Expr):
                self.vars[name] = Poison(
                    reason,
                    f"carry a block value through the {what} from one defined before it: "
                    f"'{name} = f({name}, ...)' or '{name} += ...' (an accumulator), or store "
                    "it into a block inside",
                )
            else:
                self.vars[name] = Poison(reason)

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
        if not self._is_range_call(node.iter):
            items = self.visit(node.iter)
            if isinstance(items, tuple | list):
                return self._unrolled_for(node, items)
            self.fail(
                f"kernel for-loops iterate over range(...) or a compile-time tuple or list, "
                f"got {self.describe(items)}",
                node.iter,
                "write 'for i in range(n):', or loop over a tuple captured from the operation",
            )
        if not isinstance(node.target, ast.Name):
            self.fail(
                "the loop variable must be a single name", node.target, "write 'for i in ...'"
            )
        start, stop, step = self._range_bounds(node.iter)
        lb, ub, st = (self.to_ssa(v, node) for v in (start, stop, step))
        carried, other = self._carried(node.body, {node.target.id})
        kinds = [self._kind(self.vars[n]) for n in carried]
        inits = [self.to_ssa(self.vars[n], node) for n in carried]
        body = Block(arg_types=[i32, *(scalar_type(k) for k in kinds)])
        saved = dict(self.vars)
        iv = body.args[0]
        if IDENT.match(node.target.id) and not node.target.id.startswith("_"):
            iv.name_hint = node.target.id
        self.vars[node.target.id] = Dyn(iv, "int", Affine.var(iv))
        for name, kind, arg in zip(carried, kinds, body.args[1:], strict=True):
            self.bind(name, Dyn(arg, kind, Affine.var(arg) if kind == "int" else None))
        self._loop_body(body, node, carried, kinds)
        loop = self.emit(scf.ForOp(lb, ub, st, inits, body))
        inside, self.vars = self.vars, saved
        for name, kind, res in zip(carried, kinds, loop.results, strict=True):
            self.bind(name, Dyn(res, kind))
        self._poison_after([*other, node.target.id], node, "for loop", inside)

    def _is_range_call(self, it: ast.expr) -> bool:
        """A call of ``range`` (its bounds are checked by ``_range_bounds``)."""
        return isinstance(it, ast.Call) and self.visit(it.func) is builtins.range

    def _unrolled_for(self, node: ast.For, items: tuple[Any, ...] | list[Any]) -> None:
        """A loop over a compile-time sequence runs its body once per element, as
        Python would (the target keeps the last element afterwards)."""
        for item in items:
            self._assign_target(node.target, item)
            self.visit_body(node.body)
            self.stmt = node

    def _loop_body(
        self, block: Block, node: ast.For | ast.While, carried: list[str], kinds: list[str]
    ) -> None:
        """Visits ``node.body`` into ``block``: DFB protocol checked per iteration,
        loop-carried values yielded."""
        start_handles = len(self.handles)
        self.blocks.append(block)
        self.loop_depth += 1
        self.visit_body(node.body)
        self.stmt = node
        self._check_region_releases(start_handles, node, "a loop iteration")
        self.emit(scf.YieldOp(*self._yield_values(carried, kinds, node)))
        self.loop_depth -= 1
        self.blocks.pop()

    def visit_While(self, node: ast.While) -> None:
        if node.orelse:
            self.fail("while-else is not supported in a kernel", node, "remove the else clause")
        carried, other = self._carried(node.body, set())
        # A condition on names the body assigns (n < count; n = n + 1) changes per
        # iteration; only a condition on nothing the body changes is decided here.
        tested = {n.id for n in ast.walk(node.test) if isinstance(n, ast.Name)}
        if not tested & {*carried, *other}:
            cond = self.visit(node.test)
            if isinstance(cond, bool | int) and not isinstance(cond, Dyn):
                if not cond:
                    return
                self.fail(
                    "this while loop never ends: its condition is always true",
                    node.test,
                    "loop on a runtime condition, or use for i in range(n)",
                )
        kinds = [self._kind(self.vars[n]) for n in carried]
        inits = [self.to_ssa(self.vars[n], node) for n in carried]
        types_ = [scalar_type(k) for k in kinds]
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
        self._loop_body(after, node, carried, kinds)
        loop = self.emit(scf.WhileOp(inits, types_, Region(before), Region(after)))
        inside, self.vars = self.vars, saved
        for name, kind, res in zip(carried, kinds, loop.results, strict=True):
            self.bind(name, Dyn(res, kind))
        self._poison_after(other, node, "while loop", inside)

    def refuse_branch_on(self, cond: Any, node: ast.AST) -> None:
        """A condition decided at compile time must be a compile-time value: a block, a
        transfer or an element value has no truth value to branch on."""
        if isinstance(cond, BlockHandle | bx.Expr | TransferHandle | ElementValue):
            self.fail(
                f"cannot branch on {self.describe(cond)}",
                node,
                "branch on a comparison, e.g. 'if value > 0.0:'"
                if isinstance(cond, ElementValue)
                else "branch on an integer or a comparison",
            )

    def visit_If(self, node: ast.If) -> None:
        cond = self.visit(node.test)
        if not isinstance(cond, Dyn):
            self.refuse_branch_on(cond, node.test)
            self.visit_body(node.body if cond else node.orelse)
            return
        test = self.truth(cond, node.test)
        names = assigned_names(node.body + node.orelse)
        before_vars = dict(self.vars)
        before_handles = self._snapshot_handles()

        def run(stmts: list[ast.stmt]) -> tuple[Block, dict[str, Any], list[Any]]:
            self.vars = dict(before_vars)
            for h, rel, stored, unread in before_handles:
                h.released_line, h.stored, h.unread = rel, stored, unread
            blk = Block()
            self.blocks.append(blk)
            start = len(self.handles)
            self.visit_body(stmts)
            self.stmt = node
            self._check_region_releases(start, node, "an if branch")
            self.blocks.pop()
            return blk, self.vars, [h.released_line for h, _, _, _ in before_handles]

        selectable = self._selectable_receives()
        then_blk, then_vars, then_rel = run(node.body)
        then_unread = [h.unread for h, _, _, _ in before_handles]
        then_waited = {id(t) for t in selectable if t.waited}
        self._restore_receives(selectable)
        else_blk, else_vars, else_rel = run(node.orelse)
        # A receive ttl.wait_any may have taken stays pending after the if unless both
        # branches waited on it (its wait is a no-op once taken).
        both = {id(t) for t in selectable if t.waited and id(t) in then_waited}
        self._restore_receives(selectable, waited=both)
        for (h, _, _, _), unread in zip(before_handles, then_unread, strict=True):
            h.unread = h.unread and unread  # written and unread on every path (state MR)
        for (h, _, _, _), a, b in zip(before_handles, then_rel, else_rel, strict=True):
            if (a is None) != (b is None):
                self.fail(
                    f"{h.describe()} is released on only one branch of this if",
                    node,
                    "release the block on both branches, or after the if",
                )
            h.released_line = a or b
        results = [
            n
            for n in names
            if is_scalar(then_vars.get(n))
            and is_scalar(else_vars.get(n))
            and self._kind(then_vars[n]) == self._kind(else_vars[n])
        ]
        kinds = [self._kind(then_vars[n]) for n in results]
        for blk, scope in ((then_blk, then_vars), (else_blk, else_vars)):
            self.vars = scope
            self.blocks.append(blk)
            self.emit(scf.YieldOp(*self._yield_values(results, kinds, node)))
            self.blocks.pop()
        op = self.emit(scf.IfOp(test, [scalar_type(k) for k in kinds], [then_blk], [else_blk]))
        self.vars = before_vars
        for name, kind, res in zip(results, kinds, op.results, strict=True):
            self.bind(name, Dyn(res, kind))
        self._poison_after([n for n in names if n not in results], node, "if statement")

    def visit_With(self, node: ast.With) -> None:
        # Items open in order and close in reverse: block releases and signpost ends.
        opened: list[BlockHandle | str] = []
        for item in node.items:
            signpost = self.signpost_name(item.context_expr)
            if signpost is not None:
                if item.optional_vars is not None:
                    self.fail(
                        "ttl.signpost() binds no value",
                        item.optional_vars,
                        f"write 'with ttl.signpost(\"{signpost}\"):' without 'as'",
                    )
                self.emit(d.SignpostBeginOp(signpost))
                opened.append(signpost)
                continue
            value = self.visit(item.context_expr)
            if (
                not isinstance(value, BlockHandle)
                or value.with_line is not None
                or not (isinstance(item.context_expr, ast.Call))
            ):
                self.fail(
                    "'with' needs a block acquisition or a signpost",
                    item.context_expr,
                    "write 'with dfb.reserve() as blk:', 'with dfb.wait() as blk:' or "
                    "'with ttl.signpost(\"name\"):'",
                )
            value.with_line = node.lineno
            if item.optional_vars is not None:
                self._assign_target(item.optional_vars, value)
            opened.append(value)
        self.visit_body(node.body)
        self.stmt = node
        for h in reversed(opened):
            if isinstance(h, str):
                self.emit(d.SignpostEndOp(h))
            else:
                self.release(h, node, implicit=True)


def _index_case(node: ast.If) -> tuple[str, int] | None:
    """``if name == k:`` with an int constant ``k``: (name, k)."""
    t = node.test
    if (
        isinstance(t, ast.Compare)
        and isinstance(t.left, ast.Name)
        and len(t.ops) == 1
        and isinstance(t.ops[0], ast.Eq)
        and isinstance(t.comparators[0], ast.Constant)
        and type(t.comparators[0].value) is int
    ):
        return t.left.id, t.comparators[0].value
    return None
