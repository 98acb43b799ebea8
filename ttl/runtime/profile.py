"""Per-call profile of JIT-dispatched operations, as data and as a table.

Each call's figures are its launch's ``RunReport`` (docs/jit.md, "Profile",
defines them). With profiling on (``jit.configure(profile=True)``, what
``ttl run --profile`` does) the emulator measures, per kernel, the exact
RISC-V instructions executed and, per blocking wait (DFB or semaphore), the
cycles waited under the profile's timing model (``Hart.clock``: one
instruction per cycle per hart, harts in parallel, NOC and tile math free).
Without profiling those two are absent (``None`` / empty); blocking events per wait,
tiles moved and coprocessor ops are always there.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from ttl.runtime.noc import NodeTraffic
from ttl.runtime.scheduler import (
    WAIT_LEGEND,
    KernelStats,
    RunReport,
    kernel_table,
    signpost_table,
)
from ttl.runtime.timeline import DfbCount

KernelProfile = KernelStats  # one kernel on one node during one call


@dataclass(frozen=True)
class CallProfile:
    """One dispatch of an operation."""

    operation: str
    target: str
    grid: tuple[int, int]
    cache: str  # "compiled", "disk" (cache entry reused) or "memory"
    compile_seconds: float  # compiler + device toolchain (0 on a hit)
    run_seconds: float  # emulation (Device.launch)
    noc_bytes_read: int
    noc_bytes_written: int
    tiles_moved: int | None  # NOC bytes / DFB page size; None when the DFBs' page sizes differ
    coprocessor_ops: int
    profiled: bool  # instructions and waits measured
    kernels: list[KernelStats]
    dfb_counts: list[DfbCount] = field(default_factory=list)  # traced calls only
    # Per node, keyed "x,y" (JSON keys are strings): the NOC requests it issued (noc.NodeTraffic).
    noc_traffic: dict[str, Any] = field(default_factory=dict)
    failed: str = ""  # the error that ended the call (e.g. "DeadlockError"); "" if it completed

    @classmethod
    def from_report(
        cls,
        *,
        operation: str,
        target: str,
        grid: tuple[int, int],
        cache: str,
        compile_seconds: float,
        report: RunReport,
        failed: str = "",
    ) -> CallProfile:
        """Builds the profile of a call from its launch's report (``failed``: the error
        that ended it, the report then holds the kernels' state at that point)."""
        return cls(
            operation,
            target,
            grid,
            cache,
            compile_seconds,
            report.seconds,
            report.noc_bytes_read,
            report.noc_bytes_written,
            report.tiles_moved,
            report.coprocessor_commands,
            report.profiled,
            list(report.kernels),
            list(report.dfb_counts),
            {f"{x},{y}": t for (x, y), t in report.noc_traffic.items()},
            failed,
        )


@dataclass
class Profile:
    """Every call profiled in this process, in order."""

    calls: list[CallProfile] = field(default_factory=list)
    # Earlier calls let go by :meth:`add` (unprofiled calls keep only the latest few).
    dropped: int = 0

    def add(self, call: CallProfile, keep: int | None = None) -> None:
        """Records ``call``; with ``keep``, only the latest ``keep`` calls stay (a program
        calling an operation in a loop without profiling keeps its memory flat)."""
        self.calls.append(call)
        if keep is not None and len(self.calls) > keep:
            excess = len(self.calls) - keep
            del self.calls[:excess]
            self.dropped += excess

    def to_dict(self) -> dict[str, Any]:
        """Plain data (JSON-serialisable)."""
        return {"calls": [asdict(c) for c in self.calls]}

    def table(self) -> str:
        """The profile as fixed-width text: one block per call."""
        if not self.calls:
            return "ttl profile: no TT-Lang operation was called"
        out = ["ttl profile (instructions: RISC-V instructions executed, exact; docs/jit.md)"]
        if self.dropped:
            out.append(f"({self.dropped} earlier calls, made without profiling, not kept)")
        for i, c in enumerate(self.calls, self.dropped + 1):
            tiles = "-" if c.tiles_moved is None else str(c.tiles_moved)
            out.append(
                f"call {i}: {c.operation} on {c.target} {c.grid[0]}x{c.grid[1]}  "
                f"[{c.cache}{f', compile {c.compile_seconds:.2f} s' if c.compile_seconds else ''}"
                f", run {c.run_seconds:.3f} s{f', failed: {c.failed}' if c.failed else ''}]"
            )
            out.append(
                f"  tiles moved {tiles}  (NOC {c.noc_bytes_read} B read, "
                f"{c.noc_bytes_written} B written)  cop ops {c.coprocessor_ops}"
            )
            out.append(_indent(copy_table(c.noc_traffic.values())))
            if any(t.multicasts for t in c.noc_traffic.values()):
                per_node = "  ".join(f"({xy}) {t.multicasts}" for xy, t in c.noc_traffic.items())
                out.append(f"  NOC multicasts per node: {per_node}")
            out.append(_indent(kernel_table(c.kernels, c.profiled)))
            if any(k.signposts for k in c.kernels):
                out.append(_indent(signpost_table(c.kernels)))
        out.append(WAIT_LEGEND)
        return "\n".join(out)


COPY_KINDS = (
    ("DRAM", "dram_bytes_read", "dram_bytes_written"),
    ("local L1", "local_l1_bytes_read", "local_l1_bytes_written"),
    ("remote L1", "remote_l1_bytes_read", "remote_l1_bytes_written"),
)


def copy_totals(traffic: Iterable[NodeTraffic]) -> dict[str, tuple[int, int]]:
    """Tensor-copy bytes (read, written) over all nodes by kind: interleaved pages in DRAM,
    L1-sharded pages in the copying node's own L1 (local) or another node's (remote)."""
    nodes = list(traffic)
    return {
        kind: (sum(getattr(t, rd) for t in nodes), sum(getattr(t, wr) for t in nodes))
        for kind, rd, wr in COPY_KINDS
    }


def copy_table(traffic: Iterable[NodeTraffic]) -> str:
    """:func:`copy_totals` as a short fixed-width table."""
    lines = [f"{'tensor copies':<14}{'bytes read':>12}{'bytes written':>15}"]
    for kind, (read, written) in copy_totals(traffic).items():
        lines.append(f"{kind:<14}{read:>12}{written:>15}")
    return "\n".join(lines)


def _indent(text: str) -> str:
    return "\n".join("  " + line for line in text.splitlines())
