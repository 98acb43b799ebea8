"""Calls in kernel bodies: ttl intrinsics, DFB/block/transfer methods, tensor slices."""

from __future__ import annotations

import ast
import builtins
from typing import Any

from xdsl.dialects import arith

from ttl import dsl
from ttl._intrinsic import intrinsic_name
from ttl.compiler import dialect as d
from ttl.compiler.analysis.store_plan import plan_store
from ttl.compiler.frontend import block_expr as bx
from ttl.compiler.frontend import row_major, unary_math
from ttl.compiler.frontend.inline import is_helper
from ttl.compiler.frontend.pipes import CondBody, is_pipe_value
from ttl.compiler.frontend.protocol import MixinBase
from ttl.compiler.frontend.selectors import release_selector
from ttl.compiler.frontend.sync import SYNC_VALUES
from ttl.compiler.frontend.values import (
    Affine,
    BlockHandle,
    BoundMethod,
    Dyn,
    PySlice,
    ReadyReceive,
    SliceVal,
    TransferHandle,
    affine_of,
    is_scalar,
)
from ttl.devices import DeviceDomain, DeviceRange, DeviceRef
from ttl.errors import TTLCompileError
from ttl.pipes import PipeNet

_NAW = "NAW, No Access while Writing"
_ROR = "ROR, Read Only while Reading"
# Python builtins a kernel evaluates at compile time on compile-time values (and,
# for min/max/abs/int, on runtime integers: _runtime_builtin).
_STATIC_BUILTINS = {
    builtins.min,
    builtins.max,
    builtins.abs,
    builtins.int,
    builtins.float,
    builtins.bool,
    builtins.len,
    builtins.round,
    builtins.divmod,
    builtins.pow,
    builtins.tuple,
    builtins.list,
    builtins.sum,
    builtins.any,
    builtins.all,
    builtins.enumerate,
    builtins.zip,
    builtins.reversed,
    builtins.sorted,
}


class CallsMixin(MixinBase):
    """Call visitors and the block protocol (mixed into KernelCompiler)."""

    # ------------------------------------------------------------ calls
    def visit_Call(self, node: ast.Call) -> Any:
        callee = self.visit(node.func)
        if isinstance(callee, BoundMethod):
            return self.call_method(callee, node)
        if callee is dsl.grid_size:
            return self.call_grid_size(node)
        name = intrinsic_name(callee)
        if name is not None:
            if name.startswith("binary."):
                return self.call_binary_fn(name, node)
            if name.startswith("math."):
                return self.call_unary(name, node)
            if name.startswith("extern."):
                return self.call_extern_intrinsic(name, node)
            if name.startswith("device."):
                return self.call_device(name, callee.__self__, node)
            return getattr(self, "call_" + name)(node)
        if isinstance(callee, CondBody):
            return self.call_helper(None, callee.node, node)
        if is_helper(callee):
            return self.call_function(callee, node)
        if callee is builtins.slice:
            return self.call_slice(node)
        if callee in (DeviceRef, DeviceRange):  # compile-time values (spec v0.21)
            args = [self.visit(a) for a in node.args]
            kwargs = {kw.arg: self.visit(kw.value) for kw in node.keywords if kw.arg}
            if any(isinstance(v, Dyn) for v in [*args, *kwargs.values()]):
                self.fail(
                    f"{ast.unparse(node.func)}() takes compile-time coordinates",
                    node,
                    "compare domain.current_index() with a runtime value instead",
                )
            try:
                return callee(*args, **kwargs)
            except TTLCompileError as e:
                self.fail(e.message, node, e.hint)
        if callee is builtins.print:
            return self.call_print(node)
        if callee is builtins.range:
            self.fail(
                "range() is only supported as a for-loop iterable",
                node,
                "write 'for i in range(n):'",
            )
        if callee in _STATIC_BUILTINS:
            args = [self.visit(a) for a in node.args]
            if (
                callee is builtins.abs
                and len(args) == 1
                and isinstance(args[0], BlockHandle | bx.Expr)
            ):
                return bx.Unary(node, "abs", self.block_operand(args[0], node))  # abs(blk)
            if (
                all(not isinstance(a, Dyn | BlockHandle | bx.Expr) for a in args)
                and not node.keywords
            ):
                try:
                    result = callee(*args)
                except (TypeError, ValueError, ZeroDivisionError) as e:
                    self.fail(
                        f"{callee.__name__}(): {e}",
                        node,
                        "the arguments are compile-time values here: fix them as in Python",
                    )
                if callee in (builtins.enumerate, builtins.zip, builtins.reversed):
                    return list(result)  # a compile-time sequence a for loop unrolls
                return result
            if not node.keywords and (runtime := self._runtime_builtin(callee, args, node)):
                return runtime
        fname = ast.unparse(node.func)
        self.fail(
            f"call to '{fname}' is not supported in a kernel",
            node,
            "kernels may call ttl functions (ttl.copy, ttl.math.*, ttl.node, ...) and DFB, "
            "block and transfer methods; compute other values at the operation's top level",
        )

    def _runtime_builtin(self, callee: Any, args: list[Any], node: ast.Call) -> Dyn | None:
        """``min``/``max``/``abs``/``int`` on runtime integers (compare and select)."""
        if not args or not all(is_scalar(a) and self._kind(a) == "int" for a in args):
            return None
        if callee is builtins.int and len(args) == 1:
            return args[0] if isinstance(args[0], Dyn) else None
        if callee is builtins.abs and len(args) == 1:
            negated = self.int_binop(ast.Sub(), 0, args[0], node)
            return self._select_int(args[0], "slt", 0, negated, args[0], node)
        if callee in (builtins.min, builtins.max) and len(args) >= 2:
            pred = "slt" if callee is builtins.min else "sgt"
            best = args[0]
            for a in args[1:]:
                best = self._select_int(a, pred, best, a, best, node)
            return best
        return None

    def _select_int(self, a: Any, pred: str, b: Any, then: Any, other: Any, node: ast.AST) -> Dyn:
        """``then if a <pred> b else other`` on integers."""
        test = self.emit(arith.CmpiOp(self.to_ssa(a, node), self.to_ssa(b, node), pred))
        op = arith.SelectOp(test.results[0], self.to_ssa(then, node), self.to_ssa(other, node))
        return Dyn(self.emit(op).results[0], "int")

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
                self.fail(
                    f"{fname}() is missing its '{n}' argument",
                    node,
                    f"call it as {fname}({', '.join(names[:required])})",
                )
        return out

    def static_int(self, v: Any, node: ast.AST, what: str) -> int:
        if isinstance(v, int) and not isinstance(v, bool):
            return v
        self.fail(
            f"{what} must be a compile-time integer", node, "use a constant or a captured int"
        )

    def static_shape(self, v: Any, node: ast.AST) -> tuple[int, ...]:
        if isinstance(v, int) and not isinstance(v, bool):
            v = (v,)
        if (
            isinstance(v, tuple | list)
            and v
            and all(isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in v)
        ):
            return tuple(v)
        self.fail(
            "shape must be a tuple of positive compile-time integers", node, "write shape=(1, 1)"
        )

    def call_slice(self, node: ast.Call) -> PySlice:
        """``slice(lo, hi)``: bounds for a later ``tensor[...]`` subscript."""
        if node.keywords or len(node.args) not in (1, 2):
            self.fail(
                "slice() in a kernel takes (stop) or (start, stop)",
                node,
                "write slice(lo, hi); slice steps are not supported",
            )
        args = [self.visit(a) for a in node.args]
        lo, hi = (None, args[0]) if len(args) == 1 else (args[0], args[1])
        for v, a in zip(args, node.args, strict=True):
            if not is_scalar(v) or self._kind(v) != "int":
                self.fail(
                    f"slice bounds must be integers, got {self.describe(v)}",
                    a,
                    "write slice(lo, hi) with integer bounds in tiles",
                )
        return PySlice(lo, hi)

    def call_grid_size(self, node: ast.Call) -> Any:
        dims = self.static_int(self.args(node, ["dims"], 0).get("dims", 2), node, "dims")
        if message := dsl.dims_error("grid_size", dims):
            self.fail(message, node, dsl.DIMS_HINT)
        sizes = dsl._flatten(self.model.grid, dims, 1)
        return sizes[0] if dims == 1 else sizes

    def call_node(self, node: ast.Call) -> Any:
        dims = self.static_int(self.args(node, ["dims"], 0).get("dims", 2), node, "dims")
        if message := dsl.dims_error("node", dims):
            self.fail(message, node, dsl.DIMS_HINT)
        x, y = (self.emit(d.NodeOp(i)).results[0] for i in (0, 1))
        x.name_hint, y.name_hint = "node_x", "node_y"
        dx, dy = Dyn(x, "int", Affine.var(x)), Dyn(y, "int", Affine.var(y))
        if dims == 1:  # dsl.node_index: x * grid_y + y
            return self.int_binop(
                ast.Add(), self.int_binop(ast.Mult(), dx, self.model.grid[1], node), dy, node
            )
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
        if is_pipe_value(src) or is_pipe_value(dst):
            return self.pipe_copy(node, src, dst)
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
        self.check_not_writing(blk, node, "a copy " + ("into" if is_read else "from") + " it")
        if is_read and blk.acquire != "reserve":
            # Reported at the wait(): that is where such a program blocks (upstream's
            # eltwise_add_deadlock.py), and what to change.
            line = getattr(node, "lineno", None)
            self.fail(
                f"{blk.dfb.name}.wait() takes a block another kernel filled and pushed, but "
                f"this kernel copies into {blk.describe()}"
                + (f" at line {line}" if line else "")
                + " (block state MR, Must be Read: wait() -> copy into it is not a transition); "
                f"unless another kernel pushes '{blk.dfb.name}', this wait() blocks forever, "
                "a deadlock",
                blk.node,
                f"acquire the block you fill with {blk.dfb.name}.reserve(), and wait() for it "
                "in the kernel that consumes it",
            )
        row_major.check_copy_layouts(sl.tensor, blk.dfb, node, self.fail)
        if not row_major.copy_shapes_match(sl.tensor, sl.sizes, blk.dfb.shape):
            unit = "elements" if blk.dfb.is_row_major else "tiles"
            self.fail(
                f"slice shape {bx._fmt(sl.sizes)} {unit} differs from the block shape "
                f"{bx._fmt(blk.dfb.shape)} {unit} of '{blk.dfb.name}'",
                sl.node,
                f"slice exactly one block of {bx._fmt(blk.dfb.shape)} {unit}, e.g. "
                f"t[r:r + {blk.dfb.shape[0]}, ...]",
            )
        pair = {sl.tensor.dtype, blk.dfb.dtype}
        if len(pair) > 1 and pair != d.CONVERTIBLE_DTYPES:
            self.fail(
                f"tensor '{sl.tensor.name}' is {sl.tensor.dtype} but '{blk.dfb.name}' holds "
                f"{blk.dfb.dtype}: a copy converts only between bf16 and f32 "
                "(the data-movement core converts in software; docs/language.md)",
                node,
                f"make the DFB like a {sl.tensor.dtype} tensor, or convert in a compute "
                "kernel (its unpacker and packer convert any format)",
            )
        offsets = [self.to_ssa(o, sl.node) for o in sl.offsets]
        sop = self.emit(d.SliceOp(self.ref(sl.tensor, node), offsets, sl.sizes))
        a_, b_ = (sop.results[0], blk.value) if is_read else (blk.value, sop.results[0])
        cop = self.emit(d.CopyOp(a_, b_))
        tx = TransferHandle(cop.results[0], is_read, blk, node=node)
        blk.pending.append(tx)
        if is_read:
            self.note_write(blk, node, "a copy into it")
        else:
            blk.unread = False
        return tx

    def call_unary(self, name: str, node: ast.Call) -> bx.Expr:
        return unary_math.call_unary(self, name, node)

    def call_binary_fn(self, name: str, node: ast.Call) -> bx.Expr:
        """``ttl.math.max/min/gt/lt/ge/le/eq/ne(a, b)`` and ``ttl.math.rsub(a, b)``."""
        fn = name.split(".", 1)[1]
        a = self.args(node, ["a", "b"], 2)
        if fn == "rsub":  # b - a, b a scalar
            if isinstance(a["b"], BlockHandle | bx.Expr):
                self.fail(
                    "the second argument of ttl.math.rsub must be a scalar",
                    node.args[1] if len(node.args) > 1 else node,
                    "write ttl.math.rsub(blk, 1) for 1 - blk; subtract blocks with b - a",
                )
            value = self.scalar_operand(a["b"], node)
            return bx.Scalar(node, "rsub", self.block_operand(a["a"], node), value)
        return self.block_fn(fn, a["a"], a["b"], node)

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
        x = self.materialize_operand(self.block_operand(a["x"], node), node, "a broadcast")
        if shape is not None and isinstance(x, bx.Leaf):
            bx.ExprLowering(self.emit, self.error, "bf16").check_broadcast(
                x.shape, dims_t, shape, node
            )
        return bx.Broadcast(node, x, dims_t, shape)

    def call_unsqueeze(self, node: ast.Call) -> bx.Expr:
        return self._view(node, squeeze=False)

    def call_squeeze(self, node: ast.Call) -> bx.Expr:
        return self._view(node, squeeze=True)

    def _view(self, node: ast.Call, squeeze: bool) -> bx.Expr:
        """``unsqueeze``/``squeeze``: the operand read with size-1 dims added/dropped, at
        ``dim`` (``ttl.math``) or at each of ``dims`` (spec v0.16's ``ttl.block``)."""
        fname = "squeeze" if squeeze else "unsqueeze"
        a = self.args(node, ["expr", "dim", "dims"], 1)
        x = self.block_operand(a["expr"], node.args[0] if node.args else node)
        if ("dim" in a) == ("dims" in a):
            self.fail(
                f"{fname}() takes dim= or dims=, one of them",
                node,
                f"write ttl.block.{fname}(x, dims=[0]) or ttl.math.{fname}(x, 0)",
            )
        if "dims" in a:
            given = a["dims"]
            if not isinstance(given, list | tuple) or not given:
                self.fail(
                    f"dims of {fname}() must be a non-empty list of compile-time integers",
                    node,
                    f"write ttl.block.{fname}(x, dims=[0])",
                )
            dims = [self.static_int(v, node, f"each dim of {fname}") for v in given]
        else:
            dims = [self.static_int(a["dim"], node, f"the dim of {fname}")]
        x = self.materialize_operand(x, node, f"{fname}()")
        assert isinstance(x, bx.Leaf)
        shape = x.shape
        # squeeze: dims of the operand; unsqueeze: positions in the result.
        rank = len(shape) if squeeze else len(shape) + len(dims)
        for dim in dims:
            if not -rank <= dim < rank:
                self.fail(
                    f"{fname}() dim {dim} is out of range for a {bx._fmt(shape)} block",
                    node,
                    f"the {'block' if squeeze else 'result'} has {rank} dims: use a dim in "
                    f"{-rank}..{rank - 1}",
                )
        where = sorted({dim % rank for dim in dims})
        if len(where) != len(dims):
            self.fail(
                f"{fname}() names a dimension twice: dims {dims}",
                node,
                "name each dimension once",
            )
        if squeeze:
            bad = [dim for dim in where if shape[dim] != 1]
            if bad or len(shape) - len(where) < 1:
                self.fail(
                    f"squeeze() of a {bx._fmt(shape)} block: dimension {bad[0]} has size "
                    f"{shape[bad[0]]}, not 1"
                    if bad
                    else f"squeeze() of a {bx._fmt(shape)} block would leave no dimension",
                    node,
                    "squeeze only size-1 dimensions, and keep at least 1 dimension",
                )
            view = tuple(n for i, n in enumerate(shape) if i not in where)
        else:
            rest = iter(shape)
            view = tuple(1 if i in where else next(rest) for i in range(rank))
        return bx.Leaf(x.node, x.block, view)

    def call_fill(self, node: ast.Call) -> bx.Expr:
        if not self.is_compute:
            self.block_operand(None, node)
        a = self.args(node, ["value", "shape", "dtype"], 1)
        value, shape = a["value"], a.get("shape")
        if isinstance(value, BlockHandle):  # ttl.math.fill(blk, value) form
            shape, value = value.dfb.shape, shape
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.fail(
                "the fill value must be a compile-time number", node, "e.g. fill(0.0, shape=(1, 1))"
            )
        return bx.Fill(
            node, float(value), None if shape is None else self.static_shape(shape, node)
        )

    # ------------------------------------------------------------ methods
    def call_method(self, m: BoundMethod, node: ast.Call) -> Any:
        obj = m.obj
        if isinstance(obj, SYNC_VALUES):
            return self.call_sync_method(obj, m.method, node)
        if isinstance(obj, dsl.DataflowBuffer) and m.method == "publish":
            return self.publish(obj, node)
        if isinstance(obj, dsl.DataflowBuffer):
            for kw in node.keywords:
                if kw.arg == "kernel":
                    self.fail(
                        f"{m.method}() does not accept kernel=: its logical kernel is derived "
                        "from the acquired block's uses and release",
                        kw.value,
                        f"remove kernel=; if the block has no other use, select the kernel on "
                        f"its release, e.g. blk.{'push' if m.method == 'reserve' else 'pop'}"
                        "(kernel=ttl.KernelKind.DATA_MOVEMENT)",
                    )
            self.args(node, [], 0)
            if m.method == "reserve" and obj.name in self.published:
                self.fail(
                    f"reserve() on '{obj.name}', which this kernel published: its whole "
                    "capacity is filled, so the reserve would wait forever",
                    node,
                    "publish a tensor-backed input once and only read it in the consumer",
                )
            self.check_one_block_held(obj, m.method, node)
            op = d.ReserveOp if m.method == "reserve" else d.WaitOp
            res = self.emit(op(self.ref(obj, node))).results[0]
            h = BlockHandle(res, obj, m.method, node, self.loop_depth)
            h.region_depth = len(self.blocks)
            h.first_access = not any(held.dfb is obj for held in self.handles)
            self.handles.append(h)
            return h
        if isinstance(obj, PipeNet):
            return self.call_pipe_net(m, node)
        if isinstance(obj, TransferHandle):
            self.args(node, [], 0)
            if obj.waited and obj.selectable:
                return None  # a receive wait_any may take is taken once: this wait is a no-op
            if obj.waited:
                self.fail("this transfer was already waited on", node, "wait on a transfer once")
            self.wait_transfer(obj)
            return None
        if isinstance(obj, ReadyReceive):
            self.args(node, [], 0)
            return Dyn(obj.value, "int")
        assert isinstance(obj, BlockHandle)
        if m.method == "store":
            return self.store(obj, node)
        selector = self.args(node, ["kernel"], 0).get("kernel")
        if selector is not None:
            release_selector(self, selector, node)
        if m.method != obj.release_name:
            self.fail(
                f"{obj.describe()} was acquired with {obj.acquire}() and is released with "
                f"{obj.release_name}(), not {m.method}()",
                node,
                f"call {obj.name or 'blk'}.{obj.release_name}()",
            )
        # A release naming its kernel may end a transaction with no other use
        # (external-functions spec, "DFB synchronization ownership").
        self.release(obj, node, implicit=False, unused=selector is not None)
        return None

    def publish(self, dfb: dsl.DataflowBuffer, node: ast.Call) -> None:
        """``dfb.publish()`` (spec v0.21): a tensor-backed input's capacity, already in
        the tensor's shard, becomes readable without a copy: each block is reserved and
        pushed as it is (``cb_reserve_back`` / ``cb_push_back``, as TT-Metal's sharded
        readers do)."""
        self.args(node, [], 0)
        if not dfb.tensor_backed:
            self.fail(
                f"publish() makes a tensor-backed DFB's data readable, and '{dfb.name}' has "
                "storage of its own",
                node,
                "make it with ttl.make_tensor_backed_dfb(tensor, shape=...), or fill its blocks "
                "with ttl.copy",
            )
        if self.is_compute:
            self.fail(
                f"publish() on '{dfb.name}' is only allowed in data-movement kernels",
                node,
                "call it in the @ttl.datamovement() kernel",
            )
        if self.loop_depth > 0 or len(self.blocks) != 1:
            self.fail(
                f"publish() on '{dfb.name}' runs once, at the top of the kernel, not inside an "
                "if or a loop",
                node,
                "move it out of the if or loop",
            )
        if any(held.dfb is dfb for held in self.handles) or dfb.name in self.published:
            self.fail(
                f"publish() is a data-movement kernel's only access to '{dfb.name}': it is "
                "called once, and its blocks are already there",
                node,
                "remove the other reserve() or publish() of it",
            )
        self.published.add(dfb.name)
        ref = self.ref(dfb, node)
        for _ in range(dfb.block_count):
            block = self.emit(d.ReserveOp(ref)).results[0]
            self.emit(d.PushOp(block))

    def call_device(self, name: str, domain: DeviceDomain, node: ast.Call) -> Any:
        """``domain.current_index()`` (the running device's row-major index, a runtime
        value) and ``domain.is_current(device)`` (a device or a range; spec v0.21): of
        the operation's own ``device_domain``, whose size the call checks."""
        if domain is not self.model.device_domain:
            declared = self.model.device_domain
            self.fail(
                f"{domain!r} is not the device domain of operation '{self.model.name}' "
                + (f"({declared!r})" if declared is not None else "(it declares none)"),
                node,
                "run the operation on the domain its kernels ask about: "
                f"@ttl.operation(..., device_domain={ast.unparse(node.func.value)})"
                if isinstance(node.func, ast.Attribute)
                else "pass the domain as ttl.operation(device_domain=...)",
            )
        if name == "device.current_index":
            self.args(node, [], 0)
            op = self.emit(d.DeviceIndexOp())
            op.result.name_hint = "device_index"
            return Dyn(op.result, "int")
        devices = self.args(node, ["device"], 1)["device"]
        if not isinstance(devices, DeviceRef | DeviceRange):
            self.fail(
                f"is_current() takes a ttl.DeviceRef or a ttl.DeviceRange, got "
                f"{self.describe(devices)}",
                node,
                "write domain.is_current(ttl.DeviceRef(0))",
            )
        try:
            indices = domain.indices(devices)
        except TTLCompileError as e:
            self.fail(e.message, node, e.hint)
        index = self.emit(d.DeviceIndexOp()).result
        index.name_hint = "device_index"
        result: Any = False
        for i in indices:
            test = self.emit(arith.CmpiOp(index, self.to_ssa(i, node), "eq")).result
            either = test if result is False else self.emit(arith.OrIOp(result.value, test)).result
            result = Dyn(either, "bool")
        if isinstance(result, Dyn):
            result.value.name_hint = "on_device"
        return result

    def wait_transfer(self, tx: TransferHandle) -> None:
        """``tx.wait()``: the copy has completed and its block is free of it."""
        self.emit(d.TransferWaitOp(tx.value))
        tx.waited = True
        tx.block.pending = [t for t in tx.block.pending if t is not tx]

    def settle_selected_receives(self, h: BlockHandle) -> None:
        """Before a use of ``h``: a receive into it that ``ttl.wait_any`` may have selected
        is waited on here (a no-op at run time if wait_any took it). The spec has the
        block used only where the program knows its request was selected; waiting makes
        any other use see the received data too, never an unfinished block."""
        for tx in [t for t in h.pending if t.selectable]:
            self.wait_transfer(tx)

    def check_live(self, h: BlockHandle, node: ast.AST) -> None:
        if h.released_line is not None:
            self.fail(
                f"{h.describe()} is used after its release on line {h.released_line} "
                f"(block state OS, Out of Scope: {h.release_name}() -> any use is not a "
                "transition)",
                node,
                f"use the block before {h.release_name}(), or acquire a new one",
            )

    def note_write(self, h: BlockHandle, node: ast.AST, what: str) -> None:
        """``what`` writes ``h``: not again before it is read (spec state MR)."""
        if h.unread and not h.accumulator:
            self.fail(
                f"{h.describe()} is written again before it is read (block state MR, Must be "
                f"Read: {what} after a write is not a transition)",
                node,
                f"read it first (block math, or ttl.copy({h.name or 'blk'}, ...)), or write "
                "it once",
            )
        h.written = h.unread = True

    def check_not_writing(self, h: BlockHandle, node: ast.AST, what: str) -> None:
        """No access to a block while a copy into it is in flight (spec state NAW)."""
        self.settle_selected_receives(h)
        into = [tx for tx in h.pending if tx.is_read]
        if into:
            name = h.name or "blk"
            self.fail(
                f"{h.describe()} is accessed while a copy into it is in flight{into[0].where()} "
                f"(block state NAW, No Access while Writing: {what} before the transfer's "
                "wait() is not a transition): a copy lock",
                node,
                f"call .wait() on the transfer of ttl.copy(..., {name}) first",
            )

    def check_not_read_by_copy(self, h: BlockHandle, node: ast.AST, what: str) -> None:
        """No write to a block while a copy out of it is in flight (spec state ROR)."""
        out = [tx for tx in h.pending if not tx.is_read]
        if out:
            name = h.name or "blk"
            self.fail(
                f"{h.describe()} is written while a copy out of it is in flight{out[0].where()} "
                f"(block state ROR, Read Only while Reading: {what} before the transfer's "
                "wait() is not a transition): a copy source lock",
                node,
                f"call .wait() on the transfer of ttl.copy({name}, ...) first",
            )

    def check_one_block_held(self, dfb: dsl.DataflowBuffer, method: str, node: ast.AST) -> None:
        """A kernel holds at most one reserved and one waited block of a DFB at a time:
        a second ``wait()`` would see the same front block again (and a second
        ``reserve()`` the same back block) until the first is released."""
        for held in self.handles:
            if held.dfb is dfb and held.acquire == method and held.released_line is None:
                line = getattr(held.node, "lineno", 0)
                state = "reserved" if method == "reserve" else "waited"
                self.fail(
                    f"{method}() on '{dfb.name}' while {held.describe()} from the {method}() "
                    f"on line {line} is still held: a kernel holds one {state} block of a "
                    "DFB at a time",
                    node,
                    f"release {held.describe()} first (end its 'with', or "
                    f"{held.name or 'blk'}.{held.release_name}()), or make the DFB's block "
                    "shape hold both",
                )

    def release(self, h: BlockHandle, node: ast.AST, implicit: bool, unused: bool = False) -> None:
        """Emit push/pop for ``h`` after checking the protocol; ``unused``: the release
        selects its kernel (``kernel=``), so the block may have no other use."""
        if not implicit and h.with_line is not None:
            self.fail(
                f"{h.describe()} is released twice: 'with' on line {h.with_line} already "
                f"releases it at the end of its scope",
                node,
                f"remove this {h.release_name}(), or acquire the block without 'with'",
            )
        self.check_live(h, node)
        self.settle_selected_receives(h)
        if not implicit and h.loop_depth != self.loop_depth:
            self.fail(
                f"{h.describe()} is acquired outside this loop but released inside it",
                node,
                "acquire and release a block in the same loop iteration",
            )
        for tx in h.pending:
            self.fail(
                f"{h.describe()} is released while a copy "
                f"{'into' if tx.is_read else 'from'} it is still in flight (block state "
                f"{_NAW if tx.is_read else _ROR}: {h.release_name}() before the transfer's "
                "wait() is not a transition)",
                node,
                "call .wait() on the transfer returned by ttl.copy before releasing the block",
            )
        if h.acquire == "reserve" and not h.written and not unused:
            name = h.name or "blk"
            self.fail(
                f"{h.describe()} is pushed without being written (block state MW, Must be "
                "Written: reserve() -> push is not a transition)",
                node,
                (
                    f"store the result into it: {name}.store(<block expression>)"
                    if self.is_compute
                    else f"copy into it before it is pushed: ttl.copy(<tensor slice>, {name})"
                ),
            )
        self.emit((d.PushOp if h.acquire == "reserve" else d.PopOp)(h.value))
        if h.replaced is not None:  # the replacement's block, then the waited one
            self.emit(d.PopOp(h.replaced))
        h.released_line = getattr(node, "lineno", 0)

    def store(self, h: BlockHandle, node: ast.Call) -> None:
        # A copy's lock on the block first: it is what the program gets wrong even where
        # the store is also in the wrong kernel (upstream's copy-lock examples).
        self.check_not_writing(h, node, "store")
        self.check_not_read_by_copy(h, node, "store")
        if not self.is_compute:
            self.fail(
                "block math (store) is only allowed in compute kernels",
                node,
                "store in the @ttl.compute() kernel; data-movement kernels use ttl.copy",
            )
        a = self.args(node, ["expr", "acc"], 1)
        self.check_live(h, node)
        if h.acquire != "reserve":
            self.replace_waited(h, a["expr"], a.get("acc", False), node)
            return
        acc = a.get("acc", False)
        if not isinstance(acc, bool):
            self.fail("acc must be True or False", node, "write acc=True to accumulate")
        if acc and not h.stored:
            self.fail(
                f"store(acc=True) adds to the tiles of {h.describe()}, but nothing was stored "
                "into it yet",
                node,
                f"store an initial value first, e.g. {h.name or 'blk'}.store(ttl.block.fill("
                f"0.0, shape={bx._fmt(h.dfb.shape)}))",
            )
        expr = self.block_operand(a["expr"], node.args[0] if node.args else node)
        self.store_expr(h, expr, acc, node)

    def replace_waited(self, h: BlockHandle, value: Any, acc: Any, node: ast.Call) -> None:
        """``blk.store(expr)`` into a waited block: waited-block replacement (spec v0.21).

        "Replacement is valid only for a DFB with block_count=1 when the wait acquires
        its complete capacity as that compute kernel's first access to the DFB, exactly
        one store whose expression reads the original contents executes in straight-line
        code, no other access overlaps the replacement, and every use of the replacement
        completes before the matching pop." The replacement goes to a one-block DFB of
        the compiler's (``replaced_<dfb>``: reserve, store, push, wait), which the block's
        later reads read and which is popped before the block: the DFB's own occupancy
        and pointers do not change, and TT-Metal's unpackers read what the packer wrote
        through the circular buffer's own synchronisation."""
        name = h.name or "blk"
        why = "(waited-block replacement, spec v0.21)"
        state = (
            f"cannot store into {h.describe()}: it was acquired with wait() (block state MR, "
            "Must be Read: wait() -> store is not a transition) except as a waited-block "
            "replacement, "
        )
        if h.dfb.block_count != 1:
            self.fail(
                state + f"which needs a DFB with block_count=1, and '{h.dfb.name}' has "
                f"{h.dfb.block_count}",
                node,
                f"store into a block acquired with reserve() from an output DFB, or make "
                f"'{h.dfb.name}' with block_count=1 to replace its block",
            )
        if not h.first_access or h.loop_depth > 0:
            self.fail(
                state + f"which needs the wait() to be the compute kernel's first access to "
                f"'{h.dfb.name}'"
                + (" (a wait() in a loop runs more than once)" if h.first_access else ""),
                node,
                "store into a block acquired with reserve() from another DFB",
            )
        if h.replaced is not None:
            self.fail(
                f"{h.describe()} is replaced once: this is a second store into it {why}",
                node,
                "store the new value into a reserved block of another DFB",
            )
        if len(self.blocks) != h.region_depth:
            self.fail(
                f"cannot store into {h.describe()} inside an if or a loop: a waited block "
                f"is replaced in straight-line code after its wait() {why}",
                node,
                "move the store out of the if or loop",
            )
        if acc is not False:
            self.fail("a replacement store takes no acc=", node, f"write {name}.store(expr)")
        expr = self.block_operand(value, node.args[0] if node.args else node)
        if not any(b is h for b in bx.leaf_blocks(expr)):
            self.fail(
                f"the expression stored into {h.describe()} does not read it: a waited block "
                f"is replaced by a value computed from its original contents {why}",
                node,
                f"store into a reserved block of another DFB, or read {name} in the expression",
            )
        if not self.model.options.compiler_dfbs:
            self.fail(
                f"replacing {h.describe()} needs a compiler-made DFB, and "
                "--no-ttl-compiler-dfbs forbids them",
                node,
                "store the new value into a reserved block of your own DFB, or drop "
                "--no-ttl-compiler-dfbs",
            )
        dfb, ref = self._compiler_buffer(f"replaced_{h.dfb.name}", h.dfb.shape, h.dfb.dtype, node)
        reserved = self.emit(d.ReserveOp(ref)).results[0]
        target = BlockHandle(reserved, dfb, "reserve", node, self.loop_depth, dfb.name)
        self.store_expr(target, expr, False, node)
        self.emit(d.PushOp(reserved))
        waited = self.emit(d.WaitOp(ref)).results[0]
        waited.name_hint = f"{name}_replaced"
        h.replaced, h.value = h.value, waited
        h.written = h.unread = h.stored = True

    def store_expr(self, h: BlockHandle, expr: bx.Expr, acc: bool, node: ast.AST) -> None:
        """Lower ``expr`` and store it into ``h`` (adding to its tiles when ``acc``)."""
        layout = row_major.expression_layout(h, expr, self.fail)
        lowering = bx.ExprLowering(
            self.emit, self.error, h.dfb.dtype, mixed=h.accumulator, layout=layout
        )
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
        plan = plan_store(store, self.model.target, self.model.compute)
        if plan.chunk == 0:
            self.fail(
                f"this expression needs {plan.regs} DST registers per tile but "
                f"{self.model.target.name} has {plan.capacity} "
                f"({self.model.compute.describe_dst()})",
                node,
                "split the expression: store part of it into an intermediate DFB block",
            )
        if acc:  # adds to the tiles: a read and a write
            h.written = h.unread = True
        else:
            self.note_write(h, node, "a store")
        h.stored = True

    # ------------------------------------------------------------ slices
    def tensor_slice(self, t: dsl.TensorArg, node: ast.Subscript) -> SliceVal:
        tiles = t.spec.unit_shape
        unit = "elements" if t.spec.is_row_major else "tiles"
        elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if len(elts) > len(tiles):
            self.fail(
                f"tensor '{t.name}' has {len(tiles)} dimensions but is indexed with {len(elts)}",
                node,
                f"index each dimension once, in {unit}",
            )
        offsets: list[int | Dyn] = []
        sizes: list[int] = []
        for i, extent in enumerate(tiles):
            e = elts[i] if i < len(elts) else None
            value = None if e is None or isinstance(e, ast.Slice) else self.visit(e)
            if e is None or isinstance(e, ast.Slice) or isinstance(value, PySlice):
                if isinstance(e, ast.Slice) and e.step is not None:
                    self.fail("slice steps are not supported", e, "write t[a:b]")
                if isinstance(value, PySlice):  # a slice(lo, hi) value
                    lo = 0 if value.lower is None else value.lower
                    hi = extent if value.upper is None else value.upper
                else:
                    s_ = e if isinstance(e, ast.Slice) else None
                    lo = self.visit(s_.lower) if s_ is not None and s_.lower is not None else 0
                    hi = self.visit(s_.upper) if s_ is not None and s_.upper is not None else extent
                la, ha = affine_of(lo), affine_of(hi)
                size = ha.sub(la).constant if la and ha else None
                where: ast.AST = e if e is not None else node
                if size is None:
                    self.fail(
                        f"the extent of dimension {i} of this slice is not a compile-time constant",
                        where,
                        "write bounds that differ by a constant, e.g. t[r * 2:(r + 1) * 2]",
                    )
                if size <= 0:
                    self.fail(
                        f"dimension {i} of this slice is empty", where, "write t[a:b] with b > a"
                    )
                offset = lo
            else:
                offset, size, where = value, 1, e
            if not is_scalar(offset) or self._kind(offset) != "int":
                self.fail(
                    f"tensor indices must be integers, got {self.describe(offset)}", where, None
                )
            if not isinstance(offset, Dyn) and (offset < 0 or offset + size > extent):
                shown = f"{offset}" if size == 1 else f"{offset}:{offset + size}"
                self.fail(
                    f"slice [{shown}] is out of bounds for dimension {i} of tensor '{t.name}' "
                    f"({extent} {unit})",
                    where,
                    f"indices are in {unit}: use 0 <= index < {extent}",
                )
            offsets.append(offset)
            sizes.append(size)
        return SliceVal(t, offsets, tuple(sizes), node)
