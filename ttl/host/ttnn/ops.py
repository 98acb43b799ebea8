"""ttnn's element-wise, matmul and collective ops, as host reference math.

These are the glue programs write around their TT-Lang operations, not
emulated kernels: float32 NumPy math rounded to the result's dtype, applied on
every device's shard of a mesh tensor. ``all_reduce`` sums the shards of all
devices and gives every device the sum.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ttl.host.ttnn.errors import ttnn_error
from ttl.host.ttnn.tensor import Tensor, common_device, register_operations
from ttl.host.ttnn.types import TILE_LAYOUT


def _apply(name: str, fn: Callable[..., np.ndarray], *operands: Any) -> Tensor:
    """``fn`` on float32 copies of the operands' shards (scalars allowed), per device."""
    tensors = [t for t in operands if isinstance(t, Tensor)]
    if not tensors:
        raise ttnn_error(
            f"ttnn.{name} needs at least one ttnn tensor, got "
            f"{', '.join(type(o).__name__ for o in operands)}",
            "convert the operands with ttnn.from_torch first",
        )
    common_device(tensors, name)
    first = tensors[0]
    per_operand = [
        [s.astype(np.float32) for s in o.shards()] if isinstance(o, Tensor) else None
        for o in operands
    ]
    out = []
    for i in range(first.num_shards):
        args = [
            shards[i] if shards is not None else np.float32(o)
            for o, shards in zip(operands, per_operand, strict=True)
        ]
        try:
            with np.errstate(all="ignore"):
                out.append(np.asarray(fn(*args)))
        except ValueError as e:
            shapes = ", ".join(str(tuple(t.shape)) for t in tensors)
            raise ttnn_error(
                f"ttnn.{name}: the shapes {shapes} do not combine: {e}",
                "give operands of equal shapes or shapes that broadcast (sizes equal or 1)",
            ) from None
    return first.with_shards(out)


def add(a: Any, b: Any, **_options: Any) -> Tensor:
    return _apply("add", np.add, a, b)


def subtract(a: Any, b: Any, **_options: Any) -> Tensor:
    return _apply("subtract", np.subtract, a, b)


def multiply(a: Any, b: Any, **_options: Any) -> Tensor:
    return _apply("multiply", np.multiply, a, b)


def divide(a: Any, b: Any, **_options: Any) -> Tensor:
    return _apply("divide", np.divide, a, b)


def maximum(a: Any, b: Any, **_options: Any) -> Tensor:
    return _apply("maximum", np.maximum, a, b)


def minimum(a: Any, b: Any, **_options: Any) -> Tensor:
    return _apply("minimum", np.minimum, a, b)


def neg(a: Tensor, **_options: Any) -> Tensor:
    return _apply("neg", np.negative, a)


def abs(a: Tensor, **_options: Any) -> Tensor:
    return _apply("abs", np.abs, a)


def exp(a: Tensor, **_options: Any) -> Tensor:
    return _apply("exp", np.exp, a)


def log(a: Tensor, **_options: Any) -> Tensor:
    return _apply("log", np.log, a)


def sqrt(a: Tensor, **_options: Any) -> Tensor:
    return _apply("sqrt", np.sqrt, a)


def relu(a: Tensor, **_options: Any) -> Tensor:
    return _apply("relu", lambda x: np.maximum(x, np.float32(0)), a)


def sigmoid(a: Tensor, **_options: Any) -> Tensor:
    return _apply("sigmoid", lambda x: 1 / (1 + np.exp(-x)), a)


def tanh(a: Tensor, **_options: Any) -> Tensor:
    return _apply("tanh", np.tanh, a)


def matmul(a: Tensor, b: Tensor, **_options: Any) -> Tensor:
    """``a @ b``; like ttnn, both operands must be tiled."""
    for what, t in (("first", a), ("second", b)):
        if isinstance(t, Tensor) and t.layout is not TILE_LAYOUT:
            raise ttnn_error(
                f"ttnn.matmul: the {what} operand is in {t.layout.name} layout, which "
                "matmul does not take",
                "convert it with ttnn.to_layout(t, ttnn.TILE_LAYOUT)",
            )
    return _apply("matmul", np.matmul, a, b)


sub, mul, div = subtract, multiply, divide


def upsample(a: Tensor, scale_factor: Any, mode: str = "nearest", **_options: Any) -> Tensor:
    """ttnn.upsample: an ``[N, H, W, C]`` tensor with each pixel repeated ``scale_factor``
    times down and across (an int, or ``(scale_h, scale_w)``); nearest mode only."""
    if mode != "nearest":
        raise ttnn_error(
            f"ttnn.upsample: mode {mode!r} is not in the emulator's ttnn subset",
            'use mode="nearest"',
        )
    factors = (scale_factor, scale_factor) if isinstance(scale_factor, int) else scale_factor
    if (
        not isinstance(a, Tensor)
        or len(a.shape) != 4
        or len(factors) != 2
        or not all(isinstance(f, int) and f >= 1 for f in factors)
    ):
        raise ttnn_error(
            f"ttnn.upsample takes an [N, H, W, C] tensor and positive integer scale factors, "
            f"got {getattr(a, 'shape', a)!r} and {scale_factor!r}",
            "write ttnn.upsample(t, 2) or ttnn.upsample(t, (2, 3))",
        )
    sh, sw = factors
    return _apply("upsample", lambda x: x.repeat(sh, axis=1).repeat(sw, axis=2), a)


def all_reduce(tensor: Tensor, *_args: Any, **_options: Any) -> Tensor:
    """The element-wise sum over the mesh's devices, on every device."""
    if not isinstance(tensor, Tensor):
        raise ttnn_error(
            f"ttnn.all_reduce takes a ttnn tensor, got {type(tensor).__name__}",
            "pass a tensor made with from_torch(..., device=mesh_device, mesh_mapper=...)",
        )
    shards = tensor.shards()
    total = np.zeros(shards[0].shape, np.float32)
    for s in shards:
        total += s.astype(np.float32)
    return tensor.with_shards([total] * len(shards))


register_operations(
    add=add, subtract=subtract, multiply=multiply, divide=divide, matmul=matmul, neg=neg
)
