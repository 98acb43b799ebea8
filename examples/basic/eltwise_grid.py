"""``y = a * b + c`` on a 4x4 grid, written to be correct for any grid.

Blocks are spread over the grid with ceiling division; nodes at the trailing
edge skip block indices past the tensor (``if row < rows``), so the same code
is safe with ``grid="full"``.
"""

import numpy as np

import ttl

TILE = 32
B = 2  # block edge in tiles

OPERATION = "eltwise_grid"
SPECS = {"a": "bf16[320,320]", "b": "bf16[320,320]", "c": "bf16[320,320]", "y": "bf16[320,320]"}


@ttl.operation(grid=(4, 4))
def eltwise_grid(a, b, c, y):
    grid_cols, grid_rows = ttl.grid_size(dims=2)
    rows = a.shape[0] // TILE // B
    cols = a.shape[1] // TILE // B
    rows_per_node = -(-rows // grid_rows)
    cols_per_node = -(-cols // grid_cols)
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(B, B), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(B, B), block_count=2)
    c_dfb = ttl.make_dataflow_buffer_like(c, shape=(B, B), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(B, B), block_count=2)

    @ttl.compute()
    def compute():
        node_col, node_row = ttl.node(dims=2)
        for local_row in range(rows_per_node):
            row = node_row * rows_per_node + local_row
            if row < rows:
                for local_col in range(cols_per_node):
                    col = node_col * cols_per_node + local_col
                    if col < cols:
                        with (
                            a_dfb.wait() as a_blk,
                            b_dfb.wait() as b_blk,
                            c_dfb.wait() as c_blk,
                            y_dfb.reserve() as y_blk,
                        ):
                            y_blk.store(a_blk * b_blk + c_blk)

    @ttl.datamovement()
    def read():
        node_col, node_row = ttl.node(dims=2)
        for local_row in range(rows_per_node):
            row = node_row * rows_per_node + local_row
            if row < rows:
                for local_col in range(cols_per_node):
                    col = node_col * cols_per_node + local_col
                    if col < cols:
                        r0 = row * B
                        c0 = col * B
                        with (
                            a_dfb.reserve() as a_blk,
                            b_dfb.reserve() as b_blk,
                            c_dfb.reserve() as c_blk,
                        ):
                            tx_a = ttl.copy(a[r0 : r0 + B, c0 : c0 + B], a_blk)
                            tx_b = ttl.copy(b[r0 : r0 + B, c0 : c0 + B], b_blk)
                            tx_c = ttl.copy(c[r0 : r0 + B, c0 : c0 + B], c_blk)
                            tx_a.wait()
                            tx_b.wait()
                            tx_c.wait()

    @ttl.datamovement()
    def write():
        node_col, node_row = ttl.node(dims=2)
        for local_row in range(rows_per_node):
            row = node_row * rows_per_node + local_row
            if row < rows:
                for local_col in range(cols_per_node):
                    col = node_col * cols_per_node + local_col
                    if col < cols:
                        with y_dfb.wait() as y_blk:
                            ttl.copy(
                                y_blk, y[row * B : (row + 1) * B, col * B : (col + 1) * B]
                            ).wait()


def reference(a, b, c):
    """NumPy reference for the output ``y``."""
    return np.asarray(a) * np.asarray(b) + np.asarray(c)
