"""One RISC-V hart: one kernel ELF running on one node, on its image's engine.

Guest memory (see memmap): the node's L1 and register page are host buffers
every hart of the node maps, so all of them see the same bytes; LOCAL, the
argument page and the coprocessor queue are private. The harts that run one
kernel image share one :class:`~ttl.runtime.engine.Engine` (a Unicorn CPU)
and its code pages, each hart in its own address space. Python runs during
emulation only for writes to the MMIO page (queue flushes, API errors) and,
when profiling, once per translated block executed (``UC_HOOK_BLOCK``, to
count instructions exactly). Blocking calls leave emulation natively: the
stop address given to Unicorn is crt0's ``__ttl_stop``, and ``__ttl_yield``
leaves the resume address in the mailbox, so a stop needs no register reads.
"""

from __future__ import annotations

import enum
from collections.abc import Callable

import numpy as np
from unicorn import Uc, UcError
from unicorn.riscv_const import UC_RISCV_REG_PC, UC_RISCV_REG_RA, UC_RISCV_REG_X0
from unicorn.unicorn_const import UC_ERR_INSN_INVALID

from ttl.runtime import memmap
from ttl.runtime.coprocessor import Coprocessor, DstMode
from ttl.runtime.debug_print import HartPrinter, PrintSink
from ttl.runtime.elfinfo import ElfImage
from ttl.runtime.engine import Engine, HartSpace
from ttl.runtime.errors import (
    DeviceFault,
    KernelContext,
    KernelError,
    KernelFaultError,
    RunawayKernelError,
)
from ttl.runtime.signposts import HartZones
from ttl.runtime.timeline import NocTransfer, transfer
from ttl.runtime.waits import DFB_WAITS, Wait, predicate
from ttl.runtime.watchdog import watchdog

# Page faults: (cause, whether the page is mapped) -> what the access was.
_FETCH_FAULT, _LOAD_FAULT, _STORE_FAULT = 12, 13, 15
_ACCESS = {
    (_LOAD_FAULT, False): "read from unmapped",
    (_STORE_FAULT, False): "write to unmapped",
    (_FETCH_FAULT, False): "instruction fetch from unmapped",
    (_LOAD_FAULT, True): "read from protected",
    (_STORE_FAULT, True): "write to protected",
    (_FETCH_FAULT, True): "instruction fetch from non-executable",
}

# RISC-V exception causes delivered through UC_HOOK_INTR.
_TRAPS = {
    0: "misaligned instruction fetch",
    1: "instruction access fault",
    2: "illegal instruction",
    3: "ebreak outside crt0 (__builtin_trap or a failed check in the kernel)",
    4: "misaligned load",
    5: "load access fault",
    6: "misaligned store",
    7: "store access fault",
    8: "ecall (there is no OS on the device)",
    11: "ecall (there is no OS on the device)",
}


_MB_RESUME = memmap.MB_RESUME
assert (memmap.MB_A, memmap.MB_B, memmap.MB_KIND, memmap.MB_SITE) == (
    0,
    1,
    2,
    3,
)  # run() unpacks them

# Instructions per run once a hart is counted (see run()).
COUNTED_QUANTUM = 200_000


class HartState(enum.Enum):
    READY = "ready"
    BLOCKED = "blocked"
    DONE = "done"


class Hart:
    """A kernel running on one processor slot of one node."""

    def __init__(
        self, node, slot: str, index: int, memory: memmap.DeviceMemory, noc, dst_tiles: int
    ):
        """The hart in processor ``slot`` of ``node``; its LOCAL, argument page and queue
        are slot ``index`` of ``memory``'s arenas. Harts are reused across launches
        (:meth:`load` installs a kernel and the engine of its image)."""
        self.node, self.slot, self.index, self.noc = node, slot, index, noc
        self.cop = Coprocessor(node.l1, dst_tiles)
        self.local = memory.local.slot(index)
        self._local_dirty = False  # a kernel ran in LOCAL since it was zeroed
        self.args = memory.args.slot(index)
        a32 = self.args32 = self.args.view(np.uint32)
        self.mailbox = a32[memmap.MAILBOX_OFFSET // 4 : memmap.MAILBOX_OFFSET // 4 + 8]
        noc_q = memmap.NOC_QUEUE_OFFSET // 4
        self.noc_queue32 = a32[noc_q : noc_q + memmap.NOC_QUEUE_SIZE // 4]
        self.queue = memory.queue.slot(index)
        self.queue32 = self.queue.view(np.uint32)
        # memoryviews read and write single words as Python ints far cheaper
        # than NumPy scalar indexing (hot: every run reads them).
        self._mailbox_words = memoryview(self.mailbox)
        self._noc_words = memoryview(self.noc_queue32)
        self._cop_words = memoryview(self.queue32)
        pq = memmap.PRINT_OFFSET // 4
        self.printer = HartPrinter(node, self.read_local, a32[pq : pq + memmap.PRINT_SIZE // 4])
        self.zones = HartZones()
        # Tracing: (blocked at, resumed at, wait key) per blocking wait (profiling only).
        self.trace = False
        self.wait_spans: list[tuple[int, int, tuple[int, int, int]]] = []
        self.transfers: list[NocTransfer] = []  # tracing: the NOC requests it issued
        self._drained_at = 0  # tracing: the clock at its last NOC queue drain

        # The engine of the loaded image and the hart's address space on it, per engine.
        self.engine: Engine
        self.space: HartSpace
        self._spaces: dict[Engine, HartSpace] = {}
        self.image: ElfImage  # set by load()
        self._watchdog = watchdog()
        self.profiling = False
        self.kernel = "-"
        self.state = HartState.DONE

    @property
    def uc(self) -> Uc:
        """The CPU of the loaded image's engine (running this hart while :meth:`run` runs)."""
        return self.engine.uc

    def load(
        self,
        kernel: str,
        image: ElfImage,
        engine: Engine,
        args: list[int],
        common_args: list[int],
        budget: int,
        yield_charge: int,
        profile: bool = False,
        dst: DstMode | None = None,
        prints: PrintSink | None = None,
        trace: bool = False,
    ) -> None:
        """Installs ``kernel`` for a launch: fresh LOCAL memory, arguments, queues, DST.
        ``engine`` runs ``image`` (an image of the same bytes may name other sources).

        With ``profile`` the hart counts the instructions it executes exactly
        (:attr:`instructions`) and, per wait, the cycles it waited (:attr:`waited`,
        see :attr:`clock`). ``prints`` receives the kernel's print lines (default:
        standard output); ``trace`` (with ``profile``) records every wait's span.
        """
        self.profiling = profile
        space = self._spaces.get(engine)
        if space is None:
            space = self._spaces[engine] = engine.attach(self)
        self.engine, self.space = engine, space
        self.kernel, self.image = kernel, image
        self._stop_pc, self._done_pc = image.stop_pc, image.exit_pc + 4
        self.budget, self.yield_charge = budget, yield_charge
        self.state = HartState.READY
        self._wait_key: tuple[int, int, int] = (0, 0, 0)  # (kind, a, b) while BLOCKED
        self._wait_site = 0
        self.pc = image.entry
        # Instructions charged against the budget: exact for quanta that ran out and
        # for every run when profiling, else yield_charge per blocking stop (Unicorn
        # does not expose its counter).
        self.budget_used = 0
        self.turns = 0  # emulation runs (scheduler turns)
        self.stalls: dict[tuple[int, int, int], int] = {}  # (kind, a, b) -> blocks
        self.instructions = 0  # executed (profiling only)
        # Profiling only: (kind, a, b) -> cycles waited on that wait, their total, the
        # clock when the hart last blocked, and the clock of the store that made its
        # current wait satisfiable (None until one did).
        self.waited: dict[tuple[int, int, int], int] = {}
        self.cycles_waited = 0
        self._blocked_at = 0
        self.ready_at: int | None = None
        # Predicate of the current wait. Typed as always set: it is read only while
        # the hart is BLOCKED, which sets it (no None check on the scheduler's path).
        self._ready: Callable[[], bool] = None  # type: ignore[assignment]
        self._predicates: dict[tuple[int, int, int], Callable[[], bool]] = {}  # (kind, a, b)
        self.spurious_blocks = 0  # consecutive blocks on already-satisfiable waits
        if self._local_dirty:  # a fresh buffer is zero
            memmap.zero(self.local)
        self._local_dirty = True
        for addr, data, _ in engine.private_segments:
            off = addr - memmap.LOCAL_BASE
            self.local[off : off + len(data)] = np.frombuffer(data, dtype=np.uint8)
        memmap.zero(self.args)  # hands its pages back: few are used
        self.queue32[0] = 0
        a32 = self.args32
        _put_words(a32, memmap.ARGS_OFFSET, args)
        _put_words(a32, memmap.COMMON_ARGS_OFFSET, common_args)
        info = memmap.HART_INFO_OFFSET // 4
        a32[info + memmap.HINFO_NUM_ARGS] = len(args)
        a32[info + memmap.HINFO_NUM_COMMON_ARGS] = len(common_args)
        self.cop.reset(dst)
        x, y = self.node.coord
        self.printer.reset(f"[({x},{y}) {kernel}] ", prints or PrintSink())
        self.zones.reset()
        self.trace = trace and profile
        self.wait_spans = []
        self.transfers = []
        self._drained_at = 0
        self._error: BaseException | None = None  # also KeyboardInterrupt in a callback
        self._trap: tuple[int, int] | None = None  # (cause, pc)

    @property
    def clock(self) -> int:
        """The hart's cycle under the profile's timing model (profiling only).

        Every hart retires one instruction per cycle, in parallel with the
        others; NOC transfers and tile math take no cycles. A blocked hart
        resumes at the cycle of the store (DFB counter, semaphore, NOC
        semaphore increment) that made its wait satisfiable, if that is later
        than when it blocked: the difference is the cycles it waited.
        """
        return self.instructions + self.cycles_waited

    def note_satisfiable(self, cycle: int) -> None:
        """Profiling: another hart's store at ``cycle`` may have satisfied this hart's wait."""
        if self.state is HartState.BLOCKED and self.ready_at is None and self._ready():
            self.ready_at = cycle

    # -------------------------------------------------------------- running
    def run(self, quantum: int | None) -> None:
        """Runs the hart until it blocks, finishes or is preempted.

        With ``quantum`` None the run is uncounted (fast) and the watchdog
        preempts it after a time slice; from then on every hart on its engine
        runs in counted quanta of COUNTED_QUANTUM for the rest of the launch
        (:meth:`Engine.count_from_now`).
        With an int, every run is a counted quantum.
        A profiling hart always runs counted quanta (see :meth:`_count_run`).
        Leaves the hart READY, BLOCKED or DONE.

        This runs once per scheduler turn (thousands of times per launch):
        the common path, a run that ends in a blocking call, does no more
        than it must.
        """
        mb = self._mailbox_words
        mb[_MB_RESUME] = 0
        self.turns += 1
        engine = self.engine
        engine.switch(self)
        count = quantum or (COUNTED_QUANTUM if engine.counted or self.profiling else 0)
        start = self.instructions
        try:
            if count:
                engine.note_counted_run()
                engine.start(self.pc, self._stop_pc, count)
            else:
                dog = self._watchdog
                dog.arm(engine.uc)
                try:
                    engine.start(self.pc, self._stop_pc, 0)
                finally:
                    dog.disarm()
        except UcError as e:
            raise self._uc_fault(e) from None
        if self._error is not None or self._trap is not None:
            raise self._stop_error()
        resume = mb[_MB_RESUME]
        if self.profiling:  # charged exactly; otherwise see the branches below
            # A counted run can also run out inside __ttl_yield, after it stored the
            # resume address but before its jump reached the stop address.
            pc = self.uc.reg_read(UC_RISCV_REG_PC)
            ran_out = count if not resume or pc != self._stop_pc else 0
            self.budget_used += self._count_run(start, ran_out)
        if resume == self._done_pc:
            self.state = HartState.DONE
            self.printer.flush_partial()
        elif resume:  # a blocking call reached __ttl_yield: park it, resume as its `ret` would
            a, b, kind, site = mb[:_MB_RESUME]
            key = (kind, a, b)
            ready = self._predicates.get(key)  # kernels block on the same few waits
            if ready is None:
                ready = self._predicate(key, site)
            self._ready, self._wait_key, self._wait_site = ready, key, site
            self.pc = resume
            self.state = HartState.BLOCKED
            self.stalls[key] = self.stalls.get(key, 0) + 1
            if self.profiling:
                self._blocked_at, self.ready_at = self.clock, None
            else:
                self.budget_used += self.yield_charge
        else:  # the quantum ran out, or the watchdog preempted an uncounted run
            self._preempted(count)
        if self._noc_words[0] or self._cop_words[0]:
            self._drain()
        if self.budget_used > self.budget and self.state is not HartState.DONE:
            raise RunawayKernelError(
                f"executed more than {self.budget} instructions without finishing (a runaway "
                "loop?); if the kernel needs more, call the operation with "
                "device=ttl.runtime.Device(target, grid, instruction_budget=N)"
                + self.debug_context(),
                # Blocked: where the kernel called the wait, not inside the API's code.
                self.context(
                    self._wait_site - 4
                    if self.state is HartState.BLOCKED and self._wait_site
                    else self.pc
                ),
            )

    def _stop_error(self) -> BaseException:
        """The error that ended the run: an API error or emulator bug, or a CPU trap."""
        if self._error is not None:
            return self._error
        assert self._trap is not None  # run() calls this after an error or a trap
        cause, pc = self._trap
        if cause in (_FETCH_FAULT, _LOAD_FAULT, _STORE_FAULT):
            return self._page_fault(cause, pc)
        if cause == 2:
            pc = self._illegal_pc(pc)
        return self._fault(f"trap: {_TRAPS.get(cause, f'exception {cause}')}", pc)

    def _predicate(self, key: tuple[int, int, int], site: int) -> Callable[[], bool]:
        """Builds (and caches) the host-side check of a new wait."""
        try:
            ready = self._predicates[key] = predicate(self.node, Wait(*key, site))
        except DeviceFault as e:
            assert e.ra is not None  # predicate() faults name the wait's call site
            raise self._fault(str(e), e.ra - 4) from None
        return ready

    def _preempted(self, count: int) -> None:
        """Bookkeeping of a run that neither blocked nor finished."""
        self.pc = self.uc.reg_read(UC_RISCV_REG_PC)
        if count and not self.profiling:
            self.budget_used += count
        elif not count:
            self.budget_used += COUNTED_QUANTUM
            self.engine.count_from_now()

    @property
    def wait(self) -> Wait | None:
        """What the hart is blocked on (None unless BLOCKED)."""
        if self.state is not HartState.BLOCKED:
            return None
        return Wait(*self._wait_key, self._wait_site)

    def _count_run(self, start: int, ran_out: int) -> int:
        """Settles the exact instruction count of the run that just ended; returns it.

        The block hook adds a block's size when the block is entered. A run
        that ends at ``__ttl_stop`` (a blocking call or the kernel's end)
        executed every block it entered: the stop address's own block has no
        hook call. A counted quantum that ran out (``ran_out`` instructions)
        stops mid-block, before the instruction after the last counted one,
        so the hook over-counts there: Unicorn's count is the exact figure.
        """
        if ran_out:
            self.instructions = start + ran_out
        if self.node.sync_cycle is not None:  # a store in the run's last block
            self.node.wake()
        return self.instructions - start

    def resume(self) -> None:
        """Makes a blocked hart runnable (its wait can succeed), recording the wait."""
        if self.profiling:
            ready_at = self.ready_at
            ready = self._blocked_at if ready_at is None else ready_at
            waited = max(0, ready - self._blocked_at)
            key = self._wait_key
            if self.trace:
                self.wait_spans.append((self._blocked_at, self._blocked_at + waited, key))
            self.waited[key] = self.waited.get(key, 0) + waited
            self.cycles_waited += waited
        self.state = HartState.READY

    def _drain(self) -> None:
        """Completes the hart's queued NOC requests and coprocessor commands."""
        try:
            self._drain_noc()
            self.cop.drain(self._cop_words)
        except DeviceFault as e:
            raise self._fault(str(e), e.ra - 4 if e.ra else self.pc) from None

    def _drain_noc(self) -> None:
        """Runs the NOC queue; profiling, stamps harts its semaphore writes may wake."""
        noc = self.noc
        if self.trace:
            self._drain_traced()
        else:
            noc.drain(self.node, self._noc_words)
        if noc.signalled:
            if self.profiling:
                for node in noc.signalled:
                    node.wake(self.clock)
            noc.signalled.clear()

    def _drain_traced(self) -> None:
        """Runs the NOC queue, recording each request (see :mod:`ttl.runtime.timeline`)."""
        noc = self.noc
        log: list[tuple[int, int, int, int, int]] = []
        noc.log = log
        try:
            noc.drain(self.node, self._noc_words)
        finally:
            noc.log = None
            clock = self.clock
            self.transfers.extend(transfer(*r, self._drained_at, clock) for r in log)
            self._drained_at = clock

    def can_resume(self) -> bool:
        """Whether the parked wait can now succeed (evaluated with the device's formulas)."""
        return self.state is not HartState.BLOCKED or self._ready()

    def stall_counts(self) -> dict[str, int]:
        """How often the kernel blocked, per wait (e.g. 'cb_wait_front(DFB 0, 1 page)')."""
        return _by_wait(self.stalls)

    def waited_cycles(self) -> dict[str, int]:
        """Per wait: cycles waited on it (profiling; see :attr:`clock`)."""
        return _by_wait(self.waited)

    # ------------------------------------------------------------ callbacks
    def on_mmio_write(self, offset: int, size: int, value: int) -> None:
        """A doorbell rang (called from emulation; must not raise, see unicorn_raw)."""
        try:
            if offset == memmap.MMIO_NOC_FLUSH:
                self._drain_noc()
            elif offset == memmap.MMIO_COP_FLUSH:
                self.cop.drain(self._cop_words)
            elif offset == memmap.MMIO_PRINT:
                self.cop.drain(self._cop_words)  # a printed block shows the math issued before
                self.printer.drain()
            elif offset == memmap.MMIO_SIGNPOST_BEGIN or offset == memmap.MMIO_SIGNPOST_END:
                self._signpost(offset == memmap.MMIO_SIGNPOST_BEGIN, value)
            elif offset == memmap.MMIO_ERROR:
                mb = self.mailbox
                raise DeviceFault(
                    self._api_error(
                        value, int(mb[memmap.MB_A]), int(mb[memmap.MB_B]), int(mb[memmap.MB_C])
                    ),
                    ra=int(mb[memmap.MB_SITE]),
                )
            else:
                raise DeviceFault(f"write to unknown MMIO register {memmap.MMIO_BASE + offset:#x}")
        except DeviceFault as e:
            self._error = self._fault(
                str(e), e.ra - 4 if e.ra else self.uc.reg_read(UC_RISCV_REG_PC)
            )
            self.uc.emu_stop()
        except BaseException as e:
            self._error = e
            self.uc.emu_stop()

    def _signpost(self, begin: bool, name_addr: int) -> None:
        """A signpost edge: the clock and instruction count now (profiling), else None."""
        name = self.printer.string(name_addr)
        cycle, instructions = (self.clock, self.instructions) if self.profiling else (None, None)
        if begin:
            self.zones.begin(name, cycle, instructions)
        else:
            self.zones.end(name, cycle, instructions)

    def on_block(self, size: int) -> None:
        """Profiling: the hart entered a translated block of ``size`` bytes."""
        self.instructions += size >> 2  # RV32IM: no compressed instructions
        if self.node.sync_cycle is not None:  # the previous block's stores are visible now
            self.node.wake()

    def on_sync_write(self) -> None:
        """Profiling: the hart stores to a DFB counter or semaphore of its node."""
        # Called before the store lands: the next block (or the run's end) checks waits.
        self.node.sync_cycle = self.clock

    def on_trap(self, cause: int) -> None:
        """A CPU exception (RISC-V ``cause``) ended the run."""
        uc = self.uc
        self._trap = (cause, uc.reg_read(UC_RISCV_REG_PC))
        uc.emu_stop()

    # ---------------------------------------------------------------- errors
    def where_running(self) -> str:
        """Where a running (preempted or interrupted) hart is: its program point, and in
        the kernel API's code also the kernel line that called it (the return address)."""
        here = self.image.describe_location(self.pc)
        if self.image.in_api(self.pc):
            ra = self.uc.reg_read(UC_RISCV_REG_RA)
            if ra and not self.image.in_api(ra - 4):
                here += ", called from " + self.image.describe_location(ra - 4)
        return here

    def context(self, pc: int) -> KernelContext:
        return KernelContext(
            self.kernel, self.node.coord, self.slot, pc, self.image.describe_location(pc)
        )

    def _fault(self, message: str, pc: int) -> KernelError:
        return KernelFaultError(message, self.context(pc))

    def _illegal_pc(self, pc: int) -> int:
        """Unicorn may report the instruction after an illegal one; find the culprit."""

        def plausible(addr: int) -> bool:
            insn = self._code_word(addr)
            return insn is not None and insn & 3 == 3 and insn != 0xFFFFFFFF

        return pc - 4 if plausible(pc) and not plausible(pc - 4) else pc

    def read_local(self, addr: int, size: int) -> bytes:
        """Up to ``size`` bytes at ``addr`` in LOCAL as the kernel sees them: its code
        and read-only data are the engine's shared copy, the rest the hart's own."""
        code, base = self.engine.code, self.engine.code_base
        if code is not None and 0 <= addr - base < code.size:
            return code[addr - base : addr - base + size].tobytes()
        off = addr - memmap.LOCAL_BASE
        return self.local[off : off + size].tobytes() if off >= 0 else b""

    def _code_word(self, addr: int) -> int | None:
        """The 32-bit word at guest address ``addr`` in LOCAL or L1, if there is one."""
        if addr % 4:
            return None
        if 0 <= addr - memmap.LOCAL_BASE <= memmap.LOCAL_SIZE - 4:
            return int.from_bytes(self.read_local(addr, 4), "little")
        if 0 <= addr - memmap.L1_BASE <= self.node.l1.size - 4:
            off = addr - memmap.L1_BASE
            return int(self.node.l1[off : off + 4].view(np.uint32)[0])
        return None

    def _page_fault(self, cause: int, pc: int) -> KernelError:
        """The error of a page fault Unicorn reported at ``pc``, the instruction after
        the faulting one: which access, at which address, and what is mapped."""
        pc -= 4
        if cause == _FETCH_FAULT:
            addr, size = pc, 4
        else:
            insn = self._code_word(pc) or 0
            rs1 = (insn >> 15) & 31
            imm = insn >> 20 if cause == _LOAD_FAULT else (insn >> 25) << 5 | (insn >> 7) & 31
            imm -= (imm & 0x800) << 1  # sign-extend 12 bits
            base = self.uc.reg_read(UC_RISCV_REG_X0 + rs1) if rs1 else 0
            addr, size = (base + imm) & 0xFFFFFFFF, 1 << ((insn >> 12) & 3)
        what = _ACCESS[cause, self.engine.mapped(self, addr)]
        if memmap.STACK_GUARD <= addr < memmap.STACK_GUARD + 0x1000:
            return self._fault(
                f"stack overflow: {what} address {addr:#x}, the guard page below the "
                f"{memmap.STACK_SIZE // 1024} KiB stack (large local arrays or deep "
                "recursion; put big buffers in L1)",
                pc,
            )
        return self._fault(f"{what} address {addr:#x} ({size} bytes); {_MAP_HINT}", pc)

    def _uc_fault(self, err: UcError) -> KernelError:
        pc = self.uc.reg_read(UC_RISCV_REG_PC)
        if err.errno == UC_ERR_INSN_INVALID:
            return self._fault("illegal instruction", pc)
        return self._fault(f"CPU fault: {err}", pc)

    def _api_error(self, kind: int, a: int, b: int, c: int = 0) -> str:
        if kind == memmap.ERR_ARG_INDEX:
            return (
                f"get_arg_val({a}) reads runtime argument {a}, but this node was launched "
                f"with {b} runtime arguments"
            )
        if kind == memmap.ERR_COMMON_ARG_INDEX:
            return (
                f"get_common_arg_val({a}) reads common argument {a}, but the launch has {b} "
                "common runtime arguments"
            )
        if kind == memmap.ERR_DFB_INDEX:
            return f"DFB {a} does not exist: the node has DFBs 0..{self.node.dfb_count - 1}"
        if kind == memmap.ERR_DFB_UNCONFIGURED:
            return f"DFB {a} is not configured for this launch (add it to the DFB table)"
        if kind == memmap.ERR_SEM_INDEX:
            return f"semaphore {a} does not exist: the launch defines {b} semaphores"
        if kind == memmap.ERR_DFB_PUSH_OVERFLOW:
            return (
                f"cb_push_back({a}, {b}) pushes more pages than are free (reserve them "
                f"first); {self.node.dfbs[a].describe()}"
            )
        if kind == memmap.ERR_DFB_POP_UNDERFLOW:
            return (
                f"cb_pop_front({a}, {b}) pops more pages than are filled (wait for them "
                f"first); {self.node.dfbs[a].describe()}"
            )
        if kind == memmap.ERR_DIVISION_BY_ZERO:
            dividend = _int32(a)
            return (
                f"integer division by zero ({dividend} // 0 or {dividend} % 0): the divisor "
                "is a value of this kernel that was 0 here"
            )
        if kind == memmap.ERR_SLICE_BOUNDS:
            offset = _int32(a)
            size, extent = b >> 16, b & 0xFFFF
            span = f"[{offset}]" if size == 1 else f"[{offset}:{offset + size}]"
            what = self.printer.string(c)
            if "row-major tensor" in what:  # the emitter's words: `what` has size and extent
                return (
                    f"element slice at offset {offset} is out of bounds: {what}; indices "
                    "are in elements"
                )
            return (
                f"tile slice {span} is out of bounds for {what} "
                f"({extent} tiles): indices are in tiles, 0 <= index < {extent}"
            )
        if kind == memmap.ERR_UNSUPPORTED:
            return (
                f"{self.printer.string(c)}: TT-Metal has this, but the emulator does not model it"
            )
        if kind == memmap.ERR_ASSERT:
            return f"ASSERT({self.printer.string(c)}) failed"
        if kind == memmap.ERR_SHARD_PAGE:
            return f"page {a} of an L1-sharded tensor of {b} pages is outside its shards"
        return f"device API error {kind} ({a}, {b})"

    # --------------------------------------------------------------- display
    def describe_wait(self) -> str:
        """What the hart waits on, where, and the state it waits for."""
        w = self.wait
        if w is None:
            return "nothing"
        where = self.image.describe_location(w.site - 4)
        return f"{w.describe()}{self._dfb_name(w)} at {where}\n      {w.state(self.node)}"

    def _dfb_name(self, w: Wait) -> str:
        """`` of 'y_dfb'`` for a wait on a named DFB ('' otherwise)."""
        if w.kind not in DFB_WAITS or not 0 <= w.a < len(self.node.dfbs):
            return ""
        name = self.node.dfbs[w.a].name
        return f" of '{name}'" if name else ""

    def debug_context(self) -> str:
        """The open signposts and the last lines printed, for error reports ('' if none)."""
        out = ""
        stack = self.zones.open_names()
        if stack:
            out += "\n      in signpost " + " > ".join(f"'{n}'" for n in stack)
        lines = list(self.printer.last_lines)
        if self.printer.partial:
            lines.append(self.printer.partial)
        if lines:
            out += "\n      last printed:" + "".join(f"\n        {line}" for line in lines)
        return out

    def describe(self) -> str:
        text = f"kernel '{self.kernel}' {self.state.value} after {self.turns} turns"
        w = self.wait  # None unless BLOCKED
        if w is not None:
            text += f", waiting in {w.describe()}"
        return text

    __str__ = describe


_MAP_HINT = (
    f"mapped memory is L1 [{memmap.L1_BASE:#x}, L1 size), LOCAL [{memmap.LOCAL_BASE:#x}, "
    f"{memmap.LOCAL_BASE + memmap.LOCAL_SIZE:#x}) and the runtime pages at "
    f"{memmap.NODE_REGS_BASE:#x}"
)


def _by_wait(counts: dict[tuple[int, int, int], int]) -> dict[str, int]:
    """Per-(kind, a, b) figures keyed by the wait's description, in a stable order."""
    return {Wait(kind, a, b, 0).describe(): n for (kind, a, b), n in sorted(counts.items())}


def _put_words(a32: np.ndarray, offset: int, values: list[int]) -> None:
    start = offset // 4
    a32[start : start + len(values)] = np.asarray(values, dtype=np.int64) & 0xFFFFFFFF


def _int32(word: int) -> int:
    """A mailbox word read back as the int32 the kernel stored."""
    return word - (1 << 32) if word >= 1 << 31 else word
