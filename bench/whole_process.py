"""Whole-process runs of tt-lang-sim's tutorials: a sized copy, wall time and peak RSS.

Shared by mesh_bench.py and tutorial_bench.py. The tutorials are read from the
tt-lang-sim installation and never committed here; a benchmark runs a copy whose
one size line is rewritten (`sized_copy`). `run_process` runs one command in its
own process and takes its peak RSS from ``os.wait4`` (the child's own
``ru_maxrss``, not this process's).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import NamedTuple

# The one line per tutorial family that sets the problem size, as shipped.
SIZE_LINES = {
    "elementwise": "shape = (2048, 2048)",
    "broadcast": "shape = (2048, 2048)",
    "matmul": "M, K, N = 8192, 8192, 8192",
}


def size_line(family: str, size: int) -> str:
    """The size line of ``family``'s tutorials rewritten to ``size`` (every dimension)."""
    if family == "matmul":
        return f"M, K, N = {size}, {size}, {size}"
    return f"shape = ({size}, {size})"


def sized_copy(tutorial: Path, directory: Path, size: int) -> Path:
    """A copy of ``tutorial`` in ``directory`` whose size line reads ``size`` (the only change)."""
    family = tutorial.parent.name
    shipped = SIZE_LINES[family]
    text = tutorial.read_text()
    if text.count(shipped) != 1:
        sys.exit(f"{tutorial} no longer sets `{shipped}` once: the bench cannot size it")
    copy = directory / family / tutorial.name
    copy.parent.mkdir(parents=True, exist_ok=True)
    copy.write_text(text.replace(shipped, size_line(family, size)))
    return copy


class Run(NamedTuple):
    """What one process cost: wall and CPU (user + system) seconds, peak RSS."""

    seconds: float
    cpu_seconds: float
    rss_mib: float


def run_process(command: list[str], env: dict[str, str]) -> Run:
    """The cost of ``command`` in its own process; exits if it fails.

    CPU seconds are steadier than wall seconds on a shared machine: both are kept.

    A tutorial checks its own result (``assert torch.allclose``, ``assert pcc > 0.99``),
    so a failed check is a non-zero exit here and fails the benchmark.
    """
    start = time.perf_counter()
    proc = subprocess.Popen(
        command,
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(command)} failed (exit {proc.returncode}):\n{err[-3000:]}")
    return Run(seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)
