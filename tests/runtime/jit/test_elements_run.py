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


COMPARE = """
import ttl

@ttl.operation(grid=(1, 1))
def compare(a, b, out):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=1)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 1), block_count=1)
    o_dfb = ttl.make_dataflow_buffer_like(out, shape=(1, 1), block_count=1)

    @ttl.datamovement()
    def dm():
        with a_dfb.reserve() as x, b_dfb.reserve() as y:
            ttl.copy(a[0, 0], x).wait()
            ttl.copy(b[0, 0], y).wait()
        with a_dfb.wait() as x, b_dfb.wait() as y, o_dfb.reserve() as o:
            for c in range(32):
                u = ttl.raw_element_read(x, 0, c)
                v = ttl.raw_element_read(y, 0, c)
                for r, hit in ((1, u == v), (2, u != v), (3, u < v), (4, u <= v), (5, u > v),
                               (6, u >= v), (7, u < 0.5), (8, 0.5 < u)):
                    if hit:
                        ttl.raw_element_write(o, r, c, 1.0)
                    else:
                        ttl.raw_element_write(o, r, c, 0.0)
            ttl.copy(o, out[0, 0]).wait()
"""


def test_element_values_compare_as_ieee_floats(needs_device_cxx, fresh_jit, tmp_path):
    """NaNs are unordered, -0 equals +0, negative values order below positive ones."""
    path = tmp_path / "compare_elements.py"
    path.write_text(COMPARE)
    spec = importlib.util.spec_from_file_location("compare_elements", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    specials = [0.0, -0.0, np.nan, np.inf, -np.inf, 0.5, -0.5, 1e-38, -3.0, 2.0]
    rng = np.random.default_rng(1)
    partners = [-0.0, 0.0, 1.0, np.inf, 0.0, 0.5, -0.25, 0.0, -2.0, np.nan]
    u = np.array([*specials, *rng.choice(specials, 22)], np.float32)
    v = np.array([*partners, *rng.choice(specials, 22)], np.float32)
    a, b = np.zeros((32, 32), np.float32), np.zeros((32, 32), np.float32)
    a[0], b[0] = u, v
    out = np.full((32, 32), 7.0, np.float32)
    module.compare(a, b, out)
    with np.errstate(invalid="ignore"):
        want = [u == v, u != v, u < v, u <= v, u > v, u >= v, u < 0.5, u > 0.5]
    for row, expected in enumerate(want, start=1):
        np.testing.assert_array_equal(out[row], expected.astype(np.float32), err_msg=str(row))
