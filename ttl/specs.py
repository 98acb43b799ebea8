"""Tensor specifications: the concrete shapes an operation is compiled for."""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Sequence
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
TILE = "tile"
ROW_MAJOR = "row_major"
_LAYOUTS = (TILE, ROW_MAJOR)
# Row-major DRAM pages (one per row of the innermost dimension) start on this many bytes,
# as TT-Metal aligns interleaved DRAM pages (docs/runtime.md, "Row-major tensors").
ROW_MAJOR_PAGE_ALIGNMENT = 32
# In L1 a row-major block's elements fill pages of one tile's element count (the unit the
# compute engine works on); copies move only the block's own elements.
ROW_MAJOR_PAGE_ELEMENTS = TILE_ROWS * TILE_COLS
_SPEC_RE = re.compile(r"^\s*([A-Za-z0-9_]+)\s*\[\s*([0-9,\s]*)\]\s*(?::\s*([A-Za-z_]+))?\s*$")


def row_page_bytes(row_elements: int, element_bytes: int) -> int:
    """The DRAM page of one row of a row-major tensor: its bytes, aligned."""
    row = row_elements * element_bytes
    return -(-row // ROW_MAJOR_PAGE_ALIGNMENT) * ROW_MAJOR_PAGE_ALIGNMENT


def tile_padded(shape: Sequence[int]) -> tuple[int, ...]:
    """The stored shape of a tiled tensor of logical ``shape``: the two innermost
    dimensions rounded up to whole 32x32 tiles, a scalar or a vector first given leading
    dimensions of 1 (as ttnn stores a ``TILE_LAYOUT`` tensor)."""
    dims = [1] * max(0, 2 - len(shape)) + [int(d) for d in shape]
    dims[-2] = -(-dims[-2] // TILE_ROWS) * TILE_ROWS
    dims[-1] = -(-dims[-1] // TILE_COLS) * TILE_COLS
    return tuple(dims)


def normalize_dtype(dtype: object) -> str:
    """Map a dtype spelling (``bf16``, ``ttl.bfloat16``, ``"float32"``, ``bfp8``...) to
    bf16/f32/bfp8."""
    name = getattr(dtype, "name", dtype)
    key = str(name).lower().rsplit(".", 1)[-1]
    if key not in _DTYPE_ALIASES:
        raise ValueError(f"unsupported dtype '{name}': use bf16, f32 or bfp8")
    return _DTYPE_ALIASES[key]


#: The most elements a tensor may have: kernels index its pages and elements with
#: 32-bit integers.
MAX_TENSOR_ELEMENTS = 1 << 31


class NotWholeTilesError(ValueError):
    """A tiled tensor's stored shape is not whole 32x32 tiles (or has fewer than 2 dims)."""


@dataclass(frozen=True)
class TensorSpec:
    """Shape (in elements), dtype (``bf16``/``f32``/``bfp8``) and layout of a tensor.

    ``layout="tile"`` (the default): 32x32 tiles, so the two innermost
    dimensions of ``shape`` must be multiples of 32. ``layout="row_major"``: any
    rank of at least 1, stored one DRAM page per row of the innermost dimension;
    indexes and DFB shapes are in elements.

    ``shape`` is the stored shape, which kernels index. ``logical`` is a tiled
    tensor's logical shape where tile padding makes the two differ (a ttnn
    ``TILE_LAYOUT`` tensor of shape ``[1, 1]`` is stored as one 32x32 tile):
    an operation reads it as ``tensor.shape``, at its top level and in kernels.
    """

    shape: tuple[int, ...]
    dtype: str = "bf16"
    layout: str = "tile"
    logical: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "shape", tuple(int(d) for d in self.shape))
        object.__setattr__(self, "dtype", normalize_dtype(self.dtype))
        if self.logical is not None:
            self._check_logical(tuple(int(d) for d in self.logical))
        if self.layout not in _LAYOUTS:
            raise ValueError(
                f"unsupported layout '{self.layout}': write ':tile' (the default) or ':row_major'"
            )
        if any(d <= 0 for d in self.shape):
            raise ValueError(f"tensor dimensions must be positive, got shape {self.shape}")
        if math.prod(self.shape) > MAX_TENSOR_ELEMENTS:
            raise ValueError(
                f"a tensor of shape {self.shape} has {math.prod(self.shape)} elements, more "
                f"than the {MAX_TENSOR_ELEMENTS} (2**31) kernels index with 32-bit integers"
            )
        if self.layout == ROW_MAJOR:
            if not self.shape:
                raise ValueError("a row-major tensor needs at least 1 dimension, got shape ()")
            if self.dtype == "bfp8":  # block-float exponents are shared within tile rows
                raise ValueError("bfp8 tensors are tiled: drop ':row_major' or use bf16/f32")
            return
        if len(self.shape) < 2:
            raise NotWholeTilesError(
                f"a tiled tensor needs at least 2 dimensions, got shape {self.shape}"
            )
        if self.shape[-2] % TILE_ROWS or self.shape[-1] % TILE_COLS:
            raise NotWholeTilesError(
                f"the two innermost dimensions of a tiled tensor must be multiples of 32, "
                f"got shape {self.shape}"
            )

    def _check_logical(self, logical: tuple[int, ...]) -> None:
        """Keep ``logical`` (None when it equals the stored shape), or say why it is not
        the logical shape of this tensor."""
        if self.layout != TILE:
            raise ValueError("only a tiled tensor has a logical shape apart from its stored one")
        if any(d <= 0 for d in logical):
            raise ValueError(f"tensor dimensions must be positive, got shape {logical}")
        if tile_padded(logical) != self.shape:
            raise ValueError(
                f"a tiled tensor of logical shape {logical} is stored as "
                f"{tile_padded(logical)}, not {self.shape}"
            )
        object.__setattr__(self, "logical", None if logical == self.shape else logical)

    @classmethod
    def padded(cls, logical: tuple[int, ...], dtype: str = "bf16") -> TensorSpec:
        """The tiled tensor of shape ``logical`` stored padded to whole tiles."""
        return cls(tile_padded(logical), dtype, TILE, tuple(logical))

    @property
    def logical_shape(self) -> tuple[int, ...]:
        """The shape the operation reads as ``tensor.shape``: the logical one, else the
        stored one."""
        return self.logical if self.logical is not None else self.shape

    @property
    def is_row_major(self) -> bool:
        return self.layout == ROW_MAJOR

    @property
    def tile_shape(self) -> tuple[int, ...]:
        """The shape in tiles (outer dims unchanged, inner two divided by 32)."""
        return (*self.shape[:-2], self.shape[-2] // TILE_ROWS, self.shape[-1] // TILE_COLS)

    @property
    def unit_shape(self) -> tuple[int, ...]:
        """The shape in the tensor's index unit: tiles (tiled) or elements (row-major)."""
        return self.shape if self.is_row_major else self.tile_shape

    def __str__(self) -> str:
        if self.logical is not None:  # the logical shape, marked tiled (see parse)
            return f"{self.dtype}[{','.join(str(d) for d in self.logical)}]:{TILE}"
        suffix = f":{ROW_MAJOR}" if self.is_row_major else ""
        return f"{self.dtype}[{','.join(str(d) for d in self.shape)}]{suffix}"

    @classmethod
    def parse(cls, text: str) -> TensorSpec:
        """Parse ``bf16[256,512]`` (optionally ``bf16[256,512]:tile``), or a row-major
        tensor ``bf16[2,128,32]:row_major``.

        With an explicit ``:tile``, a shape that is not whole tiles (``bf16[1,1]:tile``,
        ``f32[100]:tile``) is a logical shape, stored padded to whole tiles as ttnn
        stores a ``TILE_LAYOUT`` tensor; without it such a shape is an error, so a
        mistyped size is not padded silently."""
        m = _SPEC_RE.match(text)
        if not m:
            raise ValueError(
                f"cannot parse tensor spec '{text}': write e.g. bf16[256,512] "
                "(or bf16[2,128,32]:row_major)"
            )
        dims = tuple(int(d) for d in m.group(2).replace(" ", "").split(",") if d)
        if m.group(3) == TILE and tile_padded(dims) != dims:
            return cls.padded(dims, m.group(1))
        try:
            return cls(dims, m.group(1), m.group(3) or TILE)
        except NotWholeTilesError as e:  # only without a layout: :tile pads, above
            raise ValueError(
                f"{e}: write :tile after it for a tensor of that logical shape stored padded "
                "to whole tiles (ttnn's TILE_LAYOUT), or :row_major"
            ) from None

    @classmethod
    def of(cls, value: object) -> TensorSpec:
        """Coerce a spec string, a TensorSpec or any object with .shape/.dtype.

        An object with ``__ttl_layout__`` (:func:`row_major`, row-major ttnn tensors)
        gives that layout; any other array is tiled.
        """
        if isinstance(value, TensorSpec):
            return value
        if isinstance(value, str):
            return cls.parse(value)
        layout = getattr(value, "__ttl_layout__", TILE)
        # Duck-typed (NumPy, torch, ...); an object without them raises AttributeError,
        # which callers report as an invalid spec.
        return cls(tuple(value.shape), normalize_dtype(value.dtype), layout)  # type: ignore[attr-defined]

    def with_logical(self, logical: tuple[int, ...] | None) -> TensorSpec:
        """This tensor with logical shape ``logical`` (None: the stored shape)."""
        return TensorSpec(self.shape, self.dtype, self.layout, logical)

    def row_page_bytes(self) -> int:
        """A row-major tensor's DRAM page: one row of the innermost dimension, aligned."""
        return row_page_bytes(self.shape[-1], 4 if self.dtype == "f32" else 2)


class RowMajor:
    """An array passed to an operation as a row-major tensor (see :func:`row_major`)."""

    __ttl_layout__ = ROW_MAJOR

    def __init__(self, array: object):
        if not (hasattr(array, "shape") and hasattr(array, "dtype")):
            raise TypeError(
                f"ttl.row_major() takes a NumPy array or torch tensor, got {type(array).__name__}"
            )
        self.array = array

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.array.shape)

    @property
    def dtype(self) -> object:
        return self.array.dtype

    def __repr__(self) -> str:
        return f"ttl.row_major({self.array!r})"


def row_major(array: object) -> RowMajor:
    """Pass ``array`` (NumPy or torch) to an operation as a row-major tensor.

    Without it an array is a tiled tensor. The operation writes outputs into
    ``array`` in place, as it does for tiled arrays.
    """
    return RowMajor(array)


_CONSTANT_SCALARS = (bool, int, float, str, type(None))


def is_constant(value: object) -> bool:
    """Whether ``value`` can be a compile-time parameter: a bool, int, float, str or None,
    or a tuple or list of such values (nested)."""
    if isinstance(value, tuple | list):
        return all(is_constant(v) for v in value)
    return isinstance(value, _CONSTANT_SCALARS)


@dataclass(frozen=True)
class ConstantParam:
    """A compile-time parameter of an operation: a Python constant passed where the
    operation declares a parameter that is not a tensor (upstream's examples pass
    ``scale_factor=(2, 2)`` or ``block_h=4`` beside their tensors).

    The operation is compiled for its value, as for a tensor's shape: the top level
    and the kernels see it as a captured Python value, and another value compiles
    (and caches) another bundle. Written ``const:<Python literal>`` (``const:(2, 2)``).
    """

    value: object

    def __post_init__(self) -> None:
        if not is_constant(self.value):
            raise ValueError(
                f"a {type(self.value).__name__} is not a compile-time constant "
                "(bool, int, float, str, None, or a tuple or list of them)"
            )

    def __str__(self) -> str:
        return f"const:{self.value!r}"

    @classmethod
    def parse(cls, text: str) -> ConstantParam:
        """``const:(2, 2)`` or ``const:4`` (a Python literal after ``const:``)."""
        if not text.startswith("const:"):
            raise ValueError(f"'{text}' is not a constant: write const:<Python literal>")
        try:
            value = ast.literal_eval(text.removeprefix("const:").strip())
        except (ValueError, SyntaxError) as e:
            raise ValueError(f"'{text}' is not a Python literal: {e}") from None
        return cls(value)


def param_spec(value: object) -> TensorSpec | ConstantParam:
    """The spec of one operation argument: a ``const:`` string, a ConstantParam or a
    constant value is a compile-time parameter; anything else a tensor spec
    (:meth:`TensorSpec.of`)."""
    if isinstance(value, ConstantParam):
        return value
    if isinstance(value, str):
        return ConstantParam.parse(value) if value.startswith("const:") else TensorSpec.parse(value)
    if is_constant(value):
        return ConstantParam(value)
    return TensorSpec.of(value)
