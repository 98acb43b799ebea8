"""Lowering of ``ttl.store`` (a block-expression DAG) to compute-API tile code.

A multi-tile store becomes a loop over output tiles. Each tile's expression is
evaluated in DST registers: a Sethi-Ullman style count gives the registers one
tile needs, and tiles are processed in chunks that fit the target's DST
capacity (per data type), between ``tile_regs_acquire`` and ``pack_tile``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.ir import SSAValue

from ttl.compiler import dialect as d
from ttl.compiler.analysis.store_plan import (
    StorePlan,
    fpu_binary,
    reduces_within_tiles,
)
from ttl.compiler.emit.unary_api import emit_unary, float_bits

_BINARY_FN_API = {
    d.BinaryFnEnum.MAX: "binary_max_tile",
    d.BinaryFnEnum.MIN: "binary_min_tile",
    d.BinaryFnEnum.MOD: "remainder_binary_tile",
}
#: TT-Metal's DataFormat of DST tiles computed from blocks of each dtype.
_DST_FORMAT = {"bf16": "Float16_b", "bfp8": "Float16_b", "f32": "Float32"}
_COMPARE_ZERO = {
    d.BinaryFnEnum.GT: "gtz",
    d.BinaryFnEnum.LT: "ltz",
    d.BinaryFnEnum.GE: "gez",
    d.BinaryFnEnum.LE: "lez",
    d.BinaryFnEnum.EQ: "eqz",
    d.BinaryFnEnum.NE: "nez",
}
_BCAST_KIND = {(False, True): "COL", (True, False): "ROW", (True, True): "SCALAR"}


def _strides(shape: tuple[int, ...]) -> list[int]:
    strides, acc = [], 1
    for s in reversed(shape):
        strides.append(acc)
        acc *= s
    return list(reversed(strides))


def _coord(t: str, shape: tuple[int, ...], dim: int) -> str:
    """C++ for coordinate ``dim`` of row-major linear index ``t`` in ``shape``."""
    stride = _strides(shape)[dim]
    expr = t if stride == 1 else f"{t} / {stride}"
    return expr if dim == 0 else f"{_paren(expr)} % {shape[dim]}"


def _linear(terms: list[tuple[str, int]]) -> str:
    parts = [c if s == 1 else f"{_paren(c)} * {s}" for c, s in terms]
    return " + ".join(parts) if parts else "0"


def _paren(expr: str) -> str:
    return expr if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+", expr) else f"({expr})"


@dataclass
class Step:
    """One tile op of a tile's chain: its init calls, its calls, its teardown calls.

    Scheduled by kind, a step becomes one loop over the chunk's tiles with the
    init calls hoisted before it and the teardown after it, as TT-Metal kernels
    configure an op once and then call it per tile.
    """

    init: list[str] = field(default_factory=list)
    body: list[str] = field(default_factory=list)
    fini: list[str] = field(default_factory=list)


class TileCodegen:
    """Emits the DST code computing one output tile of a store.

    Lines go straight to ``line``, or, inside :meth:`record`, into a list of
    :class:`Step` (one per tile op) for ``emit_store`` to schedule by kind.
    """

    def __init__(
        self,
        line: Callable[[str], None],
        cb_of: Callable[[SSAValue], str],
        cb_out: str,
        fpu: bool = True,
        reconfig: bool = False,
    ):
        self._emit = line
        self.cb_of = cb_of
        self.cb_out = cb_out
        self.fpu = fpu  # ttl.CompilerOptions.enable_fpu_binary_ops
        # The kernel's CBs hold more than one data format: each unpacking op first
        # points the unpacker at its CBs' formats (TT-Metal's reconfig_data_format).
        self.reconfig = reconfig
        self._steps: list[Step] | None = None
        self.slot_stride = 1  # registers between a tile's register k and k + 1

    def record(self, value: SSAValue, t: str, base: str) -> list[Step]:
        """The steps computing tile ``t`` of ``value`` into DST[base], in order."""
        self._steps = [Step()]
        try:
            self.gen(value, t, base, 0)
            return [s for s in self._steps if s.init or s.body or s.fini]
        finally:
            self._steps = None

    def _current(self, starts_new: bool) -> Step:
        assert self._steps is not None
        if starts_new:
            self._steps.append(Step())
        return self._steps[-1]

    def init(self, text: str) -> None:
        """An op's init call: begins the op's step."""
        if self._steps is None:
            self._emit(text)
            return
        last = self._steps[-1]
        self._current(bool(last.body or last.fini)).init.append(text)

    def line(self, text: str) -> None:
        """A call of the current op (or a loop line around its calls)."""
        if self._steps is None:
            self._emit(text)
            return
        self._current(bool(self._steps[-1].fini)).body.append(text)

    def uninit(self, text: str) -> None:
        """The current op's teardown call: ends its step."""
        if self._steps is None:
            self._emit(text)
            return
        self._steps[-1].fini.append(text)

    def unpack_from(self, srca: str, srcb: str | None = None, reverse: bool = False) -> None:
        """Before an op that unpacks CB ``srca`` (and ``srcb``): the unpacker's formats,
        in a kernel whose CBs differ in format (``reverse``: srcA reads ``srcb``, as
        matmul's operands go)."""
        if self.reconfig:
            self.init(_reconfig(srca, srcb, reverse))

    def step(self) -> None:
        """Ends the current step: what follows needs its own per-tile loop."""
        if self._steps is not None:
            self._steps.append(Step())

    def dst(self, base: str, k: int) -> str:
        """Register ``k`` of the tile whose first register is ``base``: ``k`` registers
        on (interleaved: ``slot_stride`` 1), or ``k`` slots of a chunk's tiles on."""
        offset = k * self.slot_stride
        if base == "0":
            return str(offset)
        return base if k == 0 else f"{base} + {offset}"

    def gen(self, value: SSAValue, t: str, base: str, k: int) -> None:
        """Compute tile ``t`` of ``value`` into DST[base + k]."""
        op = value.owner
        dst = self.dst(base, k)
        if isinstance(op, d.ReadOp):
            cb = self.cb_of(op.block)
            self.unpack_from(cb)
            self.init(f"copy_init({cb});")
            # (a reserved block read back is at the front for this store: op_StoreOp)
            self.line(f"copy_tile({cb}, {t}, {dst});")
        elif isinstance(op, d.FillOp):
            self.init("fill_tile_init();")
            self.line(f"fill_tile_bitcast({dst}, {float_bits(op.value.value.data)});")
        elif isinstance(op, d.AddOp | d.SubOp | d.MulOp | d.DivOp):
            name = op.name.split(".")[1]
            if fpu_binary(op, self.fpu):  # both operands are ttl.read results
                a, b = self.cb_of(op.lhs.owner.block), self.cb_of(op.rhs.owner.block)  # type: ignore[union-attr]
                self.unpack_from(a, b)
                self.init(f"{name}_init({a}, {b}, false);")
                self.line(f"{name}_tiles({a}, {b}, {t}, {t}, {dst});")
            else:
                self.gen(op.lhs, t, base, k)
                self.gen(op.rhs, t, base, k + 1)
                self.init(f"{name}_binary_tile_init();")
                self.line(f"{name}_binary_tile({dst}, {self.dst(base, k + 1)}, {dst});")
        elif isinstance(op, d.BinaryFnOp):
            self.gen(op.lhs, t, base, k)
            self.gen(op.rhs, t, base, k + 1)
            if op.fn.data is d.BinaryFnEnum.FLOORDIV:
                self._floor_div(dst, self.dst(base, k + 1), self.dst(base, k + 2))
            else:
                self._binary_fn(op.fn.data, dst, self.dst(base, k + 1))
        elif isinstance(op, d.ScalarOp):
            self.gen(op.operand, t, base, k)
            self._scalar(op.fn.data, dst, op.value.value.data)
        elif isinstance(op, d.UnaryOp):
            self.gen(op.operand, t, base, k)
            init, call = emit_unary(op, dst)  # e.g. exp_tile_init(); exp_tile(dst);
            self.init(init)
            self.line(call)
        elif isinstance(op, d.BroadcastOp):
            self._broadcast(op, t, dst)
        elif isinstance(op, d.MatmulOp):
            self._matmul(op, t, dst)
        elif isinstance(op, d.ReduceOp):
            self._reduce(op, t, dst, self.dst(base, k + 1))
        elif isinstance(op, d.TransposeOp):
            self._transpose(op, t, dst)
        elif isinstance(op, d.WhereOp):
            self.gen(op.condition, t, base, k)
            self.gen(op.true_value, t, base, k + 1)
            self.gen(op.false_value, t, base, k + 2)
            self.init("where_tile_init();")
            fmt = _DST_FORMAT[op.result.type.dtype]
            self.line(
                f"where_tile<DataFormat::{fmt}>({dst}, {self.dst(base, k + 1)}, "
                f"{self.dst(base, k + 2)}, {dst});"
            )
        elif isinstance(op, d.MaskOp):
            self.gen(op.operand, t, base, k)
            self.gen(op.mask, t, base, k + 1)
            self.init("mask_tile_init();")
            fn = "mask_posinf_tile" if op.posinf is not None else "mask_tile"
            self.line(f"{fn}({dst}, {self.dst(base, k + 1)});")
        else:
            raise TypeError(f"unexpected op in a block expression: {op}")

    def _binary_fn(self, fn: d.BinaryFnEnum, dst: str, other: str) -> None:
        """DST[dst] = fn(DST[dst], DST[other]) with TT-Metal's SFPU binary calls."""
        compare = _COMPARE_ZERO.get(fn)
        if compare is not None:  # TT-Metal compares floats as (a - b) against zero
            self.init("sub_binary_tile_init();")
            self.line(f"sub_binary_tile({dst}, {other}, {dst});")
            self.init(f"{compare}_tile_init();")
            self.line(f"{compare}_tile({dst});")
            return
        name = _BINARY_FN_API[fn]
        self.init(f"{name}_init();")
        self.line(f"{name}({dst}, {other}, {dst});")

    def _floor_div(self, dst: str, other: str, remainder: str) -> None:
        """DST[dst] = DST[dst] // DST[other] (Python's), DST[remainder] a scratch register.

        TT-Metal has no float floor division, and floor(a / b) is wrong where the
        quotient, rounded to DST's format, reaches the integer above it. Instead
        ``round((a - a % b) / b)``: ``a - a % b`` is a multiple of ``b``, so the
        rounding errors only move the quotient away from an integer, never across.
        """
        self.init("remainder_binary_tile_init();")
        self.line(f"remainder_binary_tile({dst}, {other}, {remainder});")
        self.init("sub_binary_tile_init();")
        self.line(f"sub_binary_tile({dst}, {remainder}, {dst});")
        self.init("div_binary_tile_init();")
        self.line(f"div_binary_tile({dst}, {other}, {dst});")
        self.init("rounding_op_tile_init();")
        self.line(f"round_tile({dst}, 0);")

    def _scalar(self, fn: d.ScalarFnEnum, dst: str, value: float) -> None:
        """DST[dst] = DST[dst] op value (TT-Metal's ``*_unary_tile`` scalar ops)."""
        if fn is d.ScalarFnEnum.RDIV:  # value / x = value * recip(x)
            self.init("recip_tile_init();")
            self.line(f"recip_tile({dst});")
            fn = d.ScalarFnEnum.MUL
        self.init("binop_with_scalar_tile_init();")
        self.line(f"{fn.value}_unary_tile({dst}, {float_bits(value)});  // {value!r}")

    def _broadcast(self, op: d.BroadcastOp, t: str, dst: str) -> None:
        out = op.result.type.dims
        # (ignores: xDSL types operand_def fields as SSAValue[Attribute], the verifier
        # checked TilesType; the frontend gives a broadcast a ttl.read operand.)
        src = op.operand.type.dims  # type: ignore[attr-defined]
        bdims = set(op.normalized_dims)
        rank = len(out)
        src_strides = _strides(src)
        index = _linear(
            [
                (_coord(t, out, i), src_strides[i])
                for i in range(rank)
                if i not in bdims and src[i] > 1
            ]
        )
        cb = self.cb_of(op.operand.owner.block)  # type: ignore[union-attr]
        kind = _BCAST_KIND.get((rank - 2 in bdims, rank - 1 in bdims))
        self.unpack_from(cb)
        if kind is None:  # only outer dims: whole tiles repeat
            self.init(f"copy_init({cb});")
            self.line(f"copy_tile({cb}, {index}, {dst});")
            return
        self.init(f"unary_bcast_init<BroadcastType::{kind}>({cb});")
        self.line(f"unary_bcast<BroadcastType::{kind}>({cb}, {index}, {dst});")

    def _matmul(self, op: d.MatmulOp, t: str, dst: str) -> None:
        # (ignores: as in _broadcast; matmul operands are ttl.read results.)
        a_dims, b_dims = op.lhs.type.dims, op.rhs.type.dims  # type: ignore[attr-defined]
        (m, kk), n = a_dims[-2:], b_dims[-1]
        batch = 1
        for x in a_dims[:-2]:
            batch *= x
        a, b = self.cb_of(op.lhs.owner.block), self.cb_of(op.rhs.owner.block)  # type: ignore[union-attr]
        # Batched: output tile t of (batch.., m, n) is batch t / (m * n) of 2-D products.
        per = m * n
        bi = "0" if batch == 1 else (t if per == 1 else f"{t} / {per}")
        rt = t if batch == 1 or per == 1 else f"{t} % {per}"
        if batch > 1 and per == 1:
            rt = "0"
        row = "0" if m == 1 else (rt if n == 1 else f"{_paren(rt)} / {n}")
        col = "0" if n == 1 else (rt if m == 1 else f"{_paren(rt)} % {n}")
        self.init("fill_tile_init();")
        self.line(f"fill_tile_bitcast({dst}, 0x00000000u);  // matmul_tiles accumulates")
        self.unpack_from(a, b, reverse=True)
        self.init(f"matmul_init({a}, {b});")
        a_base = [(bi, m * kk)] if bi != "0" else []
        b_base = [(bi, kk * n)] if bi != "0" else []
        if row != "0":
            a_base.append((row, kk))
        if col != "0":
            b_base.append((col, 1))
        if kk == 1:
            self.line(f"matmul_tiles({a}, {b}, {_linear(a_base)}, {_linear(b_base)}, {dst});")
            return
        a_idx = _linear([*a_base, ("k", 1)])
        b_idx = _linear(
            [*b_base[:-1], ("k", n), *b_base[-1:]] if col != "0" else [*b_base, ("k", n)]
        )
        self.line(f"for (uint32_t k = 0; k < {kk}; ++k) {{")
        self.line(f"  matmul_tiles({a}, {b}, {a_idx}, {b_idx}, {dst});")
        self.line("}")

    def _reduce(self, op: d.ReduceOp, t: str, dst: str, other: str) -> None:
        """TT-Metal's reduce_tile over every input tile that reduces into output tile ``t``."""
        # (ignores: as in _broadcast; a reduction's operand is a ttl.read result, and so is
        # its scaler within tiles: ttl-materialize-scalers read the ones a program omits.)
        out, src = op.result.type.dims, op.operand.type.dims  # type: ignore[attr-defined]
        rank, reduced = len(out), set(op.normalized_dims)
        strides = _strides(src)
        terms, loops = [], []
        for i in range(rank):
            if i in reduced:
                if src[i] > 1:
                    loops.append((f"r{i}", src[i]))
                    terms.append((f"r{i}", strides[i]))
            elif out[i] > 1:
                terms.append((_coord(t, out, i), strides[i]))
        cb = self.cb_of(op.operand.owner.block)  # type: ignore[union-attr]
        scaler = op.scaler.owner
        pool = "MAX" if op.kind.data is d.ReduceKindEnum.MAX else "SUM"
        if not reduces_within_tiles(op):
            # Whole tiles combined: a ttl.fill 1.0 scaler (the program gave none) is no-op.
            cb_s = self.cb_of(scaler.block) if isinstance(scaler, d.ReadOp) else None
            self._reduce_tiles(pool, cb, cb_s, terms, loops, dst, other)
            return
        assert isinstance(scaler, d.ReadOp), "ttl-materialize-scalers reads every scaler"
        cb_s = self.cb_of(scaler.block)
        row, col = rank - 1 in reduced, rank - 2 in reduced
        mode = "REDUCE_SCALAR" if row and col else ("REDUCE_ROW" if row else "REDUCE_COL")
        tmpl = f"<PoolType::{pool}, ReduceDim::{mode}>"
        start = float_bits(float("-inf") if pool == "MAX" else 0.0)
        self.init("fill_tile_init();")
        self.line(f"fill_tile_bitcast({dst}, {start});  // reduce_tile accumulates")
        self.unpack_from(cb, cb_s)
        self.init(f"reduce_init{tmpl}({cb}, {cb_s}, {self.cb_out});")
        pad = ""
        for var, n in loops:
            self.line(f"{pad}for (uint32_t {var} = 0; {var} < {n}; ++{var}) {{")
            pad += "  "
        self.line(f"{pad}reduce_tile{tmpl}({cb}, {cb_s}, {_linear(terms)}, 0, {dst});")
        for _ in loops:
            pad = pad[:-2]
            self.line(f"{pad}}}")
        self.uninit("reduce_uninit();")

    def _reduce_tiles(
        self,
        pool: str,
        cb: str,
        cb_s: str | None,
        terms: list[tuple[str, int]],
        loops: list[tuple[str, int]],
        dst: str,
        other: str,
    ) -> None:
        """A reduction over outer dims only: whole tiles combined element-wise in DST
        (each tile copied, or times the scaler tile ``cb_s``, into register ``other``
        first)."""
        start = float_bits(float("-inf") if pool == "MAX" else 0.0)
        combine = "binary_max_tile" if pool == "MAX" else "add_binary_tile"
        self.init("fill_tile_init();")
        self.line(f"fill_tile_bitcast({dst}, {start});")
        self.step()  # the loop re-initialises per call: nothing to hoist
        pad = ""
        for var, n in loops:
            self.line(f"{pad}for (uint32_t {var} = 0; {var} < {n}; ++{var}) {{")
            pad += "  "
        index = _linear(terms)
        if self.reconfig:
            self.line(pad + _reconfig(cb, cb_s))
        if cb_s is None:
            self.line(f"{pad}copy_init({cb});")
            self.line(f"{pad}copy_tile({cb}, {index}, {other});")
        else:  # each element times the scaler tile's
            self.line(f"{pad}mul_init({cb}, {cb_s}, false);")
            self.line(f"{pad}mul_tiles({cb}, {cb_s}, {index}, 0, {other});")
        self.line(f"{pad}{combine}_init();")
        self.line(f"{pad}{combine}({dst}, {other}, {dst});")
        for _ in loops:
            pad = pad[:-2]
            self.line(f"{pad}}}")

    def _transpose(self, op: d.TransposeOp, t: str, dst: str) -> None:
        """transpose_tile of the source tile at the transposed position of tile ``t``."""
        rows, cols = op.result.type.dims
        cb = self.cb_of(op.operand.owner.block)  # type: ignore[union-attr]
        # Result tile (r, c) of the (rows, cols) result is source tile (c, r) of (cols, rows).
        terms = []
        if rows > 1:
            terms.append((_coord(t, (rows, cols), 0), 1))
        if cols > 1:
            terms.append((_coord(t, (rows, cols), 1), rows))
        self.unpack_from(cb)
        self.init(f"transpose_init({cb});")
        self.line(f"transpose_tile({cb}, {_linear(terms)}, {dst});")


def _reconfig(srca: str, srcb: str | None = None, reverse: bool = False) -> str:
    """TT-Metal's call pointing the unpacker at CB ``srca`` (and ``srcb``)'s formats
    (``reverse``: srcA reads ``srcb``, as matmul's operands go)."""
    if srcb is None:
        return f"reconfig_data_format_srca({srca});"
    order = "<SrcOrder::Reverse>" if reverse else ""
    return f"reconfig_data_format{order}({srca}, {srcb});"


def emit_store(
    store: d.StoreOp,
    plan: StorePlan,
    line: Callable[[str], None],
    indent: Callable[[int], None],
    cb_of: Callable[[SSAValue], str],
    schedule_by_kind: bool = True,
    reconfig: bool = False,
) -> None:
    """Emit the chunked DST loop for ``store`` (see the module docstring).

    ``schedule_by_kind`` (upstream tt-lang's ``maximize_dst`` scheduling): a
    chunk of several tiles runs each tile op as its own loop over the chunk's
    tiles (all copies, then all broadcasts, ...) instead of one loop doing the
    whole chain per tile. Legal because each tile's chain reads only L1 and
    its own DST registers; same-kind calls back to back are what hardware
    pipelines (and the emulator vectorizes). Registers are then slot-major:
    tile i's register k is ``i + k * chunk``, so each loop walks consecutive
    registers (interleaved, it is ``i * regs + k``).
    """
    cb_out = cb_of(store.block)
    gen = TileCodegen(line, cb_of, cb_out, plan.fpu, reconfig)
    tiles, chunk, regs = plan.tiles, plan.chunk, plan.regs
    by_kind = schedule_by_kind and chunk > 1
    if by_kind:
        gen.slot_stride = chunk

    def base_of(i: str) -> str:
        return "0" if i == "0" else (i if regs == 1 or by_kind else f"{i} * {regs}")

    if tiles == 1:
        t0, i = "0", "0"
    elif chunk == 1:
        t0, i = "t", "0"
        line(f"for (uint32_t t = 0; t < {tiles}; ++t) {{")
        indent(1)
    else:
        t0, i = "t0", "i"
        if chunk < tiles:
            line(f"for (uint32_t t0 = 0; t0 < {tiles}; t0 += {chunk}) {{")
            indent(1)
        else:
            t0 = "0"
    line("tile_regs_acquire();")
    if i == "i":
        t = "i" if t0 == "0" else "t"
        steps = gen.record(store.value, t, base_of("i"))
        if not by_kind:  # the whole chain per tile, in one loop
            steps = [Step(body=[text for s in steps for text in s.init + s.body + s.fini])]
        for step in steps:
            _emit_tile_loop(step, chunk, t, line, indent)
    else:
        gen.gen(store.value, t0, "0", 0)
    line("tile_regs_commit();")
    line("tile_regs_wait();")
    if reconfig:
        line(f"pack_reconfig_data_format({cb_out});")
    if store.acc.value.data:
        line("pack_reconfig_l1_acc(1);  // packer L1 accumulation: add to the block's tiles")
    if i == "i":
        out_t = "i" if t0 == "0" else "t0 + i"
        line(f"for (uint32_t i = 0; i < {chunk}; ++i) {{")
        line(f"  pack_tile({base_of('i')}, {cb_out}, {out_t});")
        line("}")
    else:
        line(f"pack_tile(0, {cb_out}, {t0});")
    if store.acc.value.data:
        line("pack_reconfig_l1_acc(0);")
    line("tile_regs_release();")
    if t0 in ("t", "t0") and (chunk == 1 or chunk < tiles):
        indent(-1)
        line("}")


def _emit_tile_loop(
    step: Step, chunk: int, t: str, line: Callable[[str], None], indent: Callable[[int], None]
) -> None:
    """``step`` for each tile ``i`` of a chunk; its init and teardown calls outside the loop."""
    for text in step.init:
        line(text)
    line(f"for (uint32_t i = 0; i < {chunk}; ++i) {{")
    indent(1)
    if t == "t" and any(re.search(r"\bt\b", text) for text in step.body):
        line("const uint32_t t = t0 + i;")
    for text in step.body:
        line(text)
    indent(-1)
    line("}")
    for text in step.fini:
        line(text)
