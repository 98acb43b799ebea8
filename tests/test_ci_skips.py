"""tests/conftest.py: under CI=true a skipped test fails (with its reason); elsewhere it skips."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

SAMPLE = """
import pytest

def test_skip():
    pytest.skip("riscv64-unknown-elf-g++ is not installed")

@pytest.mark.skipif(True, reason="device header missing")
def test_skipif():
    pass

def test_importorskip():
    pytest.importorskip("no_such_module_for_ttl_tests")

@pytest.mark.xfail(reason="expected")
def test_xfail():
    raise AssertionError

def test_passes():
    pass
"""


@pytest.mark.parametrize("ci", ["true", ""])
def test_skips_fail_only_under_ci(tmp_path, ci):
    shutil.copy(TESTS / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_sample.py").write_text(SAMPLE)
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci:
        env["CI"] = ci
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rfEs", "-p", "no:cacheprovider", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
        env=env,
    )
    last = proc.stdout.strip().splitlines()[-1]
    if ci:
        assert proc.returncode == 1, proc.stdout
        assert "2 failed, 1 passed, 1 xfailed, 1 error" in last, proc.stdout
        assert "skipped under CI=true, where every test must run: device header missing" in (
            proc.stdout
        )
        assert "riscv64-unknown-elf-g++ is not installed" in proc.stdout
    else:
        assert proc.returncode == 0, proc.stdout
        assert "1 passed, 3 skipped, 1 xfailed" in last, proc.stdout


def test_test_module_names_are_unique():
    # Test directories are not packages (pytest's default rootdir import mode), so two
    # modules of the same name in different directories stop the whole run at collection.
    seen: dict[str, Path] = {}
    for path in sorted(TESTS.rglob("test_*.py")):
        if "testdata" in path.parts:
            continue
        assert path.name not in seen, f"{path} and {seen[path.name]} share a module name"
        seen[path.name] = path
