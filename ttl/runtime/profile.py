"""Per-call profile of JIT-dispatched operations, as data and as a table.

Built only from counters the emulator already keeps (``RunReport``,
``KernelStats``, the NOC byte counters). What each figure measures, honestly:

* ``instr charged``: instructions charged against the kernel's budget. Exact
  for counted quanta; a stop at a blocking call is charged a flat
  ``yield_charge`` (100) because Unicorn exposes no instruction counter. It
  is an estimate of instructions executed, not a count.
* ``blocks per wait``: how many times the kernel blocked on each DFB (or
  semaphore) wait. The emulator has no cycle model, so these are blocking
  events, not cycles waited.
* ``tiles moved``: NOC bytes (read + written) of the call divided by the tile
  page size, when every tensor of the operation has the same page size.
* ``cop ops``: coprocessor (tile math) commands executed.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from ttl.runtime.scheduler import RunReport


@dataclass(frozen=True)
class KernelProfile:
    """One kernel on one node during one call."""

    kernel: str
    node: tuple[int, int]
    slot: str
    turns: int
    instructions_charged: int
    coprocessor_ops: int
    blocks_per_wait: dict[str, int]


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
    tiles_moved: int | None  # None when tensors have different page sizes
    coprocessor_ops: int
    kernels: list[KernelProfile]

    @classmethod
    def from_report(cls, *, operation: str, target: str, grid: tuple[int, int], cache: str,
                    compile_seconds: float, report: RunReport, noc_read: int, noc_written: int,
                    page_sizes: set[int]) -> CallProfile:
        """Builds the profile of a call; ``noc_*`` are this call's NOC bytes (not cumulative)."""
        kernels = [KernelProfile(k.kernel, tuple(k.node), k.slot, k.turns, k.budget_used,
                                 k.coprocessor_commands, dict(k.stalls))
                   for k in report.kernels]
        page = next(iter(page_sizes)) if len(page_sizes) == 1 else None
        return cls(operation, target, grid, cache, compile_seconds, report.seconds, noc_read,
                   noc_written, (noc_read + noc_written) // page if page else None,
                   sum(k.coprocessor_ops for k in kernels), kernels)


@dataclass
class Profile:
    """Every call profiled in this process, in order."""

    calls: list[CallProfile] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """Plain data (JSON-serialisable)."""
        return {"calls": [asdict(c) for c in self.calls]}

    def table(self) -> str:
        """The profile as fixed-width text: one block per call."""
        if not self.calls:
            return "ttl profile: no TT-Lang operation was called"
        header = ("ttl profile (instr charged = instructions charged to the budget, an estimate; "
                  "blocks per wait = blocking events, not cycles; see docs/jit.md)")
        out = [header]
        for i, c in enumerate(self.calls, 1):
            tiles = "-" if c.tiles_moved is None else str(c.tiles_moved)
            out.append(
                f"call {i}: {c.operation} on {c.target} {c.grid[0]}x{c.grid[1]}  "
                f"[{c.cache}{f', compile {c.compile_seconds:.2f} s' if c.compile_seconds else ''}"
                f", run {c.run_seconds:.3f} s]")
            out.append(f"  tiles moved {tiles}  (NOC {c.noc_bytes_read} B read, "
                       f"{c.noc_bytes_written} B written)  cop ops {c.coprocessor_ops}")
            out.append(_indent(_kernel_table(c.kernels)))
        return "\n".join(out)


def _kernel_table(kernels: list[KernelProfile]) -> str:
    rows = [("kernel", "node", "slot", "instr charged", "turns", "cop ops", "blocks per wait")]
    for k in kernels:
        waits = ", ".join(f"{w} x{n}" for w, n in sorted(k.blocks_per_wait.items())) or "-"
        rows.append((k.kernel, f"({k.node[0]},{k.node[1]})", k.slot,
                     str(k.instructions_charged), str(k.turns), str(k.coprocessor_ops), waits))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[-1]
                     for r in rows)


def _indent(text: str) -> str:
    return "\n".join("  " + line for line in text.splitlines())
