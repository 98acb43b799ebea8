"""The benchmark scripts stay runnable: each imports its helpers and parses its flags.

(The benchmarks themselves print figures and are not run by the test suite, except
tutorial_bench.py once at a tiny size, so that its runs and table cannot rot.)
"""

import pathlib
import subprocess
import sys

import pytest

from ttl.host import toolchain

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
    "tutorial_bench.py",
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


SIM = ROOT / ".venv-sim" / "bin" / "tt-lang-sim"


@pytest.mark.skipif(not SIM.exists(), reason=f"tt-lang-sim is not installed at {SIM}")
@pytest.mark.skipif(toolchain.find_compiler() is None, reason="no device C++ compiler")
def test_tutorial_bench_runs_one_tutorial_at_a_tiny_size():
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "tutorial_bench.py"),
            f"--sim={SIM}",
            "--tutorials=elementwise/step_1",
            "--sizes=64",
            "--repeat=1",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    assert any(line.startswith("ours ") and "import torch" in line for line in lines)
    (row,) = [line for line in lines if line.startswith("elementwise/step_1_")]
    fields = row.split()
    assert fields[1] == "64"
    # wall s x2, wall and CPU ratios, RSS x2 and ratio, call s x2 and ratio: all positive
    assert all(float(f.rstrip("x")) > 0 for f in fields[2:12]), row
