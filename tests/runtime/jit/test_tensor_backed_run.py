"""Tensor-backed DFBs at run time: the tensor must be L1-sharded and the DFB's byte
range must fit its shard; each an error located at the call, naming the DFB, the
tensor and what to change (and a launch error for a bundle run directly; the sharded
run itself: tests/programs/tensor_backed_dfbs.py)."""

from __future__ import annotations

import importlib.util

import ml_dtypes
import numpy as np
import pytest
import torch

import ttl
from ttl.errors import TTLCompileError
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
    with pytest.raises(TTLCompileError) as info:
        module.double(a, np.zeros((32, 32), ml_dtypes.bfloat16))
    assert "DFB 'a_dfb' of operation 'double' is backed by tensor 'a'" in info.value.message
    assert "interleaved here, not L1-sharded" in info.value.message
    assert info.value.loc is not None and info.value.loc.filename == __file__


def test_a_range_past_the_shard_is_an_error_at_the_call(needs_device_cxx, fresh_jit, tmp_path):
    ttnn = _ttnn()
    device = ttnn.open_device(device_id=0)
    try:
        _, a = _sharded_a(ttnn, device, tiles=1)  # a one-tile shard, a two-block DFB
        module = _load(tmp_path, 2)
        y = ttnn.from_torch(
            torch.zeros((32, 32), dtype=torch.bfloat16), layout=ttnn.TILE_LAYOUT, device=device
        )
        with pytest.raises(TTLCompileError) as info:
            module.double(a, y)
        assert "needs bytes 0..4096 of the shard of tensor 'a', which has 2048 bytes per node" in (
            info.value.message
        )
        # The same operation on a shard that holds it runs.
        values, a2 = _sharded_a(ttnn, device, tiles=2)
        module.double(a2, y)
        assert torch.equal(ttnn.to_torch(y).float(), values[:, :32] * 2)
    finally:
        ttnn.close_device(device)
    assert ttl  # the public package, imported as a user would


def test_a_bundle_run_directly_checks_the_backing_at_its_launch(
    needs_device_cxx, fresh_jit, tmp_path
):
    from ttl.runtime.bundle import run

    ttnn = _ttnn()
    device = ttnn.open_device(device_id=0)
    try:
        _, a = _sharded_a(ttnn, device, tiles=1)
        y = ttnn.from_torch(
            torch.zeros((32, 32), dtype=torch.bfloat16), layout=ttnn.TILE_LAYOUT, device=device
        )
        _load(tmp_path, 1).double(a, y)  # compiles the bundle into the JIT cache
    finally:
        ttnn.close_device(device)
    (manifest,) = fresh_jit.glob("bundles/*/manifest.json")
    ones = np.ones((32, 32), ml_dtypes.bfloat16)
    with pytest.raises(LaunchError, match=r"DFB 'a_dfb' is backed by tensor 'a'.*interleaved"):
        run(manifest.parent, ones, np.zeros((32, 32), ml_dtypes.bfloat16))
