"""JIT test fixtures: a private cache directory and fresh JIT state per test."""

from __future__ import annotations

import importlib.util
import sys

import pytest
from jit_support import EXAMPLE_OP, ROOT

from ttl.host import cache, jit, toolchain, ttnn
from ttl.runtime.profile import Profile


@pytest.fixture(autouse=True)
def fresh_jit(tmp_path, monkeypatch):
    """Each test gets its own TTL_CACHE_DIR, an empty in-memory memo and a new profile."""
    monkeypatch.setenv("TTL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "STATS", cache.CacheStats())
    monkeypatch.setattr(jit, "_PROFILE", Profile())
    monkeypatch.setattr(jit, "_BUNDLES", {})
    monkeypatch.setattr(jit, "SETTINGS", jit.Settings())
    monkeypatch.setattr(cache, "_FALLBACKS", {})
    yield tmp_path / "cache"


@pytest.fixture
def needs_device_cxx():
    if toolchain.find_compiler() is None:
        pytest.skip(f"{toolchain.flags.default_cxx()} is not installed")


@pytest.fixture
def add_mul(needs_device_cxx):
    """The examples/ttnn operation ``y = a * b + c`` (one tile per block)."""
    spec = importlib.util.spec_from_file_location("jit_example_op", EXAMPLE_OP)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.eltwise_add_mul


@pytest.fixture
def sharded_add(needs_device_cxx, monkeypatch):
    """examples/ttnn/sharded_add.py, imported with ``ttnn`` bound to the host subset."""
    monkeypatch.setitem(sys.modules, "ttnn", ttnn)
    spec = importlib.util.spec_from_file_location(
        "sharded_add_example", ROOT / "examples" / "ttnn" / "sharded_add.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
