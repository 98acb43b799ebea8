"""Operation parameters that are not tensors: compile-time constants.

Upstream's examples pass Python values beside their tensors
(``nearest_neighbor_upsample(input, output, (2, 2))``, ``block_h=4``). Each is
compiled in: the top level sizes a DFB with it and the kernels loop and index
with it. The parameter sits between the tensors, and the operation is called
with two values: each compiles its own bundle.
"""

import torch
import ttnn

import ttl

TILE = ttnn.TILE_SIZE


@ttl.operation(grid=(1, 1))
def repeat_rows(a: ttnn.Tensor, scale: tuple, out: ttnn.Tensor, offset: int) -> None:
    rows, cols = scale
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, cols), block_count=2)

    @ttl.datamovement()
    def read():
        for r in range(rows):
            with a_dfb.reserve() as blk:
                ttl.copy(a[(r + offset) % rows, 0:cols], blk).wait()

    @ttl.compute()
    def compute():
        pass

    @ttl.datamovement()
    def write():
        for r in range(rows):
            with a_dfb.wait() as blk:
                ttl.copy(blk, out[r, 0:cols]).wait()


def main() -> None:
    device = ttnn.open_device(device_id=0)
    torch.manual_seed(0)
    for rows, cols, offset in ((2, 3, 1), (3, 2, 2)):
        a = torch.randn(rows * TILE, cols * TILE, dtype=torch.bfloat16)
        zeros = torch.zeros(rows * TILE, cols * TILE, dtype=torch.bfloat16)
        ta, tout = (ttnn.from_torch(t, layout=ttnn.TILE_LAYOUT, device=device) for t in (a, zeros))
        repeat_rows(ta, (rows, cols), tout, offset)
        want = torch.cat([a[((r + offset) % rows) * TILE :][:TILE] for r in range(rows)])
        assert torch.equal(ttnn.to_torch(tout), want), (rows, cols, offset)
    ttnn.close_device(device)
    print("PASS")


if __name__ == "__main__":
    main()
