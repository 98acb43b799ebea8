"""Pass tests: every ``tests/compiler/passes/*.mlir`` runs through ``ttl-opt`` and FileCheck.

Each ``.mlir`` file starts with ``// PASSES: <pipeline> [more ttl-opt arguments]``;
an optional ``// EXIT: <status>`` line gives the expected exit status (default
0). The output (stdout, then stderr) is checked with ``filecheck`` against the
file's own CHECK lines.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import io
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from compiler_testlib import filecheck_file

from ttl.compiler.opt import main as ttl_opt
from ttl.compiler.passes.registry import DEFAULT_PIPELINE, available_passes

HERE = Path(__file__).resolve().parent
PASS_TESTS = sorted(HERE.glob("*.mlir"))
# Passes that report errors: each needs a test checking an error message.
DIAGNOSTIC_PASSES = (
    "ttl-materialize-scalers",
    "ttl-prepare-read-back",
    "ttl-stage-tensor-prints",
    "ttl-stage-converting-copies",
    "ttl-check-conditions",
    "ttl-assign-slots",
    "ttl-check-dfb-protocol",
    "ttl-check-allocation-groups",
)


def header(path: Path) -> tuple[list[str], int]:
    """(ttl-opt arguments, expected exit status) of a pass test file."""
    lines = path.read_text().splitlines()
    first = lines[0] if lines else ""
    assert first.startswith("// PASSES: "), f"{path.name}: the first line must be // PASSES: ..."
    spec, *extra = first.removeprefix("// PASSES: ").split()
    status = 0
    for line in lines:
        if line.startswith("// EXIT: "):
            status = int(line.removeprefix("// EXIT: "))
    return ["-p", spec, *extra], status


def run_ttl_opt(args: list[str]) -> tuple[int, str]:
    """Run ttl-opt in this process; returns (exit status, stdout + stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = ttl_opt(args)
    return status, out.getvalue() + err.getvalue()


def filecheck(check_file: Path, text: str) -> None:
    filecheck_file(check_file, text, what="ttl-opt output")


@pytest.mark.parametrize("path", PASS_TESTS, ids=[p.stem for p in PASS_TESTS])
def test_pass_file(path: Path) -> None:
    args, expected = header(path)
    status, output = run_ttl_opt([*args, str(path)])
    assert status == expected, output
    filecheck(path, output)


def test_every_pass_has_tests_and_every_diagnostic_an_error_test() -> None:
    tested: set[str] = set()
    error_tested: set[str] = set()
    for path in PASS_TESTS:
        args, status = header(path)
        names = set(args[1].split(","))
        tested |= names
        text = path.read_text()
        if (status != 0 or "--verify-diagnostics" in args) and "CHECK" in text and "error:" in text:
            error_tested |= names
    assert set(available_passes()) <= tested
    assert set(DIAGNOSTIC_PASSES) <= error_tested
    assert set(DEFAULT_PIPELINE.split(",")) <= tested


def test_help_lists_the_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert ttl_opt(["--help"]) == 0
    text = capsys.readouterr().out
    for name in available_passes():
        assert f"\n  {name} " in text
    assert DEFAULT_PIPELINE in text


def test_bad_input_is_a_message_not_a_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.mlir"
    bad.write_text("builtin.module {\n  ttl.bogus\n}\n")
    status, out = run_ttl_opt([str(bad)])
    assert status == 1
    assert "error: the input does not parse" in out and "ttl.bogus is not registered" in out
    assert "Traceback" not in out

    unverified = tmp_path / "unverified.mlir"
    unverified.write_text(
        (HERE / "dfb_protocol.mlir").read_text().replace("ttl.get_dfb @cond", "ttl.get_dfb @nope")
    )
    status, out = run_ttl_opt(["-p", "ttl-check-dfb-protocol", str(unverified)])
    assert status == 1
    assert out.strip() == f"{unverified}: error: the IR does not verify: 'nope' is not a ttl.dfb"

    status, out = run_ttl_opt([str(tmp_path / "missing.mlir")])
    assert status == 1 and "No such file or directory" in out and "Traceback" not in out

    status, out = run_ttl_opt(["-p", "ttl-no-such-pass", str(bad)])
    assert status == 2 and "Unrecognized passes: ['ttl-no-such-pass']" in out

    status, out = run_ttl_opt(["-p", "ttl-assign-slots{bogus=1}", str(bad)])
    assert status == 2 and "error:" in out and "Traceback" not in out


def test_console_script_runs_on_a_file() -> None:
    if not importlib.metadata.entry_points(group="console_scripts", name="ttl-opt"):
        pytest.skip("ttl is installed without the ttl-opt script (pip install -e .)")
    exe = shutil.which("ttl-opt", path=str(Path(sys.executable).parent))
    assert exe is not None, "ttl-opt is registered but its script is not next to python"
    path = HERE / "assign_slots.mlir"
    proc = subprocess.run(
        [exe, "-p", "ttl-assign-slots", str(path)],
        check=False,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    filecheck(path, proc.stdout)
    proc = subprocess.run(
        [exe, "-p", "ttl-check-conditions", str(HERE / "conditions_error.mlir")],
        check=False,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 1 and proc.stdout == ""
    assert "error: dispatch condition #0 is evaluated as i32" in proc.stderr
    assert "Traceback" not in proc.stderr
