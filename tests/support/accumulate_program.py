"""The operation the in-place block math tests compile and run (``{compute}``: the kernel body).

Shared by tests/compiler/test_accumulate.py (IR, C++, errors) and
tests/runtime/math/test_accumulate_emulator.py (numbers on the emulator):
``a`` (1 x K tiles) and ``b`` (K x 2 tiles) stream in one tile row and column
at a time; the compute kernel writes one (1, 2) block of ``y``.
"""

PROGRAM = """
import ttl


@ttl.operation(grid=(1, 1))
def op(a, b, y):
    K = a.shape[1] // 32
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 2), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 2), block_count=2)

    @ttl.compute()
    def compute():
{compute}

    @ttl.datamovement()
    def read():
        for k in range(K):
            with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk:
                ttl.copy(a[0, k], a_blk).wait()
                ttl.copy(b[k, 0:2], b_blk).wait()

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as y_blk:
            ttl.copy(y_blk, y[0, 0:2]).wait()
"""
