"""Loads compiled operation bundles and runs them on the emulated device.

A bundle is a directory with ``manifest.json`` (schema: docs/manifest.md,
plus the ``bundle`` section written by the bundler: SHA-256 of every file)
and ``elf/<kernel source stem>.elf`` for every logical kernel. The format is
defined, and bundles are written, by :mod:`ttl.device_build.bundle`.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ttl import targets as _targets
from ttl.device_build import bundle as bundle_format
from ttl.device_build.program import runtime_arg_value
from ttl.runtime.coprocessor import DstMode
from ttl.runtime.device import Device
from ttl.runtime.dfb import DFBConfig
from ttl.runtime.dram import DRAM_BANK_BYTES, DRAM_BANKS
from ttl.runtime.elfinfo import ElfImage
from ttl.runtime.errors import BundleError, LaunchError
from ttl.runtime.program import KernelSpec, Program
from ttl.runtime.sharding import DESCRIPTOR_BASE, ShardedTensor, ShardLayout
from ttl.runtime.tensors import Bfp8Tensor, DramTensor, is_torch, like_input, to_numpy
from ttl.runtime.tiles import TILE_ELEMS, data_format
from ttl.specs import MAX_TENSOR_ELEMENTS, ROW_MAJOR, tile_padded

MANIFEST_SCHEMA = "ttl.manifest"
MANIFEST_VERSIONS = (1,)
BUNDLE_FORMATS = (bundle_format.BUNDLE_FORMAT,)


@dataclass(frozen=True)
class TensorSignature:
    """A tensor parameter the operation was compiled for."""

    name: str
    index: int
    shape: tuple[int, ...]
    dtype: str
    written: bool = True  # may a kernel write it? (only these are read back after a run)
    layout: str = "tile"  # or "row_major": one DRAM page per innermost row
    logical: tuple[int, ...] | None = None  # a tiled tensor's logical shape, if padded

    @property
    def logical_shape(self) -> tuple[int, ...]:
        """The shape the operation was compiled to see (``shape``, unless tile-padded)."""
        return self.logical if self.logical is not None else self.shape


@dataclass(frozen=True)
class BundleKernel:
    """A logical kernel of a bundle and its ELF (the verified bytes, parsed once)."""

    name: str
    slot: str
    elf: Path
    image: ElfImage = field(repr=False, compare=False)
    dst: DstMode = field(default_factory=DstMode)  # the DST mode of a compute kernel


@dataclass
class Bundle:
    """A validated bundle, ready to run."""

    path: Path
    manifest: dict
    operation: str
    target: str
    grid: tuple[int, int]
    tensors: list[TensorSignature]
    dfbs: list[DFBConfig]
    kernels: list[BundleKernel]
    per_node_args: list[dict]
    semaphores: list[int] = field(default_factory=list)  # initial values, by index
    semaphore_names: list[str] = field(default_factory=list)

    def __repr__(self) -> str:
        sig = ", ".join(f"{t.name}: {t.dtype}{list(t.shape)}" for t in self.tensors)
        return (
            f"Bundle({self.operation}({sig}) on {self.target} "
            f"{self.grid[0]}x{self.grid[1]}, {len(self.kernels)} kernels)"
        )


def load_bundle(path: str | os.PathLike) -> Bundle:
    """Reads and validates the bundle at ``path``; raises BundleError saying what is wrong."""
    root = Path(path)
    try:
        raw = bundle_format.read_bounded(
            root / bundle_format.MANIFEST, bundle_format.MAX_MANIFEST_BYTES
        )
        manifest = json.loads(raw.decode("utf-8"))
    except FileNotFoundError:
        raise BundleError(f"{root} is not a bundle: it has no manifest.json") from None
    except bundle_format.UnsafeBundleFileError as e:
        raise BundleError(f"{root} is not a usable bundle: {e}") from None
    except RecursionError:
        raise BundleError(f"{root}/manifest.json is unreadable: nested too deeply") from None
    except (OSError, ValueError) as e:
        raise BundleError(f"{root}/manifest.json is unreadable: {e}") from None
    where = f"{root}/manifest.json"
    if not isinstance(manifest, dict):
        kind = type(manifest).__name__
        raise BundleError(f"{where}: malformed manifest (a {kind}, not an object)")
    try:
        return _parse(root, manifest, where)
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise BundleError(f"{where}: malformed manifest ({type(e).__name__}: {e})") from None


def _backing(entry: dict, tensors: set[str], where: str) -> tuple[str | None, int]:
    """A DFB entry's ``tensor_backing`` (tensor, byte offset): (None, 0) for a DFB with
    L1 of its own; a BundleError for one naming no tensor or a bad offset."""
    backing = entry.get("tensor_backing")
    if backing is None:
        return None, 0
    tensor, offset = backing["tensor"], backing["byte_offset"]
    page = int(entry["page_size"])
    if tensor not in tensors or not isinstance(offset, int) or offset < 0 or offset % page:
        raise BundleError(
            f"{where}: DFB '{entry.get('name', '')}' is backed by {backing!r}, which is not an "
            "operation tensor at a page-aligned offset: rebuild the operation"
        )
    return str(tensor), offset


def _parse(root: Path, m: dict, where: str) -> Bundle:
    if m.get("schema") != MANIFEST_SCHEMA:
        raise BundleError(f"{where}: schema is {m.get('schema')!r}, expected {MANIFEST_SCHEMA!r}")
    if m.get("version") not in MANIFEST_VERSIONS:
        raise BundleError(
            f"{where}: manifest version {m.get('version')!r} is not supported by "
            f"this runtime (supports {list(MANIFEST_VERSIONS)}): rebuild the "
            "operation with the matching ttl compiler"
        )
    target = m["target"]
    if target not in _targets.TARGETS:
        raise BundleError(f"{where}: unknown target {target!r} (known: {sorted(_targets.TARGETS)})")
    grid = (int(m["grid"]["x"]), int(m["grid"]["y"]))
    full = _targets.TARGETS[target].full_grid
    if not (1 <= grid[0] <= full[0] and 1 <= grid[1] <= full[1]):
        raise BundleError(f"{where}: grid {grid} does not fit {target} ({full[0]}x{full[1]})")
    files = _bundle_files(m, where)
    for rel in files:  # every listed name stays in the bundle, read now or later
        try:
            bundle_format.bundle_member(root, rel)
        except bundle_format.UnsafeBundleFileError as e:
            raise BundleError(f"{where}: its file list names {e}") from None
    tensors = [
        TensorSignature(
            t["name"],
            int(t["index"]),
            _shape(t, where),
            data_format(t["dtype"]).name,
            bool(t.get("written", True)),
            _layout(t, where),
            _logical_shape(t, where),
        )
        for t in sorted(m["tensors"], key=lambda t: t["index"])
    ]
    if [t.index for t in tensors] != list(range(len(tensors))):
        raise BundleError(
            f"{where}: the tensors must be numbered 0..n-1, one each; their indices are "
            f"{[t.index for t in tensors]}: rebuild the operation"
        )
    if not m["kernels"]:
        raise BundleError(f"{where}: the manifest lists no kernels: rebuild the operation")
    _check_dram_fits(tensors, target, where)
    dfbs = [
        DFBConfig(
            int(d["physical_index"]),
            int(d["page_size"]),
            int(d["pages_per_block"]),
            int(d["block_count"]),
            d["data_format"],
            str(d.get("name", "")),
            *_backing(d, {t.name for t in tensors}, where),
        )
        for d in m["dfbs"]
    ]
    kernels = []
    for k in m["kernels"]:
        try:
            _, rel = bundle_format.kernel_members(k["source"])
        except bundle_format.UnsafeBundleFileError as e:
            raise BundleError(f"{where}: kernel '{k['name']}': {e}") from None
        raw, digest = _check_file(root, rel, files, where, f"kernel '{k['name']}'")
        try:
            image = ElfImage.from_bytes(raw, str(root / rel), digest)
        except LaunchError as e:
            raise BundleError(str(e)) from None
        try:
            dst = DstMode.from_manifest(k.get("compute_config"))
        except ValueError as e:
            raise BundleError(f"{where}: kernel '{k['name']}': {e}") from None
        kernels.append(BundleKernel(k["name"], k["processor_slot"], root / rel, image, dst))
    args = sorted(m["runtime_args"]["per_node"], key=lambda a: a["index"])
    names = {t.name for t in tensors}
    for a in args:
        if not _known_runtime_arg(a, names, grid):
            raise BundleError(
                f"{where}: runtime arg {a['index']} ({a}) is not supported by this "
                "runtime: rebuild with the matching ttl compiler"
            )
    if m["runtime_args"].get("common"):
        raise BundleError(f"{where}: common runtime args are not supported in manifest v1")
    sems = _semaphores(m, where)
    return Bundle(
        root,
        m,
        m["operation"]["name"],
        target,
        grid,
        tensors,
        dfbs,
        kernels,
        args,
        [e["initial_value"] for e in sems],
        [str(e["name"]) for e in sems],
    )


def _check_dram_fits(tensors: Sequence[TensorSignature], target: str, where: str) -> None:
    """The tensors fit the target's DRAM (before anyone allocates them on the host)."""
    need = sum(math.prod(t.shape) * _targets.tile_bytes(t.dtype) // TILE_ELEMS for t in tensors)
    have = DRAM_BANKS[target] * DRAM_BANK_BYTES[target]
    if need > have:
        raise BundleError(
            f"{where}: its tensors need {need} bytes of DRAM but {target} has {have}: "
            "rebuild the operation for smaller tensors"
        )


def _is_dims(value: object) -> bool:
    """Whether a manifest value is a shape: a list of positive ints."""
    return isinstance(value, list) and all(
        isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in value
    )


def _shape(entry: dict, where: str) -> tuple[int, ...]:
    """A manifest tensor's shape: a list of positive ints of bounded size."""
    shape = entry["shape"]
    if not _is_dims(shape):
        raise BundleError(
            f"{where}: tensor '{entry['name']}' has shape {shape!r}; a shape is a list of "
            "positive integers"
        )
    if math.prod(shape) > MAX_TENSOR_ELEMENTS:
        raise BundleError(
            f"{where}: tensor '{entry['name']}' of shape {shape} has more than "
            f"{MAX_TENSOR_ELEMENTS} elements"
        )
    return tuple(shape)


def _logical_shape(entry: dict, where: str) -> tuple[int, ...] | None:
    """A tiled tensor's logical shape, when the manifest gives one: its stored ``shape``
    must be that shape padded to whole tiles."""
    if "logical_shape" not in entry:
        return None
    logical = entry["logical_shape"]
    if (
        not _is_dims(logical)
        or _layout(entry, where) != "tile"
        or tile_padded(logical) != tuple(entry["shape"])
    ):
        raise BundleError(
            f"{where}: tensor '{entry['name']}' has logical_shape {logical!r}; it must be a "
            "list of positive integers that a tiled tensor's shape pads to whole tiles"
        )
    return tuple(logical)


def _layout(entry: dict, where: str) -> str:
    """A manifest tensor's layout (absent: tiled, as every manifest before row-major)."""
    layout = entry.get("layout", "tile")
    if layout not in ("tile", ROW_MAJOR):
        raise BundleError(
            f"{where}: tensor '{entry['name']}' has layout {layout!r}; this runtime knows "
            f"'tile' and '{ROW_MAJOR}'"
        )
    return layout


def _semaphores(m: dict, where: str) -> list[dict]:
    """The manifest's semaphore entries, by index (none before operations had them)."""
    entries = sorted(m.get("semaphores", []), key=lambda e: e["index"])
    if [e["index"] for e in entries] != list(range(len(entries))) or not all(
        isinstance(e["initial_value"], int) and 0 <= e["initial_value"] < 2**32 for e in entries
    ):
        raise BundleError(
            f"{where}: the semaphore table must number semaphores 0..n-1 with initial values "
            "in [0, 2**32): rebuild the operation with the matching ttl compiler"
        )
    return entries


def _bundle_files(m: dict, where: str) -> dict[str, str]:
    section = m.get("bundle")
    if not section:
        raise BundleError(
            f"{where} has no 'bundle' section (file hashes): this is compiler "
            "output, not a bundle; build it with ttl_operation"
        )
    if section.get("format") not in BUNDLE_FORMATS:
        raise BundleError(f"{where}: bundle format {section.get('format')!r} is not supported")
    return section["files"]


def _check_file(
    root: Path, rel: str, files: dict[str, str], where: str, what: str
) -> tuple[bytes, str]:
    """The bytes of bundle file ``rel`` and their SHA-256 (hex), checked against the
    manifest's hash."""
    if rel not in files:
        raise BundleError(f"{where}: {what} has no {rel} in the bundle's file list")
    try:
        raw = bundle_format.read_bounded(
            bundle_format.bundle_member(root, rel), bundle_format.MAX_ELF_BYTES
        )
    except bundle_format.UnsafeBundleFileError as e:
        raise BundleError(f"{what}: {e}") from None
    except OSError:
        raise BundleError(f"{root / rel} ({what}) is missing from the bundle") from None
    recorded = bundle_format.digest_bytes(raw)
    if recorded != files[rel]:
        raise BundleError(
            f"{root / rel} ({what}) does not match its hash in manifest.json: the "
            "bundle was modified after it was built; rebuild it"
        )
    return raw, recorded.removeprefix("sha256:")


def run(
    bundle: Bundle | str | os.PathLike,
    *tensors,
    device: Device | None = None,
    shards: Sequence[ShardLayout | None] = (),
    device_index: int = 0,
):
    """Runs ``bundle`` with ``tensors`` (NumPy arrays or torch tensors, one per parameter).

    Every tensor is copied to DRAM, the kernels run, and every tensor a kernel
    may write (the manifest's ``written``) is read back: NumPy arrays and torch
    tensors passed in are updated in place (so
    outputs appear in the arrays given for them) and returned, in parameter
    order, as a tuple of the same kinds. ``device.last_report`` has the
    per-kernel statistics. ``shards`` gives, per tensor, a :class:`ShardLayout`
    for an L1-sharded tensor (its shards live in the nodes' L1, not in DRAM) or
    None (interleaved in DRAM, the default for tensors it does not cover).
    ``device_index``: the device's index in the operation's device domain (the mesh
    device it runs as; ``DeviceDomain.current_index()`` in its kernels).
    """
    if not isinstance(bundle, Bundle):
        bundle = load_bundle(bundle)
    arrays = _check_tensors(bundle, tensors)
    dev = device or Device(target=bundle.target, grid=bundle.grid)
    if dev.target.name != bundle.target:
        raise LaunchError(
            f"{bundle.operation} was compiled for {bundle.target}, but the device "
            f"is a {dev.target.name}"
        )
    if dev.grid != bundle.grid:
        raise LaunchError(
            f"{bundle.operation} was compiled for a {bundle.grid} grid, but the "
            f"device has {dev.grid}"
        )
    mark = dev.dram.mark()
    try:
        return _run_on(dev, bundle, tensors, arrays, list(shards), device_index)
    finally:
        dev.dram.release(mark)  # the launch's DRAM tensors die with it


def _run_on(
    dev: Device,
    bundle: Bundle,
    tensors,
    arrays: list[np.ndarray],
    shards: list[ShardLayout | None],
    device_index: int = 0,
) -> tuple:
    handles: dict[str, DramTensor | ShardedTensor] = {}
    descriptor = DESCRIPTOR_BASE
    for i, (sig, arr) in enumerate(zip(bundle.tensors, arrays, strict=True)):
        layout = shards[i] if i < len(shards) else None
        if layout is None:
            handles[sig.name] = dev.write_tensor(arr, sig.dtype, layout=sig.layout)
            continue
        what = f"{bundle.operation}: tensor '{sig.name}'"
        handles[sig.name] = dev.write_sharded(arr, sig.dtype, layout, descriptor, what)
        descriptor += layout.descriptor_bytes
    args = [_runtime_arg(a, handles, dev.target, device_index) for a in bundle.per_node_args]
    program = Program(
        kernels=[KernelSpec(k.name, k.image, k.slot, args, dst=k.dst) for k in bundle.kernels],
        dfbs=bundle.dfbs,
        semaphores=bundle.semaphores,
        semaphore_names=bundle.semaphore_names,
        sharded=[h for h in handles.values() if isinstance(h, ShardedTensor)],
        backed=_backed(bundle, handles),
    )
    dev.launch(program)
    results = []
    for sig, original, array in zip(bundle.tensors, tensors, arrays, strict=True):
        if not sig.written:  # no kernel writes it: DRAM still holds the input
            results.append(original)
            continue
        into = _writable_view(original, array, handles[sig.name])
        if into is not None:  # untilize straight into the caller's tensor
            dev.read_tensor(handles[sig.name], out=into)
            results.append(original)
            continue
        out = dev.read_tensor(handles[sig.name])
        results.append(_write_back(out, original))
    return tuple(results)


def _backed(bundle: Bundle, handles: dict[str, DramTensor | ShardedTensor]) -> dict:
    """Each tensor-backed DFB's sharded tensor; a LaunchError if that tensor is not sharded."""
    out = {}
    for cfg in bundle.dfbs:
        if cfg.backing is None:
            continue
        tensor = handles[cfg.backing]
        if not isinstance(tensor, ShardedTensor):
            raise LaunchError(
                f"{bundle.operation}: DFB '{cfg.name}' is backed by tensor '{cfg.backing}' "
                "(ttl.make_tensor_backed_dfb), which must be L1-sharded, but it is "
                "interleaved: give it a HEIGHT_SHARDED, WIDTH_SHARDED or BLOCK_SHARDED "
                "memory config in ttnn.BufferType.L1"
            )
        out[cfg.index] = tensor
    return out


def _known_runtime_arg(arg: dict, tensors: set[str], grid: tuple[int, int]) -> bool:
    """Whether this runtime can supply ``arg``: an operation tensor's address, the NOC
    coordinate of a column or row of the grid, or the device's index in its domain."""
    if arg.get("kind") == "tensor_address":
        return arg.get("tensor") in tensors
    if arg.get("kind") == "device_index":
        return True
    axis = {"noc_x": ("column", grid[0]), "noc_y": ("row", grid[1])}.get(arg.get("kind", ""))
    if axis is None:
        return False
    value = arg.get(axis[0])
    return isinstance(value, int) and 0 <= value < axis[1]


def _runtime_arg(
    arg: dict,
    handles: dict[str, DramTensor | ShardedTensor],
    target: _targets.Target,
    device_index: int,
) -> int:
    """The value of one manifest runtime arg: a tensor's address (its DRAM base or its
    shard descriptor's), the NOC coordinate of a grid column or row, or the device's
    index in its domain."""

    def address(name: str) -> int:
        handle = handles[name]
        return handle.descriptor if isinstance(handle, ShardedTensor) else handle.address

    return runtime_arg_value(arg, target, address, device_index)


def _check_tensors(bundle: Bundle, tensors) -> list[np.ndarray]:
    sigs = bundle.tensors
    if len(tensors) != len(sigs):
        names = ", ".join(s.name for s in sigs)
        raise LaunchError(
            f"{bundle.operation} takes {len(sigs)} tensors ({names}), got {len(tensors)}"
        )
    arrays = []
    for sig, t in zip(sigs, tensors, strict=True):
        arr = to_numpy(t)
        want = data_format(sig.dtype)
        if arr.dtype != want.dtype:
            raise LaunchError(
                f"{bundle.operation}: tensor '{sig.name}' (argument {sig.index}) has dtype "
                f"{arr.dtype}, but the operation was compiled for {sig.dtype}: convert it "
                f"(e.g. {_CONVERSIONS[want.name]})"
            )
        if tuple(arr.shape) != sig.shape:
            raise LaunchError(
                f"{bundle.operation}: tensor '{sig.name}' (argument {sig.index}) has shape "
                f"{tuple(arr.shape)}, but the operation was compiled for {sig.shape}: recompile "
                "the operation for this shape"
            )
        if sig.written and isinstance(t, np.ndarray) and not t.flags.writeable:
            raise LaunchError(
                f"{bundle.operation}: tensor '{sig.name}' (argument {sig.index}) is a "
                "read-only NumPy array, but a kernel writes it: pass a writeable array "
                "(e.g. .copy())"
            )
        arrays.append(arr)
    return arrays


_CONVERSIONS = {
    "bf16": ".astype(ml_dtypes.bfloat16)",
    "f32": ".astype(np.float32)",
    "bfp8": "ttl.runtime.Bfp8Tensor(array)",
}


def _writable_view(original, array: np.ndarray, tensor) -> np.ndarray | None:
    """A NumPy array sharing ``original``'s memory that can receive ``tensor`` in place
    (a writeable contiguous NumPy array, or a contiguous CPU torch tensor), else None.
    ``array`` is ``to_numpy(original)``, which shares a CPU contiguous tensor's storage."""
    if is_torch(original):
        if original.device.type != "cpu" or not original.is_contiguous():
            return None
        view = array
    elif isinstance(original, np.ndarray) and original.flags.writeable:
        view = original
    elif isinstance(original, Bfp8Tensor):
        view = original.values
    else:
        return None
    ok = (
        view.flags.c_contiguous
        and view.dtype == tensor.format.dtype
        and tuple(view.shape) == tensor.shape
    )
    return view if ok else None


def _write_back(result: np.ndarray, original):
    """Copies ``result`` into ``original`` where possible; returns the same kind of object."""
    if is_torch(original):
        converted = like_input(result, original)
        original.copy_(converted)
        return original
    if isinstance(original, np.ndarray) and original.flags.writeable:
        original[...] = result
        return original
    return like_input(result, original)
