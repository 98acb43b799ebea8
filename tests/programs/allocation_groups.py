"""DFB allocation groups (spec v0.21): two DFBs used one after the other share one
physical index and one allocation.

The reader streams ``x`` through ``x_stage`` (blocks of two tiles), then ``y``
through ``y_stage`` (blocks of one tile); the two DFBs form an allocation group. The
compute kernel tells the reader it is done with ``x_stage`` by pushing a block into
``handoff``, which the reader waits for before its first ``y_stage.reserve()``: so
every access of one member completes before the other's first, as the spec
requires, and the compiler can prove it. The output holds ``2 * x`` then ``y + 1``.
"""

# not for tt-lang-sim 1.1.6: allocation groups are spec v0.21

import torch
import ttnn

import ttl

TILE = ttnn.TILE_SIZE
X_TILES, Y_TILES = 4, 2


@ttl.operation(grid=(1, 1))
def two_phases(x: ttnn.Tensor, y: ttnn.Tensor, out: ttnn.Tensor) -> None:
    shared = ttl.make_dfb_allocation_group()
    x_stage = ttl.make_dataflow_buffer_like(x, shape=(1, 2), block_count=1, allocation_group=shared)
    y_stage = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2, allocation_group=shared)
    handoff = ttl.make_dfb("bf16", shape=(1, 1), block_count=1)
    out_x = ttl.make_dataflow_buffer_like(out, shape=(1, 2), block_count=2)
    out_y = ttl.make_dataflow_buffer_like(out, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def read():
        for b in range(X_TILES // 2):
            with x_stage.reserve() as blk:
                ttl.copy(x[0:1, 2 * b : 2 * b + 2], blk).wait()
        with handoff.wait():
            pass
        for t in range(Y_TILES):
            with y_stage.reserve() as blk:
                ttl.copy(y[0, t], blk).wait()

    @ttl.compute()
    def compute():
        for _ in range(X_TILES // 2):
            with x_stage.wait() as blk, out_x.reserve() as o:
                o.store(blk * 2.0)
        with handoff.reserve() as done:
            done.store(ttl.block.fill(0.0, shape=(1, 1)))
        for _ in range(Y_TILES):
            with y_stage.wait() as blk, out_y.reserve() as o:
                o.store(blk + ttl.block.fill(1.0, shape=(1, 1)))

    @ttl.datamovement()
    def write():
        for b in range(X_TILES // 2):
            with out_x.wait() as blk:
                ttl.copy(blk, out[0:1, 2 * b : 2 * b + 2]).wait()
        for t in range(Y_TILES):
            with out_y.wait() as blk:
                ttl.copy(blk, out[0, X_TILES + t]).wait()


device = ttnn.open_device(device_id=0)
try:
    x_torch = torch.randint(-8, 8, (TILE, X_TILES * TILE)).to(torch.bfloat16)
    y_torch = torch.randint(-8, 8, (TILE, Y_TILES * TILE)).to(torch.bfloat16)
    x, y = (
        ttnn.from_torch(t, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device)
        for t in (x_torch, y_torch)
    )
    out = ttnn.from_torch(
        torch.zeros((TILE, (X_TILES + Y_TILES) * TILE), dtype=torch.bfloat16),
        dtype=ttnn.bfloat16,
        layout=ttnn.TILE_LAYOUT,
        device=device,
    )
    two_phases(x, y, out)
    got = ttnn.to_torch(out)
    assert torch.equal(got[:, : X_TILES * TILE], 2 * x_torch)
    assert torch.equal(got[:, X_TILES * TILE :], y_torch + 1)
    print("PASS")
finally:
    ttnn.close_device(device)
