"""Benchmark: the three multi-device matmul tutorials, ours (`ttl run`) against tt-lang-sim.

    .venv/bin/python bench/mesh_bench.py [--size 1024] [--repeat 1] [--sim PATH/tt-lang-sim]

The programs are tt-lang-sim 1.1.6's own tutorials `ttl/tutorials/matmul/
step_5_multidevice_shard_m.py`, `step_6_multidevice_shard_k.py` and
`step_7_multidevice_shard_k_all_reduce.py`, read from the installed package;
each runs from a copy whose size line `M, K, N = 8192, 8192, 8192` reads
--size (the only change), on the default mesh of both (4 devices, each a full
grid). Each run is its own process: end-to-end wall time and peak RSS
(``os.wait4``), ours and theirs alternating. Ours runs once first to fill a
private JIT cache, so timed runs are warm. A run whose own check fails
(``assert pcc > 0.99``) fails the bench.

Prints medians over --repeat runs and the ratios ours/theirs. Without --sim, a
venv with tt-lang-sim 1.1.6 is made in bench/.sim-venv (emulator_bench.py).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from emulator_bench import NO_PYTHONPATH, ROOT, ensure_sim, tutorial_path
from whole_process import Run, run_process, sized_copy

STEPS = (
    "step_5_multidevice_shard_m.py",
    "step_6_multidevice_shard_k.py",
    "step_7_multidevice_shard_k_all_reduce.py",
)


def medians(runs: list[Run]) -> tuple[float, float]:
    """Median wall seconds and peak RSS MiB of ``runs``."""
    return statistics.median(r.seconds for r in runs), statistics.median(r.rss_mib for r in runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1024, help="M = K = N (multiple of 512)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per side; medians reported")
    parser.add_argument("--sim", help="a tt-lang-sim executable (default: bench/.sim-venv)")
    args = parser.parse_args()

    sim = ensure_sim(args.sim)
    tutorials = tutorial_path(sim).parents[1] / "matmul"
    ours_cmd = [sys.executable, "-m", "ttl.host.cli", "run"]
    print(f"M = K = N = {args.size}, 4 devices, medians of {args.repeat}")
    with tempfile.TemporaryDirectory() as work:
        ours_env = {"TTL_CACHE_DIR": str(Path(work) / "cache"), "PYTHONPATH": str(ROOT)}
        for step in STEPS:
            program = sized_copy(tutorials / step, Path(work), args.size)
            run_process([*ours_cmd, str(program)], ours_env)  # compile: timed runs are warm
            ours_runs, their_runs = [], []
            for _ in range(args.repeat):  # alternating: both sides see the same load
                ours_runs.append(run_process([*ours_cmd, str(program)], ours_env))
                their_runs.append(run_process([str(sim), str(program)], NO_PYTHONPATH))
            mine, theirs = medians(ours_runs), medians(their_runs)
            print(
                f"{step:42} ours {mine[0]:6.2f} s {mine[1]:5.0f} MiB   "
                f"tt-lang-sim {theirs[0]:6.2f} s {theirs[1]:5.0f} MiB   "
                f"time ours/theirs {mine[0] / theirs[0]:.2f}  RSS {mine[1] / theirs[1]:.2f}"
            )


if __name__ == "__main__":
    main()
