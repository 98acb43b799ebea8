"""L1-sharded tensors: which node holds which page, and the descriptors kernels read.

A tiled tensor's pages (one per tile, row-major tile order) form a 2-D page
grid: the outer dimensions and the tile rows fold into its rows, the tile
columns are its columns (TT-Metal's 2-D sharding). A :class:`ShardLayout`
cuts that grid into shards of ``shard_pages`` pages, numbered row-major over
the shard grid; shard ``k`` lives in the L1 of node ``cores[k]``, its pages
row-major, at an address the launch reserves on every node after the DFBs.
Height sharding is a shard grid of one column, width sharding one of one
row, block sharding any other; the host (``ttl.host.ttnn.sharding``) maps a
ttnn shard spec and its orientation to this list of nodes.

Kernels find pages through a descriptor in the node register page
(``device_map.h``): a sharded tensor's runtime arg is the descriptor's address
instead of a DRAM base, so the same compiled kernel reads interleaved and
sharded tensors (docs/runtime.md, "L1-sharded tensors").
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ttl.runtime import memmap
from ttl.runtime.errors import DeviceFault, LaunchError
from ttl.runtime.tiles import TILE, DataFormat

Coord = tuple[int, int]

DESCRIPTOR_BASE = memmap.NODE_REGS_BASE + memmap.SHARD_DESC_OFFSET
DESCRIPTOR_END = DESCRIPTOR_BASE + memmap.SHARD_DESC_SIZE


def page_grid(shape: tuple[int, ...]) -> tuple[int, int]:
    """(rows, columns) of the 2-D page grid of a tiled tensor of ``shape``."""
    return math.prod(shape[:-1]) // TILE, shape[-1] // TILE


@dataclass(frozen=True)
class ShardLayout:
    """How an L1-sharded tensor's pages are spread: shard shape in pages, node per shard."""

    shard_pages: tuple[int, int]  # (rows, columns) of pages in one shard
    cores: tuple[Coord, ...]  # the node of each shard, shards row-major over the shard grid

    def shard_grid(self, shape: tuple[int, ...]) -> tuple[int, int]:
        """(rows, columns) of shards of a tensor of ``shape``; a LaunchError unless they tile it."""
        rows, cols = page_grid(shape)
        sr, sc = self.shard_pages
        if sr < 1 or sc < 1 or rows % sr or cols % sc:
            raise LaunchError(
                f"shards of {sr}x{sc} pages do not tile the {rows}x{cols} page grid of a "
                f"tensor of shape {shape}"
            )
        grid = (rows // sr, cols // sc)
        if grid[0] * grid[1] != len(self.cores):
            raise LaunchError(
                f"a tensor of shape {shape} has {grid[0] * grid[1]} shards of {sr}x{sc} "
                f"pages but its layout names {len(self.cores)} nodes"
            )
        return grid

    @property
    def descriptor_bytes(self) -> int:
        return 4 * (memmap.SHARD_HEADER_WORDS + len(self.cores))

    def shard_bytes(self, page_size: int) -> int:
        """L1 bytes one node's shard takes."""
        return self.shard_pages[0] * self.shard_pages[1] * page_size

    def pages_by_shard(self, shape: tuple[int, ...]) -> np.ndarray:
        """Tensor page numbers, one row per shard, in the shard's (row-major) page order."""
        rows, cols = page_grid(shape)
        gr, gc = self.shard_grid(shape)
        sr, sc = self.shard_pages
        ids = np.arange(rows * cols).reshape(gr, sr, gc, sc)
        return ids.transpose(0, 2, 1, 3).reshape(gr * gc, sr * sc)

    def descriptor(
        self, shape: tuple[int, ...], l1_base: int, noc_coords: list[tuple[int, int]]
    ) -> np.ndarray:
        """The descriptor words kernels read (device_map.h, TTL_SHARD_*); ``noc_coords`` are
        the NOC coordinates of :attr:`cores`."""
        _, grid_cols = self.shard_grid(shape)
        words = np.zeros(memmap.SHARD_HEADER_WORDS + len(self.cores), np.uint32)
        words[memmap.SHARD_L1_BASE] = l1_base
        words[memmap.SHARD_WIDTH_PAGES] = page_grid(shape)[1]
        words[memmap.SHARD_ROWS], words[memmap.SHARD_COLS] = self.shard_pages
        words[memmap.SHARD_GRID_COLS] = grid_cols
        words[memmap.SHARD_COUNT] = len(self.cores)
        words[memmap.SHARD_HEADER_WORDS :] = [x | y << 8 for x, y in noc_coords]
        return words


@dataclass
class ShardedTensor:
    """A tiled tensor whose shards live in nodes' L1 during a launch.

    ``pages`` is the host copy of its tiles (uint8, one row per page): the launch
    places it into the nodes' L1 and gathers it back when the kernels are done.
    ``descriptor`` is the register-page address kernels get as the tensor's arg.
    """

    shape: tuple[int, ...]
    format: DataFormat
    layout: ShardLayout
    descriptor: int
    pages: np.ndarray
    l1_base: int = 0  # assigned by the launch

    @property
    def page_size(self) -> int:
        return self.format.tile_bytes

    @property
    def num_pages(self) -> int:
        return len(self.pages)

    def place(self, nodes: dict) -> None:
        """Writes the descriptor on every node and each shard into its node's L1."""
        noc_coords = [nodes[core].noc_coord for core in self.layout.cores]
        words = self.layout.descriptor(self.shape, self.l1_base, noc_coords)
        at = (self.descriptor - memmap.NODE_REGS_BASE) // 4
        for node in nodes.values():
            node.regs32[at : at + len(words)] = words
        for shard, ids in self._shards(nodes):
            shard[:] = self.pages[ids].reshape(-1)

    def gather(self, nodes: dict) -> None:
        """Reads every shard back from its node's L1 into :attr:`pages`."""
        for shard, ids in self._shards(nodes):
            self.pages[ids] = shard.reshape(len(ids), -1)

    def _shards(self, nodes: dict) -> list[tuple[np.ndarray, np.ndarray]]:
        """Each shard's bytes in its node's L1, with the tensor pages it holds."""
        size = self.layout.shard_bytes(self.page_size)
        by_shard = self.layout.pages_by_shard(self.shape)
        return [
            (nodes[core].resolve(self.l1_base, size), ids)
            for core, ids in zip(self.layout.cores, by_shard, strict=True)
        ]


def check_cores(layout: ShardLayout, grid: tuple[int, int], what: str) -> None:
    """A LaunchError unless every shard's node is in the ``grid`` and none holds two shards."""
    for x, y in layout.cores:
        if not (0 <= x < grid[0] and 0 <= y < grid[1]):
            raise LaunchError(
                f"{what}: a shard lives on node ({x},{y}), outside the launch's "
                f"{grid[0]}x{grid[1]} grid"
            )
    if len(set(layout.cores)) != len(layout.cores):
        raise LaunchError(f"{what}: two shards live on the same node")


def place_in_l1(tensors: list[ShardedTensor], start: int, l1_bytes: int, target: str) -> None:
    """Assigns each sharded tensor its L1 address (the same on every node) from ``start``;
    checks their descriptors fit the register page's descriptor area."""
    addr = start
    for t in tensors:
        t.l1_base = addr
        addr += -(-t.layout.shard_bytes(t.page_size) // 32) * 32
    if addr > l1_bytes:
        raise LaunchError(
            f"the DFBs ({start} B) and the L1-sharded tensors' shards ({addr - start} B) need "
            f"{addr} bytes of L1 per node but a {target} node has {l1_bytes}: use smaller "
            "shards, more nodes, or DRAM tensors"
        )
    end = max((t.descriptor + t.layout.descriptor_bytes for t in tensors), default=0)
    if end > DESCRIPTOR_END:
        raise LaunchError(
            f"the L1-sharded tensors' descriptors need {end - DESCRIPTOR_BASE} bytes but a node "
            f"has {memmap.SHARD_DESC_SIZE}: pass fewer sharded tensors or shard over fewer nodes"
        )


def read_pages(regs32: np.ndarray, descriptor: int, page_size: int, count: int, nodes: dict):
    """Pages 0..count-1 of the sharded tensor whose descriptor is at ``descriptor`` in a
    node register page (``regs32``), found as the device's address generation finds them;
    ``nodes`` maps NOC coordinates to nodes."""
    at = (descriptor - memmap.NODE_REGS_BASE) // 4
    if not DESCRIPTOR_BASE <= descriptor < DESCRIPTOR_END - memmap.SHARD_HEADER_WORDS * 4:
        raise DeviceFault(f"{descriptor:#x} is not an L1-sharded tensor's descriptor")
    base, width, rows, cols, grid_cols, shards = (int(w) for w in regs32[at : at + 6])
    cores = regs32[at + memmap.SHARD_HEADER_WORDS : at + memmap.SHARD_HEADER_WORDS + shards]
    out = np.empty((count, page_size), np.uint8)
    for page in range(count):
        row, col = divmod(page, max(width, 1))
        shard = (row // max(rows, 1)) * grid_cols + col // max(cols, 1)
        if shard >= shards:
            raise DeviceFault(f"page {page} of an L1-sharded tensor is outside its shards")
        core = int(cores[shard])
        node = nodes[(core & 0xFF, core >> 8 & 0xFF)]
        addr = base + ((row % rows) * cols + col % cols) * page_size
        out[page] = node.resolve(addr, page_size)
    return out
