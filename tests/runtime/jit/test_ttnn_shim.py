"""The ttnn host subset: tensors, padding, dtypes, layouts, creation, conversion, glue ops,
located errors, and torch being optional."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
import torch
from jit_support import EXAMPLE_OP, assert_located

from ttl.errors import TTLCompileError
from ttl.host import ttnn
from ttl.host.ttnn.errors import MissingTtnnFunctionError, TtnnError

UPSAMPLE = Path(__file__).resolve().parents[3] / "examples/spec/group_transfer_upsample.py"


def _data(t: ttnn.Tensor) -> np.ndarray:
    """The tensor's one logical array."""
    (only,) = t.shards()
    return only


def test_not_importable_as_ttnn_outside_ttl_run():
    shim = sys.modules["ttl.host.ttnn"]
    assert sys.modules.get("ttnn") is not shim
    spec = importlib.util.find_spec("ttnn") if "ttnn" not in sys.modules else None
    assert spec is None or spec.origin != shim.__file__


def test_tensor_creation_and_glue_ops_round_to_the_dtype():
    dev = ttnn.open_device(device_id=0)
    a = ttnn.full((32, 64), 1.5, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=dev)
    b = ttnn.ones((32, 64), dtype=ttnn.bfloat16, device=dev)
    out = ttnn.add(ttnn.multiply(a, b), 1 / 3)
    assert out.shape == (32, 64) and out.dtype is ttnn.bfloat16 and out.layout is ttnn.TILE_LAYOUT
    assert out.device() is dev and out.memory_config() == ttnn.DRAM_MEMORY_CONFIG
    want = np.full((32, 64), np.float32(1.5) + np.float32(1 / 3)).astype(ml_dtypes.bfloat16)
    np.testing.assert_array_equal(_data(out), want)
    assert _data(ttnn.zeros_like(out, dtype=ttnn.float32)).dtype == np.float32
    ttnn.close_device(dev)
    assert not dev.is_open


def test_shape_is_a_tuple_with_a_rank():
    shape = ttnn.Shape([128, 64])
    assert shape == (128, 64) and shape.rank == 2 and list(shape) == [128, 64]
    assert ttnn.zeros(shape).shape == shape and isinstance(ttnn.zeros(shape).shape, ttnn.Shape)


@pytest.mark.parametrize(
    ("make", "value"),
    [
        (lambda s: ttnn.zeros(s), 0.0),
        (lambda s: ttnn.ones(s), 1.0),
        (lambda s: ttnn.full(s, 2.5), 2.5),
        (lambda s: ttnn.empty(s), 0.0),
        (lambda s: ttnn.zeros_like(ttnn.full(s, 7.0)), 0.0),
        (lambda s: ttnn.ones_like(ttnn.full(s, 7.0)), 1.0),
        (lambda s: ttnn.full_like(ttnn.zeros(s), 3.0), 3.0),
    ],
)
def test_creation_functions_fill_the_logical_shape(make, value):
    t = make(ttnn.Shape([40, 20]))
    assert t.shape == (40, 20) and t.padded_shape == (64, 32)
    np.testing.assert_array_equal(_data(t), np.full((40, 20), value, ml_dtypes.bfloat16))


def test_rand_follows_torch_manual_seed_and_its_range():
    torch.manual_seed(3)
    a = ttnn.rand(ttnn.Shape([64, 64]), dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT)
    torch.manual_seed(3)
    b = ttnn.rand((64, 64), dtype=ttnn.float32)
    np.testing.assert_array_equal(_data(a), _data(b))
    assert _data(a).min() >= 0.0 and _data(a).max() < 1.0 and _data(a).std() > 0.1
    r = ttnn.rand((32, 32), low=-2.0, high=-1.0)
    assert float(_data(r).min()) >= -2.0 and float(_data(r).max()) <= -1.0


def test_tile_padding_keeps_the_logical_shape_and_zero_pads():
    src = torch.arange(1, 41, dtype=torch.float32).reshape(40, 1)
    t = ttnn.from_torch(src, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT)
    assert t.shape == (40, 1) and t.logical_shape() == (40, 1) and t.padded_shape == (64, 32)
    stored = t.__ttl_host_array__("t", None)  # what an operation sees: whole tiles
    assert stored.shape == (64, 32)
    np.testing.assert_array_equal(stored[:40, 0], np.arange(1, 41))  # column 0 of its tiles
    assert not stored[40:].any() and not stored[:, 1:].any()
    assert torch.equal(ttnn.to_torch(t), src)
    row_major = ttnn.to_layout(t, ttnn.ROW_MAJOR_LAYOUT)
    assert row_major.padded_shape == (40, 1) and torch.equal(ttnn.to_torch(row_major), src)
    padded = ttnn.from_torch(src, layout=ttnn.TILE_LAYOUT, pad_value=-1.0)
    assert padded.__ttl_host_array__("t", None)[63, 31] == -1


def test_from_torch_and_to_torch_round_trip():
    src = torch.rand((32, 64), dtype=torch.float32)
    t = ttnn.from_torch(src, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT)
    back = ttnn.to_torch(t)
    assert back.dtype == torch.bfloat16 and tuple(back.shape) == (32, 64)
    assert torch.equal(back, src.to(torch.bfloat16))
    assert ttnn.from_torch(src).layout is ttnn.ROW_MAJOR_LAYOUT  # ttnn's default
    assert ttnn.from_torch(src).dtype is ttnn.float32  # the torch tensor's dtype
    assert ttnn.to_torch(t, dtype=torch.float32).dtype == torch.float32
    assert t.to_torch().dtype == torch.bfloat16


def test_to_device_from_device_typecast_reshape_to_layout():
    dev = ttnn.open_device(device_id=0)
    host = ttnn.from_torch(torch.arange(64.0).reshape(2, 32), dtype=ttnn.float32)
    on = ttnn.to_device(host, dev, memory_config=ttnn.L1_MEMORY_CONFIG)
    assert on.device() is dev and on.memory_config() == ttnn.L1_MEMORY_CONFIG
    assert ttnn.from_device(on).device() is None and on.cpu().device() is None
    half = ttnn.typecast(host, ttnn.bfloat16)
    assert half.dtype is ttnn.bfloat16 and _data(half).dtype == ml_dtypes.bfloat16
    flat = ttnn.reshape(host, (4, 16))
    assert flat.shape == (4, 16)
    np.testing.assert_array_equal(_data(flat).ravel(), np.arange(64.0))
    tiled = ttnn.to_layout(host, ttnn.TILE_LAYOUT)
    assert tiled.layout is ttnn.TILE_LAYOUT and tiled.padded_shape == (32, 32)


def test_elementwise_ops_broadcast_and_matmul():
    a = ttnn.from_torch(torch.full((64, 1), 2.0), dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT)
    b = ttnn.from_torch(torch.full((1, 32), 3.0), dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT)
    np.testing.assert_array_equal(_data(ttnn.multiply(a, b)), np.full((64, 32), 6.0))
    checks = {
        ttnn.subtract: -1.0,
        ttnn.divide: 2 / 3,
        ttnn.maximum: 3.0,
        ttnn.minimum: 2.0,
    }
    for fn, want in checks.items():
        np.testing.assert_allclose(_data(fn(a, b)), np.full((64, 32), want), rtol=1e-6)
    np.testing.assert_allclose(_data(ttnn.relu(ttnn.neg(a))), 0.0)
    np.testing.assert_allclose(_data(ttnn.abs(ttnn.neg(a))), 2.0)
    np.testing.assert_allclose(_data(ttnn.sqrt(ttnn.exp(ttnn.log(a)))), np.sqrt(2.0), rtol=1e-6)
    np.testing.assert_allclose(_data(ttnn.sigmoid(a)), 1 / (1 + np.exp(-2.0)), rtol=1e-6)
    np.testing.assert_allclose(_data(ttnn.tanh(a)), np.tanh(2.0), rtol=1e-6)
    np.testing.assert_allclose(_data(ttnn.matmul(a, b)), np.full((64, 32), 6.0))


def test_row_major_tensor_where_tiles_are_required_is_a_located_error(add_mul):
    # add_mul's DFBs are made like its tensors: a row-major 'a' makes a row-major a_dfb,
    # whose blocks cannot meet the tiled b_dfb's in one expression (tt-lang-sim: the same).
    t = ttnn.zeros((32, 32), dtype=ttnn.bfloat16, layout=ttnn.ROW_MAJOR_LAYOUT)
    tiled = ttnn.to_layout(t, ttnn.TILE_LAYOUT)
    with pytest.raises(TTLCompileError) as info:
        add_mul(t, tiled, tiled, tiled)
    text = info.value.render()
    assert "mixes blocks of row-major DFB" in text and "tiled DFB" in text, text
    assert f"{EXAMPLE_OP.name}:" in text and "hint:" in text, text


def test_row_major_ttnn_tensors_run_the_spec_upsample(needs_device_cxx):
    spec = importlib.util.spec_from_file_location("upsample", UPSAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    torch.manual_seed(0)
    src = torch.rand((module.N, module.HI, module.WI, module.C), dtype=torch.bfloat16)
    x = ttnn.from_torch(src, layout=ttnn.ROW_MAJOR_LAYOUT)
    out_shape = (module.N, module.HI * 2, module.WI * 3, module.C)
    y = ttnn.from_torch(torch.zeros(out_shape, dtype=torch.bfloat16), layout=ttnn.ROW_MAJOR_LAYOUT)
    module.group_transfer_upsample(x, y)
    out = ttnn.to_torch(y)
    assert y.layout is ttnn.ROW_MAJOR_LAYOUT and tuple(out.shape) == out_shape
    want = module.reference(src.float().numpy())
    np.testing.assert_array_equal(out.float().numpy(), want)


def test_operation_writes_into_ttnn_tensors(add_mul):
    a = ttnn.full((32, 32), 2.0, dtype=ttnn.float32)
    y = ttnn.zeros((32, 32), dtype=ttnn.float32)
    add_mul(a, a, a, y)
    np.testing.assert_array_equal(_data(y), np.full((32, 32), 6.0, np.float32))


def test_from_torch_without_torch_says_what_to_do(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch -> ImportError
    with pytest.raises(ImportError, match=r"need torch.*pip install torch.*NumPy arrays"):
        ttnn.from_torch(np.zeros((32, 32)))


def test_a_missing_ttnn_function_is_named_andassert_located():
    with pytest.raises(MissingTtnnFunctionError) as info:
        ttnn.softmax(ttnn.zeros((32, 32)))
    assert_located(info, "ttnn.softmax is not part of the emulator's ttnn subset", "docs/ttnn.md")
    assert not hasattr(ttnn, "bfloat4_b")  # hasattr sees an AttributeError


def test_unsupported_dtype_names_the_function_and_the_dtype():
    with pytest.raises(TtnnError) as info:
        ttnn.from_torch(torch.zeros((32, 32), dtype=torch.int32))
    assert_located(info, "ttnn.from_torch: dtype torch.int32", "ttnn.bfloat16, ttnn.float32 or")
    with pytest.raises(TtnnError) as info:
        ttnn.zeros((32, 32), dtype="int8")
    assert_located(info, "ttnn.zeros: dtype int8")


def test_unsupported_layout_names_the_op_and_the_layout():
    rm = ttnn.zeros((32, 32), layout=ttnn.ROW_MAJOR_LAYOUT)
    with pytest.raises(TtnnError) as info:
        ttnn.matmul(rm, ttnn.zeros((32, 32)))
    assert_located(info, "ttnn.matmul: the first operand is in ROW_MAJOR layout", "ttnn.to_layout")
    with pytest.raises(TtnnError) as info:
        ttnn.to_layout(rm, "tiles")
    assert_located(info, "ttnn.to_layout: layout 'tiles' is not supported")


def test_other_bad_input_isassert_located():
    with pytest.raises(TtnnError) as info:
        ttnn.from_torch(torch.zeros((32, 32)), tile=None, bogus=1)
    assert_located(info, "no option bogus")
    with pytest.raises(TtnnError) as info:
        ttnn.from_torch([1.0, 2.0])
    assert_located(info, "takes a torch.Tensor, got list")
    with pytest.raises(TtnnError) as info:
        ttnn.reshape(ttnn.zeros((32, 32)), (3, 5))
    assert_located(info, "cannot reshape (32, 32) (1024 elements) to (3, 5)")
    with pytest.raises(TtnnError) as info:
        ttnn.add(ttnn.zeros((32, 64)), ttnn.zeros((64, 32)))
    assert_located(info, "ttnn.add: the shapes (32, 64), (64, 32) do not combine")
    with pytest.raises(TtnnError) as info:
        ttnn.zeros((0, 32))
    assert_located(info, "ttnn.zeros: shape (0, 32) is not a list of positive sizes")


def test_tensors_on_two_devices_do_not_mix():
    one, two = ttnn.open_device(device_id=0), ttnn.open_device(device_id=1)
    with pytest.raises(TtnnError) as info:
        ttnn.add(ttnn.zeros((32, 32), device=one), ttnn.zeros((32, 32), device=two))
    assert_located(info, "ttnn.add was given tensors on different devices")


def test_memory_configs_in_ttnn_argument_order():
    l1 = ttnn.MemoryConfig(ttnn.TensorMemoryLayout.INTERLEAVED, ttnn.BufferType.L1)
    assert l1 == ttnn.L1_MEMORY_CONFIG and ttnn.MemoryConfig() == ttnn.DRAM_MEMORY_CONFIG
    t = ttnn.zeros((32, 32), memory_config=l1)
    assert t.memory_config().buffer_type is ttnn.BufferType.L1


def test_scalars_and_vectors_in_tiles_are_row_0_of_their_tiles():
    # The spec's dataflow_buffer/tiled_tensor_shape.py: ttnn tiles a scalar as (32, 32)
    # and a vector of n as (32, n rounded up), its values in row 0; shape stays logical.
    def shape_in_tiles(t):
        padded, tile = list(t.padded_shape), list(t.tile.tile_shape)
        return padded[:-2] + [d // td for d, td in zip(padded[-2:], tile, strict=True)]

    scalar = ttnn.from_torch(torch.tensor(3.5), layout=ttnn.TILE_LAYOUT)
    vector = ttnn.from_torch(torch.arange(40.0), layout=ttnn.TILE_LAYOUT)
    assert (scalar.shape, shape_in_tiles(scalar)) == ((), [1, 1])
    assert (vector.shape, shape_in_tiles(vector)) == ((40,), [1, 2])
    padded = ttnn.from_torch(torch.zeros(2, 2, 120, 30), layout=ttnn.TILE_LAYOUT)
    assert shape_in_tiles(padded) == [2, 2, 4, 1]
    assert ttnn.to_torch(scalar).item() == 3.5
    assert torch.equal(ttnn.to_torch(vector), torch.arange(40.0).to(torch.bfloat16))
    assert ttnn.from_torch(torch.zeros(40)).shape == (40,)  # row-major: as it is


def test_tensor_operators_are_ttnn_operations():
    # Upstream's host goldens write `a_in * b_in + c_full` and `a @ b` on ttnn tensors.
    a = ttnn.from_torch(torch.full((32, 32), 2.0), layout=ttnn.TILE_LAYOUT)
    b = ttnn.from_torch(torch.full((32, 32), 3.0), layout=ttnn.TILE_LAYOUT)
    assert ttnn.to_torch(a * b + a)[0, 0].item() == 8.0
    assert ttnn.to_torch(b - a)[0, 0].item() == 1.0
    assert abs(ttnn.to_torch(-a / b)[0, 0].item() + 2.0 / 3.0) < 1e-6
    assert ttnn.to_torch(a @ b)[0, 0].item() == 192.0
    assert ttnn.to_torch(2 * a)[0, 0].item() == 4.0


def test_split_work_to_cores_splits_as_tt_metal_does():
    # 11 units over a 4x2 grid: every node gets one, the first 3 (column by column) a
    # second; an even split leaves group 2 empty.
    n, all_cores, one, two, per_one, per_two = ttnn.split_work_to_cores(ttnn.CoreCoord(4, 2), 11)
    assert (n, all_cores.num_cores(), one.num_cores(), two.num_cores()) == (8, 8, 3, 5)
    assert (per_one, per_two) == (2, 1)
    assert one.ranges()[0] == ttnn.CoreRange(ttnn.CoreCoord(0, 0), ttnn.CoreCoord(0, 1))
    n, all_cores, one, two, per_one, per_two = ttnn.split_work_to_cores(
        ttnn.CoreCoord(4, 2), 6, row_wise=True
    )
    assert (n, one, two.num_cores(), per_one, per_two) == (6, all_cores, 0, 1, 0)
    assert all_cores.ranges()[1] == ttnn.CoreRange(ttnn.CoreCoord(0, 1), ttnn.CoreCoord(1, 1))
    with pytest.raises(TtnnError):
        ttnn.split_work_to_cores(ttnn.CoreCoord(2, 2), 0)


def test_upsample_repeats_each_pixel():
    # Upstream's tt_upsample.py checks its operation against ttnn.upsample.
    x = torch.arange(2 * 3 * 4 * 2, dtype=torch.float32).reshape(2, 3, 4, 2)
    t = ttnn.from_torch(x, layout=ttnn.ROW_MAJOR_LAYOUT)
    want = x.repeat_interleave(2, dim=1).repeat_interleave(3, dim=2)
    assert torch.equal(ttnn.to_torch(ttnn.upsample(t, (2, 3))), want)
    with pytest.raises(TtnnError):
        ttnn.upsample(t, 2, mode="bilinear")
