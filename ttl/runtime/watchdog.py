"""Preempts uncounted emulation runs that go on too long.

Harts normally run without Unicorn's instruction counter (a per-instruction
hook that costs ~20% of emulation speed) until they block or finish. A hart
that does neither for a while (a long compute loop or a runaway) is stopped by
this watchdog from a helper thread (``uc_emu_stop`` is thread-safe; Unicorn's
own timeout works the same way) and continues in counted quanta, where the
instruction budget applies exactly.
"""

from __future__ import annotations

import threading
import time


class Watchdog:
    """One daemon thread stopping the armed Unicorn run once it outlives a slice."""

    def __init__(self, slice_seconds: float = 0.02):
        self.slice_seconds = slice_seconds
        self._uc = None
        self._generation = 0
        threading.Thread(target=self._loop, name="ttl-runtime-watchdog", daemon=True).start()

    def arm(self, uc) -> None:
        """Watches the run about to start on ``uc``."""
        self._generation += 1
        self._uc = uc

    def disarm(self) -> None:
        self._uc = None

    def _loop(self) -> None:
        seen = None
        while True:
            time.sleep(self.slice_seconds)
            uc, generation = self._uc, self._generation
            if uc is not None and generation == seen:
                # Armed for a whole slice. If the run just ended and another began,
                # the stop only preempts that one early, which is harmless.
                uc.emu_stop()
            seen = generation if uc is not None else None


_instance: Watchdog | None = None
_lock = threading.Lock()


def watchdog() -> Watchdog:
    """The process-wide watchdog (started on first use)."""
    global _instance
    with _lock:
        if _instance is None:
            _instance = Watchdog()
        return _instance
