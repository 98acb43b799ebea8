"""A progress line on stderr for long JIT steps (compiling, building, emulating).

Shown only when the stream is a terminal and the step has taken longer than
``delay`` seconds, so short runs, pipes, logs and tests stay clean. A daemon
thread redraws one line every ``interval`` seconds and erases it at the end;
``TTL_PROGRESS=0`` turns it off.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Self, TextIO


class Progress:
    """``with Progress("running eltwise"):`` shows ``ttl: running eltwise... 3.1 s``."""

    def __init__(
        self,
        what: str,
        stream: TextIO | None = None,
        *,
        delay: float = 1.0,
        interval: float = 0.25,
        detail: Callable[[], str | None] | None = None,
    ):
        """``detail``: called at each redraw for how far the step is (e.g. an emulator
        run's tile operations and finished nodes), shown after the time; None: nothing."""
        self.what = what
        self.detail = detail
        self.stream = stream or sys.stderr
        self.delay, self.interval = delay, interval
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._shown = False

    def enabled(self) -> bool:
        """A terminal, and not switched off with TTL_PROGRESS=0."""
        if os.environ.get("TTL_PROGRESS", "1") == "0":
            return False
        isatty = getattr(self.stream, "isatty", None)
        return bool(isatty and isatty())

    def update(self, what: str) -> None:
        """Changes the text of the line (e.g. the kernel being built)."""
        self.what = what

    def __enter__(self) -> Self:
        if self.enabled():
            self._thread = threading.Thread(target=self._loop, name="ttl-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            if self._shown:
                self.stream.write("\r\033[K")
                self.stream.flush()

    def _loop(self) -> None:
        start = time.monotonic()
        if self._stop.wait(self.delay):
            return
        while not self._stop.is_set():
            extra = self.detail() if self.detail is not None else None
            suffix = f" ({extra})" if extra else ""
            line = f"\r\033[Kttl: {self.what}... {time.monotonic() - start:.1f} s{suffix}"
            self.stream.write(line)
            self.stream.flush()
            self._shown = True
            self._stop.wait(self.interval)
