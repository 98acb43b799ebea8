"""Benchmark: an element-wise operation on L1-sharded tensors against DRAM tensors.

    .venv/bin/python bench/sharded_bench.py [--size 512] [--repeat 7]

Runs examples/ttnn/sharded_add.py's ``y = a + b`` (one-tile DFBs, grid 2x2) on
bf16 size x size tensors three ways: block-sharded over the 2x2 nodes with each
node adding its own shard (local L1 copies only), block-sharded with each node
adding its neighbour's shard (remote L1 copies only), and interleaved in DRAM.
The operations are compiled first; each call's launch time is the emulator's
(``CallProfile.run_seconds``), interleaved round-robin over the three so load
changes hit them alike. Prints medians and the tensor-copy bytes of each.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
from pathlib import Path

import torch

from ttl.host import jit, ttnn
from ttl.runtime.profile import copy_totals

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "ttnn" / "sharded_add.py"


def _example():
    sys.modules["ttnn"] = ttnn  # the example imports ttnn, as under ttl run
    spec = importlib.util.spec_from_file_location("sharded_add_bench", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=512, help="rows = columns (multiple of 64)")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    n = args.size
    example = _example()
    cores = ttnn.CoreRangeSet({ttnn.CoreRange(ttnn.CoreCoord(0, 0), ttnn.CoreCoord(1, 1))})
    block = ttnn.MemoryConfig(
        ttnn.TensorMemoryLayout.BLOCK_SHARDED,
        ttnn.BufferType.L1,
        ttnn.ShardSpec(cores, [n // 2, n // 2], ttnn.ShardOrientation.ROW_MAJOR),
    )
    cases = {
        "block-sharded, own shard": (block, 0),
        "block-sharded, neighbour's": (block, 1),
        "DRAM interleaved": (ttnn.DRAM_MEMORY_CONFIG, 0),
    }
    torch.manual_seed(0)
    a, b = (torch.rand(n, n, dtype=torch.bfloat16) for _ in range(2))
    jit.configure(profile=False)
    calls = {}
    for name, (config, shift) in cases.items():
        tensors = [
            ttnn.from_torch(t, layout=ttnn.TILE_LAYOUT, memory_config=config)
            for t in (a, b, torch.zeros(n, n, dtype=torch.bfloat16))
        ]
        calls[name] = (example.make_add((2, 2), shift), tensors)
        calls[name][0](*tensors)  # compile
    seconds: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.repeat):
        for name, (op, tensors) in calls.items():
            op(*tensors)
            seconds[name].append(jit.profile().calls[-1].run_seconds)
    print(f"y = a + b, bf16 {n}x{n}, grid 2x2, medians of {args.repeat} launches")
    for name, (op, tensors) in calls.items():
        op(*tensors)
        totals = copy_totals(jit.profile().calls[-1].noc_traffic.values())
        moved = ", ".join(f"{kind} {r + w} B" for kind, (r, w) in totals.items() if r + w)
        print(f"  {name:28s} {statistics.median(seconds[name]) * 1e3:7.1f} ms  ({moved})")


if __name__ == "__main__":
    main()
