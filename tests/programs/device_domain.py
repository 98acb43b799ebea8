"""Logical device domains (spec v0.21): ``ttl.DeviceDomain``, ``current_index()``,
``is_current()`` and ``ttl.operation(device_domain=...)``.

The operation runs on each device of a 1x4 mesh, the domain ``DeviceDomain.product(
rows=1, cols=4)``. ``x`` is replicated: device ``i`` copies tile ``i`` of it (its
``current_index()``); the compute kernel doubles it on the devices of a
``DeviceRange`` (devices 1 and 2) and keeps it elsewhere. ``y`` is sharded along
its columns, one tile per device.
"""

# not for tt-lang-sim 1.1.6: device domains are spec v0.21

import torch
import ttnn

import ttl

TILE = ttnn.TILE_SIZE
DEVICES = 4
DOMAIN = ttl.DeviceDomain.product(rows=1, cols=DEVICES)
DOUBLED = ttl.DeviceRange(ttl.DeviceRef(0, 1), ttl.DeviceRef(1, 3))


@ttl.operation(grid=(1, 1), device_domain=DOMAIN)
def pick_tile(x: ttnn.Tensor, y: ttnn.Tensor) -> None:
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=1)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=1)

    @ttl.datamovement()
    def read():
        with x_dfb.reserve() as blk:
            ttl.copy(x[0, DOMAIN.current_index()], blk).wait()

    @ttl.compute()
    def compute():
        with x_dfb.wait() as a, y_dfb.reserve() as out:
            if DOMAIN.is_current(DOUBLED):
                out.store(a * 2.0)
            else:
                out.store(a)

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as blk:
            ttl.copy(blk, y[0, 0]).wait()


mesh = ttnn.open_mesh_device(ttnn.MeshShape(1, DEVICES))
try:
    x_torch = torch.randint(-8, 8, (TILE, DEVICES * TILE)).to(torch.bfloat16)
    x = ttnn.from_torch(
        x_torch, layout=ttnn.TILE_LAYOUT, device=mesh, mesh_mapper=ttnn.ReplicateTensorToMesh(mesh)
    )
    y = ttnn.from_torch(
        torch.zeros((TILE, DEVICES * TILE), dtype=torch.bfloat16),
        layout=ttnn.TILE_LAYOUT,
        device=mesh,
        mesh_mapper=ttnn.ShardTensorToMesh(mesh, dim=1),
    )
    pick_tile(x, y)
    got = ttnn.to_torch(y, mesh_composer=ttnn.ConcatMeshToTensor(mesh, dim=1))
    want = x_torch.clone()
    want[:, TILE : 3 * TILE] *= 2
    assert torch.equal(got, want)
    assert DOMAIN.index_order(ttl.DeviceRef(rows=0, cols=3)) == 3
    print("PASS")
finally:
    ttnn.close_mesh_device(mesh)
