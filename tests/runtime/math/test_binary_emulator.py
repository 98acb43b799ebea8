"""Binary block math on the emulator against NumPy float64 (both targets).

max/min, comparisons (0/1 blocks), ``%`` and ``//``, and block-with-scalar
operations (``*_unary_tile``) including ``ttl.math.rsub``.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from binary_emu_lib import BF16_RTOL, as_f64, run_expr

RNG = np.random.default_rng(12)
SHAPE = (64, 64)


def _inputs(lo_b: float = -4.0) -> dict[str, np.ndarray]:
    a = as_f64(RNG.uniform(-4, 4, SHAPE))
    b = as_f64(RNG.uniform(lo_b, 4, SHAPE))
    b[::7, ::5] = a[::7, ::5]  # equal elements exercise ==, !=, >=, <=
    return {"a": a, "b": b}


@pytest.mark.parametrize(
    ("expr", "ref"),
    [
        ("ttl.math.max(a_blk, b_blk)", np.maximum),
        ("ttl.math.min(a_blk, b_blk)", np.minimum),
        ("a_blk > b_blk", lambda a, b: (a > b) * 1.0),
        ("a_blk < b_blk", lambda a, b: (a < b) * 1.0),
        ("a_blk >= b_blk", lambda a, b: (a >= b) * 1.0),
        ("a_blk <= b_blk", lambda a, b: (a <= b) * 1.0),
        ("a_blk == b_blk", lambda a, b: (a == b) * 1.0),
        ("a_blk != b_blk", lambda a, b: (a != b) * 1.0),
        ("ttl.math.gt(a_blk, b_blk)", lambda a, b: (a > b) * 1.0),
        ("ttl.math.lt(a_blk, b_blk)", lambda a, b: (a < b) * 1.0),
        ("ttl.math.eq(a_blk, b_blk)", lambda a, b: (a == b) * 1.0),
        ("ttl.math.ne(a_blk, b_blk)", lambda a, b: (a != b) * 1.0),
    ],
)
def test_binary_functions(tmp_path, target, expr, ref):
    x = _inputs()
    y = run_expr(tmp_path, expr, x, target)
    np.testing.assert_array_equal(y, ref(x["a"], x["b"]))  # exact: one bf16 rounding of exact


@pytest.mark.parametrize(
    ("expr", "ref"),
    [
        ("a_blk % b_blk", np.mod),  # Python floor modulo: the sign of the divisor
        ("a_blk // b_blk", np.floor_divide),
    ],
)
def test_mod_and_floordiv(tmp_path, target, expr, ref):
    x = _inputs()
    x["b"] = np.where(np.abs(x["b"]) < 0.25, 1.5, x["b"])
    x["b"] = np.where(RNG.random(SHAPE) < 0.5, -x["b"], x["b"])
    y = run_expr(tmp_path, expr, x, target)
    want = ref(x["a"], x["b"])
    np.testing.assert_allclose(y, want, rtol=BF16_RTOL, atol=2.0**-6)


def test_floordiv_of_a_quotient_just_below_an_integer(tmp_path, target):
    # a = k*b less one bf16 step: a / b rounds to k in bf16, Python's a // b is k - 1.
    k = RNG.integers(-6, 7, SHAPE).astype(np.float64)
    b = as_f64(RNG.uniform(0.5, 3, SHAPE))
    exact = as_f64(k * b)
    below = np.nextafter(exact.astype(ml_dtypes.bfloat16), ml_dtypes.bfloat16(-np.inf))
    a = np.where(exact == k * b, below.astype(np.float64), exact)
    y = run_expr(tmp_path, "a_blk // b_blk", {"a": a, "b": b}, target)
    np.testing.assert_array_equal(y, np.floor_divide(a, b))


@pytest.mark.parametrize(
    ("expr", "ref"),
    [
        ("a_blk * 2.0", lambda a: a * 2.0),
        ("2 * a_blk", lambda a: a * 2.0),
        ("a_blk + 1", lambda a: a + 1.0),
        ("1.0 + a_blk", lambda a: a + 1.0),
        ("a_blk - 0.5", lambda a: a - 0.5),
        ("1.0 - a_blk", lambda a: 1.0 - a),
        ("a_blk / 4", lambda a: a / 4.0),
        ("3.0 / a_blk", lambda a: 3.0 / a),
        ("ttl.math.rsub(a_blk, 1)", lambda a: 1.0 - a),
        ("ttl.math.max(a_blk, 0.0)", lambda a: np.maximum(a, 0.0)),
        ("a_blk > 0.5", lambda a: (a > 0.5) * 1.0),
        ("0.5 < a_blk", lambda a: (a > 0.5) * 1.0),
        ("a_blk % 1.5", lambda a: np.mod(a, 1.5)),
        ("(a_blk * 0.5 + 1.0) * a_blk", lambda a: (a * 0.5 + 1.0) * a),
    ],
)
def test_scalar_operands(tmp_path, target, expr, ref):
    a = as_f64(RNG.uniform(0.25, 4, SHAPE) * np.where(RNG.random(SHAPE) < 0.5, -1, 1))
    y = run_expr(tmp_path, expr, {"a": a}, target)
    np.testing.assert_allclose(y, ref(a), rtol=BF16_RTOL, atol=2.0**-8)


def test_binary_functions_on_multi_tile_blocks(tmp_path, target):
    x = _inputs()
    expr = "ttl.math.max(a_blk, b_blk) * (a_blk != b_blk) - ttl.math.min(a_blk, 1.0)"
    y = run_expr(tmp_path, expr, x, target, block=(2, 2))
    a, b = x["a"], x["b"]
    want = np.maximum(a, b) * (a != b) - np.minimum(a, 1.0)
    np.testing.assert_allclose(y, want, rtol=BF16_RTOL, atol=2.0**-8)


def test_f32_binary_functions_are_exact(tmp_path, target):
    a = RNG.standard_normal(SHAPE).astype(np.float32)
    b = RNG.standard_normal(SHAPE).astype(np.float32)
    y = run_expr(
        tmp_path,
        "ttl.math.max(a_blk, b_blk) + (a_blk < b_blk)",
        {"a": a, "b": b},
        target,
        dtype=np.float32,
    )
    np.testing.assert_array_equal(y, (np.maximum(a, b) + (a < b)).astype(np.float32))
