"""CLI conventions (issue 27): --help prints usage and exits 0, an unknown command
prints usage and exits 2, --version prints the version; the console scripts users run."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from ttl.version import VERSION

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def _run(tool: str, *args: str) -> subprocess.CompletedProcess[str]:
    exe = BIN / tool
    assert exe.exists(), f"{exe}: the console script is missing (tools/setup.sh installs it)"
    return subprocess.run(
        [str(exe), *args], capture_output=True, text=True, check=False, timeout=120
    )


@pytest.mark.parametrize("flag", ["--help", "-h", "help"])
def test_ttl_help_lists_the_commands(flag: str) -> None:
    proc = _run("ttl", flag)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: ttl run")
    assert "commands:\n  run " in proc.stdout
    assert "\n  plot " in proc.stdout
    assert proc.stderr == ""


def test_ttl_run_help_describes_every_flag() -> None:
    proc = _run("ttl", "run", "--help")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: ttl run")
    for flag in ("--target", "--grid", "--[no]profile", "--trace", "--print_file"):
        assert f"  {flag}:" in proc.stdout, flag
    assert "Try --helpfull" not in proc.stdout  # absl's empty default help


def test_ttl_run_help_after_the_program_is_the_programs(tmp_path: Path) -> None:
    program = tmp_path / "prog.py"
    program.write_text("import sys\nprint('argv', sys.argv[1:])\n", encoding="utf-8")
    proc = _run("ttl", "run", str(program), "--help")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "argv ['--help']\n"


def test_ttlc_help_describes_every_flag() -> None:
    proc = _run("ttlc", "--help")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: ttlc --src=FILE.py --operation=NAME")
    for flag in ("--src", "--operation", "--arg", "--out", "--target", "--include_dir"):
        assert f"  {flag}:" in proc.stdout, flag


@pytest.mark.parametrize(
    ("args", "message"), [(["bogus"], "unknown command 'bogus'"), ([], "no command")]
)
def test_ttl_unknown_or_missing_command_prints_usage_and_exits_2(
    args: list[str], message: str
) -> None:
    proc = _run("ttl", *args)
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"ttl: error: {message}\nusage: ttl run")
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("tool", ["ttl", "ttlc"])
def test_version(tool: str) -> None:
    proc = _run(tool, "--version")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"{tool} {VERSION}\n"


def test_one_version_everywhere() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["dynamic"] == ["version"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "ttl.version.VERSION"}
    module = (ROOT / "MODULE.bazel").read_text(encoding="utf-8")
    assert re.search(r'module\(\s*name = "ttl_bazel",\s*version = "([^"]+)"', module)[1] == VERSION
    from importlib.metadata import version

    assert version("ttl") == VERSION


def test_ttlc_refuses_a_tensor_too_large_for_32_bit_indices(tmp_path: Path) -> None:
    """bf16[4194304,4194304] has 2**44 elements: a usage error, not an overflowing index."""
    src = ROOT / "examples" / "basic" / "eltwise_single_tile.py"
    spec = "bf16[4194304,4194304]"
    args = [f"--arg={n}={spec}" for n in "abcy"]
    proc = _run("ttlc", f"--src={src}", "--operation=eltwise_single_tile", *args)
    assert proc.returncode in (1, 2), proc.stdout
    assert "more than the 2147483648 (2**31) kernels index with 32-bit integers" in proc.stderr
    assert "Traceback" not in proc.stderr


def _ttlc_to(stdout: object) -> subprocess.CompletedProcess[str]:
    src = ROOT / "examples" / "basic" / "eltwise_single_tile.py"
    args = [f"--arg={n}=bf16[32,32]" for n in "abcy"]
    exe = BIN / "ttlc"
    return subprocess.run(
        [str(exe), f"--src={src}", "--operation=eltwise_single_tile", *args],
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
        timeout=120,
    )


def test_ttlc_output_to_a_full_disk_is_one_line() -> None:
    # Issue 31: a raw ENOSPC traceback.
    with open("/dev/full", "w") as full:
        proc = _ttlc_to(full)
    assert proc.returncode == 1
    assert proc.stderr == "ttlc: error: cannot write the output: No space left on device\n"


def test_ttlc_output_into_a_closed_pipe_ends_quietly() -> None:
    read, write = os.pipe()
    os.close(read)  # the reader is gone before ttlc writes
    with os.fdopen(write, "w") as closed:
        proc = _ttlc_to(closed)
    assert proc.returncode == 141, proc.stderr
    assert proc.stderr == ""
