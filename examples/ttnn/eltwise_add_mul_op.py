"""The TT-Lang operation ``y = a * b + c`` (one tile per block) used by the ttnn examples.

Kernels read tile (r, c) of a, b and c into DFBs, the compute kernel stores
``a * b + c`` and the writer copies it to y, for any tile-aligned 2-D shape.
"""

import ttl

TILE = 32


@ttl.operation(grid=(1, 1))
def eltwise_add_mul(a, b, c, y):
    rows = a.shape[0] // TILE
    cols = a.shape[1] // TILE
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 1), block_count=2)
    c_dfb = ttl.make_dataflow_buffer_like(c, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        for _ in range(rows):
            for _ in range(cols):
                with (
                    a_dfb.wait() as a_blk,
                    b_dfb.wait() as b_blk,
                    c_dfb.wait() as c_blk,
                    y_dfb.reserve() as y_blk,
                ):
                    y_blk.store(a_blk * b_blk + c_blk)

    @ttl.datamovement()
    def read():
        for r in range(rows):
            for col in range(cols):
                with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk, c_dfb.reserve() as c_blk:
                    tx_a = ttl.copy(a[r, col], a_blk)
                    tx_b = ttl.copy(b[r, col], b_blk)
                    tx_c = ttl.copy(c[r, col], c_blk)
                    tx_a.wait()
                    tx_b.wait()
                    tx_c.wait()

    @ttl.datamovement()
    def write():
        for r in range(rows):
            for col in range(cols):
                with y_dfb.wait() as y_blk:
                    tx = ttl.copy(y_blk, y[r, col])
                    tx.wait()
