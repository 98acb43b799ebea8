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
