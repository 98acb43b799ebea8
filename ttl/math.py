"""Block math functions (``ttl.math``), usable in compute kernels."""

from __future__ import annotations

from dataclasses import dataclass

from ttl._intrinsic import intrinsic

# Unary element-wise functions: name -> the kernel API's tile op.
UNARY_FUNCTIONS = (
    "exp",
    "log",
    "sqrt",
    "rsqrt",
    "recip",
    "relu",
    "sigmoid",
    "tanh",
    "abs",
    "neg",
    "exp2",
    "expm1",
    "logp1",
    "square",
    "tan",
    "atan",
    "atanh",
    "sin",
    "asin",
    "asinh",
    "cos",
    "acos",
    "acosh",
    "gelu",
    "silu",
    "softsign",
    "hardsigmoid",
    "frac",
    "trunc",
    "floor",
    "ceil",
    "sign",
    "signbit",
    "pow",
    "relu_max",
    "relu_min",
    "leaky_relu",
    "elu",
    "celu",
    "prelu",
    "softplus",
    "hardtanh",
    "selu",
    "round",
    "clamp",
    "threshold",
)


@dataclass(frozen=True)
class UnaryParam:
    """A compile-time parameter of a unary function (Appendix B).

    ``kind`` is ``"natural"`` (a ``ttl.NaturalInt``: an int >= 0, passed to the
    kernel API as an integer), ``"flag"`` (a bool, carried as 0 or 1) or ``"float"``
    (any int or float, passed as its
    binary32 bit pattern; the spec types these ``NaturalInt`` too, but slopes,
    limits and SELU's constants are real numbers, as tt-lang-sim accepts).
    ``aliases`` are keyword spellings of tt-lang-sim; ``default`` None = required.
    """

    name: str
    kind: str = "float"
    default: float | None = None
    aliases: tuple[str, ...] = ()


# Parameters (after the block operand ``expr``) of the parameterised unary functions.
UNARY_PARAMS: dict[str, tuple[UnaryParam, ...]] = {
    "pow": (UnaryParam("exponent", "natural"),),
    "relu_max": (UnaryParam("upper_limit"),),
    "relu_min": (UnaryParam("lower_limit"),),
    "leaky_relu": (UnaryParam("slope"),),
    "elu": (UnaryParam("slope", aliases=("alpha",)),),
    "celu": (UnaryParam("alpha"), UnaryParam("alpha_recip")),
    "prelu": (UnaryParam("alpha"),),
    "softplus": (UnaryParam("beta"), UnaryParam("beta_reciprocal"), UnaryParam("threshold")),
    "hardtanh": (UnaryParam("min", aliases=("min_val",)), UnaryParam("max", aliases=("max_val",))),
    "selu": (
        UnaryParam("scale", default=1.0507009873554805),
        UnaryParam("alpha", default=1.6732632423543772),
    ),
    "round": (UnaryParam("decimals", "natural", default=0),),
    "clamp": (UnaryParam("min"), UnaryParam("max")),
    "threshold": (UnaryParam("threshold"), UnaryParam("value")),
}


#: ``ttl.math.exp``'s hardware options (spec v0.20), in the order its ``ttl.unary``
#: carries them when any differs from its default: (approx, scale, skip_clamp_check,
#: iterations). A plain ``exp`` has no parameters.
EXP_OPTIONS: tuple[UnaryParam, ...] = (
    UnaryParam("approx", "flag", default=0),
    UnaryParam("scale", "float", default=1.0),
    UnaryParam("skip_clamp_check", "flag", default=0),
    UnaryParam("iterations", "natural", default=8),
)
#: The SFPU iterations of one 16x16 face (8 of 32 lanes): more are not modelled.
EXP_MAX_ITERATIONS = 8


@intrinsic("math.exp")
def exp(x, *, approx=False, scale=None, skip_clamp_check=False, iterations=8):
    """Natural exponential of each element: ``e^x``, or ``e^(scale * x)`` with ``scale``.

    The hardware options of spec v0.20: ``approx`` (the SFPU's approximate mode),
    ``skip_clamp_check`` (no clamp of inputs below about -88.5 in approximate mode),
    ``iterations`` (SFPU lane iterations per face, default 8: the whole face).
    docs/math.md says what the emulator computes for each.
    """


@intrinsic("math.log")
def log(x):
    """Natural logarithm of each element."""


@intrinsic("math.sqrt")
def sqrt(x):
    """Square root of each element."""


@intrinsic("math.rsqrt")
def rsqrt(x):
    """Reciprocal square root of each element."""


@intrinsic("math.recip")
def recip(x):
    """Reciprocal of each element."""


@intrinsic("math.relu")
def relu(x):
    """ReLU of each element."""


@intrinsic("math.sigmoid")
def sigmoid(x):
    """Sigmoid of each element."""


@intrinsic("math.tanh")
def tanh(x):
    """Hyperbolic tangent of each element."""


@intrinsic("math.abs")
def abs(x):
    """Absolute value of each element."""


@intrinsic("math.neg")
def neg(x):
    """Negation of each element."""


@intrinsic("math.exp2")
def exp2(expr):
    """Base-2 exponential (``2**x``)."""


@intrinsic("math.expm1")
def expm1(expr):
    """``exp(x) - 1``, accurate near 0."""


@intrinsic("math.logp1")
def logp1(expr):
    """``log(x + 1)``, accurate near 0."""


@intrinsic("math.square")
def square(expr):
    """Square (``x * x``)."""


@intrinsic("math.tan")
def tan(expr):
    """Tangent."""


@intrinsic("math.atan")
def atan(expr):
    """Arctangent."""


@intrinsic("math.atanh")
def atanh(expr):
    """Hyperbolic arctangent."""


@intrinsic("math.sin")
def sin(expr):
    """Sine."""


@intrinsic("math.asin")
def asin(expr):
    """Arcsine."""


@intrinsic("math.asinh")
def asinh(expr):
    """Hyperbolic arcsine."""


@intrinsic("math.cos")
def cos(expr):
    """Cosine."""


@intrinsic("math.acos")
def acos(expr):
    """Arccosine."""


@intrinsic("math.acosh")
def acosh(expr):
    """Hyperbolic arccosine."""


@intrinsic("math.gelu")
def gelu(expr):
    """GELU (erf form, as torch.nn.GELU)."""


@intrinsic("math.silu")
def silu(expr):
    """SiLU (``x * sigmoid(x)``)."""


@intrinsic("math.softsign")
def softsign(expr):
    """Softsign (``x / (1 + |x|)``)."""


@intrinsic("math.hardsigmoid")
def hardsigmoid(expr):
    """Hardsigmoid (``clip(x / 6 + 1 / 2, 0, 1)``)."""


@intrinsic("math.frac")
def frac(expr):
    """Fractional part (``x - trunc(x)``)."""


@intrinsic("math.trunc")
def trunc(expr):
    """Integer part, rounded toward zero."""


@intrinsic("math.floor")
def floor(expr):
    """Floor."""


@intrinsic("math.ceil")
def ceil(expr):
    """Ceiling."""


@intrinsic("math.sign")
def sign(expr):
    """1 for positive, -1 for negative, 0 for zero elements."""


@intrinsic("math.signbit")
def signbit(expr):
    """1 where the sign bit is set (negative numbers and -0.0), else 0."""


@intrinsic("math.pow")
def pow(expr, exponent):
    """``expr ** exponent``; ``exponent`` is a compile-time natural number."""


@intrinsic("math.relu_max")
def relu_max(expr, upper_limit):
    """ReLU clipped above: ``min(max(x, 0), upper_limit)``."""


@intrinsic("math.relu_min")
def relu_min(expr, lower_limit):
    """ReLU with a lower limit: ``relu(max(x, lower_limit))``."""


@intrinsic("math.leaky_relu")
def leaky_relu(expr, slope):
    """Leaky ReLU: ``x`` if ``x >= 0`` else ``slope * x``."""


@intrinsic("math.elu")
def elu(expr, slope=None, *, alpha=None):
    """ELU with ``alpha`` = ``slope`` (tt-lang-sim spells it ``alpha``)."""


@intrinsic("math.celu")
def celu(expr, alpha, alpha_recip):
    """CELU: ``max(0, x) + min(0, alpha * (exp(x * alpha_recip) - 1))``."""


@intrinsic("math.prelu")
def prelu(expr, alpha):
    """PReLU with one scalar weight: ``x`` if ``x >= 0`` else ``alpha * x``."""


@intrinsic("math.softplus")
def softplus(expr, beta, beta_reciprocal, threshold):
    """Softplus: ``log(1 + exp(beta * x)) / beta``; ``x`` where ``beta * x > threshold``."""


@intrinsic("math.hardtanh")
def hardtanh(expr, min=None, max=None, *, min_val=None, max_val=None):
    """Hardtanh: ``clip(x, min, max)`` (tt-lang-sim: ``min_val``/``max_val``)."""


@intrinsic("math.selu")
def selu(expr, scale=1.0507009873554805, alpha=1.6732632423543772):
    """SELU: ``scale * (max(0, x) + min(0, alpha * (exp(x) - 1)))``."""


@intrinsic("math.round")
def round(expr, decimals=0):
    """Round half to even at ``decimals`` decimal places (a natural number)."""


@intrinsic("math.clamp")
def clamp(expr, min, max):
    """Clamp to ``[min, max]``."""


@intrinsic("math.threshold")
def threshold(expr, threshold, value):
    """Replace elements greater than ``threshold`` with ``value`` (the spec's definition)."""


@intrinsic("broadcast")
def broadcast(x, out=None, *, dims, shape=None):
    """Broadcast ``x`` along ``dims`` (size-1 dims) to ``shape`` or the shape of ``out``.

    Without ``shape``/``out`` the shape comes from the surrounding expression
    (the other operand of a binary operator, or the stored block).
    """


@intrinsic("unsqueeze")
def unsqueeze(expr, dim=None, *, dims=None):
    """``expr`` with a size-1 dimension inserted at ``dim``, or at each of ``dims``
    (positions in the result, spec v0.16 ``ttl.block.unsqueeze(x, dims=[0])``); shape
    only, tiles unchanged."""


@intrinsic("squeeze")
def squeeze(expr, dim=None, *, dims=None):
    """``expr`` with its size-1 dimension ``dim``, or each of ``dims``, removed (spec
    v0.16 ``ttl.block.squeeze(x, dims=[0])``); shape only, tiles unchanged."""


@intrinsic("fill")
def fill(value, *, shape):
    """A block of ``shape`` tiles with every element equal to ``value``."""


# Binary element-wise functions (compiled by frontend/calls.py: call_binary_fn).
# Comparisons give 1.0 where the relation holds and 0.0 elsewhere.


@intrinsic("binary.max")
def max(a, b):
    """Element-wise maximum of two block expressions (or one and a scalar)."""


@intrinsic("binary.min")
def min(a, b):
    """Element-wise minimum of two block expressions (or one and a scalar)."""


@intrinsic("binary.gt")
def gt(a, b):
    """1.0 where ``a > b``, else 0.0 (also ``a > b`` on block expressions)."""


@intrinsic("binary.lt")
def lt(a, b):
    """1.0 where ``a < b``, else 0.0 (also ``a < b``)."""


@intrinsic("binary.ge")
def ge(a, b):
    """1.0 where ``a >= b``, else 0.0 (also ``a >= b``)."""


@intrinsic("binary.le")
def le(a, b):
    """1.0 where ``a <= b``, else 0.0 (also ``a <= b``)."""


@intrinsic("binary.eq")
def eq(a, b):
    """1.0 where ``a == b``, else 0.0 (also ``a == b``)."""


@intrinsic("binary.ne")
def ne(a, b):
    """1.0 where ``a != b``, else 0.0 (also ``a != b``)."""


@intrinsic("binary.rsub")
def rsub(a, b):
    """``b - a`` with ``b`` a scalar (the spec: a ``NaturalInt``; floats are accepted)."""


@intrinsic("reduce_sum")
def reduce_sum(x, scaler=None, dims=None, *, shape=None):
    """Sum of ``x`` over ``dims`` (each reduced to size 1), times the ``scaler`` block's value.

    Without ``scaler`` the factor is 1. ``shape``, if given, must be the result shape.
    """


@intrinsic("reduce_max")
def reduce_max(x, scaler=None, dims=None, *, shape=None):
    """Maximum of ``x`` times the ``scaler`` block's value over ``dims`` (see ``reduce_sum``)."""


@intrinsic("transpose")
def transpose(x):
    """Transpose of a 2-D block: shape ``(M, N)`` becomes ``(N, M)``."""


@intrinsic("where")
def where(condition, true_value, false_value):
    """Element-wise ``true_value`` where ``condition`` is 1, else ``false_value``."""


@intrinsic("mask")
def mask(x, mask):
    """``x`` with the elements where ``mask`` is 1 replaced by 0."""


@intrinsic("mask_posinf")
def mask_posinf(x, mask):
    """``x`` with the elements where ``mask`` is 1 replaced by positive infinity."""
