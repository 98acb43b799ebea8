"""pytest setup for tests/rules: the rule tools on sys.path, Bazel and nginx fixtures."""

from __future__ import annotations

import shutil
import sys

import pytest
from bazel_harness import ROOT, Bazel, Nginx

sys.path.insert(0, str(ROOT / "ttl" / "rules" / "private" / "tools"))


@pytest.fixture(scope="module")
def bazel_factory(tmp_path_factory):
    """Makes Bazel runners with fresh output bases; shuts every server down afterwards."""
    if shutil.which("bazel") is None:
        pytest.fail("bazel is not installed: run tools/setup.sh")
    made: list[Bazel] = []

    def make(workspace=ROOT, name: str = "output_base") -> Bazel:
        runner = Bazel(workspace, tmp_path_factory.mktemp(name))
        made.append(runner)
        return runner

    yield make
    for runner in made:
        runner.shutdown()


@pytest.fixture(scope="session")
def root_bazel(tmp_path_factory):
    """Bazel on this workspace, one output base shared by the analysis-level suites."""
    if shutil.which("bazel") is None:
        pytest.fail("bazel is not installed: run tools/setup.sh")
    runner = Bazel(ROOT, tmp_path_factory.mktemp("ob_root"))
    yield runner
    runner.shutdown()


@pytest.fixture(scope="module")
def http_cache(tmp_path_factory):
    server = Nginx(tmp_path_factory.mktemp("nginx"))
    server.start()
    yield server
    server.stop()
