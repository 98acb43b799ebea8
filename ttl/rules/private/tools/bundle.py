"""Assembles a TT-Lang operation bundle: manifest, ELFs, kernel sources, IR.

Layout of the output directory:

    manifest.json      the compiler's manifest plus a "bundle" section:
                       {"files": {relative path: "sha256:<hex>"}, "format": 1}
    kernels/<src>      the generated C++ source of every logical kernel
    elf/<stem>.elf     the linked RV32 ELF of every logical kernel
    operation.mlir     the ttl-dialect IR

Deterministic: sorted keys, no paths outside the bundle, no timestamps.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys

BUNDLE_FORMAT = 1


def _sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 16), b""):
            digest.update(chunk)
    return "sha256:" + digest.hexdigest()


def _copy_tree(src: str, dst: str) -> list[str]:
    copied = []
    os.makedirs(dst, exist_ok=True)
    for name in sorted(os.listdir(src)):
        path = os.path.join(src, name)
        if os.path.isdir(path):
            copied += [os.path.join(name, c) for c in _copy_tree(path, os.path.join(dst, name))]
        else:
            shutil.copyfile(path, os.path.join(dst, name))
            copied.append(name)
    return copied


def build_bundle(manifest: str, kernels: str, elfs: str, ir: str, out: str) -> dict:
    with open(manifest, encoding="utf-8") as f:
        data = json.load(f)
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    files = {}
    for sub, src in (("kernels", kernels), ("elf", elfs)):
        for rel in _copy_tree(src, os.path.join(out, sub)):
            path = f"{sub}/{rel}"
            files[path] = _sha256(os.path.join(out, path))
    shutil.copyfile(ir, os.path.join(out, "operation.mlir"))
    files["operation.mlir"] = _sha256(os.path.join(out, "operation.mlir"))
    data["bundle"] = {"format": BUNDLE_FORMAT, "files": files}
    with open(os.path.join(out, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2, sort_keys=True)
        f.write("\n")
    return data


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    for flag in ("manifest", "kernels", "elfs", "ir", "out"):
        parser.add_argument("--" + flag, required=True)
    args = parser.parse_args(argv)
    build_bundle(args.manifest, args.kernels, args.elfs, args.ir, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
