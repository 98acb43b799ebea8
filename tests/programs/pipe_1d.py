"""Pipes between 1-D node coordinates (upstream's 1d_mcast_matmul writes them).

``ttl.Pipe((0,), (slice(1, 4),))``: node indices as ``ttl.node(dims=1)`` numbers
them, ``x * grid_y + y``. On a 2x4 grid, nodes 1..3 are part of column 0 and
nodes 4..7 the whole of column 1: each range is a rectangle a pipe multicasts to.
Node 0 reads a tile and sends it down both pipes; every node writes the tile it
holds to its own column of the output.
"""

import torch
import ttnn

import ttl

TILE = ttnn.TILE_SIZE
GRID = (2, 4)


@ttl.operation(grid=GRID)
def broadcast_1d(a: ttnn.Tensor, y: ttnn.Tensor) -> None:
    net = ttl.PipeNet([ttl.Pipe((0,), (slice(1, 4),)), ttl.Pipe((0,), (slice(4, 8),))])
    dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def dm():
        i = ttl.node(dims=1)
        with dfb.reserve() as blk:

            def send(pipe):
                ttl.copy(a[0, 0], blk).wait()
                ttl.copy(blk, pipe).wait()

            def receive(pipe):
                ttl.copy(pipe, blk).wait()

            net.if_src(send)
            net.if_dst(receive)
            ttl.copy(blk, y[0, i]).wait()

    @ttl.compute()
    def compute():
        pass

    @ttl.datamovement()
    def idle():  # tt-lang-sim 1.1.6 runs operations of exactly three kernels
        pass


def main() -> None:
    device = ttnn.open_device(device_id=0)
    a = torch.randn(TILE, TILE, dtype=torch.bfloat16)
    nodes = GRID[0] * GRID[1]
    ta = ttnn.from_torch(a, layout=ttnn.TILE_LAYOUT, device=device)
    ty = ttnn.from_torch(
        torch.zeros(TILE, nodes * TILE, dtype=torch.bfloat16),
        layout=ttnn.TILE_LAYOUT,
        device=device,
    )
    broadcast_1d(ta, ty)
    got = ttnn.to_torch(ty)
    for i in range(nodes):
        assert torch.equal(got[:, i * TILE : (i + 1) * TILE], a), i
    ttnn.close_device(device)
    print("PASS")


if __name__ == "__main__":
    main()
