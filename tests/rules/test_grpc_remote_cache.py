"""A gRPC (REAPI) remote cache, for real: BuildGrid 0.4.4 on loopback.

`bgd server start` (from .venv-buildgrid, created by tools/setup.sh from the
hash-locked requirements-buildgrid.lock) with a disk CAS, an LRU action cache
and no authorization. Output base A builds every example and uploads; an
empty output base B (another absolute path, its own server) must get every
action from the cache (100% action-cache hits) and byte-identical bundles.
The HTTP cache (nginx) is tested in test_remote_cache_and_determinism.py.
"""

from __future__ import annotations

import pytest
from bazel_harness import BuildGrid, example_bundles

TARGETS = ("//examples/...",)


@pytest.fixture(scope="module")
def grpc_cache(tmp_path_factory):
    server = BuildGrid(tmp_path_factory.mktemp("buildgrid"))
    server.start()
    yield server
    server.stop()


def test_empty_output_base_gets_every_action_from_buildgrid(bazel_factory, grpc_cache, tmp_path):
    flags = (f"--remote_cache={grpc_cache.url}", *TARGETS)
    first = bazel_factory(name="ob_grpc_a")
    result, spawns_a = first.build(*flags, log=tmp_path / "a.json")
    assert result.returncode == 0, result.stderr
    assert spawns_a and not any(s["remoteCacheHit"] for s in spawns_a)
    expected = example_bundles(first)
    first.shutdown()

    second = bazel_factory(name="ob_grpc_b")
    result, spawns_b = second.build(*flags, log=tmp_path / "b.json")
    assert result.returncode == 0, result.stderr
    misses = [
        f"{s['mnemonic']} {s.get('progressMessage', '')}"
        for s in spawns_b
        if not s["remoteCacheHit"]
    ]
    assert misses == []
    assert len(spawns_b) == len(spawns_a)
    print(f"gRPC cache: {len(spawns_b)} of {len(spawns_b)} spawns were action-cache hits")
    assert example_bundles(second) == expected
