"""Hermetic, cacheable bundles: determinism, worker identity, remote cache.

Three output bases (different absolute paths, their own Bazel servers) build
every example:

* A: the compiler as a persistent worker, uploading to a real HTTP cache
  (nginx with WebDAV PUT on loopback, started and stopped here);
* B: no worker (sandboxed compiler), no remote cache: its bundles must be
  byte-identical to A's (determinism across output bases, and worker vs
  one-shot identity);
* C: empty, with the remote cache: every action must be a remote cache hit
  and the bundles byte-identical to A's.

The JIT's device build (ttl.host.toolchain over ttl.device_build) must give
the same bytes as A for the same operation, specs and include directories.
"""

from __future__ import annotations

import pytest
from bazel_harness import ROOT, example_bundles, tree_digest

from ttl.compiler.driver import load_operation
from ttl.host import toolchain

TARGETS = ("//examples/...",)
MNEMONICS = {"TtlCompile", "TtlDeviceBuild", "TtlBundle"}
EXTERN_SPECS = {"inp": "bf16[32,128]", "out": "bf16[32,128]"}
# Bundle under bazel-bin/examples -> (source, operation, include directories as
# ttl_operation derives them from `hdrs`), built here by the JIT's device build.
JIT_TWINS = {
    "extern/guarded_static.bundle": (
        "examples/extern/guarded_static.py",
        "guarded_static",
        ("examples/extern/include",),
    ),
    "extern/include_paths_operation.bundle": (
        "examples/extern/spec_examples.py",
        "include_paths_operation",
        ("examples/extern/include", "examples/extern/project_include/kernels"),
    ),
}


@pytest.fixture(scope="module")
def build_a(bazel_factory, http_cache, tmp_path_factory):
    bazel = bazel_factory(name="ob_a")
    log = tmp_path_factory.mktemp("logs") / "a.json"
    result, spawns = bazel.build(
        f"--remote_cache={http_cache.url}", "--strategy=TtlCompile=worker", *TARGETS, log=log
    )
    assert result.returncode == 0, result.stderr
    yield bazel, spawns, example_bundles(bazel)
    bazel.shutdown()


def test_every_ttl_action_ran_and_the_compiler_ran_as_a_worker(build_a):
    _, spawns, found = build_a
    by_mnemonic: dict[str, list[dict]] = {}
    for spawn in spawns:
        by_mnemonic.setdefault(spawn["mnemonic"], []).append(spawn)
    assert set(by_mnemonic) >= MNEMONICS
    for mnemonic in MNEMONICS:
        assert len(by_mnemonic[mnemonic]) == len(found), mnemonic
    assert {s["runner"] for s in by_mnemonic["TtlCompile"]} == {"worker"}
    for spawn in by_mnemonic["TtlCompile"]:
        assert spawn["progressMessage"].startswith("Compiling TT-Lang operation ")


def test_second_output_base_without_worker_is_byte_identical(build_a, bazel_factory, tmp_path):
    _, _, expected = build_a
    bazel = bazel_factory(name="ob_b")
    result, spawns = bazel.build(
        "--strategy=TtlCompile=sandboxed", *TARGETS, log=tmp_path / "b.json"
    )
    assert result.returncode == 0, result.stderr
    compile_runners = {s["runner"] for s in spawns if s["mnemonic"] == "TtlCompile"}
    assert compile_runners and "worker" not in compile_runners
    actual = example_bundles(bazel)
    bazel.shutdown()
    assert actual.keys() == expected.keys()
    for name in expected:
        assert actual[name].keys() == expected[name].keys(), name
        for rel in expected[name]:
            assert actual[name][rel] == expected[name][rel], f"{name}/{rel} differs"


def test_empty_output_base_gets_every_action_from_the_remote_cache(
    build_a, bazel_factory, http_cache, tmp_path
):
    _, spawns_a, expected = build_a
    bazel = bazel_factory(name="ob_c")
    result, spawns = bazel.build(
        f"--remote_cache={http_cache.url}", *TARGETS, log=tmp_path / "c.json"
    )
    assert result.returncode == 0, result.stderr
    actual = example_bundles(bazel)
    bazel.shutdown()
    assert spawns, "the execution log is empty"
    misses = [
        f"{s['mnemonic']} {s.get('progressMessage', '')}" for s in spawns if not s["remoteCacheHit"]
    ]
    assert misses == []
    assert len(spawns) == len(spawns_a)
    assert actual == expected


@pytest.mark.parametrize("bundle", sorted(JIT_TWINS))
def test_jit_device_build_gives_the_bazel_bundle_bytes(build_a, bundle, tmp_path, monkeypatch):
    """One device build: the JIT's bundle of an operation is byte-identical to Bazel's."""
    _, _, expected = build_a
    source, name, include_dirs = JIT_TWINS[bundle]
    monkeypatch.chdir(ROOT)  # the rule's paths are workspace-relative
    result = load_operation(source, name).compile(
        EXTERN_SPECS, target="wormhole_b0", include_dirs=include_dirs
    )
    out = tmp_path / "bundle"
    toolchain.build_bundle(
        out, result.sources, result.manifest, result.ir, include_dirs=include_dirs
    )
    actual = tree_digest(out)
    assert actual.keys() == expected[bundle].keys()
    for rel in expected[bundle]:
        assert actual[rel] == expected[bundle][rel], f"{bundle}/{rel} differs"
