"""ttnn.bfloat8_b: host quantization, operations on BFP8_b tensors (exact against a NumPy
reference that quantizes with ttl/runtime/bfp8.py), and the errors of unsupported uses.

tt-lang-sim 1.1.6 backs bfloat8_b with bfloat16 (no quantization), so it is not the
reference for these numbers.
"""

from __future__ import annotations

import importlib.util

import ml_dtypes
import numpy as np
import pytest
import torch
from jit_support import ROOT

from ttl.host import ttnn
from ttl.host.ttnn.errors import TtnnError
from ttl.runtime import Bfp8Tensor
from ttl.runtime.tiles import BFP8, round_to_format

HERE = __file__


def _q(x: np.ndarray) -> np.ndarray:
    """The BFP8_b values of a tile-aligned float array, as float32."""
    return round_to_format(np.asarray(x, np.float32), BFP8).astype(np.float32)


def _bf16(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, np.float32).astype(ml_dtypes.bfloat16).astype(np.float32)


def _data(t: ttnn.Tensor) -> np.ndarray:
    (only,) = t.shards()
    return only.astype(np.float32)


def _op(name: str, attr: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / "ttnn" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, attr)


def _randn(*shape: int, seed: int = 0) -> torch.Tensor:
    return torch.from_numpy(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def test_bfloat8_b_is_a_ttnn_dtype():
    assert ttnn.bfloat8_b is ttnn.DataType.BFLOAT8_B
    assert "bfloat8_b" in ttnn.__all__


def test_from_torch_quantizes_the_padded_tiles_and_to_torch_gives_bfloat16():
    x = _randn(40, 20)
    t = ttnn.from_torch(x, dtype=ttnn.bfloat8_b, layout=ttnn.TILE_LAYOUT)
    assert t.dtype is ttnn.bfloat8_b and t.shape == (40, 20) and t.padded_shape == (64, 32)
    padded = np.zeros((64, 32), np.float32)
    padded[:40, :20] = x.numpy()
    want = _q(padded)[:40, :20]
    out = ttnn.to_torch(t)
    assert out.dtype == torch.bfloat16  # as ttnn returns bfloat8_b tensors
    np.testing.assert_array_equal(out.float().numpy(), want)
    assert ttnn.to_torch(t, dtype=torch.float32).dtype == torch.float32
    assert not np.array_equal(want, _bf16(x.numpy())[:40, :20])  # really coarser than bf16


def test_from_torch_quantizes_float32_directly_not_through_bfloat16():
    # A row whose largest value is 1.0 has steps of 2^-6. 2^-7 + 2^-20 is just above half a
    # step, so it rounds up; through bf16 it would first become 2^-7 (a tie) and round to 0.
    x = torch.zeros(32, 32)
    x[0, 0], x[0, 1] = 1.0, 2.0**-7 + 2.0**-20
    got = ttnn.to_torch(ttnn.from_torch(x, dtype=ttnn.bfloat8_b, layout=ttnn.TILE_LAYOUT))
    assert got[0, 1].item() == 2.0**-6
    via_bf16 = ttnn.from_torch(x.bfloat16(), dtype=ttnn.bfloat8_b, layout=ttnn.TILE_LAYOUT)
    assert ttnn.to_torch(via_bf16)[0, 1].item() == 0.0


def test_creation_typecast_and_host_ops_round_to_bfp8():
    full = ttnn.full((32, 32), 0.3, dtype=ttnn.bfloat8_b)
    assert full.dtype is ttnn.bfloat8_b
    np.testing.assert_array_equal(_data(full), _q(np.full((32, 32), 0.3)))
    assert _data(ttnn.ones((32, 64), dtype=ttnn.bfloat8_b)).min() == 1.0
    assert not _data(ttnn.zeros((32, 32), dtype=ttnn.bfloat8_b)).any()
    torch.manual_seed(3)
    r = ttnn.rand((64, 64), dtype=ttnn.bfloat8_b)
    np.testing.assert_array_equal(_data(r), _q(_data(r)))  # already on the grid

    a16 = ttnn.from_torch(_randn(64, 64), dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT)
    a8 = ttnn.typecast(a16, ttnn.bfloat8_b)
    assert a8.dtype is ttnn.bfloat8_b
    np.testing.assert_array_equal(_data(a8), _q(_data(a16)))
    assert ttnn.typecast(a8, ttnn.bfloat16).dtype is ttnn.bfloat16

    b8 = ttnn.from_torch(_randn(64, 64, seed=1), dtype=ttnn.bfloat8_b, layout=ttnn.TILE_LAYOUT)
    s = ttnn.add(a8, b8)
    assert s.dtype is ttnn.bfloat8_b
    np.testing.assert_array_equal(_data(s), _q(_data(a8) + _data(b8)))
    np.testing.assert_array_equal(_data(ttnn.matmul(a8, b8)), _q(_data(a8) @ _data(b8)))


def test_eltwise_operation_on_bfp8_tensors_matches_the_quantizing_reference(needs_device_cxx):
    add_mul = _op("eltwise_add_mul_op", "eltwise_add_mul")
    a, b, c = (
        ttnn.from_torch(_randn(64, 96, seed=s), dtype=ttnn.bfloat8_b, layout=ttnn.TILE_LAYOUT)
        for s in range(3)
    )
    y8 = ttnn.zeros((64, 96), dtype=ttnn.bfloat8_b)
    y16 = ttnn.zeros((64, 96), dtype=ttnn.bfloat16)
    add_mul(a, b, c, y8)
    add_mul(a, b, c, y16)
    # bf16 and bfp8 tensors: a 16-bit DST, so a * b rounds to bf16 before c is added.
    dst = _bf16(_bf16(_data(a) * _data(b)) + _data(c))
    np.testing.assert_array_equal(_data(y16), dst)  # bfp8 in, bf16 out: not quantized
    np.testing.assert_array_equal(_data(y8), _q(dst))  # bfp8 out: the packer quantizes
    exact = (_randn(64, 96, seed=0) * _randn(64, 96, seed=1) + _randn(64, 96, seed=2)).numpy()
    assert np.abs(_data(y8) - exact).max() < 0.1  # loosely, float32 torch math

    # The reverse: bf16 inputs, a bfp8 output.
    a16, b16, c16 = (ttnn.typecast(t, ttnn.bfloat16) for t in (a, b, c))
    y8b = ttnn.zeros((64, 96), dtype=ttnn.bfloat8_b)
    add_mul(a16, b16, c16, y8b)
    np.testing.assert_array_equal(_data(y8b), _q(dst))


def test_matmul_operation_on_bfp8_tensors_matches_the_quantizing_reference(needs_device_cxx):
    matmul = _op("matmul_op", "matmul")
    a = ttnn.from_torch(_randn(64, 96), dtype=ttnn.bfloat8_b, layout=ttnn.TILE_LAYOUT)
    b = ttnn.from_torch(_randn(96, 64, seed=1), dtype=ttnn.bfloat8_b, layout=ttnn.TILE_LAYOUT)
    y = ttnn.zeros((64, 64), dtype=ttnn.bfloat8_b)
    matmul(a, b, y)
    a32, b32 = _data(a), _data(b)
    acc = np.zeros((64, 64), np.float32)
    for k in range(0, 96, 32):  # a 16-bit DST rounds the sum after each K tile
        acc = _bf16(acc + np.ascontiguousarray(a32[:, k : k + 32]) @ b32[k : k + 32])
    np.testing.assert_allclose(_data(y), _q(acc), rtol=0, atol=0)
    exact = (_randn(64, 96) @ _randn(96, 64, seed=1)).numpy()
    np.testing.assert_allclose(_data(y), exact, rtol=0.05, atol=0.5)


def test_kernels_move_the_packed_tiles(needs_device_cxx):
    """The DRAM pages of a bfp8 tensor are 1088-byte BFP8_b tiles (what the kernels copy)."""
    from ttl.runtime import Device

    dev = Device(target="wormhole_b0", grid=(1, 1))
    x = _q(_randn(32, 64).numpy())
    t = dev.write_tensor(Bfp8Tensor(x))
    assert t.dtype == "bfp8" and t.page_size == 1088 and t.num_pages == 2
    page0 = dev.dram.read_pages(t.address, t.page_size, 1)[0]
    assert page0[0] == np.max((x[:1, :16].view(np.uint32) >> 23) & 0xFF)  # face 0, row 0
    np.testing.assert_array_equal(dev.read_tensor(t).astype(np.float32), x)


@pytest.mark.parametrize(
    ("call", "fragments"),
    [
        (
            lambda: ttnn.from_torch(torch.zeros(32, 32), dtype=ttnn.bfloat8_b),
            ("ttnn.from_torch: dtype bfloat8_b needs TILE_LAYOUT", "ROW_MAJOR"),
        ),
        (
            lambda: ttnn.rand((32, 32), dtype=ttnn.bfloat8_b, layout=ttnn.ROW_MAJOR_LAYOUT),
            ("ttnn.rand: dtype bfloat8_b needs TILE_LAYOUT",),
        ),
        (
            lambda: ttnn.to_layout(ttnn.zeros((32, 32), ttnn.bfloat8_b), ttnn.ROW_MAJOR_LAYOUT),
            ("ttnn.to_layout: dtype bfloat8_b needs TILE_LAYOUT",),
        ),
        (
            lambda: ttnn.typecast(
                ttnn.zeros((32, 32), layout=ttnn.ROW_MAJOR_LAYOUT), ttnn.bfloat8_b
            ),
            ("ttnn.typecast: dtype bfloat8_b needs TILE_LAYOUT",),
        ),
    ],
)
def test_row_major_bfloat8_b_is_a_located_error(call, fragments):
    with pytest.raises(TtnnError) as info:
        call()
    text = info.value.render()
    assert info.value.loc is not None and info.value.loc.filename == HERE, text
    assert "hint: pass layout=ttnn.TILE_LAYOUT, or use dtype=ttnn.bfloat16" in text
    for fragment in fragments:
        assert fragment in text, text


def test_an_operation_mixing_bfp8_and_float32_blocks_unpacks_both(needs_device_cxx):
    # Issue 28 item 2: the unpacker converts any format; a BFP8_b value is exact in f32,
    # and with f32 tensors DST holds f32 (fp32_dest_acc_en's default).
    add_mul = _op("eltwise_add_mul_op", "eltwise_add_mul")
    a = ttnn.from_torch(_randn(32, 32), dtype=ttnn.bfloat8_b, layout=ttnn.TILE_LAYOUT)
    b, c = (
        ttnn.from_torch(_randn(32, 32, seed=s), dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT)
        for s in (1, 2)
    )
    y = ttnn.zeros((32, 32), dtype=ttnn.float32)
    add_mul(a, b, c, y)
    want = ttnn.to_torch(a).float() * ttnn.to_torch(b) + ttnn.to_torch(c)
    torch.testing.assert_close(ttnn.to_torch(y), want, rtol=1e-6, atol=1e-6)


def test_prints_show_the_unpacked_values_of_bfp8_pages_and_blocks(needs_device_cxx):
    import io

    import debug_ops

    from ttl.host import jit

    shape = (32 * debug_ops.M_TILES, 32 * debug_ops.N_TILES)
    # Integers below 128: exact in BFP8_b (7-bit magnitudes), so prints are exact too.
    c = (np.arange(shape[0] * shape[1]).reshape(shape) % 97).astype(np.float32)
    a = (np.arange(32 * 64).reshape(32, 64) % 13).astype(np.float32)
    tensors = [Bfp8Tensor(x) for x in (a, np.ones((64, 64)), c, np.zeros(shape))]
    out = io.StringIO()
    jit.configure(prints=out)
    debug_ops.spec_debugging(*tensors)
    np.testing.assert_array_equal(tensors[3].values.astype(np.float32), 2 * c)
    lines = out.getvalue().splitlines()
    read = [line.removeprefix("[(0,0) matmul_read] ") for line in lines if "matmul_read]" in line]
    assert read[0] == "c: <Tensor c shape=(32, 64) dtype=bfp8>"
    width = len(str(int(c[:, :32].max())))
    first_row = "    " + " ".join(str(int(v)).rjust(width) for v in c[0, :32])
    assert read[3] == first_row
    computed = [line.removeprefix("[(0,0) compute] ") for line in lines if "compute]" in line]
    assert computed[0] == "y_blk: <Block of y_dfb shape=(1, 1) dtype=bfp8>"
    assert [int(v) for v in computed[2].split()] == [int(v) for v in 2 * c[0, :32]]  # packed


def test_an_fp32_dst_packs_the_unrounded_result_into_bfp8(needs_device_cxx, tmp_path):
    source = (ROOT / "examples" / "ttnn" / "eltwise_add_mul_op.py").read_text()
    fp32 = "@ttl.operation(grid=(1, 1), fp32_dest_acc_en=True)"
    path = tmp_path / "add_mul_fp32.py"
    path.write_text(source.replace("@ttl.operation(grid=(1, 1))", fp32))
    spec = importlib.util.spec_from_file_location("add_mul_fp32", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    a, b, c = (Bfp8Tensor(_randn(64, 64, seed=s).numpy()) for s in range(3))
    y = Bfp8Tensor(np.zeros((64, 64)))
    module.eltwise_add_mul(a, b, c, y)
    a32, b32, c32 = (t.values.astype(np.float32) for t in (a, b, c))
    np.testing.assert_array_equal(y.values.astype(np.float32), _q(a32 * b32 + c32))
