"""compile_commands.json for the device kernels: the output group and the refresh tool.

The refresh tool builds the `compile_commands` output group of an operation
with an external header, fills in the execution root and writes the merged
database; every entry must then compile as written, from its `directory`,
with the device compiler (so clangd sees the same flags, generated sources
and extern header paths as the build).
"""

from __future__ import annotations

import json
import subprocess
import sys

from bazel_harness import BUILD_FLAGS, ROOT

TOOL = ROOT / "ttl/rules/private/tools/refresh_compile_commands.py"
# An operation with a compute and a data-movement kernel and an extern header.
TARGET = "//examples/extern:compute_external"


def refresh(root_bazel, out, *targets):
    return subprocess.run(
        [
            sys.executable,
            str(TOOL),
            f"--workspace={ROOT}",
            f"--startup=--output_base={root_bazel.output_base}",
            *[f"--build_flag={flag}" for flag in BUILD_FLAGS],
            f"--out={out}",
            *targets,
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )


def test_refresh_writes_a_database_whose_commands_compile(root_bazel, tmp_path):
    out = tmp_path / "compile_commands.json"
    result = refresh(root_bazel, out, TARGET)
    assert result.returncode == 0, result.stderr
    assert f"2 kernel sources -> {out}" in result.stdout
    entries = json.loads(out.read_text())
    assert {e["file"].rsplit("/", 1)[-1] for e in entries} == {"compute.cpp", "data_movement.cpp"}
    for entry in entries:
        args = entry["arguments"]
        assert args[0].endswith("riscv64-unknown-elf-g++")
        assert "-march=rv32im" in args and "-Iexamples/extern/include" in args
        assert "__EXEC_ROOT__" not in entry["directory"]
        assert entry["file"] in args
        obj = tmp_path / (entry["file"].rsplit("/", 1)[-1] + ".o")
        command = [*args[: args.index("-o")], "-o", str(obj)]
        compiled = subprocess.run(
            command, cwd=entry["directory"], capture_output=True, text=True, check=False
        )
        assert compiled.returncode == 0, compiled.stderr
        assert obj.read_bytes()[:4] == b"\x7fELF"


def test_refresh_without_operations_says_so(root_bazel, tmp_path):
    result = refresh(root_bazel, tmp_path / "cc.json", "//tests/toolchain:all")
    assert result.returncode == 1
    assert "no ttl_operation in //tests/toolchain:all" in result.stderr
