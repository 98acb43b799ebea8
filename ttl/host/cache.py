"""The JIT's on-disk bundle cache: compile once per (operation, specs, target, grid, toolchain).

A cache entry is a bundle directory laid out like the Bazel bundle
(docs/rules.md): ``manifest.json`` with a ``bundle`` section (SHA-256 of every
file), ``kernels/<source>``, ``elf/<stem>.elf`` and ``operation.mlir``, so
``ttl.runtime.load_bundle`` reads it unchanged.

Location: ``$TTL_CACHE_DIR``, else ``$XDG_CACHE_HOME/ttl``, else
``~/.cache/ttl``; entries live in ``bundles/<key>``. The key is a SHA-256 over
the operation identity, the tensor specs, the target and grid, the device
compiler's version string and flags, and a fingerprint of the ttl sources
that shape the output (DSL, compiler, device build, device headers and link
files), so
editing the compiler or ``kernel_api.h`` never serves a stale ELF.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ttl.host import toolchain

KEY_VERSION = "ttl-jit-cache/2"  # bump when the entry layout changes

_TTL_DIR = Path(__file__).resolve().parent.parent
# What decides the bytes of a bundle besides the operation itself.
_FINGERPRINT_GLOBS = ("*.py", "compiler/**/*.py", "device_build/**/*.py", "runtime/device/**/*")


def cache_dir() -> Path:
    """The user cache directory of the JIT (not created here)."""
    explicit = os.environ.get("TTL_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return Path(xdg) / "ttl" if xdg else Path.home() / ".cache" / "ttl"


def device_compiler_version() -> str:
    """The device compiler's path and version line, and the device flags."""
    return toolchain.compiler_version()


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
    identity: str,
    specs: Sequence[str],
    target: str,
    grid: Any,
    include_dirs: Sequence[str] = (),
    compute: Mapping[str, Any] | None = None,
) -> str:
    """The entry name: SHA-256 over everything that decides the bundle's bytes.

    ``compute``: the operation's compute options and compiler options.
    """
    fields = {
        "compute": dict(compute or {}),
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
        toolchain.build_bundle(
            tmp,
            result.sources,
            result.manifest,
            result.ir,
            include_dirs=include_dirs,
            on_kernel=on_kernel,
        )
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
