"""A conditional producer/consumer pair guarded by one ``ttl.DispatchCondition``.

The reader and the writer each evaluate the same declaration (``active``); the
compiler uses that identity to prove that the conditional pushes of ``buf`` in
the reader match the conditional pops in the writer on every path (spec:
"Dispatch-stable condition results"). ``out = inp`` when the condition is true.
"""

import numpy as np

import ttl

HEADER = "kernel_examples.hpp"
INCLUDE_DIR = "examples/kernels/include"
TILE = 32

OPERATION = "conditional_pair"
SPECS = {"inp": "bf16[32,128]", "out": "bf16[32,128]"}


def make_conditional_pair():
    """The factory: one condition declaration and two data-movement handles, captured."""
    active = ttl.DispatchCondition(ttl.ScalarType.I32)
    reader = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)
    writer = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)

    @ttl.operation(grid=(1, 1))
    def conditional_pair(inp, out):
        tiles = inp.shape[1] // TILE
        buf = ttl.make_dataflow_buffer_like(inp, shape=(1, 1), block_count=2)

        @ttl.datamovement(kernel=reader)
        def read():
            on = ttl.call_extern_func(
                HEADER, "copy_enabled", include_paths=[INCLUDE_DIR], condition_result=active
            )
            if on:
                for t in range(tiles):
                    with buf.reserve() as blk:
                        ttl.copy(inp[0, t], blk).wait()

        @ttl.datamovement(kernel=writer)
        def write():
            on = ttl.call_extern_func(
                HEADER, "copy_enabled", include_paths=[INCLUDE_DIR], condition_result=active
            )
            if on:
                for t in range(tiles):
                    with buf.wait() as blk:
                        ttl.copy(blk, out[0, t]).wait()

    return conditional_pair


conditional_pair = make_conditional_pair()


def reference(inp):
    """NumPy reference for ``out`` (the condition is true)."""
    return np.asarray(inp)
