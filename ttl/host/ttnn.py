"""The host subset of ``ttnn`` that TT-Lang programs use, backed by the emulator.

``ttl run`` makes ``import ttnn`` resolve to this module (``install()``), so a
program written for hardware runs unchanged. It is never installed as a
global ``ttnn`` package: a real ttnn elsewhere is not shadowed.

Tensors live on the host (a NumPy array in the tensor's dtype); calling an
``@ttl.operation`` with them runs the operation on the emulated device
through the JIT, which writes outputs back into them. The elementwise ops
(``add``, ``multiply``...) are host reference math in float32 rounded to the
output dtype, for the glue tutorials write around their operations; they are
not emulated kernels.
"""

from __future__ import annotations

import enum
import sys
from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np

from ttl.errors import SourceLoc, TTLCompileError
from ttl.targets import DEFAULT_TARGET


class DataType(enum.Enum):
    """ttnn.bfloat16 / ttnn.float32."""

    BFLOAT16 = "bf16"
    FLOAT32 = "f32"

    @property
    def numpy(self) -> np.dtype:
        return np.dtype(ml_dtypes.bfloat16 if self is DataType.BFLOAT16 else np.float32)


class Layout(enum.Enum):
    """ttnn.TILE_LAYOUT / ttnn.ROW_MAJOR_LAYOUT."""

    TILE = "tile"
    ROW_MAJOR = "row_major"


@dataclass(frozen=True)
class MemoryConfig:
    """Where a tensor lives; the emulator keeps every tensor in interleaved DRAM."""

    buffer_type: str = "DRAM"


bfloat16 = DataType.BFLOAT16
float32 = DataType.FLOAT32
TILE_LAYOUT = Layout.TILE
ROW_MAJOR_LAYOUT = Layout.ROW_MAJOR
DRAM_MEMORY_CONFIG = MemoryConfig("DRAM")
L1_MEMORY_CONFIG = MemoryConfig("L1")  # accepted; operations still read tensors from DRAM


class MeshDevice:
    """An opened (emulated) device: the target and grid the JIT dispatches to."""

    def __init__(self, device_id: int, target: str):
        self.device_id = device_id
        self.target = target
        self.is_open = True

    def arch(self) -> str:
        return self.target

    def compute_with_storage_grid_size(self) -> Any:
        """The target's full grid (``.x``, ``.y``), as ttnn reports it."""
        from types import SimpleNamespace

        from ttl.targets import get_target

        x, y = get_target(self.target).full_grid
        return SimpleNamespace(x=x, y=y)

    def __repr__(self) -> str:
        return f"<ttnn emulated device {self.device_id}: {self.target}>"


Device = MeshDevice


def open_device(device_id: int = 0, **_options: Any) -> MeshDevice:
    """Opens the emulated device (options such as l1_small_size are accepted and ignored)."""
    from ttl.host import jit

    return MeshDevice(device_id, jit.SETTINGS.target or DEFAULT_TARGET)


def close_device(device: MeshDevice) -> None:
    """Closes ``device`` and frees the emulated devices the JIT kept."""
    from ttl.host import jit

    device.is_open = False
    jit.release_devices()


class Tensor:
    """A ttnn tensor: a host array with a ttnn dtype, layout, device and memory config."""

    def __init__(
        self,
        data: np.ndarray,
        dtype: DataType,
        layout: Layout = TILE_LAYOUT,
        device: MeshDevice | None = None,
        memory_config: MemoryConfig | None = None,
    ):
        self._data = np.ascontiguousarray(data, dtype=dtype.numpy)
        self.dtype = dtype
        self.layout = layout
        self._device = device
        self._memory_config = memory_config or DRAM_MEMORY_CONFIG

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self._data.shape)

    def device(self) -> MeshDevice | None:
        return self._device

    def memory_config(self) -> MemoryConfig:
        return self._memory_config

    def cpu(self) -> Tensor:
        return Tensor(self._data, self.dtype, self.layout, None, self._memory_config)

    def to_torch(self) -> Any:
        return to_torch(self)

    def __ttl_host_array__(self, what: str, loc: SourceLoc | None) -> np.ndarray:
        """The array an operation runs on (the JIT updates it in place)."""
        if self.layout is not TILE_LAYOUT:
            raise TTLCompileError(
                f"{what} is a ttnn tensor in {self.layout.name} layout; TT-Lang operations "
                "take tiled tensors",
                loc,
                "create it with layout=ttnn.TILE_LAYOUT (or convert with ttnn.to_layout)",
            )
        return self._data

    def __repr__(self) -> str:
        return (
            f"ttnn.Tensor(shape={list(self.shape)}, dtype={self.dtype.name}, "
            f"layout={self.layout.name})"
        )


def _torch():
    try:
        import torch
    except ImportError:
        raise ImportError(
            "ttnn.from_torch/to_torch need torch, which is not installed: install it "
            "(pip install torch), or pass NumPy arrays to the TT-Lang operation directly"
        ) from None
    return torch


def _dtype_of(value: Any) -> DataType:
    text = str(value).lower()
    if "bfloat16" in text:
        return bfloat16
    if "float32" in text:
        return float32
    raise TypeError(
        f"unsupported dtype {value}: TT-Lang tensors are ttnn.bfloat16 or "
        "ttnn.float32; convert the tensor first"
    )


def from_torch(
    tensor: Any,
    dtype: DataType | None = None,
    *,
    layout: Layout = ROW_MAJOR_LAYOUT,
    device: MeshDevice | None = None,
    memory_config: MemoryConfig | None = None,
    **_options: Any,
) -> Tensor:
    """A ttnn tensor from a torch tensor (converted to ``dtype`` if given)."""
    torch = _torch()
    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"ttnn.from_torch takes a torch.Tensor, got {type(tensor).__name__}")
    dtype = dtype or _dtype_of(tensor.dtype)
    data = tensor.detach().cpu().to(torch.float32).numpy().astype(dtype.numpy)
    return Tensor(data, dtype, layout, device, memory_config)


def to_torch(tensor: Tensor, **_options: Any) -> Any:
    """The tensor as a torch tensor of the same dtype."""
    torch = _torch()
    out = torch.from_numpy(tensor._data.astype(np.float32))
    return out.to(torch.bfloat16) if tensor.dtype is bfloat16 else out


def to_device(
    tensor: Tensor, device: MeshDevice, memory_config: MemoryConfig | None = None, **_options: Any
) -> Tensor:
    return Tensor(
        tensor._data, tensor.dtype, tensor.layout, device, memory_config or tensor.memory_config()
    )


def from_device(tensor: Tensor, **_options: Any) -> Tensor:
    return tensor.cpu()


def to_layout(tensor: Tensor, layout: Layout, **_options: Any) -> Tensor:
    return Tensor(tensor._data, tensor.dtype, layout, tensor.device(), tensor.memory_config())


def _full(
    shape: Any,
    value: float,
    dtype: DataType,
    layout: Layout,
    device: MeshDevice | None,
    memory_config: MemoryConfig | None,
) -> Tensor:
    return Tensor(np.full(tuple(shape), value, np.float32), dtype, layout, device, memory_config)


def full(
    shape: Any,
    fill_value: float,
    dtype: DataType = bfloat16,
    layout: Layout = TILE_LAYOUT,
    device: MeshDevice | None = None,
    memory_config: MemoryConfig | None = None,
) -> Tensor:
    return _full(shape, fill_value, dtype, layout, device, memory_config)


def zeros(
    shape: Any,
    dtype: DataType = bfloat16,
    layout: Layout = TILE_LAYOUT,
    device: MeshDevice | None = None,
    memory_config: MemoryConfig | None = None,
) -> Tensor:
    return _full(shape, 0.0, dtype, layout, device, memory_config)


def ones(
    shape: Any,
    dtype: DataType = bfloat16,
    layout: Layout = TILE_LAYOUT,
    device: MeshDevice | None = None,
    memory_config: MemoryConfig | None = None,
) -> Tensor:
    return _full(shape, 1.0, dtype, layout, device, memory_config)


empty = zeros


def zeros_like(tensor: Tensor, **kwargs: Any) -> Tensor:
    return zeros(
        tensor.shape,
        kwargs.get("dtype", tensor.dtype),
        kwargs.get("layout", tensor.layout),
        kwargs.get("device", tensor.device()),
        kwargs.get("memory_config"),
    )


def _elementwise(fn: Any, *tensors: Any) -> Tensor:
    """Host float32 math, rounded to the first tensor's dtype (scalars allowed)."""
    first = next(t for t in tensors if isinstance(t, Tensor))
    args = [t._data.astype(np.float32) if isinstance(t, Tensor) else np.float32(t) for t in tensors]
    with np.errstate(all="ignore"):
        out = fn(*args)
    return Tensor(out, first.dtype, first.layout, first.device(), first.memory_config())


def add(a: Any, b: Any, **_options: Any) -> Tensor:
    return _elementwise(np.add, a, b)


def subtract(a: Any, b: Any, **_options: Any) -> Tensor:
    return _elementwise(np.subtract, a, b)


def multiply(a: Any, b: Any, **_options: Any) -> Tensor:
    return _elementwise(np.multiply, a, b)


def divide(a: Any, b: Any, **_options: Any) -> Tensor:
    return _elementwise(np.divide, a, b)


def neg(a: Tensor, **_options: Any) -> Tensor:
    return _elementwise(np.negative, a)


def exp(a: Tensor, **_options: Any) -> Tensor:
    return _elementwise(np.exp, a)


def relu(a: Tensor, **_options: Any) -> Tensor:
    return _elementwise(lambda x: np.maximum(x, np.float32(0)), a)


def sqrt(a: Tensor, **_options: Any) -> Tensor:
    return _elementwise(np.sqrt, a)


def matmul(a: Tensor, b: Tensor, **_options: Any) -> Tensor:
    return _elementwise(np.matmul, a, b)


sub, mul, div = subtract, multiply, divide


def install() -> None:
    """Makes ``import ttnn`` resolve to this module in this process (``ttl run`` only)."""
    sys.modules["ttnn"] = sys.modules[__name__]
