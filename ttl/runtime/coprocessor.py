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
BFP8_b tiles (``bfp8.py``) are unpacked exactly (their values are a subset of
bf16) into a float32 copy before a command reads them, and a pack into a BFP8_b
tile quantizes the float32 result with TT-Metal's rounding (``bfp8.pack``).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from functools import partial

import numpy as np

from ttl.runtime import bfp8, memmap, unary_math
from ttl.runtime.cop_runs import LAYOUTS, find_runs, independent
from ttl.runtime.errors import DeviceFault
from ttl.runtime.tiles import (
    BF16,
    BFP8,
    F32,
    FACE,
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
_FACE_GRID = (2, 2, FACE, FACE)  # (face row, face column, row, column)
# ReduceDim -> where the result goes in the face grid: row r's value to
# column 0, column c's to row 0, the scalar to element (0, 0).
_REDUCE_SEL: dict[int, tuple] = {
    REDUCE_ROW: (slice(None), 0, slice(None), 0),
    REDUCE_COL: (0, slice(None), 0, slice(None)),
    REDUCE_SCALAR: (0, 0, 0, 0),
}


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
        # The emulator's arithmetic is full fidelity without approximations.
        fidelity, approx = entry.get("math_fidelity", "HiFi4"), entry.get("math_approx_mode", False)
        if fidelity != "HiFi4" or approx is not False:
            raise ValueError(
                f"compute_config asks for math_fidelity {fidelity!r}, math_approx_mode {approx!r}: "
                "the emulator models only HiFi4 without approximation mode"
            )
        return DstMode(fp32, tiles)


def _round_to_bf16(rows: np.ndarray) -> None:
    """Rounds DST registers (a view) to bf16 in place (nearest-even): 16-bit DST entries."""
    np.copyto(rows, rows.astype(BF16.dtype), casting="unsafe")


class Coprocessor:
    """DST register file of one compute hart plus the tile math that uses it.

    A command (its eight queue words) is validated and resolved once into a
    zero-argument callable with its tile views, registers and ufunc bound;
    DFB rings make kernels issue the same few commands over and over, so
    later occurrences cost a dictionary lookup and a call.

    A run of same-kind commands with strided operands (``cop_runs``) is
    resolved the same way into one callable over (count, 1024) views of DST
    and L1: one NumPy call for the whole run. Every batchable op is written
    once, over such views: a single command is a run of one.

    The caller runs drains under ``np.errstate(all="ignore")``: inf/nan
    results are data, as on hardware.
    """

    MAX_COMPILED = 1 << 16  # resolved commands kept (the cache restarts when full)
    PLAN_COMMANDS = 64  # queues up to this long keep their plan
    MAX_PLANS = 1 << 12

    def __init__(self, l1: np.ndarray, dst_tiles: int):
        self.l1 = l1
        # Its own pages, so a reset hands them back (most harts never touch DST).
        self._dst_bytes = memmap.page_aligned_buffer(dst_tiles * TILE_ELEMS * 4)
        self.dst = self._dst_bytes.view(np.float32).reshape(dst_tiles, TILE_ELEMS)
        self.mode = DstMode(fp32=True, tiles=min(DstMode().tiles, dst_tiles))
        # Registers at or above the high-water mark have not been written since the
        # last reset, so they are still zero: acquire clears only the ones below it.
        self._written = self.dst[:0]
        self.commands = 0
        self.batched = 0  # commands executed as part of a vectorized run
        self._views: dict[tuple[int, ...], np.ndarray] = {}
        self._compiled: dict[tuple[int, ...], Callable[[], object]] = {}
        # (first two commands, count) -> (callable, commands it vectorizes)
        self._runs: dict[tuple, tuple[Callable[[], object], int]] = {}
        # a short queue's bytes -> (its runs' callables, commands in vectorized runs)
        self._plans: dict[bytes, tuple[tuple[Callable[[], object], ...], int]] = {}
        # opcode -> resolver of the command's words into a callable (unbatchable ops)
        self._compilers: dict[int, Callable[..., Callable[[], object]]] = {
            memmap.COP_ACQUIRE: self._acquire,
        }
        # opcode -> resolver of its operands (views of `count` commands, see _resolve)
        self._makers: dict[int, Callable[..., Callable[[], object]]] = {
            memmap.COP_UNPACK: self._unpack,
            memmap.COP_BINARY: self._binary,
            memmap.COP_BINARY_DST: self._binary_dst,
            memmap.COP_UNARY: self._unary,
            memmap.COP_UNARY_PARAM: self._unary_param,
            memmap.COP_FILL: self._fill,
            memmap.COP_BCAST: self._bcast,
            memmap.COP_PACK: self._pack,
            memmap.COP_REDUCE: self._reduce,
            memmap.COP_MATMUL: self._matmul,
            memmap.COP_TRANSPOSE: self._transpose,
            memmap.COP_WHERE: self._where,
            memmap.COP_MASK: self._mask,
            memmap.COP_COMPARE_ZERO: self._compare_zero,
            memmap.COP_SCALAR: self._scalar,
        }
        assert self._makers.keys() == LAYOUTS.keys()

    def reset(self, mode: DstMode | None = None) -> None:
        """Clears DST and the statistics (a new launch), in DST ``mode`` (default: as is)."""
        memmap.zero(self._dst_bytes)
        self.commands = 0
        self.batched = 0
        if mode is not None and mode != self.mode:
            if mode.tiles > len(self.dst):
                raise DeviceFault(
                    f"a DST of {mode.tiles} tiles does not fit: the node has {len(self.dst)}"
                )
            self.mode = mode
            # Resolved commands, runs and plans bake in the mode (registers, rounding).
            self._compiled.clear()
            self._runs.clear()
            self._plans.clear()

    def drain(self, queue) -> None:
        """Executes and empties the command queue mapped at ``queue`` (uint32 words).

        A short queue's plan (its runs' callables) is kept by content: a kernel
        that blocks every few tiles drains the same few commands again and
        again, and replaying them skips run detection and lookups.
        """
        entries = memmap.take_queue_array(
            queue, memmap.COP_HEADER_BYTES, _WORDS, memmap.COP_CAPACITY, "coprocessor"
        )
        self.commands += len(entries)
        key = entries.tobytes() if len(entries) <= self.PLAN_COMMANDS else None
        plan = self._plans.get(key) if key is not None else None
        if plan is None:
            plan = self._execute(entries)
            if key is not None:
                if len(self._plans) >= self.MAX_PLANS:
                    self._plans.clear()
                self._plans[key] = plan
        else:
            for run in plan[0]:
                run()
        self.batched += plan[1]

    def _execute(self, entries: np.ndarray) -> tuple[tuple[Callable[[], object], ...], int]:
        """Executes the drained commands run by run; returns the plan: the runs'
        callables and how many commands ran in vectorized runs."""
        words = entries.ravel().tolist()
        compiled, runs = self._compiled, self._runs
        plan: list[Callable[[], object]] = []
        batched = 0
        for start, count in find_runs(entries):
            at = start * _WORDS
            if count == 1:
                cmd = tuple(words[at : at + _WORDS])
                run = compiled.get(cmd)
                if run is None:
                    run = self._compile(cmd)
            else:
                if words[at] == memmap.COP_MATMUL:  # a group: any operands (cop_runs)
                    key = (tuple(words[at : at + count * _WORDS]), count)
                else:
                    key = (tuple(words[at : at + 2 * _WORDS]), count)
                entry = runs.get(key)
                if entry is None:
                    entry = self._compile_run(words, start, count, key)
                run, vectorized = entry
                batched += vectorized
            run()
            plan.append(run)
        return tuple(plan), batched

    def _compile(self, cmd: tuple[int, ...]) -> Callable[[], object]:
        """Validates ``cmd`` and resolves it into a callable (cached); faults name its call site."""
        op, *args, ra = cmd
        try:
            layout = LAYOUTS.get(op)
            if layout is not None:
                run = self._resolve(op, tuple(args), (0,) * len(args), 1)
            else:
                make = self._compilers.get(op)
                if make is None:
                    raise DeviceFault(f"unknown coprocessor opcode {op}")
                run = make(*args)
        except DeviceFault as err:
            raise DeviceFault(str(err), ra=ra) from None
        if len(self._compiled) >= self.MAX_COMPILED:
            self._compiled.clear()
        self._compiled[cmd] = run
        return run

    def _compile_run(
        self, words: list[int], start: int, count: int, key: tuple
    ) -> tuple[Callable[[], object], int]:
        """Resolves the run of ``count`` commands at ``start`` (cached under ``key``): a
        matmul group (``_matmul_group``) or a linear run (``_linear_run``). A run
        that may not execute at once or holds an invalid command is resolved
        command by command (``_compile_each``)."""
        matmuls = words[start * _WORDS] == memmap.COP_MATMUL
        entry = self._or_each(
            self._matmul_group if matmuls else self._linear_run, words, start, count
        )
        if len(self._runs) >= self.MAX_COMPILED:
            self._runs.clear()
        self._runs[key] = entry
        return entry

    def _or_each(
        self,
        resolve: Callable[[list[int], int, int], tuple[Callable[[], object], int] | None],
        words: list[int],
        start: int,
        count: int,
    ) -> tuple[Callable[[], object], int]:
        """``resolve``'s callable for the run, or, if it declines (None) or a command is
        invalid, the commands resolved one by one (``_compile_each`` finds the fault)."""
        entry = None
        with suppress(DeviceFault):
            entry = resolve(words, start, count)
        return entry or (partial(_in_order, self._compile_each(words, start, count)), 0)

    def _linear_run(
        self, words: list[int], start: int, count: int
    ) -> tuple[Callable[[], object], int] | None:
        """The run of ``count`` commands at ``start`` as one callable and its command
        count, or None if they are not independent (``cop_runs.independent``).

        Operands step linearly, so the first and last command's operands are in
        range exactly when all are: resolving the run validates it.
        """
        at = start * _WORDS
        op, first = words[at], tuple(words[at + 1 : at + _WORDS - 1])
        step = tuple(
            b - a for a, b in zip(first, words[at + _WORDS + 1 : at + 2 * _WORDS - 1], strict=True)
        )
        layout = LAYOUTS[op]
        tile_bytes = {
            i: _FORMATS.get(first[f.fmt - 1], (None, 0))[1]
            for i, f in enumerate(layout)
            if f.kind == "l1_out"
        }
        if not independent(layout, first, step, count, tile_bytes):
            return None
        return self._resolve(op, first, step, count), count

    def _compile_each(self, words: list[int], start: int, count: int) -> tuple:
        """Each of ``count`` commands at ``start`` resolved on its own. A fault names
        the failing command's call site, after the commands before it have run
        (as they would have one by one)."""
        done: list[Callable[[], object]] = []
        for j in range(start, start + count):
            cmd = tuple(words[j * _WORDS : (j + 1) * _WORDS])
            try:
                done.append(self._compiled.get(cmd) or self._compile(cmd))
            except DeviceFault:
                _in_order(tuple(done))
                raise
        return tuple(done)

    def _resolve(
        self, op: int, first: tuple[int, ...], step: tuple[int, ...], count: int
    ) -> Callable[[], object]:
        """The callable executing ``count`` commands of batchable ``op`` whose operand
        words are ``first + j * step``: its maker called with a (count or 1, ...)
        view for every register and L1 field and the static words as they are."""
        values: list = []
        writes: list[np.ndarray] = []  # the DST rows the commands write
        unpacks: list[Callable[[], object]] = []  # block-float tiles: decode before,
        packs: list[Callable[[], object]] = []  # encode after
        for i, field in enumerate(LAYOUTS[op]):
            word = first[i]
            if field.kind in ("reg_in", "reg_out", "reg_inout", "acc"):
                rows = self._rows(word, step[i], count, write=field.kind != "reg_in")
                values.append(rows)
                if field.kind != "reg_in":
                    writes.append(rows)
            elif field.kind in ("l1_in", "l1_out", "l1_each"):
                fmt = first[field.fmt - 1]
                each = field.kind == "l1_each"
                tiles = self._tiles(word, fmt, step[i], count, each)
                if tiles is not None and fmt == BFP8.code:
                    written = field.kind == "l1_out"
                    # A pack overwrites its tiles unless it accumulates (its l1_acc word).
                    read = not written or (op == memmap.COP_PACK and bool(first[3]))
                    tiles = _block_float(tiles, read, written, unpacks, packs)
                values.append(tiles)
            else:
                values.append(word)
        run = self._makers[op](*values)
        if unpacks or packs:
            run = partial(_in_order, (*unpacks, run, *packs))
        # matmul rounds each step's sum itself; an unpacked bf16 tile is bf16 already
        exact = op == memmap.COP_MATMUL or (op == memmap.COP_UNPACK and first[1] == BF16.code)
        return self._finish(run, [] if exact else writes)

    def _finish(self, run: Callable[[], object], writes: list[np.ndarray]) -> Callable[[], object]:
        """The resolved command or run; in 16-bit DST mode it then rounds ``writes``
        (the DST rows it wrote) to bf16."""
        if self.mode.fp32 or not writes:
            return run

        def run_rounded():
            run()
            for rows in writes:
                _round_to_bf16(rows)

        return run_rounded

    # ------------------------------------------------------------ operands
    def _reg(self, index: int) -> np.ndarray:
        """DST register ``index`` (a view) to read."""
        if index >= self.mode.tiles:
            raise DeviceFault(
                f"DST index {index} is out of range: DST holds {self.mode.tiles} tiles"
            )
        return self.dst[index]

    def _out(self, index: int) -> np.ndarray:
        """DST register ``index`` (a view) to write: raises the high-water mark."""
        reg = self._reg(index)
        if index >= len(self._written):
            self._written = self.dst[: index + 1]
        return reg

    def _rows(self, index: int, step: int, count: int, write: bool) -> np.ndarray:
        """DST registers ``index + j * step`` for j < count as a (count, 1024) view
        ((1, 1024) when ``step`` is 0: one register read by every command)."""
        last = index + step * (count - 1)
        for reg in (index, last):  # validates (and, written, raises the high-water mark)
            if write:
                self._out(reg)
            else:
                self._reg(reg)
        if step == 0:
            return self.dst[index : index + 1]
        stop = last + step
        return self.dst[index : None if stop < 0 else stop : step]

    def _tile_view(self, addr: int, fmt_code: int) -> np.ndarray:
        """The L1 bytes of the tile at ``addr`` viewed as its format's dtype."""
        view = self._views.get((addr, fmt_code))
        if view is None:
            fmt = _FORMATS.get(fmt_code)
            if fmt is None:
                raise DeviceFault(
                    f"unsupported data format code {fmt_code} (use bf16, f32 or bfp8)"
                )
            dtype, nbytes = fmt
            if addr + nbytes > self.l1.size:
                raise DeviceFault(
                    f"tile [{addr:#x}, {addr + nbytes:#x}) is outside L1 ({self.l1.size:#x} B)"
                )
            view = self._views[addr, fmt_code] = self.l1[addr : addr + nbytes].view(dtype)
        return view

    def _tiles(self, addr: int, fmt: int, step: int, count: int, each: bool) -> np.ndarray:
        """The L1 tiles at ``addr + j * step`` for j < count as a (count, elements) view
        ((1, elements) when ``step`` is 0, unless ``each`` command needs its row)."""
        tile = self._tile_view(addr, fmt)
        if count == 1 or (step == 0 and not each):
            return tile[None]
        self._tile_view(addr + step * (count - 1), fmt)
        if step < 0:
            return np.lib.stride_tricks.as_strided(tile, (count, tile.size), (step, tile.itemsize))
        # (an ndarray on the L1 buffer is much cheaper to make than as_strided)
        shape, strides = (count, tile.size), (step, tile.itemsize)
        return np.ndarray(shape, tile.dtype, self.l1, addr, strides)

    @staticmethod
    def _fn(table: dict, op: int, what: str):
        fn = table.get(op)
        if fn is None:
            raise DeviceFault(f"unknown {what} op {op}")
        return fn

    # ---------------------------------------- unbatchable ops (words -> callable)
    def _acquire(self, *_):
        # DST is zero in every acquire/release section (the hardware packer clears
        # it on release).
        return lambda: self._written.fill(0)

    # -------------- batchable ops: operands are (count or 1, 1024) views (see _resolve)
    def _unpack(self, tiles, fmt, dst):
        return partial(np.copyto, dst, tiles, casting="unsafe")

    def _binary(self, op, a, fmt_a, b, fmt_b, dst):
        # dtype=float32 makes the ufunc widen bf16 operands itself (exactly),
        # cheaper than converting each operand first.
        return partial(self._fn(_BINARY, op, "binary"), a, b, out=dst, dtype=np.float32)

    def _binary_dst(self, op, a, b, out):
        return partial(self._fn(_BINARY, op, "binary"), a, b, out=out)

    def _unary(self, op, regs):
        fn = self._fn(_UNARY, op, "unary")

        def unary():
            regs[:] = fn(regs)

        return unary

    def _compare_zero(self, kind, regs):
        fn = self._fn(_COMPARE_ZERO, kind, "comparison")

        def compare_zero():
            regs[:] = fn(regs, np.float32(0))

        return compare_zero

    def _scalar(self, op, regs, bits):
        fn = self._fn(_SCALAR, op, "scalar")
        return partial(fn, regs, _f32(bits), out=regs)

    def _unary_param(self, op, regs, p0, p1, p2):
        fn = self._fn(unary_math.UNARY_PARAM, op, "unary")

        def unary_param():
            regs[:] = fn(regs.astype(np.float64), p0, p1, p2)

        return unary_param

    def _fill(self, regs, bits):
        return partial(regs.fill, _f32(bits))

    def _bcast(self, tiles, fmt, regs, kind):
        gather = _BCAST_GATHER.get(kind)
        if gather is None:
            raise DeviceFault(f"unknown broadcast kind {kind}")

        def bcast():
            # (np.take: a 2-D fancy index [:, gather] costs about twice as much)
            regs[:] = np.take(tiles, gather, axis=1)

        return bcast

    def _pack(self, regs, tiles, fmt_code, l1_acc):
        # Casting fp32 into a bfloat16 tile rounds to nearest, ties to even.
        if not l1_acc:
            return partial(np.copyto, tiles, regs, casting="unsafe")

        def pack_accumulate():
            tiles[:] = np.add(tiles, regs, dtype=np.float32)

        return pack_accumulate

    def _matmul(self, a, fmt_a, b, fmt_b, acc):
        """matmul_tiles: ``acc`` += a @ b per command. A run (the K steps of one output
        tile) multiplies all its tile pairs in one batched matmul and then adds the
        products into the register in command order, rounding each sum to bf16 in
        16-bit DST mode as the commands one by one would."""
        fp32 = self.mode.fp32
        reg = acc[0]

        def run():
            # One add per product, in order (np.add.reduce would sum pairwise; a
            # sequential np.add.accumulate over tiles costs 14 us even for one).
            for prod in _tile_products(a, b):
                np.add(reg, prod, out=reg)
                if not fp32:
                    _round_to_bf16(reg)

        return run

    def _matmul_group(
        self, words: list[int], start: int, count: int
    ) -> tuple[Callable[[], object], int]:
        """``count`` matmul_tiles commands at ``start`` (same formats, any tiles and
        registers) as one callable: every product in one batched multiplication,
        then added into the registers in command order (a register's k-th product
        in round k), each sum rounded to bf16 in 16-bit DST mode, as the commands
        one by one would. Block-float operands (decoded per tile) and misaligned
        tiles take the strided runs instead."""
        cmds = np.array(words[start * _WORDS : (start + count) * _WORDS]).reshape(count, _WORDS)
        fmt_a, fmt_b = int(cmds[0, 2]), int(cmds[0, 4])
        for addr_a, addr_b, reg in cmds[:, [1, 3, 5]].tolist():  # validates every command
            self._tile_view(addr_a, fmt_a)
            self._tile_view(addr_b, fmt_b)
            self._out(reg)
        if BFP8.code in (fmt_a, fmt_b):
            return self._strided_matmuls(words, start, count)
        # Round k holds every register's k-th product; commands are reordered by round,
        # then register, so a round's products are one slice of the batched result.
        dsts = cmds[:, 5]
        rank = np.zeros(count, dtype=np.int64)  # how many earlier commands share the register
        seen: dict[int, int] = {}
        for j, d in enumerate(dsts.tolist()):
            rank[j] = seen.get(d, 0)
            seen[d] = rank[j] + 1
        order = np.lexsort((dsts, rank))
        used = np.array(sorted(seen))
        a, b = self._gather(cmds[order, 1], fmt_a), self._gather(cmds[order, 3], fmt_b)
        if a is None or b is None:
            return self._strided_matmuls(words, start, count)
        bounds = np.cumsum(np.bincount(rank))
        rounds = []  # (products slice, positions of its registers among ``used``)
        for lo, hi in zip([0, *bounds[:-1].tolist()], bounds.tolist(), strict=True):
            at = np.searchsorted(used, dsts[order[lo:hi]])
            rounds.append((slice(lo, hi), slice(None) if len(at) == len(used) else at))
        dst, fp32 = self.dst, self.mode.fp32

        def run():
            prods = np.matmul(_rowmajor_tiles(a()), _rowmajor_tiles(b()))
            acc = _rowmajor_tiles(dst[used])  # the sums stay row-major until the last round
            for products, at in rounds:
                sums = acc[at] + prods[products]
                acc[at] = sums if fp32 else sums.astype(BF16.dtype)
            dst[used] = _face_tiles(acc)

        return run, count

    def _strided_matmuls(self, words, start, count) -> tuple[Callable[[], object], int]:
        """The group as its strided runs (``find_runs`` without grouping)."""
        parts, batched = [], 0
        entries = np.array(words[start * _WORDS : (start + count) * _WORDS]).reshape(-1, _WORDS)
        for first, n in find_runs(entries, group=False):
            at = (start + first) * _WORDS
            if n == 1:
                cmd = tuple(words[at : at + _WORDS])
                parts.append(self._compiled.get(cmd) or self._compile(cmd))
                continue
            run, vectorized = self._or_each(self._linear_run, words, start + first, n)
            parts.append(run)
            batched += vectorized
        return partial(_in_order, tuple(parts)), batched

    def _gather(self, addrs: np.ndarray, fmt: int) -> Callable[[], np.ndarray] | None:
        """A callable reading the tiles at ``addrs`` from L1 as (count, elements)
        (None if an address is not aligned to the format's elements)."""
        dtype, nbytes = _FORMATS[fmt]
        if np.any(addrs % dtype.itemsize):
            return None
        elems = nbytes // dtype.itemsize
        l1 = self.l1.view(dtype)
        # Every tile-sized window of L1 as a row: gathering rows needs one index per tile.
        # (Indexing, not np.take: take would copy the whole window view first.)
        windows = np.lib.stride_tricks.as_strided(
            l1, (l1.size - elems + 1, elems), (dtype.itemsize, dtype.itemsize), writeable=False
        )
        return partial(windows.__getitem__, addrs // dtype.itemsize)

    def _reduce(self, tiles, fmt, scaler, s_fmt, acc, mode):
        """reduce_tile: see kernel_api.h. Tiles viewed as (tile, face row, face col, row, col).

        A run reduces each of its tiles alone (as one command would) and then
        combines the results into the register in command order."""
        pool, dim = mode & 0xF, mode >> 4
        if pool not in (POOL_SUM, POOL_AVG, POOL_MAX) or dim not in _REDUCE_SEL:
            raise DeviceFault(f"unknown reduce mode {mode:#x}")
        a = tiles.reshape(-1, *_FACE_GRID)
        # The scaler is the first row of each face, applied to every row of that face.
        s = scaler.reshape(-1, *_FACE_GRID)[:, :, :, 0:1, :]
        faces = acc.reshape(_FACE_GRID)
        sel = _REDUCE_SEL[dim]
        combine = np.maximum if pool == POOL_MAX else np.add

        def run():
            x = np.multiply(a, s, dtype=np.float32)
            parts = _reduce_each(x, dim, combine)
            first = faces[sel]
            if len(parts) == 1:
                value = combine(first, parts[0])
            else:  # in command order: accumulate is sequential
                value = combine.accumulate(np.concatenate(([first], parts)), axis=0)[-1]
            acc.fill(0)  # the result row/column/element only, as hardware packs it
            faces[sel] = value

        return run

    def _transpose(self, tiles, fmt, regs):
        # Face (i, j) becomes face (j, i), each face transposed: axes swapped, no gather.
        swapped = tiles.reshape(-1, *_FACE_GRID).transpose(0, 2, 1, 4, 3)

        def transpose():
            regs[:] = swapped.reshape(len(tiles), -1)

        return transpose

    def _where(self, cond, true, false, out):
        def where():
            out[:] = np.where(cond == 1, true, false)

        return where

    def _mask(self, data, mask, posinf):
        value = np.float32(np.inf if posinf else 0.0)
        return lambda: np.copyto(data, value, where=mask == 1)


def _reduce_each(x: np.ndarray, dim: int, combine: np.ufunc) -> np.ndarray:
    """Each tile of ``x`` (tile, face row, face col, row, col) reduced along ``dim``.

    A fixed pairwise order: halves of the 16 rows (columns, for a row
    reduction) of each face are combined until one is left, then the two
    faces of each pair (then, for the scalar, the 16 values and the face
    pair). Whole-array NumPy operations, elementwise in the tile axis: a tile
    reduces the same alone or in a run, and far faster than ufunc.reduce
    over two strided axes.
    """
    if dim == REDUCE_ROW:  # the columns become the axis that halves
        x = np.ascontiguousarray(x.swapaxes(3, 4))
    while x.shape[3] > 1:
        half = x.shape[3] // 2
        x = combine(x[:, :, :, :half], x[:, :, :, half:])
    x = x[:, :, :, 0]  # (tile, face row, face col, 16)
    if dim == REDUCE_COL:
        return combine(x[:, 0], x[:, 1])  # (tile, face col, column)
    rows = combine(x[:, :, 0], x[:, :, 1])  # (tile, face row, row or column)
    if dim == REDUCE_ROW:
        return rows
    while rows.shape[2] > 1:
        half = rows.shape[2] // 2
        rows = combine(rows[:, :, :half], rows[:, :, half:])
    return combine(rows[:, 0, 0], rows[:, 1, 0])  # (tile,)


def _block_float(
    raw: np.ndarray,
    read: bool,
    written: bool,
    unpacks: list[Callable[[], object]],
    packs: list[Callable[[], object]],
) -> np.ndarray:
    """A float32 stand-in (count, 1024) for the BFP8_b tiles ``raw`` (count, 1088) of one
    command operand: for a ``read`` operand the unpacker fills it before the command,
    and for a ``written`` one (a pack) the packer stores it back quantized after it."""
    values = np.empty((raw.shape[0], TILE_ELEMS), dtype=np.float32)
    if read:
        unpacks.append(partial(bfp8.unpack, raw, values))
    if written:
        packs.append(lambda: np.copyto(raw, bfp8.pack(values)))
    return values


def _tile_products(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a[i] @ b[i]`` of (count, 1024) face-layout tiles, in face layout (float32)."""
    return _face_tiles(np.matmul(_rowmajor_tiles(a), _rowmajor_tiles(b)))


def _rowmajor_tiles(tiles: np.ndarray) -> np.ndarray:
    """(count, 1024) face-layout tiles as (count, 32, 32) row-major float32 matrices.

    A strided copy of the face grid's axes (tile, face row, row, face column,
    column): several times faster than a gather through ROWMAJOR_FROM_FACES."""
    out = np.empty((len(tiles), 2, FACE, 2, FACE), dtype=np.float32)
    np.copyto(out, tiles.reshape(-1, *_FACE_GRID).transpose(0, 1, 3, 2, 4), casting="unsafe")
    return out.reshape(-1, TILE, TILE)


def _face_tiles(matrices: np.ndarray) -> np.ndarray:
    """(count, 32, 32) row-major matrices as (count, 1024) face-layout tiles (a copy)."""
    faces = matrices.reshape(-1, 2, FACE, 2, FACE).transpose(0, 1, 3, 2, 4)
    return np.ascontiguousarray(faces).reshape(len(matrices), TILE_ELEMS)


def _in_order(runs: tuple[Callable[[], object], ...]) -> None:
    """Executes resolved commands one by one (a run that may not be vectorized)."""
    for run in runs:
        run()


def _f32(bits: int) -> np.float32:
    """A binary32 bit pattern as a float32."""
    return np.array([bits], dtype=np.uint32).view(np.float32)[0]


def _bcast_gather(source_of: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """Face-layout gather of a broadcast: element k of the result is element
    ``gather[k]`` of the source tile; ``source_of`` maps row-major positions of
    the result to the row-major positions they copy."""
    return ROWMAJOR_FROM_FACES[source_of(FACES_FROM_ROWMAJOR)]


_BCAST_GATHER = {
    BCAST_NONE: _bcast_gather(lambda j: j),
    BCAST_ROW: _bcast_gather(lambda j: j % TILE),  # row 0, same column
    BCAST_COL: _bcast_gather(lambda j: j - j % TILE),  # same row, column 0
    BCAST_SCALAR: _bcast_gather(lambda j: j * 0),  # element (0, 0)
}

# code -> (dtype of a tile view, tile bytes); block-float tiles are viewed as their bytes.
_FORMATS = {
    f.code: (np.dtype(np.uint8) if f.packed else f.dtype, f.tile_bytes) for f in (BF16, F32, BFP8)
}
