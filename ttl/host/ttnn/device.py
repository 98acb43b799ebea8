"""Devices and meshes: ``open_device``, ``open_mesh_device`` and the mesh mappers.

Every opened device is a :class:`MeshDevice` (one device is a 1x1 mesh, as in
ttnn). An operation called with tensors on an N-device mesh runs N times, once
on each emulated device with that device's shard (SPMD, spec "Grid").
"""

from __future__ import annotations

import enum
import os
from types import SimpleNamespace
from typing import Any

from ttl.host import startup
from ttl.host.ttnn.errors import ttnn_error
from ttl.targets import DEFAULT_TARGET, get_target

NUM_DEVICES_ENV = "TTL_NUM_DEVICES"
DEFAULT_NUM_DEVICES = 4  # tt-lang-sim 1.1.6's default


def GetNumAvailableDevices() -> int:
    """How many emulated devices a mesh may use: $TTL_NUM_DEVICES, default 4."""
    text = os.environ.get(NUM_DEVICES_ENV)
    if text is None:
        return DEFAULT_NUM_DEVICES
    try:
        count = int(text)
    except ValueError:
        count = 0
    if count < 1:
        raise ttnn_error(
            f"${NUM_DEVICES_ENV}={text!r} is not a positive number of devices",
            f"set {NUM_DEVICES_ENV} to a whole number >= 1, e.g. {NUM_DEVICES_ENV}=2",
        )
    return count


class FabricConfig(enum.Enum):
    """ttnn.FabricConfig: the emulated devices exchange data through the host."""

    DISABLED = "DISABLED"
    FABRIC_1D = "FABRIC_1D"
    FABRIC_1D_RING = "FABRIC_1D_RING"
    FABRIC_2D = "FABRIC_2D"


_FABRIC = {"config": FabricConfig.DISABLED}


def set_fabric_config(config: FabricConfig, *_options: Any) -> None:
    """Records the fabric configuration (``all_reduce`` works with any of them)."""
    if not isinstance(config, FabricConfig):
        raise ttnn_error(
            f"ttnn.set_fabric_config takes a ttnn.FabricConfig, got {config!r}",
            "write e.g. ttnn.set_fabric_config(ttnn.FabricConfig.FABRIC_1D)",
        )
    _FABRIC["config"] = config


class MeshShape:
    """ttnn.MeshShape(rows, cols): the devices of a mesh as a 2-D array."""

    def __init__(self, *dims: Any):
        if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
            dims = tuple(dims[0])
        if len(dims) != 2 or not all(isinstance(d, int) and d >= 1 for d in dims):
            raise ttnn_error(
                f"ttnn.MeshShape takes two positive integers (rows, cols), got {dims!r}",
                "write e.g. ttnn.MeshShape(1, ttnn.GetNumAvailableDevices())",
            )
        self.rows, self.cols = dims

    def mesh_size(self) -> int:
        return self.rows * self.cols

    def __iter__(self):
        return iter((self.rows, self.cols))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MeshShape) and tuple(self) == tuple(other)

    def __hash__(self) -> int:
        return hash((self.rows, self.cols))

    def __repr__(self) -> str:
        return f"MeshShape({self.rows}, {self.cols})"


class MeshDevice:
    """An opened mesh of emulated devices of one target (a single device is 1x1)."""

    def __init__(self, shape: MeshShape, target: str, device_id: int = 0):
        self.shape = shape
        self.target = target
        self.device_id = device_id
        self.is_open = True

    def get_num_devices(self) -> int:
        return self.shape.mesh_size()

    @property
    def num_devices(self) -> int:
        return self.shape.mesh_size()

    def arch(self) -> str:
        return self.target

    def compute_with_storage_grid_size(self) -> Any:
        """The target's full grid (``.x``, ``.y``), as ttnn reports it."""
        x, y = get_target(self.target).full_grid
        return SimpleNamespace(x=x, y=y)

    def __repr__(self) -> str:
        if self.num_devices == 1:
            return f"<ttnn emulated device {self.device_id}: {self.target}>"
        return f"<ttnn emulated mesh {self.shape}: {self.num_devices} x {self.target}>"


Device = MeshDevice


def _target() -> str:
    from ttl.host import jit

    return jit.SETTINGS.target or DEFAULT_TARGET


def open_device(device_id: int = 0, **_options: Any) -> MeshDevice:
    """Opens the emulated device (options such as l1_small_size are accepted and ignored)."""
    startup.end()
    return MeshDevice(MeshShape(1, 1), _target(), device_id)


def open_mesh_device(mesh_shape: MeshShape | None = None, **_options: Any) -> MeshDevice:
    """Opens a mesh of emulated devices (default: 1 x all available devices)."""
    startup.end()
    available = GetNumAvailableDevices()
    shape = mesh_shape if mesh_shape is not None else MeshShape(1, available)
    if not isinstance(shape, MeshShape):
        shape = MeshShape(shape)
    if shape.mesh_size() > available:
        raise ttnn_error(
            f"mesh {shape} needs {shape.mesh_size()} devices but {available} are available",
            f"open at most {available} devices (ttnn.GetNumAvailableDevices()), or set "
            f"${NUM_DEVICES_ENV} to emulate more",
        )
    return MeshDevice(shape, _target())


def close_device(device: MeshDevice) -> None:
    """Closes ``device`` and frees the emulated devices the JIT kept."""
    from ttl.host import jit

    device.is_open = False
    jit.release_devices()


close_mesh_device = close_device


class ShardTensorToMesh:
    """Mesh mapper: splits a tensor along ``dim`` into one equal shard per device."""

    def __init__(self, mesh_device: MeshDevice, dim: int):
        self.mesh = mesh_device
        self.dim = dim


class ReplicateTensorToMesh:
    """Mesh mapper: every device of the mesh gets the whole tensor."""

    def __init__(self, mesh_device: MeshDevice):
        self.mesh = mesh_device


class ConcatMeshToTensor:
    """Mesh composer: the devices' shards concatenated along ``dim``."""

    def __init__(self, mesh_device: MeshDevice, dim: int):
        self.mesh = mesh_device
        self.dim = dim
