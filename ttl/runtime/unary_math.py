"""The coprocessor's Appendix B unary functions (SFPU ops) on fp32 DST tiles.

Every function is vectorised NumPy over one tile. Method (docs/math.md): the
fp32 DST values are widened to float64, the function is evaluated with
NumPy's float64 libm (or, for GELU's erfc, a Chebyshev fit), and the
result is rounded once to fp32 when it is written back to DST; pack then rounds
to bf16 (nearest-even). Silicon's SFPU uses polynomial approximations instead,
so the emulator is at least as accurate as hardware; docs/math.md lists the
measured errors.

``UNARY``: opcode -> f(x) (``TTL_COP_UNARY``). ``UNARY_PARAM``: opcode ->
f(x, p0, p1, p2) with the raw parameter words of ``TTL_COP_UNARY_PARAM``
(float parameters are binary32 bit patterns; ``power``'s exponent and
``round``'s decimals are integers).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ttl.runtime import memmap

Array = np.ndarray

_SQRT1_2 = 0.7071067811865476
_GELU_K = 0.7978845608028654  # sqrt(2 / pi)


def erfc(x: Array) -> Array:
    """erfc in float64: the Chebyshev fit of Numerical Recipes' erfcc.

    Fractional error below 1.2e-7 everywhere, so the tails (GELU of large
    negative x) stay accurate where 1 + erf(x) would cancel.
    """
    z = np.abs(x)
    t = 1.0 / (1.0 + 0.5 * z)
    coeffs = (0.17087277, -0.82215223, 1.48851587, -1.13520398, 0.27886807, -0.18628806)
    poly = 0.0
    for c in coeffs:  # Horner, innermost six terms (each step is a whole-tile op)
        poly = (poly + c) * t
    poly = -1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + poly)))
    r = t * np.exp(-z * z + poly)
    return np.where(x >= 0, r, 2.0 - r)


def _gelu(x: Array) -> Array:
    return 0.5 * x * erfc(-x * _SQRT1_2)


def _gelu_tanh(x: Array) -> Array:
    return 0.5 * x * (1.0 + np.tanh(_GELU_K * (x + 0.044715 * x * x * x)))


def _wide(fn: Callable[[Array], Array]) -> Callable[[Array], Array]:
    """``fn`` evaluated in float64 (the caller writes the result back as fp32)."""

    def run(x: Array) -> Array:
        return fn(x.astype(np.float64))

    return run


def _bits(word: int) -> float:
    """A binary32 bit pattern as a float."""
    return float(np.array([word], dtype=np.uint32).view(np.float32)[0])


UNARY: dict[int, Callable[[Array], Array]] = {
    memmap.UNOP_EXP2: _wide(np.exp2),
    memmap.UNOP_EXPM1: _wide(np.expm1),
    memmap.UNOP_LOG1P: _wide(np.log1p),
    memmap.UNOP_SQUARE: _wide(np.square),
    memmap.UNOP_TAN: _wide(np.tan),
    memmap.UNOP_ATAN: _wide(np.arctan),
    memmap.UNOP_ATANH: _wide(np.arctanh),
    memmap.UNOP_SIN: _wide(np.sin),
    memmap.UNOP_ASIN: _wide(np.arcsin),
    memmap.UNOP_ASINH: _wide(np.arcsinh),
    memmap.UNOP_COS: _wide(np.cos),
    memmap.UNOP_ACOS: _wide(np.arccos),
    memmap.UNOP_ACOSH: _wide(np.arccosh),
    memmap.UNOP_SILU: _wide(lambda x: x / (1.0 + np.exp(-x))),
    memmap.UNOP_SOFTSIGN: _wide(lambda x: x / (1.0 + np.abs(x))),
    memmap.UNOP_HARDSIGMOID: _wide(lambda x: np.clip(x / 6.0 + 0.5, 0.0, 1.0)),
    memmap.UNOP_SIGN: np.sign,
    memmap.UNOP_SIGNBIT: lambda x: np.signbit(x).astype(np.float32),
    memmap.UNOP_FLOOR: np.floor,
    memmap.UNOP_CEIL: np.ceil,
    memmap.UNOP_TRUNC: np.trunc,
    memmap.UNOP_FRAC: lambda x: x - np.trunc(x),
    memmap.UNOP_GELU: _wide(_gelu),
    memmap.UNOP_GELU_APPROX: _wide(_gelu_tanh),
}


def _elu(x: Array, alpha: float) -> Array:
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0.0)))


def _softplus(x: Array, beta: float, beta_recip: float, threshold: float) -> Array:
    bx = beta * x
    return np.where(bx > threshold, x, np.log1p(np.exp(np.minimum(bx, threshold))) * beta_recip)


def _clamp(x: Array, lo: float, hi: float) -> Array:
    return np.minimum(np.maximum(x, lo), hi)


def _exp_options(x: Array, scale: int, iterations: int) -> Array:
    """``exp_tile<approx, scale_en, clamping, iterations>``: e^(scale * x) in the first
    ``iterations`` x 32 elements (two rows per iteration) of each 16x16 face of each
    tile (``x`` holds whole tiles in face order); the rest of the tile as it was."""
    y = np.exp(_bits(scale) * x)
    if iterations >= 8:
        return y
    within_face = np.arange(x.size).reshape(x.shape) % 256
    return np.where(within_face < 32 * iterations, y, x)


# Each takes x (float64) and the three parameter words.
UNARY_PARAM: dict[int, Callable[[Array, int, int, int], Array]] = {
    memmap.UNOP_EXP_OPTIONS: lambda x, s, n, _c: _exp_options(x, s, n),
    memmap.UNOP_POWER: lambda x, n, _b, _c: np.power(x, n),
    memmap.UNOP_RELU_MAX: lambda x, u, _b, _c: np.minimum(np.maximum(x, 0.0), _bits(u)),
    # The spec's relu(max(x, lower_limit)).
    memmap.UNOP_RELU_MIN: lambda x, lo, _b, _c: np.maximum(np.maximum(x, _bits(lo)), 0.0),
    memmap.UNOP_LEAKY_RELU: lambda x, s, _b, _c: np.where(x < 0, _bits(s) * x, x),
    memmap.UNOP_PRELU: lambda x, a, _b, _c: np.where(x < 0, _bits(a) * x, x),
    memmap.UNOP_ELU: lambda x, a, _b, _c: _elu(x, _bits(a)),
    memmap.UNOP_CELU: lambda x, a, r, _c: np.where(
        x > 0, x, _bits(a) * np.expm1(np.minimum(x, 0.0) * _bits(r))
    ),
    memmap.UNOP_SOFTPLUS: lambda x, b, r, t: _softplus(x, _bits(b), _bits(r), _bits(t)),
    memmap.UNOP_HARDTANH: lambda x, lo, hi, _c: _clamp(x, _bits(lo), _bits(hi)),
    memmap.UNOP_SELU: lambda x, s, a, _c: _bits(s) * _elu(x, _bits(a)),
    # round half to even at `decimals` places (torch.round(x, decimals=)).
    memmap.UNOP_ROUND: lambda x, d, _b, _c: np.round(x, int(np.int32(np.uint32(d)))),
    memmap.UNOP_CLAMP: lambda x, lo, hi, _c: _clamp(x, _bits(lo), _bits(hi)),
    # The spec's definition: elements greater than `threshold` become `value`.
    memmap.UNOP_THRESHOLD: lambda x, t, v, _c: np.where(x > _bits(t), _bits(v), x),
}
