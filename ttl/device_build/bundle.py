"""The bundle: what the runtime dispatches. Its format and its writer.

Layout of a bundle directory::

    manifest.json      the compiler's manifest plus a "bundle" section:
                       {"files": {relative path: "sha256:<hex>"}, "format": 1}
    kernels/<src>      the generated C++ source of every logical kernel
    elf/<stem>.elf     the linked RV32 ELF of every logical kernel
    operation.mlir     the ttl-dialect IR

Deterministic: sorted keys, no paths outside the bundle, no timestamps.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
from collections.abc import Mapping
from typing import Any

#: Version of the layout above; the runtime refuses other versions.
BUNDLE_FORMAT = 1
MANIFEST = "manifest.json"
KERNELS = "kernels"
ELFS = "elf"
IR = "operation.mlir"


#: The largest ``manifest.json`` and kernel ELF a reader accepts: far above what the
#: compiler writes (kilobytes; an ELF's code and data fit the kernel's 1 MiB LOCAL),
#: so a bundle cannot make a reader allocate without bound.
MAX_MANIFEST_BYTES = 16 << 20
MAX_SOURCE_BYTES = 16 << 20
MAX_ELF_BYTES = 64 << 20


class UnsafeBundleFileError(ValueError):
    """A bundle file that cannot be read safely: a path leaving the bundle, or not a
    regular file of bounded size (a FIFO would block the reader, ``/dev/zero`` never ends)."""


def bundle_member(root: str | os.PathLike, rel: str) -> str:
    """The path of ``rel`` inside bundle ``root``; ``rel`` must be a relative path with
    no ``..`` component (manifest entries are untrusted input), and the file must stay
    in the bundle once symlinks are resolved.

    Bazel's runfiles and sandboxes present a bundle as a symlink to its directory or
    as one symlink per file, so a member may be a symlink, but only to the file of the
    same name in the directory the bundle's manifest resolves into: a link to
    anything else (``/etc/passwd``, another bundle's ELF, a sibling file) is refused.
    """
    parts = rel.replace("\\", "/").split("/")
    if not rel or os.path.isabs(rel) or any(p in ("", ".", "..") for p in parts):
        raise UnsafeBundleFileError(f"{rel!r} is not a path inside the bundle")
    path = os.path.join(os.fspath(root), *parts)
    real_root = os.path.dirname(os.path.realpath(os.path.join(os.fspath(root), MANIFEST)))
    resolved = os.path.realpath(path)
    if resolved != os.path.join(real_root, *parts):
        raise UnsafeBundleFileError(
            f"{rel} resolves to {resolved}, outside the bundle (its manifest is in "
            f"{real_root}): a bundle's files are its own, not links to other files"
        )
    return path


def kernel_members(source: object) -> tuple[str, str]:
    """The bundle paths of a manifest kernel's ``source``: (``kernels/<source>``,
    ``elf/<stem>.elf``). ``source`` must be a plain file name (no directory, not hidden)."""
    if not isinstance(source, str) or "/" in source or "\\" in source or source[:1] in ".":
        raise UnsafeBundleFileError(
            f"its source {source!r} is not a plain name: a kernel source is a file name in "
            f"the bundle's {KERNELS}/ directory"
        )
    return f"{KERNELS}/{source}", f"{ELFS}/{os.path.splitext(source)[0]}.elf"


def read_bounded(path: str | os.PathLike, limit: int) -> bytes:
    """The bytes of the regular file at ``path`` (symlinks followed: Bazel's runfiles
    and sandboxes present bundle files as symlinks), at most ``limit`` of them.

    Raises :class:`UnsafeBundleFileError` for anything else (a FIFO, a device, a
    directory, a larger file) without blocking; OSError if it cannot be opened.
    """
    fd = os.open(os.fspath(path), os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = _file_kind(info.st_mode)
            raise UnsafeBundleFileError(f"{path} is not a regular file ({kind})")
        data = f.read(limit + 1)
    if len(data) > limit:
        raise UnsafeBundleFileError(f"{path} is larger than the {limit} bytes such a file may have")
    return data


def _file_kind(mode: int) -> str:
    for test, kind in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return kind
    return "a special file"


def digest_bytes(data: bytes) -> str:
    """The ``sha256:<hex>`` form a bundle records for a file's bytes."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def digest_file(path: str) -> str:
    """:func:`digest_bytes` of a file, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 16), b""):
            digest.update(chunk)
    return "sha256:" + digest.hexdigest()


def dumps_manifest(manifest: Mapping[str, Any]) -> str:
    """The bytes of ``manifest.json``: indented, sorted keys, trailing newline."""
    return json.dumps(manifest, indent=2, sort_keys=True) + "\n"


def _copy_tree(src: str, dst: str) -> None:
    if os.path.abspath(src) == os.path.abspath(dst):
        return
    os.makedirs(dst, exist_ok=True)
    for name in sorted(os.listdir(src)):
        path = os.path.join(src, name)
        if os.path.isdir(path):
            _copy_tree(path, os.path.join(dst, name))
        else:
            shutil.copyfile(path, os.path.join(dst, name))


def _files(root: str) -> list[str]:
    """Every file under ``root``, as sorted '/'-separated relative paths."""
    found = []
    for base, dirs, names in os.walk(root):
        dirs.sort()
        for name in names:
            found.append(os.path.relpath(os.path.join(base, name), root).replace(os.sep, "/"))
    return sorted(found)


def write_bundle(
    out: str, manifest: Mapping[str, Any], kernels_dir: str, elf_dir: str, ir: str
) -> dict[str, Any]:
    """Writes the bundle of ``manifest`` into ``out``; returns its manifest.

    ``kernels_dir`` and ``elf_dir`` are copied to ``out/kernels`` and
    ``out/elf`` unless they already are those directories; ``ir`` is the IR
    text. Any other file already in ``out`` is part of the bundle too.
    """
    os.makedirs(out, exist_ok=True)
    _copy_tree(kernels_dir, os.path.join(out, KERNELS))
    _copy_tree(elf_dir, os.path.join(out, ELFS))
    with open(os.path.join(out, IR), "w", encoding="utf-8", newline="\n") as f:
        f.write(ir)
    files = {rel: digest_file(os.path.join(out, rel)) for rel in _files(out) if rel != MANIFEST}
    data = dict(manifest, bundle={"format": BUNDLE_FORMAT, "files": files})
    with open(os.path.join(out, MANIFEST), "w", encoding="utf-8", newline="\n") as f:
        f.write(dumps_manifest(data))
    return data
