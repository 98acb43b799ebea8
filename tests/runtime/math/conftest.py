"""Fixtures of the ttl.math emulator tests (binary, reductions, unary)."""

from __future__ import annotations

import os

import pytest

from ttl.host import jit, mathcheck, toolchain

TARGETS = ("wormhole_b0", "blackhole")


def _need_compiler() -> None:
    if toolchain.find_compiler() is None:
        pytest.skip(f"{toolchain.flags.default_cxx()} is not installed")


@pytest.fixture(scope="session")
def _math_cache_dir(tmp_path_factory):
    """One JIT cache for the module's operations (each compiles once per target)."""
    return tmp_path_factory.mktemp("math_cache")


@pytest.fixture(params=TARGETS)
def target(request, monkeypatch, _math_cache_dir) -> str:
    """Each test runs on both targets, with the device compiler (skips without it)."""
    _need_compiler()
    monkeypatch.setenv("TTL_CACHE_DIR", str(_math_cache_dir))
    return request.param


@pytest.fixture(scope="module")
def unary_results(tmp_path_factory, _math_cache_dir):
    """target -> {case name: (bf16 input, bf16 output)} of every mathcheck case."""
    _need_compiler()
    folder = tmp_path_factory.mktemp("unary_math")
    cache: dict[str, dict] = {}

    def results(target: str) -> dict:
        if target not in cache:
            saved = os.environ.get("TTL_CACHE_DIR")
            os.environ["TTL_CACHE_DIR"] = str(_math_cache_dir)
            try:
                cache[target] = mathcheck.run_cases(mathcheck.CASES, target, directory=folder)
            finally:
                if saved is None:
                    os.environ.pop("TTL_CACHE_DIR", None)
                else:
                    os.environ["TTL_CACHE_DIR"] = saved
        return cache[target]

    yield results
    jit.release_devices()
