"""Benchmark: what `ttl run --trace` costs on the element-wise tutorial at 2048x2048.

    .venv/bin/python bench/trace_bench.py [--repeat 5] [--program PATH [ARGS...]]

The default program is examples/ttnn/eltwise_add_mul.py with --rows 2048
--cols 2048: y = a * b + c on bf16 2048x2048 (4096 tiles), grid (1, 1),
one-tile DFBs of two blocks, the operation of tt-lang-sim's tutorial
`elementwise/step_1_single_node_single_tile_block.py` (pass that file with
--program to time the tutorial itself). Each run is `ttl run` in its own
process, three ways: plain, `--profile`, and `--trace=FILE` (which implies
profiling); bench/op_timer.py times the operation call (the trace is written
after it; its writing time and size are reported apart). The operation is
compiled once into a fresh JIT cache first, so timed runs are warm. Prints
medians over --repeat runs and the ratios trace/plain and trace/profile.
Needs torch in the venv (the program converts with ttnn.from_torch).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import emulator_bench

ROOT = Path(__file__).resolve().parents[1]
TIMER = ROOT / "bench" / "op_timer.py"
DEFAULT_PROGRAM = [
    str(ROOT / "examples/ttnn/eltwise_add_mul.py"),
    "--rows",
    "2048",
    "--cols",
    "2048",
]


def run_once(flags: list[str], program: list[str], env: dict[str, str]) -> tuple[float, float]:
    """One `ttl run` in its own process: (operation-call seconds, process seconds)."""
    command = [sys.executable, "-m", "ttl.host.cli", "run", *flags, str(TIMER), *program]
    start = time.perf_counter()
    calls = emulator_bench.run_once(command, env)["calls"]
    return calls[0], time.perf_counter() - start


def measure(
    name: str, flags: list[str], program: list[str], env, repeat: int
) -> tuple[float, float]:
    runs = [run_once(flags, program, env) for _ in range(repeat)]
    call = statistics.median(c for c, _ in runs)
    wall = statistics.median(w for _, w in runs)
    print(f"{name:10} operation call {call:7.3f} s   process {wall:7.3f} s   (median of {repeat})")
    return call, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per mode; medians reported")
    parser.add_argument(
        "--program", nargs=argparse.REMAINDER, help="a program and its arguments (default above)"
    )
    args = parser.parse_args()
    program = args.program or DEFAULT_PROGRAM
    with tempfile.TemporaryDirectory() as tmp:
        # PYTHONPATH: this checkout's `ttl` (whatever the venv's editable install says), and
        # the program's directory for its own imports (op_timer runs it with runpy).
        path = os.pathsep.join([str(ROOT), str(Path(program[0]).resolve().parent)])
        env = {"TTL_CACHE_DIR": tmp, "PYTHONPATH": path}
        trace = str(Path(tmp) / "trace.json")
        run_once([], program, env)  # compile into the JIT cache: the timed runs are warm
        print("program:", Path(program[0]).name, *program[1:])
        plain, plain_wall = measure("plain", [], program, env, args.repeat)
        profiled, _ = measure("--profile", ["--profile"], program, env, args.repeat)
        traced, traced_wall = measure("--trace", [f"--trace={trace}"], program, env, args.repeat)
        size = Path(trace).stat().st_size / 2**20
    print(
        f"--trace slows the operation call {traced / plain:.1f}x (plain), "
        f"{traced / profiled:.2f}x (--profile); whole process {traced_wall / plain_wall:.1f}x; "
        f"trace file {size:.1f} MiB"
    )


if __name__ == "__main__":
    main()
