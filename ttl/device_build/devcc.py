"""Compiles kernel C++ with the device toolchain (for tests, benchmarks and JIT use).

Uses the same flags as the Bazel device toolchain, plus ``-g`` so error
reports can name source lines.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from ttl.runtime.errors import LaunchError

DEVICE_DIR = Path(__file__).resolve().parent / "device"
INCLUDE_DIR = DEVICE_DIR / "include"
LINKER_SCRIPT = DEVICE_DIR / "link" / "kernel.ld"
CRT0 = DEVICE_DIR / "link" / "crt0.S"
CXX = os.environ.get("TTL_DEVICE_CXX", "riscv64-unknown-elf-g++")
CXXFLAGS = [
    "-march=rv32im",
    "-mabi=ilp32",
    "-O2",
    "-ffreestanding",
    "-fno-exceptions",
    "-fno-rtti",
    "-nostdinc++",
    "-std=c++17",
]


def find_compiler() -> str | None:
    """Path of the device C++ compiler, or None if it is not installed."""
    return shutil.which(CXX)


def compile_kernel(
    source: str | os.PathLike,
    output: str | os.PathLike,
    *,
    compile_time_args: Sequence[int] = (),
    defines: Mapping[str, str] = {},
    include_dirs: Sequence[str | os.PathLike] = (),
    debug: bool = True,
) -> Path:
    """Builds one kernel ELF from ``source``; raises LaunchError with the compiler output."""
    cxx = find_compiler()
    if cxx is None:
        raise LaunchError(f"device compiler {CXX} not found: install gcc-riscv64-unknown-elf")
    cmd = [cxx, *CXXFLAGS, "-I", str(INCLUDE_DIR)]
    cmd += [f"-I{d}" for d in include_dirs]
    cmd += [f"-DKERNEL_COMPILE_TIME_ARG_{i}={int(v)}" for i, v in enumerate(compile_time_args)]
    cmd += [f"-D{k}={v}" for k, v in sorted(defines.items())]
    if debug:
        cmd.append("-g")
    cmd += [
        "-nostdlib",
        "-nostartfiles",
        "-T",
        str(LINKER_SCRIPT),
        str(CRT0),
        str(source),
        "-lgcc",
        "-o",
        str(output),
    ]
    proc = subprocess.run(cmd, check=False, capture_output=True, text=True)
    if proc.returncode:
        raise LaunchError(f"compiling {source} failed:\n{proc.stderr}")
    return Path(output)
