"""A unified operation: copies, block math and transactions directly in the body.

The compiler splits the body into the canonical data-movement kernel (the
copies and their transactions) and the canonical compute kernel (the two
block-math stages), keeping the ``for`` loop in both (``ttlc --emit=plan``
shows the split). ``out = -|inp|``.
"""

import numpy as np

import ttl

TILE = 32

OPERATION = "unified_pipeline"
SPECS = {"inp": "bf16[32,128]", "out": "bf16[32,128]"}


@ttl.operation(grid=(1, 1))
def unified_pipeline(inp, out):
    tiles = inp.shape[1] // TILE
    src = ttl.make_dataflow_buffer_like(inp, shape=(1, 1))
    mid = ttl.make_dataflow_buffer_like(inp, shape=(1, 1))
    dst = ttl.make_dataflow_buffer_like(out, shape=(1, 1))
    for t in range(tiles):
        with src.reserve() as blk:
            ttl.copy(inp[0, t], blk).wait()
        with src.wait() as a, mid.reserve() as m:
            m.store(ttl.math.abs(a))
        with mid.wait() as m, dst.reserve() as y:
            y.store(-m)
        with dst.wait() as blk:
            ttl.copy(blk, out[0, t]).wait()


def reference(x):
    return -np.abs(x)
