"""Pipe nets in data-movement kernels: condition bodies and pipe copies.

``net.if_src(fn)`` / ``net.if_dst(fn)`` take a condition body: a function
defined in the kernel with one parameter, the pipe identity. The kernel is one
SPMD program, so the compiler inlines the body once per pipe of the net, in
the net's order, under a condition on the node coordinates (``this node is
the pipe's source`` / ``this node is in its destination range``); inside, the
identity's ``dst`` / ``src`` are compile-time values and ``ttl.copy`` with it
lowers to ``ttl.pipe_send`` / ``ttl.pipe_recv`` (see ``analysis/pipes.py``).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from xdsl.dialects import arith

from ttl.compiler import dialect as d
from ttl.compiler.analysis.pipes import PipeUse
from ttl.compiler.frontend.protocol import MixinBase
from ttl.compiler.frontend.scopes import position
from ttl.compiler.frontend.symbols import ModuleSymbols
from ttl.compiler.frontend.values import (
    BlockHandle,
    BoundMethod,
    Dyn,
    ReadyReceive,
    TransferHandle,
    is_scalar,
)
from ttl.compiler.per_node import merge, node_order
from ttl.errors import TTLCompileError
from ttl.pipes import Pipe, PipeNet
from ttl.source import node_loc

_COND = "ttl pipe condition"  # a name no Python program can bind


@dataclass(frozen=True)
class CondBody:
    """A function defined in a kernel: a helper (inline.py) or a pipe net's condition body."""

    node: ast.FunctionDef


class SrcPipeIdentity:
    """The pipe a condition body of ``if_src`` runs for: this node is its source."""

    def __init__(self, net: PipeNet, index: int):
        self.net, self.index = net, index
        self.pipe: Pipe = net.pipes[index]

    @property
    def dst(self) -> Any:
        """The destination node or node range, as the pipe was built."""
        return self.pipe.dst


class DstPipeIdentity:
    """The pipe a condition body of ``if_dst`` runs for: this node is a destination."""

    def __init__(self, net: PipeNet, index: int):
        self.net, self.index = net, index
        self.pipe: Pipe = net.pipes[index]

    @property
    def src(self) -> Any:
        """The source node, as the pipe was built."""
        return self.pipe.src


def is_pipe_value(v: Any) -> bool:
    """True for anything a user might pass to ``ttl.copy`` as a pipe."""
    return isinstance(v, SrcPipeIdentity | DstPipeIdentity | Pipe | PipeNet)


class PipesMixin(MixinBase):
    """Condition bodies, ``if_src``/``if_dst`` and pipe copies (mixed into KernelCompiler)."""

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        """A function defined in a kernel: a helper inlined where it is called, or a
        condition body of a pipe net."""
        if node.decorator_list:
            self.fail(
                f"the function '{node.name}' defined in a kernel must not have decorators",
                node.decorator_list[0],
                f"remove the decorator: write a plain 'def {node.name}(...):'",
            )
        self.bind(node.name, CondBody(node))

    def call_pipe_net(self, m: BoundMethod, node: ast.Call) -> Any:
        """``net.if_src(fn)`` / ``net.if_dst(fn)``: inline ``fn`` once per matching pipe;
        ``net.is_src()`` / ``is_dst()`` / ``is_active()``: this node's role, as a bool."""
        net = m.obj
        assert isinstance(net, PipeNet)
        if m.method.startswith("is_"):
            return self._pipe_role(net, m.method, node)
        if self.is_compute:
            self.fail(
                f"{m.method}() on a pipe net is only allowed in data-movement kernels",
                node,
                "move the pipe transfer into a @ttl.datamovement() kernel",
            )
        if not any(net is n for n in self.model.pipe_nets):
            self.fail(
                "this pipe net does not belong to the operation",
                node,
                f"build the ttl.PipeNet in the body of operation '{self.model.name}'",
            )
        body = self.args(node, ["cond_fun"], 1)["cond_fun"]
        if not isinstance(body, CondBody):
            self.fail(
                f"{m.method}() takes a condition body defined in this kernel, got "
                f"{self.describe(body)}",
                node.args[0] if node.args else node,
                f"define 'def pipe_{m.method[3:]}(pipe): ...' in the kernel and pass its name",
            )
        fn = body.node
        a = fn.args
        if len(a.args) != 1 or a.posonlyargs or a.vararg or a.kwonlyargs or a.kwarg or a.defaults:
            self.fail(
                f"the condition body '{fn.name}' must take exactly one parameter, the pipe",
                fn,
                f"write 'def {fn.name}(pipe):'",
            )
        stmts = fn.body
        if stmts and isinstance(stmts[0], ast.Expr) and isinstance(stmts[0].value, ast.Constant):
            stmts = stmts[1:]  # docstring
        role = SrcPipeIdentity if m.method == "if_src" else DstPipeIdentity
        outer = dict(self.vars)
        for i, pipe in enumerate(net.pipes):
            cond = self._pipe_condition(pipe, m.method == "if_src", node)
            self.vars = dict(outer)
            self.vars[a.args[0].arg] = role(net, i)
            self.vars[_COND] = cond
            test = ast.Name(_COND, ast.Load(), **position(node))
            self.visit_If(ast.If(test, stmts or [ast.Pass(**position(fn))], [], **position(node)))
            self.stmt = node
        # The body's locals are its own (Python scoping): drop them.
        self.vars = outer

    def _pipe_role(self, net: PipeNet, method: str, node: ast.Call) -> Any:
        """A bool per node (a constant where every node agrees): is this node a source,
        a destination, or either, of ``net``'s pipes."""
        self.args(node, [], 0)
        grid = self.model.grid
        merged = merge([net.role_at(method, n) for n in node_order(grid)], grid)
        if isinstance(merged, bool):
            return merged
        value = self.per_node(merged)
        value.value.name_hint = method
        return value

    def _pipe_condition(self, pipe: Pipe, src: bool, node: ast.AST) -> Any:
        """``this node is the source`` / ``this node is in the destination``, on coordinates."""
        nx, ny = (Dyn(self.emit(d.NodeOp(i)).results[0], "int") for i in (0, 1))
        nx.value.name_hint, ny.value.name_hint = "node_x", "node_y"
        if src:
            bounds = [(nx, pipe.ends.src[0], pipe.ends.src[0] + 1)]
            bounds.append((ny, pipe.ends.src[1], pipe.ends.src[1] + 1))
        else:
            (x0, x1), (y0, y1) = pipe.ends.rect
            bounds = [(nx, x0, x1), (ny, y0, y1)]
        gx, gy = self.model.grid
        result: Any = True
        for (coord, lo, hi), size in zip(bounds, (gx, gy), strict=True):
            if hi - lo == 1:
                result = self._and(result, self._cmp(coord, lo, "eq"), node)
                continue
            if lo > 0:
                result = self._and(result, self._cmp(coord, lo, "sge"), node)
            if hi < size:
                result = self._and(result, self._cmp(coord, hi, "slt"), node)
        if isinstance(result, Dyn):
            result.value.name_hint = "is_src" if src else "is_dst"
        return result

    def _cmp(self, a: Dyn, b: int, pred: str) -> Dyn:
        op = self.emit(arith.CmpiOp(a.value, self.to_ssa(b, self.stmt), pred))
        return Dyn(op.results[0], "bool")

    def pipe_copy(self, node: ast.Call, src: Any, dst: Any) -> TransferHandle:
        """``ttl.copy(blk, pipe)`` (send) or ``ttl.copy(pipe, blk)`` (receive)."""
        sending = is_pipe_value(dst)
        pipe, blk = (dst, src) if sending else (src, dst)
        if isinstance(pipe, PipeNet):
            self.fail(
                "a pipe copy takes one pipe, not a pipe net",
                node,
                f"copy with a ttl.Pipe of the net, or with the pipe a condition body of "
                f"net.{'if_src' if sending else 'if_dst'} receives",
            )
        if isinstance(pipe, Pipe):
            pipe = self._guarded_pipe(pipe, sending, node)
        want = SrcPipeIdentity if sending else DstPipeIdentity
        if not isinstance(pipe, want):
            body = "if_dst" if sending else "if_src"
            self.fail(
                f"in an {body} condition body this node is the pipe's "
                f"{'destination' if sending else 'source'}: it can only copy "
                f"{'out of' if sending else 'into'} the pipe",
                node,
                "write ttl.copy(pipe, blk) in an if_dst body and ttl.copy(blk, pipe) in an "
                "if_src body",
            )
        if not isinstance(blk, BlockHandle):
            self.fail(
                f"ttl.copy with a pipe needs a block on the other side, got {self.describe(blk)}",
                node,
                "copy a block acquired from a DFB: ttl.copy(blk, pipe) or ttl.copy(pipe, blk)",
            )
        self.check_live(blk, node)
        self.check_not_writing(blk, node, "a pipe copy " + ("from" if sending else "into") + " it")
        if not sending and blk.acquire != "reserve":
            self.fail(
                f"cannot copy into {blk.describe()}: it was acquired with wait() "
                "(block state MR, Must be Read: wait() -> copy into it is not a transition)",
                node,
                "receive into a block acquired with reserve()",
            )
        assert isinstance(pipe, SrcPipeIdentity | DstPipeIdentity)
        tables = self.symbols.pipes
        key = (pipe.net.order, pipe.index)
        slot = tables.slots[key]
        shape, dtype = blk.dfb.shape, blk.dfb.dtype
        use = PipeUse(shape, dtype, node_loc(self.filename, node))
        (tables.sends if sending else tables.receives).setdefault(key, []).append(use)
        lkey = (slot, shape, dtype)
        if lkey not in tables.landing:
            tables.landing[lkey], _ = self._compiler_buffer(
                f"pipe_landing{slot}", shape, dtype, node
            )
        landing = self.ref(tables.landing[lkey], node)
        ends = pipe.pipe.ends
        (x0, x1), (y0, y1) = ends.rect
        cls = d.PipeSendOp if sending else d.PipeRecvOp
        op = self.emit(
            cls(blk.value, landing, key[0], key[1], ends.src, (x0, y0, x1 - 1, y1 - 1), slot)
        )
        tx = TransferHandle(op.results[0], not sending, blk)
        blk.pending.append(tx)
        if sending:
            blk.unread = False
        else:
            self.note_write(blk, node, "a pipe copy into it")
        return tx

    def _guarded_pipe(self, pipe: Pipe, sending: bool, node: ast.AST) -> Any:
        """A copy with a ``ttl.Pipe`` itself, guarded by the program (``if
        net.is_dst():``, spec v0.21): the pipe's identity in its net, and a run-time
        check that this node is the pipe's source (a send) or a destination (a receive)."""
        owners = [
            (net, i) for net in self.model.pipe_nets for i, p in enumerate(net.pipes) if p is pipe
        ]
        role = "if_src" if sending else "if_dst"
        if not owners:
            self.fail(
                f"{pipe!r} belongs to no pipe net of operation '{self.model.name}'",
                node,
                "build a ttl.PipeNet([...]) of it in the operation's body",
            )
        if len(owners) > 1:
            self.fail(
                f"{pipe!r} belongs to {len(owners)} pipe nets: which one carries this copy "
                "is ambiguous",
                node,
                f"copy in a condition body of the net's {role}, with the pipe it receives",
            )
        net, index = owners[0]
        cond = self._pipe_condition(pipe, sending, node)
        what = "the source" if sending else "a destination"
        if isinstance(cond, Dyn):  # (True: every node is, as for a whole-grid destination)
            cond.value.name_hint = "node_is_pipe_source" if sending else "node_is_pipe_destination"
            guard = "is_src" if sending else "is_dst"
            why = f"this node must be {what} of {pipe!r}: guard the copy with net.{guard}()"
            self.emit(d.AssertOp(cond.value, why))
        return (SrcPipeIdentity if sending else DstPipeIdentity)(net, index)

    def call_wait_any(self, node: ast.Call) -> ReadyReceive:
        """``ttl.wait_any(requests, start=0)``: select a completed receive (spec v0.21)."""
        if self.is_compute:
            self.fail(
                "ttl.wait_any is only allowed in data-movement kernels",
                node,
                "wait for pipe receives in the @ttl.datamovement() kernel that posts them",
            )
        a = self.args(node, ["requests", "start"], 1)
        requests, start = a["requests"], a.get("start", 0)
        where = node.args[0] if node.args else node
        if not isinstance(requests, tuple | list) or not requests:
            self.fail(
                f"ttl.wait_any takes a nonempty tuple of receive requests, got "
                f"{self.describe(requests)}",
                where,
                "write ttl.wait_any((first_request, second_request))",
            )
        for r in requests:
            if not (isinstance(r, TransferHandle) and isinstance(r.value.owner, d.PipeRecvOp)):
                self.fail(
                    f"ttl.wait_any selects among receive requests (ttl.copy(pipe, blk)), got "
                    f"{self.describe(r)}",
                    where,
                    "wait for other transfers with their own wait()",
                )
            if r.waited:
                self.fail(
                    f"a receive request given to ttl.wait_any{r.where()} was already waited on",
                    where,
                    "select among receives that are still pending",
                )
        if len({id(r) for r in requests}) != len(requests):
            self.fail(
                "the receive requests of ttl.wait_any must be distinct",
                where,
                "list each request once",
            )
        slots = [r.value.owner.slot.value.data for r in requests]
        if len(set(slots)) != len(slots):
            # Pipes share a slot only if no node receives from both: so the same pipe.
            twice = next(r for r in requests if slots.count(r.value.owner.slot.value.data) > 1)
            net, index = twice.value.owner.net.value.data, twice.value.owner.index.value.data
            pipe = self.symbols.pipes.nets[net].pipes[index]
            self.fail(
                f"two of these receive requests receive from the same pipe, {pipe!r}: its "
                "messages arrive in order, so only the first posted receive can complete next",
                where,
                "select among receives from different pipes; wait for the second receive of a "
                "pipe after the first",
            )
        if isinstance(start, bool) or not is_scalar(start) or self._kind(start) != "int":
            self.fail(
                f"the start of ttl.wait_any is an integer, got {self.describe(start)}",
                node,
                "write start=0, or the index after the previous selection",
            )
        op = self.emit(d.WaitAnyOp([r.value for r in requests], self.to_ssa(start, node)))
        op.result.name_hint = "completed"
        for r in requests:
            r.selectable = True
        return ReadyReceive(op.result)


def check_pipe_uses(symbols: ModuleSymbols) -> None:
    """Cross-kernel checks: every received pipe is sent into, with the same block shape."""
    tables = symbols.pipes
    for key in sorted(tables.receives):
        recv = tables.receives[key][0]
        sends = tables.sends.get(key)
        pipe = tables.nets[key[0]].pipes[key[1]]
        if not sends:
            raise TTLCompileError(
                f"{pipe!r} is received from here, but no kernel copies a block into it",
                recv.loc,
                "add 'ttl.copy(blk, pipe)' in a condition body passed to the same net's if_src()",
            )
        for r in tables.receives[key]:
            for s in sends:
                if (s.shape, s.dtype) != (r.shape, r.dtype):
                    raise TTLCompileError(
                        f"the block received from {pipe!r} is {r.dtype} of shape {r.shape} but "
                        f"the block sent into it on line {s.loc.line} is {s.dtype} of shape "
                        f"{s.shape}",
                        r.loc,
                        "send and receive blocks of the same shape and dtype (DFBs made "
                        "with the same shape= and like tensors of the same dtype)",
                    )
