"""``ttl plot TRACE.json OUT.png``: a trace's timeline as a PNG (see :mod:`.timeline_plot`).

Exit status 0 when the picture is written, 1 for a file that is not a trace,
an output that cannot be written or matplotlib missing (one line on standard
error, no traceback), 2 for usage errors. The output is checked writable
before the trace is read.
"""

from __future__ import annotations

import argparse
import sys

from ttl.host.timeline_plot import PlotError, load_trace, plot
from ttl.runtime.trace import check_writable

USAGE = "usage: ttl plot [--title=TEXT] TRACE.json OUT.png"


def main(argv: list[str]) -> int:
    """Runs ``ttl plot`` with ``argv`` (the arguments after ``plot``)."""
    parser = argparse.ArgumentParser(
        prog="ttl plot",
        usage=USAGE.removeprefix("usage: "),
        description="Draw the timeline of a trace (ttl run --trace=FILE) as a PNG.",
    )
    parser.add_argument("trace", help="a Chrome Trace Event JSON file from ttl run --trace")
    parser.add_argument("out", help="the PNG file to write")
    parser.add_argument("--title", default="", help="the picture's title")
    args = parser.parse_args(argv)  # exits 2 with the usage on bad arguments
    if not args.out.lower().endswith(".png"):
        print(f"ttl plot: error: {args.out}: the output must be a .png file", file=sys.stderr)
        return 1
    try:
        check_writable(args.out, "output file")
        plot(load_trace(args.trace), args.out, args.title)
    except (OSError, PlotError) as e:
        print(f"ttl plot: error: {e}", file=sys.stderr)
        return 1
    print(f"ttl plot: wrote {args.out}", file=sys.stderr)
    return 0
