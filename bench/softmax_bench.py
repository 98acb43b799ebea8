"""Benchmark: row softmax (1024x1024 bf16) on our emulator and on tt-lang-sim, side by side.

    .venv/bin/python bench/softmax_bench.py --sim-python /tmp/simvenv/bin/python [--repeat 5]

The program is bench/softmax_program.py, a ttnn host program running the
operation of examples/basic/softmax.py (reduce_max, broadcast, exp,
reduce_sum, recip; 1024 tiles in, 1024 out, grid 2x2), checked against
torch.softmax by the program itself. Both runtimes run it unchanged, each run
in its own process through op_timer.py, which times the operation call in
process: ours with `ttl run` (compiled once into a JIT cache first, so timed
runs are warm), theirs with the `tt-lang-sim` next to --sim-python (a venv
with tt-lang-sim 1.1.6 and torch 2.13.0: never a dependency of the product).
Prints the medians over --repeat runs and the ratio, then the emulator's
cost per tile of the reduce/broadcast/transpose/where tile-op families.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from emulator_bench import ROOT, TIMER, run_once

from ttl.runtime import memmap
from ttl.runtime.coprocessor import Coprocessor
from ttl.runtime.tiles import BF16, tilize

PROGRAM = ROOT / "bench" / "softmax_program.py"
TILES = 2 * (1024 // 32) ** 2  # tiles read and written by one softmax


def median_call(name: str, command: list[str], env: dict[str, str], repeat: int) -> float:
    calls = [run_once(command, env)["calls"][0] for _ in range(repeat)]
    call = statistics.median(calls)
    print(
        f"{name:12} operation call {call:7.3f} s  {TILES / call:9.0f} tiles/s  (median of {repeat})"
    )
    return call


def _queue(cmds: list[tuple[int, ...]]) -> np.ndarray:
    q = np.zeros(memmap.COP_QUEUE_SIZE // 4, np.uint32)
    q[0] = len(cmds)
    for i, cmd in enumerate(cmds):
        q[8 + 8 * i : 8 + 8 * i + len(cmd)] = cmd
    return q


def tile_op_costs(n: int = 2000) -> dict[str, float]:
    """Microseconds per command of each new tile-op family on the coprocessor model."""
    l1 = np.zeros(64 * 1024, np.uint8)
    rng = np.random.default_rng(0)
    for addr in (0, 4096, 8192):
        tile = tilize(rng.standard_normal((32, 32)).astype(BF16.dtype)).view(np.uint8)[0]
        l1[addr : addr + BF16.tile_bytes] = tile
    cop = Coprocessor(l1, dst_tiles=8)
    fmt = memmap.FMT_FLOAT16_B
    families = {
        "reduce_tile (row, scaled)": (memmap.COP_REDUCE, 0, fmt, 4096, fmt, 0, 0),
        "reduce_tile (scalar max)": (memmap.COP_REDUCE, 0, fmt, 0, memmap.SCALER_ONE_FMT, 0, 0x22),
        "unary_bcast (col)": (memmap.COP_BCAST, 0, fmt, 1, 2),
        "transpose_wh_tile": (memmap.COP_TRANSPOSE, 0, fmt, 2),
        "where_tile": (memmap.COP_WHERE, 1, 2, 3, 4),
        "mask_tile": (memmap.COP_MASK, 3, 1, 0),
    }
    costs = {}
    for name, cmd in families.items():
        per = memmap.COP_CAPACITY
        batches = max(1, n // per)
        queues = [_queue([cmd] * per) for _ in range(batches)]
        with np.errstate(all="ignore"):
            cop.drain(_queue([cmd]))  # resolve (compile) the command once
            start = time.perf_counter()
            for q in queues:
                cop.drain(q)
            costs[name] = (time.perf_counter() - start) / (batches * per) * 1e6
    return costs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per side; medians reported")
    parser.add_argument(
        "--sim-python",
        required=True,
        help="python of a venv with tt-lang-sim==1.1.6 and torch==2.13.0",
    )
    args = parser.parse_args()
    sim = Path(args.sim_python).parent / "tt-lang-sim"
    if not sim.exists():
        sys.exit(f"{sim} not found: install tt-lang-sim==1.1.6 into that venv")

    print(f"program: {PROGRAM.relative_to(ROOT)} (softmax of bf16 1024x1024)")
    with tempfile.TemporaryDirectory() as cache:
        env = {"TTL_CACHE_DIR": cache}
        ours = [str(ROOT / ".venv" / "bin" / "ttl"), "run", str(TIMER), str(PROGRAM)]
        run_once(ours, env)  # compile into the JIT cache: the timed runs are warm
        mine = median_call("ttl (ours)", ours, env, args.repeat)
        theirs = median_call(
            # No PYTHONPATH: a checkout's own `ttl` must not shadow the simulator's.
            "tt-lang-sim",
            [str(sim), str(TIMER), "--", str(PROGRAM)],
            {"PYTHONPATH": ""},
            args.repeat,
        )
    ratio = theirs / mine
    word = "faster" if ratio >= 1 else "slower"
    print(f"speed: tt-lang-sim's time / ours = {ratio:.2f} (ours is {word} per operation call)")
    print("emulator cost per tile operation (coprocessor model, resolved commands):")
    for name, us in tile_op_costs().items():
        print(f"  {name:28} {us:6.2f} us/tile")


if __name__ == "__main__":
    main()
