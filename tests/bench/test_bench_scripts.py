"""The benchmark scripts stay runnable: each imports its helpers and parses its flags.

(The benchmarks themselves print figures and are not run by the test suite, except
tutorial_bench.py once at a tiny size, so that its runs and table cannot rot.)
"""

import os
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
    "noop_launch_bench.py",
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


@pytest.mark.skipif(not SIM.exists(), reason=f"tt-lang-sim is not installed at {SIM}")
@pytest.mark.skipif(toolchain.find_compiler() is None, reason="no device C++ compiler")
def test_call_shares_splits_a_tutorials_call_into_parts(tmp_path):
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from whole_process import sized_copy
    finally:
        sys.path.pop(0)
    site = next(SIM.parent.parent.glob("lib/python3*/site-packages"))
    tutorial = site / "ttl/tutorials/elementwise/step_1_single_node_single_tile_block.py"
    program = sized_copy(tutorial, tmp_path, 64)
    shares = [sys.executable, "-m", "ttl.host.cli", "run", str(ROOT / "bench" / "call_shares.py")]
    env = dict(os.environ, TTL_CACHE_DIR=str(tmp_path / "cache"))
    for warm in (["--warm"], []):
        proc = subprocess.run(
            [*shares, *warm, str(program)],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
            env=env,
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
    parts = {}
    for line in proc.stdout.splitlines():
        name, _, figures = line.rpartition("  ")
        if figures.strip().endswith("%") and name.strip():
            parts[name.split("   ")[0].strip()] = float(figures.strip().rstrip("%"))
    assert parts["tile math (coprocessor)"] > 0 and parts["Unicorn running guest code"] > 0
    assert sum(parts.values()) == pytest.approx(100, abs=0.5)
