"""Tensor-backed DFBs (spec v0.21): ``ttl.make_tensor_backed_dfb`` and ``publish()``.

``a`` and ``y`` are height-sharded in L1 over a column of four nodes, one shard of
2 tiles each. On every node, ``a_dfb`` is the node's shard of ``a`` (its capacity is
the shard: two one-tile blocks), which the reader publishes once: its tiles become
readable where they are, with no copy. The compute kernel writes ``a * 2 + 1`` into
``y_dfb``, the node's shard of ``y``, with the usual reserve, store and push; the
writer only waits for and pops each block, since the data is already where ``y``
lives. ``b`` is interleaved in DRAM, copied in as usual, and added to the second
tile of each shard.
"""

# not for tt-lang-sim 1.1.6: tensor-backed DFBs are spec v0.21

import torch
import ttnn

import ttl

TILE = ttnn.TILE_SIZE
NODES, TILES = 4, 2  # a column of nodes; tiles per shard


@ttl.operation(grid=(1, NODES))
def scale_shards(a: ttnn.Tensor, b: ttnn.Tensor, y: ttnn.Tensor) -> None:
    a_dfb = ttl.make_tensor_backed_dfb(a, shape=(1, 1), block_count=TILES)
    y_dfb = ttl.make_tensor_backed_dfb(y, shape=(1, 1), block_count=TILES)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 1), block_count=1)

    @ttl.datamovement()
    def read():
        a_dfb.publish()
        _, row = ttl.node(dims=2)
        with b_dfb.reserve() as blk:
            ttl.copy(b[row, 0], blk).wait()

    @ttl.compute()
    def compute():
        with a_dfb.wait() as x, y_dfb.reserve() as out:
            out.store(x * 2.0 + ttl.block.fill(1.0, shape=(1, 1)))
        with a_dfb.wait() as x, b_dfb.wait() as extra, y_dfb.reserve() as out:
            out.store(x * 2.0 + extra)

    @ttl.datamovement()
    def write():
        for _ in range(TILES):
            with y_dfb.wait():
                pass


def sharded():
    cores = ttnn.CoreRangeSet({ttnn.CoreRange(ttnn.CoreCoord(0, 0), ttnn.CoreCoord(0, NODES - 1))})
    return ttnn.MemoryConfig(
        ttnn.TensorMemoryLayout.HEIGHT_SHARDED,
        ttnn.BufferType.L1,
        ttnn.ShardSpec(cores, [TILE, TILES * TILE], ttnn.ShardOrientation.ROW_MAJOR),
    )


device = ttnn.open_device(device_id=0)
try:
    a_torch = torch.randint(-8, 8, (NODES * TILE, TILES * TILE)).to(torch.bfloat16)
    b_torch = torch.randint(-8, 8, (NODES * TILE, TILE)).to(torch.bfloat16)

    def on_device(t, memory_config):
        return ttnn.from_torch(
            t,
            dtype=ttnn.bfloat16,
            layout=ttnn.TILE_LAYOUT,
            device=device,
            memory_config=memory_config,
        )

    a = on_device(a_torch, sharded())
    y = on_device(torch.zeros_like(a_torch), sharded())
    b = on_device(b_torch, ttnn.DRAM_MEMORY_CONFIG)
    scale_shards(a, b, y)
    got = ttnn.to_torch(y)
    assert torch.equal(got[:, :TILE], a_torch[:, :TILE] * 2 + 1)
    assert torch.equal(got[:, TILE:], a_torch[:, TILE:] * 2 + b_torch)
    print("PASS")
finally:
    ttnn.close_device(device)
