"""Expected results of ``a * b + c`` as the emulator computes it, for the tests that run it.

The product rounds to the DST format (bf16 in the 16-bit DST that bf16 tensors
get by default; fp32 tensors keep fp32), the sum to the output's dtype.
"""

from __future__ import annotations

import numpy as np


def fma_in_dst(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``a * b + c`` with the product rounded to ``a``'s dtype, then the sum."""
    f32 = np.float32
    product = (a.astype(f32) * b.astype(f32)).astype(a.dtype).astype(f32)
    return (product + c.astype(f32)).astype(a.dtype)
