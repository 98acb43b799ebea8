"""Fixtures of the ttl.math emulator tests: each target's results, computed once per module."""

from __future__ import annotations

import os

import pytest

from ttl.host import jit, mathcheck, toolchain


@pytest.fixture(scope="module")
def unary_results(tmp_path_factory):
    """target -> {case name: (bf16 input, bf16 output)} of every mathcheck case."""
    if toolchain.find_compiler() is None:
        pytest.skip(f"{toolchain.flags.default_cxx()} is not installed")
    folder = tmp_path_factory.mktemp("unary_math")
    saved = os.environ.get("TTL_CACHE_DIR")
    os.environ["TTL_CACHE_DIR"] = str(folder / "cache")
    cache: dict[str, dict] = {}

    def results(target: str) -> dict:
        if target not in cache:
            cache[target] = mathcheck.run_cases(mathcheck.CASES, target, directory=folder)
        return cache[target]

    try:
        yield results
    finally:
        jit.release_devices()
        if saved is None:
            os.environ.pop("TTL_CACHE_DIR", None)
        else:
            os.environ["TTL_CACHE_DIR"] = saved
