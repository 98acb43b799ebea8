"""bfloat8_b tensors in TT-Lang operations: ``y = a * b + c`` and ``a @ b``.

``ttnn.bfloat8_b`` tensors are stored as on the device, in BFP8_b tiles (16
elements share an exponent): ``from_torch`` quantizes, the kernels move the
packed 1088-byte tiles, the compute unpacks them and packs the result back.

    ttl run examples/ttnn/bfp8_ops.py            # needs torch

The expected values are computed in torch as the device computes them (bf16
DST: each operation's result rounds to bf16), then quantized by
``ttnn.from_torch(..., dtype=ttnn.bfloat8_b)``.
"""

import argparse

import torch
import ttnn
from eltwise_add_mul_op import eltwise_add_mul
from matmul_op import matmul


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=64)
    args = parser.parse_args()
    n = args.size

    device = ttnn.open_device(device_id=0)
    try:
        torch.manual_seed(0)

        def to_device(t, dtype=ttnn.bfloat8_b):
            return ttnn.from_torch(t, dtype=dtype, layout=ttnn.TILE_LAYOUT, device=device)

        def bfp8(t):  # what the device holds for t
            return ttnn.to_torch(to_device(t))

        a, b, c = (torch.randn(n, n) for _ in range(3))
        a_tt, b_tt, c_tt = to_device(a), to_device(b), to_device(c)
        a8, b8, c8 = (ttnn.to_torch(t).float() for t in (a_tt, b_tt, c_tt))

        y_tt = to_device(torch.zeros(n, n))
        eltwise_add_mul(a_tt, b_tt, c_tt, y_tt)
        y = ttnn.to_torch(y_tt)
        product = (a8 * b8).bfloat16().float()
        expected = bfp8((product + c8).bfloat16().float())
        ok = y.dtype == torch.bfloat16 and torch.equal(y, expected)
        error = (y.float() - (a * b + c)).abs().max().item()
        print(f"bfp8 a * b + c {list(y.shape)}: max |y - float32 torch| = {error:.3g}")

        # A bf16 output from bfp8 inputs: no quantization of the result.
        y16_tt = to_device(torch.zeros(n, n), ttnn.bfloat16)
        eltwise_add_mul(a_tt, b_tt, c_tt, y16_tt)
        ok = ok and torch.equal(ttnn.to_torch(y16_tt), (product + c8).bfloat16())

        m_tt = to_device(torch.zeros(n, n))
        matmul(a_tt, b_tt, m_tt)
        mm = ttnn.to_torch(m_tt).float()
        acc = torch.zeros(n, n)  # 16-bit DST: the sum rounds to bf16 after each K tile
        for k in range(0, n, 32):
            acc = (acc + a8[:, k : k + 32] @ b8[k : k + 32, :]).bfloat16().float()
        ok = ok and torch.allclose(mm, bfp8(acc).float(), rtol=2**-6, atol=2**-6)
        error = (mm - a @ b).abs().max().item()
        print(f"bfp8 a @ b {list(mm.shape)}: max |y - float32 torch| = {error:.3g}")
        print("PASS" if ok else "FAIL")
    finally:
        ttnn.close_device(device)


if __name__ == "__main__":
    main()
