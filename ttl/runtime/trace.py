"""Timelines of traced launches in Chrome Trace Event Format (Perfetto, chrome://tracing).

A traced device (``Device(trace=True)``, ``ttl run --trace=FILE``,
``jit.configure(trace=True)``) records, per hart, its signpost zones, blocking
waits and NOC requests, and per node every DFB counter change, in cycles of
the profile's timing model (``Hart.clock``). This module turns calls' records
into the JSON object format of the Trace Event Format: one process per node,
one thread per processor slot (named after the kernel), and

* complete events (``"ph": "X"``) for each kernel's lifetime (cat ``kernel``),
  each signpost zone (``signpost``) and each blocking wait (``dfb_wait`` for
  ``cb_wait_front``/``cb_reserve_back``, ``semaphore_wait`` for
  ``noc_semaphore_wait``/``_min``);
* async events (``"ph": "b"``/``"e"``, cat ``noc``) for each NOC transfer, on
  the issuing node, from the hart's previous NOC queue drain to the drain that
  ran it (see :mod:`ttl.runtime.timeline`);
* counter events (``"ph": "C"``, name ``DFB i``) with each DFB's pages filled.

Timestamps are model cycles written where the format expects microseconds,
so the viewer's "1 us" is one cycle (``otherData`` says so). Calls follow
each other on the time axis in order.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from typing import Any

from ttl.runtime.scheduler import KernelStats
from ttl.runtime.timeline import DfbCount, occupancy

TIME_UNIT = "model cycles (shown as microseconds: 1 us = 1 cycle)"
_SLOTS = ("dm0", "dm1", "compute")  # thread order within a node
_GAP = 10  # cycles between consecutive calls on the time axis
_SEMAPHORE_WAITS = ("noc_semaphore_wait",)  # prefixes of semaphore waits' names

# (operation name, its kernels' statistics, its DFB counter changes); the third
# element may be left out (a call traced without DFB counters).
Call = tuple[str, Sequence[KernelStats]] | tuple[str, Sequence[KernelStats], Sequence[DfbCount]]


def chrome_trace(calls: Sequence[Call]) -> dict[str, Any]:
    """The trace of ``calls`` in call order (see :data:`Call`)."""
    events: list[dict[str, Any]] = []
    threads: dict[tuple[int, int], tuple[str, str]] = {}  # (pid, tid) -> (node, thread)
    start = 0
    transfer_id = 0
    for index, call in enumerate(calls, 1):
        operation, kernels = call[0], call[1]
        end = start
        for k in kernels:
            pid, tid = _pid(k.node), _tid(k.slot)
            threads.setdefault(
                (pid, tid), (f"node ({k.node[0]},{k.node[1]})", f"{k.slot} ({k.kernel})")
            )
            cycles = k.cycles or 0
            end = max(end, start + cycles)
            args = {"call": index, "operation": operation, "instructions": k.instructions}
            events.append(_span(k.kernel, "kernel", start, cycles, pid, tid, args))
            for z in k.zones:
                if z.begin is None or z.end is None:
                    continue
                events.append(
                    _span(
                        z.name,
                        "signpost",
                        start + z.begin,
                        z.end - z.begin,
                        pid,
                        tid,
                        {"instructions": z.instructions, "depth": z.depth},
                    )
                )
            for a, b, wait in k.wait_spans:
                cat = "semaphore_wait" if wait.startswith(_SEMAPHORE_WAITS) else "dfb_wait"
                events.append(_span(wait, cat, start + a, b - a, pid, tid, {}))
            for t in k.transfers:
                transfer_id += 1
                common = {"name": t.kind, "cat": "noc", "id": transfer_id, "pid": pid, "tid": tid}
                args = {
                    "kernel": k.kernel,
                    "source": t.source,
                    "destination": t.destination,
                    "bytes" if t.kind != "noc semaphore inc" else "increment": t.size,
                }
                events.append({**common, "ph": "b", "ts": start + t.issued_after, "args": args})
                events.append({**common, "ph": "e", "ts": start + t.done, "args": {}})
        counts: Sequence[DfbCount] = call[2] if len(call) > 2 else ()
        for c in occupancy(counts):
            events.append(
                {
                    "name": f"DFB {c.dfb}",
                    "cat": "dfb",
                    "ph": "C",
                    "ts": start + c.cycle,
                    "pid": _pid(c.node),
                    "args": {"pages filled": c.filled},
                }
            )
        start = end + _GAP
    meta: list[dict[str, Any]] = []
    for (pid, tid), (node, slot) in sorted(threads.items()):
        if not any(m["pid"] == pid and m["name"] == "process_name" for m in meta):
            meta.append(_meta("process_name", pid, 0, {"name": node}))
            meta.append(_meta("process_sort_index", pid, 0, {"sort_index": pid}))
        meta.append(_meta("thread_name", pid, tid, {"name": slot}))
        meta.append(_meta("thread_sort_index", pid, tid, {"sort_index": tid}))
    return {
        "traceEvents": meta + events,
        "displayTimeUnit": "ns",
        "otherData": {"time_unit": TIME_UNIT, "generator": "ttl-bazel emulator"},
    }


def check_writable(path: str, what: str = "trace file") -> None:
    """Raises OSError with a clear message unless ``path`` can be written (before a run)."""
    parent = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise OSError(f"{what} {path} is a directory")
    if not os.path.isdir(parent):
        raise OSError(f"cannot write {what} {path}: directory {parent} does not exist")
    if not os.access(parent, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise OSError(f"cannot write {what} {path}: permission denied")


def write_trace(path: str, calls: Iterable[Call]) -> None:
    """Writes the trace of ``calls`` to ``path`` (deterministic JSON). An OSError names
    ``path`` (a write error, ENOSPC say, carries no file name of its own)."""
    text = json.dumps(chrome_trace(list(calls)), indent=0, sort_keys=True) + "\n"
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise OSError(e.errno, e.strerror, e.filename or path) from None


def _pid(node: tuple[int, int]) -> int:
    return 1 + node[1] * 1000 + node[0]


def _tid(slot: str) -> int:
    return 1 + (_SLOTS.index(slot) if slot in _SLOTS else len(_SLOTS))


def _span(
    name: str, cat: str, ts: int, dur: int, pid: int, tid: int, args: dict[str, Any]
) -> dict[str, Any]:
    return {
        "name": name,
        "cat": cat,
        "ph": "X",
        "ts": ts,
        "dur": dur,
        "pid": pid,
        "tid": tid,
        "args": args,
    }


def _meta(name: str, pid: int, tid: int, args: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "ph": "M", "pid": pid, "tid": tid, "args": args}
