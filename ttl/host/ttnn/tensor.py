"""ttnn tensors: logical shape, tile padding, and one shard per device of a mesh.

A ``TILE_LAYOUT`` tensor of any logical shape is stored padded to whole tiles
(zeros), as ttnn stores it on the device: ``shape`` is the logical shape,
``padded_shape`` the stored one; an operation reads both as ttnn does
(``tensor.shape`` logical) and its kernels move the padded tiles (a (N, 1)
vector lives in column 0 of its tiles). ``ROW_MAJOR_LAYOUT`` tensors are
stored as they are, and an operation gets them as row-major tensors. A tensor
on an N-device mesh holds N shards; its ``shape`` is one shard's, as in ttnn.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import ml_dtypes
import numpy as np

from ttl.errors import SourceLoc
from ttl.host.ttnn.device import MeshDevice
from ttl.host.ttnn.errors import reject_options, ttnn_error
from ttl.host.ttnn.memory import DRAM_MEMORY_CONFIG, MemoryConfig, shard_layout
from ttl.host.ttnn.types import ROW_MAJOR_LAYOUT, TILE, TILE_LAYOUT, DataType, Layout
from ttl.runtime.sharding import ShardLayout
from ttl.runtime.tensors import Bfp8Tensor
from ttl.runtime.tiles import BFP8, round_to_format
from ttl.specs import RowMajor, tile_padded

_OPERATIONS: dict[str, Callable[..., Tensor]] = {}
"""The ttnn operations behind Tensor's operators, registered by ``ops`` (which imports
this module) when it loads: :func:`register_operations`."""


def register_operations(**operations: Callable[..., Tensor]) -> None:
    """Names the ttnn operations ``a + b``, ``a * b``, ... call (``add=ops.add``, ...)."""
    _OPERATIONS.update(operations)


def _operator(name: str, reflected: bool = False) -> Callable[[Any, Any], Any]:
    """The method behind a binary operator: ttnn operation ``name`` of the tensor and
    the other operand (``reflected``: ``other op tensor``)."""

    def method(self: Any, other: Any) -> Any:
        return _OPERATIONS[name](other, self) if reflected else _OPERATIONS[name](self, other)

    return method


class Tile:
    """ttnn.Tile: the shape of the tiles a TILE_LAYOUT tensor is stored in."""

    def __init__(self, tile_shape: Sequence[int] = (TILE, TILE)):
        self.tile_shape = [int(d) for d in tile_shape]

    def __repr__(self) -> str:
        return f"Tile(tile_shape={self.tile_shape})"


class Shape(tuple):
    """ttnn.Shape: a tensor shape (a tuple of ints with ttnn's ``rank``)."""

    def __new__(cls, dims: Sequence[int] = ()) -> Shape:
        return super().__new__(cls, (int(d) for d in dims))

    @property
    def rank(self) -> int:
        return len(self)

    def __repr__(self) -> str:
        return f"Shape({list(self)})"


def padded(shape: Sequence[int], layout: Layout) -> tuple[int, ...]:
    """The stored shape: the two innermost dimensions rounded up to whole tiles (a
    scalar or a vector first gains leading dimensions of 1, as ttnn tiles them)."""
    return tile_padded(shape) if layout is TILE_LAYOUT else tuple(shape)


def _pad(logical: np.ndarray, dtype: DataType, layout: Layout, fill: float) -> np.ndarray:
    """The stored array of ``logical``: converted to ``dtype`` and tile-padded.

    bfloat8_b is quantized after padding, from float32 (as ttnn packs it), tile
    by tile as the device stores it: padding shares the face rows it sits in."""
    if dtype.block_float:
        check_block_float(dtype, layout, "Tensor")
        return round_to_format(_pad(logical, DataType.FLOAT32, layout, fill), BFP8)
    data = np.asarray(logical).astype(dtype.numpy)
    if layout is TILE_LAYOUT and data.ndim < 2:  # a vector is row 0 of its tiles, as in ttnn
        data = data.reshape((1,) * (2 - data.ndim) + data.shape)
    target = padded(data.shape, layout)
    if target == data.shape:
        return np.ascontiguousarray(data)
    out = np.full(target, fill, dtype.numpy)
    out[tuple(slice(0, n) for n in data.shape)] = data
    return out


def check_block_float(dtype: DataType, layout: Layout, function: str) -> None:
    """bfloat8_b exists only in tiles (as in ttnn): a row-major one is an error."""
    if dtype.block_float and layout is not TILE_LAYOUT:
        raise ttnn_error(
            f"ttnn.{function}: dtype bfloat8_b needs TILE_LAYOUT (a block-float tensor is "
            f"stored as tiles), got {layout.name} layout",
            "pass layout=ttnn.TILE_LAYOUT, or use dtype=ttnn.bfloat16 for a row-major tensor",
        )


class Tensor:
    """A ttnn tensor: per-device shards of one logical shape, dtype and layout."""

    def __init__(
        self,
        data: np.ndarray | Sequence[np.ndarray],
        dtype: DataType,
        layout: Layout = TILE_LAYOUT,
        device: MeshDevice | None = None,
        memory_config: MemoryConfig | None = None,
        *,
        pad_value: float = 0.0,
    ):
        shards = [data] if isinstance(data, np.ndarray) else list(data)
        self._shape = Shape(np.shape(shards[0]))
        self._shards = [_pad(s, dtype, layout, pad_value) for s in shards]
        self.dtype = dtype
        self.layout = layout
        self._device = device
        self._memory_config = memory_config or DRAM_MEMORY_CONFIG
        # L1-sharded: which node holds which page (checked here, so bad configs fail early).
        self._l1_shards = shard_layout(self._memory_config, self._shards[0].shape, layout, device)

    @property
    def shape(self) -> Shape:
        """The logical shape (of one device's shard on a mesh)."""
        return self._shape

    @property
    def padded_shape(self) -> Shape:
        """The stored shape: the two innermost dimensions padded to whole tiles."""
        return Shape(self._shards[0].shape)

    @property
    def tile(self) -> Tile:
        """The tile the tensor is stored in (``tile.tile_shape``: ``[32, 32]``)."""
        return Tile((TILE, TILE))

    def logical_shape(self) -> Shape:
        return self._shape

    def get_layout(self) -> Layout:
        return self.layout

    def get_dtype(self) -> DataType:
        return self.dtype

    def device(self) -> MeshDevice | None:
        return self._device

    def memory_config(self) -> MemoryConfig:
        return self._memory_config

    @property
    def num_shards(self) -> int:
        return len(self._shards)

    def shards(self) -> list[np.ndarray]:
        """The logical (unpadded) array of each device, in the tensor's dtype."""
        stored = (1,) * (self._shards[0].ndim - len(self._shape)) + tuple(self._shape)
        crop = tuple(slice(0, n) for n in stored)
        return [s[crop].reshape(self._shape) for s in self._shards]

    def with_shards(self, shards: Sequence[np.ndarray], **changes: Any) -> Tensor:
        """A tensor like this one (same device and memory config) holding ``shards``."""
        return Tensor(
            shards,
            changes.get("dtype", self.dtype),
            changes.get("layout", self.layout),
            changes.get("device", self._device),
            changes.get("memory_config", self._memory_config),
        )

    def map(self, fn: Callable[[np.ndarray], np.ndarray], **changes: Any) -> Tensor:
        """``fn`` applied to every shard's logical array."""
        return self.with_shards([fn(s) for s in self.shards()], **changes)

    def cpu(self) -> Tensor:
        return self.with_shards(self.shards(), device=None)

    def to_torch(self, **options: Any) -> Any:
        return to_torch(self, **options)

    # ttnn's operators on tensors: the ttnn operation of each (a * b is ttnn.multiply).
    __add__, __radd__ = _operator("add"), _operator("add", reflected=True)
    __sub__, __rsub__ = _operator("subtract"), _operator("subtract", reflected=True)
    __mul__, __rmul__ = _operator("multiply"), _operator("multiply", reflected=True)
    __truediv__, __rtruediv__ = _operator("divide"), _operator("divide", reflected=True)
    __matmul__ = _operator("matmul")

    def __neg__(self) -> Tensor:
        return _OPERATIONS["neg"](self)

    def __ttl_shards__(self) -> int:
        """How many devices the tensor is spread over (the JIT runs once per device)."""
        return len(self._shards)

    def __ttl_device__(self) -> MeshDevice | None:
        return self._device

    def __ttl_l1_shards__(self) -> ShardLayout | None:
        """Where an L1-sharded tensor's pages live on each device (None: interleaved DRAM)."""
        return self._l1_shards

    def __ttl_logical_shape__(self) -> tuple[int, ...] | None:
        """The logical shape an operation reads as ``tensor.shape`` (None for a row-major
        tensor, whose stored shape is its logical one)."""
        return tuple(self._shape) if self.layout is TILE_LAYOUT else None

    def __ttl_host_array__(
        self, what: str, loc: SourceLoc | None, index: int = 0
    ) -> np.ndarray | RowMajor | Bfp8Tensor:
        """The stored (padded) array of device ``index`` (the JIT updates it in place);
        a ROW_MAJOR_LAYOUT tensor's comes marked row-major (``ttl.row_major``), a
        bfloat8_b one as a :class:`Bfp8Tensor` (the JIT compiles for bfp8)."""
        if self.layout is ROW_MAJOR_LAYOUT:
            return RowMajor(self._shards[index])
        if self.dtype.block_float:
            return Bfp8Tensor.wrap(self._shards[index])
        return self._shards[index]

    def __repr__(self) -> str:
        mesh = f", shards={len(self._shards)}" if len(self._shards) > 1 else ""
        return (
            f"ttnn.Tensor(shape={list(self.shape)}, dtype={self.dtype.name}, "
            f"layout={self.layout.name}{mesh})"
        )


def common_device(tensors: Sequence[Tensor], function: str) -> MeshDevice | None:
    """The one device ``tensors`` are on (host tensors go with any); mixing is an error."""
    found: MeshDevice | None = None
    for t in tensors:
        dev = t.device()
        if dev is None:
            continue
        if found is not None and dev is not found:
            raise ttnn_error(
                f"ttnn.{function} was given tensors on different devices ({found!r} and {dev!r})",
                "put every tensor on the same device or mesh (ttnn.to_device, or "
                "from_torch(..., device=...))",
            )
        found = dev
    counts = {t.num_shards for t in tensors}
    if len(counts) > 1:
        raise ttnn_error(
            f"ttnn.{function} was given a host tensor and a tensor on a {max(counts)}-device mesh",
            "put the host tensor on the mesh first: ttnn.from_torch(..., device=mesh_device, "
            "mesh_mapper=ttnn.ReplicateTensorToMesh(mesh_device))",
        )
    return found


def torch_module() -> Any:
    """The torch module, or an ImportError saying what to do without it."""
    try:
        import torch
    except ImportError:
        raise ImportError(
            "ttnn.from_torch/to_torch need torch, which is not installed: install it "
            "(pip install torch), or pass NumPy arrays to the TT-Lang operation directly"
        ) from None
    return torch


def to_torch(
    tensor: Tensor,
    dtype: Any = None,
    *,
    mesh_composer: Any = None,
    **options: Any,
) -> Any:
    """The tensor's logical data as a torch tensor (shards joined by ``mesh_composer``)."""
    torch = torch_module()
    reject_options(options, {"device", "cq_id"}, "to_torch")
    shards = tensor.shards()
    if mesh_composer is not None:
        data = np.concatenate(shards, axis=mesh_composer.dim)
    elif len(shards) > 1:
        raise ttnn_error(
            f"ttnn.to_torch: the tensor is spread over {len(shards)} devices",
            "pass mesh_composer=ttnn.ConcatMeshToTensor(mesh_device, dim=0) to join them",
        )
    else:
        data = shards[0]
    if data.dtype == ml_dtypes.bfloat16:
        out = torch.from_numpy(np.ascontiguousarray(data).view(np.int16)).view(torch.bfloat16)
    else:
        out = torch.from_numpy(np.ascontiguousarray(data))
    return out if dtype is None else out.to(dtype)
