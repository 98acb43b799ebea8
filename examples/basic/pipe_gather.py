"""Pipe net, gather (spec "Pipe net", gather example): row y collects at node (0, y).

Every node reads its own tile ``a[y, x]``; nodes ``x >= 1`` send it through a
unicast pipe to ``(0, y)`` (the pipes of one row run one after another, the
rows concurrently). Only the nodes of column 0 write ``y``: each writes its own
tile and the tiles it received, at their sources' positions, so ``y == a``
proves every transfer happened.
"""

import numpy as np

import ttl

OPERATION = "pipe_gather"
SPECS = {"a": "bf16[128,128]", "y": "bf16[128,128]"}


@ttl.operation(grid=(4, 4))
def pipe_gather(a, y):
    grid_x, grid_y = ttl.grid_size()
    net = ttl.PipeNet(
        [ttl.Pipe(src=(x, row), dst=(0, row)) for x in range(1, grid_x) for row in range(grid_y)]
    )
    own = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    received = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def send():
        x, row = ttl.node(dims=2)
        with own.reserve() as blk:
            ttl.copy(a[row, x], blk).wait()

            def pipe_src(pipe):
                xf = ttl.copy(blk, pipe)
                xf.wait()

            net.if_src(pipe_src)

    @ttl.datamovement()
    def collect():
        x, row = ttl.node(dims=2)
        with own.wait() as blk:
            if x == 0:
                ttl.copy(blk, y[row, 0]).wait()

        def pipe_dst(pipe):
            src_x, src_y = pipe.src
            with received.reserve() as blk:
                xf = ttl.copy(pipe, blk)
                xf.wait()
            with received.wait() as blk:
                ttl.copy(blk, y[src_y, src_x]).wait()

        net.if_dst(pipe_dst)


def reference(a):
    """NumPy reference for ``y``: the whole of ``a``, gathered into column 0 and written."""
    return np.asarray(a)
