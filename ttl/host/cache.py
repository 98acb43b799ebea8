"""The JIT's on-disk bundle cache: compile once per (operation, specs, target, grid, toolchain).

A cache entry is a bundle directory laid out like the Bazel bundle
(docs/rules.md): ``manifest.json`` with a ``bundle`` section (SHA-256 of every
file), ``kernels/<source>``, ``elf/<stem>.elf`` and ``operation.mlir``, so
``ttl.runtime.load_bundle`` reads it unchanged.

Location: ``$TTL_CACHE_DIR``, else ``$XDG_CACHE_HOME/ttl``, else
``~/.cache/ttl``; entries live in ``bundles/<key>``, and the kernel sources
the ELFs' debug info names (quoted by emulator errors) in ``src/<key>``. The key is a SHA-256 over
the operation identity, the tensor specs, the target and grid, the device
compiler's version string and flags, and a fingerprint of the ttl sources
that shape the output (DSL, compiler, device headers and link files), so
editing the compiler or ``kernel_api.h`` never serves a stale ELF.
"""

from __future__ import annotations

import concurrent.futures
import functools
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ttl.device_build import devcc
from ttl.runtime.errors import LaunchError

BUNDLE_FORMAT = 1
KEY_VERSION = "ttl-jit-cache/1"  # bump when the entry layout changes

_TTL_DIR = Path(__file__).resolve().parent.parent
# What decides the bytes of a bundle besides the operation itself.
_FINGERPRINT_GLOBS = ("*.py", "compiler/**/*.py", "runtime/device/**/*")


def cache_dir() -> Path:
    """The user cache directory of the JIT (not created here)."""
    explicit = os.environ.get("TTL_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return Path(xdg) / "ttl" if xdg else Path.home() / ".cache" / "ttl"


@functools.cache
def device_compiler_version() -> str:
    """First line of ``<device cxx> --version``, plus the flags devcc uses."""
    cxx = devcc.find_compiler()
    if cxx is None:
        raise LaunchError(
            f"device compiler {devcc.CXX} not found: install "
            "gcc-riscv64-unknown-elf, or set TTL_DEVICE_CXX to a RISC-V compiler"
        )
    proc = subprocess.run([cxx, "--version"], capture_output=True, text=True, check=False)
    first = (proc.stdout or proc.stderr).splitlines()[:1]
    return f"{cxx}: {first[0] if first else '?'} {' '.join(devcc.CXXFLAGS)}"


@functools.cache
def toolchain_fingerprint() -> str:
    """SHA-256 over the ttl sources that determine compiler output and ELFs."""
    digest = hashlib.sha256()
    files = sorted(
        {
            p
            for pattern in _FINGERPRINT_GLOBS
            for p in _TTL_DIR.glob(pattern)
            if p.is_file() and "__pycache__" not in p.parts
        }
    )
    for path in files:
        digest.update(str(path.relative_to(_TTL_DIR)).encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def _dir_fingerprint(dirs: Sequence[str]) -> str:
    """Hash of every file under the caller's include directories (external-call headers)."""
    digest = hashlib.sha256()
    for d in dirs:
        digest.update(os.path.abspath(d).encode() + b"\0")
        for path in sorted(Path(d).rglob("*")):
            if path.is_file():
                digest.update(str(path.relative_to(d)).encode() + b"\0")
                digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def cache_key(
    identity: str, specs: Sequence[str], target: str, grid: Any, include_dirs: Sequence[str] = ()
) -> str:
    """The entry name: SHA-256 over everything that decides the bundle's bytes."""
    fields = {
        "format": KEY_VERSION,
        "identity": identity,
        "specs": list(specs),
        "target": target,
        "grid": repr(grid),
        "device_compiler": device_compiler_version(),
        "ttl": f"{_ttl_version()}+{toolchain_fingerprint()}",
        "include_dirs": _dir_fingerprint(include_dirs) if include_dirs else "",
    }
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()


def _ttl_version() -> str:
    from importlib import metadata

    try:
        return metadata.version("ttl")
    except metadata.PackageNotFoundError:  # running from a source tree
        return "source"


@dataclass
class CacheStats:
    """What the cache did in this process (tests use it to prove no recompilation)."""

    hits: int = 0
    misses: int = 0  # compilations (compiler + device toolchain)
    compiled: list[str] = field(default_factory=list)  # keys built, in order


STATS = CacheStats()


def lookup(key: str) -> Path | None:
    """The entry for ``key`` if it is complete (its manifest exists), else None."""
    path = cache_dir() / "bundles" / key
    return path if (path / "manifest.json").is_file() else None


def discard(key: str) -> None:
    """Removes the entry for ``key`` (a damaged one is rebuilt by the next call)."""
    shutil.rmtree(cache_dir() / "bundles" / key, ignore_errors=True)
    shutil.rmtree(cache_dir() / "src" / key, ignore_errors=True)


def store(
    key: str,
    result: Any,
    include_dirs: Sequence[str] = (),
    on_kernel: Callable[[str], None] | None = None,
) -> Path:
    """Builds the ELFs of a ``CompileResult`` and publishes the bundle atomically.

    The bundle is assembled in a temporary directory next to its final place
    and renamed into it, so a reader never sees a half-written entry; if
    another process published the same key first, its entry is kept.
    """
    root = cache_dir() / "bundles"
    root.mkdir(parents=True, exist_ok=True)
    final = root / key
    tmp = Path(tempfile.mkdtemp(prefix=f".{key[:16]}-", dir=root))
    try:
        _assemble(tmp, key, result, include_dirs, on_kernel)
        try:
            os.rename(tmp, final)
        except OSError:
            if lookup(key) is None:  # not a lost race: a real failure
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    STATS.misses += 1
    STATS.compiled.append(key)
    return final


def _assemble(
    out: Path,
    key: str,
    result: Any,
    include_dirs: Sequence[str],
    on_kernel: Callable[[str], None] | None,
) -> None:
    manifest = result.manifest
    files = {}
    (out / "kernels").mkdir()
    (out / "elf").mkdir()
    # ELFs record their source path (DWARF), which emulator errors quote: compile from a
    # location that outlives the temporary directory. Same key, same bytes: a concurrent
    # writer replacing a file is harmless.
    src_dir = cache_dir() / "src" / key
    src_dir.mkdir(parents=True, exist_ok=True)
    for name, text in result.sources.items():
        (out / "kernels" / name).write_text(text, encoding="utf-8")
        staged = src_dir / f".{name}.{os.getpid()}"
        staged.write_text(text, encoding="utf-8")
        os.replace(staged, src_dir / name)
    (out / "operation.mlir").write_text(result.ir, encoding="utf-8")

    def build(kernel: dict) -> None:
        if on_kernel:
            on_kernel(kernel["name"])
        stem = Path(kernel["source"]).stem
        dirs = [*kernel.get("include_dirs", []), *(os.path.abspath(d) for d in include_dirs)]
        devcc.compile_kernel(
            src_dir / kernel["source"],
            out / "elf" / f"{stem}.elf",
            defines=kernel["defines"],
            include_dirs=dirs,
        )

    # The device compiler is a subprocess: building kernels in parallel is free speed.
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        list(pool.map(build, manifest["kernels"]))
    for path in sorted(out.rglob("*")):
        if path.is_file():
            rel = path.relative_to(out).as_posix()
            files[rel] = "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()
    data = dict(manifest, bundle={"format": BUNDLE_FORMAT, "files": files})
    (out / "manifest.json").write_text(
        json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )
