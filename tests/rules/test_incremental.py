"""Incremental builds of a consumer workspace (a copy in tmp, edited by the test).

Counts the spawns Bazel executes (`--execution_log_json_file`): editing a
header rebuilds only the operation that declares it; editing an operation's
source rebuilds only that operation (and the persistent worker sees the new
source); a no-op rebuild executes nothing. Also: the README's consumer
WORKSPACE works, and a build with no device toolchain registered fails
saying which toolchain type to register.
"""

from __future__ import annotations

import json
import pathlib
import shutil

import pytest
from bazel_harness import ROOT

HERE = pathlib.Path(__file__).resolve().parent / "consumer"
TOOLCHAIN = "--extra_toolchains=@ttl_bazel//toolchains/device:riscv_gcc_toolchain"
TARGETS = ("//:with_header", "//:plain")


@pytest.fixture(scope="module")
def consumer(tmp_path_factory, bazel_factory):
    ws = tmp_path_factory.mktemp("consumer")
    (ws / "WORKSPACE").write_text(
        (HERE / "WORKSPACE.in").read_text().replace("@TTL_BAZEL@", str(ROOT))
    )
    (ws / "BUILD.bazel").write_text((HERE / "BUILD.bazel.in").read_text())
    (ws / "ops").mkdir()
    shutil.copy(HERE / "op.py.in", ws / "ops" / "first.py")
    shutil.copy(HERE / "op.py.in", ws / "ops" / "second.py")
    (ws / "include").mkdir()
    (ws / "include" / "scale.h").write_text("#pragma once\nconstexpr int kScale = 1;\n")
    bazel = bazel_factory(ws, name="ob_consumer")
    result, _ = bazel.build(TOOLCHAIN, *TARGETS)
    assert result.returncode == 0, result.stderr
    return ws, bazel


def executed(bazel, tmp_path, name):
    result, spawns = bazel.build(TOOLCHAIN, *TARGETS, log=tmp_path / f"{name}.json")
    assert result.returncode == 0, result.stderr
    return sorted(
        (s["mnemonic"], s["progressMessage"].split("(")[-1].split(")")[0]) for s in spawns
    )


def test_noop_rebuild_runs_no_action(consumer, tmp_path):
    _, bazel = consumer
    assert executed(bazel, tmp_path, "noop") == []


def test_header_edit_rebuilds_only_the_operation_that_uses_it(consumer, tmp_path):
    ws, bazel = consumer
    (ws / "include" / "scale.h").write_text("#pragma once\nconstexpr int kScale = 2;\n")
    ran = executed(bazel, tmp_path, "header")
    assert ran, "editing a declared header ran nothing"
    assert {label for _, label in ran} == {"//:with_header"}
    assert ("TtlDeviceBuild", "//:with_header") in ran


def test_source_edit_rebuilds_only_that_operation_and_the_worker_sees_it(consumer, tmp_path):
    ws, bazel = consumer
    src = ws / "ops" / "second.py"
    src.write_text(src.read_text().replace("BLOCKS = 2", "BLOCKS = 3"))
    ran = executed(bazel, tmp_path, "source")
    assert {label for _, label in ran} == {"//:plain"}
    assert ("TtlCompile", "//:plain") in ran
    bin_dir = bazel.output_base / "execroot" / "__main__" / "bazel-out" / "k8-fastbuild" / "bin"
    manifest = json.loads((bin_dir / "plain.ttl" / "manifest.json").read_text())
    assert {d["block_count"] for d in manifest["dfbs"]} == {3}
    other = json.loads((bin_dir / "with_header.ttl" / "manifest.json").read_text())
    assert {d["block_count"] for d in other["dfbs"]} == {2}


def test_no_device_toolchain_registered_names_the_type_to_register(consumer):
    _, bazel = consumer
    result, _ = bazel.build("//:plain")
    assert result.returncode != 0
    assert "device_toolchain_type" in result.stderr


def test_no_device_toolchain_for_the_platform_says_what_to_register(consumer):
    """Only the fallback matches the platform: our message, not Bazel's generic one."""
    _, bazel = consumer
    fallback = "--extra_toolchains=@ttl_bazel//toolchains/device:no_device_toolchain"
    result, _ = bazel.build(
        fallback, "--platforms=@ttl_bazel//toolchains/platforms:blackhole", "//:plain"
    )
    assert result.returncode != 0
    assert "//:plain: no device toolchain matches the target platform" in result.stderr
    assert "@ttl_bazel//toolchains/platforms:blackhole" in result.stderr
    assert (
        'register_toolchains("@ttl_bazel//toolchains/device:riscv_gcc_toolchain")' in result.stderr
    )
