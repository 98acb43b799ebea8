"""Benchmark: y = a * b + c on bf16 tensors through the emulated device.

    .venv/bin/python bench/launch_bench.py --size 2048 --grid 1x1

Prints the best of --repeat runs: wall time end to end (host tilize/untilize
and DRAM transfers included), of the launch alone, and the end-to-end CPU
time of this process (steadier than wall time on a shared machine). The
kernels are the hand-written ones in tests/runtime/kernels/.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import ml_dtypes
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "runtime"))

from rt_eltwise import run_eltwise  # noqa: E402 (sys.path must be set first)

from ttl.host import toolchain  # noqa: E402 (sys.path must be set first)
from ttl.runtime import Device  # noqa: E402 (sys.path must be set first)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=2048, help="square tensor side (multiple of 32)")
    ap.add_argument("--grid", default="1x1", help="grid as XxY")
    ap.add_argument("--dtype", default="bf16", choices=["bf16", "f32"])
    ap.add_argument("--block-count", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3, help="runs; the best is reported")
    ap.add_argument(
        "--quantum",
        type=int,
        default=None,
        help="force counted quanta of this many instructions (default: run to block)",
    )
    ap.add_argument(
        "--profile",
        action="store_true",
        help="profile (exact instruction counts: slower) and print the per-kernel table",
    )
    args = ap.parse_args()
    grid = tuple(int(v) for v in args.grid.split("x"))
    page = 2048 if args.dtype == "bf16" else 4096
    np_dtype = ml_dtypes.bfloat16 if args.dtype == "bf16" else np.float32
    rng = np.random.default_rng(0)
    a, b, c = (
        rng.standard_normal((args.size, args.size)).astype(np.float32).astype(np_dtype)
        for _ in range(3)
    )
    with tempfile.TemporaryDirectory() as tmp:
        kernels = ROOT / "tests" / "runtime" / "kernels"
        elfs = {
            "reader": toolchain.compile_kernel(
                kernels / "eltwise_reader.cc", f"{tmp}/r.elf", compile_time_args=[page]
            ),
            "compute": toolchain.compile_kernel(kernels / "eltwise_compute.cc", f"{tmp}/c.elf"),
            "writer": toolchain.compile_kernel(
                kernels / "eltwise_writer.cc", f"{tmp}/w.elf", compile_time_args=[page]
            ),
        }
        elapsed = launch = cpu = float("inf")
        for _ in range(args.repeat):
            dev = Device(grid=grid, quantum=args.quantum, profile=args.profile)
            start, start_cpu = time.perf_counter(), time.process_time()
            y, report = run_eltwise(dev, elfs, a, b, c, args.dtype, args.block_count)
            elapsed = min(elapsed, time.perf_counter() - start)
            cpu = min(cpu, time.process_time() - start_cpu)
            launch = min(launch, report.seconds)
    want = (a.astype(np.float32) * b.astype(np.float32) + c.astype(np.float32)).astype(np_dtype)
    ok = np.array_equal(y.view(np.uint8), want.view(np.uint8))
    tiles = args.size * args.size // 1024
    print(
        f"a*b+c {args.dtype} {args.size}x{args.size} ({tiles} tiles), grid {args.grid}, "
        f"block_count {args.block_count}: end to end {elapsed:.3f} s "
        f"({tiles / elapsed:.0f} tiles/s; host tilize/DRAM/untilize included), launch "
        f"{launch:.3f} s ({tiles / launch:.0f} tiles/s); end-to-end CPU time {cpu:.3f} s; "
        f"result {'OK' if ok else 'WRONG'}"
    )
    if args.profile:
        print(report.table())
    if not ok:
        sys.exit(1)


if __name__ == "__main__":
    main()
