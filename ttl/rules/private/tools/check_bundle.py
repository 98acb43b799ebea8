"""Checks a TT-Lang bundle built by `ttl_operation` (run by `ttl_bundle_test`).

Verifies: every file the manifest's `bundle.files` lists exists with that
SHA-256 and no other file is present; every logical kernel has its C++
source and an RV32 RISC-V executable ELF; no file embeds an absolute build
path (sandbox, exec root or output base), so the bundle is relocatable and
reproducible.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import sys

_EM_RISCV = 243
_BUILD_PATH_MARKERS = (b"/execroot/", b"/sandbox/", b"/bazel-workers/", b"/_bazel_")


def check_bundle(bundle: str) -> list[str]:
    """Returns the problems found (empty when the bundle is good)."""
    problems: list[str] = []
    with open(os.path.join(bundle, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    listed = manifest.get("bundle", {}).get("files", {})
    if not listed:
        return ["manifest.json has no bundle.files section"]
    present = set()
    for root, _, names in os.walk(bundle):
        for name in names:
            rel = os.path.relpath(os.path.join(root, name), bundle)
            if rel != "manifest.json":
                present.add(rel)
    for rel in sorted(present - set(listed)):
        problems.append(f"{rel}: present but not listed in manifest.json")
    for rel, digest in sorted(listed.items()):
        path = os.path.join(bundle, rel)
        if not os.path.isfile(path):
            problems.append(f"{rel}: listed in manifest.json but missing")
            continue
        with open(path, "rb") as f:
            data = f.read()
        if "sha256:" + hashlib.sha256(data).hexdigest() != digest:
            problems.append(f"{rel}: content does not match its manifest hash")
        for marker in _BUILD_PATH_MARKERS:
            if marker in data:
                problems.append(f"{rel}: embeds an absolute build path ({marker.decode()!r})")
    for kernel in manifest.get("kernels", []):
        source = "kernels/" + kernel["source"]
        elf = "elf/" + os.path.splitext(kernel["source"])[0] + ".elf"
        if source not in listed:
            problems.append(f"kernel {kernel['name']}: no source {source}")
        if elf not in listed:
            problems.append(f"kernel {kernel['name']}: no ELF {elf}")
            continue
        with open(os.path.join(bundle, elf), "rb") as f:
            header = f.read(20)
        if header[:4] != b"\x7fELF" or header[4] != 1 or header[5] != 1:
            problems.append(f"{elf}: not a 32-bit little-endian ELF")
        elif struct.unpack_from("<HH", header, 16) != (2, _EM_RISCV):
            problems.append(f"{elf}: not a RISC-V executable")
    return problems


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: check_bundle.py BUNDLE_DIR...", file=sys.stderr)
        return 2
    failed = False
    for bundle in argv:
        problems = check_bundle(bundle)
        for problem in problems:
            print(f"{bundle}: {problem}", file=sys.stderr)
        if not problems:
            print(f"{bundle}: ok")
        failed = failed or bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
