"""A compact timeline picture (PNG) of a trace file, drawn with matplotlib.

Reads the Chrome Trace Event JSON that ``ttl run --trace``,
``jit.write_trace`` and ``ttl_operation_test --trace`` write
(:mod:`ttl.runtime.trace`) and draws, on the model-cycle axis:

* one row per node and processor slot: the kernel's lifetime (grey), its
  blocking waits (red: DFB, orange: semaphore), its signpost zones (one
  colour per name, stacked by depth, labelled in the legend), and the
  completions of its NOC transfers (ticks under the row);
* below, each DFB's pages filled (step lines, the first few tracks).

matplotlib is imported only here; without it, :func:`plot` raises
:class:`PlotError` naming the package to install.
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

_MAX_DFB_TRACKS = 8
_WAIT_COLOURS = {"dfb_wait": "#d62728", "semaphore_wait": "#ff7f0e"}


class PlotError(Exception):
    """Bad input (a file that is not a trace) or matplotlib missing: a one-line message."""


def load_trace(path: str) -> dict[str, Any]:
    """The trace object in ``path``; PlotError if it is not one."""
    try:
        with open(path, encoding="utf-8") as f:
            trace = json.load(f)
    except OSError as e:
        raise PlotError(f"cannot read {path}: {e.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise PlotError(
            f"{path} is not JSON ({e}); expected a trace from ttl run --trace"
        ) from None
    events = trace.get("traceEvents") if isinstance(trace, dict) else None
    if not isinstance(events, list) or not all(isinstance(e, dict) for e in events):
        raise PlotError(f"{path} has no traceEvents list: not a Chrome Trace Event JSON object")
    if not any(e.get("ph") == "X" and e.get("cat") == "kernel" for e in events):
        raise PlotError(f"{path} holds no kernel spans: nothing to plot")
    return trace


def plot(trace: dict[str, Any], out: str, title: str = "") -> None:
    """Draws ``trace`` (a loaded trace object) into the PNG file ``out``."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise PlotError(
            "plotting needs the matplotlib package (pinned in requirements.lock: "
            "tools/setup.sh installs it, or pip install matplotlib==3.11.2)"
        ) from None
    events = trace["traceEvents"]
    rows = _rows(events)
    counters = _counters(events)
    height = 1.2 + 0.32 * len(rows) + (1.6 if counters else 0)
    fig = Figure(figsize=(11, min(height, 40)), dpi=110)
    FigureCanvasAgg(fig)
    grid = fig.add_gridspec(
        2 if counters else 1, 1, height_ratios=[max(len(rows), 2), 3][: 2 if counters else 1]
    )
    ax = fig.add_subplot(grid[0])
    _draw_timeline(ax, events, rows)
    ax.set_title(title or "TT-Lang emulator timeline", fontsize=10)
    if counters:
        ax2 = fig.add_subplot(grid[1], sharex=ax)
        _draw_counters(ax2, counters)
        ax2.set_xlabel("model cycles")
    else:
        ax.set_xlabel("model cycles")
    fig.tight_layout()
    fig.savefig(out, format="png")


def _rows(events: list[dict[str, Any]]) -> list[tuple[int, int]]:
    """(pid, tid) of every thread with a kernel span, top to bottom."""
    return sorted({(e["pid"], e["tid"]) for e in events if e.get("cat") == "kernel"})


def _names(events: list[dict[str, Any]]) -> dict[tuple[int, int], str]:
    process = {e["pid"]: e["args"]["name"] for e in events if e.get("name") == "process_name"}
    return {
        (e["pid"], e["tid"]): f"{process.get(e['pid'], e['pid'])} {e['args']['name']}"
        for e in events
        if e.get("name") == "thread_name"
    }


def _draw_timeline(ax, events: list[dict[str, Any]], rows: list[tuple[int, int]]) -> None:
    row_of = {r: i for i, r in enumerate(rows)}
    names = _names(events)
    palette = ["#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22"]
    zone_colour: dict[str, str] = {}
    noc: dict[tuple[int, int], list[int]] = defaultdict(list)
    for e in events:
        key = (e.get("pid"), e.get("tid"))
        if key not in row_of:
            continue
        y = len(rows) - 1 - row_of[key]  # first row on top
        ph, cat = e.get("ph"), e.get("cat")
        if ph == "X" and cat == "kernel":
            ax.broken_barh([(e["ts"], max(e["dur"], 1))], (y - 0.4, 0.8), color="#d9d9d9")
        elif ph == "X" and cat in _WAIT_COLOURS:
            ax.broken_barh([(e["ts"], max(e["dur"], 1))], (y - 0.4, 0.8), color=_WAIT_COLOURS[cat])
        elif ph == "X" and cat == "signpost":
            name = e["name"]
            if name not in zone_colour:
                zone_colour[name] = palette[len(zone_colour) % len(palette)]
            depth = int(e.get("args", {}).get("depth", 0))
            top = 0.3 - 0.12 * depth
            ax.broken_barh(
                [(e["ts"], max(e["dur"], 1))], (y + top - 0.1, 0.1), color=zone_colour[name]
            )
        elif ph == "e" and cat == "noc":
            noc[key].append(e["ts"])
    for key, times in noc.items():
        y = len(rows) - 1 - row_of[key]
        ax.plot(times, [y - 0.3] * len(times), "|", color="black", markersize=4, alpha=0.6)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([names.get(r, str(r)) for r in reversed(rows)], fontsize=8)
    ax.set_ylim(-0.6, len(rows) - 0.4)
    handles = [
        _patch("#d9d9d9", "kernel running"),
        _patch(_WAIT_COLOURS["dfb_wait"], "DFB wait"),
        _patch(_WAIT_COLOURS["semaphore_wait"], "semaphore wait"),
        *[_patch(c, f"signpost '{n}'") for n, c in zone_colour.items()],
    ]
    if noc:
        from matplotlib.lines import Line2D

        handles.append(
            Line2D([], [], marker="|", linestyle="", color="black", label="NOC transfer done")
        )
    ax.legend(handles=handles, fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))


def _patch(colour: str, label: str):
    from matplotlib.patches import Patch

    return Patch(color=colour, label=label)


def _counters(events: list[dict[str, Any]]) -> dict[str, list[tuple[int, int]]]:
    """'node (x,y) DFB i' -> [(cycle, pages filled)], the first few tracks."""
    process = {e["pid"]: e["args"]["name"] for e in events if e.get("name") == "process_name"}
    tracks: dict[str, list[tuple[int, int]]] = {}
    for e in events:
        if e.get("ph") != "C":
            continue
        label = f"{process.get(e['pid'], e['pid'])} {e['name']}"
        if label not in tracks and len(tracks) == _MAX_DFB_TRACKS:
            continue
        value = next(iter(e.get("args", {}).values()), 0)
        tracks.setdefault(label, []).append((e["ts"], value))
    return tracks


def _draw_counters(ax, tracks: dict[str, list[tuple[int, int]]]) -> None:
    for label, samples in tracks.items():
        samples.sort(key=lambda s: s[0])
        ax.step([t for t, _ in samples], [v for _, v in samples], where="post", label=label)
    ax.set_ylabel("pages filled", fontsize=8)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
