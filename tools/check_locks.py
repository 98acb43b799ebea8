"""Checks that every hash-locked requirement installs from PyPI alone.

A machine that reaches only PyPI (no find-links, no extra index, no local wheel
folder) must be able to install each lock tools/setup.sh may fall back to. For
every `name==version` entry of every `requirements*.lock` this asks PyPI's JSON
simple API (PEP 691) for the project's files, and accepts the entry when one file
of that version carries a locked hash and is installable by this interpreter (a
wheel whose tags it supports, or an sdist), or by the CPython version a lock's
`# python: X.Y` line names (requirements-ttnn.lock: 3.12) on this platform. It
reads no pip configuration, so what pip would find only on this machine does not
count.

The `requirements-<group>-cpu.lock` files pin PyTorch's CPU build, which PyPI does
not serve: there torch must be a `+cpu` build and its `requirements-<group>.lock`
must exist; every other entry must resolve from PyPI and pin the version that
lock pins.

Usage: python tools/check_locks.py [LOCK ...]   (default: every requirements*.lock)
Exit status 0 when every entry resolves, 1 otherwise (each failure on one line).
"""

from __future__ import annotations

import json
import re
import sys
import urllib.error
import urllib.request
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.tags import Tag, compatible_tags, cpython_tags, platform_tags, sys_tags
from packaging.utils import canonicalize_name, parse_sdist_filename, parse_wheel_filename
from packaging.version import Version

PYPI_SIMPLE = "https://pypi.org/simple/"
ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class LockedRequirement:
    """One entry of a hash-locked requirements file."""

    lock: Path
    line: int
    name: str
    version: Version
    hashes: frozenset[str]
    marker: Marker | None

    def where(self) -> str:
        return f"{self.lock.name}:{self.line}"


def parse_lock(lock: Path) -> list[LockedRequirement]:
    """The entries of LOCK, with the line each starts on (comments dropped)."""
    entries: list[LockedRequirement] = []
    logical, first_line = "", 0
    text = lock.read_text(encoding="utf-8").splitlines()
    for number, raw in enumerate(text, start=1):
        line = raw.split("#", 1)[0].rstrip()  # hashes are written --hash=sha256:...
        if not logical:
            first_line = number
        logical += " " + line.rstrip("\\").strip()
        if line.endswith("\\"):
            continue
        if logical.strip():
            entries.append(_parse_entry(lock, first_line, logical.strip()))
        logical = ""
    return entries


def _parse_entry(lock: Path, line: int, text: str) -> LockedRequirement:
    hashes = frozenset(re.findall(r"--hash=sha256:([0-9a-f]{64})", text))
    spec = re.sub(r"--hash=\S+", "", text).strip()
    requirement = Requirement(spec)
    pins = [s for s in requirement.specifier if s.operator == "=="]
    if len(pins) != 1 or not hashes:
        raise SystemExit(f"{lock.name}:{line}: not an exact, hash-locked pin: {spec}")
    return LockedRequirement(
        lock=lock,
        line=line,
        name=canonicalize_name(requirement.name),
        version=Version(pins[0].version),
        hashes=hashes,
        marker=requirement.marker,
    )


class PyPI:
    """PyPI's file lists, fetched once per project."""

    def __init__(self, index: str = PYPI_SIMPLE) -> None:
        self._index = index
        self._files: dict[str, list[dict[str, object]]] = {}

    def files(self, name: str) -> list[dict[str, object]]:
        if name not in self._files:
            request = urllib.request.Request(
                f"{self._index}{name}/",
                headers={"Accept": "application/vnd.pypi.simple.v1+json"},
            )
            try:
                with urllib.request.urlopen(request, timeout=60) as response:
                    self._files[name] = json.load(response)["files"]
            except urllib.error.HTTPError as error:
                if error.code != 404:
                    raise
                self._files[name] = []
        return self._files[name]


def _file_version(filename: str) -> tuple[Version, frozenset[Tag] | None] | None:
    """A distribution file's version and (for wheels) tags; None for other files."""
    try:
        if filename.endswith(".whl"):
            _, version, _, tags = parse_wheel_filename(filename)
            return version, tags
        if filename.endswith((".tar.gz", ".zip")):
            return parse_sdist_filename(filename)[1], None
    except ValueError:
        return None
    return None


def check_entry(entry: LockedRequirement, pypi: PyPI, supported: frozenset[Tag]) -> str | None:
    """None when PyPI serves ENTRY installably; otherwise what is wrong."""
    files = pypi.files(entry.name)
    if not files:
        return f"{entry.where()}: {entry.name} is not on PyPI"
    same_version = []
    for file in files:
        parsed = _file_version(str(file["filename"]))
        if parsed and parsed[0] == entry.version:
            same_version.append((file, parsed[1]))
    if not same_version:
        return f"{entry.where()}: PyPI has no {entry.name}=={entry.version}"
    locked = [
        (file, tags)
        for file, tags in same_version
        if dict(file["hashes"]).get("sha256") in entry.hashes  # type: ignore[call-overload]
    ]
    if not locked:
        return (
            f"{entry.where()}: none of PyPI's files of {entry.name}=={entry.version}"
            " has a locked hash"
        )
    if not any(tags is None or tags & supported for _, tags in locked):
        return (
            f"{entry.where()}: PyPI's locked files of {entry.name}=={entry.version} are"
            " wheels this interpreter cannot install"
        )
    return None


def _cpu_counterpart(lock: Path) -> Path | None:
    if lock.name.endswith("-cpu.lock"):
        return lock.with_name(lock.name.removesuffix("-cpu.lock") + ".lock")
    return None


def supported_tags(lock: Path) -> frozenset[Tag]:
    """The wheel tags LOCK is installed with: this interpreter's, or those of the CPython
    its `# python: X.Y` line names, on this platform."""
    match = re.search(r"^# python: (\d+)\.(\d+)$", lock.read_text(encoding="utf-8"), re.M)
    if match is None:
        return frozenset(sys_tags())
    version = (int(match[1]), int(match[2]))
    platforms = list(platform_tags())
    interpreter = f"cp{version[0]}{version[1]}"
    return frozenset(
        [
            *cpython_tags(version, platforms=platforms),
            *compatible_tags(version, interpreter, platforms),
        ]
    )


def check_locks(locks: Iterable[Path], pypi: PyPI | None = None) -> list[str]:
    """Every problem found in LOCKS, one line each (empty when all resolve)."""
    pypi = pypi or PyPI()
    problems: list[str] = []
    for lock in locks:
        supported = supported_tags(lock)
        entries = parse_lock(lock)
        counterpart = _cpu_counterpart(lock)
        pypi_entries: dict[str, LockedRequirement] = {}
        if counterpart is not None:
            if not counterpart.exists():
                problems.append(f"{lock.name}: no {counterpart.name} to fall back to")
            else:
                pypi_entries = {e.name: e for e in parse_lock(counterpart)}
        for entry in entries:
            if entry.marker is not None and not entry.marker.evaluate():
                continue
            if counterpart is not None and entry.name == "torch":
                if entry.version.local != "cpu":
                    problems.append(f"{entry.where()}: torch must be the +cpu build here")
                continue
            if counterpart is not None and entry.name in pypi_entries:
                other = pypi_entries[entry.name]
                if other.version != entry.version:
                    problems.append(
                        f"{entry.where()}: {entry.name}=={entry.version} disagrees with"
                        f" {other.where()} ({other.version})"
                    )
            problem = check_entry(entry, pypi, supported)
            if problem:
                problems.append(problem)
    return problems


def main(argv: list[str]) -> int:
    locks = [Path(arg) for arg in argv] or sorted(ROOT.glob("requirements*.lock"))
    try:
        problems = check_locks(locks)
    except (urllib.error.URLError, TimeoutError) as error:
        print(f"check_locks: cannot reach PyPI ({PYPI_SIMPLE}): {error}", file=sys.stderr)
        return 1
    entries = [entry for lock in locks for entry in parse_lock(lock)]
    cpu_builds = sum(1 for e in entries if e.name == "torch" and e.version.local == "cpu")
    for problem in problems:
        print(problem, file=sys.stderr)
    names = ", ".join(lock.name for lock in locks)
    if problems:
        print(
            f"check_locks: {len(problems)} problems in {len(entries)} locked requirements"
            f" ({names})",
            file=sys.stderr,
        )
        return 1
    print(
        f"check_locks: {len(entries) - cpu_builds} locked requirements install from PyPI"
        f" alone; {cpu_builds} torch CPU builds have PyPI fallback locks ({names})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
