"""Indices read from a tensor steer a copy (spec v0.21 ``ttl.read_index``): a gather.

An index tensor holds slot numbers; the reader kernel reads them from its block
with ``ttl.read_index`` and copies the slots of ``weights`` they name, as
upstream's gather-slot example does for routed-expert weights. The bf16 indices sit
at elements in different faces of the tile; the f32 ones are fractional and
truncate toward zero.
"""

# not for tt-lang-sim 1.1.6: ttl.read_index is spec v0.21

import torch
import ttnn

import ttl

TILE = ttnn.TILE_SIZE
SLOT_TILES = 2
SLOTS = 4
# (row, column) of each index in the index tile: faces 0, 1, 2 and 3.
POSITIONS = ((0, 0), (3, 17), (20, 5), (31, 31))


@ttl.operation(grid=(1, 1))
def gather_slots(index: ttnn.Tensor, weights: ttnn.Tensor, out: ttnn.Tensor) -> None:
    index_dfb = ttl.make_dataflow_buffer_like(index, shape=(1, 1), block_count=1)
    slot_dfb = ttl.make_dataflow_buffer_like(weights, shape=(SLOT_TILES, 1), block_count=2)

    @ttl.datamovement()
    def read():
        with index_dfb.reserve() as index_blk:
            ttl.copy(index[0, 0], index_blk).wait()
        with index_dfb.wait() as index_blk:
            for row, col in POSITIONS:  # a tuple: the loop unrolls
                slot = ttl.read_index(index_blk, row, col)
                with slot_dfb.reserve() as slot_blk:
                    rows = slice(slot * SLOT_TILES, (slot + 1) * SLOT_TILES)
                    ttl.copy(weights[rows, 0:1], slot_blk).wait()

    @ttl.compute()
    def compute():
        pass

    @ttl.datamovement()
    def write():
        for k in range(len(POSITIONS)):
            with slot_dfb.wait() as slot_blk:
                ttl.copy(slot_blk, out[k * SLOT_TILES : (k + 1) * SLOT_TILES, 0:1]).wait()


def run(device, dtype: torch.dtype, slots: list[float]) -> None:
    def tiled(t):
        return ttnn.from_torch(t, layout=ttnn.TILE_LAYOUT, device=device)

    index = torch.zeros(TILE, TILE, dtype=dtype)
    for (row, col), slot in zip(POSITIONS, slots, strict=True):
        index[row, col] = slot
    weights = torch.randn(SLOTS * SLOT_TILES * TILE, TILE, dtype=torch.bfloat16)
    out = tiled(torch.zeros(len(POSITIONS) * SLOT_TILES * TILE, TILE, dtype=torch.bfloat16))
    gather_slots(tiled(index), tiled(weights), out)
    rows = SLOT_TILES * TILE
    want = torch.cat([weights[int(s) * rows : (int(s) + 1) * rows] for s in slots])
    assert torch.equal(ttnn.to_torch(out), want), [int(s) for s in slots]


def main() -> None:
    device = ttnn.open_device(device_id=0)
    torch.manual_seed(0)
    run(device, torch.bfloat16, [3.0, 1.0, 0.0, 2.0])
    run(device, torch.float32, [2.75, 0.5, 3.0, 1.999])
    ttnn.close_device(device)
    print("PASS")


if __name__ == "__main__":
    main()
