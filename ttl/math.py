"""Block math functions (``ttl.math``), usable in compute kernels."""

from __future__ import annotations

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
)


@intrinsic("math.exp")
def exp(x):
    """Natural exponential of each element."""


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


@intrinsic("broadcast")
def broadcast(x, out=None, *, dims, shape=None):
    """Broadcast ``x`` along ``dims`` (size-1 dims) to ``shape`` or the shape of ``out``.

    Without ``shape``/``out`` the shape comes from the surrounding expression
    (the other operand of a binary operator, or the stored block).
    """


@intrinsic("fill")
def fill(value, *, shape):
    """A block of ``shape`` tiles with every element equal to ``value``."""


# Binary element-wise functions (compiled by frontend/calls.py: call_binary_fn).
# Comparisons give 1.0 where the relation holds and 0.0 elsewhere.
BINARY_FUNCTIONS = ("max", "min", "gt", "lt", "ge", "le", "eq", "ne")


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
