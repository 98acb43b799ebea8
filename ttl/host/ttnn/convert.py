"""Making ttnn tensors and moving them: creation, torch conversion, layout, dtype, device."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import ml_dtypes
import numpy as np

from ttl.host.ttnn.device import (
    MeshDevice,
    ReplicateTensorToMesh,
    ShardTensorToMesh,
)
from ttl.host.ttnn.errors import reject_options, ttnn_error
from ttl.host.ttnn.memory import MemoryConfig
from ttl.host.ttnn.tensor import Tensor, check_block_float, torch_module
from ttl.host.ttnn.types import (
    ROW_MAJOR_LAYOUT,
    TILE_LAYOUT,
    DataType,
    Layout,
    bfloat16,
    dtype_of,
)


def _check_dtype(dtype: Any, function: str) -> DataType:
    found = dtype_of(dtype) if dtype is not None else None
    if found is None:
        raise ttnn_error(
            f"ttnn.{function}: dtype {dtype} is not supported by the emulator",
            "use ttnn.bfloat16, ttnn.float32 or ttnn.bfloat8_b (convert the data first, e.g. "
            "torch_tensor.to(torch.bfloat16))",
        )
    return found


def _check_layout(layout: Any, function: str) -> Layout:
    if not isinstance(layout, Layout):
        raise ttnn_error(
            f"ttnn.{function}: layout {layout!r} is not supported by the emulator",
            "use ttnn.TILE_LAYOUT or ttnn.ROW_MAJOR_LAYOUT",
        )
    return layout


def _split(data: np.ndarray, mapper: Any, device: MeshDevice | None) -> list[np.ndarray]:
    """The per-device arrays ``mapper`` makes of ``data`` (one array without a mesh)."""
    mesh = getattr(mapper, "mesh", device)
    if mapper is not None and device is not None and mesh is not device:
        raise ttnn_error(
            "ttnn.from_torch: mesh_mapper's mesh is not the device= given",
            "pass the same mesh device to the mapper and to device=",
        )
    count = mesh.num_devices if mesh is not None else 1
    if isinstance(mapper, ShardTensorToMesh):
        dim = mapper.dim % max(data.ndim, 1) if -data.ndim <= mapper.dim < data.ndim else None
        if dim is None:
            raise ttnn_error(
                f"ttnn.ShardTensorToMesh: dim={mapper.dim} is out of range for a tensor of "
                f"shape {tuple(data.shape)}",
                f"shard along one of the dimensions 0..{data.ndim - 1}",
            )
        if data.shape[dim] % count:
            raise ttnn_error(
                f"ttnn.ShardTensorToMesh: dimension {dim} of shape {tuple(data.shape)} "
                f"({data.shape[dim]}) does not divide among the mesh's {count} devices",
                f"make dimension {dim} a multiple of {count}, or shard along another one",
            )
        return list(np.split(data, count, axis=dim))
    if mapper is not None and not isinstance(mapper, ReplicateTensorToMesh):
        raise ttnn_error(
            f"ttnn.from_torch: mesh_mapper {type(mapper).__name__} is not supported",
            "use ttnn.ShardTensorToMesh(mesh, dim=...) or ttnn.ReplicateTensorToMesh(mesh)",
        )
    return [data] * count


_FROM_TORCH_OPTIONS = {"tile", "spec", "cq_id"}


def from_torch(
    tensor: Any,
    dtype: Any = None,
    *,
    layout: Layout = ROW_MAJOR_LAYOUT,
    device: MeshDevice | None = None,
    memory_config: MemoryConfig | None = None,
    mesh_mapper: Any = None,
    pad_value: float | None = None,
    **options: Any,
) -> Tensor:
    """A ttnn tensor from a torch tensor (converted to ``dtype``; sharded by ``mesh_mapper``)."""
    torch = torch_module()
    if not isinstance(tensor, torch.Tensor):
        raise ttnn_error(
            f"ttnn.from_torch takes a torch.Tensor, got {type(tensor).__name__}",
            "convert it first, e.g. torch.from_numpy(array)",
        )
    reject_options(options, _FROM_TORCH_OPTIONS, "from_torch")
    dtype = _check_dtype(dtype if dtype is not None else tensor.dtype, "from_torch")
    layout = _check_layout(layout, "from_torch")
    check_block_float(dtype, layout, "from_torch")
    data = _numpy_of(torch, tensor.detach().cpu(), dtype)
    mesh = getattr(mesh_mapper, "mesh", None) or device
    shards = _split(data, mesh_mapper, mesh)
    return Tensor(shards, dtype, layout, device, memory_config, pad_value=pad_value or 0.0)


def _numpy_of(torch: Any, tensor: Any, dtype: DataType) -> np.ndarray:
    """``tensor`` as a NumPy array of ``dtype`` (bf16 reinterpreted, not re-rounded;
    float32 for bfloat8_b, which ``Tensor`` quantizes from float32)."""
    if tensor.dtype == torch.bfloat16:
        data = tensor.contiguous().view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    else:
        data = tensor.to(torch.float32).numpy()
    return data.astype(np.float32 if dtype.block_float else dtype.numpy, copy=False)


def to_device(
    tensor: Tensor, device: MeshDevice, memory_config: MemoryConfig | None = None, **_opts: Any
) -> Tensor:
    """``tensor`` on ``device`` (a host tensor goes to every device of a mesh)."""
    shards = tensor.shards()
    if len(shards) == 1 and device.num_devices > 1:
        shards = shards * device.num_devices
    elif len(shards) != device.num_devices:
        raise ttnn_error(
            f"ttnn.to_device: the tensor has {len(shards)} shards but the device has "
            f"{device.num_devices}",
            "shard it for this mesh with from_torch(..., mesh_mapper=...)",
        )
    return tensor.with_shards(
        shards, device=device, memory_config=memory_config or tensor.memory_config()
    )


def from_device(tensor: Tensor, **_options: Any) -> Tensor:
    return tensor.cpu()


def to_layout(tensor: Tensor, layout: Layout, **_options: Any) -> Tensor:
    layout = _check_layout(layout, "to_layout")
    check_block_float(tensor.dtype, layout, "to_layout")
    return tensor.with_shards(tensor.shards(), layout=layout)


def typecast(tensor: Tensor, dtype: Any, **_options: Any) -> Tensor:
    """``tensor`` rounded to ``dtype``."""
    dtype = _check_dtype(dtype, "typecast")
    check_block_float(dtype, tensor.layout, "typecast")
    return tensor.with_shards(tensor.shards(), dtype=dtype)


def reshape(tensor: Tensor, shape: Sequence[int], *_args: Any, **_options: Any) -> Tensor:
    """``tensor`` with logical shape ``shape`` (same elements, row-major order)."""
    shape = tuple(int(d) for d in shape)
    if math.prod(shape) != math.prod(tensor.shape) and -1 not in shape:
        raise ttnn_error(
            f"ttnn.reshape: cannot reshape {tuple(tensor.shape)} ({math.prod(tensor.shape)} "
            f"elements) to {shape}",
            "give a shape with the same number of elements",
        )
    return tensor.map(lambda s: s.reshape(shape))


def _create(
    fill: Any,
    shape: Sequence[int],
    dtype: Any,
    layout: Layout,
    device: MeshDevice | None,
    memory_config: MemoryConfig | None,
    function: str,
) -> Tensor:
    dtype = _check_dtype(dtype, function)
    layout = _check_layout(layout, function)
    check_block_float(dtype, layout, function)
    try:
        dims = tuple(int(d) for d in shape)
    except (TypeError, ValueError):
        dims = ()
    if not dims or any(d < 1 for d in dims):
        raise ttnn_error(
            f"ttnn.{function}: shape {shape!r} is not a list of positive sizes",
            f"write e.g. ttnn.{function}(ttnn.Shape([64, 64]), ...)",
        )
    count = device.num_devices if device is not None else 1
    shards = [fill(dims) for _ in range(count)]
    return Tensor(shards, dtype, layout, device, memory_config)


def full(
    shape: Sequence[int],
    fill_value: float,
    dtype: Any = bfloat16,
    layout: Layout = TILE_LAYOUT,
    device: MeshDevice | None = None,
    memory_config: MemoryConfig | None = None,
) -> Tensor:
    """A tensor of ``shape`` filled with ``fill_value`` (on every device of a mesh)."""
    return _create(
        lambda d: np.full(d, fill_value, np.float32),
        shape,
        dtype,
        layout,
        device,
        memory_config,
        "full",
    )


def zeros(
    shape: Sequence[int],
    dtype: Any = bfloat16,
    layout: Layout = TILE_LAYOUT,
    device: MeshDevice | None = None,
    memory_config: MemoryConfig | None = None,
) -> Tensor:
    return _create(
        lambda d: np.zeros(d, np.float32), shape, dtype, layout, device, memory_config, "zeros"
    )


def ones(
    shape: Sequence[int],
    dtype: Any = bfloat16,
    layout: Layout = TILE_LAYOUT,
    device: MeshDevice | None = None,
    memory_config: MemoryConfig | None = None,
) -> Tensor:
    return _create(
        lambda d: np.ones(d, np.float32), shape, dtype, layout, device, memory_config, "ones"
    )


def empty(
    shape: Sequence[int],
    dtype: Any = bfloat16,
    layout: Layout = TILE_LAYOUT,
    device: MeshDevice | None = None,
    memory_config: MemoryConfig | None = None,
) -> Tensor:
    """An uninitialised tensor; the emulator zeroes it, so runs are deterministic."""
    return _create(
        lambda d: np.zeros(d, np.float32), shape, dtype, layout, device, memory_config, "empty"
    )


def rand(
    shape: Sequence[int],
    dtype: Any = bfloat16,
    layout: Layout = TILE_LAYOUT,
    device: MeshDevice | None = None,
    memory_config: MemoryConfig | None = None,
    low: float = 0.0,
    high: float = 1.0,
) -> Tensor:
    """Uniform random values in [low, high): torch's generator when torch is installed
    (``torch.manual_seed`` makes them repeatable), else NumPy's seeded with 0."""

    def fill(dims: tuple[int, ...]) -> np.ndarray:
        try:
            import torch
        except ImportError:
            return _NUMPY_RNG.uniform(low, high, dims).astype(np.float32)
        return (torch.rand(dims, dtype=torch.float32) * (high - low) + low).numpy()

    return _create(fill, shape, dtype, layout, device, memory_config, "rand")


_NUMPY_RNG = np.random.default_rng(0)


def _like(tensor: Tensor, options: dict[str, Any], make: Any, *args: Any) -> Tensor:
    return make(
        tensor.shape,
        *args,
        options.get("dtype") or tensor.dtype,
        options.get("layout") or tensor.layout,
        options.get("device") or tensor.device(),
        options.get("memory_config"),
    )


def zeros_like(tensor: Tensor, **options: Any) -> Tensor:
    return _like(tensor, options, zeros)


def ones_like(tensor: Tensor, **options: Any) -> Tensor:
    return _like(tensor, options, ones)


def full_like(tensor: Tensor, fill_value: float, **options: Any) -> Tensor:
    return _like(tensor, options, full, fill_value)


def empty_like(tensor: Tensor, **options: Any) -> Tensor:
    return _like(tensor, options, empty)


def rand_like(tensor: Tensor, **options: Any) -> Tensor:
    return _like(tensor, options, rand)
