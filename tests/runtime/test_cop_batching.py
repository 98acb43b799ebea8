"""Runs of same-kind coprocessor commands executed as one NumPy call (cop_runs).

Every batchable kind: a run drained at once is vectorized (``Coprocessor.batched``
counts it) and leaves DST and L1 bit-identical to the same commands drained one
per queue, on random tiles with inf, -inf, nan and ties. Dependent runs are not
vectorized; a fault inside a run names the failing command's call site.
"""

from __future__ import annotations

import numpy as np
import pytest

from ttl.runtime import memmap
from ttl.runtime.cop_runs import find_runs
from ttl.runtime.coprocessor import Coprocessor, DstMode
from ttl.runtime.errors import DeviceFault
from ttl.runtime.tiles import BF16, F32

BF, FP = memmap.FMT_FLOAT16_B, memmap.FMT_FLOAT32
TILES = 0x8000  # L1 tiles for operands start here; 0 .. TILES holds pack targets
RA = 0x10000100  # call site of command j: RA + 4 * j


def _queue(cmds) -> np.ndarray:
    q = np.zeros(memmap.COP_QUEUE_SIZE // 4, np.uint32)
    q[0] = len(cmds)
    for i, cmd in enumerate(cmds):
        words = [*cmd, *[0] * (7 - len(cmd))]
        q[8 + 8 * i : 16 + 8 * i] = [*words, RA + 4 * i]
    return q


def _random_state(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """An L1 of random bf16 and fp32 tiles and random DST contents, both with
    specials, small integers (exact ties for max/where/compare) and exact ones."""
    rng = np.random.default_rng(seed)
    l1 = np.zeros(TILES + 16 * F32.tile_bytes, np.uint8)
    values = rng.standard_normal(l1[TILES:].size // 4).astype(np.float32) * 4
    values[rng.integers(0, values.size, 200)] = np.float32(np.inf)
    values[rng.integers(0, values.size, 200)] = -np.float32(np.inf)
    values[rng.integers(0, values.size, 200)] = np.float32(np.nan)
    values[rng.integers(0, values.size, 800)] = rng.integers(-2, 3, 800)
    values[rng.integers(0, values.size, 400)] = 1.0
    l1[TILES:] = values.view(np.uint8)  # read as bf16 tiles these are other values
    dst = rng.standard_normal((8, 1024)).astype(np.float32)
    dst.reshape(-1)[rng.integers(0, dst.size, 300)] = np.nan
    dst.reshape(-1)[rng.integers(0, dst.size, 300)] = np.inf
    dst.reshape(-1)[rng.integers(0, dst.size, 300)] = -np.inf
    dst.reshape(-1)[rng.integers(0, dst.size, 2000)] = rng.integers(-1, 3, 2000)
    return l1, dst


def _run_both(cmds, seed=0, mode: DstMode | None = None) -> Coprocessor:
    """Drains ``cmds`` at once and one per queue on equal states (in DST ``mode``);
    asserts equal bits."""
    l1, dst = _random_state(seed)
    cops = []
    for together in (True, False):
        cop = Coprocessor(l1.copy(), dst_tiles=8)
        cop.reset(mode)
        cop.dst[:] = dst
        with np.errstate(all="ignore"):
            if together:
                cop.drain(_queue(cmds))
            else:
                for cmd in cmds:
                    cop.drain(_queue([cmd]))
        cops.append(cop)
    batched, single = cops
    assert single.batched == 0
    np.testing.assert_array_equal(batched.dst.view(np.uint32), single.dst.view(np.uint32))
    np.testing.assert_array_equal(batched.l1, single.l1)
    return batched


def _tile(i: int, fmt: int = BF) -> int:
    return TILES + i * (BF16 if fmt == BF else F32).tile_bytes


_KINDS = {
    "unpack bf16": [(memmap.COP_UNPACK, _tile(j), BF, 2 * j) for j in range(4)],
    "unpack f32": [(memmap.COP_UNPACK, _tile(j, FP), FP, j) for j in range(8)],
    "binary sub L1": [
        (memmap.COP_BINARY, memmap.BINOP_SUB, _tile(j), BF, _tile(2 * j + 4), BF, 2 * j)
        for j in range(4)
    ],
    "binary div DST": [
        (memmap.COP_BINARY_DST, memmap.BINOP_DIV, 2 * j, 2 * j + 1, 2 * j) for j in range(4)
    ],
    "binary mod DST": [
        (memmap.COP_BINARY_DST, memmap.BINOP_MOD, j + 4, j, j + 4) for j in range(4)
    ],
    **{
        f"unary {op}": [(memmap.COP_UNARY, getattr(memmap, f"UNOP_{op}"), 2 * j) for j in range(4)]
        for op in ("EXP", "LOG", "RSQRT", "RECIP", "SIGMOID", "TANH", "SIN", "GELU", "FRAC")
    },
    "unary param elu": [
        (memmap.COP_UNARY_PARAM, memmap.UNOP_ELU, j, 0x3F000000, 0, 0) for j in range(8)
    ],
    "fill": [(memmap.COP_FILL, 7 - j, 0x3FC00000) for j in range(8)],
    **{
        f"bcast {kind} {src}": [
            (memmap.COP_BCAST, _tile(j if src == "tiles" else 3), BF, 2 * j + 1, kind)
            for j in range(4)
        ]
        for kind in range(4)
        for src in ("tiles", "one tile")
    },
    "pack bf16": [(memmap.COP_PACK, 2 * j, j * BF16.tile_bytes, BF, 0) for j in range(4)],
    "pack f32 l1_acc": [
        (memmap.COP_PACK, j, _tile(j, FP), FP, 1) for j in range(8)
    ],  # accumulates onto operand tiles
    "pack bf16 l1_acc": [(memmap.COP_PACK, j, _tile(j), BF, 1) for j in range(8)],
    **{
        f"reduce {pool} {dim}": [
            (memmap.COP_REDUCE, _tile(j), BF, _tile(9), BF, 5, pool | dim << 4) for j in range(8)
        ]
        for pool in (0, 2)
        for dim in range(3)
    },
    "transpose": [(memmap.COP_TRANSPOSE, _tile(j), BF, 7 - j) for j in range(8)],
    **{
        # A 2x3 @ 3x2 block, as the compiler issues it: per output tile its K steps.
        f"matmul block {name}": [
            (
                memmap.COP_MATMUL,
                _tile(i * 3 + k, fmt),
                fmt,
                _tile(6 + k * 2 + j, fmt),
                fmt,
                i * 2 + j,
            )
            for i in range(2)
            for j in range(2)
            for k in range(3)
        ]
        for name, fmt in (("bf16", BF), ("f32", FP))
    },
    "where": [(memmap.COP_WHERE, 4 * j, 4 * j + 1, 4 * j + 2, 4 * j + 3) for j in range(2)],
    "mask posinf": [(memmap.COP_MASK, 2 * j, 2 * j + 1, 1) for j in range(4)],
    "compare_zero ge": [(memmap.COP_COMPARE_ZERO, memmap.CMPZ_GE, j) for j in range(8)],
    "scalar rsub": [(memmap.COP_SCALAR, memmap.BINOP_RSUB, j, 0x40490FDB) for j in range(8)],
}


@pytest.mark.parametrize("cmds", list(_KINDS.values()), ids=list(_KINDS))
def test_run_is_vectorized_and_bit_identical(cmds):
    cop = _run_both(cmds)
    assert cop.batched == len(cmds)


def test_reduce_run_accumulates_in_command_order():
    # Sums of large and small values: a different order would round differently.
    cmds = [(memmap.COP_REDUCE, _tile(j, FP), FP, _tile(9), BF, 0, 0) for j in range(16)]
    for seed in range(4):
        assert _run_both(cmds, seed).batched == 16


@pytest.mark.parametrize("fp32", [True, False], ids=["fp32 DST", "16-bit DST"])
def test_matmul_group_accumulates_each_register_in_command_order(fp32):
    """Any tiles and registers: K outer (each register's products interleaved with
    the others'), repeated tiles, and a register used once; in 16-bit DST mode
    every step's sum is rounded to bf16, as one command at a time would."""
    cmds = [
        (memmap.COP_MATMUL, _tile((5 * k + r) % 12), BF, _tile(12 + (k + 2 * r) % 7), BF, r)
        for k in range(4)
        for r in (3, 0, 6)
    ]
    cmds.append((memmap.COP_MATMUL, _tile(2), BF, _tile(2), BF, 7))
    for seed in range(3):
        cop = _run_both(cmds, seed, DstMode(fp32=fp32, tiles=8))
        assert cop.batched == len(cmds)


@pytest.mark.parametrize("fp32", [True, False], ids=["fp32 DST", "16-bit DST"])
@pytest.mark.parametrize("k_inner", [True, False], ids=["K inner", "K outer"])
def test_matmul_group_of_a_block_product(fp32, k_inner):
    """A 2x2 block of tiles times a 2x2 block (each register gets K = 2 products, the rounds
    cover the same registers, summed as whole row-major tiles): the same bits as
    one command at a time, whichever loop is innermost."""
    steps = [(i, j, k) for i in range(2) for j in range(2) for k in range(2)]
    if not k_inner:
        steps.sort(key=lambda ijk: ijk[2])
    cmds = [
        (memmap.COP_MATMUL, _tile(2 * i + k), BF, _tile(4 + 2 * k + j), BF, 2 * i + j + 1)
        for i, j, k in steps
    ]
    for seed in range(3):
        cop = _run_both(cmds, seed, DstMode(fp32=fp32, tiles=8))
        assert cop.batched == len(cmds)


def test_block_float_matmuls_run_as_strided_runs():
    bfp8 = memmap.FMT_BFP8_B
    cmds = [
        (memmap.COP_MATMUL, TILES + 1088 * k, bfp8, TILES + 1088 * (4 + k), bfp8, d)
        for d in range(2)
        for k in range(3)
    ]
    assert _run_both(cmds).batched == len(cmds)


def test_repeated_reduce_accumulates_every_command():
    # Every operand word repeats: the same tile reduced four times into one register.
    cmds = [(memmap.COP_REDUCE, _tile(2), BF, _tile(9), BF, 1, 0)] * 4
    assert _run_both(cmds).batched == 4


@pytest.mark.parametrize(
    "cmds",
    [
        [(memmap.COP_UNARY, memmap.UNOP_EXP, 3)] * 3,  # the same register three times
        [(memmap.COP_BINARY_DST, memmap.BINOP_ADD, j, j + 1, j + 1) for j in range(5)],  # a chain
        [(memmap.COP_PACK, j, _tile(0) + 2 * j, BF, 1) for j in range(3)],  # overlapping tiles
    ],
    ids=["same register", "chain", "overlapping pack"],
)
def test_dependent_run_runs_in_order(cmds):
    assert _run_both(cmds).batched == 0


def test_fault_in_a_run_names_its_command_after_the_ones_before_ran():
    l1, dst = _random_state(1)
    cop = Coprocessor(l1, dst_tiles=8)
    cop.dst[:] = np.abs(dst)
    before = cop.dst.copy()
    cmds = [(memmap.COP_UNARY, memmap.UNOP_SQRT, 2 + 2 * j) for j in range(5)]  # 2, 4, 6, 8, 10
    with pytest.raises(DeviceFault, match="DST index 8 is out of range") as err:
        cop.drain(_queue(cmds))
    assert err.value.ra == RA + 4 * 3
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(cop.dst[2:7:2], np.sqrt(before[2:7:2]))
    np.testing.assert_array_equal(cop.dst[1::2], before[1::2])


def test_fault_in_a_pack_run_past_l1():
    cop = Coprocessor(np.zeros(3 * BF16.tile_bytes, np.uint8), dst_tiles=8)
    cmds = [(memmap.COP_PACK, j, j * BF16.tile_bytes, BF, 0) for j in range(4)]
    with pytest.raises(DeviceFault, match="outside L1") as err:
        cop.drain(_queue(cmds))
    assert err.value.ra == RA + 4 * 3


def test_find_runs_splits_on_kind_statics_and_stride():
    cmds = [
        (memmap.COP_UNARY, 0, 0),
        (memmap.COP_UNARY, 0, 2),
        (memmap.COP_UNARY, 0, 4),
        (memmap.COP_UNARY, 0, 5),  # stride changes: a new run with the next one
        (memmap.COP_UNARY, 0, 6),
        (memmap.COP_UNARY, 1, 7),  # another unary op
        (memmap.COP_ACQUIRE,),
        (memmap.COP_ACQUIRE,),  # never batched
        (memmap.COP_REDUCE, 0, BF, 0, BF, 3, 0),
        (memmap.COP_REDUCE, 2048, BF, 0, BF, 4, 0),  # accumulating register changes
    ]
    entries = np.array([[*cmd, *[0] * (7 - len(cmd)), i] for i, cmd in enumerate(cmds)])
    assert find_runs(entries) == [(0, 3), (3, 2), (5, 1), (6, 1), (7, 1), (8, 1), (9, 1)]


def test_find_runs_groups_adjacent_matmuls_of_one_format_pair():
    def mm(dst, a=0, fmt=BF):
        return (memmap.COP_MATMUL, a, fmt, 0, fmt, dst)

    cmds = [mm(0, 0), mm(0, 2048), mm(1, 0), mm(1, 2048), mm(2, 0, FP), (memmap.COP_ACQUIRE,)]
    cmds += [mm(3), mm(4)]
    entries = np.array([[*cmd, *[0] * (7 - len(cmd)), i] for i, cmd in enumerate(cmds)])
    assert find_runs(entries, group=False) == [(0, 2), (2, 2), (4, 1), (5, 1), (6, 1), (7, 1)]
    assert find_runs(entries) == [(0, 4), (4, 1), (5, 1), (6, 2)]


def test_short_queue_replays_its_plan():
    # The same short queue drained again runs its cached plan: same bits as one by one.
    cmds = [*_KINDS["unpack bf16"], *_KINDS["unary SIGMOID"], *_KINDS["pack bf16"]]
    l1, _ = _random_state(3)
    batched, single = Coprocessor(l1.copy(), dst_tiles=8), Coprocessor(l1.copy(), dst_tiles=8)
    with np.errstate(all="ignore"):
        for _ in range(3):
            batched.drain(_queue(cmds))
            for cmd in cmds:
                single.drain(_queue([cmd]))
    assert len(batched._plans) == 1
    assert batched.batched == 3 * len(cmds)
    np.testing.assert_array_equal(batched.dst.view(np.uint32), single.dst.view(np.uint32))
    np.testing.assert_array_equal(batched.l1, single.l1)


def test_matmul_group_gathers_its_tiles_without_copying_l1():
    """A group reads its tiles from an L1 of full size with memory for the tiles only."""
    import tracemalloc

    cop = Coprocessor(np.zeros(1464 * 1024, np.uint8), dst_tiles=8)
    cmds = [
        (memmap.COP_MATMUL, 2048 * k, BF, 2048 * (8 + k), BF, d) for d in range(4) for k in range(4)
    ]
    cop.drain(_queue(cmds))  # resolves the group
    tracemalloc.start()
    try:
        cop.drain(_queue(cmds))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert cop.batched == 2 * len(cmds)
    assert peak < 1 << 20  # the 16 + 16 tiles and their products, not the 1.4 MiB L1
