"""``y = a @ b`` on a 4x4 grid with multicast: each tile is read from DRAM once.

Node ``(x, y)`` computes the output block at grid row ``y``, grid column
``x``. For every K step, node ``(0, y)`` reads the A row block of grid row
``y`` and multicasts it along its grid row; node ``(x, 0)`` reads the B
column block of grid column ``x`` and multicasts it down its grid column.
Both sources are in their own destination range (loopback multicast), so all
nodes receive the same way. ``matmul_unicast`` below is the same operation
with every node reading its own A and B blocks from DRAM, for comparison
(bench/pipe_matmul_bench.py reports the DRAM bytes of both). The unicast
variant builds the same nets but never uses them.
"""

import numpy as np

import ttl

TILE = 32
KB = 2  # K block in tiles

OPERATION = "matmul_mcast"
SPECS = {"a": "bf16[256,256]", "b": "bf16[256,256]", "y": "bf16[256,256]"}


def _matmul(multicast: bool):
    """The operation, with A and B multicast (or each node reading its own blocks)."""

    # fp32_dest_acc_en: DST keeps fp32, so the K accumulation is not rounded to bf16 per step.
    @ttl.operation(grid=(4, 4), fp32_dest_acc_en=True)
    def matmul(a, b, y):
        grid_x, grid_y = ttl.grid_size()
        mt = a.shape[0] // TILE // grid_y  # output block rows (tiles) per node
        nt = b.shape[1] // TILE // grid_x  # output block columns (tiles) per node
        k_blocks = a.shape[1] // TILE // KB
        a_net = ttl.PipeNet(
            [ttl.Pipe(src=(0, row), dst=(slice(0, grid_x), row)) for row in range(grid_y)]
        )
        b_net = ttl.PipeNet(
            [ttl.Pipe(src=(col, 0), dst=(col, slice(0, grid_y))) for col in range(grid_x)]
        )
        a_dfb = ttl.make_dataflow_buffer_like(a, shape=(mt, KB), block_count=2)
        b_dfb = ttl.make_dataflow_buffer_like(b, shape=(KB, nt), block_count=2)
        acc_dfb = ttl.make_dataflow_buffer_like(y, shape=(mt, nt), block_count=2)
        y_dfb = ttl.make_dataflow_buffer_like(y, shape=(mt, nt), block_count=2)

        @ttl.compute()
        def compute():
            with acc_dfb.reserve() as acc:
                acc.store(ttl.block.fill(0.0, shape=(mt, nt)))
            for _ in range(k_blocks):
                with (
                    a_dfb.wait() as a_blk,
                    b_dfb.wait() as b_blk,
                    acc_dfb.wait() as pre,
                    acc_dfb.reserve() as acc,
                ):
                    acc.store(pre + a_blk @ b_blk)
            with acc_dfb.wait() as acc, y_dfb.reserve() as y_blk:
                y_blk.store(acc)

        @ttl.datamovement()
        def read():
            col, row = ttl.node(dims=2)
            for k in range(k_blocks):
                a_rows, a_cols = slice(row * mt, (row + 1) * mt), slice(k * KB, (k + 1) * KB)
                b_rows, b_cols = slice(k * KB, (k + 1) * KB), slice(col * nt, (col + 1) * nt)
                with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk:
                    if multicast:
                        # Condition bodies run at once, in this iteration (B023 is moot).

                        def a_src(pipe):
                            ttl.copy(a[a_rows, a_cols], a_blk).wait()  # noqa: B023
                            ttl.copy(a_blk, pipe).wait()

                        def a_dst(pipe):
                            ttl.copy(pipe, a_blk).wait()

                        def b_src(pipe):
                            ttl.copy(b[b_rows, b_cols], b_blk).wait()  # noqa: B023
                            ttl.copy(b_blk, pipe).wait()

                        def b_dst(pipe):
                            ttl.copy(pipe, b_blk).wait()

                        a_net.if_src(a_src)
                        b_net.if_src(b_src)
                        a_net.if_dst(a_dst)
                        b_net.if_dst(b_dst)
                    else:
                        xa = ttl.copy(a[a_rows, a_cols], a_blk)
                        xb = ttl.copy(b[b_rows, b_cols], b_blk)
                        xa.wait()
                        xb.wait()

        @ttl.datamovement()
        def write():
            col, row = ttl.node(dims=2)
            with y_dfb.wait() as y_blk:
                ttl.copy(y_blk, y[row * mt : (row + 1) * mt, col * nt : (col + 1) * nt]).wait()

    return matmul


matmul_mcast = _matmul(multicast=True)
matmul_unicast = _matmul(multicast=False)


def reference(a, b):
    """NumPy reference for ``y``."""
    return np.asarray(a) @ np.asarray(b)
