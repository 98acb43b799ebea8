"""Per-target hardware data: the single slot table.

This module is deliberately neutral: the compiler uses it for capacity checks
and processor-slot assignment, and the runtime uses it to validate bundles.
It must not import the compiler or the runtime.

Numbers are per Tensix node. ``dfb_count`` is the number of dataflow buffers
(TT-Metal "circular buffers") a node offers: 32 on Wormhole B0 and 64 on Blackhole
(spec v0.21, Appendix E, "Platform limitations"; TT-Metal's NUM_CIRCULAR_BUFFERS).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

COMPUTE = "compute"
DATA_MOVEMENT = "data_movement"

TILE_ROWS = 32
TILE_COLS = 32

# Bytes of one 32x32 tile of each tensor data type, and its TT-Metal data format:
# 2- and 4-byte elements, or BFP8_b's 64 shared exponents + 1024 mantissa bytes.
TILE_BYTES = {"bf16": 2048, "f32": 4096, "bfp8": 1088}
DATA_FORMATS = {"bf16": "Float16_b", "f32": "Float32", "bfp8": "Bfp8_b"}


def tile_bytes(dtype: str) -> int:
    """Size of one 32x32 tile (one DFB/tensor page) of ``dtype`` in bytes."""
    return TILE_BYTES[dtype]


@dataclass(frozen=True)
class Target:
    """Capacities of one target's Tensix node and grid."""

    name: str
    # Processor slots per kernel kind, in assignment order.
    slots: dict[str, tuple[str, ...]]
    l1_bytes: int
    dfb_count: int
    # DST capacity in tiles in half-sync mode: (16-bit DST, fp32 DST).
    dst_half_sync_tiles: tuple[int, int]
    # Full grid as (x, y) = (columns, rows) of nodes.
    full_grid: tuple[int, int]
    # The NOC coordinates of each logical column and row of the worker grid, as
    # TT-Metal's host translates them (worker_core_from_logical_core): Wormhole's
    # translated coordinates start at (18, 18); Blackhole's are its NOC 0
    # coordinates, columns 8 and 9 holding no worker nodes.
    noc_columns: tuple[int, ...] = ()
    noc_rows: tuple[int, ...] = ()

    def noc_coord(self, node: tuple[int, int]) -> tuple[int, int]:
        """The NOC coordinates of logical node ``(x, y)``."""
        return self.noc_columns[node[0]], self.noc_rows[node[1]]

    def kernels_per_kind(self, kind: str) -> int:
        """How many logical kernels of ``kind`` one node can run."""
        return len(self.slots[kind])

    def dst_tiles(self, *, fp32: bool, full_sync: bool) -> int:
        """DST capacity in tiles: fp32 entries take twice the room of 16-bit ones, and
        full-sync mode (math and pack do not share DST in halves) has twice the tiles."""
        tiles = self.dst_half_sync_tiles[1 if fp32 else 0]
        return tiles * 2 if full_sync else tiles

    @property
    def max_dst_tiles(self) -> int:
        """The largest DST capacity of any mode (16-bit, full sync)."""
        return self.dst_tiles(fp32=False, full_sync=True)


_SLOTS = {COMPUTE: ("compute",), DATA_MOVEMENT: ("dm0", "dm1")}

#: The TT-Metal processor of each processor slot and the NOC its kernel uses
#: (TT-Metal's defaults: RISCV_0 is BRISC on NOC 0, RISCV_1 NCRISC on NOC 1;
#: a compute kernel runs on the three TRISCs and has no NOC).
PROCESSORS: dict[str, tuple[str, int | None]] = {
    "dm0": ("BRISC", 0),
    "dm1": ("NCRISC", 1),
    "compute": ("TRISC", None),
}
_DST = (8, 4)

TARGETS: dict[str, Target] = {
    "wormhole_b0": Target(
        name="wormhole_b0",
        slots=_SLOTS,
        l1_bytes=1464 * 1024,
        dfb_count=32,
        dst_half_sync_tiles=_DST,
        full_grid=(8, 8),
        noc_columns=tuple(range(18, 18 + 8)),
        noc_rows=tuple(range(18, 18 + 8)),
    ),
    "blackhole": Target(
        name="blackhole",
        slots=_SLOTS,
        l1_bytes=1536 * 1024,
        dfb_count=64,
        dst_half_sync_tiles=_DST,
        full_grid=(13, 10),
        noc_columns=(*range(1, 8), *range(10, 16)),
        noc_rows=tuple(range(2, 12)),
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


def parse_grid(grid: Any) -> tuple[int, ...] | str:
    """Normalise a grid request: ``"full"``, ``"4x4"``, ``"4,4"``, ``(4, 4)`` or ``4``.

    ``"auto"`` is ``"full"``, as in tt-lang-sim 1.1.6 (both take its default grid).
    """
    if isinstance(grid, str):
        text = grid.strip().lower()
        if text in ("full", "auto"):
            return "full"
        parts = text.replace("x", ",").split(",")
        try:
            return tuple(int(p) for p in parts if p.strip())
        except ValueError:
            raise ValueError(f"cannot parse grid '{grid}': write e.g. 4x4 or full") from None
    if isinstance(grid, int):
        return (grid,)
    return tuple(grid)


def parse_grid_flag(text: str | None) -> tuple[int, ...] | str | None:
    """The value of a ``--grid`` command-line flag (None when absent).

    Shared by ``ttlc`` and ``ttl run``; the ValueError names the flag.
    """
    if text is None:
        return None
    try:
        return parse_grid(text)
    except ValueError as e:
        raise ValueError(f"--grid: {e}") from None
