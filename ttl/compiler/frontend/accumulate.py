"""In-place block math: ``acc += expr`` and loop-carried accumulators.

A compute-kernel name that is the target of an augmented assignment and is
bound to a block expression is an *accumulator*. It lives in L1, in a
compiler-made DFB of one block (``acc_<kernel>_<name>``) that the kernel
reserves once at its entry and releases (push, wait, pop) at its end, as
TT-Metal kernels keep partial results in an intermediate circular buffer:

* ``acc = expr`` stores ``expr`` into the accumulator block;
* ``acc += expr`` packs ``expr`` with packer L1 accumulation
  (``pack_reconfig_l1_acc(1)``): the packer adds it to the block's tiles;
* ``acc -= expr``, ``acc *= expr``, ``acc /= expr`` store ``acc op expr``,
  reading the block back (block state RW: the emitter publishes the block to
  read it from the DFB's front, ``ttl-prepare-read-back``);
* ``acc`` used in an expression reads the block back the same way.

A block the program reserved and stored into (block state RW) is updated in
place the same way (``y_blk += expr``). The accumulator block is the
stored block's dtype, f32 with ``fp32_dest_acc_en`` (as TT-Metal's partials
CB is Float32 then). See docs/compiler.md, "In-place block math".
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from xdsl.ir import SSAValue

from ttl import dsl
from ttl.compiler import dialect as d
from ttl.compiler.frontend import block_expr as bx
from ttl.compiler.frontend.protocol import MixinBase
from ttl.compiler.frontend.values import BlockHandle
from ttl.source import node_loc
from ttl.specs import TILE

_IN_PLACE = {ast.Add: "+=", ast.Sub: "-=", ast.Mult: "*=", ast.Div: "/="}


@dataclass
class AccumulatorBuffer(dsl.DataflowBuffer):
    """The compiler-made DFB of an accumulator (its dtype need not be a tensor's)."""

    acc_dtype: str = "bf16"

    @property
    def dtype(self) -> str:
        return self.acc_dtype

    @property
    def layout(self) -> str:
        return TILE  # compiler-made blocks hold tiles, whatever tensor they are made like

    @property
    def is_row_major(self) -> bool:
        return False


def accumulator_names(fn: ast.FunctionDef) -> frozenset[str]:
    """Names that are targets of an augmented assignment anywhere in ``fn``, or that a
    loop reassigns from their own value (``m = ttl.math.max(m, blk)``, ``s = s + blk``:
    the loop carries them as ``+=`` does). Only block values become accumulators; an
    integer so named stays a loop-carried scalar."""
    names = {
        n.target.id
        for n in ast.walk(fn)
        if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name)
    }
    for loop in ast.walk(fn):
        if isinstance(loop, ast.For | ast.While):
            names.update(_self_updates(loop))
    return frozenset(names)


def _self_updates(loop: ast.For | ast.While) -> set[str]:
    """Names ``x`` assigned ``x = f(..., x, ...)`` somewhere in ``loop``'s body."""
    found = set()
    for node in (n for stmt in loop.body for n in ast.walk(stmt)):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and any(
                isinstance(n, ast.Name) and n.id == target.id for n in ast.walk(node.value)
            ):
                found.add(target.id)
    return found


class AccumulateMixin(MixinBase):
    """``+=`` on blocks and accumulator materialization (mixed into KernelCompiler)."""

    def accumulator_dtype(self, expr: bx.Expr) -> str:
        if self.model.compute.fp32_dest_acc_en:
            return "f32"
        # A BFP8_b block accumulates in bf16: partial sums re-quantized to shared
        # exponents at every step would lose what bf16 keeps.
        leaves = [t if t != "bfp8" else "bf16" for t in bx.leaf_dtypes(expr)]
        if leaves:
            return leaves[0]
        dtypes = {t.spec.dtype if t.spec.dtype != "bfp8" else "bf16" for t in self.model.tensors}
        return dtypes.pop() if len(dtypes) == 1 else "bf16"

    def materialize(self, name: str, value: Any, node: ast.AST) -> BlockHandle:
        """``name = value`` for an accumulator name: store ``value`` into its block."""
        expr = self.block_operand(value, node)
        h = self.accumulators.get(name)
        if h is not None and isinstance(expr, bx.Leaf) and expr.block is h:
            return h  # acc = acc
        shape = bx.ExprLowering(self.emit, self.error, "bf16").shape_of(expr)
        if shape is None:
            self.fail(
                f"cannot infer the shape of accumulator '{name}'",
                node,
                "give the initial value a shape, e.g. ttl.math.fill(0.0, shape=(1, 1))",
            )
        if h is None:
            h = self._new_accumulator(name, shape, self.accumulator_dtype(expr), node)
        elif h.dfb.shape != shape:
            self.fail(
                f"accumulator '{name}' has shape {bx._fmt(h.dfb.shape)} but is assigned a "
                f"{bx._fmt(shape)} expression",
                node,
                "keep one shape per accumulator name, or use another name",
            )
        self.store_expr(h, expr, False, node)
        return h

    def _new_accumulator(
        self, name: str, shape: tuple[int, ...], dtype: str, node: ast.AST
    ) -> BlockHandle:
        dfb, ref = self._compiler_buffer(f"acc_{self.thread.name}_{name}", shape, dtype, node)
        # Reserved once at the kernel entry (after the symbol reads of the header).
        reserve = d.ReserveOp(ref)
        reserve.location = self._loc(self.thread.def_node)
        reserve.results[0].name_hint = name
        self.header.append(reserve)
        h = BlockHandle(reserve.results[0], dfb, "reserve", node, 0, name, accumulator=True)
        self.accumulators[name] = h
        return h

    def _compiler_buffer(
        self, base: str, shape: tuple[int, ...], dtype: str, node: ast.AST
    ) -> tuple[AccumulatorBuffer, SSAValue]:
        """A one-block DFB the compiler adds to the operation, named ``base`` (made unique)."""
        taken = {f.name for f in self.model.dfbs}
        base = base.replace(".", "_")
        dfb_name, n = base, 1
        while dfb_name in taken:
            n += 1
            dfb_name = f"{base}_{n}"
        like = next((t for t in self.model.tensors if t.spec.dtype == dtype), None)
        dfb = AccumulatorBuffer(
            like or self.model.tensors[0],
            shape,
            1,
            node_loc(self.filename, node),
            len(self.model.dfbs),
            dfb_name,
            acc_dtype=dtype,
        )
        self.model.dfbs.append(dfb)
        self.symbols.dfb_types[dfb_name] = d.DFBType(shape, bx.element_type(dtype))
        return dfb, self.ref(dfb, node)

    def materialize_operand(self, expr: bx.Expr, node: ast.AST, what: str) -> bx.Expr:
        """``expr`` as a waited block: a sub-expression where a block must be read.

        ``@``, broadcast, reductions and transpose read their operands' tiles from
        the front of a DFB. A sub-expression there (``reduce_sum(sqrt(x), ...)``)
        is stored into a compiler-made DFB of one block (``expr_<kernel>_<line>``):
        reserve, store, push and wait here, pop at the end of the enclosing
        statement list (the ``with``/``for``/``if`` body or the kernel). A reserved
        block read back (block state RW) is copied the same way: those operations
        read the front of a DFB, where a reserved block is not.
        """
        if isinstance(expr, bx.Leaf) and expr.block.acquire != "reserve":
            return expr  # a waited block: read in place
        shape = bx.ExprLowering(self.emit, self.error, "bf16").shape_of(expr)
        if shape is None:
            self.fail(
                f"cannot infer the shape of the operand of {what}",
                node,
                "give the broadcast or fill in it an explicit shape=(rows, cols)",
            )
        if not self.model.options.compiler_dfbs:
            self.fail(
                f"the operand of {what} is an expression, which needs a compiler-made DFB, "
                "and --no-ttl-compiler-dfbs forbids them",
                node,
                "store the expression into a block of your own DFB and pass that block, or "
                "drop --no-ttl-compiler-dfbs",
            )
        line = getattr(node, "lineno", 0)
        dtype = self.accumulator_dtype(expr)
        dfb, ref = self._compiler_buffer(f"expr_{self.thread.name}_{line}", shape, dtype, node)
        dfb_name = dfb.name
        reserved = self.emit(d.ReserveOp(ref)).results[0]
        h = BlockHandle(reserved, dfb, "reserve", node, self.loop_depth, dfb_name)
        h.accumulator = True  # operands of any dtype (unpacked to DST), as accumulators
        self.store_expr(h, expr, False, node)
        self.emit(d.PushOp(reserved))
        waited = self.emit(d.WaitOp(ref)).results[0]
        waited.name_hint = dfb_name
        back = BlockHandle(waited, dfb, "wait", node, self.loop_depth, dfb_name, accumulator=True)
        self.materialized[-1].append(back)
        return bx.Leaf(expr.node, back)

    def pop_materialized(self, scope: list[BlockHandle]) -> None:
        """At the end of a statement list: pop the blocks materialized in it."""
        for h in scope:
            self.emit(d.PopOp(h.value))
            h.released_line = getattr(self.stmt, "end_lineno", None) or 0

    def release_accumulators(self) -> None:
        """At the kernel's end: push, wait and pop each accumulator block."""
        for h in self.accumulators.values():
            self.emit(d.PushOp(h.value))
            back = self.emit(d.WaitOp(self.ref(h.dfb, self.thread.def_node))).results[0]
            self.emit(d.PopOp(back))

    def augmented_block(self, node: ast.AugAssign, current: Any, rhs: Any) -> bool:
        """``name op= rhs`` on blocks; False when neither side is a block."""
        blockish = (BlockHandle, bx.Expr)
        if not isinstance(current, blockish) and not isinstance(rhs, blockish):
            return False
        assert isinstance(node.target, ast.Name)
        name = node.target.id
        symbol = _IN_PLACE.get(type(node.op))
        if not isinstance(current, blockish):
            self.fail(
                f"'{name}' is {self.describe(current)}, not a block: '{name} "
                f"{symbol or 'op='} ...' cannot add a block expression to it",
                node,
                f"initialise the accumulator with a block, e.g. {name} = ttl.math.fill(0.0, "
                "shape=(rows, cols)) before the loop",
            )
        if symbol is None:
            self.fail(
                f"'{type(node.op).__name__}' in-place operator is not supported on blocks",
                node,
                "update blocks with += -= *= /=, e.g. acc += a @ b",
            )
        if isinstance(current, bx.Expr):  # not an accumulator here: rebind
            self.bind(name, self.binop(node.op, current, rhs, node))
            return True
        h = current
        self.check_live(h, node)
        if h.acquire != "reserve":
            self.fail(
                f"cannot update {h.describe()} in place: it was acquired with wait() and is "
                f"read-only (block state MR, Must be Read: wait() -> {symbol} is not a "
                "transition)",
                node,
                f"accumulate into a block of its own: acc = {name}, then acc {symbol} ...",
            )
        if not h.stored:
            self.fail(
                f"{h.describe()} is updated with '{symbol}' before it is written (block state "
                f"MW, Must be Written: reserve() -> {symbol} is not a transition)",
                node,
                f"store an initial value first, e.g. {name}.store(ttl.math.fill(0.0, "
                f"shape={bx._fmt(h.dfb.shape)}))",
            )
        if isinstance(rhs, blockish):
            other = self.block_operand(rhs, node.value)
            shape = bx.ExprLowering(self.emit, self.error, h.dfb.dtype).shape_of(other)
            if shape is not None and shape != h.dfb.shape:
                self.fail(
                    f"'{name} {symbol} ...' updates a {bx._fmt(h.dfb.shape)} block with a "
                    f"{bx._fmt(shape)} expression",
                    node,
                    "use an expression of the accumulator's shape (reduce or broadcast it)",
                )
            if isinstance(node.op, ast.Add):  # packer L1 accumulation
                self.store_expr(h, other, True, node)
                return True
        expr = self.binop(node.op, h, rhs, node)
        self.store_expr(h, self.block_operand(expr, node), False, node)
        return True
