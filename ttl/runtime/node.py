"""A Tensix node: L1, the register page (node info, DFBs, semaphores) and its harts."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ttl.runtime import memmap
from ttl.runtime.dfb import DFBConfig, DFBState
from ttl.runtime.errors import DeviceFault
from ttl.runtime.timeline import DfbCount


class Node:
    """One node of the grid. L1 and the register page are shared by its harts."""

    def __init__(
        self,
        coord: tuple[int, int],
        grid: tuple[int, int],
        l1_bytes: int,
        dfb_count: int,
        dram_banks: int,
        memory: memmap.DeviceMemory,
        noc_coord: tuple[int, int] | None = None,
    ):
        """Node ``coord`` of ``grid``; its L1 and register page are its slots of ``memory``."""
        if l1_bytes % 4096:
            raise ValueError(f"L1 size {l1_bytes} is not a multiple of 4 KiB")
        self.coord, self.grid = coord, grid
        self.noc_coord = noc_coord or coord  # where the NOC addresses it
        self.index = coord[1] * grid[0] + coord[0]  # its slot in the device's arenas
        self.semaphore_names: Sequence[str] = ()  # TT-Lang names by index, for reports
        self.l1 = memory.l1.slot(self.index)
        self.l1_view = memoryview(self.l1)  # cheap slice copies (NOC fast path)
        self._l1_dirty = False  # a launch ran since L1 was zeroed
        self.regs = memory.regs.slot(self.index)
        self.regs32 = self.regs.view(np.uint32)
        self.dfb_count = dfb_count
        self.dfbs = [DFBState(self.regs32, i) for i in range(dfb_count)]
        self.harts: dict = {}  # slot name -> Hart
        # Profiling: the cycle of a store to a DFB counter or semaphore whose effect
        # on waiting harts is not checked yet (see wake).
        self.sync_cycle: int | None = None
        # Tracing only (see start_counting): every change of a DFB counter.
        self.dfb_counts: list[DfbCount] | None = None
        self._counters: dict[int, tuple[int, int]] = {}  # DFB -> (received, acked) last seen
        self._info = (coord[0], coord[1], grid[0], grid[1], dram_banks, l1_bytes, dfb_count)

    def reset(self, dfbs: list[DFBConfig], dfb_bases: dict[int, int], semaphores: list[int]):
        """Prepares the node for a launch: clears L1, writes node info, DFB table, semaphores."""
        if self._l1_dirty:  # a fresh buffer is zero
            memmap.zero(self.l1)
        self._l1_dirty = True
        self.regs[:] = 0
        self.harts = {}
        self.sync_cycle = None
        self.dfb_counts = None
        info = memmap.NODE_INFO_OFFSET // 4
        self.regs32[info : info + len(self._info)] = self._info
        self.regs32[info + memmap.INFO_SEM_COUNT] = len(semaphores)
        self.regs32[info + memmap.INFO_NOC_X] = self.noc_coord[0]
        self.regs32[info + memmap.INFO_NOC_Y] = self.noc_coord[1]
        for cfg in dfbs:
            self.dfbs[cfg.index].configure(cfg, dfb_bases[cfg.index])
        sem = memmap.SEM_OFFSET // 4
        self.regs32[sem : sem + len(semaphores)] = (
            np.asarray(semaphores, dtype=np.uint64) & 0xFFFFFFFF
        )

    def wake(self, cycle: int | None = None) -> None:
        """Profiling: a store at ``cycle`` (default: :attr:`sync_cycle`) changed DFB counters
        or semaphores; blocked harts whose wait it satisfied record that cycle."""
        if cycle is None:
            cycle, self.sync_cycle = self.sync_cycle, None
        for hart in self.harts.values():
            hart.note_satisfiable(cycle)
        if self.dfb_counts is not None and cycle is not None:
            self._count_dfbs(cycle)

    def start_counting(self) -> None:
        """Tracing: records every DFB counter change from now on (:attr:`dfb_counts`),
        starting with the configured DFBs' counters at cycle 0."""
        self.dfb_counts = []
        self._counters = {d.index: (-1, -1) for d in self.dfbs if d.configured}
        self._count_dfbs(0)

    def _count_dfbs(self, cycle: int) -> None:
        counts = self.dfb_counts
        assert counts is not None  # wake() checks
        for index, (rec0, ack0) in self._counters.items():
            dfb = self.dfbs[index]
            rec, ack = dfb.received, dfb.acked
            if rec != rec0 or ack != ack0:
                counts.append(DfbCount(self.coord, index, cycle, (rec - ack) & 0xFFFFFFFF))
                self._counters[index] = (rec, ack)

    def resolve(self, addr: int, size: int) -> np.ndarray:
        """The node's bytes [addr, addr + size) in L1 or the register page."""
        if size < 0:
            raise DeviceFault(f"negative transfer size {size}")
        if addr >= memmap.L1_BASE and addr + size <= memmap.L1_BASE + self.l1.size:
            return self.l1[addr - memmap.L1_BASE : addr - memmap.L1_BASE + size]
        regs = memmap.NODE_REGS_BASE
        if regs <= addr and addr + size <= regs + self.regs.size:
            return self.regs[addr - regs : addr - regs + size]
        x, y = self.coord
        raise DeviceFault(
            f"address range [{addr:#x}, {addr + size:#x}) is outside node ({x},{y})'s L1 "
            f"[0, {self.l1.size:#x}) and register page"
        )

    def read_word(self, addr: int) -> int:
        return int(self.resolve(addr, 4).view(np.uint32)[0])

    def describe(self) -> str:
        x, y = self.coord
        lines = [f"node ({x},{y}): L1 {self.l1.size} B"]
        lines += ["  " + d.describe() for d in self.dfbs if d.configured]
        lines += [f"  {slot}: {hart.describe()}" for slot, hart in sorted(self.harts.items())]
        return "\n".join(lines)

    __str__ = describe
