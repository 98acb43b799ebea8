"""Lowering of ``ttl.store`` (a block-expression DAG) to compute-API tile code.

A multi-tile store becomes a loop over output tiles. Each tile's expression is
evaluated in DST registers: a Sethi-Ullman style count gives the registers one
tile needs, and tiles are processed in chunks that fit the target's DST
capacity (per data type), between ``tile_regs_acquire`` and ``pack_tile``.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable

from xdsl.ir import SSAValue

from ttl.compiler import dialect as d
from ttl.compiler.analysis.store_plan import StorePlan, fpu_binary

# Kernel-API spelling of the unary functions.
UNARY_API = {fn: fn.value for fn in d.UnaryFnEnum} | {d.UnaryFnEnum.NEG: "negative"}
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


def float_bits(value: float) -> str:
    """A float's binary32 bit pattern as a C++ literal."""
    return f"0x{struct.unpack('<I', struct.pack('<f', value))[0]:08x}u"


class TileCodegen:
    """Emits the DST code computing one output tile of a store."""

    def __init__(self, line: Callable[[str], None], cb_of: Callable[[SSAValue], str], cb_out: str):
        self.line = line
        self.cb_of = cb_of
        self.cb_out = cb_out

    def dst(self, base: str, k: int) -> str:
        if base == "0":
            return str(k)
        return base if k == 0 else f"{base} + {k}"

    def gen(self, value: SSAValue, t: str, base: str, k: int) -> None:
        """Compute tile ``t`` of ``value`` into DST[base + k]."""
        op = value.owner
        dst = self.dst(base, k)
        if isinstance(op, d.ReadOp):
            cb = self.cb_of(op.block)
            self.line(f"copy_tile_init({cb});")
            self.line(f"copy_tile({cb}, {t}, {dst});")
        elif isinstance(op, d.FillOp):
            self.line("fill_tile_init();")
            self.line(f"fill_tile_bitcast({dst}, {float_bits(op.value.value.data)});")
        elif isinstance(op, d.AddOp | d.SubOp | d.MulOp | d.DivOp):
            name = op.name.split(".")[1]
            if fpu_binary(op):  # both operands are ttl.read results
                a, b = self.cb_of(op.lhs.owner.block), self.cb_of(op.rhs.owner.block)  # type: ignore[union-attr]
                self.line(f"{name}_tiles_init({a}, {b});")
                self.line(f"{name}_tiles({a}, {b}, {t}, {t}, {dst});")
            else:
                self.gen(op.lhs, t, base, k)
                self.gen(op.rhs, t, base, k + 1)
                self.line(f"{name}_binary_tile_init();")
                self.line(f"{name}_binary_tile({dst}, {self.dst(base, k + 1)}, {dst});")
        elif isinstance(op, d.UnaryOp):
            self.gen(op.operand, t, base, k)
            fn = UNARY_API[op.fn.data]
            self.line(f"{fn}_tile_init();")
            self.line(f"{fn}_tile({dst});")
        elif isinstance(op, d.BroadcastOp):
            self._broadcast(op, t, dst)
        elif isinstance(op, d.MatmulOp):
            self._matmul(op, t, dst)
        else:
            raise TypeError(f"unexpected op in a block expression: {op}")

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
        if kind is None:  # only outer dims: whole tiles repeat
            self.line(f"copy_tile_init({cb});")
            self.line(f"copy_tile({cb}, {index}, {dst});")
            return
        self.line(f"unary_bcast_init({cb}, BroadcastType::{kind});")
        self.line(f"unary_bcast({cb}, {index}, {dst}, BroadcastType::{kind});")

    def _matmul(self, op: d.MatmulOp, t: str, dst: str) -> None:
        # (ignores: as in _broadcast; matmul operands are ttl.read results.)
        (m, kk), (_, n) = op.lhs.type.dims, op.rhs.type.dims  # type: ignore[attr-defined]
        a, b = self.cb_of(op.lhs.owner.block), self.cb_of(op.rhs.owner.block)  # type: ignore[union-attr]
        row = "0" if m == 1 else (t if n == 1 else f"{t} / {n}")
        col = "0" if n == 1 else (t if m == 1 else f"{t} % {n}")
        self.line("fill_tile_init();")
        self.line(f"fill_tile_bitcast({dst}, 0x00000000u);  // matmul_tiles accumulates")
        self.line(f"mm_init({a}, {b}, {self.cb_out});")
        if kk == 1:
            self.line(f"matmul_tiles({a}, {b}, {_linear([(row, 1)])}, {col}, {dst});")
            return
        a_idx = _linear([(row, kk), ("k", 1)]) if row != "0" else "k"
        b_idx = _linear([("k", n), (col, 1)]) if col != "0" else _linear([("k", n)])
        self.line(f"for (uint32_t k = 0; k < {kk}; ++k) {{")
        self.line(f"  matmul_tiles({a}, {b}, {a_idx}, {b_idx}, {dst});")
        self.line("}")


def emit_store(
    store: d.StoreOp,
    plan: StorePlan,
    line: Callable[[str], None],
    indent: Callable[[int], None],
    cb_of: Callable[[SSAValue], str],
) -> None:
    """Emit the chunked DST loop for ``store`` (see the module docstring)."""
    cb_out = cb_of(store.block)
    gen = TileCodegen(line, cb_of, cb_out)
    tiles, chunk, regs = plan.tiles, plan.chunk, plan.regs

    def base_of(i: str) -> str:
        return "0" if i == "0" else (i if regs == 1 else f"{i} * {regs}")

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
        line(f"for (uint32_t i = 0; i < {chunk}; ++i) {{")
        indent(1)
        t = "i" if t0 == "0" else "t"
        if t == "t":
            line("const uint32_t t = t0 + i;")
        gen.gen(store.value, t, base_of("i"), 0)
        indent(-1)
        line("}")
    else:
        gen.gen(store.value, t0, "0", 0)
    line("tile_regs_commit();")
    line("tile_regs_wait();")
    if store.acc.value.data:
        line("pack_reconfig_l1_acc(1);  // store(acc=True): add to the block's tiles")
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
