"""Pipe net, scatter (spec "Pipe net", scatter example): (x, 0) multicasts to column x.

Node ``(x, 0)`` reads tile ``a[0, x]`` and multicasts it to the rest of its
column, ``(x, 1..grid_y-1)``, with one ``noc_async_write_multicast`` (the
columns run concurrently). Every node writes the tile it holds to ``y[row,
x]``, so each row of ``y`` repeats the first tile row of ``a``.
"""

import numpy as np

import ttl

OPERATION = "pipe_scatter"
SPECS = {"a": "bf16[128,128]", "y": "bf16[128,128]"}
TILE = 32


@ttl.operation(grid=(4, 4))
def pipe_scatter(a, y):
    grid_x, grid_y = ttl.grid_size()
    net = ttl.PipeNet([ttl.Pipe(src=(x, 0), dst=(x, slice(1, grid_y))) for x in range(grid_x)])
    dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def scatter():
        x, _ = ttl.node(dims=2)
        with dfb.reserve() as blk:

            def pipe_src(pipe):
                ttl.copy(a[0, x], blk).wait()
                xf = ttl.copy(blk, pipe)
                xf.wait()

            def pipe_dst(pipe):
                xf = ttl.copy(pipe, blk)
                xf.wait()

            net.if_src(pipe_src)
            net.if_dst(pipe_dst)

    @ttl.datamovement()
    def write():
        x, row = ttl.node(dims=2)
        with dfb.wait() as blk:
            ttl.copy(blk, y[row, x]).wait()


def reference(a):
    """NumPy reference for ``y``: the first tile row of ``a`` on every tile row."""
    a = np.asarray(a)
    return np.tile(a[:TILE], (a.shape[0] // TILE, 1))
