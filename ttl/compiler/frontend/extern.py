"""``ttl.call_extern_func`` in kernel bodies: argument checks and ``ttl.call_extern``.

Mixed into :class:`~ttl.compiler.frontend.kernel.KernelCompiler`. Every rule of
the external-functions spec that can be checked from one call is checked
here, at the offending argument, before any IR is built.
"""

from __future__ import annotations

import ast
import os
import struct
from dataclasses import dataclass
from typing import Any

from xdsl.dialects.builtin import BoolAttr, IntegerAttr, i32, i64
from xdsl.ir import Attribute, SSAValue

from ttl import dsl, extern
from ttl._intrinsic import intrinsic_name
from ttl.compiler import dialect as d
from ttl.compiler.frontend.protocol import MixinBase, Reporter
from ttl.compiler.frontend.selectors import Selection, parse_selector
from ttl.compiler.frontend.static_count import static_count
from ttl.compiler.frontend.values import BlockHandle, Dyn, SliceVal

_KEYWORDS = (
    "template_args",
    "func_args",
    "dfb_dependencies",
    "dfb_effects",
    "dfb_accesses",
    "unknown_dfb_access",
    "include_paths",
    "kernel",
    "result_type",
    "condition_result",
)
_EFFECT_KINDS = {
    "extern.effect.reserve": d.DFBEffectKind.RESERVE,
    "extern.effect.push": d.DFBEffectKind.PUSH,
    "extern.effect.wait": d.DFBEffectKind.WAIT,
    "extern.effect.pop": d.DFBEffectKind.POP,
}
_SCALAR_TYPES = {extern.ScalarType.I32: i32, extern.ScalarType.I64: i64}
_RESULT_HINT = "write result_type=ttl.ScalarType.I32 or result_type=ttl.ScalarType.I64, or omit it"

# dfb_accesses entries: the intrinsic each ttl.DFBAccess constructor is, and its kind.
_ACCESSES = {
    "extern.access.inspect": d.DFBEffectKind.INSPECT,
    "extern.access.interface_preserved": d.DFBEffectKind.INTERFACE_PRESERVED,
}


@dataclass(frozen=True)
class DescriptorArg:
    """``ttl.dfb_descriptor(dfb)``."""

    dfb: dsl.DataflowBuffer


@dataclass(frozen=True)
class DfbIdArg:
    """``ttl.get_dfb_id(dfb)``."""

    dfb: dsl.DataflowBuffer


@dataclass(frozen=True)
class RawAddrArg:
    """``ttl.raw_addr(tensor)``."""

    tensor: dsl.TensorArg


@dataclass
class _Dep:
    """One DFB dependency occurrence (dependency order)."""

    dfb: dsl.DataflowBuffer
    node: ast.AST


def float_bits(value: float) -> int:
    """The binary32 bit pattern of ``value`` (``1.0`` -> ``1065353216``)."""
    return struct.unpack("<I", struct.pack("<f", value))[0]


def resolve_header(header: str, search: list[str]) -> str | None:
    """The first directory of ``search`` containing ``header``, or None; an absolute
    ``header`` (``os.path.join(os.path.dirname(__file__), "x.hpp")``, as upstream's
    examples write it) is found where it is."""
    if os.path.isabs(header):
        return os.path.dirname(header) if os.path.isfile(header) else None
    for directory in search:
        if os.path.isfile(os.path.join(directory, header)):
            return directory
    return None


def extern_arguments(compiler: Reporter, node: ast.Call) -> dict[str, ast.expr]:
    """Bind a call's arguments to the spec's names (shared with the unified splitter)."""
    if len(node.args) > 2 or any(isinstance(a, ast.Starred) for a in node.args):
        compiler.fail(
            "ttl.call_extern_func() takes two positional arguments (header, callee); "
            "the others are keyword-only",
            node,
            'write ttl.call_extern_func(HEADER, "name", func_args=[...], kernel=...)',
        )
    kw: dict[str, ast.expr] = dict(zip(("header", "callee"), node.args, strict=False))
    for k in node.keywords:
        if k.arg is None or k.arg not in (*_KEYWORDS, "header", "callee") or k.arg in kw:
            compiler.fail(
                f"ttl.call_extern_func() got an unexpected keyword argument '{k.arg}'",
                k.value,
                f"its keyword arguments are: {', '.join(_KEYWORDS)}",
            )
        kw[k.arg] = k.value
    return kw


class ExternMixin(MixinBase):
    """External calls and their wrappers (mixed into KernelCompiler)."""

    # ------------------------------------------------------------ dispatch
    def call_extern_intrinsic(self, name: str, node: ast.Call) -> Any:
        if name == "extern.call":
            return self.call_extern_func(node)
        if name in ("extern.dfb_descriptor", "extern.get_dfb_id"):
            wrapper = "ttl.dfb_descriptor" if name.endswith("descriptor") else "ttl.get_dfb_id"
            value = self._single_arg(node, wrapper)
            if not isinstance(value, dsl.DataflowBuffer):
                self.fail(
                    f"{wrapper}() takes a dataflow buffer, got {self.describe(value)}",
                    node,
                    f"write {wrapper}(my_dfb) with a DFB created by make_dataflow_buffer_like",
                )
            return DescriptorArg(value) if name.endswith("descriptor") else DfbIdArg(value)
        if name == "extern.raw_addr":
            value = self._single_arg(node, "ttl.raw_addr")
            if not isinstance(value, dsl.TensorArg):
                self.fail(
                    f"ttl.raw_addr() takes a base tensor (an operation parameter), got "
                    f"{self.describe(value)}; slices, views and computed values have no "
                    "buffer address",
                    node,
                    "write ttl.raw_addr(t) with an operation tensor parameter t",
                )
            return RawAddrArg(value)
        self.fail(
            f"{ast.unparse(node.func)}() describes an effect of an external call and is only "
            "valid inside dfb_effects=[...]",
            node,
            "list it in dfb_effects of ttl.call_extern_func(...)",
        )

    def _single_arg(self, node: ast.Call, fname: str) -> Any:
        if len(node.args) != 1 or node.keywords:
            self.fail(f"{fname}() takes exactly one positional argument", node, f"write {fname}(x)")
        return self.visit(node.args[0])

    # ------------------------------------------------------------ the call
    def call_extern_func(self, node: ast.Call) -> Any:
        kw = self._extern_arguments(node)
        header = self._compile_time_str(kw, "header", node)
        callee = self._compile_time_str(kw, "callee", node)
        include_paths = self._include_paths(kw.get("include_paths"))
        self._check_selection(kw.get("kernel"), node)
        result_type, condition = self._result(kw, node)
        deps: list[_Dep] = []
        func_args = self._func_args(kw.get("func_args"), deps)
        template = self._template_args(kw.get("template_args"), deps)
        extra = self._dfb_dependencies(kw.get("dfb_dependencies"), deps)
        effects = self._effects(kw.get("dfb_effects"), deps)
        accesses = self._accesses(kw.get("dfb_accesses"), deps, effects)
        unknown = self._static_bool(kw.get("unknown_dfb_access"), "unknown_dfb_access")
        for t, tnode in template:
            if isinstance(t, DfbIdArg) and not any(dep.dfb is t.dfb for dep in deps):
                self.fail(
                    f"ttl.get_dfb_id({t.dfb.name}) gives only an index; the call does not "
                    f"declare a dependency on '{t.dfb.name}'",
                    tnode,
                    f"pass {t.dfb.name} in func_args, as ttl.dfb_descriptor({t.dfb.name}) or "
                    f"in dfb_dependencies=[{t.dfb.name}]",
                )
        if condition is not None:
            self._check_condition_call(kw, deps, template, unknown, node)
        self._find_header(header, include_paths, kw["header"])
        op = d.CallExternOp(
            header,
            callee,
            template_args=[self._template_attr(t) for t, _ in template],
            func_args=func_args,
            descriptor_dfbs=[
                self.ref(t.dfb, n) for t, n in template if isinstance(t, DescriptorArg)
            ],
            dfb_dependencies=[self.ref(f, n) for f, n in extra],
            dfb_effects=effects + accesses,
            unknown_dfb_access=unknown,
            include_paths=include_paths,
            result_type=result_type,
            condition=condition,
        )
        self.emit(op)
        inspected = {id(deps[a.dependency_index.data].dfb) for a in accesses}
        used = ({id(dep.dfb) for dep in deps} | {id(f) for f, _ in extra}) - inspected
        for h in self.handles:  # the C++ may fill a block it can reach through its DFB
            if id(h.dfb) in used and h.released_line is None:
                h.written = True
        if result_type is None:
            return None
        kind = "int" if result_type == i32 else "i64"
        return Dyn(op.results[0], kind)

    def _extern_arguments(self, node: ast.Call) -> dict[str, ast.expr]:
        kw = extern_arguments(self, node)
        for required in ("header", "callee"):
            if required not in kw:
                self.fail(
                    f"ttl.call_extern_func() is missing its '{required}' argument",
                    node,
                    'write ttl.call_extern_func("path/to/header.hpp", "function_name", ...)',
                )
        return kw

    def static_value(self, expr: ast.expr) -> Any:
        """A compile-time value: string/number literals, literal lists, or captured values."""
        if isinstance(expr, ast.Constant):
            return expr.value
        if isinstance(expr, ast.List | ast.Tuple):
            return [self.static_value(e) for e in expr.elts]
        return self.visit(expr)

    def _compile_time_str(self, kw: dict[str, ast.expr], name: str, node: ast.Call) -> str:
        value = self.static_value(kw[name])
        if not isinstance(value, str) or not value:
            self.fail(
                f"'{name}' of ttl.call_extern_func must be a compile-time string, got "
                f"{self.describe(value)}",
                kw[name],
                f"write a string literal or a captured string constant for {name}",
            )
        return value

    def _static_bool(self, expr: ast.expr | None, name: str) -> bool:
        if expr is None:
            return False
        value = self.static_value(expr)
        if not isinstance(value, bool):
            self.fail(
                f"'{name}' must be True or False, got {self.describe(value)}",
                expr,
                f"write {name}=True or leave it out",
            )
        return value

    def _sequence(self, expr: ast.expr | None, name: str) -> list[tuple[Any, ast.expr]]:
        """Elements (value, node) of a list argument; literal lists keep element positions."""
        if expr is None:
            return []
        if isinstance(expr, ast.List | ast.Tuple):
            return [(self.visit_element(e), e) for e in expr.elts]
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            self.fail(
                f"'{name}' must be a list, got the string {expr.value!r}",
                expr,
                f"write {name}=[{expr.value!r}]",
            )
        value = self.visit(expr)
        if value is None:
            return []
        if not isinstance(value, list | tuple):
            self.fail(
                f"'{name}' must be a list, got {self.describe(value)}",
                expr,
                f"write {name}=[...]",
            )
        return [(v, expr) for v in value]

    def visit_element(self, e: ast.expr) -> Any:
        if isinstance(e, ast.Constant) and isinstance(e.value, str):
            return e.value
        return self.visit(e)

    def _include_paths(self, expr: ast.expr | None) -> list[str]:
        out = []
        for value, enode in self._sequence(expr, "include_paths"):
            if not isinstance(value, str) or not value:
                self.fail(
                    f"include_paths entries must be compile-time directory strings, got "
                    f"{self.describe(value)}",
                    enode,
                    'write include_paths=["path/to/include"] (a literal or captured string)',
                )
            if not os.path.isdir(value):
                # Under Bazel the compiler sees only declared inputs: a directory
                # with no declared header under it does not exist here.
                self.fail(
                    f"include path '{value}' of ttl.call_extern_func is not a directory "
                    "(under Bazel: no declared header lies under it)",
                    enode,
                    "declare the headers under it in `hdrs` (or a cc_library in `deps`) of the "
                    "ttl_operation, or fix the path (relative to the workspace root)",
                )
            out.append(value)
        return out

    def _find_header(self, header: str, include_paths: list[str], node: ast.expr) -> None:
        search = include_paths + list(self.symbols.include_dirs)
        if resolve_header(header, search) is None:
            where = ", ".join(search) if search else "no directories"
            found = _header_elsewhere(header, search, os.path.dirname(self.filename))
            self.fail(
                f"header '{header}' of ttl.call_extern_func was not found (searched: {where})",
                node,
                (
                    f"'{found}' is that header: add include_paths=['{found[: -len(header) - 1]}'] "
                    "(or, for a cc_library in `deps`, includes = [...] naming that directory)"
                )
                if found
                else "declare it in `hdrs`/`deps` of the ttl_operation (Bazel) or pass "
                "--include_dir (ttlc), or add its directory to include_paths=[...]",
            )

    # ------------------------------------------------------------ selectors
    def _check_selection(self, expr: ast.expr | None, node: ast.Call) -> None:
        """In an explicit thread, ``kernel=`` may only name this thread's kernel."""
        if expr is None:  # omitted
            return
        value = self.visit(expr)
        if value is None:  # kernel=None (the default)
            return
        selection: Selection = parse_selector(self, value, expr)
        if not selection.selects(self.thread.kind, self.thread_handle()):
            self.fail(
                f"kernel={ast.unparse(expr)} does not select this "
                f"{'compute' if self.is_compute else 'data-movement'} kernel "
                f"'{self.thread.name}'; the enclosing thread already decides where the call runs",
                expr,
                "omit kernel= inside a thread function, or move the call into the selected thread",
            )

    def thread_handle(self) -> dsl.Kernel | None:
        sel = self.thread.thread.selector if self.thread.thread is not None else None
        return sel if isinstance(sel, dsl.Kernel) else getattr(self.thread, "handle", None)

    # ------------------------------------------------------------ results
    def _result(
        self, kw: dict[str, ast.expr], node: ast.Call
    ) -> tuple[Attribute | None, d.DispatchConditionAttr | None]:
        rexpr, cexpr = kw.get("result_type"), kw.get("condition_result")
        if cexpr is not None:
            cond = self.visit(cexpr)
            if not isinstance(cond, extern.DispatchCondition):
                self.fail(
                    f"condition_result must be a ttl.DispatchCondition, got {self.describe(cond)}",
                    cexpr,
                    "create active = ttl.DispatchCondition(ttl.ScalarType.I64) in the operation "
                    "factory and pass condition_result=active",
                )
            if rexpr is not None:
                self.fail(
                    "condition_result supplies the result type and cannot be combined with "
                    "result_type",
                    rexpr,
                    "remove result_type=; the DispatchCondition's scalar type is the result type",
                )
            ty = _SCALAR_TYPES[cond.scalar_type]
            return ty, d.DispatchConditionAttr(self.symbols.condition_ordinal(cond), ty)
        if rexpr is None:
            return None, None
        value = self.static_value(rexpr)
        if value is None:
            return None, None
        if value is extern.ScalarType:
            self.fail(
                "result_type=ttl.ScalarType is the class, not a scalar type",
                rexpr,
                _RESULT_HINT,
            )
        if not isinstance(value, extern.ScalarType):
            self.fail(
                f"result_type must be a ttl.ScalarType member, got {value!r}",
                rexpr,
                _RESULT_HINT,
            )
        return _SCALAR_TYPES[value], None

    def _check_condition_call(
        self,
        kw: dict[str, ast.expr],
        deps: list[_Dep],
        template: list[tuple[Any, ast.expr]],
        unknown: bool,
        node: ast.Call,
    ) -> None:
        hint = (
            "a condition-result call evaluates a pure runtime condition: remove DFB arguments, "
            "descriptors, indices, dfb_dependencies, dfb_effects, dfb_accesses and "
            "unknown_dfb_access"
        )
        for name in ("dfb_dependencies", "dfb_effects", "dfb_accesses"):
            if name in kw and self._sequence_nonempty(kw[name]):
                self.fail(f"a condition_result call cannot declare {name}", kw[name], hint)
        if unknown:
            self.fail(
                "a condition_result call cannot set unknown_dfb_access=True",
                kw["unknown_dfb_access"],
                hint,
            )
        if deps:
            self.fail(
                f"a condition_result call cannot depend on DFB '{deps[0].dfb.name}'",
                deps[0].node,
                hint,
            )
        for t, tnode in template:
            if isinstance(t, DfbIdArg):
                self.fail("a condition_result call cannot carry a DFB index", tnode, hint)

    @staticmethod
    def _sequence_nonempty(expr: ast.expr) -> bool:
        return not (isinstance(expr, ast.List | ast.Tuple) and not expr.elts) and not (
            isinstance(expr, ast.Constant) and expr.value is None
        )

    # ------------------------------------------------------------ arguments
    def _func_args(self, expr: ast.expr | None, deps: list[_Dep]) -> list[SSAValue]:
        out: list[SSAValue] = []
        for value, enode in self._sequence(expr, "func_args"):
            out.append(self._func_arg(value, enode, deps))
        return out

    def _func_arg(self, value: Any, enode: ast.expr, deps: list[_Dep]) -> SSAValue:
        if isinstance(value, dsl.DataflowBuffer):
            deps.append(_Dep(value, enode))
            return self.ref(value, enode)
        if isinstance(value, RawAddrArg):
            tensor = self.ref(value.tensor, enode)
            return self.emit(d.RawAddrOp(tensor)).results[0]
        if isinstance(value, dsl.TensorArg):
            if self.is_compute:
                self.fail(
                    f"tensor '{value.name}' becomes a TensorAccessor, which exists only in "
                    "data-movement kernels",
                    enode,
                    f"pass ttl.raw_addr({value.name}) for its buffer address, or select a "
                    "data-movement kernel",
                )
            if value.dtype not in ("bf16", "f32", "bfp8"):
                self.fail(
                    f"tensor '{value.name}' ({value.dtype}) cannot be a TensorAccessor argument",
                    enode,
                    "pass a tiled bf16, fp32 or bfp8 tensor, or ttl.raw_addr(t)",
                )
            return self.ref(value, enode)
        if isinstance(value, Dyn) and value.kind in ("int", "i64"):
            return value.value
        if isinstance(value, int) and not isinstance(value, bool):
            return self.to_ssa(value, enode)
        if isinstance(value, SliceVal | BlockHandle) or type(value).__module__.endswith(
            "block_expr"
        ):
            what = "a tensor slice" if isinstance(value, SliceVal) else self.describe(value)
            self.fail(
                f"{what} is not a valid external function argument",
                enode,
                "pass a base tensor, ttl.raw_addr(tensor), a DFB or an integer scalar",
            )
        if isinstance(value, DfbIdArg | DescriptorArg):
            self.fail(
                f"{ast.unparse(enode)} is a template argument, not a function argument",
                enode,
                "move it to template_args=[...], or pass the DFB itself in func_args for its "
                "physical index parameter",
            )
        self.fail(
            f"{self.describe(value)} is not a valid external function argument",
            enode,
            "func_args accepts integer scalars, DFBs, base tensors and ttl.raw_addr(tensor)",
        )

    def _template_args(self, expr: ast.expr | None, deps: list[_Dep]) -> list[tuple[Any, ast.expr]]:
        out = []
        for value, enode in self._sequence(expr, "template_args"):
            if isinstance(value, dsl.DataflowBuffer):
                self.fail(
                    f"a bare DFB ('{value.name}') is not a valid template argument",
                    enode,
                    f"write ttl.dfb_descriptor({value.name}) for its typed allocation metadata "
                    f"or ttl.get_dfb_id({value.name}) for its physical index",
                )
            if isinstance(value, DescriptorArg):
                deps.append(_Dep(value.dfb, enode))
            elif not isinstance(value, DfbIdArg | bool | int | float):
                what = "a runtime value" if isinstance(value, Dyn) else self.describe(value)
                self.fail(
                    f"{what} is not a valid template argument",
                    enode,
                    "template_args accepts compile-time int, bool and float values, "
                    "ttl.dfb_descriptor(dfb) and ttl.get_dfb_id(dfb)",
                )
            out.append((value, enode))
        return out

    def _template_attr(self, value: Any) -> Attribute:
        if isinstance(value, DescriptorArg):
            return d.DFBDescriptorAttr(value.dfb.name)
        if isinstance(value, DfbIdArg):
            return d.DFBIdAttr(value.dfb.name)
        if isinstance(value, bool):
            return BoolAttr.from_bool(value)
        if isinstance(value, int):
            return IntegerAttr(value, i64)
        return d.FloatBitsAttr(float_bits(value))

    def _dfb_dependencies(
        self, expr: ast.expr | None, deps: list[_Dep]
    ) -> list[tuple[dsl.DataflowBuffer, ast.expr]]:
        automatic = list(deps)
        out: list[tuple[dsl.DataflowBuffer, ast.expr]] = []
        for value, enode in self._sequence(expr, "dfb_dependencies"):
            if not isinstance(value, dsl.DataflowBuffer):
                self.fail(
                    f"dfb_dependencies entries must be DFBs, got {self.describe(value)}",
                    enode,
                    "list the DFBs the external C++ uses, e.g. dfb_dependencies=[out_dfb]",
                )
            if any(f is value for f, _ in out):
                self.fail(
                    f"DFB '{value.name}' is listed twice in dfb_dependencies",
                    enode,
                    "list each DFB once",
                )
            if any(dep.dfb is value for dep in automatic):
                self.fail(
                    f"DFB '{value.name}' is already a dependency through func_args or "
                    "ttl.dfb_descriptor",
                    enode,
                    f"remove {value.name} from dfb_dependencies",
                )
            out.append((value, enode))
            deps.append(_Dep(value, enode))
        return out

    # ------------------------------------------------------------ accesses
    def _accesses(
        self, expr: ast.expr | None, deps: list[_Dep], effects: list[d.DFBEffectAttr]
    ) -> list[d.DFBEffectAttr]:
        """``dfb_accesses=[ttl.DFBAccess.inspect(dfb), ...]`` (or ``interface_preserved``):
        one typed access per named dependency, which lists no protocol effect."""
        if expr is None or (isinstance(expr, ast.Constant) and expr.value is None):
            return []
        if not isinstance(expr, ast.List):
            self.fail(
                "dfb_accesses must be a literal list of ttl.DFBAccess accesses",
                expr,
                "write dfb_accesses=[ttl.DFBAccess.inspect(dfb)]",
            )
        out: list[d.DFBEffectAttr] = []
        for e in expr.elts:
            name = intrinsic_name(self.visit(e.func)) if isinstance(e, ast.Call) else None
            kind = _ACCESSES.get(name or "")
            if not isinstance(e, ast.Call) or kind is None:
                self.fail(
                    f"'{ast.unparse(e)}' is not a DFB access",
                    e,
                    "use ttl.DFBAccess.inspect(dfb); protocol actions go in dfb_effects",
                )
            what = f"ttl.DFBAccess.{kind.value}()"
            if len(e.args) != 1 or e.keywords:
                self.fail(f"{what} takes one DFB", e, f"write ttl.DFBAccess.{kind.value}(dfb)")
            dfb = self.visit(e.args[0])
            matches = [i for i, dep in enumerate(deps) if dep.dfb is dfb]
            if not isinstance(dfb, dsl.DataflowBuffer) or not matches:
                named = (
                    f"DFB '{dfb.name}'"
                    if isinstance(dfb, dsl.DataflowBuffer)
                    else (self.describe(dfb))
                )
                self.fail(
                    f"{what} names {named}, which is not a DFB dependency of this call",
                    e.args[0],
                    "pass the DFB in func_args, as ttl.dfb_descriptor(dfb) or in "
                    "dfb_dependencies=[dfb]",
                )
            index = matches[0]
            if any(x.dependency_index.data == index for x in effects):
                self.fail(
                    f"DFB '{dfb.name}' has protocol effects in dfb_effects and an access in "
                    "dfb_accesses: one dependency declares one or the other",
                    e,
                    "keep its dfb_effects (they describe what the callee does), or its access",
                )
            if any(x.dependency_index.data == index for x in out):
                self.fail(f"DFB '{dfb.name}' is listed twice in dfb_accesses", e, "list it once")
            out.append(d.DFBEffectAttr(kind, index, 0))
        return out

    # ------------------------------------------------------------ effects
    def _effects(self, expr: ast.expr | None, deps: list[_Dep]) -> list[d.DFBEffectAttr]:
        if expr is None or (isinstance(expr, ast.Constant) and expr.value is None):
            return []
        if not isinstance(expr, ast.List | ast.Tuple):
            self.fail(
                "dfb_effects must be a literal list of ttl.DFBEffect actions",
                expr,
                "write dfb_effects=[ttl.DFBEffect.wait(dfb, tiles=1), ...]",
            )
        out: list[d.DFBEffectAttr] = []
        self._expand_effects(expr.elts, deps, out)
        return out

    def _expand_effects(
        self, elts: list[ast.expr], deps: list[_Dep], out: list[d.DFBEffectAttr]
    ) -> None:
        for e in elts:
            name = intrinsic_name(self.visit(e.func)) if isinstance(e, ast.Call) else None
            if isinstance(e, ast.Call) and name == "extern.effect.repeat":
                self._repeat(e, deps, out)
            elif isinstance(e, ast.Call) and name in _EFFECT_KINDS:
                self._effect(name, e, deps, out)
            else:
                self.fail(
                    f"'{ast.unparse(e)}' is not a DFB effect",
                    e,
                    "use ttl.DFBEffect.reserve/push/wait/pop(dfb, tiles=N) or "
                    "ttl.DFBEffect.repeat(count, [...])",
                )

    def _append_effects(
        self, out: list[d.DFBEffectAttr], new: list[d.DFBEffectAttr], node: ast.AST
    ) -> None:
        if len(out) + len(new) > d.MAX_DFB_EFFECTS:
            self.fail(
                f"dfb_effects expands to more than {d.MAX_DFB_EFFECTS} actions; this is a "
                "compiler resource limit on effect materialization and analysis, not a "
                "hardware limit",
                node,
                "summarize fewer actions per call (split the work into several calls) or omit "
                "dfb_effects so the dependency stays opaque",
            )
        out.extend(new)

    def _repeat(self, e: ast.Call, deps: list[_Dep], out: list[d.DFBEffectAttr]) -> None:
        if len(e.args) != 2 or e.keywords:
            self.fail(
                "ttl.DFBEffect.repeat() takes (count, [effects])",
                e,
                "write ttl.DFBEffect.repeat(n, [ttl.DFBEffect.wait(dfb, tiles=1), ...])",
            )
        count = static_count(self, e.args[0], "repeat count")
        if count < 0:
            self.fail(
                f"repeat count must be non-negative, got {count}",
                e.args[0],
                "use a count >= 0",
            )
        body = e.args[1]
        if not isinstance(body, ast.List | ast.Tuple) or not body.elts:
            self.fail(
                "ttl.DFBEffect.repeat() needs a nonempty literal list of effects",
                body,
                "write ttl.DFBEffect.repeat(n, [ttl.DFBEffect.wait(dfb, tiles=1), ...])",
            )
        once: list[d.DFBEffectAttr] = []
        self._expand_effects(body.elts, deps, once)
        if once and count > d.MAX_DFB_EFFECTS:
            self._append_effects(out, once * (d.MAX_DFB_EFFECTS + 1), e)
        self._append_effects(out, once * count, e)

    def _effect(self, name: str, e: ast.Call, deps: list[_Dep], out: list[d.DFBEffectAttr]) -> None:
        fname = "ttl.DFBEffect." + name.rsplit(".", 1)[1]
        tiles_kw = [k for k in e.keywords if k.arg == "tiles"]
        if len(e.args) != 1 or len(e.keywords) != 1 or not tiles_kw:
            self.fail(
                f"{fname}() takes a DFB and tiles=N",
                e,
                f"write {fname}(dfb, tiles=1)",
            )
        dfb = self.visit(e.args[0])
        if not isinstance(dfb, dsl.DataflowBuffer):
            self.fail(
                f"{fname}() names a DFB, got {self.describe(dfb)}",
                e.args[0],
                "name one of the call's DFB dependencies",
            )
        matches = [i for i, dep in enumerate(deps) if dep.dfb is dfb]
        if not matches:
            self.fail(
                f"effect on DFB '{dfb.name}', which is not a dependency of this call",
                e.args[0],
                f"declare it: pass {dfb.name} in func_args, as ttl.dfb_descriptor({dfb.name}) "
                f"or in dfb_dependencies=[{dfb.name}]",
            )
        tiles = static_count(self, tiles_kw[0].value, "tiles")
        capacity = dfb.tiles_per_block * dfb.block_count
        if tiles <= 0 or tiles > capacity:
            self.fail(
                f"tiles={tiles} must be positive and at most the capacity of '{dfb.name}' "
                f"({capacity} tiles)",
                tiles_kw[0].value,
                f"use 1 <= tiles <= {capacity}",
            )
        kind = _EFFECT_KINDS[name]
        self._append_effects(out, [d.DFBEffectAttr(kind, matches[0], tiles)], e)


_HEADER_WALK_LIMIT = 5000  # directory entries looked at for a misplaced header


def _header_elsewhere(header: str, searched: list[str], source_dir: str) -> str | None:
    """A file whose path ends with ``header`` (as a whole path component sequence), near
    the searched directories or under the program's directory: the include path that
    was meant is its path without ``header``."""
    suffix = "/" + header.strip("/")
    for directory in searched:  # a directory of declared headers, one level too deep
        candidate = os.path.normpath(os.path.join(directory, os.path.basename(header)))
        if candidate.endswith(suffix) and os.path.isfile(candidate):
            return candidate
    seen = 0
    for root, dirs, files in os.walk(source_dir or "."):
        dirs.sort()
        for name in sorted(files):
            path = os.path.normpath(os.path.join(root, name))
            if path.endswith(suffix):
                return path
        seen += len(files) + len(dirs)
        if seen > _HEADER_WALK_LIMIT:
            return None
    return None
