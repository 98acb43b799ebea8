"""Tensor-backed DFBs at run time: the tensor must be L1-sharded and the DFB's byte
range must fit its shard; each a launch error naming the DFB, the tensor and what to
change (the sharded run itself: tests/programs/tensor_backed_dfbs.py)."""

from __future__ import annotations

import importlib.util

import ml_dtypes
import numpy as np
import pytest
import torch

import ttl
from ttl.runtime.errors import LaunchError

SOURCE = """
import ttl

@ttl.operation(grid=(1, 1))
def double(a, y):
    a_dfb = ttl.make_tensor_backed_dfb(a, shape=(1, 1), block_count={count})
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1))

    @ttl.datamovement()
    def read():
        a_dfb.publish()

    @ttl.compute()
    def compute():
        with a_dfb.wait() as x, y_dfb.reserve() as out:
            out.store(x + x)
        for _ in range({count} - 1):
            with a_dfb.wait():
                pass

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as blk:
            ttl.copy(blk, y[0, 0]).wait()
"""


def _load(tmp_path, count: int):
    path = tmp_path / f"backed_{count}.py"
    path.write_text(SOURCE.format(count=count))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _ttnn():
    from ttl.host import ttnn

    return ttnn


def _sharded_a(ttnn, device, tiles: int):
    cores = ttnn.CoreRangeSet({ttnn.CoreRange(ttnn.CoreCoord(0, 0), ttnn.CoreCoord(0, 0))})
    config = ttnn.MemoryConfig(
        ttnn.TensorMemoryLayout.HEIGHT_SHARDED,
        ttnn.BufferType.L1,
        ttnn.ShardSpec(cores, [32, 32 * tiles], ttnn.ShardOrientation.ROW_MAJOR),
    )
    a = torch.arange(32 * 32 * tiles, dtype=torch.float32).reshape(32, -1) % 7
    return a, ttnn.from_torch(
        a.to(torch.bfloat16), layout=ttnn.TILE_LAYOUT, device=device, memory_config=config
    )


def test_an_interleaved_tensor_cannot_back_a_dfb(needs_device_cxx, fresh_jit, tmp_path):
    module = _load(tmp_path, 1)
    a = np.ones((32, 32), ml_dtypes.bfloat16)
    with pytest.raises(LaunchError, match=r"DFB 'a_dfb' is backed by tensor 'a'.*interleaved"):
        module.double(a, np.zeros((32, 32), ml_dtypes.bfloat16))


def test_a_range_past_the_shard_is_a_launch_error(needs_device_cxx, fresh_jit, tmp_path):
    ttnn = _ttnn()
    device = ttnn.open_device(device_id=0)
    try:
        _, a = _sharded_a(ttnn, device, tiles=1)  # a one-tile shard, a two-block DFB
        module = _load(tmp_path, 2)
        y = ttnn.from_torch(
            torch.zeros((32, 32), dtype=torch.bfloat16), layout=ttnn.TILE_LAYOUT, device=device
        )
        with pytest.raises(
            LaunchError,
            match=r"needs bytes 0\.\.4096 of tensor 'a''s shard, "
            r"which has 2048 bytes per node",
        ):
            module.double(a, y)
        # The same operation on a shard that holds it runs.
        values, a2 = _sharded_a(ttnn, device, tiles=2)
        module.double(a2, y)
        assert torch.equal(ttnn.to_torch(y).float(), values[:, :32] * 2)
    finally:
        ttnn.close_device(device)
    assert ttl  # the public package, imported as a user would
