"""Test helper: compile an operation with ttlc and build its bundle (ttl.device_build)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from ttl.host import toolchain

ROOT = Path(__file__).resolve().parents[2]


def compile_operation(
    src: str, operation: str, args: dict[str, str], out: Path, target: str | None = None
) -> dict:
    """Runs ttlc (for ``target``, or ttlc's default); returns the manifest."""
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
    if target is not None:
        cmd.append(f"--target={target}")
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=False)
    assert proc.returncode == 0, proc.stderr
    return json.loads((out / "manifest.json").read_text())


def make_bundle(kernels_dir: Path, manifest: dict, out: Path) -> Path:
    """Builds ttlc's output in ``kernels_dir`` into a bundle with the JIT's device build."""
    sources = {k["source"]: (kernels_dir / k["source"]).read_text() for k in manifest["kernels"]}
    ir = (kernels_dir / f"{manifest['operation']['name']}.mlir").read_text()
    toolchain.build_bundle(out, sources, manifest, ir)
    return out
