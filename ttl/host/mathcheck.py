"""The unary ``ttl.math`` functions run through the emulator against float64 references.

Shared by ``tests/runtime/math/test_unary_emulator.py`` and
``bench/math_accuracy.py``. :data:`CASES` lists one case per spelling (the
Appendix B functions, their parameters, ``abs(x)``, ``-x`` and ``**``): the
block expression as a program writes it, a float64 NumPy reference, the input
sweep (domain edges included) and the method the coprocessor uses.
:func:`run_cases` builds one TT-Lang operation per group of cases (one input
tensor, one output per case, written the spec's way), runs it on the emulator
and returns each case's bf16 result.
"""

from __future__ import annotations

import importlib.util
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import ml_dtypes
import numpy as np

BF16 = ml_dtypes.bfloat16
Ref = Callable[[np.ndarray], np.ndarray]

LIBM = "float64 NumPy libm, rounded to fp32 in DST"
EXACT = "exact in fp32 (select/compare/arith)"


@dataclass(frozen=True)
class Case:
    """One spelling of a unary function: ``expr`` uses the input block ``a_blk``."""

    name: str
    expr: str
    ref: Ref
    lowering: str
    method: str = LIBM
    lo: float = -8.0
    hi: float = 8.0
    edges: tuple[float, ...] = (0.0, -0.0, 1.0, -1.0, 0.5, -0.5)


def _erfc(x: np.ndarray) -> np.ndarray:
    # float64 reference erfc from math.erfc (reference only: a Python loop is fine here).
    import math

    return np.vectorize(math.erfc, otypes=[np.float64])(x)


def _elu(x, a):
    return np.where(x > 0, x, a * np.expm1(np.minimum(x, 0)))


def _softplus(x, beta, threshold):
    bx = beta * x
    return np.where(bx > threshold, x, np.log1p(np.exp(np.minimum(bx, threshold))) / beta)


_BIG = (88.0, -88.0, 100.0, -100.0, 1e4, -1e4)
SELU = (1.0507009873554805, 1.6732632423543772)

CASES: tuple[Case, ...] = (
    Case("abs", "ttl.math.abs(a_blk)", np.abs, "abs_tile", EXACT),
    Case("abs(x)", "abs(a_blk)", np.abs, "abs_tile", EXACT),
    Case("neg", "ttl.math.neg(a_blk)", np.negative, "negative_tile", EXACT),
    Case("-x", "-a_blk", np.negative, "negative_tile", EXACT),
    Case("pow", "ttl.math.pow(a_blk, 3)", lambda x: x**3, "power_tile(dst, 3)", lo=-4, hi=4),
    Case("**", "a_blk ** 2", np.square, "power_tile(dst, 2)", lo=-16, hi=16),
    Case("exp", "ttl.math.exp(a_blk)", np.exp, "exp_tile", lo=-20, hi=20, edges=_BIG),
    Case("exp2", "ttl.math.exp2(a_blk)", np.exp2, "exp2_tile", lo=-20, hi=20, edges=_BIG),
    Case("expm1", "ttl.math.expm1(a_blk)", np.expm1, "expm1_tile", lo=-4, hi=4, edges=_BIG),
    Case("log", "ttl.math.log(a_blk)", np.log, "log_tile", lo=1e-3, hi=1e3, edges=(0, -1, 1)),
    Case(
        "logp1",
        "ttl.math.logp1(a_blk)",
        np.log1p,
        "log1p_tile",
        lo=-0.99,
        hi=100,
        edges=(0, -1, -2, 1e-3),
    ),
    Case("sqrt", "ttl.math.sqrt(a_blk)", np.sqrt, "sqrt_tile", lo=0, hi=1e4, edges=(0, -1, 1)),
    Case("square", "ttl.math.square(a_blk)", np.square, "square_tile", lo=-100, hi=100),
    Case(
        "rsqrt",
        "ttl.math.rsqrt(a_blk)",
        lambda x: 1 / np.sqrt(x),
        "rsqrt_tile",
        lo=1e-2,
        hi=1e4,
        edges=(0, -1, 1),
    ),
    Case("recip", "ttl.math.recip(a_blk)", lambda x: 1 / x, "recip_tile", lo=-100, hi=100),
    Case("tan", "ttl.math.tan(a_blk)", np.tan, "tan_tile", lo=-1.5, hi=1.5),
    Case("tanh", "ttl.math.tanh(a_blk)", np.tanh, "tanh_tile", edges=(0, 20, -20)),
    Case("atan", "ttl.math.atan(a_blk)", np.arctan, "atan_tile", lo=-100, hi=100),
    Case(
        "atanh",
        "ttl.math.atanh(a_blk)",
        np.arctanh,
        "atanh_tile",
        lo=-0.999,
        hi=0.999,
        edges=(0, 1, -1, 0.99609375, -0.99609375, 2),
    ),
    Case("sin", "ttl.math.sin(a_blk)", np.sin, "sin_tile", lo=-10, hi=10),
    Case(
        "asin",
        "ttl.math.asin(a_blk)",
        np.arcsin,
        "asin_tile",
        lo=-1,
        hi=1,
        edges=(0, 1, -1, 0.99609375, -0.99609375, 2),
    ),
    Case("asinh", "ttl.math.asinh(a_blk)", np.arcsinh, "asinh_tile", lo=-100, hi=100),
    Case("cos", "ttl.math.cos(a_blk)", np.cos, "cos_tile", lo=-10, hi=10),
    Case(
        "acos",
        "ttl.math.acos(a_blk)",
        np.arccos,
        "acos_tile",
        lo=-1,
        hi=1,
        edges=(0, 1, -1, 0.99609375, 2),
    ),
    Case(
        "acosh", "ttl.math.acosh(a_blk)", np.arccosh, "acosh_tile", lo=1, hi=100, edges=(1, 0.5, 0)
    ),
    Case("relu", "ttl.math.relu(a_blk)", lambda x: np.maximum(x, 0), "relu_tile", EXACT),
    Case(
        "relu_max",
        "ttl.math.relu_max(a_blk, 2)",
        lambda x: np.clip(x, 0, 2),
        "relu_max_tile(dst, bits(2.0))",
        EXACT,
    ),
    Case(
        "relu_min",
        "ttl.math.relu_min(a_blk, lower_limit=1)",
        lambda x: np.maximum(x, 1),
        "relu_min_tile(dst, bits(1.0))",
        EXACT,
    ),
    Case(
        "leaky_relu",
        "ttl.math.leaky_relu(a_blk, 0.01)",
        lambda x: np.where(x < 0, np.float32(0.01) * x, x),
        "leaky_relu_tile(dst, bits(0.01))",
        "fp32 multiply where x < 0",
    ),
    Case("elu", "ttl.math.elu(a_blk, 0.5)", lambda x: _elu(x, 0.5), "elu_tile(dst, bits(0.5))"),
    Case(
        "elu(alpha=)",
        "ttl.math.elu(a_blk, alpha=1.0)",
        lambda x: _elu(x, 1.0),
        "elu_tile(dst, bits(1.0))",
    ),
    Case(
        "gelu",
        "ttl.math.gelu(a_blk)",
        lambda x: 0.5 * x * _erfc(-x / np.sqrt(2)),
        "gelu_tile<false>",
        "0.5 x erfc(-x/sqrt 2); erfc: Numerical Recipes Chebyshev fit, float64",
    ),
    Case(
        "sigmoid",
        "ttl.math.sigmoid(a_blk)",
        lambda x: 1 / (1 + np.exp(-x)),
        "sigmoid_tile",
        "fp32 1 / (1 + exp(-x))",
        edges=(0, 100, -100),
    ),
    Case(
        "celu",
        "ttl.math.celu(a_blk, 2.0, 0.5)",
        lambda x: np.maximum(x, 0) + np.minimum(0, 2 * np.expm1(x / 2)),
        "celu_tile(dst, bits(2.0), bits(0.5))",
    ),
    Case(
        "silu",
        "ttl.math.silu(a_blk)",
        lambda x: x / (1 + np.exp(-x)),
        "silu_tile",
        edges=(0, 100, -100),
    ),
    Case(
        "prelu",
        "ttl.math.prelu(a_blk, 0.25)",
        lambda x: np.where(x < 0, 0.25 * x, x),
        "prelu_tile(dst, bits(0.25))",
        EXACT,
    ),
    Case(
        "softplus",
        "ttl.math.softplus(a_blk, 2.0, 0.5, 20.0)",
        lambda x: _softplus(x, 2, 20),
        "softplus_tile(dst, bits(2.0), bits(0.5), bits(20.0))",
        lo=-20,
        hi=20,
    ),
    Case("softsign", "ttl.math.softsign(a_blk)", lambda x: x / (1 + np.abs(x)), "softsign_tile"),
    Case(
        "hardsigmoid",
        "ttl.math.hardsigmoid(a_blk)",
        lambda x: np.clip(x / 6 + 0.5, 0, 1),
        "hardsigmoid_tile",
    ),
    Case(
        "hardtanh",
        "ttl.math.hardtanh(a_blk, -1.0, 1.0)",
        lambda x: np.clip(x, -1, 1),
        "hardtanh_tile(dst, bits(-1.0), bits(1.0))",
        EXACT,
    ),
    Case(
        "selu",
        "ttl.math.selu(a_blk)",
        lambda x: SELU[0] * _elu(x, SELU[1]),
        "selu_tile(dst, bits(scale), bits(alpha))",
    ),
    Case(
        "frac",
        "ttl.math.frac(a_blk)",
        lambda x: x - np.trunc(x),
        "frac_tile",
        EXACT,
        lo=-100,
        hi=100,
    ),
    Case("trunc", "ttl.math.trunc(a_blk)", np.trunc, "trunc_tile", EXACT, lo=-100, hi=100),
    Case(
        "round",
        "ttl.math.round(a_blk, 1)",
        lambda x: np.round(x, 1),
        "round_tile(dst, 1)",
        "float64 np.round (half to even)",
        lo=-100,
        hi=100,
    ),
    Case("floor", "ttl.math.floor(a_blk)", np.floor, "floor_tile", EXACT, lo=-100, hi=100),
    Case("ceil", "ttl.math.ceil(a_blk)", np.ceil, "ceil_tile", EXACT, lo=-100, hi=100),
    Case(
        "clamp",
        "ttl.math.clamp(a_blk, -2, 3)",
        lambda x: np.clip(x, -2, 3),
        "clamp_tile(dst, bits(-2.0), bits(3.0))",
        EXACT,
    ),
    Case(
        "threshold",
        "ttl.math.threshold(a_blk, 1.0, 5.0)",
        lambda x: np.where(x > 1, 5.0, x),
        "threshold_tile(dst, bits(1.0), bits(5.0))",
        EXACT,
    ),
    Case("sign", "ttl.math.sign(a_blk)", np.sign, "sign_tile", EXACT),
    Case(
        "signbit",
        "ttl.math.signbit(a_blk)",
        lambda x: np.signbit(x).astype(np.float64),
        "signbit_tile",
        EXACT,
    ),
)


def sweep(case: Case, tiles: int) -> np.ndarray:
    """``tiles`` x 1024 bf16 inputs: the case's edges, then a linear sweep of its domain."""
    n = tiles * 1024
    edges = np.array(case.edges, dtype=np.float64)
    lin = np.linspace(case.lo, case.hi, n - len(edges))
    x = np.concatenate([edges, lin]).astype(np.float32).astype(BF16)
    return x.reshape(tiles * 32, 32)


_OP_TEMPLATE = """
import ttl


@ttl.operation(grid=(1, 1))
def {name}(a, {outs}):
    tiles = a.shape[0] // 32
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
{dfbs}

    @ttl.compute()
    def compute():
        for _ in range(tiles):
            with a_dfb.wait() as a_blk:
{stores}

    @ttl.datamovement()
    def read():
        for t in range(tiles):
            with a_dfb.reserve() as a_blk:
                ttl.copy(a[t, 0], a_blk).wait()

    @ttl.datamovement()
    def write():
        for t in range(tiles):
{writes}
"""


def program(cases: Sequence[Case], name: str = "unary_math") -> str:
    """The TT-Lang source of an operation ``name(a, y0, y1, ...)``: ``y<i> = cases[i](a)``."""
    ys = [f"y{i}" for i in range(len(cases))]
    dfbs = "\n".join(
        f"    {y}_dfb = ttl.make_dataflow_buffer_like({y}, shape=(1, 1), block_count=2)" for y in ys
    )
    stores = "\n".join(
        f"                with {y}_dfb.reserve() as {y}_blk:\n"
        f"                    {y}_blk.store({c.expr})"
        for y, c in zip(ys, cases, strict=True)
    )
    writes = "\n".join(
        f"            with {y}_dfb.wait() as {y}_blk:\n"
        f"                ttl.copy({y}_blk, {y}[t, 0]).wait()"
        for y in ys
    )
    return _OP_TEMPLATE.format(
        name=name, outs=", ".join(ys), dfbs=dfbs, stores=stores, writes=writes
    )


def load_operation(source: str, name: str = "unary_math", directory: Path | None = None):
    """Writes ``source`` to a file (operations compile from their source) and loads ``name``."""
    folder = directory or Path(tempfile.mkdtemp(prefix="ttl_mathcheck_"))
    path = folder / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(f"ttl_mathcheck_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


GROUP = 12  # cases per operation (DFBs: one input + one per case, under the 32 limit)


def run_cases(
    cases: Sequence[Case], target: str, tiles: int = 2, directory: Path | None = None
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Runs ``cases`` on the emulated ``target``: name -> (bf16 input, bf16 output)."""
    from ttl.host import jit

    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for g in range(0, len(cases), GROUP):
        group = list(cases[g : g + GROUP])
        inputs = [sweep(c, tiles) for c in group]
        # One input tensor per operation: concatenate the sweeps column-wise would change
        # shapes; instead run each group's operation once per case input.
        op = load_operation(
            program(group, f"unary_math_{g // GROUP}"), f"unary_math_{g // GROUP}", directory
        )
        for i, c in enumerate(group):
            ys = [np.zeros_like(inputs[i]) for _ in group]
            jit.run_operation(op, inputs[i], *ys, target=target)
            out[c.name] = (inputs[i], ys[i])
    return out


def bf16_ulp(ref: np.ndarray) -> np.ndarray:
    """The bf16 unit in the last place at each reference value (normal range)."""
    _, e = np.frexp(np.abs(ref))
    return np.ldexp(1.0, np.maximum(e, -125) - 8)


def errors(case: Case, x: np.ndarray, y: np.ndarray) -> tuple[float, float, np.ndarray]:
    """(max abs error, max error in bf16 ULPs, mismatch mask) of ``y`` vs ``case.ref(x)``.

    Elements where the reference is NaN must be NaN; infinities must match exactly.
    """
    with np.errstate(all="ignore"):
        ref = case.ref(x.astype(np.float64))
        # Beyond the bf16 range the correct result is the overflow: an infinity.
        ref = np.where(np.isinf(ref.astype(np.float32).astype(BF16)), np.sign(ref) * np.inf, ref)
        got = y.astype(np.float64)
        nan = np.isnan(ref)
        inf = np.isinf(ref)
        finite = ~nan & ~inf
        diff = np.where(finite, np.abs(got - ref), 0.0)
        ulps = np.where(finite, diff / bf16_ulp(ref), 0.0)
        bad = (nan & ~np.isnan(got)) | (inf & (got != ref))
    return float(diff.max()), float(ulps.max()), bad
