"""The device architecture follows --platforms; `targets` builds one operation for both.

`//tests/rules/testdata:add_mul` pins no `target`: its bundle is compiled for
the architecture of the target platform's `tensix_arch` constraint, and for
wormhole_b0 on a platform without one. `add_mul_both_targets` (targets =
[wormhole_b0, blackhole]) builds a bundle per architecture in one build.
The errors (a pinned target against --platforms, unknown targets) are in
test_bad_input.py.
"""

from __future__ import annotations

import json

PACKAGE = "//tests/rules/testdata"


def built_target(bazel, *flags: str) -> str:
    result = bazel("build", *flags, f"{PACKAGE}:add_mul")
    assert result.returncode == 0, result.stderr
    manifest = bazel.bin_dir() / "tests/rules/testdata/add_mul.bundle/manifest.json"
    return json.loads(manifest.read_text())["target"]


def test_platform_without_tensix_arch_builds_for_wormhole_b0(root_bazel):
    assert built_target(root_bazel) == "wormhole_b0"


def test_platforms_flag_selects_the_architecture(root_bazel):
    assert built_target(root_bazel, "--platforms=//toolchains/platforms:blackhole") == "blackhole"
    assert (
        built_target(root_bazel, "--platforms=//toolchains/platforms:wormhole_b0") == "wormhole_b0"
    )


def test_targets_list_builds_a_bundle_per_architecture(root_bazel):
    result = root_bazel("build", f"{PACKAGE}:add_mul_both_targets")
    assert result.returncode == 0, result.stderr
    out = root_bazel.output_base / "execroot" / "ttl_bazel" / "bazel-out"
    found = {}
    for manifest in out.glob(
        "*/bin/tests/rules/testdata/add_mul_both_targets_unpinned.*.bundle/manifest.json"
    ):
        bundle = manifest.parent.name
        found[bundle] = json.loads(manifest.read_text())["target"]
    assert found == {
        "add_mul_both_targets_unpinned.wormhole_b0.bundle": "wormhole_b0",
        "add_mul_both_targets_unpinned.blackhole.bundle": "blackhole",
    }
