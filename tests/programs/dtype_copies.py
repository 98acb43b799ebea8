"""Copies between bf16 and f32: the data-movement core converts (spec: pipe examples).

The spec's pipe examples read an f32 tensor (``ttnn.from_torch`` of a float32 torch
tensor) into DFBs made like it and copy the blocks into outputs from ``ttnn.zeros``,
which are bf16 (here ``ttnn.from_torch`` of bf16 zeros, which tt-lang-sim has). A
NOC transfer moves bytes, so each page is converted in software: bf16 -> f32
exactly, f32 -> bf16 rounding to nearest even, as torch's ``.to()`` does. Tiled and
row-major tensors, both directions, with a NaN, infinities and values that round to
even. The staging block a kernel reserves, fills and pushes without any kernel
waiting on its DFB is the spec examples' pattern too.
"""

import torch
import ttnn

import ttl

TILE = ttnn.TILE_SIZE


@ttl.operation(grid=(1, 1))
def convert(
    f32_in: ttnn.Tensor,
    bf16_out: ttnn.Tensor,
    f32_back: ttnn.Tensor,
    rows_in: ttnn.Tensor,
    rows_out: ttnn.Tensor,
) -> None:
    tiles = ttl.make_dataflow_buffer_like(f32_in, shape=(1, 2), block_count=2)
    narrow = ttl.make_dataflow_buffer_like(bf16_out, shape=(1, 2), block_count=2)
    rows = ttl.make_dataflow_buffer_like(rows_in, shape=(2, 48), block_count=2)

    @ttl.datamovement()
    def dm():
        for r in range(2):
            with tiles.reserve() as blk:
                ttl.copy(f32_in[r, 0:2], blk).wait()
                ttl.copy(blk, bf16_out[r, 0:2]).wait()
            with narrow.reserve() as blk:
                ttl.copy(bf16_out[r, 0:2], blk).wait()
                ttl.copy(blk, f32_back[r, 0:2]).wait()
        with rows.reserve() as blk:
            ttl.copy(rows_in[1:3, 16:64], blk).wait()
            ttl.copy(blk, rows_out[0:2, 0:48]).wait()

    @ttl.compute()
    def compute():
        pass

    @ttl.datamovement()
    def idle():  # tt-lang-sim 1.1.6 runs operations of exactly three kernels
        pass


def main() -> None:
    device = ttnn.open_device(device_id=0)
    x = torch.randn(2 * TILE, 2 * TILE, dtype=torch.float32)
    x[0, 0], x[0, 1], x[0, 2] = float("nan"), float("inf"), -float("inf")
    x[0, 3] = 1.0 + 2.0**-8  # a tie: rounds to 1.0 (even)
    x[0, 4] = 1.0 + 3 * 2.0**-8  # a tie: rounds up to 1 + 2**-6 (even)
    rows = torch.randn(4, 64, dtype=torch.bfloat16)

    def tiled(t, dtype=None):
        return ttnn.from_torch(t, dtype=dtype, layout=ttnn.TILE_LAYOUT, device=device)

    f32_in = tiled(x)
    bf16_out = tiled(torch.zeros(2 * TILE, 2 * TILE, dtype=torch.bfloat16))
    f32_back = tiled(torch.zeros(2 * TILE, 2 * TILE), ttnn.float32)
    rows_in = ttnn.from_torch(rows, layout=ttnn.ROW_MAJOR_LAYOUT, device=device)
    rows_out = ttnn.from_torch(
        torch.zeros(2, 48), dtype=ttnn.float32, layout=ttnn.ROW_MAJOR_LAYOUT, device=device
    )
    convert(f32_in, bf16_out, f32_back, rows_in, rows_out)
    want = x.to(torch.bfloat16)
    got = ttnn.to_torch(bf16_out)
    assert got.dtype == torch.bfloat16
    assert torch.equal(got.isnan(), want.isnan()), "a NaN stays a NaN"
    assert torch.equal(got.nan_to_num(), want.nan_to_num())
    back = ttnn.to_torch(f32_back)
    assert torch.equal(back.nan_to_num(), want.float().nan_to_num())
    assert torch.equal(ttnn.to_torch(rows_out), rows[1:3, 16:64].float())
    ttnn.close_device(device)
    print("PASS")


if __name__ == "__main__":
    main()
