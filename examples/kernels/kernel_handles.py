"""Operation-local ``ttl.Kernel`` handles in a unified operation.

Two data-movement handles created by a factory: the release selector of each
otherwise-unselected transaction puts the reading copies in ``reader`` and the
writing copies in ``writer``; the block math stays in the canonical compute
kernel. Three logical kernels: ``kernel_handles.reader``, ``.compute``,
``.writer``. ``out = |inp|``.
"""

import numpy as np

import ttl

TILE = 32

OPERATION = "kernel_handles"
SPECS = {"inp": "bf16[32,128]", "out": "bf16[32,128]"}


def make_kernel_handles():
    reader = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)
    writer = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)

    @ttl.operation(grid=(1, 1))
    def kernel_handles(inp, out):
        tiles = inp.shape[1] // TILE
        src = ttl.make_dataflow_buffer_like(inp, shape=(1, 1))
        dst = ttl.make_dataflow_buffer_like(out, shape=(1, 1))
        for t in range(tiles):
            blk = src.reserve()
            ttl.copy(inp[0, t], blk).wait()
            blk.push(kernel=reader)
            with src.wait() as a, dst.reserve() as y:
                y.store(ttl.math.abs(a))
            res = dst.wait()
            ttl.copy(res, out[0, t]).wait()
            res.pop(kernel=writer)

    return kernel_handles


kernel_handles = make_kernel_handles()


def reference(x):
    return np.abs(x)
