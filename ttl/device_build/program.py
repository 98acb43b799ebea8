"""A bundle as a TT-Metal program: the fields of ttnn's ``ProgramDescriptor``.

:func:`describe` reads a bundle's manifest and resolves it into what a TT-Metal
host passes to ``ttnn.generic_op`` (which is how tt-lang dispatches): per kernel
a ``KernelDescriptor`` (source, core ranges, compile-time args, runtime args per
core, defines, and its data-movement or compute config), per physical DFB a
``CBDescriptor`` with one ``CBFormatDescriptor``, per semaphore a
``SemaphoreDescriptor``. The result is plain JSON, so that a Python with
``ttnn`` installed can build the real objects from it (``ttnn_program.py``,
run by :func:`check_with_ttnn`) while this module needs the standard library
only. docs/manifest.md maps each manifest field to these.

Runtime args are resolved as the emulator's host resolves them
(:func:`runtime_arg_value`), except tensor addresses: they are the device
buffers' addresses, which only a device allocates; they default to 0 here and
can be given per tensor.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ttl import targets as _targets
from ttl.device_build.bundle import KERNELS, MANIFEST

#: The manifest's data formats as ``ttnn.DataType`` member names.
TTNN_DATA_TYPES = {"Float16_b": "BFLOAT16", "Float32": "FLOAT32", "Bfp8_b": "BFLOAT8_B"}
#: The data-movement processors as ``ttnn.DataMovementProcessor`` member names.
TTNN_DM_PROCESSORS = {"BRISC": "RISCV_0", "NCRISC": "RISCV_1"}
#: The NOC of each data-movement kernel as ``ttnn.NOC`` member names.
TTNN_NOCS = {0: "NOC_0", 1: "NOC_1"}
#: The script that builds the ttnn objects (run by an interpreter that has ttnn).
TTNN_SCRIPT = Path(__file__).with_name("ttnn_program.py")
#: Where tools/setup.sh makes the environment with ttnn (Python 3.12 only).
TTNN_VENV = ".venv-ttnn"


class ProgramError(Exception):
    """A bundle that does not describe a TT-Metal program (a malformed manifest)."""


def runtime_arg_value(
    arg: Mapping[str, Any],
    target: _targets.Target,
    tensor_address: Callable[[str], int],
    device_index: int = 0,
) -> int:
    """The value of one manifest runtime arg: the NOC coordinate of a grid column or row,
    ``tensor_address(name)`` for a tensor's address, or the device's index in the
    operation's device domain (``device_index``; one program per mesh device)."""
    if arg["kind"] == "device_index":
        return device_index
    if arg["kind"] == "noc_x":
        return target.noc_columns[arg["column"]]
    if arg["kind"] == "noc_y":
        return target.noc_rows[arg["row"]]
    if arg["kind"] == "tensor_address":
        return tensor_address(arg["tensor"])
    raise ProgramError(f"unknown runtime arg kind {arg['kind']!r}")


def describe(bundle: Path, tensor_addresses: Mapping[str, int] | None = None) -> dict[str, Any]:
    """The ``ProgramDescriptor`` fields of ``bundle`` (see the module docstring)."""
    try:
        manifest = json.loads((bundle / MANIFEST).read_text())
        target = _targets.TARGETS[manifest["target"]]
        grid = (manifest["grid"]["x"], manifest["grid"]["y"])
        addresses = dict(tensor_addresses or {})

        def resolved(section: str) -> list[int]:
            entries = sorted(manifest["runtime_args"][section], key=lambda a: a["index"])
            return [runtime_arg_value(a, target, lambda t: addresses.get(t, 0)) for a in entries]

        args, common = resolved("per_node"), resolved("common")
        whole_grid = [[0, 0, grid[0] - 1, grid[1] - 1]]
        return {
            "operation": manifest["operation"]["name"],
            "kernels": [_kernel(bundle, k, args, common) for k in manifest["kernels"]],
            "cbs": [_cb(f, whole_grid) for f in manifest["dfbs"]],
            "semaphores": [
                {"id": s["index"], "initial_value": s["initial_value"], "core_ranges": whole_grid}
                for s in manifest.get("semaphores", [])
            ],
        }
    except (OSError, ValueError, KeyError, IndexError, TypeError) as e:
        raise ProgramError(f"{bundle}: not a TT-Metal program description: {e!r}") from None


def _cb(f: Mapping[str, Any], core_ranges: list[list[int]]) -> dict[str, Any]:
    """A ``CBDescriptor``'s fields. A tensor-backed DFB's CB is globally allocated at
    its tensor's buffer (``CBDescriptor(buffer=...)`` on a device, with the offset
    added): the tensor and offset are given, as only a device has the buffer."""
    cb: dict[str, Any] = {
        "total_size": f["total_bytes"],
        "core_ranges": core_ranges,
        "formats": [
            {
                "buffer_index": f["physical_index"],
                "data_type": TTNN_DATA_TYPES[f["data_format"]],
                "page_size": f["page_size"],
            }
        ],
    }
    if "tensor_backing" in f:
        cb["globally_allocated"] = {
            "tensor": f["tensor_backing"]["tensor"],
            "address_offset": f["tensor_backing"]["byte_offset"],
        }
    return cb


def _kernel(
    bundle: Path,
    kernel: Mapping[str, Any],
    args: list[int],
    common: list[int],
) -> dict[str, Any]:
    ranges = [
        [r["start"]["x"], r["start"]["y"], r["end"]["x"], r["end"]["y"]]
        for r in kernel["core_ranges"]
    ]
    cores = [
        [x, y] for x0, y0, x1, y1 in ranges for y in range(y0, y1 + 1) for x in range(x0, x1 + 1)
    ]
    if kernel["kind"] == "compute":
        c = kernel["compute_config"]
        config = {
            "kind": "compute",
            "math_fidelity": c["math_fidelity"],
            "fp32_dest_acc_en": c["fp32_dest_acc_en"],
            "dst_full_sync_en": c["dst_full_sync_en"],
            "math_approx_mode": c["math_approx_mode"],
        }
    else:
        config = {
            "kind": "data_movement",
            "processor": TTNN_DM_PROCESSORS[kernel["processor"]],
            "noc": TTNN_NOCS[kernel["noc"]],
        }
    return {
        "name": kernel["name"],
        "source": str((bundle / KERNELS / kernel["source"]).resolve()),
        "core_ranges": ranges,
        "compile_time_args": [a["value"] for a in kernel["compile_time_args"]],
        "defines": sorted([k, str(v)] for k, v in kernel["defines"].items()),
        "runtime_args": [[x, y, args] for x, y in cores],
        "common_runtime_args": common,
        "config": config,
    }


def find_ttnn_python(root: Path) -> str | None:
    """The interpreter that has ttnn: ``$TTL_TTNN_PYTHON``, else that of ``root``'s
    ``.venv-ttnn``, else that of the checkout this package is in."""
    explicit = os.environ.get("TTL_TTNN_PYTHON")
    if explicit:
        return explicit
    for base in (root, Path(__file__).resolve().parents[2]):
        venv = base / TTNN_VENV / "bin" / "python"
        if venv.exists():
            return str(venv)
    return None


def check_with_ttnn(python: str, programs: list[dict[str, Any]]) -> subprocess.CompletedProcess:
    """Builds ``ttnn.ProgramDescriptor`` objects from ``programs`` under ``python``."""
    return subprocess.run(
        [python, str(TTNN_SCRIPT)],
        input=json.dumps(programs),
        capture_output=True,
        text=True,
        env={**os.environ, "LOGURU_LEVEL": "WARNING"},  # ttnn's import banner
        timeout=300,
        check=False,
    )


def main(argv: list[str] | None = None) -> int:
    """``python -m ttl.device_build.program [--python PY] [--tensor_address N=A] BUNDLE...``"""
    import argparse

    parser = argparse.ArgumentParser(
        prog="program",
        description="Build ttnn ProgramDescriptor objects from TT-Lang bundles (no device). "
        "Needs a Python with ttnn 0.81.1 (Python 3.10 or 3.12): --python, $TTL_TTNN_PYTHON, "
        f"or {TTNN_VENV} (tools/setup.sh makes it where python3.12 exists).",
    )
    parser.add_argument("bundles", nargs="+", help="Bundle directories (manifest.json, kernels/).")
    parser.add_argument("--python", help="An interpreter that imports ttnn.")
    parser.add_argument(
        "--tensor_address",
        action="append",
        default=[],
        metavar="NAME=ADDR",
        help="A tensor's device buffer address (default 0).",
    )
    parser.add_argument(
        "--print", action="store_true", help="Print the resolved descriptors as JSON and stop."
    )
    args = parser.parse_args(argv)
    try:
        addresses = {n: int(v, 0) for n, v in (a.split("=", 1) for a in args.tensor_address)}
    except ValueError:
        parser.error("--tensor_address takes NAME=ADDR, e.g. x=0x20000")
    try:
        programs = [describe(Path(b), addresses) for b in args.bundles]
    except ProgramError as e:
        print(f"program: {e}", file=sys.stderr)
        return 2
    if args.print:
        print(json.dumps(programs, indent=2, sort_keys=True))
        return 0
    python = args.python or find_ttnn_python(Path.cwd())
    if python is None:
        print(
            "program: the ttnn descriptor check did not run: no Python with ttnn 0.81.1 "
            f"(--python, $TTL_TTNN_PYTHON, or {TTNN_VENV}, which tools/setup.sh makes where "
            "python3.12 exists)."
        )
        return 0
    done = check_with_ttnn(python, programs)
    sys.stdout.write(done.stdout)
    sys.stderr.write(done.stderr)
    return done.returncode


if __name__ == "__main__":
    raise SystemExit(main())
