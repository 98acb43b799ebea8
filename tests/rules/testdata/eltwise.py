"""Test operations for the Bazel rule tests: a*b+c and a copy."""

import ttl

SCALE_ROWS = 1


@ttl.operation(grid=(1, 1))
def add_mul(a, b, c, y):
    rows = a.shape[0] // 32
    cols = a.shape[1] // 32
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 1), block_count=2)
    c_dfb = ttl.make_dataflow_buffer_like(c, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        for _ in range(rows):
            for _ in range(cols):
                with (
                    a_dfb.wait() as ab,
                    b_dfb.wait() as bb,
                    c_dfb.wait() as cb,
                    y_dfb.reserve() as yb,
                ):
                    yb.store(ab * bb + cb)

    @ttl.datamovement()
    def read():
        for r in range(rows):
            for k in range(cols):
                with a_dfb.reserve() as blk:
                    tx = ttl.copy(a[r, k], blk)
                    tx.wait()
                with b_dfb.reserve() as blk:
                    tx = ttl.copy(b[r, k], blk)
                    tx.wait()
                with c_dfb.reserve() as blk:
                    tx = ttl.copy(c[r, k], blk)
                    tx.wait()

    @ttl.datamovement()
    def write():
        for r in range(rows):
            for k in range(cols):
                with y_dfb.wait() as blk:
                    tx = ttl.copy(blk, y[r, k])
                    tx.wait()
