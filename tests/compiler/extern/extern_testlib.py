"""Helpers of the external-call tests (uniquely named module)."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path
from typing import Any

from ttl.compiler.driver import CompileResult, compile_operation, load_operation

REPO = Path(__file__).resolve().parents[3]
SPEC_EXAMPLES = REPO / "examples" / "extern" / "spec_examples.py"
INCLUDE_DIR = "examples/extern/include"
HEADER_PRELUDE = """
import ttl
HEADER = "extern_entries.hpp"
"""


def load_spec_examples() -> Any:
    spec = importlib.util.spec_from_file_location("_extern_spec_examples", SPEC_EXAMPLES)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def compile_spec_example(name: str) -> CompileResult:
    module = load_spec_examples()
    op = load_operation(str(SPEC_EXAMPLES.relative_to(REPO)), name)
    return compile_operation(op, module.SPECS, include_dirs=(INCLUDE_DIR,))


def build_bundle(result: CompileResult, out: Path) -> Path:
    """Write the kernels, build each ELF with its manifest include dirs, write the bundle."""
    from ttl.device_build import devcc

    kernels = out / "kernels"
    result.write(str(kernels))
    bundle = out / "bundle"
    (bundle / "elf").mkdir(parents=True)
    files = {}
    for k in result.manifest["kernels"]:
        stem = Path(k["source"]).stem
        elf = devcc.compile_kernel(
            kernels / k["source"],
            bundle / "elf" / f"{stem}.elf",
            defines=k["defines"],
            include_dirs=[REPO / d for d in [INCLUDE_DIR, *k["include_dirs"]]],
        )
        files[f"elf/{stem}.elf"] = "sha256:" + hashlib.sha256(elf.read_bytes()).hexdigest()
    data = dict(result.manifest, bundle={"format": 1, "files": files})
    (bundle / "manifest.json").write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    return bundle
