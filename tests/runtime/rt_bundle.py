"""Test helper: compile an operation with ttlc and build its bundle (ttl.device_build)."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import struct
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


def load_example(path: Path, prefix: str = "example"):
    """Imports an example file as a module (its OPERATION, SPECS, reference...)."""
    spec = importlib.util.spec_from_file_location(f"{prefix}_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def example_bundle(path: Path, mod, target: str, tmp: Path) -> tuple[dict, Path]:
    """Compiles example ``mod`` (from ``path``) with ttlc for ``target``; its manifest and
    bundle."""
    manifest = compile_operation(
        str(path.relative_to(ROOT)), mod.OPERATION, mod.SPECS, tmp / "ttlc", target
    )
    return manifest, make_bundle(tmp / "ttlc", manifest, tmp / "bundle")


def patch_first_load_segment(bundle: Path, change) -> None:
    """``change`` (a function of the header's fields to new values) applied to the ELF's
    first PT_LOAD program header, and the manifest's hash of the ELF updated (a tampered
    bundle whose file list still vouches for it)."""
    elf = bundle / "elf/compute.elf"
    raw = bytearray(elf.read_bytes())
    phoff, phnum = struct.unpack_from("<I", raw, 28)[0], struct.unpack_from("<H", raw, 44)[0]
    names = ("type", "offset", "vaddr", "paddr", "filesz", "memsz", "flags", "align")
    for at in range(phoff, phoff + 32 * phnum, 32):
        fields = dict(zip(names, struct.unpack_from("<8I", raw, at), strict=True))
        if fields["type"] == 1 and fields["filesz"]:  # a PT_LOAD with file bytes
            fields.update(change(fields))
            struct.pack_into("<8I", raw, at, *(fields[n] for n in names))
            break
    elf.write_bytes(bytes(raw))
    m = json.loads((bundle / "manifest.json").read_text())
    m["bundle"]["files"]["elf/compute.elf"] = "sha256:" + hashlib.sha256(raw).hexdigest()
    (bundle / "manifest.json").write_text(json.dumps(m))
