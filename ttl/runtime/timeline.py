"""What a traced launch records besides signpost zones and waits.

Two kinds of records, both in cycles of the profile's timing model
(``Hart.clock``), read by :mod:`ttl.runtime.trace`:

* :class:`NocTransfer`: one NOC request a hart issued. The model gives NOC
  transfers no cycles; the emulator runs a hart's queued requests when it
  drains the queue (a barrier, a full queue, ``cb_push_back``/``cb_pop_front``,
  the hart stopping). A transfer is recorded as in flight from the hart's
  previous drain (the earliest cycle it can have been issued) to the drain
  that completed it.
* :class:`DfbCount`: a DFB's pages filled (received minus acknowledged) right
  after a push or pop changed them, at the pushing or popping hart's cycle.
  The value is exact (the emulator's order of events); the cycle is the
  model's. The model advances a waiting hart's clock only when it blocked, so
  a consumer whose wait succeeded at once can pop at an earlier cycle than
  the push it consumed: in cycle order a track can then rise late or fall
  early, never outside [0, capacity].
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ttl.runtime import memmap

NOC_KINDS = {
    memmap.NOC_READ: "noc read",
    memmap.NOC_WRITE: "noc write",
    memmap.NOC_WRITE_MCAST: "noc multicast",
    memmap.NOC_SEM_INC: "noc semaphore inc",
}


@dataclass(frozen=True)
class NocTransfer:
    """One NOC request of one hart: kind, endpoints, bytes, and its in-flight cycles."""

    kind: str  # a NOC_KINDS value
    source: str  # e.g. "DRAM bank 2 @ 0x10000", "L1 @ 0x2000"
    destination: str
    size: int  # bytes (for a semaphore increment: the increment)
    issued_after: int  # cycle of the hart's previous queue drain
    done: int  # cycle of the drain that ran it


@dataclass(frozen=True)
class DfbCount:
    """DFB ``dfb`` of ``node`` held ``filled`` pages after a change at ``cycle``."""

    node: tuple[int, int]
    dfb: int
    cycle: int
    filled: int


def transfer(
    cmd: int, src: int, dst: int, size: int, extra: int, issued_after: int, done: int
) -> NocTransfer:
    """The record of one queued request (the NOC queue's words, see memmap)."""
    kind = NOC_KINDS.get(cmd, f"noc command {cmd}")
    if cmd == memmap.NOC_READ:
        return NocTransfer(kind, noc_address(src), local_address(dst), size, issued_after, done)
    if cmd == memmap.NOC_WRITE_MCAST:
        return NocTransfer(
            kind,
            local_address(src),
            multicast_address(dst) + f" ({extra & ~memmap.NOC_MCAST_LOOPBACK} nodes)",
            size,
            issued_after,
            done,
        )
    if cmd == memmap.NOC_SEM_INC:
        return NocTransfer(kind, "-", noc_address(dst), extra, issued_after, done)
    return NocTransfer(kind, local_address(src), noc_address(dst), size, issued_after, done)


def local_address(addr: int) -> str:
    """An address in the issuing node's memory."""
    return f"L1 @ {addr & 0xFFFFFFFF:#x}"


def noc_address(noc_addr: int) -> str:
    """A unicast NOC address: a DRAM bank's, or a node's by its NOC coordinates."""
    hi, addr = noc_addr >> 32, noc_addr & 0xFFFFFFFF
    if hi & memmap.NOC_DRAM_FLAG:
        return f"DRAM bank {hi & 0xFFFF} @ {addr:#x}"
    return f"NOC ({hi & 0xFF},{hi >> 8 & 0xFF}) @ {addr:#x}"


def multicast_address(noc_addr: int) -> str:
    """A multicast NOC address: its rectangle of NOC coordinates."""
    hi, addr = noc_addr >> 32, noc_addr & 0xFFFFFFFF
    x0, y0, x1, y1 = hi & 0xFF, hi >> 8 & 0xFF, hi >> 16 & 0xFF, hi >> 24 & 0xFF
    return f"NOC ({x0},{y0})-({x1},{y1}) @ {addr:#x}"


def occupancy(counts: Iterable[DfbCount]) -> list[DfbCount]:
    """``counts`` in cycle order (stable: the emulator's order within a cycle)."""
    return sorted(counts, key=lambda c: c.cycle)
