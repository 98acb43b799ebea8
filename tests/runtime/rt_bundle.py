"""Test helper: compile an operation with ttlc and assemble a bundle like the Bazel bundler."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

from ttl.device_build import devcc

ROOT = Path(__file__).resolve().parents[2]


def compile_operation(src: str, operation: str, args: dict[str, str], out: Path) -> dict:
    """Runs ttlc; returns the manifest."""
    cmd = [
        sys.executable,
        "-m",
        "ttl.host.ttlc",
        "--src",
        str(ROOT / src),
        "--operation",
        operation,
        "--out",
        str(out),
    ]
    cmd += [f"--arg={name}={spec}" for name, spec in args.items()]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=False)
    assert proc.returncode == 0, proc.stderr
    return json.loads((out / "manifest.json").read_text())


def make_bundle(kernels_dir: Path, manifest: dict, out: Path) -> Path:
    """Builds every kernel's ELF (manifest defines, -g) and writes manifest + file hashes."""
    (out / "elf").mkdir(parents=True)
    files = {}
    for k in manifest["kernels"]:
        stem = Path(k["source"]).stem
        elf = devcc.compile_kernel(
            kernels_dir / k["source"], out / "elf" / f"{stem}.elf", defines=k["defines"]
        )
        files[f"elf/{stem}.elf"] = "sha256:" + hashlib.sha256(elf.read_bytes()).hexdigest()
    data = dict(manifest, bundle={"format": 1, "files": files})
    (out / "manifest.json").write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    return out
