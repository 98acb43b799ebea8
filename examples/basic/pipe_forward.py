"""Pipe net, forward to a +1 neighbour (spec "Pipe net"): a ring along each column.

Node ``(x, y)`` sends tile ``a[y, x]`` to ``(x, (y + 1) % grid_y)`` and
receives from ``(x, y - 1)``; every node sends and receives at once, in one
kernel, with two blocks as in the spec. ``y`` is ``a`` rolled down by one
tile row: row 0 holds the last tile row.
"""

import numpy as np

import ttl

OPERATION = "pipe_forward"
SPECS = {"a": "bf16[128,128]", "sent": "bf16[128,128]", "y": "bf16[128,128]"}
TILE = 32


@ttl.operation(grid=(4, 4))
def pipe_forward(a, sent, y):
    grid_x, grid_y = ttl.grid_size()
    net = ttl.PipeNet(
        [
            ttl.Pipe(src=(x, row), dst=(x, (row + 1) % grid_y))
            for x in range(grid_x)
            for row in range(grid_y)
        ]
    )
    dfb_to_send = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    dfb_received = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def dm():
        x, row = ttl.node(dims=2)
        with (
            dfb_to_send.reserve() as blk_to_send,
            dfb_received.reserve() as blk_received,
        ):
            ttl.copy(a[row, x], blk_to_send).wait()

            def pipe_src(pipe):
                xf = ttl.copy(blk_to_send, pipe)
                xf.wait()

            def pipe_dst(pipe):
                xf = ttl.copy(pipe, blk_received)
                xf.wait()

            net.if_src(pipe_src)
            net.if_dst(pipe_dst)

    @ttl.datamovement()
    def write():
        x, row = ttl.node(dims=2)
        with dfb_to_send.wait() as blk:
            ttl.copy(blk, sent[row, x]).wait()
        with dfb_received.wait() as blk:
            ttl.copy(blk, y[row, x]).wait()


def reference(a, sent):
    """NumPy reference for ``y``: ``a`` rolled down by one tile row."""
    return np.roll(np.asarray(a), TILE, axis=0)
