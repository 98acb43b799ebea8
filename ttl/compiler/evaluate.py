"""Top-level evaluation: run an operation body with tensor specs.

The operation function is called with :class:`ttl.dsl.TensorArg` proxies so
shape arithmetic, ``ttl.grid_size`` and DFB creation run as ordinary Python,
as TT-Lang does. Kernel functions are recorded by their decorators and never
called. The result is an :class:`OperationModel` the kernel frontend compiles.
"""

from __future__ import annotations

import ast
import inspect
import sys
import traceback
import types
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from ttl.compiler.analysis.kernels import resolve_thread_kernels
from ttl.compiler.compute_config import ComputeConfig
from ttl.compiler.lost_kernels import check_lost_kernels
from ttl.compiler.model import OperationModel, ThreadModel
from ttl.compiler.per_node import node_order
from ttl.dsl import (
    _CONTEXT,
    DataflowBuffer,
    EvalContext,
    TensorArg,
)
from ttl.errors import SourceLoc, TTLCompileError
from ttl.identity import bind_handles
from ttl.operation import Operation
from ttl.options import CompilerOptions
from ttl.semaphore import Semaphore
from ttl.source import function_def, node_loc
from ttl.specs import ConstantParam, param_spec
from ttl.targets import TARGETS, Target, parse_grid


def resolve_grid(request: Any, target: Target, loc: SourceLoc) -> tuple[int, int]:
    """The concrete (x, y) grid for ``request`` on ``target``; diagnoses oversize grids."""
    try:
        grid = parse_grid(request)
    except ValueError as e:
        raise TTLCompileError(str(e), loc, 'write grid=(x, y) or grid="full"') from None
    if isinstance(grid, str):  # parse_grid returns no string but "full"
        return target.full_grid
    if not 1 <= len(grid) <= 2 or not all(isinstance(g, int) and g > 0 for g in grid):
        raise TTLCompileError(
            f"grid must be one or two positive integers, got {request!r}",
            loc,
            'write grid=(x, y), e.g. grid=(4, 4), or grid="full"',
        )
    x, y = (grid[0], grid[1]) if len(grid) == 2 else (grid[0], 1)
    fx, fy = target.full_grid
    if x > fx or y > fy:
        fits = [t for t in TARGETS.values() if x <= t.full_grid[0] and y <= t.full_grid[1]]
        other = (
            f"; or compile for the {fits[0].name} target, whose grid is {fits[0].full_grid} "
            f'(ttl run --target={fits[0].name}, or target = "{fits[0].name}" in Bazel)'
            if fits
            else ""
        )
        raise TTLCompileError(
            f"grid ({x}, {y}) is larger than the {target.name} grid ({fx}, {fy})",
            loc,
            f'use a grid of at most ({fx}, {fy}), or grid="full" to take the whole device' + other,
        )
    return (x, y)


#: Parameter annotations of an expand-only operation (spec v0.19, "Composing operations").
_EXPAND_ONLY_TYPES = {"ttl.DFB", "DFB", "ttl.DataflowBuffer", "ttl.PipeNet", "PipeNet"}


def _refuse_expand_only(op: Operation, def_node: ast.FunctionDef, filename: str) -> None:
    """An operation whose parameters are DFBs or pipe nets cannot be called or compiled on
    its own: nothing at a TT-NN call site supplies them."""
    for a in def_node.args.args:
        if a.annotation is not None and ast.unparse(a.annotation) in _EXPAND_ONLY_TYPES:
            raise TTLCompileError(
                f"operation '{op.name}' is expand-only: its parameter '{a.arg}' is a "
                f"{ast.unparse(a.annotation)}, which no TT-NN call site can supply (spec "
                "v0.19, composing operations)",
                node_loc(filename, a),
                f"compose it into another operation: call {op.name}(...) as a statement of "
                "that operation's body, with its DFBs",
            )


def bind_specs(
    op: Operation, specs: Mapping[str, Any] | list[Any]
) -> list[TensorArg | ConstantParam]:
    """Match specs to the operation's parameters (by name or by position), in parameter
    order: a tensor's spec, or a compile-time parameter's value (:class:`ConstantParam`).
    Tensors are numbered in order among themselves: their runtime argument index."""
    filename, def_node = function_def(op.fn)
    params = list(inspect.signature(op.fn).parameters)
    loc = node_loc(filename, def_node)
    _refuse_expand_only(op, def_node, filename)
    if isinstance(specs, list):
        if len(specs) != len(params):
            raise TTLCompileError(
                f"operation '{op.name}' takes {len(params)} parameters ({', '.join(params)}) "
                f"but was given {len(specs)}",
                loc,
                "pass one tensor or compile-time constant per parameter, in order",
            )
        specs = dict(zip(params, specs, strict=True))
    unknown = sorted(set(specs) - set(params))
    if unknown:
        raise TTLCompileError(
            f"'{unknown[0]}' is not a parameter of operation '{op.name}' "
            f"(parameters: {', '.join(params)})",
            loc,
            "name each tensor after an operation parameter, e.g. --arg "
            f"{params[0] if params else 'x'}=bf16[64,64]",
        )
    args: list[TensorArg | ConstantParam] = []
    for name in params:
        if name not in specs:
            raise TTLCompileError(
                f"operation '{op.name}' parameter '{name}' has no tensor spec",
                loc,
                f"give it one, e.g. --arg {name}=bf16[64,64] or specs={{'{name}': 'bf16[64,64]'}}",
            )
        try:
            spec = param_spec(specs[name])
        except (ValueError, TypeError, AttributeError) as e:
            given = specs[name]
            what = (
                "parameter" if isinstance(given, str) and given.startswith("const:") else "tensor"
            )
            raise TTLCompileError(
                f"{what} '{name}' of operation '{op.name}' has an invalid spec: {e}",
                loc,
                "write a tensor spec like bf16[256,512] or f32[64,64], or a compile-time "
                "constant like const:(2, 2)",
            ) from None
        if isinstance(spec, ConstantParam):
            args.append(spec)
        else:
            args.append(TensorArg(name, spec, sum(isinstance(a, TensorArg) for a in args)))
    return args


def tensor_args(args: list[TensorArg | ConstantParam]) -> list[TensorArg]:
    """The tensors among bound parameters."""
    return [a for a in args if isinstance(a, TensorArg)]


def check_tensors(op: Operation, specs: Mapping[str, Any], tensors: list[Any]) -> None:
    """Check arguments passed to a compiled operation against the specs it was compiled for."""
    bound = bind_specs(op, specs)
    actual = bind_specs(op, list(tensors))
    filename, def_node = function_def(op.fn)
    params = list(inspect.signature(op.fn).parameters)
    for name, want, got in zip(params, bound, actual, strict=True):
        want_spec = want.spec if isinstance(want, TensorArg) else want
        got_spec = got.spec if isinstance(got, TensorArg) else got
        if want_spec != got_spec:
            what = "tensor" if isinstance(want, TensorArg) else "parameter"
            raise TTLCompileError(
                f"{what} '{name}' is {got_spec} but operation '{op.name}' was compiled "
                f"for {want_spec}",
                node_loc(filename, def_node),
                f"pass {want_spec}, or recompile with --arg {name}={got_spec}",
            )


class _TopLevel(Protocol):
    """What top-level evaluation calls: an Operation, or a unified one's ``HostRun``."""

    @property
    def fn(self) -> Callable[..., Any]: ...
    @property
    def name(self) -> str: ...
    @property
    def loc(self) -> SourceLoc: ...


def _run_top_level(
    op: _TopLevel, args: list[TensorArg | ConstantParam], ctx: EvalContext
) -> dict[str, Any]:
    """Call the operation function (a compile-time parameter bound to its value); return
    its locals at return."""
    captured: dict[str, Any] = {}
    code = op.fn.__code__

    def profile(frame: types.FrameType, event: str, arg: Any) -> None:
        if event == "return" and frame.f_code is code:
            captured.update(frame.f_locals)

    token = _CONTEXT.set(ctx)
    old = sys.getprofile()
    sys.setprofile(profile)
    try:
        op.fn(*(a.value if isinstance(a, ConstantParam) else a for a in args))
    except TTLCompileError:
        raise
    except Exception as e:
        frames = [
            f for f in traceback.extract_tb(e.__traceback__) if f.filename == code.co_filename
        ]
        where = frames[-1] if frames else None
        loc = SourceLoc(where.filename, where.lineno or 0, where.colno or 0) if where else op.loc
        on = f" on node {ctx.node}" if ctx.node_used else ""
        hint = "the top level runs with tensor specs (shape, dtype); check shape arithmetic"
        if isinstance(e, AssertionError):
            hint = (
                "the assert must hold on every node: the top level runs once per node"
                if ctx.node_used
                else "the assert must hold for the specs (shape, dtype) it is compiled for"
            )
        raise TTLCompileError(
            f"evaluating the top level of operation '{op.name}'{on} raised {type(e).__name__}: {e}",
            loc,
            hint,
        ) from None
    finally:
        _restore_profiler(old)
        _CONTEXT.reset(token)
    return captured


def _restore_profiler(old: Any) -> None:
    """Reinstall the profiler that was active before top-level evaluation: a Python
    function through ``sys.setprofile``, a C profiler (``cProfile.Profile``, whose object
    is what ``sys.getprofile`` returns, and which is not callable) through ``enable()``."""
    if old is not None and not callable(old) and hasattr(old, "enable"):
        old.enable()
    else:
        sys.setprofile(old)


def _name_dfbs(dfbs: list[DataflowBuffer], local_vars: dict[str, Any]) -> None:
    names: dict[int, str] = {}
    for name in sorted(local_vars):
        value = local_vars[name]
        if isinstance(value, DataflowBuffer) and value.order not in names:
            names[value.order] = name
    for dfb in dfbs:
        dfb.name = names.get(dfb.order, f"dfb{dfb.order}")


def _name_semaphores(semaphores: list[Any], local_vars: dict[str, Any]) -> None:
    for name in sorted(local_vars, reverse=True):  # the first name in order wins
        value = local_vars[name]
        if isinstance(value, Semaphore):
            value.name = name


def _evaluate_per_node(
    op: _TopLevel,
    args: list[TensorArg | ConstantParam],
    ctx: EvalContext,
    threads: list[ThreadModel],
) -> None:
    """Run the top level once more for every other node (it called ``ttl.node()``) and
    give each kernel the functions those runs defined; what the runs declare must agree."""
    runs = []
    for coord in node_order(ctx.grid)[1:]:
        node_ctx = EvalContext(grid=ctx.grid, node=coord)
        _run_top_level(op, args, node_ctx)
        differs = _declarations(node_ctx) != _declarations(ctx)
        if differs:
            raise TTLCompileError(
                f"the top level of operation '{op.name}' declares different kernels, dataflow "
                f"buffers or semaphores on node {coord} than on node (0, 0)",
                op.loc,
                "ttl.node() at the top level may change values the kernels use, not what the "
                "operation declares; declare the same objects on every node",
            )
        runs.append(node_ctx)
    for i, model in enumerate(threads):
        model.node_fns = tuple(r.threads[i].fn for r in runs)
        model.grid = ctx.grid


def _declarations(ctx: EvalContext) -> tuple[Any, ...]:
    return (
        [(t.kind, t.fn.__name__) for t in ctx.threads],
        [(f.tensor.name if f.tensor else f.dtype, f.shape, f.block_count) for f in ctx.dfbs],
        [s.initial_value for s in ctx.semaphores],
    )


def _thread_models(op: Operation, ctx: EvalContext) -> list[ThreadModel]:
    models: list[ThreadModel] = []
    seen: dict[str, ThreadModel] = {}
    for thread in ctx.threads:
        filename, def_node = function_def(thread.fn)
        loc = node_loc(filename, def_node)
        a = def_node.args
        if a.posonlyargs or a.args or a.vararg or a.kwonlyargs or a.kwarg:
            raise TTLCompileError(
                f"kernel function '{def_node.name}' must not take parameters",
                loc,
                "write 'def " + def_node.name + "():' and capture values from the operation "
                "body (define them before the kernel function)",
            )
        if def_node.name in seen:
            raise TTLCompileError(
                f"two kernel functions are named '{def_node.name}' in operation '{op.name}'",
                loc,
                "give each kernel function a distinct name",
            )
        model = ThreadModel(def_node.name, thread.kind, thread, filename, def_node)
        seen[def_node.name] = model
        models.append(model)
    resolve_thread_kernels(op, models)
    return models


def _evaluate_host_only(
    op: Operation,
    filename: str,
    def_node: ast.FunctionDef,
    args: list[TensorArg | ConstantParam],
    ctx: EvalContext,
    target: Target,
    compute: ComputeConfig,
    options: CompilerOptions,
) -> OperationModel:
    """An operation with no kernel work (``unified.is_host_only``): its body runs on the
    host for every node (``ttl.node()`` gives that node's coordinates), so its asserts
    hold on each; the model has no kernels."""
    local_vars = _run_top_level(op, args, ctx)
    _name_dfbs(ctx.dfbs, local_vars)
    _name_semaphores(ctx.semaphores, local_vars)
    if ctx.node_used:  # the first run was node (0, 0)'s
        for coord in node_order(ctx.grid)[1:]:
            _run_top_level(op, args, EvalContext(grid=ctx.grid, node=coord))
    return OperationModel(
        name=op.name,
        filename=filename,
        def_node=def_node,
        loc=op.loc,
        grid=ctx.grid,
        target=target,
        tensors=tensor_args(args),
        dfbs=list(ctx.dfbs),
        threads=[],
        identity=op.identity,
        compute=compute,
        options=options,
    )


def compute_config(op: Operation, args: list[TensorArg], options: CompilerOptions) -> ComputeConfig:
    """The operation's DST mode: fp32 accumulation defaults to on when any tensor is f32
    (as tt-lang does), full sync to off."""
    fp32 = op.fp32_dest_acc_en
    if fp32 is None:
        fp32 = any(a.spec.dtype == "f32" for a in args)
    return ComputeConfig(
        fp32_dest_acc_en=fp32,
        dst_full_sync_en=bool(op.dst_full_sync_en),
        maximize_dst=options.maximize_dst,
        fpu_binary_ops=options.enable_fpu_binary_ops,
    )


def evaluate_operation(
    op: Operation,
    specs: Mapping[str, Any] | list[Any],
    target: Target,
    grid_override: Any = None,
    options: CompilerOptions | None = None,
) -> OperationModel:
    """Run the operation's top level for ``specs`` on ``target``.

    ``options`` override the decorator's ``options=`` field by field.
    """
    filename, def_node = function_def(op.fn)
    args = bind_specs(op, specs)
    if grid_override is None:
        grid = resolve_grid(op.grid, target, op.loc)
    else:  # a build/CLI override: point at the operation, say where the grid came from
        try:
            grid = resolve_grid(grid_override, target, op.loc)
        except TTLCompileError as e:
            raise TTLCompileError(f"the grid override: {e.message}", op.loc, e.hint) from None
    merged = op.options.merge(options) if options is not None else op.options
    compute = compute_config(op, tensor_args(args), merged)
    ctx = EvalContext(grid=grid)
    from ttl.compiler.frontend import unified  # lazy: the frontend imports this module

    if unified.is_host_only(op, def_node):
        return _evaluate_host_only(op, filename, def_node, args, ctx, target, compute, merged)
    is_unified = unified.is_unified(op, def_node)
    runner = unified.HostRun(op, filename, def_node) if is_unified else op
    local_vars = _run_top_level(runner, args, ctx)
    tensors = tensor_args(args)
    _name_dfbs(ctx.dfbs, local_vars)
    _name_semaphores(ctx.semaphores, local_vars)
    if ctx.node_used and is_unified:
        raise TTLCompileError(
            f"operation '{op.name}' calls ttl.node() at its top level, which is supported "
            "in operations with @ttl.compute()/@ttl.datamovement() kernel functions only",
            op.loc,
            "call ttl.node() inside the unified body where you use it",
        )
    # Handles declared by a static top-level assignment in the body bind here.
    bind_handles(op, [(n, local_vars[n]) for n in sorted(local_vars)])
    if is_unified:
        threads, split_plan = unified.unified_threads(op, filename, def_node, local_vars)
    else:
        threads, split_plan = _thread_models(op, ctx), None
        check_lost_kernels(
            op.name,
            filename,
            def_node,
            {t.name for t in threads},
            {a.name: a for a in tensors},
            local_vars,
        )
        if ctx.node_used:
            _evaluate_per_node(runner, args, ctx, threads)
    return OperationModel(
        name=op.name,
        filename=filename,
        def_node=def_node,
        loc=op.loc,
        grid=grid,
        target=target,
        tensors=tensors,
        dfbs=list(ctx.dfbs),
        threads=threads,
        split_plan=split_plan,
        identity=op.identity,
        compute=compute,
        options=merged,
        pipe_nets=list(ctx.pipe_nets),
        semaphores=list(ctx.semaphores),
        device_domain=op.device_domain,
        constants={
            name: a.value
            for name, a in zip(inspect.signature(op.fn).parameters, args, strict=True)
            if isinstance(a, ConstantParam)
        },
    )
