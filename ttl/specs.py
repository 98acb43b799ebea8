"""Tensor specifications: the concrete shapes an operation is compiled for."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ttl.targets import TILE_COLS, TILE_ROWS

_DTYPE_ALIASES = {
    "bf16": "bf16",
    "bfloat16": "bf16",
    "f32": "f32",
    "fp32": "f32",
    "float32": "f32",
    # BFP8_b block-float (ttnn.bfloat8_b): tiles of 16-element groups sharing an exponent.
    "bfp8": "bfp8",
    "bfp8_b": "bfp8",
    "bfloat8_b": "bfp8",
}
_LAYOUTS = ("tile",)
_SPEC_RE = re.compile(r"^\s*([A-Za-z0-9_]+)\s*\[\s*([0-9,\s]*)\]\s*(?::\s*([A-Za-z_]+))?\s*$")


def normalize_dtype(dtype: object) -> str:
    """Map a dtype spelling (``bf16``, ``ttl.bfloat16``, ``"float32"``, ``bfp8``...) to
    bf16/f32/bfp8."""
    name = getattr(dtype, "name", dtype)
    key = str(name).lower().rsplit(".", 1)[-1]
    if key not in _DTYPE_ALIASES:
        raise ValueError(f"unsupported dtype '{name}': use bf16, f32 or bfp8")
    return _DTYPE_ALIASES[key]


@dataclass(frozen=True)
class TensorSpec:
    """Shape (in elements), dtype (``bf16``/``f32``/``bfp8``) and layout of a tensor.

    Only the tiled layout is supported: the two innermost dimensions must be
    multiples of 32.
    """

    shape: tuple[int, ...]
    dtype: str = "bf16"
    layout: str = "tile"

    def __post_init__(self) -> None:
        object.__setattr__(self, "shape", tuple(int(d) for d in self.shape))
        object.__setattr__(self, "dtype", normalize_dtype(self.dtype))
        if self.layout not in _LAYOUTS:
            raise ValueError(f"unsupported layout '{self.layout}': use 'tile'")
        if len(self.shape) < 2:
            raise ValueError(f"a tiled tensor needs at least 2 dimensions, got shape {self.shape}")
        if any(d <= 0 for d in self.shape):
            raise ValueError(f"tensor dimensions must be positive, got shape {self.shape}")
        if self.shape[-2] % TILE_ROWS or self.shape[-1] % TILE_COLS:
            raise ValueError(
                f"the two innermost dimensions of a tiled tensor must be multiples of 32, "
                f"got shape {self.shape}"
            )

    @property
    def tile_shape(self) -> tuple[int, ...]:
        """The shape in tiles (outer dims unchanged, inner two divided by 32)."""
        return (*self.shape[:-2], self.shape[-2] // TILE_ROWS, self.shape[-1] // TILE_COLS)

    def __str__(self) -> str:
        return f"{self.dtype}[{','.join(str(d) for d in self.shape)}]"

    @classmethod
    def parse(cls, text: str) -> TensorSpec:
        """Parse ``bf16[256,512]`` (optionally ``bf16[256,512]:tile``)."""
        m = _SPEC_RE.match(text)
        if not m:
            raise ValueError(f"cannot parse tensor spec '{text}': write e.g. bf16[256,512]")
        dims = [d for d in m.group(2).replace(" ", "").split(",") if d]
        return cls(tuple(int(d) for d in dims), m.group(1), m.group(3) or "tile")

    @classmethod
    def of(cls, value: object) -> TensorSpec:
        """Coerce a spec string, a TensorSpec or any object with .shape/.dtype."""
        if isinstance(value, TensorSpec):
            return value
        if isinstance(value, str):
            return cls.parse(value)
        # Duck-typed (NumPy, torch, ...); an object without them raises AttributeError,
        # which callers report as an invalid spec.
        return cls(tuple(value.shape), normalize_dtype(value.dtype))  # type: ignore[attr-defined]
