"""48 DFBs: more than Wormhole's 32, within Blackhole's 64 (spec v0.21, Appendix E).

A chain of 47 doublings, each from one DFB into the next.
"""

# wormhole_b0 error: uses 48 dataflow buffers in its kernels but wormhole_b0 has 32 per

import itertools

import torch
import ttnn

import ttl

COUNT = 48


@ttl.operation(grid=(1, 1))
def chain(a: ttnn.Tensor, y: ttnn.Tensor) -> None:
    dfbs = [ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=1) for _ in range(COUNT)]
    steps = list(itertools.pairwise(dfbs))  # (from, to) of each doubling

    @ttl.datamovement()
    def read():
        with dfbs[0].reserve() as blk:
            ttl.copy(a[0, 0], blk).wait()

    @ttl.compute()
    def compute():
        for src, dst in steps:  # a compile-time list: unrolled
            with src.wait() as x, dst.reserve() as o:
                o.store(x + x)

    @ttl.datamovement()
    def write():
        with dfbs[COUNT - 1].wait() as blk:
            ttl.copy(blk, y[0, 0]).wait()


def main() -> None:
    device = ttnn.open_device(device_id=0)
    a = torch.full((32, 32), 2.0**-40, dtype=torch.bfloat16)
    zeros = torch.zeros(32, 32, dtype=torch.bfloat16)
    y = ttnn.from_torch(zeros, layout=ttnn.TILE_LAYOUT, device=device)
    chain(ttnn.from_torch(a, layout=ttnn.TILE_LAYOUT, device=device), y)
    assert torch.equal(ttnn.to_torch(y), a * 2.0 ** (COUNT - 1)), ttnn.to_torch(y)[0, 0]
    ttnn.close_device(device)
    print("PASS")


if __name__ == "__main__":
    main()
