"""External C++ that reads a DFB's interface: ``dfb_accesses`` in ``ttl.call_extern_func``.

The compute kernel calls a header function before each block it consumes; the
function reads the input DFB's ``LocalCBInterface`` (TT-Metal's
``get_local_cb_interface``) on the unpacker. The first call declares it with
``ttl.DFBAccess.inspect`` (spec v0.21), the second with
``ttl.DFBAccess.interface_preserved`` (an earlier v0.21 draft's access that
upstream's examples still use): neither adds a C++ argument or a DFB protocol call,
so the data goes through unchanged, doubled by the compute kernel.
"""

# not for tt-lang-sim 1.1.6: dfb_accesses is upstream's external-call contract of v0.21

from pathlib import Path

import torch
import ttnn

import ttl

HEADER = str(Path(__file__).with_name("cb_interface_access.hpp"))
TILES = 2


@ttl.operation(grid=(1, 1))
def double_through(x: ttnn.Tensor, y: ttnn.Tensor) -> None:
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def read():
        for t in range(TILES):
            with x_dfb.reserve() as blk:
                ttl.copy(x[0, t], blk).wait()

    @ttl.compute()
    def compute():
        ttl.call_extern_func(
            HEADER,
            "count_front_blocks",
            template_args=[ttl.dfb_descriptor(x_dfb)],
            dfb_accesses=[ttl.DFBAccess.inspect(x_dfb)],
        )
        with x_dfb.wait() as a, y_dfb.reserve() as out:
            out.store(a + a)
        ttl.call_extern_func(
            HEADER,
            "count_front_blocks",
            template_args=[ttl.dfb_descriptor(x_dfb)],
            dfb_accesses=[ttl.DFBAccess.interface_preserved(x_dfb)],
        )
        with x_dfb.wait() as a, y_dfb.reserve() as out:
            out.store(a + a)

    @ttl.datamovement()
    def write():
        for t in range(TILES):
            with y_dfb.wait() as blk:
                ttl.copy(blk, y[0, t]).wait()


torch.manual_seed(0)
device = ttnn.open_device(device_id=0)
try:
    x_torch = torch.rand((32, 32 * TILES), dtype=torch.bfloat16)
    x = ttnn.from_torch(x_torch, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device)
    y = ttnn.from_torch(
        torch.zeros_like(x_torch), dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device
    )
    double_through(x, y)
    assert torch.equal(ttnn.to_torch(y), x_torch + x_torch)
    print("PASS")
finally:
    ttnn.close_device(device)
