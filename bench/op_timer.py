"""Runs a TT-Lang program and records how long each call of its operations takes.

Used by emulator_bench.py under both runtimes it compares: ours
(`ttl run op_timer.py PROGRAM`) and tt-lang-sim (`tt-lang-sim op_timer.py --
PROGRAM`). Before the program runs, `ttl.operation` is wrapped so that every
operation call is timed; the program itself is unchanged. Writes JSON
(`calls`: seconds per call, `max_rss_kib`) to $OP_TIMER_OUT.
"""

import json
import os
import resource
import runpy
import sys
import time

import ttl

_calls: list[float] = []
_operation = ttl.operation


class _TimedOperation:
    """Forwards to the operation; times each call."""

    def __init__(self, operation):
        self._operation = operation

    def __call__(self, *args, **kwargs):
        start = time.perf_counter()
        result = self._operation(*args, **kwargs)
        _calls.append(time.perf_counter() - start)
        return result

    def __getattr__(self, name):
        return getattr(self._operation, name)


def _timed_operation(*args, **kwargs):
    decorate = _operation(*args, **kwargs)
    return lambda fn: _TimedOperation(decorate(fn))


def main() -> None:
    args = sys.argv[1:]
    if args and args[0] == "--":  # tt-lang-sim passes its separator through
        args = args[1:]
    program = args[0]
    sys.argv = args
    ttl.operation = _timed_operation
    runpy.run_path(program, run_name="__main__")
    with open(os.environ["OP_TIMER_OUT"], "w") as out:
        json.dump(
            {"calls": _calls, "max_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss},
            out,
        )


main()
