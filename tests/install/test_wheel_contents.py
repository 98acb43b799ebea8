"""The package's wheel carries every file of ``ttl/`` the code reads at run time.

The device headers, the crt0 and linker script, the TT-Metal pin, the API index
and the hardware check's shims are read next to their modules
(``Path(__file__)``); a non-editable install has only what
``[tool.setuptools.package-data]`` puts in the wheel.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _tracked(*paths: str) -> list[str]:
    return subprocess.run(
        ["git", "ls-files", *paths], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.split()


def test_the_wheel_holds_every_data_file_of_the_package(tmp_path: Path) -> None:
    # Built from a copy of the tracked files: a build/ directory a checkout may hold
    # from an earlier build must not supply what the package data leaves out.
    src = tmp_path / "src"
    for name in _tracked("pyproject.toml", "README.md", "ttl"):
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, src / name)
    pip = [sys.executable, "-m", "pip", "wheel", "--quiet", "--disable-pip-version-check"]
    subprocess.run(
        [*pip, "--no-deps", "--no-build-isolation", "-w", str(tmp_path), str(src)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    (wheel,) = tmp_path.glob("ttl-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    # Everything but Python modules and the Bazel rules' Starlark (read by Bazel, from
    # the checkout or the rules' repository, not by the package).
    data = [
        p
        for p in _tracked("ttl")
        if not p.endswith((".py", ".bzl")) and Path(p).name not in ("BUILD", "BUILD.bazel")
    ]
    assert data, "the package has data files"
    assert [p for p in data if p not in names] == []
    assert {
        "ttl/device_build/tt_metal_shims/sfpi/sfpi.h",
        "ttl/runtime/device/link/crt0.S",
    } <= names
