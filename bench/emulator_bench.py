"""Benchmark: one TT-Lang program on our emulator and on tt-lang-sim, side by side.

    .venv/bin/python bench/emulator_bench.py [--repeat 5] [--sim PATH/tt-lang-sim]

The program is tt-lang-sim's own tutorial
`ttl/tutorials/elementwise/step_1_single_node_single_tile_block.py`
(y = a * b + c on bf16 2048x2048 = 4096 tiles, grid (1, 1), one-tile DFBs of
two blocks, then a host-side ttnn.multiply), read from the installed package
and run unchanged by both: ours with `ttl run` (the operation compiled once
into the JIT cache, so timed runs are warm), theirs with `tt-lang-sim`.
`op_timer.py` times each call of the program's operation; each run is its own
process, whose peak RSS is recorded. The program checks its own result
against torch (rtol = atol = 1e-2) and a run that fails it fails the bench,
so both runtimes' outputs agree with the same reference within bf16
tolerance.

Prints medians over --repeat runs and the ratios ours/theirs. Needs torch in
.venv (`.venv/bin/pip install torch==2.13.0`). Without --sim, a venv with
tt-lang-sim 1.1.6 (and torch 2.13.0) is made in bench/.sim-venv.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TIMER = ROOT / "bench" / "op_timer.py"
SIM_VENV = ROOT / "bench" / ".sim-venv"
SIM_REQUIREMENTS = ["tt-lang-sim==1.1.6", "torch==2.13.0"]
TUTORIAL = "ttl/tutorials/elementwise/step_1_single_node_single_tile_block.py"
TILES = (2048 // 32) ** 2
# For the simulator's processes: a checkout's own `ttl` on PYTHONPATH must not shadow its.
NO_PYTHONPATH = {"PYTHONPATH": ""}


def ensure_sim(sim: str | None) -> Path:
    """The tt-lang-sim executable: --sim, or one in bench/.sim-venv (created on demand)."""
    if sim:
        return Path(sim).absolute()  # used from other working directories
    executable = SIM_VENV / "bin" / "tt-lang-sim"
    if not executable.exists():
        print(f"creating {SIM_VENV} with {' '.join(SIM_REQUIREMENTS)}", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(SIM_VENV)], check=True)
        subprocess.run(
            [str(SIM_VENV / "bin" / "pip"), "install", "--quiet", *SIM_REQUIREMENTS], check=True
        )
    return executable


def tutorial_path(sim: Path) -> Path:
    """The tutorial program inside the tt-lang-sim installation (not copied here)."""
    python = sim.parent / "python"
    out = subprocess.run(
        [str(python), "-c", "import os, ttl; print(os.path.dirname(ttl.__file__))"],
        capture_output=True,
        text=True,
        check=True,
        cwd="/",  # not our own `ttl` package
        env={**os.environ, **NO_PYTHONPATH},
    )
    return Path(out.stdout.strip()).parent / TUTORIAL


def run_once(command: list[str], env: dict[str, str]) -> dict:
    """One run in its own process: operation-call seconds and peak RSS."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        proc = subprocess.run(
            command,
            env={**os.environ, **env, "OP_TIMER_OUT": out.name},
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            sys.exit(f"{' '.join(command)} failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
        return json.loads(Path(out.name).read_text())


def median_call(
    name: str, command: list[str], env: dict[str, str], repeat: int, tiles: int | None = None
) -> float:
    """Median operation-call seconds of ``repeat`` runs, printed (with tiles/s if given)."""
    call = statistics.median(run_once(command, env)["calls"][0] for _ in range(repeat))
    rate = f"  {tiles / call:9.0f} tiles/s" if tiles else ""
    print(f"{name:12} operation call {call:7.3f} s{rate}  (median of {repeat})")
    return call


def add_sim_python(parser: argparse.ArgumentParser, default: str | None = None) -> None:
    """The ``--sim-python`` option: the python of a venv with tt-lang-sim."""
    parser.add_argument(
        "--sim-python",
        default=default,
        required=default is None,
        help="python of a venv with tt-lang-sim==1.1.6 and torch==2.13.0",
    )


def sim_next_to(python: str) -> Path:
    """The ``tt-lang-sim`` executable next to ``python``; exits when there is none."""
    sim = Path(python).parent / "tt-lang-sim"
    if not sim.exists():
        sys.exit(f"{sim} not found: install tt-lang-sim==1.1.6 into that venv")
    return sim


def measure(name: str, command: list[str], env: dict[str, str], repeat: int) -> dict:
    runs = [run_once(command, env) for _ in range(repeat)]
    call = statistics.median(r["calls"][0] for r in runs)
    rss = statistics.median(r["max_rss_kib"] for r in runs) / 1024
    print(
        f"{name:12} operation call {call:7.3f} s  {TILES / call:9.0f} tiles/s  "
        f"peak RSS {rss:6.0f} MiB   (median of {repeat})"
    )
    return {"call": call, "rss": rss}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per side; medians reported")
    parser.add_argument("--sim", help="a tt-lang-sim executable (default: bench/.sim-venv)")
    args = parser.parse_args()

    sim = ensure_sim(args.sim)
    program = tutorial_path(sim)
    with tempfile.TemporaryDirectory() as cache:
        ours_env = {"TTL_CACHE_DIR": cache}
        ours = [str(ROOT / ".venv" / "bin" / "ttl"), "run", str(TIMER), str(program)]
        run_once(ours, ours_env)  # compile into the JIT cache: the timed runs are warm
        print(f"program: {program.name} (tt-lang-sim's tutorial, unchanged)")
        mine = measure("ttl (ours)", ours, ours_env, args.repeat)
        theirs = measure(
            "tt-lang-sim", [str(sim), str(TIMER), "--", str(program)], NO_PYTHONPATH, args.repeat
        )
    print(
        f"speed: ours is {theirs['call'] / mine['call']:.1f}x faster per operation call; "
        f"peak RSS ours/theirs = {mine['rss'] / theirs['rss']:.2f}"
    )


if __name__ == "__main__":
    main()
