"""Data formats and the TT tile layout.

A tile is 32x32 elements stored as four 16x16 faces (top-left, top-right,
bottom-left, bottom-right), each face row-major. A tensor is a sequence of
tiles in row-major tile order; tile ``i`` is DRAM page ``i``. A block-float
format (BFP8_b, ``bfp8.py``) stores a tile's face-layout elements packed:
:func:`encode` and :func:`decode` convert whole tiles between values and bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np

from ttl.runtime import bfp8, memmap

TILE = 32
FACE = 16
TILE_ELEMS = TILE * TILE


@dataclass(frozen=True)
class DataFormat:
    """One element format: our short name, TT-Metal's name and code, NumPy dtype.

    ``dtype`` is the host array type of the values. A ``packed`` (block-float)
    format stores tiles in its own byte layout rather than as ``dtype``
    elements; its values are exactly representable in ``dtype``.
    """

    name: str
    metal_name: str
    code: int
    dtype: np.dtype
    packed: bool = False

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def tile_bytes(self) -> int:
        return bfp8.TILE_BYTES if self.packed else TILE_ELEMS * self.itemsize


BF16 = DataFormat("bf16", "Float16_b", memmap.FMT_FLOAT16_B, np.dtype(ml_dtypes.bfloat16))
F32 = DataFormat("f32", "Float32", memmap.FMT_FLOAT32, np.dtype(np.float32))
BFP8 = DataFormat("bfp8", "Bfp8_b", memmap.FMT_BFP8_B, BF16.dtype, packed=True)

_ALIASES = {
    "bf16": BF16,
    "bfloat16": BF16,
    "float16_b": BF16,
    "f32": F32,
    "fp32": F32,
    "float32": F32,
    "bfp8": BFP8,
    "bfp8_b": BFP8,
    "bfloat8_b": BFP8,
}
_BY_CODE = {f.code: f for f in (BF16, F32, BFP8)}


def data_format(spec) -> DataFormat:
    """Resolves a format from a name ('bf16', 'Float32', ...), a NumPy dtype or a DataFormat."""
    if isinstance(spec, DataFormat):
        return spec
    if isinstance(spec, str):
        fmt = _ALIASES.get(spec.lower())
    else:
        try:
            dt = np.dtype(spec)
        except TypeError:
            dt = None
        fmt = BF16 if dt == BF16.dtype else F32 if dt == F32.dtype else None
    if fmt is None:
        raise ValueError(f"unsupported data format {spec!r}: use 'bf16', 'f32' or 'bfp8'")
    return fmt


def format_from_code(code: int) -> DataFormat | None:
    """The format with TT-Metal DataFormat value ``code``, or None."""
    return _BY_CODE.get(code)


def _check_shape(shape: tuple[int, ...]) -> None:
    if len(shape) < 2 or shape[-1] % TILE or shape[-2] % TILE or 0 in shape:
        raise ValueError(
            f"tensor shape {tuple(shape)} is not tileable: the last two dimensions must be "
            f"non-zero multiples of {TILE} (pad the tensor)"
        )


def _face_rows(a: np.ndarray) -> np.ndarray:
    """``a`` viewed with one opaque item per 16-element face row, so the layout
    shuffles below move 32/64-byte chunks instead of single elements."""
    return np.ascontiguousarray(a).view(np.dtype((np.void, FACE * a.dtype.itemsize)))


def _destination(out: np.ndarray, dtype: np.dtype, size: int) -> np.ndarray:
    """``out`` as face-row items, after checking it can receive ``size`` ``dtype`` elements
    in place (a non-contiguous ``out`` would silently receive nothing)."""
    if out.dtype != dtype or out.size != size or not out.flags.c_contiguous:
        raise ValueError(
            f"out must be a C-contiguous {dtype} array of {size} elements, "
            f"got {out.dtype} {out.shape}"
        )
    return _face_rows(out)


def tilize(array: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Returns ``array`` (..., H, W) as (num_tiles, 1024) in TT tile layout with faces.

    ``out``, if given, is a C-contiguous buffer of the same dtype and size that
    receives the tiles (saves allocating one per call); it is returned.
    """
    a = np.asarray(array)
    _check_shape(a.shape)
    *_, h, w = a.shape
    # (batch, tile row, face row, row, tile col, face col) of face-row items ->
    # tile-major, then face-major, then row.
    t = _face_rows(a).reshape(-1, h // TILE, 2, FACE, w // TILE, 2)
    t = t.transpose(0, 1, 4, 2, 5, 3)
    if out is None:
        return np.ascontiguousarray(t).view(a.dtype).reshape(-1, TILE_ELEMS)
    np.copyto(_destination(out, a.dtype, a.size).reshape(t.shape), t)
    return out.reshape(-1, TILE_ELEMS)


def untilize(
    tiles: np.ndarray, shape: tuple[int, ...], out: np.ndarray | None = None
) -> np.ndarray:
    """Inverse of :func:`tilize`: (num_tiles, 1024) tiles back to a row-major ``shape``.

    ``out``, if given, is a C-contiguous array of ``shape`` and the tiles' dtype
    that receives the result (the caller's own tensor, say); it is returned.
    """
    shape = tuple(shape)
    _check_shape(shape)
    *_, h, w = shape
    t = np.asarray(tiles)
    t = _face_rows(t.reshape(-1, TILE_ELEMS)).reshape(-1, h // TILE, w // TILE, 2, 2, FACE)
    t = t.transpose(0, 1, 3, 5, 2, 4)
    if out is None:
        return np.ascontiguousarray(t).view(tiles.dtype).reshape(shape)
    np.copyto(_destination(out, tiles.dtype, int(np.prod(shape))).reshape(t.shape), t)
    return out


# Index maps between a flat tile in face layout and the same tile row-major.
ROWMAJOR_FROM_FACES = tilize(np.arange(TILE_ELEMS).reshape(TILE, TILE)).reshape(-1).argsort()
FACES_FROM_ROWMAJOR = tilize(np.arange(TILE_ELEMS).reshape(TILE, TILE)).reshape(-1)


def num_tiles(shape: tuple[int, ...]) -> int:
    """Number of tiles (DRAM pages) of a tensor of ``shape``."""
    _check_shape(tuple(shape))
    return int(np.prod(shape)) // TILE_ELEMS


def encode(values: np.ndarray, fmt: DataFormat, out: np.ndarray | None = None) -> np.ndarray:
    """Face-layout tiles ``values`` (n, 1024) as ``fmt``'s bytes (n, tile_bytes) uint8,
    rounded as the device stores them (into ``out``, a C-contiguous buffer, if given)."""
    if fmt.packed:
        raw = bfp8.pack(values)
    else:
        raw = np.asarray(values).astype(fmt.dtype, copy=False).reshape(-1, TILE_ELEMS)
        raw = np.ascontiguousarray(raw).view(np.uint8)
    if out is None:
        return raw
    np.copyto(out.reshape(raw.shape), raw)
    return out


def decode(raw: np.ndarray, fmt: DataFormat) -> np.ndarray:
    """``fmt``'s tile bytes (n, tile_bytes) as face-layout values (n, 1024) of ``fmt.dtype``."""
    if fmt.packed:
        return bfp8.unpack(raw).astype(fmt.dtype)
    return np.ascontiguousarray(raw).view(fmt.dtype).reshape(-1, TILE_ELEMS)


def round_to_format(array: np.ndarray, fmt: DataFormat) -> np.ndarray:
    """``array`` (..., H, W) as ``fmt.dtype`` values the device can hold: a block-float
    format quantizes tile by tile (H and W whole tiles), as writing it to DRAM does."""
    if not fmt.packed:
        return np.asarray(array).astype(fmt.dtype)
    a = np.asarray(array, dtype=np.float32)
    return untilize(decode(encode(tilize(a), fmt), fmt), a.shape)
