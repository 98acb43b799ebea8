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
cost per tile of the softmax's and the reduce/broadcast/transpose/where
tile-op families, each command repeated and in runs over consecutive tiles
and registers (see tile_op_costs).
"""

from __future__ import annotations

import argparse
import tempfile
import time

import numpy as np
from emulator_bench import (
    NO_PYTHONPATH,
    ROOT,
    TIMER,
    add_sim_python,
    median_call,
    run_once,
    sim_next_to,
)

from ttl.runtime import memmap
from ttl.runtime.coprocessor import Coprocessor
from ttl.runtime.tiles import BF16, tilize

PROGRAM = ROOT / "bench" / "softmax_program.py"
TILES = 2 * (1024 // 32) ** 2  # tiles read and written by one softmax


def _queue(cmds: list[tuple[int, ...]]) -> np.ndarray:
    q = np.zeros(memmap.COP_QUEUE_SIZE // 4, np.uint32)
    q[0] = len(cmds)
    for i, cmd in enumerate(cmds):
        q[8 + 8 * i : 8 + 8 * i + len(cmd)] = cmd
    return q


def tile_op_costs(n: int = 2032) -> dict[str, tuple[float, float]]:
    """Microseconds per tile of tile-op families on the coprocessor model (resolved
    commands): the same command repeated (each one executes alone, except that
    repeated reduce_tiles accumulate as one run) and commands over consecutive
    tiles and registers, the runs a chunk scheduled by kind issues (one NumPy
    operation per run)."""
    l1 = np.zeros(32 * 2048, np.uint8)
    rng = np.random.default_rng(0)
    for addr in range(0, l1.size, BF16.tile_bytes):
        tile = tilize(rng.standard_normal((32, 32)).astype(BF16.dtype)).view(np.uint8)[0]
        l1[addr : addr + BF16.tile_bytes] = tile
    cop = Coprocessor(l1, dst_tiles=8)
    fmt, t = memmap.FMT_FLOAT16_B, BF16.tile_bytes
    # name -> (command j of a run, run length)
    families = {
        "copy_tile": (lambda j: (memmap.COP_UNPACK, j * t, fmt, j), 8),
        "exp_tile": (lambda j: (memmap.COP_UNARY, memmap.UNOP_EXP, j), 8),
        "sub_binary_tile": (lambda j: (memmap.COP_BINARY_DST, memmap.BINOP_SUB, j, j + 4, j), 4),
        "pack_tile (bf16)": (lambda j: (memmap.COP_PACK, j, 16 * t + j * t, fmt, 0), 8),
        "reduce_tile (row, scaled)": (
            lambda j: (memmap.COP_REDUCE, j * t, fmt, 9 * t, fmt, 0, 0),
            8,
        ),
        "reduce_tile (scalar max)": (
            lambda j: (memmap.COP_REDUCE, j * t, fmt, 9 * t, fmt, 0, 0x22),
            8,
        ),
        "unary_bcast (col)": (lambda j: (memmap.COP_BCAST, 0, fmt, j, 2), 8),
        "transpose_wh_tile": (lambda j: (memmap.COP_TRANSPOSE, j * t, fmt, j), 8),
        "where_tile": (lambda j: (memmap.COP_WHERE, j, j + 2, j + 4, j + 6), 2),
        "mask_tile": (lambda j: (memmap.COP_MASK, j, j + 4, 0), 4),
    }
    costs = {}
    for name, (cmd, run) in families.items():
        times = []
        for cmds in ([cmd(0)] * n, [cmd(j) for j in range(run)] * (n // run)):
            queue = _queue(cmds)
            with np.errstate(all="ignore"):
                cop.drain(queue.copy())  # resolve (compile) the commands once
                start = time.perf_counter()
                for _ in range(5):
                    cop.drain(queue.copy())
                times.append((time.perf_counter() - start) / (5 * len(cmds)) * 1e6)
        costs[name] = (times[0], times[1])
    return costs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per side; medians reported")
    add_sim_python(parser)
    args = parser.parse_args()
    sim = sim_next_to(args.sim_python)

    print(f"program: {PROGRAM.relative_to(ROOT)} (softmax of bf16 1024x1024)")
    with tempfile.TemporaryDirectory() as cache:
        env = {"TTL_CACHE_DIR": cache}
        ours = [str(ROOT / ".venv" / "bin" / "ttl"), "run", str(TIMER), str(PROGRAM)]
        run_once(ours, env)  # compile into the JIT cache: the timed runs are warm
        mine = median_call("ttl (ours)", ours, env, args.repeat, TILES)
        theirs = median_call(
            "tt-lang-sim",
            [str(sim), str(TIMER), "--", str(PROGRAM)],
            NO_PYTHONPATH,
            args.repeat,
            TILES,
        )
    ratio = theirs / mine
    word = "faster" if ratio >= 1 else "slower"
    print(f"speed: tt-lang-sim's time / ours = {ratio:.2f} (ours is {word} per operation call)")
    print("emulator cost per tile operation (coprocessor model, resolved commands):")
    print(f"  {'':28} {'repeated':>8}  {'in runs':>8}")
    for name, (alone, batched) in tile_op_costs().items():
        print(f"  {name:28} {alone:8.2f}  {batched:8.2f}  us/tile")


if __name__ == "__main__":
    main()
