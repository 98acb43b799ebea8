"""Helpers of test_unary_compile.py (a uniquely named module: every suite has a conftest)."""

from __future__ import annotations

# A one-tile operation storing {expr} (the block expression over a_blk) into y.
UNARY_OP = """
import ttl


@ttl.operation(grid=(1, 1))
def op(a, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        with a_dfb.wait() as a_blk, y_dfb.reserve() as y_blk:
            y_blk.store({expr})  # ERROR

    @ttl.datamovement()
    def read():
        with a_dfb.reserve() as a_blk:
            ttl.copy(a[0, 0], a_blk).wait()

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as y_blk:
            ttl.copy(y_blk, y[0, 0]).wait()
"""

SPECS = {"a": "bf16[32,32]", "y": "bf16[32,32]"}
