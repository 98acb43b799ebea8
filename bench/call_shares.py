"""Where a program's operation calls spend their time, by part of the emulator.

    PYTHONPATH=. .venv/bin/python -m ttl.host.cli run bench/call_shares.py --warm PROGRAM
    PYTHONPATH=. .venv/bin/python -m ttl.host.cli run bench/call_shares.py PROGRAM [ARGS...]

Runs PROGRAM (unchanged; `ttl.operation` is wrapped as in op_timer.py) with
cProfile on during its operation calls only, then prints each part's share of
the calls' profiled time: the JIT (cache key and lookup, bundle load, checks),
tensors in and out (tilize into DRAM, untilize back, host conversions), hart
creation (the kernel images' engines, each hart's address space), kernel loading, Unicorn
running guest code, tile math (the coprocessor), the NOC, the scheduler and
hart bookkeeping, and the rest. cProfile slows Python code, not Unicorn's
native code, so the Python parts' shares are overstated somewhat (compare
op_timer.py's unprofiled call times). The first command (--warm: no
profiling) puts the operations into the JIT cache under this wrapper's own
cache key (an operation's key names the file that applied the decorator); they
must be there, as compiling installs a profile hook of its own.
"""

from __future__ import annotations

import cProfile
import pstats
import runpy
import sys
import time

import ttl

_calls: list[float] = []
_profile = cProfile.Profile()
_operation = ttl.operation


class _ProfiledOperation:
    """Forwards to the operation; profiles and times each call."""

    def __init__(self, operation):
        self._operation = operation

    def __call__(self, *args, **kwargs):
        start = time.perf_counter()
        _profile.enable()
        try:
            return self._operation(*args, **kwargs)
        finally:
            _profile.disable()
            _calls.append(time.perf_counter() - start)

    def __getattr__(self, name):
        return getattr(self._operation, name)


def _profiled_operation(*args, **kwargs):
    decorate = _operation(*args, **kwargs)
    return lambda fn: _ProfiledOperation(decorate(fn))


# (file suffix, function name) -> seconds: cumulative ("ct") or own ("tt") time
def _times(stats: pstats.Stats, which: str) -> dict[tuple[str, str], float]:
    out: dict[tuple[str, str], float] = {}
    index = 3 if which == "ct" else 2
    for (filename, _, name), entry in stats.stats.items():  # type: ignore[attr-defined]
        key = ("/".join(filename.split("/")[-2:]), name)
        out[key] = out.get(key, 0.0) + entry[index]
    return out


def shares(stats: pstats.Stats) -> list[tuple[str, float]]:
    """(part, seconds) of the profiled calls; the parts add up to the total."""
    ct, tt = _times(stats, "ct"), _times(stats, "tt")
    total = ct.get(("host/jit.py", "run_operation"), 0.0)
    run = ct.get(("runtime/scheduler.py", "run_harts"), 0.0)
    unicorn = tt.get(("runtime/unicorn_raw.py", "start"), 0.0)
    math = ct.get(("runtime/coprocessor.py", "drain"), 0.0)
    noc = ct.get(("runtime/noc.py", "drain"), 0.0)
    host_arrays = ct.get(("host/jit.py", "_host_array"), 0.0)
    dram = ct.get(("runtime/device.py", "write_tensor"), 0.0) + ct.get(
        ("runtime/device.py", "read_tensor"), 0.0
    )
    bundle_run = ct.get(("runtime/bundle.py", "run"), 0.0)
    launch = ct.get(("runtime/device.py", "launch"), 0.0)
    # Harts and their engines: an engine per kernel image, a hart's address space on it
    # (built by its first load of that image).
    attach = ct.get(("runtime/engine.py", "attach"), 0.0)
    creation = (
        ct.get(("runtime/hart.py", "__init__"), 0.0)
        + ct.get(("runtime/engine.py", "__init__"), 0.0)
        + attach
    )
    load = ct.get(("runtime/hart.py", "load"), 0.0) - attach
    return [
        ("JIT: cache key, lookup, bundle load", total - bundle_run - host_arrays),
        ("tensors in and out", host_arrays + dram),
        ("hart creation (engines, address spaces)", creation),
        ("kernel load", load),
        ("Unicorn running guest code", unicorn),
        ("tile math (coprocessor)", math),
        ("NOC", noc),
        ("scheduler and hart bookkeeping", run - unicorn - math - noc),
        ("the rest of the launch", launch - run - creation - load),
        ("the rest of the run", bundle_run - launch - dram),
    ]


def main() -> None:
    args = sys.argv[1:]
    warm = args[:1] == ["--warm"]
    args = args[1:] if warm else args
    program = args[0]
    sys.argv = args
    ttl.operation = _profiled_operation
    if warm:
        _profile.enable = _profile.disable  # type: ignore[method-assign]
    runpy.run_path(program, run_name="__main__")
    if warm:
        return
    if not _calls:
        print("call_shares: the program called no operation", file=sys.stderr)
        return
    later = f", later calls {sum(_calls[1:]):.3f} s" if len(_calls) > 1 else ""
    print(f"operation calls: {len(_calls)}; profiled: first call {_calls[0]:.3f} s{later}")
    parts = shares(pstats.Stats(_profile))
    total = sum(seconds for _, seconds in parts)
    print(f"{'part':40} {'seconds':>8} {'share':>6}   (profiled: {total:.3f} s)")
    for name, seconds in parts:
        print(f"{name:40} {seconds:8.3f} {100 * seconds / total:5.1f}%")


main()
