"""Pipe-net bookkeeping resolved at compile time: sync slots, semaphores, uses.

Every pipe of the operation gets a *slot*: a landing buffer (a one-block DFB at
the same L1 address on every node) and two semaphores, ``pending`` on the
sender (receivers that have not taken the last message yet) and ``valid`` on
each receiver (a message is in the landing buffer). Two pipes share a slot
only when no node could need both at once: their destination ranges are
disjoint and their sources differ (greedy colouring in creation order). So a
row-multicast net and a column-multicast net take two slots, a gather into
one node takes one slot per source.

Semaphore 0 holds the constant 1 that ``noc_semaphore_set_multicast`` copies
into receivers' ``valid`` words; slot ``s`` uses semaphores ``1 + 2s``
(pending) and ``2 + 2s`` (valid).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ttl.errors import SourceLoc
from ttl.pipes import PipeEnds, PipeNet

ONE_SEMAPHORE = 0


@dataclass(frozen=True)
class PipeUse:
    """One ``ttl.copy`` into (send) or out of (receive) a pipe, for cross-kernel checks."""

    shape: tuple[int, ...]
    dtype: str
    loc: SourceLoc


@dataclass
class PipeTables:
    """The operation's pipes, their slots, landing buffers and copies seen so far."""

    nets: list[PipeNet]
    slots: dict[tuple[int, int], int] = field(default_factory=dict)  # (net, pipe) -> slot
    landing: dict[tuple[int, tuple[int, ...], str], Any] = field(default_factory=dict)
    sends: dict[tuple[int, int], list[PipeUse]] = field(default_factory=dict)
    receives: dict[tuple[int, int], list[PipeUse]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        members: list[list[PipeEnds]] = []
        for net in self.nets:
            for i, pipe in enumerate(net.pipes):
                ends = pipe.ends
                free = (s for s, used in enumerate(members) if not _conflicts(ends, used))
                slot = next(free, len(members))
                if slot == len(members):
                    members.append([])
                members[slot].append(ends)
                self.slots[(net.order, i)] = slot

    @property
    def num_slots(self) -> int:
        return max(self.slots.values(), default=-1) + 1

    def semaphore_table(self) -> list[tuple[str, int]]:
        """The pipes' semaphores by id, (name, initial value): the constant 1, then
        (pending, valid) per slot; none without pipes."""
        if not self.slots:
            return []
        table = [("pipe_one", 1)]
        for slot in range(self.num_slots):
            table += [(f"pipe{slot}_pending", 0), (f"pipe{slot}_valid", 0)]
        return table

    @staticmethod
    def pending_semaphore(slot: int) -> int:
        return 1 + 2 * slot

    @staticmethod
    def valid_semaphore(slot: int) -> int:
        return 2 + 2 * slot


def _conflicts(a: PipeEnds, others: list[PipeEnds]) -> bool:
    return any(_conflict(a, b) for b in others)


def _conflict(a: PipeEnds, b: PipeEnds) -> bool:
    """True if one node could use the sync words of both pipes at once."""
    (ax0, ax1), (ay0, ay1) = a.rect
    (bx0, bx1), (by0, by1) = b.rect
    overlap = ax0 < bx1 and bx0 < ax1 and ay0 < by1 and by0 < ay1
    return overlap or a.src == b.src
