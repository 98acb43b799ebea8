"""Two external calls whose complete ``dfb_effects`` let two DFBs share one physical index.

Each call stages half of the tiles through its own scratch DFB with complete
reserve -> push -> wait -> pop transactions. Both DFBs live only in the
``stage`` kernel, over disjoint statements, with equal configurations, so the
allocator gives ``second`` the physical index of ``first`` (spec: "A complete
summary can provide the lifecycle proof needed for physical-index reuse");
``ttlc --emit=plan`` says why. ``out = inp``.
"""

import numpy as np

import ttl

HEADER = "kernel_examples.hpp"
INCLUDE_DIR = "examples/kernels/include"
TILE = 32

OPERATION = "dfb_reuse_extern"
SPECS = {"inp": "bf16[32,128]", "out": "bf16[32,128]"}


@ttl.operation(grid=(1, 1))
def dfb_reuse_extern(inp, out):
    half = inp.shape[1] // TILE // 2
    first = ttl.make_dataflow_buffer_like(inp, shape=(1, 1), block_count=2)
    second = ttl.make_dataflow_buffer_like(inp, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def stage():
        ttl.call_extern_func(
            HEADER,
            "stage_tiles",
            include_paths=[INCLUDE_DIR],
            template_args=[ttl.dfb_descriptor(first)],
            func_args=[inp, out, 0, half],
            dfb_effects=[
                ttl.DFBEffect.repeat(
                    half,
                    [
                        ttl.DFBEffect.reserve(first, tiles=1),
                        ttl.DFBEffect.push(first, tiles=1),
                        ttl.DFBEffect.wait(first, tiles=1),
                        ttl.DFBEffect.pop(first, tiles=1),
                    ],
                ),
            ],
        )
        ttl.call_extern_func(
            HEADER,
            "stage_tiles",
            include_paths=[INCLUDE_DIR],
            template_args=[ttl.dfb_descriptor(second)],
            func_args=[inp, out, half, half],
            dfb_effects=[
                ttl.DFBEffect.repeat(
                    half,
                    [
                        ttl.DFBEffect.reserve(second, tiles=1),
                        ttl.DFBEffect.push(second, tiles=1),
                        ttl.DFBEffect.wait(second, tiles=1),
                        ttl.DFBEffect.pop(second, tiles=1),
                    ],
                ),
            ],
        )


def reference(inp):
    """NumPy reference for ``out``."""
    return np.asarray(inp)
