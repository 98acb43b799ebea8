"""Every unary ttl.math function on the emulated coprocessor vs a float64 NumPy reference.

The programs (ttl.host.mathcheck.program) are written as the spec writes them:
``with y_dfb.reserve() as y_blk: y_blk.store(ttl.math.exp(a_blk))``. Inputs
sweep each function's domain including its edges (0, -0, +-1, negatives for
log/sqrt, overflow for exp, +-1 for atanh/asin); results are bf16, so the
tolerance is one bf16 ULP of the reference (DST is fp32 and pack rounds to
nearest-even once), NaN where the reference is NaN and exact infinities.
"""

from __future__ import annotations

import numpy as np
import pytest

from ttl.host.mathcheck import CASES, Case, errors
from ttl.runtime import unary_math

TARGETS = ("wormhole_b0", "blackhole")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_unary_matches_float64_reference(unary_results, case: Case, target: str):
    x, y = unary_results(target)[case.name]
    assert y.shape == x.shape and y.dtype == x.dtype
    max_abs, max_ulps, bad = errors(case, x, y)
    assert not bad.any(), f"{case.name}: NaN/inf mismatch at x={x.reshape(-1)[bad.reshape(-1)]}"
    assert max_ulps <= 1.0, f"{case.name}: {max_ulps:.2f} bf16 ULPs (max abs {max_abs:.3g})"


def test_exact_functions_are_bit_exact(unary_results):
    results = unary_results("wormhole_b0")
    for name in ("abs", "-x", "relu", "floor", "ceil", "trunc", "frac", "sign", "signbit"):
        case = next(c for c in CASES if c.name == name)
        x, y = results[name]
        want = case.ref(x.astype(np.float64)).astype(np.float32).astype(y.dtype)
        np.testing.assert_array_equal(y.view(np.uint16), want.view(np.uint16), err_msg=name)


def test_domain_edges():
    # Straight on the coprocessor functions: the values a hardware build documents.
    f = unary_math.UNARY
    from ttl.runtime import memmap

    with np.errstate(all="ignore"):
        x = np.array([0.0, -0.0, -1.0, 1.0, 2.0], dtype=np.float32)
        assert np.isnan(f[memmap.UNOP_ACOSH](x)[[0, 2]]).all()
        assert f[memmap.UNOP_ATANH](x)[3] == np.inf
        assert np.isnan(f[memmap.UNOP_ASIN](x)[4])
        np.testing.assert_array_equal(f[memmap.UNOP_SIGNBIT](x), [0, 1, 1, 0, 0])
        np.testing.assert_array_equal(f[memmap.UNOP_SIGN](x), [0, 0, -1, 1, 1])
        g = f[memmap.UNOP_GELU_APPROX](np.array([1.0], dtype=np.float32))
        assert abs(g[0] - 0.8411920) < 1e-6  # tanh-approximation GELU(1)


def test_erfc_is_accurate_in_the_tails():
    import math

    x = np.linspace(-9, 9, 2001)
    want = np.array([math.erfc(v) for v in x])
    got = unary_math.erfc(x)
    assert np.max(np.abs(got - want) / want) < 1.3e-7
