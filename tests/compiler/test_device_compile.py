"""Every emitted kernel of every example compiles with the device toolchain.

The compile uses exactly the defines the manifest lists for each kernel, so
this also checks that the manifest and the sources agree.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest
from compiler_testlib import EXAMPLES, REPO, compile_example

GXX = "riscv64-unknown-elf-g++"
INCLUDE = REPO / "ttl" / "runtime" / "device" / "include"
FLAGS = [
    "-march=rv32im",
    "-mabi=ilp32",
    "-O2",
    "-ffreestanding",
    "-fno-exceptions",
    "-fno-rtti",
    "-nostdinc++",
    "-std=c++17",
    "-Wall",
    "-Werror",
]


def _require_toolchain() -> None:
    if shutil.which(GXX) is None:
        pytest.skip(f"{GXX} is not installed")
    for header in ("cstdint", "cstddef", "ttl/kernel_api.h"):
        if not (INCLUDE / header).exists():
            pytest.skip(f"device header {header} not provided yet in {INCLUDE}")


@pytest.mark.parametrize("target", ["wormhole_b0", "blackhole"])
@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_kernels_compile_for_device(path, target, tmp_path):
    _require_toolchain()
    result = compile_example(path, target=target)
    result.write(str(tmp_path))
    assert result.manifest["kernels"], "an example without kernels tests nothing"
    for kernel in result.manifest["kernels"]:
        defines = [f"-D{k}={v}" for k, v in sorted(kernel["defines"].items())]
        obj = tmp_path / (kernel["name"] + ".o")
        cmd = [GXX, *FLAGS, f"-I{INCLUDE}", *defines, "-c", str(tmp_path / kernel["source"])]
        proc = subprocess.run([*cmd, "-o", str(obj)], check=False, capture_output=True, text=True)
        assert proc.returncode == 0, f"{kernel['source']}:\n{proc.stderr}"
        assert obj.stat().st_size > 0


def test_missing_compile_time_arg_fails_to_compile(tmp_path):
    """Negative control: without the manifest's defines the kernel must not compile."""
    _require_toolchain()
    result = compile_example(EXAMPLES[0])
    result.write(str(tmp_path))
    src = tmp_path / result.manifest["kernels"][0]["source"]
    proc = subprocess.run(
        [GXX, *FLAGS, f"-I{INCLUDE}", "-c", str(src), "-o", str(tmp_path / "x.o")],
        check=False,
        capture_output=True,
        text=True,
    )
    assert proc.returncode != 0
    assert "KERNEL_COMPILE_TIME_ARG_0" in proc.stderr
