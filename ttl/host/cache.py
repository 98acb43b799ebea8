"""The JIT's on-disk bundle cache: compile once per (operation, specs, target, grid, toolchain).

A cache entry is a bundle directory laid out like the Bazel bundle
(docs/rules.md): ``manifest.json`` with a ``bundle`` section (SHA-256 of every
file), ``kernels/<source>``, ``elf/<stem>.elf`` and ``operation.mlir``, so
``ttl.runtime.load_bundle`` reads it unchanged.

Location: ``$TTL_CACHE_DIR``, else ``$XDG_CACHE_HOME/ttl``, else
``~/.cache/ttl``; entries live in ``bundles/<key>``, each sealed by a record
(``.ttl-entry.json``: its key and the SHA-256 of its manifest, whose
``bundle`` section hashes every other file). Damaged entries are discarded and
rebuilt; an unusable location falls back to a per-process directory. The key is a SHA-256 over
the operation identity, the tensor specs, the target and grid, the device
compiler's version string and flags, and a fingerprint of the ttl sources
that shape the output (DSL, compiler, device build, device headers and link
files), so
editing the compiler or ``kernel_api.h`` never serves a stale ELF.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import functools
import hashlib
import json
import os
import shutil
import socket
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ttl.device_build import bundle as bundle_format
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


@functools.cache
def device_compiler_version() -> str:
    """The device compiler's path and version line, and the device flags.

    The version line is remembered in the cache directory per compiler binary
    (its real path, size and modification time), so a process that finds its
    bundles in the cache starts no ``--version`` subprocess.
    """
    cxx = toolchain.local_toolchain().cxx
    return toolchain.describe_compiler(cxx, _remembered_version_line(cxx))


_VERSIONS_FILE = "compiler-versions.json"  # {"<real path>:<size>:<mtime ns>": version line}


def _remembered_version_line(cxx: str) -> str:
    real = os.path.realpath(cxx)
    st = os.stat(real)
    stamp = f"{real}:{st.st_size}:{st.st_mtime_ns}"
    memo = cache_dir() / _VERSIONS_FILE
    try:
        known = json.loads(memo.read_text())
    except (OSError, ValueError):
        known = {}
    if not isinstance(known, dict):
        known = {}
    line = known.get(stamp)
    if isinstance(line, str):
        return line
    line = toolchain.version_line(cxx)
    known[stamp] = line
    with contextlib.suppress(OSError):  # an unwritable cache only costs the subprocess
        memo.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".versions-", dir=memo.parent)
        with os.fdopen(fd, "w") as f:
            json.dump(known, f, sort_keys=True)
        os.replace(tmp, memo)  # atomic: concurrent processes never read half a file
    return line


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
    build: Mapping[str, Any] | None = None,
) -> str:
    """The entry name: SHA-256 over everything that decides the bundle's bytes.

    ``build``: the rest of it: the source's file name (the C++ line comments name
    it), the operation's compute options and the compiler options.
    """
    fields = {
        "build": dict(build or {}),
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


@functools.cache  # (a metadata lookup scans sys.path: milliseconds per operation call)
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


ENTRY_RECORD = ".ttl-entry.json"  # written last into an entry: its key and manifest hash
_TMP_PREFIX = ".tmp-"  # entries being built: .tmp-<host>-<pid>-<random>


class CacheFullError(OSError):
    """The cache's disk is full: the message names the directory and what to do."""


# Unusable cache directories -> the per-process directory used instead.
_FALLBACKS: dict[Path, Path] = {}


def bundles_dir() -> Path:
    """The directory holding the entries, created if needed.

    An unusable cache location (read-only, a file, an unwritable home) falls back,
    with a one-line warning naming ``TTL_CACHE_DIR``, to a temporary directory
    that lasts as long as the process (removed at its exit). A read-only cache
    is still read (:func:`lookup`): only new entries go to the fallback.
    """
    root = cache_dir() / "bundles"
    if root in _FALLBACKS:
        return _FALLBACKS[root]
    try:
        root.mkdir(parents=True, exist_ok=True)
        if not os.access(root, os.W_OK | os.X_OK):
            raise PermissionError(f"{root} is not writable")
    except OSError as e:
        fallback = Path(tempfile.mkdtemp(prefix="ttl-cache-")) / "bundles"
        fallback.mkdir()
        atexit.register(shutil.rmtree, fallback.parent, True)
        _notice(
            f"the JIT cache at {root} is unusable ({e.strerror or e}); using {fallback.parent} "
            "for this process (set TTL_CACHE_DIR to a writable directory)"
        )
        _FALLBACKS[root] = fallback
        return fallback
    return root


def lookup(key: str) -> Path | None:
    """The entry for ``key`` if it is intact, else None.

    An entry that is damaged (its record or manifest edited, missing or not a
    directory) is discarded with a one-line notice; the caller rebuilds it.
    """
    shared = cache_dir() / "bundles"
    if bundles_dir() != shared and _damage(shared / key, key) is None:
        return shared / key  # a read-only cache's entry: read, never written
    path = bundles_dir() / key
    if not os.path.lexists(path):
        return None
    problem = _damage(path, key)
    if problem is _STALE:
        discard(key)  # built with headers that are no longer what they were: rebuild
        return None
    if problem is None:
        with contextlib.suppress(OSError):  # recently used: evicted last (evict)
            os.utime(path / ENTRY_RECORD)
        return path
    _notice(f"discarding the damaged cache entry {path} ({problem}); rebuilding it")
    discard(key)
    return None


def _damage(path: Path, key: str) -> str | None:
    """What is wrong with the entry at ``path``, or None if its record vouches for it."""
    if not path.is_dir() or path.is_symlink():
        return "not a directory"
    try:  # bounded reads: an entry's files may be anything (a FIFO, /dev/zero)
        limit = bundle_format.MAX_MANIFEST_BYTES
        record = json.loads(bundle_format.read_bounded(path / ENTRY_RECORD, limit))
        manifest = bundle_format.read_bounded(path / bundle_format.MANIFEST, limit)
    except (OSError, ValueError, RecursionError) as e:
        return f"unreadable: {getattr(e, 'strerror', None) or e}"
    if not isinstance(record, dict) or record.get("key") != key:
        return "its record names another entry"
    if record.get("manifest_sha256") != hashlib.sha256(manifest).hexdigest():
        return "manifest.json does not match its record"
    if _headers_changed(record.get("headers", {})):
        return _STALE
    return None


#: What :func:`_damage` says of an intact entry built with external headers that have
#: changed since: a miss, not damage (no notice).
_STALE = "built with external headers that have changed"


def _header_digests(paths: frozenset[str]) -> dict[str, str]:
    """Path -> SHA-256 of each external header a bundle's build read ("" if unreadable)."""
    out = {}
    for path in sorted(paths):
        try:
            data = bundle_format.read_bounded(Path(path), MAX_HEADER_BYTES)
        except (OSError, ValueError):
            out[path] = ""
            continue
        out[path] = hashlib.sha256(data).hexdigest()
    return out


#: The largest external header a cache entry vouches for by its hash.
MAX_HEADER_BYTES = 64 << 20


def _headers_changed(recorded: object) -> bool:
    """Whether an external header an entry's record names (path -> SHA-256) changed.

    The key covers the program's source, not the headers its external calls include
    through ``include_paths`` or by an absolute path (they are known only once the
    kernels build), so the entry records them with their hashes, as ccache records a
    compile's includes, and an edited, moved or removed header makes it a miss.
    """
    if not isinstance(recorded, dict):
        return True
    return _header_digests(frozenset(recorded)) != recorded


def discard(key: str) -> None:
    """Removes the entry for ``key`` (a damaged one is rebuilt by the next call)."""
    path = bundles_dir() / key
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(OSError):
            path.unlink()


def _notice(message: str) -> None:
    print(f"ttl: {message}", file=sys.stderr)


def _clean_stale_builds(root: Path) -> None:
    """Removes the temporary directories of builds on this host whose process is gone."""
    mine = f"{_TMP_PREFIX}{socket.gethostname()}-"
    for path in root.glob(f"{mine}*"):
        pid = path.name[len(mine) :].split("-", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(path, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's live process
    return True


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def store(
    key: str,
    result: Any,
    include_dirs: Sequence[str] = (),
    on_kernel: Callable[[str], None] | None = None,
) -> Path:
    """Builds the ELFs of a ``CompileResult`` and publishes the bundle atomically.

    The bundle is assembled in a temporary directory next to its final place,
    sealed with its record (the manifest's hash) and renamed into place, so a
    reader never sees a half-written entry; if another process published the
    same key first, its entry is kept. Entries get the umask's permissions. A
    full disk raises :class:`CacheFullError`.
    """
    root = bundles_dir()
    _clean_stale_builds(root)
    final = root / key
    prefix = f"{_TMP_PREFIX}{socket.gethostname()}-{os.getpid()}-"
    try:
        tmp = Path(tempfile.mkdtemp(prefix=prefix, dir=root))
        try:
            headers: list[frozenset[str]] = []
            toolchain.build_bundle(
                tmp,
                result.sources,
                result.manifest,
                result.ir,
                include_dirs=include_dirs,
                on_kernel=on_kernel,
                on_headers=headers.append,
            )
            digest = hashlib.sha256((tmp / "manifest.json").read_bytes()).hexdigest()
            record = {
                "key": key,
                "manifest_sha256": digest,
                "headers": _header_digests(headers[0] if headers else frozenset()),
            }
            (tmp / ENTRY_RECORD).write_text(json.dumps(record, sort_keys=True) + "\n")
            os.chmod(tmp, 0o777 & ~_umask())  # mkdtemp made it private
            try:
                os.rename(tmp, final)
            except OSError:
                if lookup(key) is None:  # not a lost race: a real failure
                    raise
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    except OSError as e:
        if e.errno == errno.ENOSPC:
            raise CacheFullError(
                e.errno,
                f"the JIT cache at {root} is out of disk space: free some, or set "
                "TTL_CACHE_DIR to a directory on another disk",
            ) from None
        raise
    STATS.misses += 1
    STATS.compiled.append(key)
    evict(root, keep=key)
    return final


#: ``$TTL_CACHE_MAX_BYTES`` (or ``$TTL_CACHE_MAX_MB``, in MiB): the size the cache's
#: entries may take (default 1024 MiB); past it, the least recently used entries are
#: removed after a new one is published.
MAX_BYTES_ENV = "TTL_CACHE_MAX_BYTES"
MAX_MB_ENV = "TTL_CACHE_MAX_MB"
DEFAULT_MAX_MB = 1024


def max_bytes() -> int:
    """The cache's size limit in bytes: ``$TTL_CACHE_MAX_BYTES``, else
    ``$TTL_CACHE_MAX_MB`` MiB, else the default; a value that is not a non-negative
    number is a one-line notice and the default."""
    for name, unit in ((MAX_BYTES_ENV, 1), (MAX_MB_ENV, 1 << 20)):
        raw = os.environ.get(name, "").strip()
        if not raw:
            continue
        try:
            value = float(raw)
        except ValueError:
            value = -1.0
        if not value >= 0 or value == float("inf"):
            _notice(
                f"${name}={raw!r} is not a size (write a number of "
                f"{'bytes' if unit == 1 else 'MiB'}); the cache keeps the default "
                f"{DEFAULT_MAX_MB} MiB"
            )
            break
        return int(value * unit)
    return DEFAULT_MAX_MB << 20


def evict(root: Path, keep: str) -> list[str]:
    """Removes the least recently used entries of ``root`` (a record's modification time:
    :func:`lookup` touches it on each hit) until the rest fit :func:`max_bytes`; never
    ``keep``, the entry just published. Returns the keys removed."""
    entries = []
    for path in root.iterdir() if root.is_dir() else ():
        if path.name.startswith(".") or not path.is_dir() or path.is_symlink():
            continue
        try:
            used = (path / ENTRY_RECORD).stat().st_mtime_ns
            size = sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
        except OSError:
            continue  # being published or removed by another process
        entries.append((used, path.name, size))
    total, limit = sum(size for _, _, size in entries), max_bytes()
    removed = []
    for _, name, size in sorted(entries):
        if total <= limit:
            break
        if name == keep:
            continue
        shutil.rmtree(root / name, ignore_errors=True)
        total -= size
        removed.append(name)
    return removed
