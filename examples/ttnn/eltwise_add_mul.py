"""``y = a * b + c`` written for hardware, in the style of the TT-Lang tutorials.

On a Tenstorrent card this runs as is; here ``ttl run`` runs it on the
emulator (``import ttnn`` resolves to the emulator's host subset):

    ttl run examples/ttnn/eltwise_add_mul.py            # needs torch
    ttl run --profile examples/ttnn/eltwise_add_mul.py --rows 128

NumPy-only machines: see eltwise_add_mul_numpy.py.
"""

import argparse

import torch
import ttnn
from eltwise_add_mul_op import eltwise_add_mul


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=64)
    parser.add_argument("--cols", type=int, default=64)
    args = parser.parse_args()

    device = ttnn.open_device(device_id=0)
    try:
        torch.manual_seed(0)
        shape = (args.rows, args.cols)
        a, b, c = (torch.rand(shape, dtype=torch.bfloat16) for _ in range(3))

        def to_device(t):
            return ttnn.from_torch(
                t,
                dtype=ttnn.bfloat16,
                layout=ttnn.TILE_LAYOUT,
                device=device,
                memory_config=ttnn.DRAM_MEMORY_CONFIG,
            )

        a_tt, b_tt, c_tt = to_device(a), to_device(b), to_device(c)
        y_tt = to_device(torch.zeros(shape, dtype=torch.bfloat16))

        eltwise_add_mul(a_tt, b_tt, c_tt, y_tt)

        y = ttnn.to_torch(y_tt)
        # bf16 tensors get a 16-bit DST (fp32_dest_acc_en off): a * b rounds to bf16 in
        # DST before c is added, as on hardware, so y is what ttnn.multiply then
        # ttnn.add give, bit for bit.
        product = (a.float() * b.float()).to(torch.bfloat16).float()
        expected = (product + c.float()).to(torch.bfloat16)
        with_ttnn = ttnn.to_torch(ttnn.add(ttnn.multiply(a_tt, b_tt), c_tt))
        assert y.shape == expected.shape and y.dtype == torch.bfloat16
        diff = (y.float() - expected.float()).abs().max().item()
        print(f"eltwise_add_mul {list(y.shape)} {y.dtype}: max |y - torch| = {diff:.3g}")
        print("PASS" if torch.equal(y, expected) and torch.equal(y, with_ttnn) else "FAIL")
    finally:
        ttnn.close_device(device)


if __name__ == "__main__":
    main()
