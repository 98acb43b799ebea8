"""Round-robin scheduling of harts in instruction quanta, with deadlock detection."""

from __future__ import annotations

from dataclasses import dataclass, field

from ttl.runtime.errors import DeadlockError
from ttl.runtime.hart import Hart, HartState


@dataclass
class KernelStats:
    """Per-hart figures of one run."""

    kernel: str
    node: tuple[int, int]
    slot: str
    turns: int  # times the hart was run (each ends at a blocking call, quantum or the end)
    budget_used: int  # instructions charged against the budget (see Hart.budget_used)
    coprocessor_commands: int
    stalls: dict[str, int] = field(default_factory=dict)


@dataclass
class RunReport:
    """What a launch did: per-kernel statistics and NOC traffic."""

    kernels: list[KernelStats]
    noc_bytes_read: int
    noc_bytes_written: int
    rounds: int
    seconds: float = 0.0  # wall time of the launch (harts created to last hart done)

    def table(self) -> str:
        """The statistics as a fixed-width text table."""
        rows = [("kernel", "node", "slot", "turns", "budget used", "cop cmds", "stalls")]
        for k in self.kernels:
            stalls = ", ".join(f"{n} x{c}" for n, c in sorted(k.stalls.items())) or "-"
            rows.append((k.kernel, f"({k.node[0]},{k.node[1]})", k.slot, str(k.turns),
                         str(k.budget_used),
                         str(k.coprocessor_commands), stalls))
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[-1] for r in rows]
        lines.append(f"NOC: {self.noc_bytes_read} B read, {self.noc_bytes_written} B written; "
                     f"{self.rounds} scheduling rounds; {self.seconds:.3f} s")
        return "\n".join(lines)

    __str__ = table


def run_harts(harts: list[Hart], quantum: int | None) -> int:
    """Runs ``harts`` to completion; returns the number of scheduling rounds.

    Each round gives every runnable hart one quantum. A blocked hart is
    runnable once its wait can succeed. If no hart is runnable and some are
    unfinished, nothing can change any more: raise DeadlockError.
    """
    rounds = 0
    live = [h for h in harts if h.state is not HartState.DONE]
    while live:
        rounds += 1
        ran = False
        for hart in live:
            if hart.state is HartState.BLOCKED:
                if not hart.can_resume():
                    continue
                hart.state, hart.wait = HartState.READY, None
            hart.run(quantum)
            ran = True
            if hart.state is HartState.BLOCKED and hart.can_resume():
                # Legitimate once: the quantum can expire between the device's check
                # and its yield while another hart frees the DFB. Twice in a row would
                # mean host and device disagree, and resuming would spin forever.
                hart.spurious_blocks += 1
                if hart.spurious_blocks > 1:
                    raise RuntimeError(
                        f"internal: kernel '{hart.kernel}' keeps blocking on a wait the host "
                        f"considers satisfiable: {hart.describe_wait()}")
            else:
                hart.spurious_blocks = 0
        live = [h for h in live if h.state is not HartState.DONE]
        if live and not ran:
            raise _deadlock(harts)
    return rounds


def _deadlock(harts: list[Hart]) -> DeadlockError:
    waits = []
    for h in harts:
        x, y = h.node.coord
        head = f"  node ({x},{y}) {h.slot} kernel '{h.kernel}': "
        if h.state is HartState.DONE:
            waits.append(head + "finished")
        else:
            waits.append(head + "blocked in " + h.describe_wait())
    report = ("deadlock: every unfinished kernel is blocked and no state can change\n"
              + "\n".join(waits)
              + "\nCheck that every DFB page reserved/pushed by a producer is waited/popped "
                "by its consumer in the same order and count.")
    return DeadlockError(report, waits)
