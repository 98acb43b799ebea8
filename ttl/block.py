"""Block constructors (``ttl.block``), usable in compute kernels.

tt-lang-sim spells these ``ttl.block.*``; the specification spells them
``ttl.math.*``. Both name the same functions.
"""

from __future__ import annotations

from ttl.math import broadcast, fill, mask, mask_posinf, squeeze, transpose, unsqueeze, where

__all__ = [
    "broadcast",
    "fill",
    "mask",
    "mask_posinf",
    "squeeze",
    "transpose",
    "unsqueeze",
    "where",
]
