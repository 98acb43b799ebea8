"""``ttl.read_index`` on row-major blocks, run (the tiled case runs in
tests/programs/read_index_gather.py on both targets).

A row-major block is its elements in order: the index at (1, 55) of a 2x64 block
is element 119. f32 indices truncate toward zero.
"""

from __future__ import annotations

import importlib.util

import ml_dtypes
import numpy as np
import pytest

import ttl

SOURCE = """
import ttl

@ttl.operation(grid=(1, 1))
def gather(idx, w, out):
    idx_dfb = ttl.make_dataflow_buffer_like(idx, shape=(2, 64), block_count=1)
    w_dfb = ttl.make_dataflow_buffer_like(w, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def read():
        with idx_dfb.reserve() as blk:
            ttl.copy(idx[0:2, 0:64], blk).wait()
        with idx_dfb.wait() as blk:
            for k in range(2):
                i = ttl.read_index(blk, 1, 5 + 50 * k)
                with w_dfb.reserve() as wblk:
                    ttl.copy(w[i, 0], wblk).wait()

    @ttl.datamovement()
    def write():
        for k in range(2):
            with w_dfb.wait() as wblk:
                ttl.copy(wblk, out[k, 0]).wait()
"""


@pytest.mark.parametrize("dtype", [np.float32, ml_dtypes.bfloat16])
def test_row_major_indices_steer_the_copies(needs_device_cxx, fresh_jit, tmp_path, dtype):
    path = tmp_path / "gather_rm.py"
    path.write_text(SOURCE)
    spec = importlib.util.spec_from_file_location(f"gather_rm_{np.dtype(dtype).name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    idx = np.zeros((2, 64), dtype)
    idx[1, 5], idx[1, 55] = 3, 1.5
    w = np.random.default_rng(0).standard_normal((128, 32)).astype(ml_dtypes.bfloat16)
    out = np.zeros((64, 32), ml_dtypes.bfloat16)
    module.gather(ttl.row_major(idx), w, out)
    np.testing.assert_array_equal(out, np.concatenate([w[96:128], w[32:64]]))
