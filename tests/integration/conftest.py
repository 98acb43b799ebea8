"""Fixtures for tests that drive the real Bazel on this workspace."""

import shutil

import pytest
from bazel_harness import ROOT, Bazel


@pytest.fixture(scope="module")
def bazel(tmp_path_factory):
    """Bazel on this workspace with a private output base (shut down afterwards)."""
    if shutil.which("bazel") is None:
        pytest.fail("bazel is not installed: run tools/setup.sh")
    run = Bazel(ROOT, tmp_path_factory.mktemp("output_base"))
    yield run
    run.shutdown()
