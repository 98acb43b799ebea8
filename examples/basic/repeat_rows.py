"""Compile-time parameters: an operation called with Python values beside its tensors.

``rows_rolled(a, shape, y, shift)`` copies tile row ``(r + shift) % rows`` of ``a``
to tile row ``r`` of ``y``. ``shape`` (a tuple) sizes the DFB at the top level and
``shift`` (an int) indexes in the kernel: both are compiled in, and each value gets
its own bundle (``--arg shape=const:(2, 3)``; in Python, a call passes the values).
"""

import numpy as np

import ttl

OPERATION = "rows_rolled"
SHAPE, SHIFT = (2, 3), 1
SPECS = {
    "a": "bf16[64,96]",
    "shape": f"const:{SHAPE}",
    "y": "bf16[64,96]",
    "shift": f"const:{SHIFT}",
}
TILE = 32


@ttl.operation(grid=(1, 1))
def rows_rolled(a, shape, y, shift):
    rows, cols = shape
    row_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, cols), block_count=2)

    @ttl.datamovement()
    def read():
        for r in range(rows):
            with row_dfb.reserve() as blk:
                ttl.copy(a[(r + shift) % rows, 0:cols], blk).wait()

    @ttl.datamovement()
    def write():
        for r in range(rows):
            with row_dfb.wait() as blk:
                ttl.copy(blk, y[r, 0:cols]).wait()


def reference(a):
    """NumPy reference for ``y``: ``a`` rolled up by ``SHIFT`` tile rows."""
    return np.roll(np.asarray(a), -SHIFT * TILE, axis=0)
