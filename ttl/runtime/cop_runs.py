"""Runs of coprocessor commands that one vectorized NumPy operation can execute.

A compute kernel issues the same tile op for each tile of a DST chunk back to
back (the compiler schedules a chunk's ops by kind): ``exp_tile(0)``,
``exp_tile(2)``, ``exp_tile(4)``, ... or ``copy_tile`` of consecutive L1 tiles
into every other DST register. Such a *run* is commands with the same opcode
and the same non-operand words whose DST register and L1 address words each
advance by a constant stride. The coprocessor executes a legal run as one
NumPy call over strided views (``Coprocessor._run_callable``).

``LAYOUTS`` says what each command word (1..6) of a batchable opcode is;
:func:`find_runs` splits a drained queue into runs; :func:`independent` says
whether executing a run at once equals executing it command by command.
"""

from __future__ import annotations

from collections import Counter
from typing import NamedTuple

import numpy as np

from ttl.runtime import memmap


class Field(NamedTuple):
    """One command word of a batchable opcode.

    ``kind``: STATIC (must be equal in a run), a DST register (REG_IN read,
    REG_OUT written, REG_INOUT both, ACC read and written by every command of
    the run: a reduction accumulating into one register) or an L1 tile
    address (L1_IN read, L1_OUT written, L1_EACH read once by every command:
    the tiles a reduction accumulates, counted again when the address
    repeats). ``fmt``: for L1 fields, the word (1..6) holding the tile's
    data format.
    """

    kind: str
    fmt: int = 0


STATIC = Field("static")
REG_IN, REG_OUT, REG_INOUT, ACC = (Field(k) for k in ("reg_in", "reg_out", "reg_inout", "acc"))


def L1_IN(fmt: int) -> Field:
    return Field("l1_in", fmt)


def L1_OUT(fmt: int) -> Field:
    return Field("l1_out", fmt)


def L1_EACH(fmt: int) -> Field:
    return Field("l1_each", fmt)


_S = STATIC
# opcode -> its words 1..6 (missing trailing words are static). Opcodes not
# listed (acquire, DST mode) always run one by one.
LAYOUTS: dict[int, tuple[Field, ...]] = {
    memmap.COP_UNPACK: (L1_IN(2), _S, REG_OUT),  # addr, fmt, dst
    memmap.COP_BINARY: (_S, L1_IN(3), _S, L1_IN(5), _S, REG_OUT),  # op, a, fa, b, fb, dst
    memmap.COP_BINARY_DST: (_S, REG_IN, REG_IN, REG_OUT),  # op, a, b, out
    memmap.COP_UNARY: (_S, REG_INOUT),  # op, dst
    memmap.COP_UNARY_PARAM: (_S, REG_INOUT, _S, _S, _S),  # op, dst, p0, p1, p2
    memmap.COP_FILL: (REG_OUT, _S),  # dst, bits
    memmap.COP_BCAST: (L1_IN(2), _S, REG_OUT, _S),  # addr, fmt, dst, kind
    memmap.COP_PACK: (REG_IN, L1_OUT(3), _S, _S),  # dst, addr, fmt, l1_acc
    memmap.COP_REDUCE: (L1_EACH(2), _S, L1_IN(4), _S, ACC, _S),  # a, fa, scaler, fs, dst, mode
    memmap.COP_MATMUL: (L1_EACH(2), _S, L1_EACH(4), _S, ACC),  # a, fa, b, fb, dst
    memmap.COP_TRANSPOSE: (L1_IN(2), _S, REG_OUT),  # addr, fmt, dst
    memmap.COP_WHERE: (REG_IN, REG_IN, REG_IN, REG_OUT),  # cond, true, false, out
    memmap.COP_MASK: (REG_INOUT, REG_IN, _S),  # data, mask, posinf
    memmap.COP_COMPARE_ZERO: (_S, REG_INOUT),  # kind, dst
    memmap.COP_SCALAR: (_S, REG_INOUT, _S),  # op, dst, bits
}

_WORDS = memmap.COP_CMD_WORDS
_OPS = max(LAYOUTS) + 2  # table rows; the last one stands for every unknown opcode
# Per opcode: may it batch, and which of words 0..7 must be equal within a run
# (word 0 is equal by construction, word 7, the call site, may differ).
_BATCHABLE = np.zeros(_OPS, dtype=bool)
_STATIC = np.zeros((_OPS, _WORDS), dtype=bool)
for _op, _fields in LAYOUTS.items():
    _BATCHABLE[_op] = True
    _STATIC[_op, 1:7] = True
    for _i, _field in enumerate(_fields, start=1):
        _STATIC[_op, _i] = _field is STATIC
    _STATIC[_op, [i + 1 for i, f in enumerate(_fields) if f is ACC]] = True  # one register


def find_runs(entries: np.ndarray, group: bool = True) -> list[tuple[int, int]]:
    """``(first command, command count)`` of each run in a drained queue, in order.

    Greedy from the left: a command joins the run before it when it has the
    run's opcode and static words and, from the run's third command on, its
    operand words advance by the run's stride. Unbatchable commands are runs
    of one. With ``group``, adjacent matmul runs merge (:func:`_group_matmuls`).
    ``entries``: the drained commands, (count, 8) words.
    """
    n = len(entries)
    if n < 2:
        return [(0, n)] if n else []
    w = entries.astype(np.int64)
    ops = np.minimum(w[:, 0], _OPS - 1)
    step = w[1:] - w[:-1]
    step[:, 0] = step[:, 7] = 0  # opcodes compared below; call sites may differ
    # Row-wise any/all of 8 booleans as one uint64 each (much faster than axis=1).
    joins = (ops[1:] == ops[:-1]) & _BATCHABLE[ops[1:]]
    joins &= _rows((step != 0) & _STATIC[ops[1:]]) == 0
    same_step = _rows(step[1:] == step[:-1]) == _ALL  # [i - 2]: command i keeps the stride
    starts = np.concatenate(([0], np.flatnonzero(~joins) + 1))
    ends = np.append(starts[1:], n)
    # Segments of joining commands are runs unless the stride changes inside one.
    changes = np.concatenate(([0], np.cumsum(~same_step)))
    long = np.flatnonzero(ends - starts >= 3)
    split = long[changes[ends[long] - 2] > changes[starts[long]]]
    runs = list(zip(starts.tolist(), (ends - starts).tolist(), strict=True))
    for k in sorted(split.tolist(), reverse=True):  # from the back: indices stay valid
        runs[k : k + 1] = _split_on_stride(int(starts[k]), int(ends[k]), same_step)
    return _group_matmuls(entries, runs) if group else runs


def _group_matmuls(entries: np.ndarray, runs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Merges adjacent matmul runs with the same operand formats into one *group*.

    A block matmul issues the K steps of each output tile back to back, so its
    strided runs are K long; the coprocessor executes a whole group (any
    operands: ``Coprocessor._matmul_group``) in one batched multiplication.
    """
    out: list[tuple[int, int]] = []
    for start, count in runs:  # consecutive: each starts where the one before ends
        if out and _same_matmul(entries[out[-1][0]], entries[start]):
            out[-1] = (out[-1][0], out[-1][1] + count)
        else:
            out.append((start, count))
    return out


def _same_matmul(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether commands ``a`` and ``b`` are both matmuls with the same operand formats."""
    return a[0] == b[0] == memmap.COP_MATMUL and a[2] == b[2] and a[4] == b[4]


_ALL = int.from_bytes(bytes([1] * _WORDS), "little")


def _rows(flags: np.ndarray) -> np.ndarray:
    """Each row of a (n, 8) bool array as one uint64 (0: all False, _ALL: all True)."""
    return np.ascontiguousarray(flags).view(np.uint64).ravel()


def _split_on_stride(start: int, end: int, same_step: np.ndarray) -> list[tuple[int, int]]:
    """The runs of joining commands [start, end) whose stride changes inside."""
    runs, first = [], start
    for i in range(start + 2, end):
        if i - first >= 2 and not same_step[i - 2]:
            runs.append((first, i - first))
            first = i
    runs.append((first, end - first))
    return runs


def independent(
    layout: tuple[Field, ...],
    first: tuple[int, ...],
    step: tuple[int, ...],
    count: int,
    tile_bytes: dict[int, int],
) -> bool:
    """Whether ``count`` commands (operand words ``first + i * step``) may run as one.

    They may when no command reads or writes what another one writes: written
    DST registers are distinct and none is read by another command, written L1
    tiles do not overlap. ACC registers are the exception the batched
    reduction handles: every command accumulates into the same one, in order.
    ``tile_bytes``: word index -> tile size of the L1 field at that index.
    """
    regs = [i for i, f in enumerate(layout) if f.kind in ("reg_in", "reg_out", "reg_inout")]
    for i, field in enumerate(layout):
        if field.kind == "l1_out" and abs(step[i]) < tile_bytes[i]:
            return False
    if not regs:
        return True
    # Common case: all registers step together, by at least one command's span.
    span = max(first[i] for i in regs) - min(first[i] for i in regs)
    if len({step[i] for i in regs}) == 1 and abs(step[regs[0]]) > span:
        return True
    touched: list[set[int]] = [set() for _ in range(count)]  # registers per command
    written: list[int] = []
    for i in regs:
        field = layout[i]
        if field.kind != "reg_in" and step[i] == 0:
            return False
        for j in range(count):
            reg = first[i] + j * step[i]
            touched[j].add(reg)
            if field.kind != "reg_in":
                written.append(reg)
    # A written register touched by two commands is shared between them.
    users = Counter(reg for command in touched for reg in command)
    return all(users[reg] == 1 for reg in written)
