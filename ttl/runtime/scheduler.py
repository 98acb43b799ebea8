"""Round-robin scheduling of harts in instruction quanta, with deadlock detection."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from ttl.runtime.errors import (
    DeadlockError,
    InterruptedRunError,
    LivelockError,
    RunawayKernelError,
)
from ttl.runtime.hart import Hart, HartState
from ttl.runtime.signposts import SignpostStats, Zone
from ttl.runtime.timeline import DfbCount, NocTransfer
from ttl.runtime.waits import DFB_WAITS


@dataclass
class KernelStats:
    """Per-hart figures of one run (docs/runtime.md, "Profiling", defines each)."""

    kernel: str
    node: tuple[int, int]
    slot: str
    turns: int  # times the hart was run (each ends at a blocking call, quantum or the end)
    budget_used: int  # instructions charged against the budget (see Hart.budget_used)
    coprocessor_commands: int
    stalls: dict[str, int] = field(default_factory=dict)  # wait -> times blocked on it
    # Profiled launches only (None / empty otherwise):
    instructions: int | None = None  # RISC-V instructions executed, exact
    # wait -> cycles waited on it (the profile's timing model, Hart.clock)
    waited: dict[str, int] = field(default_factory=dict)
    # Signpost name -> executions, total cycles and instructions (cycles: profiled only).
    signposts: dict[str, SignpostStats] = field(default_factory=dict)
    cycles: int | None = None  # the hart's clock when it finished (profiled only)
    # Traced launches only: every zone, every blocking wait as (start, end, wait) and
    # every NOC request the hart issued.
    zones: list[Zone] = field(default_factory=list)
    wait_spans: list[tuple[int, int, str]] = field(default_factory=list)
    transfers: list[NocTransfer] = field(default_factory=list)


@dataclass
class RunReport:
    """What a launch did: per-kernel statistics, NOC traffic and tile math of this launch."""

    kernels: list[KernelStats]
    noc_bytes_read: int
    noc_bytes_written: int
    rounds: int
    seconds: float = 0.0  # wall time of the launch (harts created to last hart done)
    page_size: int | None = None  # the DFBs' page size when they all have one
    profiled: bool = False  # instructions and waited were measured
    dfb_counts: list[DfbCount] = field(default_factory=list)  # traced: DFB counter changes
    # Per node (x, y): the NOC requests it issued (noc.NodeTraffic).
    noc_traffic: dict[tuple[int, int], Any] = field(default_factory=dict)

    @property
    def dram_bytes_read(self) -> int:
        """Bytes all nodes read from DRAM over the NOC."""
        return sum(t.dram_bytes_read for t in self.noc_traffic.values())

    @property
    def multicasts(self) -> int:
        """Multicast writes issued by all nodes."""
        return sum(t.multicasts for t in self.noc_traffic.values())

    @property
    def tiles_moved(self) -> int | None:
        """NOC bytes (read + written) / the DFB page size; None without a single page size."""
        if not self.page_size:
            return None
        return (self.noc_bytes_read + self.noc_bytes_written) // self.page_size

    @property
    def coprocessor_commands(self) -> int:
        """Tile math commands executed by all kernels."""
        return sum(k.coprocessor_commands for k in self.kernels)

    def summary(self) -> str:
        """The run's totals on one line: tiles moved, NOC bytes, coprocessor commands."""
        tiles = "-" if self.tiles_moved is None else str(self.tiles_moved)
        return (
            f"tiles moved {tiles} (NOC {self.noc_bytes_read} B read, "
            f"{self.noc_bytes_written} B written)  cop ops {self.coprocessor_commands}"
        )

    def table(self) -> str:
        """The statistics as a fixed-width text table."""
        return "\n".join(
            [
                kernel_table(self.kernels, self.profiled),
                *([signpost_table(self.kernels)] if _has_signposts(self.kernels) else []),
                self.summary() + f"; {self.rounds} scheduling rounds; {self.seconds:.3f} s",
                WAIT_LEGEND,
            ]
        )

    __str__ = table


WAIT_LEGEND = (
    "waits: per blocking call, times blocked, and (profiled) cycles waited on it: "
    "each hart retires one instruction per cycle, in parallel with the others; NOC "
    "transfers and tile math take no cycles; a blocked kernel resumes at the cycle "
    "of the store that satisfied its wait"
)


def kernel_table(kernels: list[KernelStats], profiled: bool) -> str:
    """Per-kernel rows: turns, instructions executed, coprocessor ops and waits."""
    rows = [("kernel", "node", "slot", "turns", "instructions", "cop ops", "waits")]
    for k in kernels:
        waits = (
            ", ".join(
                f"{w}: {n} block{'s' if n != 1 else ''}"
                + (f", waited {k.waited.get(w, 0)} cycles" if profiled else "")
                for w, n in k.stalls.items()
            )
            or "-"
        )
        rows.append(
            (
                k.kernel,
                f"({k.node[0]},{k.node[1]})",
                k.slot,
                str(k.turns),
                "-" if k.instructions is None else str(k.instructions),
                str(k.coprocessor_commands),
                waits,
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    # widths covers every column but the last (left unpadded): zip stops there.
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)) + "  " + r[-1] for r in rows
    ]
    if not profiled:
        lines.append("(instructions: not measured; launch with Device(profile=True))")
    return "\n".join(lines)


def _has_signposts(kernels: list[KernelStats]) -> bool:
    return any(k.signposts for k in kernels)


def signpost_table(kernels: list[KernelStats]) -> str:
    """Per signpost, kernel and node: executions, total and mean cycles, instructions."""
    rows = [("signpost", "kernel", "node", "count", "cycles", "mean cycles", "instructions")]
    for k in kernels:
        for name, st in k.signposts.items():
            mean = st.mean_cycles
            rows.append(
                (
                    repr(name),
                    k.kernel,
                    f"({k.node[0]},{k.node[1]})",
                    str(st.count),
                    "-" if st.cycles is None else str(st.cycles),
                    "-" if mean is None else f"{mean:.1f}",
                    "-" if st.instructions is None else str(st.instructions),
                )
            )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows
    )


def run_harts(harts: list[Hart], quantum: int | None, livelock_budget: int | None = None) -> int:
    """Runs ``harts`` to completion; returns the number of scheduling rounds.

    Each round gives every runnable hart one quantum. A blocked hart is
    runnable once its wait can succeed. If no hart is runnable and some are
    unfinished, nothing can change any more: raise DeadlockError. If the harts
    execute more than ``livelock_budget`` instructions in all without progress
    (no block, finish, DFB or semaphore word, NOC transfer or tile command),
    they are spinning on something that will not change: raise LivelockError.
    """
    with _ctrl_c_between_rounds() as interrupted:
        try:
            return _run_rounds(harts, quantum, livelock_budget, interrupted)
        except KeyboardInterrupt:  # Ctrl-C: where every kernel was, as a deadlock report says
            raise _interrupted(harts) from None
        except RunawayKernelError as e:  # a hart names itself; the others are named here
            ctx = e.context
            others = [h for h in harts if (h.node.coord, h.slot) != (ctx.node, ctx.slot)]
            raise RunawayKernelError(e.detail, ctx, _sites(others)) from None


@contextmanager
def _ctrl_c_between_rounds() -> Iterator[list[bool]]:
    """While harts run, Ctrl-C sets a flag the scheduler reads between rounds.

    Python raises KeyboardInterrupt wherever the main thread is, and it is often
    inside an emulator callback, where ctypes prints the exception and drops it:
    the Ctrl-C would be lost and an endless run would go on. A handler that only
    sets a flag loses nothing; a Ctrl-C that arrives as the run ends is raised
    after it. A program that installed its own SIGINT handler keeps it.
    """
    flag = [False]
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        yield flag
        return

    def note(signum: int, frame: object) -> None:
        flag[0] = True

    previous = signal.signal(signal.SIGINT, note)
    try:
        yield flag
    finally:
        signal.signal(signal.SIGINT, previous)
    if flag[0]:
        raise KeyboardInterrupt


def _run_rounds(
    harts: list[Hart], quantum: int | None, livelock_budget: int | None, interrupted: list[bool]
) -> int:
    rounds = 0
    blocked, done = HartState.BLOCKED, HartState.DONE
    live = [h for h in harts if h.state is not done]
    watch = _ProgressWatch(harts, livelock_budget)
    while live:
        if interrupted[0]:
            interrupted[0] = False  # reported here, not raised again on the way out
            raise _interrupted(harts)
        rounds += 1
        watch.check()
        ran = False
        for hart in live:
            if hart.state is blocked:
                if not hart.can_resume():
                    continue
                hart.resume()
            hart.run(quantum)
            ran = True
            if hart.state is blocked and hart.can_resume():
                # Legitimate once: the quantum can expire between the device's check
                # and its yield while another hart frees the DFB. Twice in a row would
                # mean host and device disagree, and resuming would spin forever.
                hart.spurious_blocks += 1
                if hart.spurious_blocks > 1:
                    raise RuntimeError(
                        f"internal: kernel '{hart.kernel}' keeps blocking on a wait the host "
                        f"considers satisfiable: {hart.describe_wait()}"
                    )
            else:
                hart.spurious_blocks = 0
        live = [h for h in live if h.state is not done]
        if live and not ran:
            raise _deadlock(harts)
    return rounds


class _ProgressWatch:
    """Counts the instructions the harts execute since anything observable changed.

    Blocks, finishes, tile commands and NOC bytes are cheap to compare and change
    in almost every round of a healthy run; the node register pages (DFB counters,
    semaphores) are compared only in rounds where nothing else moved.
    """

    def __init__(self, harts: list[Hart], budget: int | None):
        self.harts, self.budget = harts, budget
        self.nodes = list({id(h.node): h.node for h in harts}.values())
        self.events = self._events()
        self.words: tuple[bytes, ...] | None = None
        self.used = self._used()
        self.idle = 0

    def _events(self) -> tuple:
        noc = self.harts[0].noc if self.harts else None
        return (
            tuple((h.state, sum(h.stalls.values()), h.cop.commands) for h in self.harts),
            (noc.bytes_read, noc.bytes_written) if noc is not None else (),
        )

    def _words(self) -> tuple[bytes, ...]:
        return tuple(n.regs.tobytes() for n in self.nodes)

    def _used(self) -> int:
        return sum(h.budget_used for h in self.harts)

    def check(self) -> None:
        if self.budget is None:
            return
        used, events = self._used(), self._events()
        progressed = events != self.events
        if not progressed:
            words = self._words()
            progressed = self.words is not None and words != self.words
            self.words = words
        else:
            self.events, self.words = events, None
        self.idle = 0 if progressed else self.idle + used - self.used
        self.used = used
        if self.idle > self.budget:
            raise _livelock(self.harts, self.idle)


def _sites(harts: list[Hart]) -> list[str]:
    """One line per unfinished hart: where it runs or what it waits on."""
    sites = []
    for h in harts:
        if h.state is HartState.DONE:
            continue
        x, y = h.node.coord
        where = (
            "blocked in " + h.describe_wait()
            if h.state is HartState.BLOCKED
            else "running at " + h.where_running()
        )
        sites.append(f"  node ({x},{y}) {h.slot} kernel '{h.kernel}': {where}{h.debug_context()}")
    return sites


def _interrupted(harts: list[Hart]) -> InterruptedRunError:
    sites = _sites(harts)
    report = "interrupted (Ctrl-C): where the unfinished kernels were\n" + "\n".join(sites)
    return InterruptedRunError(report, sites)


def _livelock(harts: list[Hart], idle: int) -> LivelockError:
    sites = _sites(harts)
    report = (
        f"livelock: the kernels executed {idle} instructions without any progress (no "
        "DFB page, semaphore, NOC transfer or tile operation changed)\n"
        + "\n".join(sites)
        + "\nA kernel is spinning on a condition no other kernel will change. If it really "
        "computes that long without moving data, call the operation with "
        "device=ttl.runtime.Device(target, grid, livelock_budget=None) (or a larger budget)."
    )
    return LivelockError(report, sites)


_FINISHED_LISTED = 8  # more finished kernels than this are summed up in one line


def _deadlock(harts: list[Hart]) -> DeadlockError:
    blocked, finished = [], []
    for h in harts:
        x, y = h.node.coord
        head = f"  node ({x},{y}) {h.slot} kernel '{h.kernel}': "
        if h.state is HartState.DONE:
            finished.append(head + "finished")
        else:
            blocked.append(head + "blocked in " + h.describe_wait() + h.debug_context())
    waits = blocked + finished
    shown = blocked + (
        finished
        if len(finished) <= _FINISHED_LISTED
        else [f"  ({len(finished)} other kernels finished)"]
    )
    on_dfbs = any(h.wait is not None and h.wait.kind in DFB_WAITS for h in harts)
    report = (
        "deadlock: every unfinished kernel is blocked and no state can change\n"
        + "\n".join(shown)
        + (
            "\nCheck that every DFB page reserved/pushed by a producer is waited/popped "
            "by its consumer in the same order and count."
            if on_dfbs
            else "\nCheck that every semaphore or pipe a kernel waits on is set or sent by "
            "another kernel (on the node and in the order it expects)."
        )
    )
    return DeadlockError(report, waits)
