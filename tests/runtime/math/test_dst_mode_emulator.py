"""DST modes on the emulator: 16-bit DST rounds every result, fp32 DST keeps it (both targets).

``fp32_dest_acc_en`` changes numerics as on hardware: with a 16-bit DST the
product of ``a * b + c`` is rounded to bf16 before the add. Each mode is checked
bit for bit against a NumPy model of it, and the two must differ on these inputs.
``dst_full_sync_en`` doubles DST: a 16-tile chunk uses registers 8..15.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from ttl.compiler.driver import load_operation
from ttl.host import jit

BF16 = ml_dtypes.bfloat16

FMA = """\
import ttl


@ttl.operation(grid=(1, 1){options})
def op(a, b, c, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 2))
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 2))
    c_dfb = ttl.make_dataflow_buffer_like(c, shape=(1, 2))
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 2))

    @ttl.compute()
    def compute():
        with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk, c_dfb.wait() as c_blk:
            with y_dfb.reserve() as y_blk:
                y_blk.store(a_blk * b_blk + c_blk)

    @ttl.datamovement()
    def read():
        with a_dfb.reserve() as blk:
            ttl.copy(a[0:1, 0:2], blk).wait()
        with b_dfb.reserve() as blk:
            ttl.copy(b[0:1, 0:2], blk).wait()
        with c_dfb.reserve() as blk:
            ttl.copy(c[0:1, 0:2], blk).wait()

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as blk:
            ttl.copy(blk, y[0:1, 0:2]).wait()
"""


def _load(tmp_path, source: str, name: str):
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    return load_operation(str(path), "op")


def _fma_inputs():
    rng = np.random.default_rng(7)
    a, b, c = (rng.uniform(-2, 2, (32, 64)).astype(BF16) for _ in range(3))
    return a, b, c


@pytest.mark.parametrize("fp32", [False, True])
def test_fp32_dest_acc_en_decides_whether_dst_rounds(tmp_path, target, fp32):
    a, b, c = _fma_inputs()
    op = _load(tmp_path, FMA.format(options=f", fp32_dest_acc_en={fp32}"), f"fma{fp32}")
    y = np.zeros((32, 64), dtype=BF16)
    jit.run_operation(op, a, b, c, y, target=target)
    product = a.astype(np.float32) * b.astype(np.float32)  # exact: bf16 x bf16 fits fp32
    rounded = product if fp32 else product.astype(BF16).astype(np.float32)
    want = (rounded + c.astype(np.float32)).astype(BF16)
    np.testing.assert_array_equal(y.view(np.uint16), want.view(np.uint16))
    other = (
        (product.astype(BF16).astype(np.float32) if fp32 else product) + c.astype(np.float32)
    ).astype(BF16)
    assert (want != other).sum() > 100, "the two modes must differ on these inputs"


FULL_SYNC = """\
import ttl


@ttl.operation(grid=(1, 1), dst_full_sync_en=True)
def op(a, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 16))
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 16))

    @ttl.compute()
    def compute():
        with a_dfb.wait() as a_blk, y_dfb.reserve() as y_blk:
            y_blk.store(ttl.math.abs(a_blk) * 2.0)

    @ttl.datamovement()
    def read():
        with a_dfb.reserve() as blk:
            ttl.copy(a[0:1, 0:16], blk).wait()

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as blk:
            ttl.copy(blk, y[0:1, 0:16]).wait()
"""


def test_dst_full_sync_en_uses_sixteen_registers(tmp_path, target):
    op = _load(tmp_path, FULL_SYNC, "full_sync")
    result = op.compile({"a": "bf16[32,512]", "y": "bf16[32,512]"}, target=target)
    assert "for (uint32_t i = 0; i < 16; ++i) {" in result.sources["compute.cpp"]
    a = np.random.default_rng(3).uniform(-4, 4, (32, 512)).astype(BF16)
    y = np.zeros_like(a)
    jit.run_operation(op, a, y, target=target)
    want = (np.abs(a.astype(np.float32)) * 2).astype(BF16)
    np.testing.assert_array_equal(y.view(np.uint16), want.view(np.uint16))
