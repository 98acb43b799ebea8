"""The compiler pipeline: evaluate -> IR -> passes -> verify -> C++ + manifest.

The IR passes run as one xDSL ``PassPipeline`` (:data:`PIPELINE`, the same
passes ``ttl-opt -p`` runs); ``compile_operation(..., dump_ir_after=...)``
sees the IR after the frontend and after each pass.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import sys
import traceback
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, ModuleOp
from xdsl.ir import Operation as IROperation
from xdsl.passes import ModulePass, PassPipeline
from xdsl.utils.exceptions import VerifyException

from ttl.compiler import dialect as d
from ttl.compiler.analysis.capacity import check_capacity, check_program_capacity
from ttl.compiler.emit.cpp import emit_kernels
from ttl.compiler.evaluate import evaluate_operation
from ttl.compiler.frontend import unified
from ttl.compiler.frontend.module import build_module
from ttl.compiler.manifest import build_manifest, dumps
from ttl.compiler.model import OperationModel
from ttl.compiler.passes.allocate import placements
from ttl.compiler.passes.common import TTLPassError
from ttl.compiler.passes.registry import DEFAULT_PIPELINE, available_passes
from ttl.compiler.plan import build_plan
from ttl.errors import SourceLoc, TTLCompileError
from ttl.operation import Operation
from ttl.options import CompilerOptions
from ttl.source import source_lines
from ttl.targets import DEFAULT_TARGET, get_target

EMIT_KINDS = ("ir", "cpp", "manifest", "plan")

PIPELINE = DEFAULT_PIPELINE
"""The passes run after the frontend, in ``ttl-opt -p`` syntax."""

IRDump = Callable[[str, str], None]
"""``dump_ir_after`` callback: (step, IR text); step is ``frontend`` or a pass name."""


@dataclass
class CompileResult:
    """Everything one compilation produces (texts are deterministic)."""

    module: ModuleOp
    ir: str
    sources: dict[str, str]  # file name -> C++ text, in kernel declaration order
    manifest: dict[str, Any]
    plan: dict[str, Any]

    @property
    def operation_name(self) -> str:
        return self.manifest["operation"]["name"]

    def files(self, emit: str = "all") -> dict[str, str]:
        """Output files (name -> text) for an ``--emit`` choice."""
        kinds = EMIT_KINDS if emit == "all" else (emit,)
        out: dict[str, str] = {}
        if "ir" in kinds:
            out[f"{self.operation_name}.mlir"] = self.ir
        if "cpp" in kinds:
            out.update(self.sources)
        if "manifest" in kinds:
            out["manifest.json"] = dumps(self.manifest)
        if "plan" in kinds:
            out["plan.json"] = json.dumps(self.plan, indent=2, sort_keys=True) + "\n"
        return out

    def write(self, out_dir: str, emit: str = "all") -> list[str]:
        """Write the files of ``emit`` into ``out_dir``; returns their names, sorted."""
        os.makedirs(out_dir, exist_ok=True)
        files = self.files(emit)
        for name in sorted(files):
            with open(os.path.join(out_dir, name), "w", encoding="utf-8", newline="\n") as f:
                f.write(files[name])
        return sorted(files)


def compile_operation(
    op: Operation,
    specs: Mapping[str, Any] | list[Any],
    *,
    target: str | None = None,
    grid: Any = None,
    include_dirs: tuple[str, ...] = (),
    dump_ir_after: IRDump | str | None = None,
    options: CompilerOptions | None = None,
) -> CompileResult:
    """Compile ``op`` for tensor ``specs`` on ``target``.

    ``include_dirs`` is the ordered header search path for external calls
    of ``ttl.call_extern_func`` headers (after each call's ``include_paths``).
    ``dump_ir_after``: a callback ``(step, ir_text)`` called with the IR after
    the frontend (step ``frontend``) and after each pass of :data:`PIPELINE`
    (step = the pass name), or a directory that receives those texts as
    ``00-frontend.mlir``, ``01-<pass>.mlir``, ...
    ``options`` override the decorator's ``ttl.CompilerOptions`` field by field.
    """
    with _deep_recursion():
        return _compile(op, specs, target, grid, include_dirs, dump_ir_after, options)


# The frontend and emitter walk expressions recursively: a 600-term block expression
# nests 600 deep, several frames per level, past Python's default limit of 1000.
_RECURSION_LIMIT = 20_000


@contextlib.contextmanager
def _deep_recursion() -> Iterator[None]:
    saved = sys.getrecursionlimit()
    sys.setrecursionlimit(max(saved, _RECURSION_LIMIT))
    try:
        yield
    finally:
        sys.setrecursionlimit(saved)


def _compile(
    op: Operation,
    specs: Mapping[str, Any] | list[Any],
    target: str | None,
    grid: Any,
    include_dirs: tuple[str, ...],
    dump_ir_after: IRDump | str | None,
    options: CompilerOptions | None,
) -> CompileResult:
    tgt = get_target(target or DEFAULT_TARGET)
    model = evaluate_operation(op, specs, tgt, grid, options)
    check_capacity(model)
    if not model.threads:
        if model.def_node.body and unified.is_host_only(op, model.def_node):
            raise TTLCompileError(
                f"operation '{op.name}' does no kernel work: its body only runs on the host "
                "(ttl.node(), ttl.grid_size(), Python), so there is no bundle to build",
                op.loc,
                "call it from a Python program (ttl run evaluates it on every node), or give "
                "it kernel work: copies, block math or external calls",
            )
        raise TTLCompileError(
            f"operation '{op.name}' defines no kernels: there is nothing to run",
            op.loc,
            "define a kernel function with @ttl.compute() or @ttl.datamovement() in its body",
        )
    module = build_module(model, tuple(include_dirs))
    op_ir = next(iter(module.ops))
    assert isinstance(op_ir, d.OperationOp)
    # The DFBs the kernels use, with the accumulators they added.
    check_capacity(model, {f.sym_name.data for f in op_ir.body.ops if isinstance(f, d.DFBOp)})
    try:
        run_pipeline(module, PIPELINE, _dumper(dump_ir_after))
    except TTLPassError as e:
        raise TTLCompileError(e.message, _locate(e.op, model), e.hint) from None
    try:
        module.verify()
    except VerifyException as e:
        raise TTLCompileError(
            f"internal compiler error: the IR of '{op.name}' does not verify: {e}",
            op.loc,
            "please report this with the operation source",
        ) from None
    source_name = os.path.basename(model.filename)
    sources = emit_kernels(op_ir, tgt, source_lines(model.filename), source_name)
    manifest = build_manifest(op_ir, sources, source_name)
    if model.constants:  # what the bundle was specialised for (docs/manifest.md)
        manifest["operation"]["constants"] = {n: repr(v) for n, v in model.constants.items()}
    check_program_capacity(manifest, model)
    return CompileResult(
        module=module,
        ir=str(module) + "\n",
        sources={s.filename: s.text for s in sources},
        manifest=manifest,
        plan=build_plan(
            op_ir, placements(op_ir), model.split_plan.to_json() if model.split_plan else None
        ),
    )


def run_pipeline(module: ModuleOp, spec: str = PIPELINE, dump: IRDump | None = None) -> None:
    """Run the passes of ``spec`` (``ttl-opt -p`` syntax) on ``module`` in place.

    ``dump(step, ir_text)`` sees the IR before the first pass (step
    ``frontend``) and after each pass (step = its name).
    """

    def callback(done: ModulePass | None, mod: ModuleOp, _next: ModulePass | None) -> None:
        if dump is not None:
            dump(done.name if done is not None else "frontend", str(mod) + "\n")

    PassPipeline.parse_spec(available_passes(), spec, callback).apply(Context(), module)


def _dumper(target: IRDump | str | None) -> IRDump | None:
    """The dump callback for ``dump_ir_after``: itself, or one that writes into a directory."""
    if target is None or callable(target):
        return target
    out_dir = target
    os.makedirs(out_dir, exist_ok=True)
    count = [0]

    def write(step: str, text: str) -> None:
        path = os.path.join(out_dir, f"{count[0]:02d}-{step}.mlir")
        count[0] += 1
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)

    return write


def _locate(op: IROperation, model: OperationModel) -> SourceLoc | None:
    """Where in the Python source a pass diagnostic about ``op`` belongs."""
    if isinstance(op, d.DFBOp):
        for f in model.dfbs:
            if f.name == op.sym_name.data:
                return f.loc
    loc = op.location
    if isinstance(loc, FileLineColLoc) and loc.filename.data == os.path.basename(model.filename):
        return SourceLoc(model.filename, loc.line.data, max(loc.column.data - 1, 0))
    return None


def load_operation(src: str, name: str) -> Operation:
    """Import the Python file ``src`` and return its operation ``name``."""
    path = os.path.abspath(src)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no such source file: {src}")
    digest = hashlib.sha256(path.encode()).hexdigest()[:12]
    mod_name = f"_ttl_src_{digest}"
    module = sys.modules.get(mod_name)
    if module is None:
        spec = importlib.util.spec_from_file_location(mod_name, path)
        if spec is None or spec.loader is None:
            raise FileNotFoundError(src)
        module = importlib.util.module_from_spec(spec)
        sys.modules[mod_name] = module
        try:
            spec.loader.exec_module(module)
        except TTLCompileError:
            del sys.modules[mod_name]
            raise
        except SyntaxError as e:
            del sys.modules[mod_name]
            loc = SourceLoc(path, e.lineno or 0, max((e.offset or 1) - 1, 0))
            raise TTLCompileError(f"invalid Python: {e.msg}", loc, "fix the syntax") from None
        except Exception as e:
            del sys.modules[mod_name]
            frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == path]
            where = frames[-1] if frames else None
            raised_at = SourceLoc(path, where.lineno or 0, where.colno or 0) if where else None
            raise TTLCompileError(
                f"importing {os.path.basename(path)} raised {type(e).__name__}: {e}",
                raised_at,
                "the file must import cleanly; guard scripts with if __name__ == '__main__':",
            ) from None
    value = getattr(module, name, None)
    if not isinstance(value, Operation):
        found = sorted(k for k, v in vars(module).items() if isinstance(v, Operation))
        raise LookupError(
            f"'{name}' is not a @ttl.operation in {src} (operations there: "
            f"{', '.join(found) or 'none'})"
        )
    return value
