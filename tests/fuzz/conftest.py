"""Fixtures of the fuzzer: one JIT cache and one source directory per module."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TTL_CACHE_DIR", str(tmp_path_factory.mktemp("fuzz-cache")))
        yield tmp_path_factory.mktemp("fuzz")
