"""An operation with a TT-Lang error on line 15 (a loop variable shadows a tensor)."""

import ttl


@ttl.operation(grid=(1, 1))
def broken(a, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1))
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1))

    @ttl.datamovement()
    def read():
        for a in range(2):
            with a_dfb.reserve() as blk:
                tx = ttl.copy(a[0, 0], blk)
                tx.wait()

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as blk:
            tx = ttl.copy(blk, y[0, 0])
            tx.wait()

    @ttl.compute()
    def compute():
        with a_dfb.wait() as ab, y_dfb.reserve() as yb:
            yb.store(ab)
