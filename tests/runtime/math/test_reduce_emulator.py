"""Reductions, broadcast, transpose, fill, where and mask on the emulator vs NumPy float64.

Each runs on both targets (the ``target`` fixture); inputs are bf16, the math
fp32 in DST, the result packed to bf16 once.
"""

from __future__ import annotations

import numpy as np
import pytest
from reduce_emu_lib import RTOL, as_f64, elements, run_store, tile_reduce


def _rand(shape, seed=0, lo=-2.0, hi=2.0):
    return as_f64(np.random.default_rng(seed).uniform(lo, hi, shape))


def _close(got, want):
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=RTOL * np.abs(want).max())


@pytest.mark.parametrize("fn", ["sum", "max"])
@pytest.mark.parametrize(
    ("shape", "dims"),
    [
        ((2, 3), [-1]),  # REDUCE_ROW: (N, M) -> (N, 1)
        ((2, 3), [1]),
        ((2, 3), [0]),  # REDUCE_COL: (N, M) -> (1, M)
        ((2, 3), [-1, -2]),  # REDUCE_SCALAR: (N, M) -> (1, 1)
        ((2, 2, 3), [-1]),  # (I, N, M) -> (I, N, 1)
        ((2, 2, 3), [1]),  # (I, N, M) -> (I, 1, M)
        ((2, 2, 3), [-1, -2]),  # (I, N, M) -> (I, 1, 1)
        ((3, 1, 2), [0]),  # outer dim only: whole tiles combined
        ((2, 2, 2), [0, -1]),
    ],
)
def test_reduce_matches_numpy(tmp_path, target, fn, shape, dims):
    a = _rand(elements(shape), seed=len(shape) + len(dims))
    s = np.full((32, 32), 0.5)
    out = tuple(1 if i in {d % len(shape) for d in dims} else n for i, n in enumerate(shape))
    got = run_store(
        tmp_path,
        {"a": a, "s": s},
        {"a": shape, "s": (1, 1)},
        out,
        f"ttl.math.reduce_{fn}(a_blk, s_blk, dims={dims})",
        target,
    )
    _close(got, 0.5 * tile_reduce(a, dims, fn))


def test_reduce_without_scaler_and_sim_spelling(tmp_path, target):
    a = _rand((64, 96), seed=3)
    got = run_store(
        tmp_path,
        {"a": a},
        {"a": (2, 3)},
        (2, 1),
        "ttl.math.reduce_sum(a_blk, dims=[-1], shape=(2, 1))"
        " + ttl.math.reduce_max(a_blk, [-1], (2, 1))",  # tt-lang-sim: (x, dims, shape)
        target,
    )
    _close(got, tile_reduce(a, [-1], "sum") + tile_reduce(a, [-1], "max"))


def test_reduce_max_of_negative_rows(tmp_path, target):
    a = _rand((32, 64), seed=4, lo=-3.0, hi=-1.0)
    got = run_store(
        tmp_path, {"a": a}, {"a": (1, 2)}, (1, 1), "ttl.math.reduce_max(a_blk, dims=[-1])", target
    )
    _close(got, tile_reduce(a, [-1], "max"))


@pytest.mark.parametrize(
    ("small", "dims", "spelling"),
    [
        ((2, 1), [-1], "ttl.math.broadcast(b_blk, y_blk, dims={dims})"),  # with the out block
        ((1, 3), [0], "ttl.math.broadcast(b_blk, dims={dims}, shape=(2, 3))"),  # with shape
        ((1, 1), [0, 1], "ttl.block.broadcast(b_blk, dims={dims})"),  # inferred from a_blk
    ],
)
def test_broadcast_forms(tmp_path, target, small, dims, spelling):
    a = _rand((64, 96), seed=5)
    b = _rand(elements(small), seed=6)
    expr = "a_blk + " + spelling.format(dims=dims)
    got = run_store(tmp_path, {"a": a, "b": b}, {"a": (2, 3), "b": small}, (2, 3), expr, target)
    # Within a tile: dim -1 replicates column 0, dim -2 row 0; whole tiles repeat.
    rank = 2
    norm = {d % rank for d in dims}
    tb = b.reshape(small[0], 32, small[1], 32)
    if rank - 1 in norm:
        tb = np.broadcast_to(tb[:, :, :, :1], tb.shape)
    if rank - 2 in norm:
        tb = np.broadcast_to(tb[:, :1, :, :], tb.shape)
    full = np.broadcast_to(tb, (2, 32, 3, 32)).reshape(64, 96)
    _close(got, a + full)


def test_broadcast_3d(tmp_path, target):
    a = _rand((2, 64, 64), seed=7)
    b = _rand((2, 64, 32), seed=8)
    got = run_store(
        tmp_path,
        {"a": a, "b": b},
        {"a": (2, 2, 2), "b": (2, 2, 1)},
        (2, 2, 2),
        "a_blk * ttl.math.broadcast(b_blk, dims=[-1])",
        target,
    )
    col = b.reshape(2, 64, 1, 32)[..., :1]
    _close(got, a * np.broadcast_to(col, (2, 64, 2, 32)).reshape(2, 64, 64))


@pytest.mark.parametrize("spelling", ["ttl.math.transpose", "ttl.block.transpose"])
def test_transpose(tmp_path, target, spelling):
    a = _rand((64, 96), seed=9)
    got = run_store(tmp_path, {"a": a}, {"a": (2, 3)}, (3, 2), f"{spelling}(a_blk)", target)
    _close(got, a.T)


def test_fill_where_mask(tmp_path, target):
    rng = np.random.default_rng(10)
    a, b = _rand((64, 64), seed=11), _rand((64, 64), seed=12)
    cond = rng.integers(0, 2, (64, 64)).astype(np.float64)
    got = run_store(
        tmp_path,
        {"c": cond, "a": a, "b": b},
        {"c": (2, 2), "a": (2, 2), "b": (2, 2)},
        (2, 2),
        "ttl.math.where(c_blk, a_blk, b_blk) + ttl.block.mask(a_blk, c_blk)"
        " + ttl.math.fill(y_blk, 0.25)",
        target,
    )
    _close(got, np.where(cond == 1, a, b) + np.where(cond == 1, 0.0, a) + 0.25)


def test_mask_posinf_and_block_where(tmp_path, target):
    a = _rand((32, 32), seed=13)
    m = (np.arange(32 * 32).reshape(32, 32) % 3 == 0).astype(np.float64)
    got = run_store(
        tmp_path,
        {"a": a, "m": m},
        {"a": (1, 1), "m": (1, 1)},
        (1, 1),
        "ttl.block.where(m_blk, ttl.math.mask_posinf(a_blk, m_blk), a_blk * a_blk)",
        target,
    )
    want = np.where(m == 1, np.inf, a * a)
    assert np.array_equal(np.isinf(got), np.isinf(want))
    _close(np.where(np.isinf(got), 0, got), np.where(np.isinf(want), 0, want))
