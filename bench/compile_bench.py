"""Compile-time benchmark of every example operation (a script, not a test).

Per operation it prints the median in-process compile time, the cold wall
time of the ``ttlc`` CLI in a fresh process (interpreter start, imports,
compile, writing files) and that process's peak RSS.

    .venv/bin/python bench/compile_bench.py [--repeats 15]

Goals: median < 150 ms in process, CLI < 1 s cold, peak RSS < 250 MB.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from ttl.compiler.driver import (  # noqa: E402 (sys.path must be set first)
    compile_operation,
    load_operation,
)

GOAL_MS, GOAL_CLI_S, GOAL_RSS_MB = 150.0, 1.0, 250.0


def _example(path: Path):
    spec = importlib.util.spec_from_file_location(f"_bench_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def in_process_ms(path: Path, repeats: int) -> float:
    module = _example(path)
    op = load_operation(str(path), module.OPERATION)
    compile_operation(op, module.SPECS)  # warm-up: imports, caches
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        compile_operation(op, module.SPECS)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def cli_cold(path: Path, out_dir: str) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one fresh ``ttlc`` process."""
    module = _example(path)
    args = [f"--arg={k}={v}" for k, v in module.SPECS.items()]
    cmd = [
        sys.executable,
        "-m",
        "ttl.host.ttlc",
        f"--src={path}",
        f"--operation={module.OPERATION}",
        *args,
        f"--out={out_dir}",
    ]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"ttlc failed for {path.name}: {proc.stderr.read().decode()}")
    return wall, usage.ru_maxrss / 1024.0  # ru_maxrss is in KiB on Linux


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    examples = sorted((REPO / "examples" / "basic").glob("*.py"))
    print(f"{'operation':<24} {'in-process median':>18} {'ttlc cold':>10} {'peak RSS':>9}")
    worst = [0.0, 0.0, 0.0]
    with tempfile.TemporaryDirectory() as tmp:
        for path in examples:
            ms = in_process_ms(path, args.repeats)
            wall, rss = cli_cold(path, os.path.join(tmp, path.stem))
            worst = [max(worst[0], ms), max(worst[1], wall), max(worst[2], rss)]
            print(f"{path.stem:<24} {ms:>15.1f} ms {wall:>8.2f} s {rss:>6.0f} MB")
    ok = worst[0] < GOAL_MS and worst[1] < GOAL_CLI_S and worst[2] < GOAL_RSS_MB
    print(
        f"worst: {worst[0]:.1f} ms in process (goal < {GOAL_MS:.0f}), {worst[1]:.2f} s cold CLI "
        f"(goal < {GOAL_CLI_S:.0f}), {worst[2]:.0f} MB peak RSS (goal < {GOAL_RSS_MB:.0f}): "
        f"{'all goals met' if ok else 'GOAL MISSED'}"
    )


if __name__ == "__main__":
    main()
