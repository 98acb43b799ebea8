"""DRAM: banks of bytes with interleaved page placement.

An interleaved buffer has the same base address in every bank; page ``i``
lives in bank ``i % num_banks`` at ``base + (i // num_banks) * page_size``,
which is what the device-side ``TensorAccessor`` computes.
"""

from __future__ import annotations

import numpy as np

# Address 0 is never handed out so that a zero tensor address is caught.
DRAM_FIRST_ADDRESS = 0x1000
DRAM_ALIGNMENT = 64

INITIAL_BANK_BYTES = 16 << 20

# DRAM banks per target (not in the shared slot table, ttl/targets.py).
DRAM_BANKS = {"wormhole_b0": 12, "blackhole": 8}


class DramAccessError(ValueError):
    """An access outside allocated DRAM."""


class Dram:
    """The device's DRAM banks and a bump allocator for interleaved buffers."""

    def __init__(self, num_banks: int):
        self.num_banks = num_banks
        # np.zeros maps pages lazily: reserving ahead costs no memory until
        # written and saves copying the banks as tensors are allocated.
        self.banks = [np.zeros(INITIAL_BANK_BYTES, dtype=np.uint8) for _ in range(num_banks)]
        # memoryviews of the banks: slice copies through them are ~9x cheaper than
        # NumPy slice assignment for tile-sized transfers (the NOC fast path).
        self.bank_views = [memoryview(b) for b in self.banks]
        self._next = DRAM_FIRST_ADDRESS
        self.end = DRAM_FIRST_ADDRESS  # end of the highest allocation, in every bank

    def allocate(self, num_pages: int, page_size: int) -> int:
        """Reserves an interleaved buffer; returns its bank base address."""
        per_bank = -(-num_pages // self.num_banks)
        base = self._next
        end = base + per_bank * page_size
        self._next = -(-end // DRAM_ALIGNMENT) * DRAM_ALIGNMENT
        if self.banks[0].size < end:
            # Grow geometrically; np.zeros is lazily zeroed, so spare capacity is cheap.
            size = max(end, 2 * self.banks[0].size)
            for i, bank in enumerate(self.banks):
                grown = np.zeros(size, dtype=np.uint8)
                grown[: bank.size] = bank
                self.banks[i] = grown
            self.bank_views = [memoryview(b) for b in self.banks]
        self.end = end
        return base

    def mark(self) -> tuple[int, int]:
        """The allocator's state, to :meth:`release` everything allocated after it."""
        return self._next, self.end

    def release(self, mark: tuple[int, int]) -> None:
        """Frees every buffer allocated since ``mark`` (stack order: a launch's tensors)."""
        self._next, self.end = mark

    def write_pages(self, base: int, page_size: int, pages: np.ndarray) -> None:
        """Stores ``pages`` (num_pages, page_size) uint8 interleaved from ``base``."""
        pages = pages.reshape(len(pages), page_size)
        for bank in range(min(self.num_banks, len(pages))):
            chunk = pages[bank :: self.num_banks]
            self.view(bank, base, chunk.size).reshape(chunk.shape)[:] = chunk

    def read_pages(self, base: int, page_size: int, num_pages: int,
                   out: np.ndarray | None = None) -> np.ndarray:
        """Loads ``num_pages`` interleaved pages from ``base`` as (num_pages, page_size) uint8
        (into ``out``, a contiguous uint8 buffer of that size, if given)."""
        if out is None:
            out = np.empty((num_pages, page_size), dtype=np.uint8)
        else:
            out = out.reshape(num_pages, page_size)
        for bank in range(min(self.num_banks, num_pages)):
            count = len(range(bank, num_pages, self.num_banks))
            out[bank :: self.num_banks] = self.view(bank, base, count * page_size).reshape(
                count, page_size
            )
        return out

    def view(self, bank: int, addr: int, size: int) -> np.ndarray:
        """The bytes [addr, addr + size) of ``bank``; raises DramAccessError outside DRAM."""
        if not 0 <= bank < self.num_banks:
            raise DramAccessError(f"DRAM bank {bank} does not exist ({self.num_banks} banks)")
        if addr < DRAM_FIRST_ADDRESS or addr + size > self.end or size < 0:
            raise DramAccessError(
                f"DRAM bank {bank} range [{addr:#x}, {addr + size:#x}) is outside allocated "
                f"DRAM [{DRAM_FIRST_ADDRESS:#x}, {self.end:#x})"
            )
        return self.banks[bank][addr : addr + size]

    def __repr__(self) -> str:
        used = self._next - DRAM_FIRST_ADDRESS
        return f"Dram(banks={self.num_banks}, allocated={used} bytes per bank)"
