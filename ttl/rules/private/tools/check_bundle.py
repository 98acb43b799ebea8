"""Checks a TT-Lang bundle built by `ttl_operation` (run by `ttl_bundle_test`).

Verifies: every file the manifest's `bundle.files` lists exists inside the
bundle (no `..`; a symlink only to the file of its name where the manifest resolves,
as Bazel's runfiles present files), is a regular file of bounded size with that
SHA-256, and no other file is present;
the manifest lists kernels, each by a file name; every logical kernel has its C++
source and an RV32 RISC-V executable ELF; no file embeds an absolute build
path (sandbox, exec root or output base), so the bundle is relocatable and
reproducible; and the runtime's loader (``ttl.runtime.load_bundle``: the manifest's
schema, the ELF segments against the device's memory map) accepts it.
"""

from __future__ import annotations

import json
import os
import struct
import sys

from ttl.device_build import bundle as bundle_format
from ttl.runtime import load_bundle
from ttl.runtime.errors import LaunchError

_EM_RISCV = 243
_BUILD_PATH_MARKERS = (b"/execroot/", b"/sandbox/", b"/bazel-workers/", b"/_bazel_")


def check_bundle(bundle: str) -> list[str]:
    """Returns the problems found (empty when the bundle is good)."""
    problems: list[str] = []
    try:
        raw = bundle_format.read_bounded(
            os.path.join(bundle, bundle_format.MANIFEST), bundle_format.MAX_MANIFEST_BYTES
        )
        manifest = json.loads(raw.decode("utf-8"))
    except (OSError, ValueError, RecursionError) as e:
        return [f"manifest.json is unreadable: {getattr(e, 'strerror', None) or e}"]
    section = manifest.get("bundle") if isinstance(manifest, dict) else None
    listed = section.get("files") if isinstance(section, dict) else None
    if not listed or not isinstance(listed, dict):
        return ["manifest.json has no bundle.files section"]
    contents: dict[str, bytes] = {}  # the listed files, read once
    present = set()
    for root, _, names in os.walk(bundle):
        for name in names:
            rel = os.path.relpath(os.path.join(root, name), bundle)
            if rel != "manifest.json":
                present.add(rel)
    for rel in sorted(present - set(listed)):
        problems.append(f"{rel}: present but not listed in manifest.json")
    for rel, digest in sorted(listed.items()):
        try:
            path = bundle_format.bundle_member(bundle, rel)
        except bundle_format.UnsafeBundleFileError as e:
            problems.append(f"listed file {e}")
            continue
        if not os.path.lexists(path):
            problems.append(f"{rel}: listed in manifest.json but missing")
            continue
        try:
            data = bundle_format.read_bounded(path, bundle_format.MAX_ELF_BYTES)
        except (OSError, bundle_format.UnsafeBundleFileError) as e:
            problems.append(f"{rel}: {getattr(e, 'strerror', None) or e}")
            continue
        contents[rel] = data
        if bundle_format.digest_bytes(data) != digest:
            problems.append(f"{rel}: content does not match its manifest hash")
        for marker in _BUILD_PATH_MARKERS:
            if marker in data:
                problems.append(f"{rel}: embeds an absolute build path ({marker.decode()!r})")
    kernels = manifest.get("kernels")
    if not isinstance(kernels, list) or not kernels:
        return [*problems, "manifest.json lists no kernels"]
    for kernel in kernels:
        if not isinstance(kernel, dict):
            problems.append(f"kernel entry {kernel!r} is not an object")
            continue
        try:
            source, elf = bundle_format.kernel_members(kernel.get("source"))
        except bundle_format.UnsafeBundleFileError as e:
            problems.append(f"kernel {kernel.get('name')}: {e}")
            continue
        if source not in listed:
            problems.append(f"kernel {kernel.get('name')}: no source {source}")
        if elf not in listed:
            problems.append(f"kernel {kernel.get('name')}: no ELF {elf}")
            continue
        if elf not in contents:
            continue  # unreadable: reported above
        header = contents[elf][:20]
        if len(header) < 20 or header[:4] != b"\x7fELF" or header[4] != 1 or header[5] != 1:
            problems.append(f"{elf}: not a 32-bit little-endian ELF")
        elif struct.unpack_from("<HH", header, 16) != (2, _EM_RISCV):
            problems.append(f"{elf}: not a RISC-V executable")
    if not problems:  # the file checks pass: the runtime's own validation must too
        try:
            load_bundle(bundle)
        except LaunchError as e:  # BundleError included
            problems.append(f"the runtime refuses it: {e}")
    return problems


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: check_bundle.py BUNDLE_DIR...", file=sys.stderr)
        return 2
    failed = False
    for bundle in argv:
        try:
            problems = check_bundle(bundle)
        except (KeyError, TypeError, AttributeError, ValueError) as e:  # a malformed manifest
            problems = [f"manifest.json is malformed ({type(e).__name__}: {e})"]
        for problem in problems:
            print(f"{bundle}: {problem}", file=sys.stderr)
        if not problems:
            print(f"{bundle}: ok")
        failed = failed or bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
