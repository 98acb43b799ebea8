"""Composition: a unified operation calling another one twice.

``stage`` owns the compute handle ``worker``; ``composition`` calls it twice
in sequence. Both calls put their compute work in the callee's logical kernel
``stage.worker`` (the handle keeps its identity; no second compute kernel is
used) and their copies in the canonical data-movement kernel. The second call
reads the first call's output: ``out = ||inp||``.
"""

import numpy as np

import ttl

TILE = 32

OPERATION = "composition"
SPECS = {"inp": "bf16[32,128]", "out": "bf16[32,128]"}


def make_stage():
    worker = ttl.Kernel(ttl.KernelKind.COMPUTE)

    @ttl.operation(grid=(1, 1))
    def stage(src_tensor, dst_tensor):
        tiles = src_tensor.shape[1] // TILE
        src = ttl.make_dataflow_buffer_like(src_tensor, shape=(1, 1))
        dst = ttl.make_dataflow_buffer_like(dst_tensor, shape=(1, 1))
        for t in range(tiles):
            with src.reserve() as blk:
                ttl.copy(src_tensor[0, t], blk).wait()
            a = src.wait()
            y = dst.reserve()
            y.store(ttl.math.abs(a))
            a.pop(kernel=worker)
            y.push(kernel=worker)
            with dst.wait() as blk:
                ttl.copy(blk, dst_tensor[0, t]).wait()

    return stage, worker


stage, WORKER = make_stage()


@ttl.operation(grid=(1, 1))
def composition(inp, out):
    stage(inp, out)
    stage(out, out)


def reference(x):
    return np.abs(x)
