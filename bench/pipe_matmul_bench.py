"""Benchmark: multicast matmul 512x512x512 (bf16, 4x4 grid) on our emulator and on tt-lang-sim.

    .venv/bin/python bench/pipe_matmul_bench.py [--sim-python .venv-sim/bin/python] [--repeat 5]

The program is bench/pipe_matmul_program.py, a ttnn host program running
examples/basic/matmul_mcast.py's ``matmul_mcast`` (A row blocks multicast
along grid rows, B column blocks down grid columns), checked against torch by
the program itself. Both runtimes run it unchanged, each run in its own
process through op_timer.py, which times the operation call in process (ours
compiled into a JIT cache first, so timed runs are warm). Prints the medians
over --repeat runs and the ratio, then the bytes our emulator's NOC read from
DRAM and the multicasts issued, for ``matmul_mcast`` and for
``matmul_unicast`` (every node reads its own A and B blocks).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import tempfile

import ml_dtypes
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

PROGRAM = ROOT / "bench" / "pipe_matmul_program.py"
EXAMPLE = ROOT / "examples" / "basic" / "matmul_mcast.py"
N = 512


def dram_traffic() -> dict[str, tuple[int, int]]:
    """(bytes read from DRAM, multicasts) of one call of each variant, in this process."""
    from ttl.host import jit

    spec = importlib.util.spec_from_file_location("matmul_mcast_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rng = np.random.default_rng(0)
    a, b = (rng.uniform(-1, 1, (N, N)).astype(ml_dtypes.bfloat16) for _ in range(2))
    out = {}
    for variant in ("mcast", "unicast"):
        y = np.zeros((N, N), ml_dtypes.bfloat16)
        getattr(module, "matmul_" + variant)(a, b, y)
        traffic = jit.profile().calls[-1].noc_traffic.values()
        out[variant] = (
            sum(t.dram_bytes_read for t in traffic),
            sum(t.multicasts for t in traffic),
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per side; medians reported")
    add_sim_python(parser, str(ROOT / ".venv-sim" / "bin" / "python"))
    args = parser.parse_args()
    sim = sim_next_to(args.sim_python)

    print(f"program: {PROGRAM.relative_to(ROOT)} (matmul bf16 {N}x{N}x{N}, grid 4x4)")
    with tempfile.TemporaryDirectory() as cache:
        env = {"TTL_CACHE_DIR": cache}
        ours = [sys.executable, "-m", "ttl.host.cli", "run", str(TIMER), str(PROGRAM)]
        run_once(ours, env)  # compile into the JIT cache: the timed runs are warm
        mine = median_call("ttl (ours)", ours, env, args.repeat)
        theirs = median_call(
            "tt-lang-sim", [str(sim), str(TIMER), "--", str(PROGRAM)], NO_PYTHONPATH, args.repeat
        )
    ratio = theirs / mine
    word = "faster" if ratio >= 1 else "slower"
    print(f"speed: tt-lang-sim's time / ours = {ratio:.2f} (ours is {word} per operation call)")
    traffic = dram_traffic()
    for variant, (dram, mcasts) in traffic.items():
        print(f"matmul_{variant:8} NOC bytes read from DRAM {dram:10d}  multicasts {mcasts}")
    saved = 1 - traffic["mcast"][0] / traffic["unicast"][0]
    print(f"multicast reads {saved:.0%} fewer DRAM bytes")


if __name__ == "__main__":
    main()
