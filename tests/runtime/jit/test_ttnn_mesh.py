"""The ttnn mesh API and SPMD dispatch: an operation called with mesh tensors runs on
every emulated device of the mesh with its shard."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from jit_support import assert_located

from ttl.errors import TTLCompileError
from ttl.host import jit, ttnn
from ttl.host.ttnn.errors import TtnnError


@pytest.fixture(autouse=True)
def _default_device_count(monkeypatch):
    """The documented default (4 devices) whatever the caller's $TTL_NUM_DEVICES."""
    monkeypatch.delenv("TTL_NUM_DEVICES", raising=False)


def test_available_devices_default_and_environment(monkeypatch):
    assert ttnn.GetNumAvailableDevices() == 4  # tt-lang-sim 1.1.6's default
    monkeypatch.setenv("TTL_NUM_DEVICES", "8")
    assert ttnn.GetNumAvailableDevices() == 8
    monkeypatch.setenv("TTL_NUM_DEVICES", "two")
    with pytest.raises(TtnnError) as info:
        ttnn.GetNumAvailableDevices()
    assert_located(info, "$TTL_NUM_DEVICES='two' is not a positive number", "TTL_NUM_DEVICES=2")


def test_open_mesh_device_larger_than_available_is_an_error(monkeypatch):
    monkeypatch.setenv("TTL_NUM_DEVICES", "2")
    mesh = ttnn.open_mesh_device(ttnn.MeshShape(1, 2))
    assert mesh.get_num_devices() == 2 and tuple(mesh.shape) == (1, 2)
    ttnn.close_mesh_device(mesh)
    assert not mesh.is_open
    with pytest.raises(TtnnError) as info:
        ttnn.open_mesh_device(ttnn.MeshShape(2, 2))
    assert_located(
        info, "mesh MeshShape(2, 2) needs 4 devices but 2 are available", "open at most 2"
    )
    with pytest.raises(TtnnError) as info:
        ttnn.MeshShape(1, 0)
    assert_located(info, "ttnn.MeshShape takes two positive integers")


def test_fabric_config():
    ttnn.set_fabric_config(ttnn.FabricConfig.FABRIC_1D)
    with pytest.raises(TtnnError) as info:
        ttnn.set_fabric_config("1d")
    assert_located(info, "takes a ttnn.FabricConfig")


def _mesh(n: int = 4) -> ttnn.MeshDevice:
    return ttnn.open_mesh_device(ttnn.MeshShape(1, n))


def test_shard_replicate_concat_round_trip():
    mesh = _mesh()
    src = torch.arange(128 * 64, dtype=torch.float32).reshape(128, 64)
    rows = ttnn.from_torch(
        src, layout=ttnn.TILE_LAYOUT, device=mesh, mesh_mapper=ttnn.ShardTensorToMesh(mesh, dim=0)
    )
    assert rows.shape == (32, 64) and rows.num_shards == 4  # one device's shard, as ttnn
    cols = ttnn.from_torch(src, device=mesh, mesh_mapper=ttnn.ShardTensorToMesh(mesh, dim=-1))
    assert cols.shape == (128, 16)
    for t, dim in ((rows, 0), (cols, 1)):
        back = ttnn.to_torch(t, mesh_composer=ttnn.ConcatMeshToTensor(mesh, dim=dim))
        assert torch.equal(back, src)
    same = ttnn.from_torch(src, device=mesh, mesh_mapper=ttnn.ReplicateTensorToMesh(mesh))
    stacked = ttnn.to_torch(same, mesh_composer=ttnn.ConcatMeshToTensor(mesh, dim=0))
    assert torch.equal(stacked, torch.cat([src] * 4))
    default = ttnn.from_torch(src, device=mesh)  # no mapper on a mesh: replicated
    assert default.num_shards == 4 and default.shape == (128, 64)


def test_all_reduce_sums_the_devices_and_replicates():
    mesh = _mesh()
    parts = torch.arange(4, dtype=torch.float32).repeat_interleave(32).reshape(128, 1)
    parts = parts.expand(128, 32).contiguous()
    t = ttnn.from_torch(
        parts, layout=ttnn.TILE_LAYOUT, device=mesh, mesh_mapper=ttnn.ShardTensorToMesh(mesh, dim=0)
    )
    total = ttnn.relu(ttnn.all_reduce(t))
    out = ttnn.to_torch(total, mesh_composer=ttnn.ConcatMeshToTensor(mesh, dim=0))
    assert torch.equal(out, torch.full((128, 32), 6.0, dtype=torch.float32))


def test_mesh_bad_input():
    mesh = _mesh()
    with pytest.raises(TtnnError) as info:
        ttnn.from_torch(torch.zeros(90, 32), mesh_mapper=ttnn.ShardTensorToMesh(mesh, dim=0))
    assert_located(
        info,
        "dimension 0 of shape (90, 32) (90) does not divide among the mesh's 4",
        "multiple of 4",
    )
    with pytest.raises(TtnnError) as info:
        ttnn.from_torch(torch.zeros(32, 32), mesh_mapper=ttnn.ShardTensorToMesh(mesh, dim=2))
    assert_located(info, "dim=2 is out of range")
    sharded = ttnn.from_torch(
        torch.zeros(128, 32), device=mesh, mesh_mapper=ttnn.ShardTensorToMesh(mesh, dim=0)
    )
    with pytest.raises(TtnnError) as info:
        ttnn.to_torch(sharded)
    assert_located(info, "spread over 4 devices", "mesh_composer=ttnn.ConcatMeshToTensor")
    with pytest.raises(TtnnError) as info:
        ttnn.add(sharded, ttnn.zeros((32, 32)))
    assert_located(info, "ttnn.add was given a host tensor and a tensor on a 4-device mesh")
    other = _mesh()
    with pytest.raises(TtnnError) as info:
        ttnn.add(sharded, ttnn.zeros((32, 32), device=other))
    assert_located(info, "ttnn.add was given tensors on different devices")


def test_operation_on_a_mesh_runs_every_device_with_its_shard(add_mul):
    mesh = _mesh(2)
    torch.manual_seed(1)
    a, b, c = (torch.rand((64, 32), dtype=torch.bfloat16) for _ in range(3))
    shard = ttnn.ShardTensorToMesh(mesh, dim=0)
    ta, tc = (
        ttnn.from_torch(t, layout=ttnn.TILE_LAYOUT, device=mesh, mesh_mapper=shard) for t in (a, c)
    )
    tb = ttnn.from_torch(
        b[:32], layout=ttnn.TILE_LAYOUT, device=mesh, mesh_mapper=ttnn.ReplicateTensorToMesh(mesh)
    )
    y = ttnn.zeros((32, 32), device=mesh)
    assert y.num_shards == 2
    add_mul(ta, tb, tc, y)
    out = ttnn.to_torch(y, mesh_composer=ttnn.ConcatMeshToTensor(mesh, dim=0))
    bb = torch.cat([b[:32], b[:32]])
    want = (a.float() * bb.float()).to(torch.bfloat16).float() + c.float()
    assert torch.equal(out, want.to(torch.bfloat16))
    calls = jit.profile().calls
    assert [c.operation for c in calls] == [
        "eltwise_add_mul (device 0)",
        "eltwise_add_mul (device 1)",
    ]


def test_operation_with_tensors_on_different_meshes_is_an_error(add_mul):
    one, two = _mesh(2), _mesh(2)
    a = ttnn.zeros((32, 32), device=one)
    b = ttnn.zeros((32, 32), device=two)
    with pytest.raises(TTLCompileError) as info:
        add_mul(a, a, b, a)
    assert_located(info, "tensors 'a'", "and 'c'", "are on different devices")
    host = ttnn.zeros((32, 32))
    with pytest.raises(TTLCompileError) as info:
        add_mul(a, host, a, a)
    assert_located(
        info,
        "tensors 'a' (2 device(s)) and 'b' (1 device(s))",
        "spread over different numbers of devices",
    )
    np.testing.assert_array_equal(host.shards()[0], 0)
