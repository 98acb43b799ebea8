"""Element reads and writes in a data-movement kernel (spec v0.18 ``ttl.raw_element_read``
and ``ttl.raw_element_write``, v0.21 ``ttl.read_index``): a KV-cache row patch.

As upstream's kv_append: ``pos`` holds the cache's tile row at (0, 0) and the row
inside that tile at (0, 1); the kernel reads the tile row of the cache, replaces the
row with ``k``'s first row (negative values clamped to 0.0 by comparing element
values), and writes the tile row back. Run with bf16 and with f32 tensors.
"""

# not for tt-lang-sim 1.1.6: element access is spec v0.18 and v0.21

import torch
import ttnn

import ttl

TILE = ttnn.TILE_SIZE
TILE_ROWS, TILE_COLS = 3, 2


@ttl.operation(grid=(1, 1))
def patch_row(cache: ttnn.Tensor, k: ttnn.Tensor, pos: ttnn.Tensor) -> None:
    pos_dfb = ttl.make_dataflow_buffer_like(pos, shape=(1, 1), block_count=1)
    k_dfb = ttl.make_dataflow_buffer_like(k, shape=(1, TILE_COLS), block_count=1)
    band_dfb = ttl.make_dataflow_buffer_like(cache, shape=(1, TILE_COLS), block_count=1)

    @ttl.datamovement()
    def patch():
        with pos_dfb.reserve() as pos_blk:
            ttl.copy(pos[0, 0], pos_blk).wait()
        with k_dfb.reserve() as k_blk:
            ttl.copy(k[0, 0:TILE_COLS], k_blk).wait()
        with pos_dfb.wait() as pos_blk, k_dfb.wait() as k_blk:
            tile_row = ttl.read_index(pos_blk, 0, 0)
            row = ttl.read_index(pos_blk, 0, 1)
            with band_dfb.reserve() as band:
                ttl.copy(cache[tile_row, 0:TILE_COLS], band).wait()
                for c in range(TILE_COLS * TILE):
                    value = ttl.raw_element_read(k_blk, 0, c)
                    if value < 0.0:
                        ttl.raw_element_write(band, row, c, value=0.0)
                    else:
                        ttl.raw_element_write(band, row, c, value)
                ttl.copy(band, cache[tile_row, 0:TILE_COLS]).wait()

    @ttl.compute()
    def compute():
        pass


def run(device, dtype: torch.dtype, tile_row: int, row: int) -> None:
    def tiled(t):
        return ttnn.from_torch(t, layout=ttnn.TILE_LAYOUT, device=device)

    shape = (TILE_ROWS * TILE, TILE_COLS * TILE)
    cache = torch.randn(shape, dtype=dtype)
    k = torch.randn(TILE, TILE_COLS * TILE, dtype=dtype)
    pos = torch.zeros(TILE, TILE, dtype=dtype)
    pos[0, 0], pos[0, 1] = tile_row, row
    cache_tt = tiled(cache)
    patch_row(cache_tt, tiled(k), tiled(pos))
    want = cache.clone()
    want[tile_row * TILE + row] = k[0].clamp(min=0.0)
    assert torch.equal(ttnn.to_torch(cache_tt), want), (tile_row, row)


def main() -> None:
    device = ttnn.open_device(device_id=0)
    torch.manual_seed(0)
    run(device, torch.bfloat16, 1, 21)  # the row is in the bottom faces
    run(device, torch.float32, 2, 3)
    ttnn.close_device(device)
    print("PASS")


if __name__ == "__main__":
    main()
