"""Blocking waits: what a parked hart waits on, when it can go on, how to say it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ttl.runtime import memmap
from ttl.runtime.errors import DeviceFault

WAIT_NAMES = {
    memmap.WAIT_RESERVE_BACK: "cb_reserve_back",
    memmap.WAIT_FRONT: "cb_wait_front",
    memmap.WAIT_SEM_EQ: "noc_semaphore_wait",
    memmap.WAIT_SEM_GE: "noc_semaphore_wait_min",
}

DFB_WAITS = (memmap.WAIT_RESERVE_BACK, memmap.WAIT_FRONT)  # kinds whose `a` is a DFB index
_SEM_WAITS = (memmap.WAIT_SEM_EQ, memmap.WAIT_SEM_GE)


@dataclass(slots=True)
class Wait:
    """A parked blocking call: kind, its two arguments and the kernel's call site."""

    kind: int
    a: int  # DFB index or semaphore address
    b: int  # pages or semaphore value
    site: int  # return address of the API call

    def describe(self) -> str:
        """The call, e.g. 'cb_wait_front(DFB 0, 1 page)'."""
        name = WAIT_NAMES.get(self.kind, f"wait {self.kind}")
        if self.kind in DFB_WAITS:
            return f"{name}(DFB {self.a}, {self.b} page{'s' if self.b != 1 else ''})"
        return f"{name}(semaphore at {self.a:#x}, value {self.b})"

    def state(self, node) -> str:
        """The state the wait depends on: DFB counters or the semaphore's value."""
        if self.kind in DFB_WAITS:
            return node.dfbs[self.a].describe()
        index = (self.a - memmap.NODE_REGS_BASE - memmap.SEM_OFFSET) // 4
        names = node.semaphore_names
        known = self.a % 4 == 0 and 0 <= index < len(names)
        named = f"semaphore '{names[index]}' (index {index}): " if known else ""
        try:
            return f"{named}current value {node.read_word(self.a)}"
        except DeviceFault:
            return f"{named}current value unreadable"


def predicate(node, w: Wait) -> Callable[[], bool]:
    """A cheap closure telling whether ``w`` can succeed on ``node`` now.

    Uses the device code's own formulas. Raises DeviceFault (at the call site)
    for a wait that can never succeed or cannot be evaluated.
    """
    if w.kind in DFB_WAITS:
        dfb = node.dfbs[w.a]
        cap, n = dfb.capacity, w.b
        words = memoryview(dfb.words)  # int reads far cheaper than NumPy scalar indexing
        if n > cap:
            raise DeviceFault(
                f"{w.describe()} can never succeed: the DFB holds {cap} pages", ra=w.site
            )
        rec, ack = memmap.DFB_RECEIVED, memmap.DFB_ACKED

        def used() -> int:
            return (words[rec] - words[ack]) & 0xFFFFFFFF

        if w.kind == memmap.WAIT_RESERVE_BACK:
            return lambda: cap - used() >= n
        return lambda: used() >= n
    if w.kind in _SEM_WAITS:
        try:
            word = node.resolve(w.a, 4).view(np.uint32)
        except DeviceFault as e:
            raise DeviceFault(str(e), ra=w.site) from None
        if w.kind == memmap.WAIT_SEM_EQ:
            return lambda: int(word[0]) == w.b
        return lambda: int(word[0]) >= w.b
    raise DeviceFault(f"unknown wait kind {w.kind}", ra=w.site)
