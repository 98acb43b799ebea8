"""Benchmark: the three multi-device matmul tutorials, ours (`ttl run`) against tt-lang-sim.

    .venv/bin/python bench/mesh_bench.py [--size 1024] [--repeat 1] [--sim PATH/tt-lang-sim]

The programs are tt-lang-sim 1.1.6's own tutorials `ttl/tutorials/matmul/
step_5_multidevice_shard_m.py`, `step_6_multidevice_shard_k.py` and
`step_7_multidevice_shard_k_all_reduce.py`, read from the installed package;
each runs from a copy whose size line `M, K, N = 8192, 8192, 8192` reads
--size (the only change), on the default mesh of both (4 devices, each a full
grid). Each run is its own process: end-to-end wall time and peak RSS
(``os.wait4``). Ours runs once first to fill a private JIT cache, so timed runs
are warm. A run whose own check fails (``assert pcc > 0.99``) fails the bench.

Prints medians over --repeat runs and the ratios ours/theirs. Without --sim, a
venv with tt-lang-sim 1.1.6 is made in bench/.sim-venv (emulator_bench.py).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from emulator_bench import NO_PYTHONPATH, ROOT, ensure_sim, tutorial_path

STEPS = (
    "step_5_multidevice_shard_m.py",
    "step_6_multidevice_shard_k.py",
    "step_7_multidevice_shard_k_all_reduce.py",
)
SHIPPED_SIZE = "M, K, N = 8192, 8192, 8192"


def run_once(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, peak RSS MiB) of one run in its own process."""
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
    return seconds, usage.ru_maxrss / 1024


def measure(command: list[str], env: dict[str, str], repeat: int) -> tuple[float, float]:
    runs = [run_once(command, env) for _ in range(repeat)]
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1024, help="M = K = N (multiple of 512)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per side; medians reported")
    parser.add_argument("--sim", help="a tt-lang-sim executable (default: bench/.sim-venv)")
    args = parser.parse_args()

    sim = ensure_sim(args.sim)
    tutorials = tutorial_path(sim).parents[1] / "matmul"
    ours_cmd = [sys.executable, "-m", "ttl.host.cli", "run"]
    size = f"M, K, N = {args.size}, {args.size}, {args.size}"
    print(f"M = K = N = {args.size}, 4 devices, medians of {args.repeat}")
    with tempfile.TemporaryDirectory() as work:
        ours_env = {"TTL_CACHE_DIR": str(Path(work) / "cache"), "PYTHONPATH": str(ROOT)}
        for step in STEPS:
            program = Path(work) / step
            program.write_text((tutorials / step).read_text().replace(SHIPPED_SIZE, size))
            run_once([*ours_cmd, str(program)], ours_env)  # compile: timed runs are warm
            mine = measure([*ours_cmd, str(program)], ours_env, args.repeat)
            theirs = measure([str(sim), str(program)], NO_PYTHONPATH, args.repeat)
            print(
                f"{step:42} ours {mine[0]:6.2f} s {mine[1]:5.0f} MiB   "
                f"tt-lang-sim {theirs[0]:6.2f} s {theirs[1]:5.0f} MiB   "
                f"time ours/theirs {mine[0] / theirs[0]:.2f}  RSS {mine[1] / theirs[1]:.2f}"
            )


if __name__ == "__main__":
    main()
