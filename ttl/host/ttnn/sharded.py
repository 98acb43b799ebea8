"""Moving tensors between memory configs: ``to_memory_config``, ``get_memory_config``,
``is_sharded`` (the configs themselves: ``memory.py``)."""

from __future__ import annotations

from typing import Any

from ttl.host.ttnn.convert import typecast
from ttl.host.ttnn.errors import ttnn_error
from ttl.host.ttnn.memory import MemoryConfig
from ttl.host.ttnn.tensor import Tensor


def _check_tensor(tensor: Any, function: str) -> Tensor:
    if not isinstance(tensor, Tensor):
        raise ttnn_error(
            f"ttnn.{function} takes a ttnn.Tensor, got {type(tensor).__name__}",
            "make one first, e.g. ttnn.from_torch(t, layout=ttnn.TILE_LAYOUT, device=device)",
        )
    return tensor


def to_memory_config(tensor: Tensor, memory_config: MemoryConfig, dtype: Any = None) -> Tensor:
    """``tensor`` with its data in ``memory_config`` (interleaved <-> sharded, DRAM <-> L1;
    the logical data is unchanged). ``dtype`` converts it too."""
    tensor = _check_tensor(tensor, "to_memory_config")
    if not isinstance(memory_config, MemoryConfig):
        raise ttnn_error(
            f"ttnn.to_memory_config: {memory_config!r} is not a ttnn.MemoryConfig",
            "pass e.g. ttnn.DRAM_MEMORY_CONFIG or a sharded ttnn.MemoryConfig",
        )
    moved = tensor.with_shards(tensor.shards(), memory_config=memory_config)
    return moved if dtype is None else typecast(moved, dtype)


def get_memory_config(tensor: Tensor) -> MemoryConfig:
    """The tensor's memory config (``tensor.memory_config()``)."""
    return _check_tensor(tensor, "get_memory_config").memory_config()


def is_sharded(tensor: Tensor) -> bool:
    """Whether the tensor is sharded (its shards live in nodes' L1)."""
    return _check_tensor(tensor, "is_sharded").memory_config().is_sharded()
