"""The modelled tile coprocessor: DST registers and NumPy tile math.

The compute kernel's API calls append 8-word commands to the hart's queue
(memmap.COP_QUEUE_BASE); the emulator executes the queue whenever the hart
stops (before any other hart runs) or flushes a full queue. Word 7 of every
command is the return address of the API call, so errors name the kernel's
source line.

Numerics (docs/runtime.md): operands are unpacked exactly to fp32 and math runs
in fp32. In fp32 DST mode (``fp32_dest_acc_en``) results stay fp32 in DST; in
16-bit mode every result written to DST rounds to bf16 (nearest-even), as the
hardware's 16-bit DST holds it. Pack rounds to nearest-even for bf16 (exact for
fp32). Tiles stay in TT face layout in DST; only matmul and broadcast reorder.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np

from ttl.runtime import memmap, unary_math
from ttl.runtime.errors import DeviceFault
from ttl.runtime.tiles import (
    BF16,
    F32,
    FACES_FROM_ROWMAJOR,
    ROWMAJOR_FROM_FACES,
    TILE,
    TILE_ELEMS,
)

_BINARY = {
    memmap.BINOP_ADD: np.add,
    memmap.BINOP_SUB: np.subtract,
    memmap.BINOP_MUL: np.multiply,
    memmap.BINOP_DIV: np.divide,
    memmap.BINOP_MAX: np.maximum,
    memmap.BINOP_MIN: np.minimum,
    memmap.BINOP_MOD: np.mod,  # Python floor modulo (sign of the divisor)
    memmap.BINOP_FLOORDIV: np.floor_divide,
}

# Scalar operations (COP_SCALAR): DST = f(DST, value).
_SCALAR = {
    memmap.BINOP_ADD: np.add,
    memmap.BINOP_SUB: np.subtract,
    memmap.BINOP_MUL: np.multiply,
    memmap.BINOP_DIV: np.divide,
    memmap.BINOP_RSUB: lambda x, v, out: np.subtract(v, x, out=out),
}

# Comparisons with zero (COP_COMPARE_ZERO): DST = 1.0 where they hold, else 0.0.
_COMPARE_ZERO = {
    memmap.CMPZ_GT: np.greater,
    memmap.CMPZ_LT: np.less,
    memmap.CMPZ_GE: np.greater_equal,
    memmap.CMPZ_LE: np.less_equal,
    memmap.CMPZ_EQ: np.equal,
    memmap.CMPZ_NE: np.not_equal,
}


def _sigmoid(x):
    return (1.0 / (1.0 + np.exp(-x))).astype(np.float32)


_UNARY = {
    memmap.UNOP_EXP: np.exp,
    memmap.UNOP_LOG: np.log,
    memmap.UNOP_SQRT: np.sqrt,
    memmap.UNOP_RSQRT: lambda x: 1.0 / np.sqrt(x),
    memmap.UNOP_RECIP: lambda x: 1.0 / x,
    memmap.UNOP_RELU: lambda x: np.maximum(x, 0),
    memmap.UNOP_SIGMOID: _sigmoid,
    memmap.UNOP_TANH: np.tanh,
    memmap.UNOP_ABS: np.abs,
    memmap.UNOP_NEGATIVE: np.negative,
    **unary_math.UNARY,
}

BCAST_NONE, BCAST_ROW, BCAST_COL, BCAST_SCALAR = range(4)
_WORDS = memmap.COP_CMD_WORDS

# reduce_tile modes: PoolType in bits 0..3, ReduceDim above (kernel_api.h).
POOL_SUM, POOL_AVG, POOL_MAX = range(3)
REDUCE_ROW, REDUCE_COL, REDUCE_SCALAR = range(3)
_FACE_GRID = (2, 2, TILE // 2, TILE // 2)
# ReduceDim -> (axes of the face grid reduced, where the result goes): row r's
# value to column 0, column c's to row 0, the scalar to element (0, 0).
_REDUCE_AXES: dict[int, tuple[tuple[int, ...], tuple]] = {
    REDUCE_ROW: ((1, 3), (slice(None), 0, slice(None), 0)),
    REDUCE_COL: ((0, 2), (0, slice(None), 0, slice(None))),
    REDUCE_SCALAR: ((0, 1, 2, 3), (0, 0, 0, 0)),
}
# Face-layout gather that transposes a face-layout tile.
_TRANSPOSE_FACES = ROWMAJOR_FROM_FACES[
    (FACES_FROM_ROWMAJOR % TILE) * TILE + FACES_FROM_ROWMAJOR // TILE
]


@dataclass(frozen=True)
class DstMode:
    """How a compute kernel's DST is configured (the manifest's ``compute_config``).

    The default, fp32 with 8 tiles (full sync), is what kernels launched without a
    manifest get.
    """

    fp32: bool = True
    tiles: int = 8

    @staticmethod
    def from_manifest(entry: dict | None) -> DstMode:
        """The mode of a manifest kernel entry's ``compute_config`` (None: the default)."""
        if entry is None:
            return DstMode()
        fp32, tiles = entry.get("fp32_dest_acc_en"), entry.get("dst_tiles")
        if not isinstance(fp32, bool) or not isinstance(tiles, int) or tiles <= 0:
            raise ValueError(f"compute_config {entry!r}: want fp32_dest_acc_en and dst_tiles")
        return DstMode(fp32, tiles)


def _round_to_bf16(reg: np.ndarray) -> None:
    """Rounds a DST register to bf16 in place (nearest-even): a 16-bit DST entry."""
    np.copyto(reg, reg.astype(BF16.dtype), casting="unsafe")


class Coprocessor:
    """DST register file of one compute hart plus the tile math that uses it.

    A command (its eight queue words) is validated and resolved once into a
    zero-argument callable with its tile views, registers and ufunc bound;
    DFB rings make kernels issue the same few commands over and over, so
    later occurrences cost a dictionary lookup and a call.

    The caller runs drains under ``np.errstate(all="ignore")``: inf/nan
    results are data, as on hardware.
    """

    MAX_COMPILED = 1 << 16  # resolved commands kept (the cache restarts when full)

    def __init__(self, l1: np.ndarray, dst_tiles: int):
        self.l1 = l1
        self.dst = np.zeros((dst_tiles, TILE_ELEMS), dtype=np.float32)
        self.mode = DstMode(fp32=True, tiles=min(DstMode().tiles, dst_tiles))
        self._regs = list(self.dst[: self.mode.tiles])  # row views: a list indexes faster
        self._wrote: list[np.ndarray] = []  # registers the command being resolved writes
        # Registers at or above the high-water mark have not been written since the
        # last reset, so they are still zero: acquire clears only the ones below it.
        self._written = self.dst[:0]
        self.commands = 0
        self._views: dict[tuple[int, int], np.ndarray] = {}
        self._compiled: dict[tuple[int, ...], Callable[[], object]] = {}
        # opcode -> resolver of the command's words into a callable (see _compile)
        self._compilers: dict[int, Callable[..., Callable[[], object]]] = {
            memmap.COP_ACQUIRE: self._acquire,
            memmap.COP_UNPACK: self._unpack,
            memmap.COP_BINARY: self._binary,
            memmap.COP_BINARY_DST: self._binary_dst,
            memmap.COP_MATMUL: self._matmul,
            memmap.COP_UNARY: self._unary,
            memmap.COP_UNARY_PARAM: self._unary_param,
            memmap.COP_FILL: self._fill,
            memmap.COP_BCAST: self._bcast,
            memmap.COP_PACK: self._pack,
            memmap.COP_REDUCE: self._reduce,
            memmap.COP_TRANSPOSE: self._transpose,
            memmap.COP_WHERE: self._where,
            memmap.COP_MASK: self._mask,
            memmap.COP_COMPARE_ZERO: self._compare_zero,
            memmap.COP_SCALAR: self._scalar,
        }

    def reset(self, mode: DstMode | None = None) -> None:
        """Clears DST and the statistics (a new launch), in DST ``mode`` (default: as is)."""
        self.dst.fill(0)
        self.commands = 0
        if mode is not None and mode != self.mode:
            if mode.tiles > len(self.dst):
                raise DeviceFault(
                    f"a DST of {mode.tiles} tiles does not fit: the node has {len(self.dst)}"
                )
            self.mode = mode
            self._regs = list(self.dst[: mode.tiles])
            self._compiled.clear()  # resolved commands depend on the mode

    def drain(self, queue) -> None:
        """Executes and empties the command queue mapped at ``queue`` (uint32 words)."""
        words = memmap.take_queue(
            queue, memmap.COP_HEADER_BYTES, _WORDS, memmap.COP_CAPACITY, "coprocessor"
        )
        self.commands += len(words) // _WORDS
        compiled = self._compiled
        for i in range(0, len(words), _WORDS):
            cmd = tuple(words[i : i + _WORDS])
            run = compiled.get(cmd)
            if run is None:
                run = self._compile(cmd)
            run()

    def _compile(self, cmd: tuple[int, ...]) -> Callable[[], object]:
        """Validates ``cmd`` and resolves it into a callable (cached); faults name its call site."""
        op, *args, ra = cmd
        make = self._compilers.get(op)
        self._wrote = []
        try:
            if make is None:
                raise DeviceFault(f"unknown coprocessor opcode {op}")
            run = make(*args)
        except DeviceFault as err:
            raise DeviceFault(str(err), ra=ra) from None
        if not self.mode.fp32 and self._wrote:
            run = _rounding(run, self._wrote)
        if len(self._compiled) >= self.MAX_COMPILED:
            self._compiled.clear()
        self._compiled[cmd] = run
        return run

    # ------------------------------------------------------------ operands
    def _reg(self, index: int) -> np.ndarray:
        """DST register ``index`` (a view) to read."""
        if index >= len(self._regs):
            raise DeviceFault(
                f"DST index {index} is out of range: DST holds {len(self._regs)} tiles"
            )
        return self._regs[index]

    def _out(self, index: int) -> np.ndarray:
        """DST register ``index`` (a view) to write: raises the high-water mark."""
        reg = self._reg(index)
        if index >= len(self._written):
            self._written = self.dst[: index + 1]
        self._wrote.append(reg)
        return reg

    def _tile_view(self, addr: int, fmt_code: int) -> np.ndarray:
        """The L1 bytes of the tile at ``addr`` viewed as its format's dtype."""
        view = self._views.get((addr, fmt_code))
        if view is None:
            fmt = _FORMATS.get(fmt_code)
            if fmt is None:
                raise DeviceFault(f"unsupported data format code {fmt_code} (use bf16 or f32)")
            dtype, nbytes = fmt
            if addr + nbytes > self.l1.size:
                raise DeviceFault(
                    f"tile [{addr:#x}, {addr + nbytes:#x}) is outside L1 ({self.l1.size:#x} B)"
                )
            view = self._views[addr, fmt_code] = self.l1[addr : addr + nbytes].view(dtype)
        return view

    def _rowmajor(self, view: np.ndarray) -> np.ndarray:
        return view.astype(np.float32)[ROWMAJOR_FROM_FACES].reshape(TILE, TILE)

    @staticmethod
    def _fn(table: dict, op: int, what: str):
        fn = table.get(op)
        if fn is None:
            raise DeviceFault(f"unknown {what} op {op}")
        return fn

    # ------------------------------------------------- ops (each returns a callable)
    def _acquire(self, *_):
        # DST is zero in every acquire/release section (the hardware packer clears
        # it on release).
        return lambda: self._written.fill(0)

    def _unpack(self, addr, fmt, dst, *_):
        return partial(np.copyto, self._out(dst), self._tile_view(addr, fmt), casting="unsafe")

    def _binary(self, op, addr_a, fmt_a, addr_b, fmt_b, dst):
        # dtype=float32 makes the ufunc widen bf16 operands itself (exactly),
        # cheaper than converting each operand first.
        return partial(
            self._fn(_BINARY, op, "binary"),
            self._tile_view(addr_a, fmt_a),
            self._tile_view(addr_b, fmt_b),
            out=self._out(dst),
            dtype=np.float32,
        )

    def _binary_dst(self, op, a, b, out, *_):
        return partial(
            self._fn(_BINARY, op, "binary"), self._reg(a), self._reg(b), out=self._out(out)
        )

    def _matmul(self, addr_a, fmt_a, addr_b, fmt_b, dst, *_):
        a, b = self._tile_view(addr_a, fmt_a), self._tile_view(addr_b, fmt_b)
        reg = self._out(dst)

        def matmul():
            prod = self._rowmajor(a) @ self._rowmajor(b)
            reg[:] += prod.reshape(-1)[FACES_FROM_ROWMAJOR]

        return matmul

    def _unary(self, op, dst, *_):
        fn, reg = self._fn(_UNARY, op, "unary"), self._out(dst)

        def unary():
            reg[:] = fn(reg)

        return unary

    def _compare_zero(self, kind, dst, *_):
        fn, reg = self._fn(_COMPARE_ZERO, kind, "comparison"), self._out(dst)

        def compare_zero():
            reg[:] = fn(reg, np.float32(0))

        return compare_zero

    def _scalar(self, op, dst, bits, *_):
        fn, reg = self._fn(_SCALAR, op, "scalar"), self._out(dst)
        value = np.array([bits], dtype=np.uint32).view(np.float32)[0]
        return partial(fn, reg, value, out=reg)

    def _unary_param(self, op, dst, p0, p1, p2, *_):
        fn, reg = self._fn(unary_math.UNARY_PARAM, op, "unary"), self._out(dst)

        def unary_param():
            reg[:] = fn(reg.astype(np.float64), p0, p1, p2)

        return unary_param

    def _fill(self, dst, bits, *_):
        value = np.array([bits], dtype=np.uint32).view(np.float32)[0]
        return partial(self._out(dst).fill, value)

    def _bcast(self, addr, fmt, dst, kind, *_):
        if kind not in (BCAST_NONE, BCAST_ROW, BCAST_COL, BCAST_SCALAR):
            raise DeviceFault(f"unknown broadcast kind {kind}")
        view, reg = self._tile_view(addr, fmt), self._out(dst)

        def bcast():
            rm = self._rowmajor(view)
            if kind == BCAST_NONE:
                out = rm
            elif kind == BCAST_ROW:
                out = np.broadcast_to(rm[0:1, :], (TILE, TILE))
            elif kind == BCAST_COL:
                out = np.broadcast_to(rm[:, 0:1], (TILE, TILE))
            else:
                out = np.broadcast_to(rm[0, 0], (TILE, TILE))
            reg[:] = out.reshape(-1)[FACES_FROM_ROWMAJOR]

        return bcast

    def _pack(self, dst, addr, fmt_code, l1_acc, *_):
        tile, value = self._tile_view(addr, fmt_code), self._reg(dst)
        # Casting fp32 into a bfloat16 tile rounds to nearest, ties to even.
        if not l1_acc:
            return partial(np.copyto, tile, value, casting="unsafe")

        def pack_accumulate():
            tile[:] = np.add(tile, value, dtype=np.float32)

        return pack_accumulate

    # ------------------------------------------- reduce, transpose, where, mask
    def _reduce(self, addr, fmt, s_addr, s_fmt, dst, mode, *_):
        """reduce_tile: see kernel_api.h. Tiles viewed as (face row, face col, row, col)."""
        pool, dim = mode & 0xF, mode >> 4
        if pool not in (POOL_SUM, POOL_AVG, POOL_MAX) or dim not in _REDUCE_AXES:
            raise DeviceFault(f"unknown reduce mode {mode:#x}")
        a = self._tile_view(addr, fmt).reshape(_FACE_GRID)
        # The scaler is the first row of each face, applied to every row of that face.
        s = (
            None
            if s_fmt == memmap.SCALER_ONE_FMT
            else self._tile_view(s_addr, s_fmt).reshape(_FACE_GRID)[:, :, 0:1, :]
        )
        reg = self._out(dst)
        faces = reg.reshape(_FACE_GRID)
        axes, sel = _REDUCE_AXES[dim]
        if pool == POOL_MAX:
            reduce, combine = np.maximum.reduce, np.maximum
        else:
            reduce, combine = np.add.reduce, np.add

        def run():
            x = a.astype(np.float32) if s is None else np.multiply(a, s, dtype=np.float32)
            value = combine(faces[sel], reduce(x, axis=axes, dtype=np.float32))
            reg.fill(0)  # the result row/column/element only, as hardware packs it
            faces[sel] = value

        return run

    def _transpose(self, addr, fmt, dst, *_):
        view, reg = self._tile_view(addr, fmt), self._out(dst)

        def transpose():
            reg[:] = view[_TRANSPOSE_FACES]

        return transpose

    def _where(self, cond, true, false, out, *_):
        c, t, f, o = self._reg(cond), self._reg(true), self._reg(false), self._out(out)

        def where():
            o[:] = np.where(c == 1, t, f)

        return where

    def _mask(self, data, mask, posinf, *_):
        x, m = self._out(data), self._reg(mask)
        value = np.float32(np.inf if posinf else 0.0)
        return lambda: np.copyto(x, value, where=m == 1)


def _rounding(run: Callable[[], object], regs: list[np.ndarray]) -> Callable[[], object]:
    """``run``, then round the DST registers it wrote to bf16 (16-bit DST mode)."""
    if len(regs) == 1:
        reg = regs[0]

        def run_rounded():
            run()
            _round_to_bf16(reg)

        return run_rounded

    def run_rounded_all():
        run()
        for reg in regs:
            _round_to_bf16(reg)

    return run_rounded_all


_FORMATS = {f.code: (f.dtype, f.tile_bytes) for f in (BF16, F32)}
