"""The ttnn host subset: tensors, dtypes, layouts, glue ops, and torch being optional."""

from __future__ import annotations

import importlib.util
import sys

import ml_dtypes
import numpy as np
import pytest

from ttl.errors import TTLCompileError
from ttl.host import ttnn


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
    np.testing.assert_array_equal(out._data, want)
    assert ttnn.zeros_like(out, dtype=ttnn.float32)._data.dtype == np.float32
    ttnn.close_device(dev)
    assert not dev.is_open


def test_row_major_tensor_passed_to_an_operation_is_a_clear_error(add_mul):
    t = ttnn.zeros((32, 32), dtype=ttnn.bfloat16, layout=ttnn.ROW_MAJOR_LAYOUT)
    tiled = ttnn.to_layout(t, ttnn.TILE_LAYOUT)
    with pytest.raises(
        TTLCompileError, match=r"(?s)tensor 'a' .*ROW_MAJOR layout.*layout=ttnn.TILE_LAYOUT"
    ):
        add_mul(t, tiled, tiled, tiled)


def test_operation_writes_into_ttnn_tensors(add_mul):
    a = ttnn.full((32, 32), 2.0, dtype=ttnn.float32)
    y = ttnn.zeros((32, 32), dtype=ttnn.float32)
    add_mul(a, a, a, y)
    np.testing.assert_array_equal(y._data, np.full((32, 32), 6.0, np.float32))


def test_from_torch_without_torch_says_what_to_do(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch -> ImportError
    with pytest.raises(ImportError, match=r"need torch.*pip install torch.*NumPy arrays"):
        ttnn.from_torch(np.zeros((32, 32)))


def test_from_torch_and_to_torch_round_trip():
    torch = pytest.importorskip("torch")
    src = torch.rand((32, 64), dtype=torch.float32)
    t = ttnn.from_torch(src, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT)
    back = ttnn.to_torch(t)
    assert back.dtype == torch.bfloat16 and tuple(back.shape) == (32, 64)
    assert torch.equal(back, src.to(torch.bfloat16))
    assert ttnn.from_torch(src).layout is ttnn.ROW_MAJOR_LAYOUT  # ttnn's default
    with pytest.raises(TypeError, match=r"ttnn\.bfloat16 or ttnn\.float32"):
        ttnn.from_torch(torch.zeros((32, 32), dtype=torch.int32))
