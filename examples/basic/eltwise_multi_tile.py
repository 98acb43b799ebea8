"""Element-wise ``y = a * b + c`` with 2x4-tile blocks.

A block has 8 tiles and the expression needs 2 DST registers per tile, so the
compute kernel processes each block in chunks that fit DST (8 tiles for bf16).
"""

import numpy as np

import ttl

TILE = 32
BLOCK_ROWS = 2
BLOCK_COLS = 4

OPERATION = "eltwise_multi_tile"
SPECS = {"a": "bf16[128,256]", "b": "bf16[128,256]", "c": "bf16[128,256]", "y": "bf16[128,256]"}


@ttl.operation(grid=(1, 1))
def eltwise_multi_tile(a, b, c, y):
    rows = a.shape[0] // TILE // BLOCK_ROWS
    cols = a.shape[1] // TILE // BLOCK_COLS
    shape = (BLOCK_ROWS, BLOCK_COLS)
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=shape, block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=shape, block_count=2)
    c_dfb = ttl.make_dataflow_buffer_like(c, shape=shape, block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=shape, block_count=2)

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
            r0 = r * BLOCK_ROWS
            for col in range(cols):
                c0 = col * BLOCK_COLS
                with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk, c_dfb.reserve() as c_blk:
                    tx_a = ttl.copy(a[r0 : r0 + BLOCK_ROWS, c0 : c0 + BLOCK_COLS], a_blk)
                    tx_b = ttl.copy(b[r0 : r0 + BLOCK_ROWS, c0 : c0 + BLOCK_COLS], b_blk)
                    tx_c = ttl.copy(c[r0 : r0 + BLOCK_ROWS, c0 : c0 + BLOCK_COLS], c_blk)
                    tx_a.wait()
                    tx_b.wait()
                    tx_c.wait()

    @ttl.datamovement()
    def write():
        for r in range(rows):
            for col in range(cols):
                with y_dfb.wait() as y_blk:
                    tx = ttl.copy(
                        y_blk,
                        y[
                            r * BLOCK_ROWS : (r + 1) * BLOCK_ROWS,
                            col * BLOCK_COLS : (col + 1) * BLOCK_COLS,
                        ],
                    )
                    tx.wait()


def reference(a, b, c):
    """NumPy reference for the output ``y``."""
    return np.asarray(a) * np.asarray(b) + np.asarray(c)
