"""DRAM: banks of bytes with interleaved page placement.

An interleaved buffer has the same base address in every bank; page ``i``
lives in bank ``i % num_banks`` at ``base + (i // num_banks) * page_size``,
which is what the device-side ``TensorAccessor`` computes.

Host layout: each bank's address range is cut into stripes of STRIPE bytes,
and stripe ``s`` of every bank is stored side by side: bank ``b``, address
``a`` is host byte ``((a // STRIPE) * num_banks + b) * STRIPE + a % STRIPE``.
Buffers start on a stripe, so a buffer of STRIPE-byte pages (bf16 tiles) lies
contiguously on the host in page order: tensors are tilized straight into
DRAM and read back from it without staging copies, and a tensor touches only
its own bytes of host memory (fresh memory costs a page fault per 4 KiB).
Any page of at most STRIPE bytes is contiguous, so the NOC copies it with
one slice.
"""

from __future__ import annotations

import numpy as np

from ttl.runtime.errors import LaunchError

# Address 0 is never handed out so that a zero tensor address is caught.
DRAM_FIRST_ADDRESS = 0x1000
STRIPE_SHIFT = 11
STRIPE = 1 << STRIPE_SHIFT  # a bf16 tile
DRAM_ALIGNMENT = STRIPE

INITIAL_BANK_BYTES = 16 << 20

# DRAM banks per target (not in the shared slot table, ttl/targets.py), and the
# bytes of each: Wormhole B0 12 GiB in 12 banks, Blackhole 32 GiB in 8.
DRAM_BANKS = {"wormhole_b0": 12, "blackhole": 8}
DRAM_BANK_BYTES = {"wormhole_b0": 1 << 30, "blackhole": 4 << 30}


class DramAccessError(ValueError):
    """An access outside allocated DRAM."""


class Dram:
    """The device's DRAM banks and a bump allocator for interleaved buffers."""

    def __init__(self, num_banks: int, bank_bytes: int = 1 << 30):
        self.num_banks = num_banks
        self.bank_bytes = bank_bytes
        # np.zeros maps pages lazily: reserving ahead costs no memory until
        # written and saves copying the banks as tensors are allocated.
        self.host = np.zeros(num_banks * INITIAL_BANK_BYTES, dtype=np.uint8)
        # Slice copies through a memoryview are far cheaper than NumPy slice
        # assignment for tile-sized transfers (the NOC fast path).
        # (ignore: NumPy's stubs declare ndarray.__buffer__ only for Python >= 3.12;
        # ndarray supports the buffer protocol on every version.)
        self.host_view = memoryview(self.host)  # type: ignore[arg-type]
        self._next = DRAM_FIRST_ADDRESS
        self.end = DRAM_FIRST_ADDRESS  # end of the highest allocation, in every bank

    # ------------------------------------------------------------ allocation
    def allocate(self, num_pages: int, page_size: int) -> int:
        """Reserves an interleaved buffer; returns its bank base address (stripe-aligned)."""
        per_bank = -(-num_pages // self.num_banks)
        base = self._next
        end = base + per_bank * page_size
        if end > self.bank_bytes:
            raise LaunchError(
                f"a buffer of {num_pages} pages of {page_size} B does not fit the device "
                f"DRAM: {self.num_banks} banks of {self.bank_bytes >> 20} MiB, "
                f"{(base - DRAM_FIRST_ADDRESS) * self.num_banks} B already in use; use "
                "smaller tensors"
            )
        next_ = -(-end // DRAM_ALIGNMENT) * DRAM_ALIGNMENT
        need = next_ * self.num_banks  # host bytes of every bank up to next_
        if self.host.size < need:
            # Grow geometrically; np.zeros is lazily zeroed, so spare capacity is cheap,
            # and only the allocated part needs copying.
            used = base * self.num_banks
            try:
                grown = np.zeros(max(need, 2 * self.host.size), dtype=np.uint8)
            except MemoryError:
                raise LaunchError(
                    f"the host cannot hold the emulated DRAM for a buffer of {num_pages} "
                    f"pages of {page_size} B ({need >> 20} MiB of host memory)"
                ) from None
            grown[:used] = self.host[:used]
            self.host, self.host_view = grown, memoryview(grown)  # type: ignore[arg-type]
        self._next = next_
        self.end = end
        return base

    def mark(self) -> tuple[int, int]:
        """The allocator's state, to :meth:`release` everything allocated after it."""
        return self._next, self.end

    def release(self, mark: tuple[int, int]) -> None:
        """Frees every buffer allocated since ``mark`` (stack order: a launch's tensors)."""
        self._next, self.end = mark

    # --------------------------------------------------------- byte access
    def host_offset(self, bank: int, addr: int) -> int:
        """Where bank ``bank``, address ``addr`` is stored in :attr:`host`."""
        return ((addr >> STRIPE_SHIFT) * self.num_banks + bank) << STRIPE_SHIFT | (
            addr & (STRIPE - 1)
        )

    def read(self, bank: int, addr: int, size: int) -> np.ndarray:
        """A copy of the bytes [addr, addr + size) of ``bank``."""
        return np.concatenate(
            [self.host[o : o + n] for o, n in self._pieces(bank, addr, size)]
            or [np.empty(0, np.uint8)]
        )

    def write(self, bank: int, addr: int, data: np.ndarray) -> None:
        """Stores ``data`` (bytes) at [addr, addr + len) of ``bank``."""
        data = np.asarray(data).reshape(-1).view(np.uint8)
        done = 0
        for o, n in self._pieces(bank, addr, data.size):
            self.host[o : o + n] = data[done : done + n]
            done += n

    def _pieces(self, bank: int, addr: int, size: int) -> list[tuple[int, int]]:
        """Host (offset, length) pieces of a bank range; raises DramAccessError outside DRAM."""
        if not 0 <= bank < self.num_banks:
            raise DramAccessError(f"DRAM bank {bank} does not exist ({self.num_banks} banks)")
        if addr < DRAM_FIRST_ADDRESS or addr + size > self.end or size < 0:
            raise DramAccessError(
                f"DRAM bank {bank} range [{addr:#x}, {addr + size:#x}) is outside allocated "
                f"DRAM [{DRAM_FIRST_ADDRESS:#x}, {self.end:#x})"
            )
        pieces = []
        while size > 0:
            n = min(size, STRIPE - (addr & (STRIPE - 1)))
            pieces.append((self.host_offset(bank, addr), n))
            addr, size = addr + n, size - n
        return pieces

    # --------------------------------------------------------- whole buffers
    def pages_view(self, base: int, page_size: int, num_pages: int) -> np.ndarray | None:
        """The buffer's pages as a (num_pages, page_size) uint8 view of host memory, when
        they are contiguous there (STRIPE-byte pages); else None."""
        if page_size != STRIPE or base % STRIPE:
            return None
        start = base * self.num_banks
        return self.host[start : start + num_pages * page_size].reshape(num_pages, page_size)

    def page_location(self, base: int, page_size: int, page: int) -> tuple[int, int]:
        """(bank, address) of page ``page`` of the interleaved buffer at ``base``."""
        return page % self.num_banks, base + (page // self.num_banks) * page_size

    def write_pages(self, base: int, page_size: int, pages: np.ndarray) -> None:
        """Stores ``pages`` (num_pages, page_size) uint8 interleaved from ``base``."""
        pages = pages.reshape(len(pages), page_size)
        blocks = self._blocks(base, page_size, len(pages))
        if blocks is None:  # pages that do not fill whole stripes: page by page
            for i, page in enumerate(pages):
                self.write(*self.page_location(base, page_size, i), page)
            return
        for host, lo, hi in blocks:
            host[...] = pages[lo:hi].reshape(host.shape)

    def read_pages(
        self, base: int, page_size: int, num_pages: int, out: np.ndarray | None = None
    ) -> np.ndarray:
        """Loads ``num_pages`` interleaved pages from ``base`` as (num_pages, page_size) uint8
        (into ``out``, a contiguous uint8 buffer of that size, if given)."""
        out = (
            np.empty((num_pages, page_size), dtype=np.uint8)
            if out is None
            else out.reshape(num_pages, page_size)
        )
        blocks = self._blocks(base, page_size, num_pages)
        if blocks is None:
            for i in range(num_pages):
                out[i] = self.read(*self.page_location(base, page_size, i), page_size)
            return out
        for host, lo, hi in blocks:
            out[lo:hi].reshape(host.shape)[...] = host
        return out

    def _blocks(self, base: int, page_size: int, num_pages: int):
        """Host views of a buffer of whole-stripe pages, as [(view, first, end page)] where
        ``view`` has the shape of ``pages[first:end]`` split into stripes; None for pages
        that are not whole stripes."""
        k, rest = divmod(page_size, STRIPE)
        if rest or not k or base % STRIPE or num_pages <= 0:
            return None
        banks = self.num_banks
        rows = -(-num_pages // banks)
        start = base * banks
        # (page row, stripe of the page, bank, byte) -> (page row, bank, stripe, byte)
        host = self.host[start : start + rows * page_size * banks].reshape(rows, k, banks, STRIPE)
        host = host.transpose(0, 2, 1, 3)
        full, tail = divmod(num_pages, banks)
        blocks = [(host[:full], 0, full * banks)] if full else []
        if tail:
            blocks.append((host[full, :tail], full * banks, num_pages))
        return blocks

    def __repr__(self) -> str:
        used = self._next - DRAM_FIRST_ADDRESS
        return f"Dram(banks={self.num_banks}, allocated={used} bytes per bank)"
