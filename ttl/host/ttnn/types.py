"""ttnn's dtypes, layouts and memory configs, as the emulator knows them."""

from __future__ import annotations

import enum
from dataclasses import dataclass

import ml_dtypes
import numpy as np

TILE = 32  # a tile is TILE x TILE elements


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
    """ttnn.TensorMemoryLayout; the emulator stores every tensor interleaved."""

    INTERLEAVED = "INTERLEAVED"


@dataclass(frozen=True)
class MemoryConfig:
    """ttnn.MemoryConfig(memory_layout, buffer_type): where a tensor lives.

    Only interleaved layouts exist here; an L1 tensor is accepted and, as every
    tensor, read by operations from the emulated DRAM.
    """

    memory_layout: TensorMemoryLayout = TensorMemoryLayout.INTERLEAVED
    buffer_type: BufferType = BufferType.DRAM


bfloat16 = DataType.BFLOAT16
float32 = DataType.FLOAT32
bfloat8_b = DataType.BFLOAT8_B
TILE_LAYOUT = Layout.TILE
ROW_MAJOR_LAYOUT = Layout.ROW_MAJOR
DRAM_MEMORY_CONFIG = MemoryConfig(TensorMemoryLayout.INTERLEAVED, BufferType.DRAM)
L1_MEMORY_CONFIG = MemoryConfig(TensorMemoryLayout.INTERLEAVED, BufferType.L1)


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
