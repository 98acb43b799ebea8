"""ttnn's dtypes, layouts, buffer types and memory layouts, as the emulator knows them."""

from __future__ import annotations

import enum

import ml_dtypes
import numpy as np

TILE = 32  # a tile is TILE x TILE elements
TILE_SIZE = TILE  # ttnn's public name for it (ttnn/types.py)


class DataType(enum.Enum):
    """ttnn.bfloat16 / ttnn.float32 / ttnn.bfloat8_b (BFP8_b block-float, tiles only)."""

    BFLOAT16 = "bf16"
    FLOAT32 = "f32"
    BFLOAT8_B = "bfp8"

    @property
    def numpy(self) -> np.dtype:
        """The host array dtype: a bfloat8_b tensor holds its dequantized values in bf16,
        which represents every BFP8_b value exactly."""
        return np.dtype(np.float32 if self is DataType.FLOAT32 else ml_dtypes.bfloat16)

    @property
    def block_float(self) -> bool:
        """Stored as BFP8_b tiles: values are quantized per 16-element face row."""
        return self is DataType.BFLOAT8_B


class Layout(enum.Enum):
    """ttnn.TILE_LAYOUT / ttnn.ROW_MAJOR_LAYOUT."""

    TILE = "tile"
    ROW_MAJOR = "row_major"


class BufferType(enum.Enum):
    """ttnn.BufferType: where a tensor's pages live."""

    DRAM = "DRAM"
    L1 = "L1"


class TensorMemoryLayout(enum.Enum):
    """ttnn.TensorMemoryLayout (memory configs: ttl/host/ttnn/memory.py; ND_SHARDED is
    named so that using it is a located error)."""

    INTERLEAVED = "INTERLEAVED"
    HEIGHT_SHARDED = "HEIGHT_SHARDED"
    WIDTH_SHARDED = "WIDTH_SHARDED"
    BLOCK_SHARDED = "BLOCK_SHARDED"
    ND_SHARDED = "ND_SHARDED"


bfloat16 = DataType.BFLOAT16
float32 = DataType.FLOAT32
bfloat8_b = DataType.BFLOAT8_B
TILE_LAYOUT = Layout.TILE
ROW_MAJOR_LAYOUT = Layout.ROW_MAJOR


def dtype_of(value: object) -> DataType | None:
    """The ttnn dtype of a ttnn, torch or NumPy dtype (None: not one TT-Lang supports)."""
    if isinstance(value, DataType):
        return value
    text = str(value).lower()
    if "bfloat8_b" in text:
        return bfloat8_b
    if "bfloat16" in text:
        return bfloat16
    if "float32" in text:
        return float32
    return None
