"""The NumPy variant of eltwise_add_mul.py, for machines without torch.

The same operation (imported from eltwise_add_mul_op.py) is called with NumPy
arrays; ``ttnn`` only opens and closes the device. Run it with

    ttl run examples/ttnn/eltwise_add_mul_numpy.py [--rows 128 --cols 64]
"""

import argparse

import ml_dtypes
import numpy as np
import ttnn
from eltwise_add_mul_op import eltwise_add_mul


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=64)
    parser.add_argument("--cols", type=int, default=64)
    args = parser.parse_args()

    device = ttnn.open_device(device_id=0)
    try:
        rng = np.random.default_rng(0)
        shape = (args.rows, args.cols)
        a, b, c = (rng.uniform(-1, 1, shape).astype(ml_dtypes.bfloat16) for _ in range(3))
        y = np.zeros(shape, dtype=ml_dtypes.bfloat16)

        eltwise_add_mul(a, b, c, y)  # y is written in place

        # bf16 tensors get a 16-bit DST (fp32_dest_acc_en off): a * b rounds to bf16 in
        # DST before c is added, as on hardware.
        f32, bf16 = np.float32, ml_dtypes.bfloat16
        product = (a.astype(f32) * b.astype(f32)).astype(bf16).astype(f32)
        expected = (product + c.astype(f32)).astype(bf16)
        diff = np.abs(y.astype(f32) - expected.astype(f32)).max()
        print(f"eltwise_add_mul {list(y.shape)} {y.dtype}: max |y - numpy| = {diff:.3g}")
        print("PASS" if np.array_equal(y, expected) else "FAIL")
    finally:
        ttnn.close_device(device)


if __name__ == "__main__":
    main()
