"""Expressions of f32 and bf16 blocks (the hardware's unpacker and packer convert).

An f32 input meets a bf16 one in one expression; the result is stored into a bf16
and an f32 block. Operands of another dtype than the stored block are unpacked to
its dtype in DST, and the packer writes the stored block's format; the compute
kernel points the unpacker and packer at each CB's format
(``reconfig_data_format``), as TT-Metal kernels with mixed formats do. With
``fp32_dest_acc_en`` DST holds f32, so the f32 result is the f32 product and sum.
"""

import torch
import ttnn

import ttl

TILE = ttnn.TILE_SIZE


@ttl.operation(grid=(1, 1), fp32_dest_acc_en=True)
def mixed(a: ttnn.Tensor, b: ttnn.Tensor, out_bf16: ttnn.Tensor, out_f32: ttnn.Tensor) -> None:
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 2), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 2), block_count=2)
    o16_dfb = ttl.make_dataflow_buffer_like(out_bf16, shape=(1, 2), block_count=2)
    o32_dfb = ttl.make_dataflow_buffer_like(out_f32, shape=(1, 2), block_count=2)

    @ttl.datamovement()
    def read():
        for r in range(2):
            with a_dfb.reserve() as x, b_dfb.reserve() as y:
                ttl.copy(a[r, 0:2], x).wait()
                ttl.copy(b[r, 0:2], y).wait()

    @ttl.compute()
    def compute():
        for _ in range(2):
            with a_dfb.wait() as x, b_dfb.wait() as y:
                with o16_dfb.reserve() as o:
                    o.store(x * y + x)
                with o32_dfb.reserve() as o:
                    o.store(ttl.math.abs(y) - x)

    @ttl.datamovement()
    def write():
        for r in range(2):
            with o16_dfb.wait() as o:
                ttl.copy(o, out_bf16[r, 0:2]).wait()
            with o32_dfb.wait() as o:
                ttl.copy(o, out_f32[r, 0:2]).wait()


def main() -> None:
    device = ttnn.open_device(device_id=0)
    torch.manual_seed(0)
    a = torch.randn(2 * TILE, 2 * TILE, dtype=torch.float32)
    b = torch.randn(2 * TILE, 2 * TILE, dtype=torch.bfloat16)

    def tiled(t):
        return ttnn.from_torch(t, layout=ttnn.TILE_LAYOUT, device=device)

    out_bf16 = tiled(torch.zeros(2 * TILE, 2 * TILE, dtype=torch.bfloat16))
    out_f32 = tiled(torch.zeros(2 * TILE, 2 * TILE, dtype=torch.float32))
    mixed(tiled(a), tiled(b), out_bf16, out_f32)
    want16 = a * b.float() + a
    got16 = ttnn.to_torch(out_bf16).float()
    assert torch.allclose(got16, want16, rtol=2**-7, atol=2**-7), (got16 - want16).abs().max()
    want32 = b.float().abs() - a
    assert torch.allclose(ttnn.to_torch(out_f32), want32, rtol=1e-6, atol=1e-6)
    ttnn.close_device(device)
    print("PASS")


if __name__ == "__main__":
    main()
