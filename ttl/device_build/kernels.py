"""Compiling and linking kernel ELFs with the device toolchain.

Each source is compiled to a fixed object name (``-frandom-seed`` is the
kernel's name), then crt0 and the objects are linked with the toolchain's
linker script. Paths recorded in debug info are mapped to names that do not
depend on where the build ran: the working directory to ``.``, the kernel
source directory to ``kernels`` (where a bundle keeps the sources) and the
device headers and link files to ``ttl-device/...``. So a kernel gives the
same ELF bytes in any Bazel output base, sandbox or JIT cache directory.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ttl.device_build import flags, tt_metal_index
from ttl.targets import PROCESSORS

#: Debug-info name of the directory holding a bundle's kernel sources.
KERNELS_DIR = "kernels"
#: Debug-info prefix of the device headers and link files.
DEVICE_PREFIX = "ttl-device"

_MISSING_HEADER = re.compile(
    r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:\d+:)? fatal error: (?P<header>[^:\n]+): "
    r"No such file or directory",
    re.MULTILINE,
)


class DeviceBuildError(Exception):
    """A kernel did not build; the message holds the compiler's output."""


@dataclass(frozen=True)
class Toolchain:
    """A device C++ compiler and the files every kernel is built with.

    ``copts`` and ``linkopts`` are a toolchain's own flags, added after
    :data:`flags.COPTS` and :data:`flags.LINKOPTS`.
    """

    cxx: str
    include_dirs: tuple[str, ...]  # the device headers: kernel API, freestanding <cstdint>
    crt0: str
    linker_script: str
    copts: tuple[str, ...] = ()
    linkopts: tuple[str, ...] = ()
    # A Bazel action: every header a kernel includes (other than the compiler's own)
    # must be a declared input, an exec-root-relative path (check_inclusions).
    confine_includes: bool = False


@dataclass(frozen=True)
class KernelBuild:
    """One ELF: ``<out>/<stem>.elf`` from ``sources``."""

    stem: str
    sources: tuple[str, ...]
    include_dirs: tuple[str, ...] = ()  # searched before the toolchain's
    defines: tuple[str, ...] = ()  # NAME=VALUE


def _prefix_maps(toolchain: Toolchain, source_dir: str | None, cwd: str) -> list[str]:
    """Debug-path maps, general first: gcc and as apply the last map that matches."""
    maps = [(cwd, ".")]
    if source_dir is not None:
        maps.append((source_dir, KERNELS_DIR))
    for index, include in enumerate(toolchain.include_dirs):
        maps.append((include, f"{DEVICE_PREFIX}/include{index or ''}"))
    maps.append((os.path.dirname(toolchain.crt0) or ".", f"{DEVICE_PREFIX}/link"))
    out = []
    for old, new in maps:
        # The compiler sees both spellings: as given on the command line, and absolute.
        for spelling in dict.fromkeys((os.path.normpath(old), os.path.abspath(old))):
            out += [
                f"-ffile-prefix-map={spelling}={new}",
                f"-Wa,--debug-prefix-map={spelling}={new}",
            ]
    return out


def commands(
    toolchain: Toolchain,
    build: KernelBuild,
    out_dir: str,
    objs_dir: str,
    *,
    source_dir: str | None = None,
    cwd: str | None = None,
    debug_path_maps: bool = True,
) -> list[list[str]]:
    """The compile commands (crt0 and each source) and the link command of ``build``.

    ``source_dir`` is the directory of generated kernel sources, recorded as
    ``kernels`` in debug info. Without ``debug_path_maps`` the commands name
    no absolute path (for a compilation database; the ELFs would differ).
    """
    cwd = cwd or os.getcwd()
    maps = _prefix_maps(toolchain, source_dir, cwd) if debug_path_maps else []
    compile_flags = [
        toolchain.cxx,
        *flags.COPTS,
        *toolchain.copts,
        *maps,
        *[f"-I{d}" for d in (*build.include_dirs, *toolchain.include_dirs)],
        *[f"-D{d}" for d in build.defines],
        f"-frandom-seed={build.stem}",
        "-c",
    ]
    result, objects = [], []
    for index, source in enumerate([toolchain.crt0, *build.sources]):
        obj = os.path.join(objs_dir, f"{index}_{os.path.basename(source)}.o")
        result.append([*compile_flags, source, "-o", obj])
        objects.append(obj)
    elf = os.path.join(out_dir, build.stem + ".elf")
    link = [toolchain.cxx, *flags.LINKOPTS, *toolchain.linkopts, "-T", toolchain.linker_script]
    result.append([*link, *objects, *flags.LINK_LIBS, "-o", elf])
    return result


def build_elf(
    toolchain: Toolchain,
    build: KernelBuild,
    out_dir: str,
    *,
    source_dir: str | None = None,
) -> frozenset[str]:
    """Builds ``<out_dir>/<stem>.elf``; raises :class:`DeviceBuildError` with the output.

    Returns the external headers the build read (absolute paths; not the toolchain's
    own): what a cache of the ELF depends on besides the kernel source."""
    if shutil.which(toolchain.cxx) is None:
        raise DeviceBuildError(
            f"device compiler {toolchain.cxx} not found: install gcc-riscv64-unknown-elf, "
            f"or set {flags.CXX_ENV} to a C++ compiler that targets rv32im/ilp32"
        )
    cwd = os.getcwd()
    if toolchain.confine_includes:
        check_include_dirs(build.include_dirs)
    os.makedirs(out_dir, exist_ok=True)
    timeout = flags.cxx_timeout()
    headers: set[str] = set()
    with tempfile.TemporaryDirectory(prefix=f"ttl-{build.stem}-") as objs:
        for command in commands(toolchain, build, out_dir, objs, source_dir=source_dir, cwd=cwd):
            source = command[command.index("-c") + 1] if "-c" in command else None
            deps = None
            if source is not None:  # what it reads: the compiler's -MMD dependency list
                deps = command[command.index("-o") + 1] + ".d"
                command = [*command, "-MMD", "-MF", deps]
            _run_compiler(toolchain.cxx, command, source, timeout, cwd)
            if deps is not None and source is not None and os.path.exists(deps):
                if toolchain.confine_includes:
                    check_inclusions(deps, source, toolchain.include_dirs)
                headers |= external_headers(deps, toolchain.include_dirs, cwd)
        if not os.path.isfile(os.path.join(out_dir, build.stem + ".elf")):
            raise DeviceBuildError(
                f"{toolchain.cxx} exited 0 but wrote no {build.stem}.elf: is it a C++ compiler "
                "for the device?"
            )
    return frozenset(headers)


def _prerequisites(deps_file: str) -> list[str]:
    """The files one compile read, from its ``-MMD`` output (the source first; the
    compiler's own system headers are left out)."""
    with open(deps_file, encoding="utf-8") as f:
        text = f.read().replace("\\\n", " ")
    _, _, prerequisites = text.partition(":")
    return prerequisites.split()


def external_headers(deps_file: str, toolchain_dirs: Sequence[str], cwd: str) -> set[str]:
    """The headers one compile read other than the toolchain's (the device kernel API):
    the external-call headers, as absolute paths."""
    own = [os.path.abspath(d) + os.sep for d in toolchain_dirs]
    paths = (os.path.normpath(os.path.join(cwd, p)) for p in _prerequisites(deps_file)[1:])
    return {p for p in paths if not any(p.startswith(d) for d in own)}


def run_bounded(
    command: Sequence[str], timeout: float, cwd: str | os.PathLike[str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Runs ``command`` with no stdin (a header that includes /dev/stdin reads nothing),
    its output captured, for at most ``timeout`` seconds: then its whole process group is
    killed (a wrapper script's children too, which would otherwise hold the output pipes
    open) and :class:`subprocess.TimeoutExpired` raised."""
    with subprocess.Popen(
        list(command),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        cwd=cwd,
    ) as proc:
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _run_compiler(
    cxx: str, command: list[str], source: str | None, timeout: float, cwd: str
) -> None:
    """Runs one compile (of ``source``) or link command; DeviceBuildError with the
    compiler's output if it fails, runs past ``timeout`` seconds or out of its memory
    (``flags.cxx_memory_mb``, through util-linux's prlimit where there is one)."""
    limit_mb = flags.cxx_memory_mb()
    prlimit = shutil.which("prlimit")
    if prlimit is not None:
        command = [prlimit, f"--as={limit_mb << 20}", "--", *command]
    try:
        proc = run_bounded(command, timeout)
    except subprocess.TimeoutExpired:
        step = f"compiling {os.path.basename(source)}" if source is not None else "linking"
        raise DeviceBuildError(
            f"{cxx} did not finish within {timeout:g} s ({step}): does a header include a "
            f"pipe or a device? ${flags.CXX_TIMEOUT_ENV} sets the limit"
        ) from None
    if proc.returncode != 0:
        output = (proc.stdout + proc.stderr).replace(cwd + os.sep, "")
        if prlimit is not None and _OUT_OF_MEMORY.search(output):
            step = f"compiling {os.path.basename(source)}" if source is not None else "linking"
            raise DeviceBuildError(
                f"{cxx} ran out of its {limit_mb} MiB of memory ({step}): does a header include "
                f"a device such as /dev/zero? ${flags.CXX_MEMORY_ENV} sets the limit\n{output}"
            )
        raise DeviceBuildError(output)


_OUT_OF_MEMORY = re.compile(r"out of memory|virtual memory exhausted|cannot allocate memory", re.I)


def check_include_dirs(include_dirs: Sequence[str]) -> None:
    """Raises :class:`DeviceBuildError` for an absolute include directory (a Bazel action:
    every declared input is exec-root relative, so nothing under it is an input)."""
    outside = [d for d in include_dirs if os.path.isabs(d)]
    if outside:
        raise DeviceBuildError(
            f"include path {outside[0]!r} of an external call is outside the build's "
            "declared inputs (an absolute path): headers under it are not inputs, so editing "
            "them would leave the bundle stale. Put the headers in the workspace or an "
            "external repository, declare them in `hdrs` (or a cc_library in `deps`) of the "
            "ttl_operation, and give include_paths relative to the workspace root"
        )


def check_inclusions(deps_file: str, source: str, toolchain_dirs: Sequence[str] = ()) -> None:
    """Raises :class:`DeviceBuildError` if ``source`` included a header by an absolute path
    outside the toolchain's own header directories (``toolchain_dirs``).

    In a Bazel action every declared input is exec-root relative, so a header
    the compiler reached by an absolute path (``#include "/abs/x.h"``, or an
    absolute include directory) is not an input: editing it would leave the
    target up to date, a stale bundle. ``deps_file`` is the compiler's ``-MMD``
    output, which leaves out the compiler's own system headers.
    """
    own = [os.path.abspath(d) + os.sep for d in toolchain_dirs]
    undeclared = sorted(
        {
            p
            for p in _prerequisites(deps_file)[1:]  # the first is the source itself
            if os.path.isabs(p) and not any(p.startswith(d) for d in own)
        }
    )
    if undeclared:
        raise DeviceBuildError(
            f"{source} includes headers that are not declared inputs of the build: "
            + ", ".join(undeclared)
            + ". Declare them in `hdrs` of the ttl_operation (or of a cc_library in its "
            "`deps`) and include them by a workspace-relative path."
        )


def processor_defines(kernel: Mapping[str, Any]) -> list[str]:
    """TT-Metal's defines of the processor a manifest kernel runs on, as its JIT passes them.

    A compute kernel is built for the math TRISC (the emulator runs the whole
    kernel on one hart), ``dm0`` for BRISC on NOC 0 and ``dm1`` for NCRISC on
    NOC 1. The emulator's headers take the kernel kind from them: a compute
    kernel sees only the compute API, a data-movement kernel only its own.
    """
    if kernel.get("kind") == "compute":
        return ["COMPILE_FOR_TRISC=1"]
    processor, noc = data_movement_processor(kernel)
    return [f"COMPILE_FOR_{processor}", f"NOC_INDEX={noc}"]


def data_movement_processor(kernel: Mapping[str, Any]) -> tuple[str, int]:
    """The TT-Metal processor and NOC of a data-movement manifest kernel (dm0 without a slot)."""
    processor, noc = PROCESSORS.get(kernel.get("processor_slot") or "dm0", PROCESSORS["dm0"])
    assert noc is not None, "a data-movement slot has a NOC"
    return processor, noc


def compile_time_args(kernel: Mapping[str, Any]) -> list[int]:
    """A manifest kernel's compile-time arg values, in order."""
    return [int(arg["value"]) for arg in kernel.get("compile_time_args", [])]


def compile_time_args_define(values: Iterable[int]) -> str:
    """The define that passes a kernel's compile-time args, as TT-Metal's JIT passes them."""
    return "KERNEL_COMPILE_TIME_ARGS=" + ",".join(str(v) for v in values)


def manifest_builds(
    manifest: Mapping[str, Any],
    kernels_dir: str,
    include_dirs: Sequence[str] = (),
    defines: Sequence[str] = (),
) -> list[tuple[dict[str, Any], KernelBuild]]:
    """One :class:`KernelBuild` per manifest kernel, with the manifest's defines.

    Each kernel searches the ``include_paths`` of its external calls first,
    then ``include_dirs``; ``defines`` come after the manifest's own.
    """
    builds = []
    for kernel in manifest.get("kernels", []):
        source = kernel["source"]
        ct_args = compile_time_args_define(compile_time_args(kernel))
        own = [
            ct_args,
            *processor_defines(kernel),
            *(f"{k}={v}" for k, v in sorted(kernel.get("defines", {}).items())),
        ]
        build = KernelBuild(
            stem=os.path.splitext(source)[0],
            sources=(os.path.join(kernels_dir, source),),
            include_dirs=(*kernel.get("include_dirs", []), *include_dirs),
            defines=(*own, *defines),
        )
        builds.append((kernel, build))
    return builds


def compilation_database(
    toolchain: Toolchain,
    builds: Sequence[KernelBuild],
    directory: str,
) -> list[dict[str, Any]]:
    """``compile_commands.json`` entries (clangd's format) for the sources of ``builds``.

    One entry per kernel source (crt0 excluded), with the device flags of the
    real build minus the debug-path maps; paths stay as given (relative to
    ``directory``, which the caller may write as a placeholder).
    """
    entries = []
    for build in builds:
        steps = commands(toolchain, build, "elf", "objs", cwd=directory, debug_path_maps=False)
        for source, step in zip(build.sources, steps[1:-1], strict=True):
            entries.append({"directory": directory, "file": source, "arguments": step})
    return entries


def build_manifest(
    toolchain: Toolchain,
    manifest: Mapping[str, Any],
    kernels_dir: str,
    out_dir: str,
    *,
    label: str,
    include_dirs: Sequence[str] = (),
    defines: Sequence[str] = (),
    on_kernel: Callable[[str], None] | None = None,
) -> frozenset[str]:
    """Builds every kernel of ``manifest`` into ``<out_dir>/<stem>.elf``, in parallel;
    returns the external headers they read (:func:`build_elf`).

    Raises :class:`DeviceBuildError` naming every kernel that failed, with
    what to declare when a header is missing (``label`` names the target).
    """
    builds = manifest_builds(manifest, kernels_dir, include_dirs, defines)
    if not builds:
        raise DeviceBuildError(f"{label}: the manifest lists no kernels")

    headers: set[str] = set()

    def run(item: tuple[dict[str, Any], KernelBuild]) -> str | None:
        kernel, build = item
        if on_kernel is not None:
            on_kernel(kernel["name"])
        try:
            headers.update(build_elf(toolchain, build, out_dir, source_dir=kernels_dir))
        except DeviceBuildError as e:
            return explain_failure(label, kernel, str(e), manifest, toolchain.include_dirs)
        return None

    # The compiler is a subprocess: building kernels in parallel is free speed.
    workers = max(1, min(len(builds), os.cpu_count() or 1))
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        failures = [f for f in pool.map(run, builds) if f is not None]
    if failures:  # one kernel's report per paragraph (a compiler's output ends in a newline)
        raise DeviceBuildError("\n".join(f.rstrip("\n") for f in failures))
    return frozenset(headers)


def explain_failure(
    label: str,
    kernel: Mapping[str, Any],
    output: str,
    manifest: Mapping[str, Any],
    device_include_dirs: Sequence[str] = (),
) -> str:
    """The compiler output, preceded by what to do about it.

    A missing header: what to declare, naming the ``ttl.call_extern_func``
    sites behind it (the calls of that header, else, for a header included by
    a called header, every external call compiled into this kernel). An
    undeclared TT-Metal function: the TT-Metal header declaring it, and whether
    the emulator lacks it or the kernel kind cannot call it
    (:func:`tt_metal_index.explain_undeclared`; ``device_include_dirs`` are the
    emulator's headers).
    """
    calls = manifest.get("extern_calls", [])
    notes = []
    for match in _MISSING_HEADER.finditer(output):
        header = match.group("header").strip('"<>')
        sites = [c for c in calls if c.get("header") == header] or [
            c for c in calls if c.get("kernel") == kernel.get("name")
        ]
        notes.append(
            f"{label}: undeclared header `{header}`, included from "
            f"{match.group('file')}:{match.group('line')}{_describe_sites(sites)}: add it to "
            f"`hdrs` of {label}, or to the `hdrs` of a cc_library in its `deps` (with "
            "`includes`/`strip_include_prefix` if it is included by a shorter path)."
        )
    headers = [p for d in device_include_dirs for p in sorted(Path(d).rglob("*")) if p.is_file()]
    notes += tt_metal_index.explain_undeclared(
        output, compute=kernel.get("kind") == "compute", emulator_headers=headers
    )
    head = "".join(note + "\n" for note in notes)
    return (
        f"{head}{label}: device compile of kernel `{kernel.get('name')}` "
        f"({kernel['source']}) failed:\n{output}"
    )


def _describe_sites(sites: Iterable[Mapping[str, Any]]) -> str:
    out = ""
    for call in sites:
        loc = call.get("loc") or {}
        out += (
            f" (ttl.call_extern_func of `{call.get('header')}` at "
            f"{loc.get('file', '?')}:{loc.get('line', '?')})"
        )
    return out
