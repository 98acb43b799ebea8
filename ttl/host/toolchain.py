"""The device build on this machine: the JIT's toolchain, and bundles from compiler results.

The compiler found on ``PATH`` (``$TTL_DEVICE_CXX`` or Debian's
``riscv64-unknown-elf-g++``) with the runtime's device headers and link
files, driven by :mod:`ttl.device_build`: the same flags, commands and
bundle writer as the ``ttl_operation`` rule, so an operation built here and
by Bazel gives byte-identical bundles.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ttl import runtime
from ttl.device_build import flags
from ttl.device_build.bundle import write_bundle
from ttl.device_build.kernels import (
    DeviceBuildError,
    KernelBuild,
    Toolchain,
    build_elf,
    build_manifest,
    compile_time_args_define,
    run_bounded,
)
from ttl.runtime.errors import LaunchError

#: The runtime's device-side files: kernel API headers, crt0 and the linker script.
DEVICE_DIR = Path(runtime.__file__).resolve().parent / "device"
INCLUDE_DIR = DEVICE_DIR / "include"
LINKER_SCRIPT = DEVICE_DIR / "link" / "kernel.ld"
CRT0 = DEVICE_DIR / "link" / "crt0.S"


def find_compiler() -> str | None:
    """Path of the device C++ compiler, or None if it is not installed."""
    return shutil.which(flags.default_cxx())


def local_toolchain() -> Toolchain:
    """The device toolchain of this machine; LaunchError if there is no compiler."""
    cxx = find_compiler()
    if cxx is None:
        raise LaunchError(
            f"device compiler {flags.default_cxx()} not found: install gcc-riscv64-unknown-elf, "
            f"or set {flags.CXX_ENV} to a RISC-V compiler"
        )
    return Toolchain(
        cxx=cxx,
        include_dirs=(str(INCLUDE_DIR),),
        crt0=str(CRT0),
        linker_script=str(LINKER_SCRIPT),
    )


def version_line(cxx: str) -> str:
    """The first line of ``cxx --version`` (runs the compiler, within its time limit)."""
    timeout = flags.cxx_timeout()
    try:
        proc = run_bounded([cxx, "--version"], timeout)
    except subprocess.TimeoutExpired:
        raise LaunchError(
            f"the device compiler {cxx} did not answer --version within {timeout:g} s: is "
            f"it a compiler? ${flags.CXX_TIMEOUT_ENV} sets the limit"
        ) from None
    except OSError as e:
        raise LaunchError(f"cannot run the device compiler {cxx}: {e.strerror}") from None
    first = (proc.stdout or proc.stderr).splitlines()[:1]
    return first[0] if first else "?"


def describe_compiler(cxx: str, line: str) -> str:
    """The compiler's path, its ``--version`` line ``line`` and the device flags."""
    every_flag = (*flags.COPTS, *flags.LINKOPTS, *flags.LINK_LIBS)
    return f"{cxx}: {line} {' '.join(every_flag)}"


@functools.cache
def compiler_version() -> str:
    """The compiler's path and first ``--version`` line, and the device flags."""
    cxx = local_toolchain().cxx
    return describe_compiler(cxx, version_line(cxx))


def compile_kernel(
    source: str | os.PathLike[str],
    output: str | os.PathLike[str],
    *,
    compile_time_args: Sequence[int] = (),
    defines: Mapping[str, Any] | None = None,
    include_dirs: Sequence[str | os.PathLike[str]] = (),
) -> Path:
    """Builds one kernel ELF at ``output`` from ``source``; LaunchError with the output."""
    output = Path(output)
    build = KernelBuild(
        stem=output.stem,
        sources=(str(source),),
        include_dirs=tuple(str(d) for d in include_dirs),
        defines=(
            compile_time_args_define(int(v) for v in compile_time_args),
            *(f"{k}={v}" for k, v in sorted((defines or {}).items())),
        ),
    )
    with tempfile.TemporaryDirectory(prefix="ttl-elf-") as out:
        try:
            build_elf(local_toolchain(), build, out, source_dir=os.path.dirname(str(source)))
        except DeviceBuildError as e:
            raise LaunchError(f"compiling {source} failed:\n{e}") from None
        output.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(os.path.join(out, f"{output.stem}.elf"), output)
    return output


def build_bundle(
    out: str | os.PathLike[str],
    sources: Mapping[str, str],
    manifest: Mapping[str, Any],
    ir: str,
    *,
    include_dirs: Sequence[str] = (),
    label: str | None = None,
    on_kernel: Callable[[str], None] | None = None,
    on_headers: Callable[[frozenset[str]], None] | None = None,
) -> dict[str, Any]:
    """Writes kernel ``sources``, builds their ELFs and writes the bundle into ``out``.

    ``sources`` maps file name to C++ text, as a ``CompileResult`` holds
    them; ``include_dirs`` are searched after each kernel's own
    ``include_paths``; ``on_headers`` gets the external headers the builds read.
    Returns the bundle's manifest; LaunchError when a kernel does not build.
    """
    out = str(out)
    kernels = os.path.join(out, "kernels")
    os.makedirs(kernels, exist_ok=True)
    for name, text in sources.items():
        with open(os.path.join(kernels, name), "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    elfs = os.path.join(out, "elf")
    name = label or manifest.get("operation", {}).get("name", "operation")
    try:
        headers = build_manifest(
            local_toolchain(),
            manifest,
            kernels,
            elfs,
            label=name,
            include_dirs=include_dirs,
            on_kernel=on_kernel,
        )
    except DeviceBuildError as e:
        raise LaunchError(str(e)) from None
    if on_headers is not None:
        on_headers(headers)
    return write_bundle(out, manifest, kernels, elfs, ir)
