"""The bundle manifest: a versioned, deterministic JSON description of a compiled operation.

Schema documented in docs/manifest.md. Builders use only ``kernels[].defines``
(plus their own flags) to compile kernel sources; the runtime uses the rest.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Any

from xdsl.dialects.builtin import FileLineColLoc
from xdsl.ir import SSAValue

from ttl.compiler import dialect as d
from ttl.compiler import kernel_args
from ttl.compiler.analysis.capacity import dfb_bytes
from ttl.compiler.compute_config import ComputeConfig
from ttl.compiler.emit.cpp import KernelSource
from ttl.compiler.emit.row_major import tensor_page_bytes
from ttl.targets import DATA_FORMATS, PROCESSORS, get_target

SCHEMA = "ttl.manifest"
VERSION = 1


def _tensor_entry(t: d.TensorOp) -> dict[str, Any]:
    """A tensor's DRAM layout: one page per tile, or per innermost row when row-major."""
    ty = t.tensor_type
    entry: dict[str, Any] = {
        "name": t.sym_name.data,
        "index": t.index.value.data,
        "shape": list(ty.dims),
        "dtype": ty.dtype,
        "layout": ty.layout_name,
    }
    if t.logical_dims is not None:  # what tensor.shape read: e.g. [1, 1] for one padded tile
        entry["logical_shape"] = list(t.logical_dims)
    if ty.is_row_major:
        pages = ty.dims[:-1]
    else:
        pages = ty.tile_dims
        entry["tile_shape"] = list(pages)
    entry["num_pages"] = math.prod(pages)
    entry["page_size"] = tensor_page_bytes(ty)
    entry["data_format"] = DATA_FORMATS[ty.dtype]
    return entry


def _dfb_entry(f: d.DFBOp) -> dict[str, Any]:
    ty = f.dfb_type
    count = f.block_count.value.data
    return {
        "name": f.sym_name.data,
        # (ignore: physical_index is optional in the IR; ttl-allocate-dfbs set it)
        "physical_index": f.physical_index.value.data,  # type: ignore[union-attr]
        "like_tensor": f.tensor.root_reference.data if f.tensor is not None else None,
        "block_shape": list(ty.dims),
        "pages_per_block": ty.num_tiles,
        "block_count": count,
        "page_size": f.page_size.value.data,
        "data_format": DATA_FORMATS[ty.dtype],
        "total_bytes": dfb_bytes(ty.num_tiles, count, ty.dtype),
    } | _backing(f)


def _backing(f: d.DFBOp) -> dict[str, Any]:
    """A tensor-backed DFB's storage: its tensor's L1 shard on each node, from an offset."""
    if f.backing_offset is None or f.tensor is None:
        return {}
    return {
        "tensor_backing": {
            "tensor": f.tensor.root_reference.data,
            "byte_offset": f.backing_offset.value.data,
        }
    }


def _physical(dfbs: Iterable[d.DFBOp]) -> list[d.DFBOp]:
    """One DFB per physical index, in index order: the first of those sharing it, or
    the largest (an allocation group's members may differ in capacity; the shared
    allocation is the greatest)."""
    chosen: dict[int, d.DFBOp] = {}
    for f in dfbs:
        # (ignore: physical_index is optional in the IR; ttl-allocate-dfbs set it)
        index = f.physical_index.value.data  # type: ignore[union-attr]
        if index not in chosen or _bytes(f) > _bytes(chosen[index]):
            chosen[index] = f
    return [chosen[i] for i in sorted(chosen)]


def _bytes(f: d.DFBOp) -> int:
    return dfb_bytes(f.dfb_type.num_tiles, f.block_count.value.data, f.dfb_type.dtype)


def _kernel_entry(
    k: d.KernelOp,
    src: KernelSource,
    dfbs: dict[str, d.DFBOp],
    compute: dict[str, Any],
    grid: tuple[int, int],
) -> dict[str, Any]:
    ct_args = [
        # (ignore: physical_index is optional in the IR; ttl-allocate-dfbs set it)
        {"name": f"dfb_{n}", "value": dfbs[n].physical_index.value.data}  # type: ignore[union-attr]
        for n in src.dfbs
    ]
    for tensor, page_size in src.tensor_args:
        config, page = kernel_args.tensor_accessor_args(page_size)
        ct_args.append({"name": f"tensor_{tensor}.args_config", "value": config})
        ct_args.append({"name": f"tensor_{tensor}.aligned_page_size", "value": page})
    entry: dict[str, Any] = {
        "name": k.sym_name.data,
        "include_dirs": _include_dirs(k),
        "logical_kernel": k.logical_kernel.data,
        "kind": k.kind.data.value,
        "processor_slot": k.slot.data if k.slot else None,
        # The TT-Metal processor and NOC (docs/manifest.md: a KernelDescriptor's config).
        **_processor(k.slot.data if k.slot else None),
        # Every kernel runs on every node of the operation's grid.
        "core_ranges": [{"start": {"x": 0, "y": 0}, "end": {"x": grid[0] - 1, "y": grid[1] - 1}}],
        "source": src.filename,
        "compile_time_args": ct_args,
        "defines": {},
    }
    if k.is_compute:
        entry["compute_config"] = compute
    return entry


def _processor(slot: str | None) -> dict[str, Any]:
    processor, noc = PROCESSORS.get(slot or "", (None, None))
    return {"processor": processor} if noc is None else {"processor": processor, "noc": noc}


def _include_dirs(k: d.KernelOp) -> list[str]:
    """``include_paths`` of the kernel's external calls, in order, without duplicates."""
    out: list[str] = []
    for op in k.walk():
        if isinstance(op, d.CallExternOp):
            out.extend(p.data for p in op.include_paths.data if p.data not in out)
    return out


def _extern_calls(kernels: list[d.KernelOp]) -> list[dict[str, Any]]:
    """Every ``ttl.call_extern`` (header, callee, kernel, source location)."""
    out = []
    for k in kernels:
        for op in k.walk():
            if isinstance(op, d.CallExternOp):
                loc = op.location
                line = loc.line.data if isinstance(loc, FileLineColLoc) else 0
                file = loc.filename.data if isinstance(loc, FileLineColLoc) else ""
                out.append(
                    {
                        "header": op.header.data,
                        "callee": op.callee.data,
                        "kernel": k.sym_name.data,
                        "loc": {"file": file, "line": line},
                    }
                )
    return out


def _tensor_symbol(value: SSAValue) -> str | None:
    """The tensor symbol behind a tensor value (``ttl.get_tensor``), else None."""
    owner = value.owner
    if isinstance(owner, d.GetTensorOp):
        return owner.ref.string_value()
    return None


def written_tensors(kernels: list[d.KernelOp]) -> set[str]:
    """Tensors some kernel may write: copy destinations, and (conservatively) every
    tensor handed to external C++ as an accessor or a raw address."""
    written: set[str | None] = set()
    for kernel in kernels:
        for op in kernel.walk():
            if isinstance(op, d.CopyOp) and isinstance(op.dst.owner, d.SliceOp):
                written.add(_tensor_symbol(op.dst.owner.tensor))
            elif isinstance(op, d.RawAddrOp):
                written.add(_tensor_symbol(op.tensor))
            elif isinstance(op, d.CallExternOp):
                written.update(
                    _tensor_symbol(v) for v in op.operands if isinstance(v.type, d.TensorType)
                )
    return {name for name in written if name is not None}


def backed_written(dfbs: Iterable[d.DFBOp], kernels: list[d.KernelOp]) -> set[str]:
    """Tensors a tensor-backed DFB writes: a reserved block of it is used for more than
    its push (stored or copied into), rather than published."""
    backed = {f.sym_name.data: f for f in dfbs if f.is_tensor_backed and f.tensor is not None}
    out: set[str] = set()
    for kernel in kernels:
        for op in kernel.walk():
            if not isinstance(op, d.ReserveOp) or not isinstance(op.dfb.owner, d.GetDFBOp):
                continue
            f = backed.get(op.dfb.owner.ref.root_reference.data)
            if f is not None and any(not isinstance(u.operation, d.PushOp) for u in op.result.uses):
                assert f.tensor is not None
                out.add(f.tensor.root_reference.data)
    return out


def build_manifest(
    op: d.OperationOp, sources: list[KernelSource], source_name: str
) -> dict[str, Any]:
    """The manifest dictionary of a compiled operation."""
    tensors = [t for t in op.body.ops if isinstance(t, d.TensorOp)]
    dfbs = {f.sym_name.data: f for f in op.body.ops if isinstance(f, d.DFBOp)}
    kernels = [k for k in op.body.ops if isinstance(k, d.KernelOp)]
    grid = op.grid.get_values()
    written = written_tensors(kernels) | backed_written(dfbs.values(), kernels)
    compute = ComputeConfig.of(op).manifest_entry(get_target(op.target.data))
    manifest = {
        "schema": SCHEMA,
        "version": VERSION,
        "operation": {
            "name": op.sym_name.data,
            "identity": op.identity.data,
            "source": source_name,
        },
        "target": op.target.data,
        "grid": {"x": grid[0], "y": grid[1]},
        "tensors": [dict(_tensor_entry(t), written=t.sym_name.data in written) for t in tensors],
        "dfbs": [_dfb_entry(f) for f in _physical(dfbs.values())],
        "logical_dfbs": [
            # (ignore: physical_index is optional in the IR; ttl-allocate-dfbs set it)
            {"name": n, "physical_index": f.physical_index.value.data}  # type: ignore[union-attr]
            for n, f in dfbs.items()
        ],
        "kernels": [
            _kernel_entry(k, s, dfbs, compute, (grid[0], grid[1]))
            for k, s in zip(kernels, sources, strict=True)
        ],
        "runtime_args": {
            "per_node": kernel_args.runtime_args(
                [t.sym_name.data for t in sorted(tensors, key=lambda t: t.index.value.data)],
                (grid[0], grid[1]),
                device_index=any(isinstance(o, d.DeviceIndexOp) for k in kernels for o in k.walk()),
            ),
            "common": [],
        },
        "extern_calls": _extern_calls(kernels),
        # Tensor-backed DFBs live in their tensors' shards: no L1 of their own.
        "l1_bytes": sum(
            e["total_bytes"]
            for e in map(_dfb_entry, _physical(dfbs.values()))
            if "tensor_backing" not in e
        ),
    }
    semaphores = [
        {
            "name": s.sym_name.data,
            "index": s.index.value.data,
            "initial_value": s.initial_value.value.data,
        }
        for s in op.body.ops
        if isinstance(s, d.SemaphoreOp)
    ]
    if semaphores:  # only operations with semaphores carry the table
        manifest["semaphores"] = semaphores
    return manifest


def dumps(manifest: dict[str, Any]) -> str:
    """Canonical JSON text (sorted keys, 2-space indent, trailing newline)."""
    return json.dumps(manifest, indent=2, sort_keys=True) + "\n"
