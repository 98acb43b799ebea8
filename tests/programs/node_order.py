"""``ttl.node(dims=1)`` flattens the grid as ``x * grid_y + y`` (spec: grid/node.py).

Each node of a 2x3 grid copies the input tile at its flattened index to the output
tile at its (x, y), once from a kernel's own ``ttl.node(dims=1)`` and once from the
operation's top level.
"""

# not for tt-lang-sim 1.1.6: it has no ttl.node() at the top level, which the spec allows

import torch
import ttnn

import ttl

GX, GY = 2, 3
TILE = ttnn.TILE_SIZE


@ttl.operation(grid=(GX, GY))
def by_node(a: ttnn.Tensor, out_kernel: ttnn.Tensor, out_top: ttnn.Tensor) -> None:
    top_index = ttl.node(dims=1)
    x_top, y_top = ttl.node(dims=2)
    assert top_index == x_top * GY + y_top
    k_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    t_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def read():
        index = ttl.node(dims=1)
        with k_dfb.reserve() as blk:
            ttl.copy(a[0, index], blk).wait()
        with t_dfb.reserve() as blk:
            ttl.copy(a[0, top_index], blk).wait()

    @ttl.compute()
    def compute():
        pass

    @ttl.datamovement()
    def write():
        x, y = ttl.node(dims=2)
        with k_dfb.wait() as blk:
            ttl.copy(blk, out_kernel[x, y]).wait()
        with t_dfb.wait() as blk:
            ttl.copy(blk, out_top[x, y]).wait()


def main() -> None:
    device = ttnn.open_device(device_id=0)
    a = torch.randn(TILE, GX * GY * TILE, dtype=torch.bfloat16)
    zeros = torch.zeros(GX * TILE, GY * TILE, dtype=torch.bfloat16)
    tensors = [
        ttnn.from_torch(t, layout=ttnn.TILE_LAYOUT, device=device) for t in (a, zeros, zeros)
    ]
    by_node(*tensors)
    want = torch.zeros(GX * TILE, GY * TILE, dtype=torch.bfloat16)
    for x in range(GX):
        for y in range(GY):
            tile = a[:, (x * GY + y) * TILE : (x * GY + y + 1) * TILE]
            want[x * TILE : (x + 1) * TILE, y * TILE : (y + 1) * TILE] = tile
    for t in tensors[1:]:
        assert torch.equal(ttnn.to_torch(t).to(torch.bfloat16), want)
    ttnn.close_device(device)
    print("PASS")


if __name__ == "__main__":
    main()
