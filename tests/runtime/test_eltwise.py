"""y = a * b + c through real RISC-V kernels and the coprocessor."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from rt_eltwise import run_eltwise

from ttl.runtime import Device

BF16 = ml_dtypes.bfloat16


@pytest.fixture
def eltwise_elfs(build):
    def make(dtype):
        page = 2048 if dtype == "bf16" else 4096
        return {
            "reader": build("eltwise_reader", ct_args=[2, page]),
            "compute": build("eltwise_compute"),
            "writer": build("eltwise_writer", ct_args=[2, page]),
        }

    return make


def _inputs(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    np_dtype = BF16 if dtype == "bf16" else np.float32
    return [rng.standard_normal(shape).astype(np.float32).astype(np_dtype) for _ in range(3)]


def test_bf16_matches_fp32_math_rounded_once(eltwise_elfs):
    a, b, c = _inputs((64, 96), "bf16")
    y, report = run_eltwise(Device(grid=(1, 1)), eltwise_elfs("bf16"), a, b, c, "bf16")
    # Coprocessor: fp32 math, one round-to-nearest-even to bf16 at pack. The
    # bf16*bf16 product is exact in fp32, so this reference is bit-exact.
    want = (a.astype(np.float32) * b.astype(np.float32) + c.astype(np.float32)).astype(BF16)
    assert y.dtype == BF16 and y.shape == (64, 96)
    np.testing.assert_array_equal(y.view(np.uint16), want.view(np.uint16))
    kernels = {k.kernel: k for k in report.kernels}
    # 6 tiles x 5 commands: acquire, mul, unpack, add, pack (release sends none)
    assert kernels["compute"].coprocessor_commands == 6 * 5


def test_fp32(eltwise_elfs):
    a, b, c = _inputs((32, 64), "f32", seed=1)
    y, _ = run_eltwise(Device(grid=(1, 1)), eltwise_elfs("f32"), a, b, c, "f32")
    # fp32 throughout: a*b rounds once, +c rounds once, exactly like NumPy float32.
    np.testing.assert_array_equal(y, a * b + c)


def test_multi_node_grid_splits_tiles(eltwise_elfs):
    a, b, c = _inputs((96, 64), "bf16", seed=2)
    y, report = run_eltwise(Device(grid=(2, 2)), eltwise_elfs("bf16"), a, b, c, "bf16")
    want = (a.astype(np.float32) * b.astype(np.float32) + c.astype(np.float32)).astype(BF16)
    np.testing.assert_array_equal(y.view(np.uint16), want.view(np.uint16))
    assert len(report.kernels) == 12  # 3 kernels x 4 nodes
    # 6 tiles over 4 nodes: 2, 2, 1, 1 tiles -> 5 commands per tile.
    assert sorted(k.coprocessor_commands for k in report.kernels if k.slot == "compute") == [
        5,
        5,
        10,
        10,
    ]


def test_torch_in_torch_out(eltwise_elfs):
    torch = pytest.importorskip("torch")
    a, b, c = (
        torch.from_numpy(x.astype(np.float32)).to(torch.bfloat16)
        for x in _inputs((32, 64), "bf16", seed=3)
    )
    y, _ = run_eltwise(Device(grid=(1, 1)), eltwise_elfs("bf16"), a, b, c, "bf16")
    assert isinstance(y, torch.Tensor) and y.dtype == torch.bfloat16
    want = (a.float() * b.float() + c.float()).to(torch.bfloat16)
    assert torch.equal(y, want)
