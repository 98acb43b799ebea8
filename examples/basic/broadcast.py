"""``y = a * b + c`` where ``c`` is one column, broadcast across each row.

``c`` is a (rows, 32) tensor whose column 0 holds the values; its blocks have
one tile column, and ``ttl.math.broadcast(..., dims=[-1])`` replicates column
0 across the tile and the tile across the block's columns.
"""

import numpy as np

import ttl

TILE = 32
BR = 2  # block rows (tiles)
BC = 2  # block columns (tiles)

OPERATION = "broadcast_add"
SPECS = {"a": "bf16[128,128]", "b": "bf16[128,128]", "c": "bf16[128,32]", "y": "bf16[128,128]"}


@ttl.operation(grid=(1, 1))
def broadcast_add(a, b, c, y):
    rows = a.shape[0] // TILE // BR
    cols = a.shape[1] // TILE // BC
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(BR, BC))
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(BR, BC))
    c_dfb = ttl.make_dataflow_buffer_like(c, shape=(BR, 1))
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(BR, BC))

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
                    y_blk.store(a_blk * b_blk + ttl.math.broadcast(c_blk, dims=[-1]))

    @ttl.datamovement()
    def read():
        for r in range(rows):
            for col in range(cols):
                with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk, c_dfb.reserve() as c_blk:
                    tx_a = ttl.copy(a[r * BR : (r + 1) * BR, col * BC : (col + 1) * BC], a_blk)
                    tx_b = ttl.copy(b[r * BR : (r + 1) * BR, col * BC : (col + 1) * BC], b_blk)
                    tx_c = ttl.copy(c[r * BR : (r + 1) * BR, 0], c_blk)
                    tx_a.wait()
                    tx_b.wait()
                    tx_c.wait()

    @ttl.datamovement()
    def write():
        for r in range(rows):
            for col in range(cols):
                with y_dfb.wait() as y_blk:
                    ttl.copy(y_blk, y[r * BR : (r + 1) * BR, col * BC : (col + 1) * BC]).wait()


def reference(a, b, c):
    """NumPy reference: column 0 of ``c`` broadcast along each row."""
    return np.asarray(a) * np.asarray(b) + np.asarray(c)[:, :1]
