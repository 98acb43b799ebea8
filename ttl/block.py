"""Block constructors (``ttl.block``), usable in compute kernels."""

from __future__ import annotations

from ttl.math import broadcast, fill

__all__ = ["broadcast", "fill"]
