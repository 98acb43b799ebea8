"""A ttnn tensor's logical shape is part of what an operation compiles for.

The top level reads ``tensor.shape`` as ttnn's logical shape: a ``[1, 1]``
tensor and a ``[32, 32]`` one are both one stored tile, but an operation whose
top level reads the shape compiles one bundle for each, and the JIT's cache
keeps them apart.
"""

from __future__ import annotations

import pytest
import torch

from ttl.compiler.driver import load_operation
from ttl.host import jit, toolchain, ttnn

pytestmark = pytest.mark.skipif(
    toolchain.find_compiler() is None, reason=f"{toolchain.flags.default_cxx()} is not installed"
)

SCALE_BY_ELEMENTS = """\
import ttl

@ttl.operation(grid=(1, 1))
def op(c, out):
    elements = float(c.shape[0] * c.shape[1])  # 1.0 for [1, 1], 1024.0 for [32, 32]
    c_dfb = ttl.make_dataflow_buffer_like(c, shape=(1, 1))
    out_dfb = ttl.make_dataflow_buffer_like(out, shape=(1, 1))

    @ttl.datamovement()
    def read():
        with c_dfb.reserve() as blk:
            ttl.copy(c[0, 0], blk).wait()

    @ttl.compute()
    def compute():
        with c_dfb.wait() as cb, out_dfb.reserve() as ob:
            ob.store(cb * elements)

    @ttl.datamovement()
    def write():
        with out_dfb.wait() as blk:
            ttl.copy(blk, out[0, 0]).wait()
"""


def test_logical_shapes_of_one_stored_tile_compile_apart(tmp_path, monkeypatch):
    monkeypatch.setenv("TTL_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "scale.py"
    path.write_text(SCALE_BY_ELEMENTS)
    op = load_operation(str(path), "op")
    results = []
    for shape in ((1, 1), (32, 32)):
        c = ttnn.from_torch(torch.full(shape, 2.0), layout=ttnn.TILE_LAYOUT)
        out = ttnn.from_torch(torch.zeros(32, 32), layout=ttnn.TILE_LAYOUT)
        jit.run_operation(op, c, out)
        results.append(ttnn.to_torch(out)[0, 0].item())
    assert results == [2.0, 2048.0]
    manifests = sorted((tmp_path / "cache" / "bundles").glob("*/manifest.json"))
    assert len(manifests) == 2
    logical = sorted(str(m.read_text().count('"logical_shape"')) for m in manifests)
    assert logical == ["0", "1"]


ADD_MUL_PADDED = """\
import ttl

@ttl.operation(grid=(1, 1))
def op(a, b, c, y):
    assert a.shape == (40, 20)  # the logical shape, as ttnn's
    rows, cols = a.padded_shape[0] // 32, a.padded_shape[1] // 32  # 2 x 1 stored tiles
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1))
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 1))
    c_dfb = ttl.make_dataflow_buffer_like(c, shape=(1, 1))
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1))

    @ttl.datamovement()
    def read():
        for r in range(rows):
            for k in range(cols):
                with a_dfb.reserve() as ab, b_dfb.reserve() as bb, c_dfb.reserve() as cb:
                    ttl.copy(a[r, k], ab).wait()
                    ttl.copy(b[r, k], bb).wait()
                    ttl.copy(c[r, k], cb).wait()

    @ttl.compute()
    def compute():
        for _ in range(rows * cols):
            with a_dfb.wait() as ab, b_dfb.wait() as bb, c_dfb.wait() as cb:
                with y_dfb.reserve() as yb:
                    yb.store(ab * bb + cb)

    @ttl.datamovement()
    def write():
        for r in range(rows):
            for k in range(cols):
                with y_dfb.wait() as yb:
                    ttl.copy(yb, y[r, k]).wait()
"""


def test_kernels_move_the_padded_tiles_and_to_torch_returns_the_logical_data(tmp_path):
    path = tmp_path / "add_mul.py"
    path.write_text(ADD_MUL_PADDED)
    op = load_operation(str(path), "op")
    torch.manual_seed(0)
    src = [torch.rand((40, 20), dtype=torch.bfloat16) for _ in range(3)]
    a, b, c = (ttnn.from_torch(s, layout=ttnn.TILE_LAYOUT) for s in src)
    y = ttnn.zeros((40, 20), dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT)
    jit.run_operation(op, a, b, c, y)
    out = ttnn.to_torch(y)
    assert tuple(out.shape) == (40, 20)
    want = (src[0].float() * src[1].float()).to(torch.bfloat16).float() + src[2].float()
    torch.testing.assert_close(out.float(), want.to(torch.bfloat16).float(), rtol=0, atol=0)
