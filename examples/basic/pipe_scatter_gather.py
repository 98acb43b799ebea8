"""Pipe net, scatter-gather (spec "Pipe net"): every node multicasts to its column.

Node ``(x, y)`` reads tile ``a[y, x]`` and multicasts it to its whole column,
itself included (``noc_async_write_multicast_loopback_src``); the pipes of a
column run one after another, the columns concurrently. Each node sends
before it receives, as in the spec. It then receives the column's ``grid_y``
tiles and writes them side by side, so ``y[row, x * grid_y + src_y]`` is
``a[src_y, x]`` on every row: each node holds its whole column. (``sent``
gets each node's own tile back: ``a``.)
"""

import numpy as np

import ttl

OPERATION = "pipe_scatter_gather"
SPECS = {"a": "bf16[128,128]", "sent": "bf16[128,128]", "y": "bf16[128,512]"}
TILE = 32


@ttl.operation(grid=(4, 4))
def pipe_scatter_gather(a, sent, y):
    grid_x, grid_y = ttl.grid_size()
    net = ttl.PipeNet(
        [
            ttl.Pipe(src=(x, row), dst=(x, slice(0, grid_y)))
            for x in range(grid_x)
            for row in range(grid_y)
        ]
    )
    own = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=1)
    column = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def exchange():
        x, row = ttl.node(dims=2)
        with own.reserve() as blk:
            ttl.copy(a[row, x], blk).wait()

            def pipe_src(pipe):
                xf = ttl.copy(blk, pipe)
                xf.wait()

            net.if_src(pipe_src)

        def pipe_dst(pipe):
            with column.reserve() as blk:
                xf = ttl.copy(pipe, blk)
                xf.wait()

        net.if_dst(pipe_dst)

    @ttl.datamovement()
    def write():
        x, row = ttl.node(dims=2)
        with own.wait() as blk:
            ttl.copy(blk, sent[row, x]).wait()
        for src_y in range(grid_y):
            with column.wait() as blk:
                ttl.copy(blk, y[row, x * grid_y + src_y]).wait()


def reference(a, sent):
    """NumPy reference for ``y``: on every tile row, column x of ``a``'s tiles, in order."""
    a = np.asarray(a)
    n = a.shape[0] // TILE
    tiles = a.reshape(n, TILE, n, TILE)  # [tile_row, r, tile_col, c]
    row = np.concatenate([tiles[src_y, :, x, :] for x in range(n) for src_y in range(n)], axis=1)
    return np.tile(row, (n, 1))
