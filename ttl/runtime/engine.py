"""One Unicorn CPU per kernel image, shared by every hart running that image.

A hart sees the node memory map of :mod:`ttl.runtime.memmap`: its node's L1
and register page, its own LOCAL, argument page and coprocessor queue, all at
the same guest addresses on every hart. Rather than one Unicorn engine per
hart (at least 0.8 MiB and a millisecond each, 192 on a full Wormhole grid),
the harts that run one kernel image share an engine, in RISC-V user mode with
Sv32 paging:

- every buffer (each node's L1 and register page, each hart's LOCAL, argument
  page and queue) is mapped once at its own *physical* address;
- each hart has page tables that map its virtual node map onto those buffers;
  a node's L1 table is shared by the engine's harts on that node;
- the image's read-only code pages are one physical copy, so Unicorn
  translates the kernel once per device instead of once per hart;
- switching harts saves and restores the CPU context (registers, ``satp``)
  and flushes the TLB, about a microsecond.

Why one engine per image and not one per device: with one engine for all
harts, Unicorn 2.1.4 ran one hart's translated code for another hart's
*different* code at the same virtual address after a switch, TLB flushed
(seen with code in mappings of 128 KiB or more; QEMU finds translated code
by virtual address first, in its jump cache). Harts of one image run the
same code at the same addresses, so whichever translation is found is right.

Hooks are the engine's: the MMIO doorbell page, CPU traps and the profiling
hooks call the hart that is running (:attr:`Engine.current`). A page fault
arrives as a trap (causes 12, 13 and 15); the hart decodes the faulting
access itself (Unicorn does not expose ``stval``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np
from unicorn import (
    UC_ARCH_RISCV,
    UC_HOOK_BLOCK,
    UC_HOOK_INTR,
    UC_HOOK_MEM_WRITE,
    UC_MODE_RISCV32,
    UC_PROT_ALL,
    UC_PROT_EXEC,
    UC_PROT_READ,
    UC_PROT_WRITE,
    Uc,
)
from unicorn.riscv_const import UC_RISCV_REG_PRIV, UC_RISCV_REG_SATP
from unicorn.unicorn_const import UC_CTL_IO_WRITE, UC_CTL_TLB_FLUSH

from ttl.runtime import memmap, unicorn_raw
from ttl.runtime.elfinfo import ElfImage

if TYPE_CHECKING:
    from ttl.runtime.node import Node

PAGE = 0x1000
# Sv32 page-table entry bits.
PTE_V, PTE_R, PTE_W, PTE_X, PTE_U, PTE_A, PTE_D = 1, 2, 4, 8, 16, 64, 128
_RW = PTE_V | PTE_R | PTE_W | PTE_U | PTE_A | PTE_D
_RWX = _RW | PTE_X
_RX = PTE_V | PTE_R | PTE_X | PTE_U | PTE_A
_SATP_SV32 = 1 << 31
_USER_MODE, _MACHINE_MODE = 0, 3

# Virtual 4 MiB windows (root-table entries) a hart uses, and the pages in them.
_L1_WINDOW = memmap.L1_BASE >> 22
_LOCAL_WINDOW = memmap.LOCAL_BASE >> 22
_RUNTIME_WINDOW = memmap.NODE_REGS_BASE >> 22
assert memmap.LOCAL_BASE + memmap.LOCAL_SIZE <= (_LOCAL_WINDOW + 1) << 22
assert memmap.MMIO_BASE + memmap.MMIO_SIZE <= (_RUNTIME_WINDOW + 1) << 22
_LOCAL_PAGES = memmap.LOCAL_SIZE // PAGE
_GUARD_PAGE = (memmap.STACK_GUARD - memmap.LOCAL_BASE) // PAGE

TCG_BUFFER_BYTES = 1 << 20


def _page_index(addr: int) -> int:
    """The entry of ``addr`` in its level-0 table."""
    return (addr >> 12) & 0x3FF


def _pte(phys: int, flags: int) -> int:
    return (phys >> 12) << 10 | flags


def _ptes(phys: int, pages: int, flags: int) -> np.ndarray:
    """Entries mapping ``pages`` consecutive pages from ``phys`` (uint32)."""
    return (np.arange(pages, dtype=np.uint32) + (phys >> 12) << 10) | flags


class Hart(Protocol):
    """What the engine uses of a hart (ttl.runtime.hart.Hart, which imports this module)."""

    node: Node
    index: int  # its slot in the device's hart arenas
    space: HartSpace  # its address space on the engine running it

    def on_mmio_write(self, offset: int, size: int, value: int) -> None: ...
    def on_trap(self, cause: int) -> None: ...
    def on_block(self, size: int) -> None: ...
    def on_sync_write(self) -> None: ...


@dataclass
class HartSpace:
    """A hart's address space on one engine."""

    tables: np.ndarray  # root, LOCAL and runtime-page tables (uint32 entries)
    context: object  # the hart's CPU context while another hart runs (UcContext)


class Engine:
    """The CPU of one kernel image: maps buffers, builds hart address spaces, switches harts."""

    def __init__(self, image: ElfImage, memory: memmap.DeviceMemory):
        """An engine for ``image`` over the device's ``memory`` (each arena is mapped
        once, at a physical address of its own)."""
        uc = self.uc = Uc(UC_ARCH_RISCV, UC_MODE_RISCV32)
        # Kernels are small; the 1 GiB default code cache would reserve 1 GiB of
        # address space per engine, and 1 MiB (QEMU's minimum) never gets a transparent
        # huge page the kernel must zero first. Code that outgrows it is retranslated.
        # (ignore: unicorn/unicorn.py picks its Python 2 or 3 module with a version
        # check mypy does not evaluate, and the Python 2 Uc lacks this.)
        uc.ctl_set_tcg_buffer_size(TCG_BUFFER_BYTES)  # type: ignore[attr-defined]
        self.image = image
        self.current: Hart | None = None
        self._next_phys = PAGE  # physical page 0 stays unmapped
        self._keep: list[np.ndarray] = []  # buffers mapped for the engine's lifetime
        rw = UC_PROT_READ | UC_PROT_WRITE
        self.memory = memory
        # Node register pages side by side, so one profiling hook covers them all.
        self._regs_phys = self._map(memory.regs.buffer, rw)
        self._mmio_phys = self._reserve(memmap.MMIO_SIZE)
        self._l1_phys = self._map(memory.l1.buffer)
        self._local_phys = self._map(memory.local.buffer)
        self._args_phys = self._map(memory.args.buffer, rw)
        self._queue_phys = self._map(memory.queue.buffer, rw)
        # Page tables: per hart root, LOCAL and runtime-page tables; per node its L1's.
        self._hart_tables = memmap.Arena(memory.nodes * memory.slots, 3 * PAGE)
        self._node_tables = memmap.Arena(memory.nodes, PAGE)
        self._hart_tables_phys = self._map(self._hart_tables.buffer, rw)
        self._node_tables_phys = self._map(self._node_tables.buffer, rw)
        self._nodes: set[int] = set()  # nodes whose L1 table is built
        self._mmio_callback = unicorn_raw.map_write_only(
            uc, self._mmio_phys, memmap.MMIO_SIZE, self._on_mmio_write
        )
        uc.hook_add(UC_HOOK_INTR, self._on_interrupt)
        self.start = unicorn_raw.starter(uc)
        # The image's shared code and read-only data, from virtual address code_base.
        self.code: np.ndarray | None = None
        self.code_base = memmap.LOCAL_BASE
        self._code = self._share_code(image)  # (first LOCAL page, physical address, pages)
        # The segments each hart copies into its LOCAL (all, if the code is not shared).
        self.private_segments = (
            [s for s, ro in zip(image.segments, image.read_only, strict=True) if not ro]
            if self._code[2]
            else list(image.segments)
        )
        self._profile_hooks: tuple[int, int] | None = None
        self.counted = False  # runs are counted quanta (see Hart.run)
        self._counted_runs = False  # translated code carries Unicorn's counting hook

    # ----------------------------------------------------------- physical memory
    def _reserve(self, nbytes: int) -> int:
        phys = self._next_phys
        self._next_phys += -(-nbytes // PAGE) * PAGE
        return phys

    def _map(self, buffer: np.ndarray, prot: int = UC_PROT_ALL, phys: int | None = None) -> int:
        """Maps ``buffer`` (a :func:`memmap.page_aligned_buffer`) at a physical address."""
        if phys is None:
            phys = self._reserve(buffer.size)
        self.uc.mem_map_ptr(phys, -(-buffer.size // PAGE) * PAGE, prot, buffer.ctypes.data)
        return phys

    def _share_code(self, image: ElfImage) -> tuple[int, int, int]:
        """One physical copy of ``image``'s read-only segments (its code), unless a
        writable segment shares one of their pages (then each hart copies everything)."""
        code = [s for s, ro in zip(image.segments, image.read_only, strict=True) if ro]
        if not code:
            return 0, 0, 0
        lo = min(addr for addr, _, _ in code) // PAGE * PAGE
        hi = -(-max(addr + size for addr, _, size in code) // PAGE) * PAGE
        writable = [s for s, ro in zip(image.segments, image.read_only, strict=True) if not ro]
        if any(addr < hi and addr + size > lo for addr, _, size in writable):
            return 0, 0, 0
        buf = memmap.page_aligned_buffer(hi - lo)
        for addr, data, _ in code:
            buf[addr - lo : addr - lo + len(data)] = np.frombuffer(data, dtype=np.uint8)
        self._keep.append(buf)
        self.code, self.code_base = buf, lo
        phys = self._map(buf, UC_PROT_READ | UC_PROT_EXEC)
        return (lo - memmap.LOCAL_BASE) // PAGE, phys, (hi - lo) // PAGE

    # ------------------------------------------------------------ address spaces
    def _node_table(self, node: Node) -> int:
        """The physical address of ``node``'s L1 page table (built on first use)."""
        index, memory = node.index, self.memory
        table = self._node_tables_phys + index * self._node_tables.stride
        if index not in self._nodes:
            pages = node.l1.size // PAGE
            entries = self._node_tables.slot(index).view(np.uint32)
            entries[:pages] = _ptes(self._l1_phys + index * memory.l1.stride, pages, _RWX)
            self._nodes.add(index)
        return table

    def attach(self, hart: Hart) -> HartSpace:
        """Builds ``hart``'s address space on this engine, with the image's code."""
        index, memory = hart.index, self.memory
        root = self._hart_tables_phys + index * self._hart_tables.stride
        tables = self._hart_tables.slot(index).view(np.uint32)
        tables[_L1_WINDOW] = _pte(self._node_table(hart.node), PTE_V)
        tables[_LOCAL_WINDOW] = _pte(root + PAGE, PTE_V)
        tables[_RUNTIME_WINDOW] = _pte(root + 2 * PAGE, PTE_V)
        local = self._local_phys + index * memory.local.stride
        regs_phys = self._regs_phys + hart.node.index * memory.regs.stride
        args = self._args_phys + index * memory.args.stride
        queue = self._queue_phys + index * memory.queue.stride
        # LOCAL: the image's shared code, the hart's own pages (data, stack) and an
        # unmapped guard page below the stack.
        ptes = tables[1024 : 1024 + _LOCAL_PAGES]
        ptes[:] = _ptes(local, _LOCAL_PAGES, 0)
        ptes[:_GUARD_PAGE] |= _RWX
        ptes[_GUARD_PAGE] = 0
        ptes[_GUARD_PAGE + 1 :] |= _RW
        first, phys, pages = self._code
        if pages:
            ptes[first : first + pages] = _ptes(phys, pages, _RX)
        runtime = tables[2048:]
        for base, phys, size in (
            (memmap.NODE_REGS_BASE, regs_phys, memmap.NODE_REGS_SIZE),
            (memmap.HART_ARGS_BASE, args, memmap.HART_ARGS_SIZE),
            (memmap.COP_QUEUE_BASE, queue, memmap.COP_QUEUE_SIZE),
            (memmap.MMIO_BASE, self._mmio_phys, memmap.MMIO_SIZE),
        ):
            for off in range(0, size, PAGE):
                runtime[_page_index(base + off)] = _pte(phys + off, _RW)
        # The hart's context: the CPU switched to user mode on its tables.
        self._park()
        uc = self.uc
        satp = _SATP_SV32 | root >> 12
        # A CSR access takes the current privilege's rights: satp is machine-mode work.
        uc.reg_write(UC_RISCV_REG_PRIV, _MACHINE_MODE)
        uc.reg_write(UC_RISCV_REG_SATP, satp)
        assert uc.reg_read(UC_RISCV_REG_SATP) == satp
        uc.reg_write(UC_RISCV_REG_PRIV, _USER_MODE)
        return HartSpace(tables, uc.context_save())

    @staticmethod
    def mapped(hart: Hart, addr: int) -> bool:
        """Whether virtual ``addr`` is mapped in ``hart``'s address space."""
        window, page = addr >> 22, _page_index(addr)
        if window == _L1_WINDOW:
            return page < hart.node.l1.size // PAGE
        tables = hart.space.tables
        if window == _LOCAL_WINDOW:
            return bool(tables[1024 + page] & PTE_V)
        if window == _RUNTIME_WINDOW:
            return bool(tables[2048 + page] & PTE_V)
        return False

    # ------------------------------------------------------------------ running
    def switch(self, hart: Hart) -> None:
        """Makes ``hart`` the one the CPU runs: its registers and address space."""
        if self.current is hart:
            return
        self._park()
        self.uc.context_restore(hart.space.context)
        # Data accesses go through the TLB, which must forget the last hart's pages.
        self.uc.ctl(UC_CTL_TLB_FLUSH, UC_CTL_IO_WRITE)
        self.current = hart

    def _park(self) -> None:
        """Saves the running hart's registers; the next switch restores a context."""
        if self.current is not None:
            self.uc.context_update(self.current.space.context)
            self.current = None

    def begin_launch(self, profile: bool) -> None:
        """Sets the hooks a launch needs; drops translated code compiled for others."""
        hooks_change = (self._profile_hooks is not None) != profile
        if hooks_change:
            self._set_profile_hooks(profile)
        self.counted = False
        if hooks_change or self._counted_runs:
            self.uc.ctl_flush_tb()  # type: ignore[attr-defined]  # (see __init__)
            self._counted_runs = False

    def count_from_now(self) -> None:
        """A hart ran too long uncounted: every later run on this engine in the launch is
        a counted quantum. Unicorn compiles its counting hook into code translated
        for counted runs and drops all translated code when a run is uncounted
        again, so an engine counts for all its harts or none."""
        self.counted = True
        # Code translated before this carries no counting hook: retranslate.
        self.uc.ctl_flush_tb()  # type: ignore[attr-defined]  # (see __init__)

    def note_counted_run(self) -> None:
        self._counted_runs = True

    def _set_profile_hooks(self, on: bool) -> None:
        """One hook per executed block (instruction counts) and one per store to a
        node's DFB counters or semaphores (when a waiting hart's wait became
        satisfiable), both calling the running hart."""
        uc = self.uc
        if on:
            end = self._mmio_phys - 1  # the register pages end where the MMIO page starts
            self._profile_hooks = (
                uc.hook_add(UC_HOOK_BLOCK, self._on_block),
                uc.hook_add(UC_HOOK_MEM_WRITE, self._on_regs_write, begin=self._regs_phys, end=end),
            )
        elif self._profile_hooks is not None:
            for h in self._profile_hooks:
                uc.hook_del(h)
            self._profile_hooks = None

    # ---------------------------------------------------------------- callbacks
    def _on_mmio_write(self, offset: int, size: int, value: int) -> None:
        hart = self.current
        assert hart is not None  # only code of the current hart runs
        hart.on_mmio_write(offset, size, value)

    def _on_interrupt(self, uc, intno, user_data) -> None:
        hart = self.current
        assert hart is not None
        hart.on_trap(intno)

    def _on_block(self, uc, address, size, user_data) -> None:
        hart = self.current
        assert hart is not None
        hart.on_block(size)

    def _on_regs_write(self, uc, access, address, size, value, user_data) -> None:
        offset = (address - self._regs_phys) % memmap.NODE_REGS_SIZE
        if _SYNC_BEGIN <= offset < _SYNC_END:
            hart = self.current
            assert hart is not None
            hart.on_sync_write()


# Register-page offsets whose stores can satisfy a wait: the DFB table and semaphores.
_SYNC_BEGIN = memmap.DFB_TABLE_OFFSET
_SYNC_END = memmap.SEM_OFFSET + 4 * memmap.SEM_MAX
