"""The BFP8_b tile format (ttl/runtime/bfp8.py) against hand-computed tiles and bounds."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from ttl.runtime import bfp8, tiles


def _tile(rows: dict[int, list[float]]) -> np.ndarray:
    """A face-layout tile (1, 1024) of zeros with face-row groups ``g`` set to ``values``."""
    t = np.zeros((bfp8.GROUPS, bfp8.GROUP), np.float32)
    for g, values in rows.items():
        t[g, : len(values)] = values
    return t.reshape(1, -1)


def test_a_tile_is_64_exponents_then_1024_sign_magnitude_bytes():
    # Group 0: 1.0 sets the exponent (127); 0.5 is one place down, -0.75 is 0b0110000 negated.
    # Group 5: 3.0 = 1.1b x 2^1 -> exponent 128, magnitude 0b1100000.
    raw = bfp8.pack(_tile({0: [1.0, 0.5, -0.75, 0.0], 5: [3.0]}))
    assert raw.shape == (1, 1088) and raw.dtype == np.uint8
    assert raw[0, 0] == 127 and raw[0, 5] == 128
    assert (raw[0, [1, 2, 3, 4, 6]] == 0).all()  # all-zero rows: exponent 0
    assert list(raw[0, 64:68]) == [0x40, 0x20, 0x80 | 0x30, 0]
    assert raw[0, 64 + 5 * 16] == 0x60


def test_rounding_is_to_nearest_even_on_the_dropped_bits_and_saturates():
    # Shared exponent 127 (1.0): one magnitude step is 2^-6.
    step = 2.0**-6
    values = [1.0, 3.5 * step, 2.5 * step, 2.5 * step + 2.0**-20, 127.6 * step, -0.0]
    raw = bfp8.pack(_tile({0: values}))
    # 3.5 -> 4 (tie, odd -> even), 2.5 -> 2 (tie, even stays), just above 2.5 -> 3,
    # 127.6 -> 128 saturates at 127, -0.0 -> 0 with no sign.
    assert list(raw[0, 64:70]) == [64, 4, 2, 3, 127, 0]


def test_a_small_element_beside_a_large_one_flushes_to_zero_without_its_sign():
    raw = bfp8.pack(_tile({3: [2.0**20, -(2.0**-10)]}))
    assert raw[0, 3] == 127 + 20
    assert raw[0, 64 + 48 + 1] == 0  # 2^-30 below the shared 2^20: no bits left, sign dropped


def test_unpack_of_golden_bytes():
    raw = np.zeros((1, 1088), np.uint8)
    raw[0, 0] = 130  # 2^3
    raw[0, 64:68] = [0x40, 0x01, 0xFF, 0x80]
    values = bfp8.unpack(raw)[0, :4]
    # 0x40 -> 1.0 * 8; 0x01 -> 2^-6 * 8; 0xFF -> -(127/64) * 8; 0x80 -> -0.0
    assert list(values) == [8.0, 0.125, -127 / 8, 0.0]
    assert np.signbit(values[3])


def test_unpack_flushes_magnitudes_below_the_smallest_normal_to_zero():
    raw = np.zeros((1, 1088), np.uint8)
    raw[0, 0] = 3  # shared 2^-124: 0x01 would be 2^-130
    raw[0, 64:66] = [0x01, 0x40]
    assert list(bfp8.unpack(raw)[0, :2]) == [0.0, 2.0**-124]


_FINITE = st.floats(-(2.0**100), 2.0**100, width=32, allow_subnormal=False)


@settings(max_examples=60, deadline=None)
@given(arrays(np.float32, (2, 1024), elements=_FINITE))
def test_quantization_error_is_at_most_half_a_step_of_the_shared_exponent(x):
    y = bfp8.unpack(bfp8.pack(x))
    exp = (x.view(np.uint32) >> 23 & 0xFF).reshape(2, 64, 16).max(axis=2, keepdims=True)
    step = np.ldexp(1.0, exp.astype(np.int64) - 127 - 6)  # one unit of the 7-bit magnitude
    err = np.abs(x.astype(np.float64) - y.astype(np.float64)).reshape(2, 64, 16)
    # Half a step from rounding; the top of a row saturates at 127 (< one step below 2^(e+1)).
    assert (err <= step).all()
    below_top = np.abs(x.reshape(2, 64, 16)) < 127 * step
    assert ((err <= step / 2) | ~below_top).all()


@settings(max_examples=60, deadline=None)
@given(arrays(np.float32, (2, 1024), elements=_FINITE))
def test_packing_values_already_on_the_grid_is_exact(x):
    y = bfp8.unpack(bfp8.pack(x))
    assert np.array_equal(bfp8.unpack(bfp8.pack(y)), y)
    assert np.array_equal(bfp8.pack(y), bfp8.pack(bfp8.unpack(bfp8.pack(y))))
    # Every value fits bfloat16 exactly (at most 7 significant bits).
    assert np.array_equal(y.astype(ml_dtypes.bfloat16).astype(np.float32), y)


def test_small_integers_and_powers_of_two_are_exact():
    x = np.concatenate([np.arange(-64, 64), 2.0 ** np.arange(-60, 60, 0.5).round()])[:1024]
    x = np.resize(x, (1, 1024)).astype(np.float32)
    x.reshape(64, 16)[:, 0] = 127  # every row shares the exponent of 127 ...
    x.reshape(64, 16)[:, 1:] = np.arange(-7, 8)  # ... and holds integers that fit 7 bits
    assert np.array_equal(bfp8.unpack(bfp8.pack(x)), x)


@pytest.mark.parametrize("fmt", [tiles.BF16, tiles.F32, tiles.BFP8])
def test_encode_decode_round_trip_through_the_format(fmt):
    x = np.random.default_rng(1).standard_normal((3, 1024)).astype(np.float32)
    raw = tiles.encode(x, fmt)
    assert raw.shape == (3, fmt.tile_bytes) and raw.dtype == np.uint8
    back = tiles.decode(raw, fmt)
    assert back.dtype == fmt.dtype
    assert np.array_equal(back, tiles.round_to_format(x, fmt) if not fmt.packed else back)
    assert np.array_equal(tiles.decode(tiles.encode(back, fmt), fmt), back)


def test_round_to_format_quantizes_per_tile_face_row():
    x = np.zeros((32, 64), np.float32)
    x[0, 0], x[0, 1], x[0, 2] = 100.0, 0.3, 2.6  # one face row: steps of 1 beside 100
    x[0, 16] = 0.3  # another face row (face 1): 0.3 keeps 7 bits
    y = tiles.round_to_format(x, tiles.BFP8)
    assert y.dtype == ml_dtypes.bfloat16
    assert [float(v) for v in y[0, :3]] == [100.0, 0.0, 3.0]
    assert float(y[0, 16]) == pytest.approx(0.3, rel=2**-7)
    assert tiles.data_format("bfloat8_b") is tiles.BFP8
    assert tiles.format_from_code(6) is tiles.BFP8


def _cop_with_bfp8_tiles(count: int):
    """A coprocessor whose L1 holds ``count`` BFP8_b tiles at 0 (and room to pack after)."""
    from ttl.runtime.coprocessor import Coprocessor

    x = np.random.default_rng(2).standard_normal((count, 1024)).astype(np.float32) * 8
    l1 = np.zeros(2 * count * bfp8.TILE_BYTES, np.uint8)
    l1[: count * bfp8.TILE_BYTES] = bfp8.pack(x).reshape(-1)
    return Coprocessor(l1, dst_tiles=8)


@pytest.mark.parametrize("together", [True, False])
def test_the_coprocessor_unpacks_and_packs_bfp8_tiles(together):
    from test_cop_batching import _queue

    from ttl.runtime import memmap

    fmt, n, size = memmap.FMT_BFP8_B, 4, bfp8.TILE_BYTES
    cop = _cop_with_bfp8_tiles(n)
    unpacks = [(memmap.COP_UNPACK, j * size, fmt, j) for j in range(n)]
    scale = [(memmap.COP_SCALAR, memmap.BINOP_MUL, j, 0x3FC00000) for j in range(n)]  # * 1.5
    packs = [(memmap.COP_PACK, j, (n + j) * size, fmt, 0) for j in range(n)]
    cmds = [*unpacks, *scale, *packs]
    for queue in [cmds] if together else [[c] for c in cmds]:
        cop.drain(_queue(queue))
    assert (cop.batched > 0) == together  # runs of 4 vectorize over the packed tiles
    values = bfp8.unpack(cop.l1[: n * size].reshape(n, size))
    np.testing.assert_array_equal(cop.dst[:n], values * np.float32(1.5))
    packed = cop.l1[n * size :].reshape(n, size)
    np.testing.assert_array_equal(packed, bfp8.pack(values * np.float32(1.5)))
    assert not np.array_equal(bfp8.unpack(packed), values * np.float32(1.5))  # it rounded


def test_a_pack_with_l1_accumulation_adds_to_the_unpacked_bfp8_tile():
    from test_cop_batching import _queue

    from ttl.runtime import memmap

    cop = _cop_with_bfp8_tiles(1)
    old = bfp8.unpack(cop.l1[: bfp8.TILE_BYTES])
    cop.dst[0] = np.float32(0.25)
    cop.drain(_queue([(memmap.COP_PACK, 0, 0, memmap.FMT_BFP8_B, 1)]))
    np.testing.assert_array_equal(cop.l1[: bfp8.TILE_BYTES], bfp8.pack(old + np.float32(0.25))[0])
