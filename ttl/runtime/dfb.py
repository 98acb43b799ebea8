"""Dataflow buffers: launch-time configuration and the live counters.

A DFB's counters live in the node's register page (see memmap) and are moved
by the kernels' own RISC-V code, as TT-Metal's circular-buffer API does:
the producer advances ``received`` and the write pointer, the consumer
advances ``acknowledged`` and the read pointer.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ttl.runtime import memmap
from ttl.runtime.tiles import DataFormat, data_format

U32 = 0xFFFFFFFF


@dataclass(frozen=True)
class DFBConfig:
    """One DFB of a launch: physical index, page size in bytes, block shape and format."""

    index: int
    page_size: int
    pages_per_block: int
    block_count: int
    data_format: str = "bf16"
    name: str = ""  # the TT-Lang name (manifest), for reports
    # A tensor-backed DFB (ttl.make_tensor_backed_dfb): its pages are this L1-sharded
    # tensor's shard on each node, from ``byte_offset``; it takes no L1 of its own.
    backing: str | None = None
    byte_offset: int = 0

    @property
    def num_pages(self) -> int:
        return self.pages_per_block * self.block_count

    @property
    def size(self) -> int:
        return self.page_size * self.num_pages

    @property
    def format(self) -> DataFormat:
        return data_format(self.data_format)


class DFBState:
    """Live view of one DFB's words in a node's register page."""

    def __init__(self, regs32: np.ndarray, index: int):
        start = (memmap.DFB_TABLE_OFFSET // 4) + index * memmap.DFB_WORDS
        self.index = index
        self.words = regs32[start : start + memmap.DFB_WORDS]
        self.name = ""  # of the configured DFB, for reports

    def configure(self, cfg: DFBConfig, base: int) -> None:
        w = self.words
        w[:] = 0
        w[memmap.DFB_BASE] = base
        w[memmap.DFB_SIZE] = cfg.size
        w[memmap.DFB_PAGE_SIZE] = cfg.page_size
        w[memmap.DFB_NUM_PAGES] = cfg.num_pages
        w[memmap.DFB_FORMAT] = cfg.format.code
        w[memmap.DFB_WR_PTR] = base
        w[memmap.DFB_RD_PTR] = base
        w[memmap.DFB_CONFIGURED] = 1
        self.name = cfg.name

    @property
    def configured(self) -> bool:
        return bool(self.words[memmap.DFB_CONFIGURED])

    @property
    def capacity(self) -> int:
        return int(self.words[memmap.DFB_NUM_PAGES])

    @property
    def received(self) -> int:
        return int(self.words[memmap.DFB_RECEIVED])

    @property
    def acked(self) -> int:
        return int(self.words[memmap.DFB_ACKED])

    @property
    def used(self) -> int:
        """Pages pushed and not yet popped."""
        return (self.received - self.acked) & U32

    def can_reserve(self, num_pages: int) -> bool:
        return self.capacity - self.used >= num_pages

    def can_wait(self, num_pages: int) -> bool:
        return self.used >= num_pages

    def describe(self) -> str:
        w = self.words
        if not self.configured:
            return f"DFB {self.index}: not configured"
        return (
            f"DFB {self.index}: {self.capacity} pages of {int(w[memmap.DFB_PAGE_SIZE])} B, "
            f"pages received {self.received}, acknowledged {self.acked} "
            f"({self.used} filled, {self.capacity - self.used} free), "
            f"wr_ptr {int(w[memmap.DFB_WR_PTR]):#x}, rd_ptr {int(w[memmap.DFB_RD_PTR]):#x}"
        )

    __str__ = describe
