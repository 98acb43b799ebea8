"""Waited-block replacement (spec v0.21): a compute kernel stores into the block it
waited for, and its later reads see the new value.

A running state of one block (``block_count=1``): the compute kernel waits for it,
replaces it with ``2 * state`` (an expression that reads the original), then writes
``state + 1`` and ``state`` from the replacement to two output tiles, and pops. The
values are small integers, exact in bf16.
"""

# not for tt-lang-sim 1.1.6: waited-block replacement is spec v0.21

import torch
import ttnn

import ttl

TILE = ttnn.TILE_SIZE


@ttl.operation(grid=(1, 1))
def double_state(x: ttnn.Tensor, out: ttnn.Tensor) -> None:
    state_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=1)
    out_dfb = ttl.make_dataflow_buffer_like(out, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def read():
        with state_dfb.reserve() as blk:
            ttl.copy(x[0, 0], blk).wait()

    @ttl.compute()
    def compute():
        with state_dfb.wait() as state:
            state.store(state * 2.0)
            with out_dfb.reserve() as plus_one:
                plus_one.store(state + ttl.block.fill(1.0, shape=state.shape))
            with out_dfb.reserve() as doubled:
                doubled.store(state)

    @ttl.datamovement()
    def write():
        for t in range(2):
            with out_dfb.wait() as blk:
                ttl.copy(blk, out[0, t]).wait()


device = ttnn.open_device(device_id=0)
try:
    x_torch = torch.randint(-8, 8, (TILE, TILE)).to(torch.bfloat16)
    x = ttnn.from_torch(x_torch, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device)
    out = ttnn.from_torch(
        torch.zeros((TILE, 2 * TILE), dtype=torch.bfloat16),
        dtype=ttnn.bfloat16,
        layout=ttnn.TILE_LAYOUT,
        device=device,
    )
    double_state(x, out)
    got = ttnn.to_torch(out)
    assert torch.equal(got[:, :TILE], 2 * x_torch + 1)
    assert torch.equal(got[:, TILE:], 2 * x_torch)
    print("PASS")
finally:
    ttnn.close_device(device)
