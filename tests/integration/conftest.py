"""Fixtures for tests that drive the real Bazel (Debian's 4.2.3) on this workspace."""

import os
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


class BazelRun:
    """Runs `bazel` on the workspace in a private output base (its own server)."""

    def __init__(self, output_base: pathlib.Path):
        self.output_base = output_base

    def __call__(self, *args: str, env: dict[str, str] | None = None, timeout: int = 900):
        command = ["bazel", f"--output_base={self.output_base}", *args]
        return subprocess.run(
            command,
            cwd=ROOT,
            env={**os.environ, **(env or {})},
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def shutdown(self):
        subprocess.run(
            ["bazel", f"--output_base={self.output_base}", "shutdown"],
            cwd=ROOT,
            capture_output=True,
            timeout=120,
        )


@pytest.fixture(scope="module")
def bazel(tmp_path_factory):
    if shutil.which("bazel") is None:
        pytest.fail("bazel is not installed: run tools/setup.sh")
    run = BazelRun(tmp_path_factory.mktemp("output_base"))
    yield run
    run.shutdown()
