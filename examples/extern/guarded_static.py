"""An external header with a guarded function-local static (include/sign_flip.hpp).

``negate_block`` keeps its sign mask in a static initialised on the first
call; the operation negates a bf16 ``inp`` (4 tiles) into ``out`` through it.
Built by Bazel (examples/extern:guarded_static) and by the JIT (calling the
operation), with the same device build and byte-identical bundles.
"""

import ttl

HEADER = "sign_flip.hpp"
TILES = 4
SPECS = {"inp": "bf16[32,128]", "out": "bf16[32,128]"}


@ttl.operation(grid=(1, 1))
def guarded_static(inp, out):
    """Each tile goes through ``negate_block`` in a data-movement kernel: it reads and
    writes L1 itself (``get_read_ptr``), which TT-Metal compute kernels cannot."""
    source = ttl.make_dataflow_buffer_like(inp, shape=(1, 1))
    destination = ttl.make_dataflow_buffer_like(out, shape=(1, 1))
    for i in range(TILES):
        with source.reserve() as blk:
            ttl.copy(inp[0, i], blk).wait()
        ttl.call_extern_func(
            HEADER,
            "negate_block",
            template_args=[ttl.dfb_descriptor(source), ttl.dfb_descriptor(destination)],
            dfb_effects=[
                ttl.DFBEffect.wait(source, tiles=1),
                ttl.DFBEffect.reserve(destination, tiles=1),
                ttl.DFBEffect.push(destination, tiles=1),
                ttl.DFBEffect.pop(source, tiles=1),
            ],
            kernel=ttl.KernelKind.DATA_MOVEMENT,
        )
        with destination.wait() as blk:
            ttl.copy(blk, out[0, i]).wait()


def reference(inp):
    return -inp
