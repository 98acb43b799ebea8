"""The pinned TT-Metal kernel API: the headers of one ttnn wheel from PyPI.

TT-Metal ships its device-side headers (``api``, ``hw``, ``hostdevcommon``,
``tt-llk``) inside the ``ttnn`` wheel under ``ttnn/tt_metal/``. The pin, one
value in one place, is ``tt_metal.json`` next to this module: the version, the
wheel's PyPI address and its SHA-256. :func:`headers` downloads that wheel once
(checking the hash), unpacks the header directories into a cache and returns
their root; nothing of the wheel is imported or run. Standard library only, as
the rest of :mod:`ttl.device_build`.

The cache is ``$TTL_TT_METAL_DIR`` if set, else
``$XDG_CACHE_HOME/ttl-bazel/tt-metal`` (default ``~/.cache/ttl-bazel/tt-metal``),
one directory per version; a half-written directory is never used (each is
unpacked beside its final name and renamed into place).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

_PIN = Path(__file__).with_name("tt_metal.json")
_CHUNK = 1 << 20


class TTMetalError(Exception):
    """The pinned TT-Metal headers cannot be obtained (download, hash or disk)."""


@dataclass(frozen=True)
class TTMetalPin:
    """The TT-Metal release whose kernel API generated kernels are checked against."""

    version: str
    url: str
    sha256: str
    prefix: str  # the headers' directory inside the wheel
    header_dirs: tuple[str, ...]


def pin() -> TTMetalPin:
    """The pin in ``tt_metal.json``."""
    data = json.loads(_PIN.read_text(encoding="utf-8"))
    return TTMetalPin(
        version=data["version"],
        url=data["url"],
        sha256=data["sha256"],
        prefix=data["prefix"],
        header_dirs=tuple(data["header_dirs"]),
    )


def cache_root() -> Path:
    """Where unpacked TT-Metal headers are kept, one directory per version."""
    if os.environ.get("TTL_TT_METAL_DIR"):
        return Path(os.environ["TTL_TT_METAL_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache")
    return Path(base) / "ttl-bazel" / "tt-metal"


def headers(root: Path | None = None, the_pin: TTMetalPin | None = None) -> Path:
    """The root of the pinned TT-Metal headers (``api/``, ``hw/``, ...), fetched if needed."""
    the_pin = the_pin or pin()
    root = root or cache_root()
    target = root / the_pin.version
    if (target / ".complete").is_file():
        return target
    try:
        root.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=root, prefix=".fetch-") as work:
            wheel = Path(work) / "ttnn.whl"
            _download(the_pin, wheel)
            staging = Path(work) / "headers"
            _unpack(wheel, the_pin, staging)
            (staging / ".complete").write_text(the_pin.sha256 + "\n", encoding="utf-8")
            if target.exists():  # an incomplete earlier attempt
                shutil.rmtree(target)
            staging.rename(target)
    except OSError as e:
        raise TTMetalError(
            f"cannot unpack TT-Metal {the_pin.version}'s headers into {root}: {e}"
        ) from e
    return target


def _download(the_pin: TTMetalPin, dest: Path) -> None:
    digest = hashlib.sha256()
    try:
        with urllib.request.urlopen(the_pin.url, timeout=120) as response, dest.open("wb") as out:
            while chunk := response.read(_CHUNK):
                digest.update(chunk)
                out.write(chunk)
    except OSError as e:  # URLError and timeouts are OSErrors
        raise TTMetalError(
            f"cannot download TT-Metal {the_pin.version} ({the_pin.url}): {e}"
        ) from e
    if digest.hexdigest() != the_pin.sha256:
        raise TTMetalError(
            f"{the_pin.url}: SHA-256 {digest.hexdigest()} is not the pinned {the_pin.sha256}"
        )


def _unpack(wheel: Path, the_pin: TTMetalPin, dest: Path) -> None:
    wanted = tuple(f"{the_pin.prefix}{d}/" for d in the_pin.header_dirs)
    with zipfile.ZipFile(wheel) as archive:
        for member in archive.infolist():
            if member.is_dir() or not member.filename.startswith(wanted):
                continue
            relative = Path(member.filename[len(the_pin.prefix) :])
            if relative.is_absolute() or ".." in relative.parts:
                raise TTMetalError(f"{wheel.name}: unsafe member {member.filename}")
            out = dest / relative
            out.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(member) as src, out.open("wb") as dst:
                shutil.copyfileobj(src, dst, _CHUNK)
