"""The modelled tile coprocessor: DST registers and NumPy tile math.

The compute kernel's API calls append 8-word commands to the hart's queue
(memmap.COP_QUEUE_BASE); the emulator executes the queue whenever the hart
stops (before any other hart runs) or flushes a full queue. Word 7 of every
command is the return address of the API call, so errors name the kernel's
source line.

Numerics (docs/runtime.md): DST holds fp32; operands are unpacked exactly to
fp32; math runs in fp32; pack rounds to nearest-even for bf16 (exact for fp32).
Tiles stay in TT face layout in DST; only matmul and broadcast reorder.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np

from ttl.runtime import memmap
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
}

BCAST_NONE, BCAST_ROW, BCAST_COL, BCAST_SCALAR = range(4)
_WORDS = memmap.COP_CMD_WORDS


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
        self._regs = list(self.dst)  # row views: indexing a list is cheaper than the array
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
            memmap.COP_FILL: self._fill,
            memmap.COP_BCAST: self._bcast,
            memmap.COP_PACK: self._pack,
        }

    def reset(self) -> None:
        """Clears DST and the statistics (a new launch)."""
        self.dst.fill(0)
        self.commands = 0

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
        try:
            if make is None:
                raise DeviceFault(f"unknown coprocessor opcode {op}")
            run = make(*args)
        except DeviceFault as err:
            raise DeviceFault(str(err), ra=ra) from None
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


_FORMATS = {f.code: (f.dtype, f.tile_bytes) for f in (BF16, F32)}
