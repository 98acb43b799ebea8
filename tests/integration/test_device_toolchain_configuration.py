"""Configuring the device toolchain: bad compilers fail at configuration, clearly.

These drive the real Bazel on this workspace; only the `@ttl_device_cxx`
repository is fetched, so no build runs.
"""

import os
import pathlib
import shutil

QUERY = ("query", "@ttl_device_cxx//:all")


def path_without_riscv_compiler(tmp_path: pathlib.Path) -> str:
    """A PATH with every tool of this machine except the RISC-V GCC."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for directory in os.environ["PATH"].split(os.pathsep):
        if not os.path.isdir(directory):
            continue
        for entry in os.scandir(directory):
            link = bin_dir / entry.name
            if entry.name.startswith("riscv64-unknown-elf-") or link.exists():
                continue
            link.symlink_to(entry.path)
    return str(bin_dir)


def test_default_compiler_found_and_version_recorded(bazel):
    result = bazel(*QUERY, env={"TTL_DEVICE_CXX": ""})
    assert result.returncode == 0, result.stderr
    defs = bazel.output_base / "external" / "ttl_device_cxx" / "defs.bzl"
    text = defs.read_text()
    assert "riscv64-unknown-elf-g++" in text
    assert 'DEVICE_CXX_VERSION = "riscv64-unknown-elf-g++' in text


def test_no_compiler_names_package_and_variable(bazel, tmp_path):
    result = bazel(
        *QUERY, env={"PATH": path_without_riscv_compiler(tmp_path), "TTL_DEVICE_CXX": ""}
    )
    assert result.returncode != 0
    assert "No RISC-V device compiler found" in result.stderr
    assert "apt-get install gcc-riscv64-unknown-elf" in result.stderr
    assert "TTL_DEVICE_CXX" in result.stderr


def test_missing_requested_compiler(bazel):
    result = bazel(*QUERY, env={"TTL_DEVICE_CXX": "/nonexistent/clang++"})
    assert result.returncode != 0
    assert "TTL_DEVICE_CXX=/nonexistent/clang++ does not name an existing compiler" in result.stderr


def test_compiler_without_rv32_target_fails_with_its_message(bazel, tmp_path):
    # A compiler for another architecture rejects the device flags the way a
    # host x86 GCC does; the configuration error must quote it and the flags.
    host_cxx = shutil.which("g++") or shutil.which("c++")
    if host_cxx is None:
        host_cxx = tmp_path / "x86-g++"
        host_cxx.write_text(
            "#!/bin/sh\n"
            'case "$1" in --version) echo "x86-g++ 12"; exit 0;; esac\n'
            "echo \"x86-g++: error: unrecognized argument in option '-mabi=ilp32'\" >&2\n"
            "exit 1\n"
        )
        host_cxx.chmod(0o755)
    result = bazel(*QUERY, env={"TTL_DEVICE_CXX": str(host_cxx)})
    assert result.returncode != 0
    assert "cannot build for the device with `-march=rv32im -mabi=ilp32" in result.stderr
    assert "error:" in result.stderr  # the compiler's own diagnostic is quoted
    assert "Set TTL_DEVICE_CXX to a compiler that supports these flags" in result.stderr
