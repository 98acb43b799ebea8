"""The benchmark scripts stay runnable: each imports its helpers and parses its flags.

(The benchmarks themselves print figures and are not run by the test suite.)
"""

import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPTS = [
    "build_bench.py",
    "compile_bench.py",
    "emulator_bench.py",
    "launch_bench.py",
    "mesh_bench.py",
    "pipe_matmul_bench.py",
    "sharded_bench.py",
    "trace_bench.py",
]


@pytest.mark.parametrize("script", SCRIPTS)
def test_bench_script_help(script):
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / script), "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "usage:" in proc.stdout.lower()
