"""Builds ttnn ``ProgramDescriptor`` objects from resolved bundle descriptions.

Run by an interpreter that has ttnn 0.81.1 (its wheels are for Python 3.10 and
3.12), as a script: ``python ttnn_program.py < programs.json``, where the input
is a list of :func:`ttl.device_build.program.describe` results. It imports the
standard library and ttnn only (not the rest of the ``ttl`` package, whose
dependencies that interpreter lacks), needs no device, and stops before
``ttnn.generic_op``, which does.

For each program it builds the ``KernelDescriptor`` (with its
``ComputeConfigDescriptor`` or ``DataMovementConfigDescriptor``),
``CBDescriptor`` / ``CBFormatDescriptor`` and ``SemaphoreDescriptor``
objects and the ``ProgramDescriptor`` holding them, reads every field back
from the objects and compares it with the input, and prints one line with
ttnn's program hash. Exit status 1 if any program fails.
"""

from __future__ import annotations

import importlib.metadata
import json
import sys
from typing import Any


def _ttnn() -> Any:
    """The ttnn module: imported here, not at module level, so that this module imports
    (for the package's import checks) where ttnn is absent."""
    import ttnn

    return ttnn


def _ranges(boxes: list[list[int]]) -> Any:
    ttnn = _ttnn()
    return ttnn.CoreRangeSet(
        [ttnn.CoreRange(ttnn.CoreCoord(x0, y0), ttnn.CoreCoord(x1, y1)) for x0, y0, x1, y1 in boxes]
    )


def _config(config: dict[str, Any]) -> Any:
    ttnn = _ttnn()
    if config["kind"] == "compute":
        return ttnn.ComputeConfigDescriptor(
            math_fidelity=getattr(ttnn.MathFidelity, config["math_fidelity"]),
            math_approx_mode=config["math_approx_mode"],
            fp32_dest_acc_en=config["fp32_dest_acc_en"],
            dst_full_sync_en=config["dst_full_sync_en"],
        )
    return ttnn.DataMovementConfigDescriptor(
        processor=getattr(ttnn.DataMovementProcessor, config["processor"]),
        noc=getattr(ttnn.NOC, config["noc"]),
    )


def _kernel(k: dict[str, Any]) -> Any:
    ttnn = _ttnn()
    return ttnn.KernelDescriptor(
        kernel_source=k["source"],
        source_type=ttnn.KernelDescriptor.SourceType.FILE_PATH,
        core_ranges=_ranges(k["core_ranges"]),
        compile_time_args=k["compile_time_args"],
        defines=[tuple(d) for d in k["defines"]],
        runtime_args=[(ttnn.CoreCoord(x, y), args) for x, y, args in k["runtime_args"]],
        common_runtime_args=k["common_runtime_args"],
        config=_config(k["config"]),
    )


def _cb(cb: dict[str, Any]) -> Any:
    ttnn = _ttnn()
    formats = [
        ttnn.CBFormatDescriptor(
            buffer_index=f["buffer_index"],
            data_format=getattr(ttnn.DataType, f["data_type"]),
            page_size=f["page_size"],
        )
        for f in cb["formats"]
    ]
    return ttnn.CBDescriptor(
        total_size=cb["total_size"],
        core_ranges=_ranges(cb["core_ranges"]),
        format_descriptors=formats,
    )


def _semaphore(s: dict[str, Any]) -> Any:
    ttnn = _ttnn()
    return ttnn.SemaphoreDescriptor(
        id=s["id"],
        core_type=ttnn.CoreType.WORKER,
        core_ranges=_ranges(s["core_ranges"]),
        initial_value=s["initial_value"],
    )


def _data_format_code(data_type: str) -> int:
    """The tt::DataFormat code ttnn gives ``data_type`` (its getter is not bound)."""
    ttnn = _ttnn()
    probe = ttnn.CBFormatDescriptor(
        buffer_index=0, data_format=getattr(ttnn.DataType, data_type), page_size=32
    )
    return probe.data_format_as_uint8


def _check(program: dict[str, Any], built: Any) -> list[str]:
    """What differs between ``program`` and the objects ttnn holds (read back)."""
    ttnn = _ttnn()
    problems = []

    def expect(what: str, got: Any, want: Any) -> None:
        if got != want:
            problems.append(f"{what}: ttnn holds {got!r}, the bundle says {want!r}")

    expect("kernels", len(built.kernels), len(program["kernels"]))
    for k, kd in zip(program["kernels"], built.kernels, strict=False):
        name = k["name"]
        expect(f"{name}.kernel_source", kd.kernel_source, k["source"])
        expect(f"{name}.compile_time_args", list(kd.compile_time_args), k["compile_time_args"])
        expect(f"{name}.defines", [list(d) for d in kd.defines], k["defines"])
        expect(f"{name}.cores", kd.core_ranges.num_cores(), len(k["runtime_args"]))
        for x, y, args in k["runtime_args"]:
            expect(f"{name}.runtime_args[{x}][{y}]", list(kd.runtime_args[x][y]), args)
        expect(
            f"{name}.common_runtime_args", list(kd.common_runtime_args), k["common_runtime_args"]
        )
        config = k["config"]
        if config["kind"] == "compute":
            expect(f"{name}.config", type(kd.config).__name__, "ComputeConfigDescriptor")
            fidelity = getattr(ttnn.MathFidelity, config["math_fidelity"])
            expect(f"{name}.math_fidelity", kd.config.math_fidelity, fidelity)
            for field in ("fp32_dest_acc_en", "dst_full_sync_en", "math_approx_mode"):
                expect(f"{name}.{field}", getattr(kd.config, field), config[field])
        else:
            expect(f"{name}.config", type(kd.config).__name__, "DataMovementConfigDescriptor")
            processor = getattr(ttnn.DataMovementProcessor, config["processor"])
            expect(f"{name}.processor", kd.config.processor, processor)
            # (compared by .value: ttnn.NOC.NOC_0 and RISCV_0_default are both 0 but read
            # back as the latter)
            expect(f"{name}.noc", kd.config.noc.value, getattr(ttnn.NOC, config["noc"]).value)
    expect("cbs", len(built.cbs), len(program["cbs"]))
    for cb, cbd in zip(program["cbs"], built.cbs, strict=False):
        (f,), (fd,) = cb["formats"], list(cbd.format_descriptors)
        where = f"cb {f['buffer_index']}"
        expect(f"{where}.total_size", cbd.total_size, cb["total_size"])
        expect(f"{where}.buffer_index", fd.buffer_index, f["buffer_index"])
        expect(f"{where}.page_size", fd.page_size, f["page_size"])
        expect(f"{where}.data_format", fd.data_format_as_uint8, _data_format_code(f["data_type"]))
    expect("semaphores", len(built.semaphores), len(program["semaphores"]))
    for s, sd in zip(program["semaphores"], built.semaphores, strict=False):
        expect(f"semaphore {s['id']}.id", sd.id, s["id"])
        expect(f"semaphore {s['id']}.initial_value", sd.initial_value, s["initial_value"])
    return problems


def main() -> int:
    ttnn = _ttnn()
    programs = json.load(sys.stdin)
    failed = 0
    for program in programs:
        name = program["operation"]
        try:
            built = ttnn.ProgramDescriptor(
                kernels=[_kernel(k) for k in program["kernels"]],
                semaphores=[_semaphore(s) for s in program["semaphores"]],
                cbs=[_cb(cb) for cb in program["cbs"]],
            )
            problems = _check(program, built)
        except (TypeError, ValueError, AttributeError, IndexError, RuntimeError) as e:
            problems = [f"ttnn rejected it: {type(e).__name__}: {e}"]
        if problems:
            failed += 1
            for p in problems:
                print(f"{name}: {p}")
            continue
        digest = ttnn.compute_program_descriptor_hash(built)
        print(
            f"{name}: ttnn.ProgramDescriptor with {len(built.kernels)} kernels, "
            f"{len(built.cbs)} CBs, {len(built.semaphores)} semaphores (hash {digest:016x})"
        )
    version = importlib.metadata.version("ttnn")
    print(
        f"ttnn {version}: {len(programs) - failed} of {len(programs)} programs build as "
        "ttnn.ProgramDescriptor objects"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
