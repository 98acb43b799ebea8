"""Scratch DFBs of an explicit dtype (spec v0.21 ``ttl.make_dfb``) between compute stages.

``y = (a * b) + c`` in two compute steps that hand their intermediate through a DFB
made with ``ttl.make_dfb``, no tensor to make it like: an f32 one (its dtype given as
``ttnn.float32``) and a bf16 one (``"bf16"``, with the default ``block_count``). The
f32 intermediate keeps the product unrounded until the bf16 output.
"""

# not for tt-lang-sim 1.1.6: ttl.make_dfb is spec v0.21

import torch
import ttnn

import ttl

TILE = ttnn.TILE_SIZE
ROWS, COLS = 2, 3


@ttl.operation(grid=(1, 1), fp32_dest_acc_en=True)
def fma(a: ttnn.Tensor, b: ttnn.Tensor, c: ttnn.Tensor, y: ttnn.Tensor) -> None:
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1))
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 1))
    c_dfb = ttl.make_dataflow_buffer_like(c, shape=(1, 1))
    product_dfb = ttl.make_dfb(ttnn.float32, shape=(1, 1), block_count=2)
    sum_dfb = ttl.make_dfb("bf16", shape=(1, 1))

    @ttl.datamovement()
    def read():
        for r in range(ROWS):
            for col in range(COLS):
                with a_dfb.reserve() as x, b_dfb.reserve() as z, c_dfb.reserve() as w:
                    ttl.copy(a[r, col], x).wait()
                    ttl.copy(b[r, col], z).wait()
                    ttl.copy(c[r, col], w).wait()

    @ttl.compute()
    def compute():
        for _ in range(ROWS * COLS):
            with a_dfb.wait() as x, b_dfb.wait() as z, product_dfb.reserve() as p:
                p.store(x * z)
            with product_dfb.wait() as p, c_dfb.wait() as w, sum_dfb.reserve() as s:
                s.store(p + w)

    @ttl.datamovement()
    def write():
        for r in range(ROWS):
            for col in range(COLS):
                with sum_dfb.wait() as s:
                    ttl.copy(s, y[r, col]).wait()


def main() -> None:
    device = ttnn.open_device(device_id=0)
    torch.manual_seed(0)
    shape = (ROWS * TILE, COLS * TILE)
    a, b, c = (torch.randn(shape, dtype=torch.bfloat16) for _ in range(3))

    def tiled(t):
        return ttnn.from_torch(t, layout=ttnn.TILE_LAYOUT, device=device)

    y = tiled(torch.zeros(shape, dtype=torch.bfloat16))
    fma(tiled(a), tiled(b), tiled(c), y)
    want = (a.float() * b.float() + c.float()).bfloat16()
    got = ttnn.to_torch(y)
    assert torch.equal(got, want), (got.float() - want.float()).abs().max()
    ttnn.close_device(device)
    print("PASS")


if __name__ == "__main__":
    main()
