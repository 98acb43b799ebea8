"""The JIT path: ``op(a, b, c, y)`` compiles, caches, builds and dispatches an operation.

``Operation.__call__`` calls :func:`run_operation`. The first call with given
tensor specs runs the compiler in process (``Operation.compile``), builds the
kernels with the device toolchain (``ttl.device_build``) into a bundle in the user cache
(``cache.py``) and runs it on the emulator (``bundle.run``). Later calls with
the same specs reuse the bundle: from memory in the same process, from the
cache directory in a new one. Nothing is recompiled unless the operation,
specs, target, grid, device compiler or ttl itself changed.

``configure(target=, grid=, profile=)`` sets process-wide defaults (``ttl run
--target --grid --profile`` uses it); every call is recorded in :func:`profile`,
with exact instruction counts and wait measures when ``profile`` is on.
"""

from __future__ import annotations

import hashlib
import inspect
import linecache
import os
import sys
import time
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ttl.errors import SourceLoc, TTLCompileError
from ttl.host import cache, startup
from ttl.host.progress import Progress
from ttl.operation import Operation
from ttl.options import ENV_VAR, CompilerOptions, OptionsError, help_requested
from ttl.runtime import trace
from ttl.runtime.bundle import Bundle, load_bundle
from ttl.runtime.bundle import run as run_bundle
from ttl.runtime.debug_print import PrintSink
from ttl.runtime.device import Device
from ttl.runtime.errors import BundleError, DeviceError
from ttl.runtime.profile import CallProfile, Profile
from ttl.runtime.scheduler import RunReport
from ttl.runtime.sharding import ShardLayout
from ttl.source import source_text
from ttl.specs import ConstantParam, RowMajor, TensorSpec, is_constant
from ttl.targets import DEFAULT_TARGET, TARGETS

_TTL_DIR = str(Path(__file__).resolve().parent.parent)


@dataclass
class Settings:
    """Process-wide defaults for calls that do not pass ``target``/``grid``."""

    target: str | None = None
    grid: Any = None  # None: the operation's own grid request
    profile: bool = False  # exact instruction counts and wait measures (slower emulation)
    options: CompilerOptions = field(default_factory=CompilerOptions)  # `ttl run --ttl-*`
    prints: PrintSink | None = None  # kernel print lines (None: standard output)
    trace: bool = False  # record signpost zones and waits for write_trace (implies profile)


SETTINGS = Settings()
_PROFILE = Profile()
_BUNDLES: dict[str, Bundle] = {}  # cache key -> loaded bundle (this process)
_DEVICES: dict[tuple[str, tuple[int, int]], Device] = {}  # reused: machines are costly


def configure(
    *,
    target: str | None = None,
    grid: Any = None,
    profile: bool = False,
    options: CompilerOptions | None = None,
    prints: Any = None,
    trace: bool = False,
) -> None:
    """Sets the default target and grid override of later calls, whether the shared
    devices profile them (exact instructions and waits in :func:`profile`; slower),
    and the compiler options of the command line (``ttl run ... --ttl-*``).

    ``prints``: where kernel ``print`` lines go (None: standard output, a file
    path, opened now, or a text stream). ``trace``: record every signpost zone
    and blocking wait (implies profiling) for :func:`write_trace`.
    """
    SETTINGS.target, SETTINGS.grid, SETTINGS.profile = target, grid, profile
    SETTINGS.options = options or CompilerOptions()
    if SETTINGS.prints is not None:
        SETTINGS.prints.close()
    SETTINGS.prints = None if prints is None else PrintSink(prints)
    SETTINGS.trace = trace


UNPROFILED_CALLS_KEPT = 64


def profile() -> Profile:
    """The profile of every call dispatched in this process.

    Instruction counts and wait measures are filled in when profiling was on
    (:func:`configure` ``profile=True``, or the ``device=`` passed had ``profile``).
    Without profiling or tracing only the latest ``UNPROFILED_CALLS_KEPT`` calls are
    kept (``Profile.dropped`` counts the others): a full grid's record is about
    165 KiB, and a program calling an operation in a loop must not grow without bound.
    """
    return _PROFILE


def close_prints() -> None:
    """Closes the print file of :func:`configure` (later prints go to standard output)."""
    if SETTINGS.prints is not None:
        SETTINGS.prints.close()
    SETTINGS.prints = None


def write_trace(path: str) -> None:
    """Writes the Chrome Trace Event timeline of every call so far (see
    :mod:`ttl.runtime.trace`; zones and waits need :func:`configure` ``trace=True``)."""
    trace.write_trace(path, [(c.operation, c.kernels, c.dfb_counts) for c in _PROFILE.calls])


def release_devices() -> None:
    """Drops the emulated devices kept between calls (``ttnn.close_device``)."""
    _DEVICES.clear()


def run_operation(
    op: Operation,
    *tensors: Any,
    target: str | None = None,
    grid: Any = None,
    specs: Mapping[str, Any] | None = None,
    device: Device | None = None,
    include_dirs: Sequence[str] = (),
    options: str | CompilerOptions | None = None,
) -> tuple:
    """Runs ``op`` on ``tensors`` (NumPy arrays, torch tensors or ttnn-shim tensors).

    Outputs land in the tensors passed for them (in place); the tuple of all
    tensors, in parameter order, is returned as well. ``specs`` pins the
    specs the operation must be called with (a mismatch is an error naming
    the tensor); ``device`` runs on that emulated device instead of the
    shared one for (target, grid). ``options`` (flags or ttl.CompilerOptions)
    override, for this call, those of the decorator, $TTLANG_COMPILER_OPTIONS
    and the program's ``--ttl-*`` arguments (:func:`call_options`).
    """
    startup.end()
    loc = user_loc()
    overrides = call_options(options, loc)
    params = list(inspect.signature(op.fn).parameters)
    if len(tensors) != len(params):
        raise TTLCompileError(
            f"operation '{op.name}' takes {len(params)} tensors ({', '.join(params)}) but was "
            f"called with {len(tensors)}",
            loc,
            "pass one tensor per parameter, in order",
        )
    # Compile-time parameters (upstream's scale_factor=(2, 2)): part of what compiles.
    constants = {
        n: ConstantParam(t) for n, t in zip(params, tensors, strict=True) if _is_constant(t)
    }
    names = [n for n in params if n not in constants]
    given = [t for n, t in zip(params, tensors, strict=True) if n not in constants]
    devices = _mesh_size(op, names, given, loc)
    _check_domain(op, devices, loc)
    shards = [_shard_layout(t) for t in given]
    logical = {n: _logical_shape(t) for n, t in zip(names, given, strict=True)}
    results: tuple = ()
    for index in range(devices):  # SPMD: every device of a mesh runs with its own shard
        arrays = iter(_host_array(op, n, t, loc, index) for n, t in zip(names, given, strict=True))
        results = _run_on_device(
            op,
            params,
            [constants[n] if n in constants else next(arrays) for n in params],
            loc,
            target=target,
            grid=grid,
            specs=specs,
            device=device,
            include_dirs=include_dirs,
            overrides=overrides,
            index=index if devices > 1 else None,
            shards=shards,
            logical=logical,
        )
    outputs = iter(results)
    return tuple(
        t if n in constants else (t if hasattr(t, "__ttl_host_array__") else next(outputs))
        for n, t in zip(params, tensors, strict=True)
    )


def _check_domain(op: Operation, devices: int, loc: SourceLoc | None) -> None:
    """Spec v0.21: "the flattened domain extent must match the logical extent of the
    TT-NN mesh device" the operation is called on."""
    domain = op.device_domain
    if domain is not None and domain.size != devices:
        raise TTLCompileError(
            f"operation '{op.name}' runs on {domain!r}, {domain.size} devices, but its "
            f"tensors are on {devices} device{'s' if devices != 1 else ''}",
            loc,
            f"call it with tensors on a mesh of {domain.size} devices "
            f"(ttnn.open_mesh_device(ttnn.MeshShape(1, {domain.size}))), or change the domain",
        )


def _target_name(target: str | None, loc: SourceLoc | None) -> str:
    """The call's target: its own, else ``ttl run --target``, else the default."""
    target = target or SETTINGS.target or DEFAULT_TARGET
    if target not in TARGETS:
        raise TTLCompileError(
            f"unknown target '{target}'",
            loc,
            "write target= one of " + ", ".join(sorted(TARGETS)),
        )
    return target


def _host_only(op: Operation) -> bool:
    """Whether ``op`` does no kernel work (frontend.unified.is_host_only)."""
    from ttl.compiler.frontend import unified
    from ttl.source import function_def

    return unified.is_host_only(op, function_def(op.fn)[1])


def _is_constant(value: Any) -> bool:
    """Whether a call argument is a compile-time parameter rather than a tensor."""
    return not hasattr(value, "shape") and is_constant(value)


def _run_on_device(
    op: Operation,
    params: list[str],
    arrays: list[Any],
    loc: SourceLoc | None,
    *,
    target: str | None,
    grid: Any,
    specs: Mapping[str, Any] | None,
    device: Device | None,
    include_dirs: Sequence[str],
    overrides: CompilerOptions,
    index: int | None,
    shards: Sequence[ShardLayout | None] = (),
    logical: Mapping[str, tuple[int, ...] | None],
) -> tuple:
    """One launch of ``op`` on ``arrays``; ``index``: which device of a mesh (None: no mesh);
    ``shards``: the layout of each L1-sharded tensor (None: interleaved in DRAM);
    ``logical``: each ttnn tensor's logical shape (None: its array's shape)."""
    bound = _specs(op, params, arrays, loc, logical)
    if specs is not None:
        from ttl.compiler.evaluate import check_tensors

        check_tensors(op, specs, list(bound.values()))
    # The tensors run; the layout is in bound, the constants were compiled in.
    arrays = [
        a.array if isinstance(a, RowMajor) else a
        for a in arrays
        if not isinstance(a, ConstantParam)
    ]
    target = _target_name(target, loc)
    grid_request = grid if grid is not None else SETTINGS.grid
    override = grid_request is not None  # else the decorator's grid= (no "override" to name)
    if grid_request is None:
        grid_request = op.grid
    include_dirs = tuple(include_dirs)
    build = {
        # The source's file name is in the generated C++ (its line comments) and so in
        # every error a run reports: two files with the same operation differ.
        "source": os.path.basename(op.loc.filename),
        # ... and its lines: moving the operation within its file changes them.
        "source_sha256": hashlib.sha256(source_text(op.loc.filename).encode()).hexdigest(),
        "fp32_dest_acc_en": op.fp32_dest_acc_en,
        "dst_full_sync_en": op.dst_full_sync_en,
        "options": op.options.merge(overrides).to_string(),
    }
    key = cache.cache_key(
        op.identity, [str(s) for s in bound.values()], target, grid_request, include_dirs, build
    )
    found = _bundle(
        op, key, bound, target, grid_request if override else None, include_dirs, overrides
    )
    if found is None:  # no kernel work: its body ran on the host, per node; nothing runs
        return tuple(arrays)
    bundle, source, compile_seconds = found
    # The devices of a mesh run one after another on one emulated machine: each launch
    # loads its shard and reads its outputs back, so nothing carries over between them.
    _check_shard_nodes(op, params, shards, bundle.grid, loc)
    _check_backing(op, bundle, shards, loc)
    dev = device or _device(bundle)
    name = op.name if index is None else f"{op.name} (device {index})"

    def record(report: RunReport, failed: str = "") -> None:
        _PROFILE.add(
            CallProfile.from_report(
                operation=name,
                target=bundle.target,
                grid=bundle.grid,
                cache=source,
                compile_seconds=compile_seconds,
                report=report,
                failed=failed,
            ),
            keep=None if dev.profile or dev.trace else UNPROFILED_CALLS_KEPT,
        )

    with Progress(
        f"running {op.name} on the emulated {bundle.target} {bundle.grid[0]}x{bundle.grid[1]}",
        detail=dev.progress,
    ):
        try:
            results = run_bundle(
                bundle, *arrays, device=dev, shards=shards, device_index=index or 0
            )
        except DeviceError as error:  # a deadlock's timeline is what debugging it needs
            if error.report is not None:
                record(error.report, type(error).__name__)
            raise
    assert dev.last_report is not None  # every completed run leaves its report
    record(dev.last_report)
    return results


def call_options(call: str | CompilerOptions | None, loc: SourceLoc | None) -> CompilerOptions:
    """The option overrides of one call: $TTLANG_COMPILER_OPTIONS, then the command
    line's ``--ttl-*`` flags (those ``ttl run`` took, then any left in the program's
    arguments), then the call's ``options=`` (later ones win, field by field).

    ``--ttl-help`` among the arguments prints the option list and exits, as tt-lang does.
    """
    if help_requested(sys.argv[1:]):
        print(CompilerOptions.usage())
        raise SystemExit(0)
    sources: list[tuple[str, Callable[[], CompilerOptions]]] = [
        (f"${ENV_VAR}", lambda: CompilerOptions.from_string(os.environ.get(ENV_VAR))),
        ("the command line", lambda: SETTINGS.options),
        ("the program's arguments", lambda: CompilerOptions.from_argv(sys.argv[1:])),
        ("options=", lambda: CompilerOptions.coerce(call, "options=")),
    ]
    merged = CompilerOptions()
    for where, parse in sources:
        try:
            merged = merged.merge(parse())
        except OptionsError as e:
            raise TTLCompileError(
                f"compiler options in {where}: {e}", loc, "run with --ttl-help for the list"
            ) from None
    return merged


def _not_for(
    bundle: Bundle, op: Operation, specs: dict[str, TensorSpec | ConstantParam], target: str
) -> str | None:
    """Why a cache entry's bundle is not one of ``op`` for ``specs`` on ``target`` (an
    entry swapped in from another operation, records and all), or None."""
    identity = bundle.manifest.get("operation", {}).get("identity")
    if identity != op.identity:
        return f"is a bundle of operation {bundle.operation!r} ({identity}), not of {op.name!r}"
    if bundle.target != target:
        return f"is built for {bundle.target}, not {target}"
    have = {t.name: (t.shape, t.layout, t.logical_shape) for t in bundle.tensors}
    want = {
        name: (spec.shape, spec.layout, spec.logical_shape)
        for name, spec in specs.items()
        if isinstance(spec, TensorSpec)
    }
    if have != want:
        return f"takes tensors {have}, not {want}"
    return None


def _bundle(
    op: Operation,
    key: str,
    specs: dict[str, TensorSpec | ConstantParam],
    target: str,
    grid: Any,
    include_dirs: tuple[str, ...],
    options: CompilerOptions,
) -> tuple[Bundle, str, float] | None:
    """The bundle for ``key``: (bundle, "memory" | "disk" | "compiled", compile seconds);
    None for an operation with no kernel work, whose body this evaluates on every node
    (as compiling it would) instead."""
    if key in _BUNDLES:
        return _BUNDLES[key], "memory", 0.0
    path = cache.lookup(key)
    if path is not None:
        try:
            bundle = load_bundle(path)
            problem = _not_for(bundle, op, specs, target)
            if problem is not None:
                raise BundleError(f"{path} {problem}")
        except BundleError as e:  # a damaged file its record cannot see: rebuild it below
            if os.path.lexists(path):  # else another process evicted it: a plain miss
                print(
                    f"ttl: discarding the damaged cache entry ({e}); rebuilding it",
                    file=sys.stderr,
                )
            bundle = None
        if bundle is not None:
            cache.STATS.hits += 1
            _BUNDLES[key] = bundle
            return bundle, "disk", 0.0
        cache.discard(key)
    if _host_only(op):  # checked on a miss only: a cache hit never loads the compiler
        from ttl.compiler.evaluate import evaluate_operation

        evaluate_operation(op, specs, TARGETS[target], grid, op.options.merge(options))
        return None
    start = time.perf_counter()
    with Progress(f"compiling {op.name}") as progress:
        result = op.compile(
            specs, target=target, grid=grid, include_dirs=include_dirs, options=options
        )
        try:
            path = cache.store(
                key,
                result,
                include_dirs,
                on_kernel=lambda k: progress.update(f"building kernel {k}"),
            )
        except cache.CacheFullError as e:
            raise TTLCompileError(
                f"operation '{op.name}' cannot be cached: {e.strerror}",
                user_loc(),
                "free disk space or point TTL_CACHE_DIR elsewhere",
            ) from None
    bundle = load_bundle(path)
    _BUNDLES[key] = bundle
    return bundle, "compiled", time.perf_counter() - start


def _device(bundle: Bundle) -> Device:
    key = (bundle.target, bundle.grid)
    if key not in _DEVICES:
        _DEVICES[key] = Device(bundle.target, bundle.grid)
    _DEVICES[key].profile = SETTINGS.profile
    _DEVICES[key].trace = SETTINGS.trace
    _DEVICES[key].prints = SETTINGS.prints
    return _DEVICES[key]


def _host_array(
    op: Operation, name: str, tensor: Any, loc: SourceLoc | None, index: int = 0
) -> Any:
    """The NumPy/torch object to run with (a ttnn-shim tensor gives device ``index``'s array)."""
    unwrap = getattr(tensor, "__ttl_host_array__", None)
    if unwrap is not None:
        what = f"tensor '{name}' of operation '{op.name}'"
        return unwrap(what, loc, index) if index else unwrap(what, loc)
    if not (hasattr(tensor, "shape") and hasattr(tensor, "dtype")):
        raise TTLCompileError(
            f"tensor '{name}' of operation '{op.name}' is a {type(tensor).__name__}, not a tensor",
            loc,
            "pass NumPy arrays, torch tensors or ttnn tensors, or compile-time constants "
            "(bool, int, float, str, None, tuples and lists of them); capture any other "
            "value from the enclosing scope instead of passing it",
        )
    return tensor


def _logical_shape(tensor: Any) -> tuple[int, ...] | None:
    """A ttnn tensor's logical shape where tile padding stores it larger (None: others)."""
    logical = getattr(tensor, "__ttl_logical_shape__", None)
    return logical() if logical is not None else None


def _shard_layout(tensor: Any) -> ShardLayout | None:
    """Where an L1-sharded ttnn tensor's shards live (None: an interleaved tensor)."""
    layout = getattr(tensor, "__ttl_l1_shards__", None)
    return layout() if layout is not None else None


def _check_shard_nodes(
    op: Operation,
    params: list[str],
    shards: Sequence[ShardLayout | None],
    grid: tuple[int, int],
    loc: SourceLoc | None,
) -> None:
    """Every shard must live on a node of the operation's grid (the emulated device has no
    others)."""
    for name, layout in zip(params, shards, strict=False):
        cores = layout.cores if layout else ()
        outside = [c for c in cores if c[0] >= grid[0] or c[1] >= grid[1]]
        if outside:
            raise TTLCompileError(
                f"tensor '{name}' of operation '{op.name}' has a shard on node {outside[0]}, "
                f"outside the operation's {grid[0]}x{grid[1]} grid",
                loc,
                "shard it over nodes of the operation's grid (CoreRange within "
                f"CoreCoord(0, 0)..CoreCoord({grid[0] - 1}, {grid[1] - 1})), or give the "
                "operation a larger grid",
            )


def _check_backing(
    op: Operation, bundle: Bundle, shards: Sequence[ShardLayout | None], loc: SourceLoc | None
) -> None:
    """A tensor-backed DFB's tensor must be L1-sharded, with shards that hold its range
    (the launch checks it too; here the error is located at the call)."""
    tensors = {t.name: i for i, t in enumerate(bundle.tensors)}
    for cfg in bundle.dfbs:
        if cfg.backing is None:
            continue
        i = tensors[cfg.backing]
        layout = shards[i] if i < len(shards) else None
        if layout is None:
            raise TTLCompileError(
                f"DFB '{cfg.name}' of operation '{op.name}' is backed by tensor "
                f"'{cfg.backing}' (ttl.make_tensor_backed_dfb), which is interleaved here, "
                "not L1-sharded",
                loc,
                f"give '{cfg.backing}' a HEIGHT_SHARDED, WIDTH_SHARDED or BLOCK_SHARDED memory "
                'config in ttnn.BufferType.L1 (ttnn.md, "L1-sharded tensors")',
            )
        shard = layout.shard_bytes(cfg.page_size)
        if cfg.byte_offset + cfg.size > shard:
            raise TTLCompileError(
                f"DFB '{cfg.name}' of operation '{op.name}' needs bytes {cfg.byte_offset}.."
                f"{cfg.byte_offset + cfg.size} of the shard of tensor '{cfg.backing}', which "
                f"has {shard} bytes per node",
                loc,
                "use a smaller block_count, shape or byte_offset, or larger shards",
            )


def _mesh_size(
    op: Operation, params: list[str], tensors: Sequence[Any], loc: SourceLoc | None
) -> int:
    """How many devices the call runs on: the mesh of its ttnn tensors (1 without one).

    Tensors on different devices, or host tensors next to mesh tensors, are an error.
    """
    placed = [
        (name, t.__ttl_device__(), t.__ttl_shards__())
        for name, t in zip(params, tensors, strict=True)
        if hasattr(t, "__ttl_shards__")
    ]
    if not placed:
        return 1
    hint = (
        "put every tensor of one call on the same device or mesh "
        "(ttnn.from_torch(..., device=mesh_device, mesh_mapper=...))"
    )
    first, _, count = placed[0]
    for name, _, other in placed[1:]:
        if other != count:
            raise TTLCompileError(
                f"tensors '{first}' ({count} device(s)) and '{name}' ({other} device(s)) of "
                f"operation '{op.name}' are spread over different numbers of devices",
                loc,
                hint,
            )
    on_device = [(name, dev) for name, dev, _ in placed if dev is not None]
    for name, dev in on_device[1:]:
        if dev is not on_device[0][1]:
            raise TTLCompileError(
                f"tensors '{on_device[0][0]}' ({on_device[0][1]!r}) and '{name}' ({dev!r}) of "
                f"operation '{op.name}' are on different devices",
                loc,
                hint,
            )
    return count


def _specs(
    op: Operation,
    params: list[str],
    arrays: list[Any],
    loc: SourceLoc | None,
    logical: Mapping[str, tuple[int, ...] | None],
) -> dict[str, TensorSpec | ConstantParam]:
    """Parameter name -> spec of the tensor passed for it (with a ttnn tensor's logical
    shape from ``logical``); clear errors for unusable tensors."""
    specs: dict[str, TensorSpec | ConstantParam] = {}
    for name, array in zip(params, arrays, strict=True):
        if isinstance(array, ConstantParam):
            specs[name] = array
            continue
        try:
            specs[name] = TensorSpec.of(array).with_logical(logical.get(name))
        except ValueError as e:
            raise TTLCompileError(
                f"tensor '{name}' of operation '{op.name}' (shape {tuple(array.shape)}, dtype "
                f"{array.dtype}) cannot be used: {e}",
                loc,
                "TT-Lang tensors are bf16 or float32 with the two innermost dimensions multiples "
                "of 32: convert (e.g. .astype(ml_dtypes.bfloat16), torch .to(torch.bfloat16)) or "
                "pad the tensor",
            ) from None
    return specs


def user_loc() -> SourceLoc | None:
    """The call site in user code: the first frame outside the ttl package."""
    frame: types.FrameType | None = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_TTL_DIR):
        frame = frame.f_back
    if frame is None:
        return None
    line = linecache.getline(frame.f_code.co_filename, frame.f_lineno)
    return SourceLoc(frame.f_code.co_filename, frame.f_lineno, len(line) - len(line.lstrip()))
