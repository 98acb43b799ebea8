"""The host subset of ``ttnn`` that TT-Lang programs use, backed by the emulator.

``ttl run`` makes ``import ttnn`` resolve to this package (``install()``), so a
program written for hardware runs unchanged. It is never installed as a
global ``ttnn`` package: a real ttnn elsewhere is not shadowed.

Tensors live on the host, tile-padded as ttnn stores them on the device
(``tensor``); calling an ``@ttl.operation`` with them runs the operation on the
emulated device through the JIT, which writes outputs back into them, once per
device of a mesh (``device``). Creation and conversion are in ``convert``, the
element-wise/matmul/collective glue (host reference math, not emulated
kernels) in ``ops``. A ttnn name not listed here is an error naming it
(docs/ttnn.md lists the subset).
"""

from __future__ import annotations

import sys

from ttl.host.ttnn.convert import (
    empty,
    empty_like,
    from_device,
    from_torch,
    full,
    full_like,
    ones,
    ones_like,
    rand,
    rand_like,
    reshape,
    to_device,
    to_layout,
    typecast,
    zeros,
    zeros_like,
)
from ttl.host.ttnn.device import (
    ConcatMeshToTensor,
    Device,
    FabricConfig,
    GetNumAvailableDevices,
    MeshDevice,
    MeshShape,
    ReplicateTensorToMesh,
    ShardTensorToMesh,
    close_device,
    close_mesh_device,
    open_device,
    open_mesh_device,
    set_fabric_config,
)
from ttl.host.ttnn.errors import MissingTtnnFunctionError
from ttl.host.ttnn.memory import (
    DRAM_MEMORY_CONFIG,
    L1_MEMORY_CONFIG,
    CoreCoord,
    CoreGrid,
    CoreRange,
    CoreRangeSet,
    MemoryConfig,
    ShardingStrategy,
    ShardOrientation,
    ShardSpec,
    ShardStrategy,
    create_sharded_memory_config,
    num_cores_to_corerangeset,
    split_work_to_cores,
)
from ttl.host.ttnn.ops import (
    abs,
    add,
    all_reduce,
    div,
    divide,
    exp,
    log,
    matmul,
    maximum,
    minimum,
    mul,
    multiply,
    neg,
    relu,
    sigmoid,
    sqrt,
    sub,
    subtract,
    tanh,
    upsample,
)
from ttl.host.ttnn.sharded import get_memory_config, is_sharded, to_memory_config
from ttl.host.ttnn.tensor import Shape, Tensor, Tile, to_torch
from ttl.host.ttnn.types import (
    ROW_MAJOR_LAYOUT,
    TILE_LAYOUT,
    TILE_SIZE,
    BufferType,
    DataType,
    Layout,
    TensorMemoryLayout,
    bfloat8_b,
    bfloat16,
    float32,
)

__all__ = [
    "DRAM_MEMORY_CONFIG",
    "L1_MEMORY_CONFIG",
    "ROW_MAJOR_LAYOUT",
    "TILE_LAYOUT",
    "TILE_SIZE",
    "BufferType",
    "ConcatMeshToTensor",
    "CoreCoord",
    "CoreGrid",
    "CoreRange",
    "CoreRangeSet",
    "DataType",
    "Device",
    "FabricConfig",
    "GetNumAvailableDevices",
    "Layout",
    "MemoryConfig",
    "MeshDevice",
    "MeshShape",
    "ReplicateTensorToMesh",
    "Shape",
    "ShardOrientation",
    "ShardSpec",
    "ShardStrategy",
    "ShardTensorToMesh",
    "ShardingStrategy",
    "Tensor",
    "TensorMemoryLayout",
    "Tile",
    "abs",
    "add",
    "all_reduce",
    "bfloat8_b",
    "bfloat16",
    "close_device",
    "close_mesh_device",
    "create_sharded_memory_config",
    "div",
    "divide",
    "empty",
    "empty_like",
    "exp",
    "float32",
    "from_device",
    "from_torch",
    "full",
    "full_like",
    "get_memory_config",
    "install",
    "is_sharded",
    "log",
    "matmul",
    "maximum",
    "minimum",
    "mul",
    "multiply",
    "neg",
    "num_cores_to_corerangeset",
    "ones",
    "ones_like",
    "open_device",
    "open_mesh_device",
    "rand",
    "rand_like",
    "relu",
    "reshape",
    "set_fabric_config",
    "sigmoid",
    "split_work_to_cores",
    "sqrt",
    "sub",
    "subtract",
    "tanh",
    "to_device",
    "to_layout",
    "to_memory_config",
    "to_torch",
    "typecast",
    "upsample",
    "zeros",
    "zeros_like",
]


def __getattr__(name: str) -> object:
    """Any other ttnn name: an error naming it, located at the user's line."""
    if name.startswith("__"):  # Python's own probes (__path__, __wrapped__...)
        raise AttributeError(name)
    from ttl.host.jit import user_loc

    raise MissingTtnnFunctionError(
        f"ttnn.{name} is not part of the emulator's ttnn subset",
        user_loc(),
        "docs/ttnn.md lists the ttnn functions and names ttl run provides; compute it with "
        "torch on the host, or write it as a TT-Lang operation",
    )


def install() -> None:
    """Makes ``import ttnn`` resolve to this package in this process (``ttl run`` only)."""
    sys.modules["ttnn"] = sys.modules[__name__]
