"""Per-target hardware data: the single slot table.

This module is deliberately neutral: the compiler uses it for capacity checks
and processor-slot assignment, and the runtime uses it to validate bundles.
It must not import the compiler or the runtime.

Numbers are per Tensix node. ``dfb_count`` is the number of dataflow buffers
(TT-Metal "circular buffers") a node offers. TT-Metal exposes 32 on Wormhole
B0; on Blackhole it exposes 64, but we use 32 for both targets so that an
operation validated for one fits the other (documented in docs/compiler.md).
"""

from __future__ import annotations

from dataclasses import dataclass

COMPUTE = "compute"
DATA_MOVEMENT = "data_movement"

TILE_ROWS = 32
TILE_COLS = 32

# Bytes per element of each tensor data type, and its TT-Metal data format.
DTYPE_BYTES = {"bf16": 2, "f32": 4}
DATA_FORMATS = {"bf16": "Float16_b", "f32": "Float32"}


def tile_bytes(dtype: str) -> int:
    """Size of one 32x32 tile (one DFB/tensor page) of ``dtype`` in bytes."""
    return TILE_ROWS * TILE_COLS * DTYPE_BYTES[dtype]


@dataclass(frozen=True)
class Target:
    """Capacities of one target's Tensix node and grid."""

    name: str
    # Processor slots per kernel kind, in assignment order.
    slots: dict[str, tuple[str, ...]]
    l1_bytes: int
    dfb_count: int
    # DST register capacity in tiles, per data type (half-sync mode).
    dst_tiles: dict[str, int]
    # Full grid as (x, y) = (columns, rows) of nodes.
    full_grid: tuple[int, int]

    def kernels_per_kind(self, kind: str) -> int:
        """How many logical kernels of ``kind`` one node can run."""
        return len(self.slots[kind])

    def dst_capacity(self, dtypes: set[str] | frozenset[str]) -> int:
        """DST capacity in tiles when any of ``dtypes`` is live in DST."""
        return min(self.dst_tiles[d] for d in dtypes) if dtypes else self.dst_tiles["bf16"]


_SLOTS = {COMPUTE: ("compute",), DATA_MOVEMENT: ("dm0", "dm1")}
_DST = {"bf16": 8, "f32": 4}

TARGETS: dict[str, Target] = {
    "wormhole_b0": Target(
        name="wormhole_b0",
        slots=_SLOTS,
        l1_bytes=1464 * 1024,
        dfb_count=32,
        dst_tiles=_DST,
        full_grid=(8, 8),
    ),
    "blackhole": Target(
        name="blackhole",
        slots=_SLOTS,
        l1_bytes=1536 * 1024,
        dfb_count=32,
        dst_tiles=_DST,
        full_grid=(13, 10),
    ),
}

DEFAULT_TARGET = "wormhole_b0"


def get_target(name: str) -> Target:
    """Look up a target by name; raises KeyError naming the known targets."""
    try:
        return TARGETS[name]
    except KeyError:
        known = ", ".join(sorted(TARGETS))
        raise KeyError(f"unknown target '{name}' (known targets: {known})") from None
