"""Unified operations: split one ``@ttl.operation`` body into logical kernels.

A unified body has no thread functions. Its top-level statements are either
*host* statements (shape arithmetic, DFB creation, ``ttl.Kernel`` handles),
evaluated in Python like the top level of an explicit operation, or *work*
(DFB transactions, copies, block math, external calls, and the control flow
and scalars around them), compiled from the AST.

The split plan (:class:`SplitPlan`) is computed once from the AST and is
immutable: for every logical kernel, the filtered statement list it compiles.
Ownership rules (external-functions spec, "DFB synchronization ownership"):

* an external call runs in the kernels its ``kernel=`` selects; a top-level
  call without ``kernel=`` is rejected (placement cannot be inferred from C++);
* ``ttl.copy``, ``tx.wait()`` and element access (``ttl.read_index``,
  ``ttl.raw_element_read``/``write``) belong to the canonical data-movement kernel,
  block math and ``store`` to the canonical compute kernel;
* a ``reserve``/``wait`` acquisition, and its release, belong to the kernel of
  the acquired block's uses; ``push(kernel=)``/``pop(kernel=)`` select it when
  there is no other use, and conflict with inferred ownership is an error;
* ``for``/``if``/``while``/``with`` are kept only in kernels that keep work in
  them; scalar statements are replicated into every kernel that reads them.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, NoReturn

from ttl import dsl
from ttl._intrinsic import intrinsic_name
from ttl.compiler.frontend.compose import (
    COMPOSE,
    SCOPE,
    composed_callee,
    host_statement,
    inline,
    make_composer,
    nested_composition_error,
)
from ttl.compiler.frontend.extern import extern_arguments
from ttl.compiler.frontend.selectors import parse_selector
from ttl.compiler.model import UNBOUND, ThreadModel, free_name
from ttl.errors import SourceLoc, TTLCompileError
from ttl.operation import Operation
from ttl.semaphore import SYNC_DSL_VALUES, GroupTransfer
from ttl.source import function_def, node_loc

_WORK_METHODS = frozenset({"reserve", "wait", "push", "pop", "store", "publish"})
#: Element access (spec v0.18, v0.21): data movement threads only.
_ELEMENT_INTRINSICS = frozenset({"read_index", "raw_element_read", "raw_element_write"})
_WORK_INTRINSICS = frozenset({"copy", "node", "extern.call", *_ELEMENT_INTRINSICS})
_COMPUTE_INTRINSICS = ("math.", "block.")
Key = Any  # dsl.KernelKind (canonical kernel) or dsl.Kernel (handle)


# ------------------------------------------------------------------ names
class _Resolver:
    """Resolves free names of the operation body: host locals, closure, globals, builtins."""

    def __init__(self, fn: Callable[..., Any], scope: dict[str, Any] | None = None):
        self.fn = fn
        self.scope = scope if scope is not None else {}

    def lookup(self, name: str) -> Any:
        if name in self.scope:
            return self.scope[name]
        return free_name(self.fn, name)

    def static(self, expr: ast.expr) -> Any:
        """Names, attribute chains, ``|`` and tuples of compile-time objects, else UNBOUND."""
        if isinstance(expr, ast.Constant):
            return expr.value
        if isinstance(expr, ast.Name):
            return self.lookup(expr.id)
        if isinstance(expr, ast.Attribute):
            base = self.static(expr.value)
            return UNBOUND if base is UNBOUND else getattr(base, expr.attr, UNBOUND)
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitOr):
            a, b = self.static(expr.left), self.static(expr.right)
            if isinstance(a, dsl.KernelKind) and isinstance(b, dsl.KernelKind):
                return a | b
            return UNBOUND
        if isinstance(expr, ast.Tuple):
            items = tuple(self.static(e) for e in expr.elts)
            return UNBOUND if any(i is UNBOUND for i in items) else items
        return UNBOUND


def _calls(node: ast.AST) -> Iterator[ast.Call]:
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            yield n


def _loaded(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _stored(node: ast.AST) -> set[str]:
    return {
        n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }


def _is_work_call(call: ast.Call, resolver: _Resolver) -> bool:
    if isinstance(call.func, ast.Attribute) and call.func.attr in _WORK_METHODS:
        return True
    callee = resolver.static(call.func)
    if isinstance(callee, Operation):
        return True  # composition
    name = intrinsic_name(callee)
    return name is not None and (
        name in _WORK_INTRINSICS or name.startswith(("extern.", *_COMPUTE_INTRINSICS))
    )


def _has_thread_functions(def_node: ast.FunctionDef) -> bool:
    return any(isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef) for s in def_node.body)


def work_statements(def_node: ast.FunctionDef, resolver: _Resolver) -> list[int]:
    """Indices of the body's top-level work statements (fixpoint over work-defined names)."""
    body = def_node.body
    work: set[int] = set()
    names: set[str] = set()
    changed = True
    while changed:
        changed = False
        for i, stmt in enumerate(body):
            if i in work:
                continue
            if any(_is_work_call(c, resolver) for c in _calls(stmt)) or _loaded(stmt) & names:
                work.add(i)
                names |= _stored(stmt)
                changed = True
    return sorted(work)


def is_host_only(op: Operation, def_node: ast.FunctionDef) -> bool:
    """A body without thread functions whose only work is ``ttl.node()`` (and Python on
    its result, such as asserts): nothing runs on a kernel (the spec's grid examples).
    It is evaluated on the host, once per node, and dispatches nothing."""
    if _has_thread_functions(def_node):
        return False
    resolver = _Resolver(op.fn)
    for i in work_statements(def_node, resolver):
        for call in _calls(def_node.body[i]):
            if (
                _is_work_call(call, resolver)
                and intrinsic_name(resolver.static(call.func)) != "node"
            ):
                return False
    return True


def is_unified(op: Operation, def_node: ast.FunctionDef) -> bool:
    """A body without thread functions that does work directly."""
    if _has_thread_functions(def_node):
        return False
    return bool(work_statements(def_node, _Resolver(op.fn)))


# ------------------------------------------------------------------ host part
def host_function(
    op: Operation, filename: str, def_node: ast.FunctionDef, return_locals: bool = False
) -> Callable[..., Any]:
    """The operation function with only its host statements (same closure and globals).

    Composition statements become ``__ttl_compose__`` calls that run the callee's host
    statements; with ``return_locals`` the function returns its locals (a composed callee).
    """
    resolver = _Resolver(op.fn)
    work = set(work_statements(def_node, resolver))
    body: list[ast.stmt] = []
    for i, stmt in enumerate(def_node.body):
        if composed_callee(stmt, resolver.static) is not None:
            assert isinstance(stmt, ast.Expr)  # composed_callee matches expression statements
            body.append(host_statement(stmt, i))
        elif i not in work:
            body.append(stmt)
    if return_locals:
        body.append(ast.Return(ast.Call(ast.Name("locals", ast.Load()), [], [])))
    inner = copy.copy(def_node)
    inner.decorator_list = []
    inner.body = body or [ast.Pass(lineno=def_node.lineno, col_offset=def_node.col_offset)]
    freevars = [*op.fn.__code__.co_freevars, COMPOSE]
    factory = ast.FunctionDef(
        name="__ttl_host_factory",
        args=ast.arguments(
            posonlyargs=[],
            args=[ast.arg(v) for v in freevars],
            kwonlyargs=[],
            kw_defaults=[],
            defaults=[],
        ),
        body=[inner, ast.Return(ast.Name(def_node.name, ast.Load()))],
        decorator_list=[],
    )
    module = ast.Module(body=[factory], type_ignores=[])
    ast.fix_missing_locations(module)
    namespace: dict[str, Any] = {}
    exec(compile(module, filename, "exec"), op.fn.__globals__, namespace)
    cells = [c.cell_contents for c in op.fn.__closure__ or ()]
    return namespace["__ttl_host_factory"](*cells, make_composer(filename, host_function))


class HostRun:
    """What top-level evaluation runs for a unified operation: its host statements only."""

    def __init__(self, op: Operation, filename: str, def_node: ast.FunctionDef):
        self.fn = host_function(op, filename, def_node)
        self.name = op.name
        self.loc = op.loc


# ------------------------------------------------------------------ ownership
@dataclass(frozen=True)
class KernelPart:
    """One logical kernel of the split: its key, name and statement list."""

    key: Key
    name: str
    logical_kernel: str
    kind: dsl.KernelKind
    body: tuple[ast.stmt, ...]
    first_line: int  # the statement that first gives this kernel work (diagnostics)

    def lines(self) -> list[int]:
        """Source lines of the simple statements this kernel compiles (for ``--emit=plan``)."""
        out: set[int] = set()

        def walk(stmts: tuple[ast.stmt, ...] | list[ast.stmt]) -> None:
            for s in stmts:
                out.add(s.lineno)
                for attr in ("body", "orelse"):
                    walk(getattr(s, attr, []))

        walk(self.body)
        return sorted(out)


@dataclass(frozen=True)
class SplitPlan:
    """The immutable split of a unified body, computed once from the AST."""

    operation: str
    kernels: tuple[KernelPart, ...]

    def to_json(self) -> list[dict[str, Any]]:
        return [
            {
                "logical_kernel": k.logical_kernel,
                "kind": k.kind.slot_kind,
                "lines": k.lines(),
            }
            for k in self.kernels
        ]


@dataclass
class _Acquire:
    name: str
    node: ast.stmt | ast.withitem
    owners: list[Key] = field(default_factory=list)
    selector: Key | None = None
    selector_node: ast.AST | None = None
    release: ast.stmt | None = None


def _add(keys: list[Key], new: list[Key] | tuple[Key, ...]) -> bool:
    changed = False
    for k in new:
        if not any(k is x for x in keys):
            keys.append(k)
            changed = True
    return changed


def _describe(key: Key) -> str:
    if isinstance(key, dsl.Kernel):
        return f"kernel handle '{key.name or '?'}'"
    return (
        "the canonical "
        + ("compute" if key is dsl.KernelKind.COMPUTE else "data-movement")
        + " kernel"
    )


class Splitter:
    """Computes ownership of every work statement and filters the body per kernel."""

    def __init__(
        self, op: Operation, filename: str, def_node: ast.FunctionDef, scope: dict[str, Any]
    ):
        self.op = op
        self.filename = filename
        self.def_node = def_node
        self.resolver = _Resolver(op.fn, scope)
        self.owners: dict[int, list[Key]] = {}  # id(stmt or withitem) -> keys
        self.acquisitions: list[_Acquire] = []
        self.uses: dict[int, list[_Acquire]] = {}  # id(stmt) -> acquisitions it reads
        self.transfers: dict[str, ast.AST] = {}
        self.order: list[Key] = []
        self.introduced: list[ast.stmt | ast.withitem] = []  # parallel to self.order
        self.callees: list[Operation] = []  # composed operations, in inlining order
        self.names: set[str] = set()
        self.fixed: set[int] = set()  # statements whose kernels are decided, not inferred

    def fail(self, message: str, node: ast.AST, hint: str) -> NoReturn:
        raise TTLCompileError(message, node_loc(self.filename, node), hint)

    def owners_of(self, node: ast.AST) -> list[Key]:
        return self.owners.setdefault(id(node), [])

    def _reject_sync(self, stmt: ast.stmt) -> None:
        """Semaphores and group transfers need data-movement kernel functions."""
        for n in ast.walk(stmt):
            if not isinstance(n, ast.Name):
                continue
            value = self.resolver.lookup(n.id)
            if isinstance(value, SYNC_DSL_VALUES) or value is GroupTransfer:
                what = "ttl.GroupTransfer" if value is GroupTransfer else "a semaphore"
                self.fail(
                    f"'{n.id}' is {what}: semaphores and group transfers are supported in "
                    "@ttl.datamovement() kernel functions, not in unified operations",
                    n,
                    "write the operation with @ttl.datamovement()/@ttl.compute() kernel "
                    "functions and use the semaphore in a data-movement kernel",
                )

    # ------------------------------------------------------------ entry
    def split(self) -> SplitPlan:
        body = self._expand(self.def_node, self.resolver, self.resolver.scope)
        simple = list(self._simple_statements(body))
        self._transactions(simple)
        for node in simple:
            if isinstance(node, ast.stmt) and _acquisition(node) is None:
                self._direct(node)
        self._blocks(simple)
        self._propagate(body)
        for stmt in self._all(body):
            if not self.owners_of(stmt) and not isinstance(stmt, ast.Pass):
                self._reject_sync(stmt)
                self.fail(
                    f"'{ast.unparse(stmt).splitlines()[0]}' does no work in any logical kernel of "
                    f"unified operation '{self.op.name}'",
                    stmt,
                    "use its value in kernel work (a copy, block math, or an external call with "
                    "kernel=), or remove it",
                )
        parts = []
        for key, first in zip(self.order, self.introduced, strict=True):
            self._check_owner(key, first)
            stmts = tuple(self._filter(body, key))
            kind = key.kind if isinstance(key, dsl.Kernel) else key
            # A with item has no position of its own: use its context expression's.
            line = first.context_expr.lineno if isinstance(first, ast.withitem) else first.lineno
            name = self._name(key)
            parts.append(KernelPart(key, name, self._logical_kernel(key, name), kind, stmts, line))
        return SplitPlan(self.op.name, tuple(parts))

    def _name(self, key: Key) -> str:
        if isinstance(key, dsl.Kernel):
            b = key.binding
            name = b.capture_name if b is not None else "kernel"
            if b is not None and b.owner is not self.op and name in self.names:
                name = f"{b.operation_name}_{name}"  # a composed callee's handle
        else:
            name = "compute" if key is dsl.KernelKind.COMPUTE else "data_movement"
        self.names.add(name)
        return name

    def _logical_kernel(self, key: Key, name: str) -> str:
        """A handle keeps its own identity (also through composition)."""
        if isinstance(key, dsl.Kernel) and key.name is not None:
            return key.name
        return f"{self.op.name}.{name}"

    def _check_owner(self, key: Key, node: ast.AST) -> None:
        if not isinstance(key, dsl.Kernel):
            return
        b = key.binding
        if b is None or (b.owner is not self.op and not any(b.owner is c for c in self.callees)):
            from ttl.identity import check_handle_owner

            check_handle_owner(
                key, self.op, node_loc(self.filename, node), lambda: "this kernel= selector"
            )

    # ------------------------------------------------------------ composition
    def _inlined_lookup(self, callee: _Resolver) -> Callable[[str], Any]:
        """Names of inlined statements: already-inlined (nested) names, then the callee's."""
        scope = self.resolver.scope
        return lambda name: scope[name] if name in scope else callee.lookup(name)

    def _expand(
        self, def_node: ast.FunctionDef, resolver: _Resolver, local_scope: dict[str, Any]
    ) -> list[ast.stmt]:
        """The work statements of ``def_node`` with composed operations inlined."""
        out: list[ast.stmt] = []
        for i in work_statements(def_node, resolver):
            stmt = def_node.body[i]
            callee = composed_callee(stmt, resolver.static)
            if callee is None:
                for call in _calls(stmt):
                    nested = resolver.static(call.func)
                    if isinstance(nested, Operation):
                        raise nested_composition_error(self.filename, call, nested)
                out.append(stmt)
                continue
            callee_scope = local_scope[SCOPE.format(i)]
            _, cdef = function_def(callee.fn)
            cres = _Resolver(callee.fn, callee_scope)
            prefix = f"{callee.name}_{len(self.callees)}_"
            self.callees.append(callee)
            inner = self._expand(cdef, cres, callee_scope)
            out.extend(
                inline(
                    callee,
                    inner,
                    callee_scope,
                    self._inlined_lookup(cres),
                    UNBOUND,
                    prefix,
                    self.resolver.scope,
                )
            )
        return out

    def _simple_statements(self, stmts: list[ast.stmt]) -> Iterator[ast.stmt | ast.withitem]:
        """Simple statements and ``with`` items (acquisitions), in source order."""
        for s in stmts:
            if isinstance(s, ast.If | ast.For | ast.While | ast.With):
                yield from getattr(s, "items", [])
                yield from self._simple_statements(s.body)
                yield from self._simple_statements(getattr(s, "orelse", []))
            else:
                yield s

    def _own(self, node: ast.stmt | ast.withitem, keys: list[Key] | tuple[Key, ...]) -> None:
        self.fixed.add(id(node))
        _add(self.owners_of(node), keys)
        for key in keys:
            if _add(self.order, [key]):
                self.introduced.append(node)  # where the kernel first gets work

    # ------------------------------------------------------------ transactions
    def _transactions(self, simple: list[ast.stmt | ast.withitem]) -> None:
        """Link every use and release to the acquisition its name refers to at that point."""
        current: dict[str, _Acquire] = {}
        for node in simple:
            acquired = _acquisition(node)
            if acquired is not None:
                current[acquired] = acq = _Acquire(acquired, node)
                self.acquisitions.append(acq)
                continue
            if isinstance(node, ast.withitem):  # binds no block: ``with ttl.signpost(...)``
                continue
            release = _release_call(node)
            if release is not None and release[0] in current:
                acq = current[release[0]]
                acq.release = node
                kw = next((k for k in release[1].keywords if k.arg == "kernel"), None)
                if kw is not None:
                    value = self.resolver.static(kw.value)
                    if isinstance(value, dsl.KernelKind | dsl.Kernel):
                        acq.selector, acq.selector_node = value, kw.value
                continue
            self.uses[id(node)] = [current[n] for n in sorted(_loaded(node) & set(current))]

    def _direct(self, stmt: ast.stmt) -> None:
        """Kernels decided by the statement itself (calls, copies, math)."""
        for call in _calls(stmt):
            if isinstance(call.func, ast.Attribute) and call.func.attr == "publish":
                # A tensor-backed input's publish(): data movement (spec v0.21).
                self._own(stmt, [self._selected_kernel(stmt, dsl.KernelKind.DATA_MOVEMENT)])
                continue
            name = intrinsic_name(self.resolver.static(call.func))
            if name == "extern.call":
                self._own(stmt, self._extern_selection(call))
            elif name == "copy":
                self._reject_math_in_copy(stmt, call)
                self._own(stmt, [self._selected_kernel(stmt, dsl.KernelKind.DATA_MOVEMENT)])
                for t in _stored(stmt):
                    self.transfers[t] = stmt
            elif name == "wait_any":  # its result, as a transfer's, stays with its kernel
                self._own(stmt, [self._selected_kernel(stmt, dsl.KernelKind.DATA_MOVEMENT)])
                for t in _stored(stmt):
                    self.transfers[t] = stmt
            elif name in _ELEMENT_INTRINSICS:
                self._own(stmt, [self._selected_kernel(stmt, dsl.KernelKind.DATA_MOVEMENT)])
            elif _is_block_math(call, name):
                self._own(stmt, [self._selected_kernel(stmt, dsl.KernelKind.COMPUTE)])
        value = getattr(stmt, "value", None)
        blocks = self.uses.get(id(stmt), [])
        if isinstance(value, ast.BinOp | ast.UnaryOp) and blocks:
            self._own(stmt, [self._selected_kernel(stmt, dsl.KernelKind.COMPUTE)])
        if not self.owners_of(stmt):
            for name in _loaded(stmt) & set(self.transfers):
                self._own(stmt, self.owners_of(self.transfers[name]))

    def _reject_math_in_copy(self, stmt: ast.stmt, call: ast.Call) -> None:
        """Spec v0.19, "Thread assignment": a statement belongs to one thread, so block
        math as a copy's source (compute work inside data movement) is an error."""
        blocks = {acq.name for acq in self.uses.get(id(stmt), [])}
        for arg in [*call.args, *(k.value for k in call.keywords)]:
            for n in ast.walk(arg):
                math = isinstance(n, ast.BinOp | ast.UnaryOp) and bool(_loaded(n) & blocks)
                if isinstance(n, ast.Call):
                    math = _is_block_math(n, intrinsic_name(self.resolver.static(n.func)))
                if math:
                    self.fail(
                        "this statement mixes compute work (block math) and data movement "
                        "(ttl.copy): each statement runs on one thread (spec v0.19, "
                        '"Thread assignment")',
                        n,
                        "store the computed block into a DFB (with dfb.reserve() as blk: "
                        "blk.store(...)) and copy from there",
                    )

    def _selected_kernel(self, stmt: ast.stmt, kind: dsl.KernelKind) -> Key:
        """A copy (math) runs in the ``kind`` handle a used block's release selects, else in
        the canonical kernel of ``kind``."""
        for acq in self.uses.get(id(stmt), []):
            sel = acq.selector
            if isinstance(sel, dsl.Kernel) and sel.kind is kind:
                return sel
        return kind

    def _extern_selection(self, call: ast.Call) -> list[Key]:
        kw_expr = extern_arguments(self, call).get("kernel")
        kw = next((k for k in call.keywords if k.arg == "kernel"), None)
        if kw is not None and isinstance(kw.value, ast.Constant) and kw.value.value is None:
            kw = None  # kernel=None is the default: no selector
        if kw_expr is None or kw is None:
            self.fail(
                "an external call at the top level of a unified operation needs kernel=: the "
                "compiler cannot infer placement from C++ code",
                call,
                "add kernel=ttl.KernelKind.COMPUTE, kernel=ttl.KernelKind.DATA_MOVEMENT, a "
                "ttl.Kernel handle, or a tuple of them",
            )
        value = self.resolver.static(kw.value)
        if value is UNBOUND:
            self.fail(
                f"kernel={ast.unparse(kw.value)} is not a compile-time selector",
                kw.value,
                "use ttl.KernelKind members (combined with |), ttl.Kernel handles or a tuple",
            )
        return list(parse_selector(self, value, kw.value).targets)

    def _blocks(self, simple: list[ast.stmt | ast.withitem]) -> None:
        """Acquisitions take the kernel of their block's uses, or the release selector."""
        for node in simple:
            for acq in self.uses.get(id(node), []):
                _add(acq.owners, self.owners_of(node))
        for acq in self.acquisitions:
            if (
                acq.selector is not None
                and acq.owners
                and not (len(acq.owners) == 1 and acq.owners[0] is acq.selector)
            ):
                assert acq.selector_node is not None  # set together with acq.selector
                self.fail(
                    f"kernel= of this release selects {_describe(acq.selector)}, but block "
                    f"'{acq.name}' is used in {', '.join(map(_describe, acq.owners))}",
                    acq.selector_node,
                    "remove kernel= (ownership is inferred from the block's uses) or move the "
                    "uses into the selected kernel",
                )
            owners = acq.owners or ([acq.selector] if acq.selector is not None else [])
            if not owners:
                self.fail(
                    f"block '{acq.name}' has no use from which its logical kernel can be inferred",
                    acq.node,
                    f"select it on the release, e.g. {acq.name}.pop(kernel=ttl.KernelKind."
                    "DATA_MOVEMENT) or .push(kernel=...)",
                )
            self._own(acq.node, owners)
            if acq.release is not None:
                self._own(acq.release, owners)

    # ------------------------------------------------------------ control and scalars
    def _propagate(self, body: list[ast.stmt]) -> None:
        """Compounds keep the kernels of their work; scalars go where they are read."""
        changed = True
        while changed:
            changed = self._compounds(body)
            readers: list[tuple[set[str], list[Key]]] = []
            self._readers(body, readers)
            for stmt in self._all(body):
                if isinstance(stmt, ast.Assign | ast.AugAssign | ast.AnnAssign):
                    names = _stored(stmt)
                    for loaded, keys in readers:
                        if not loaded & names:
                            continue
                        if id(stmt) in self.fixed:
                            if _acquisition(stmt) is None:  # blocks are linked by scope
                                self._check_available(stmt, names & loaded, keys)
                        else:
                            changed |= _add(self.owners_of(stmt), keys)

    def _check_available(self, stmt: ast.stmt, names: set[str], keys: list[Key]) -> None:
        """A value defined by kernel-owned work (an external result) exists only there."""
        have = self.owners_of(stmt)
        missing = [k for k in keys if not any(k is h for h in have)]
        if missing:
            name = min(names)
            self.fail(
                f"'{name}' is computed in {', '.join(map(_describe, have))} but is also needed "
                f"in {', '.join(map(_describe, missing))}",
                stmt,
                "select every kernel that reads it in kernel= (each gets its own local result), "
                "or use it only in the selected kernel",
            )

    def _compounds(self, stmts: list[ast.stmt]) -> bool:
        changed = False
        for s in stmts:
            if isinstance(s, ast.If | ast.For | ast.While | ast.With):
                changed |= self._compounds(s.body) | self._compounds(getattr(s, "orelse", []))
                for child in s.body + getattr(s, "orelse", []):
                    changed |= _add(self.owners_of(s), self.owners_of(child))
                for item in getattr(s, "items", []):
                    changed |= _add(self.owners_of(s), self.owners_of(item))
        return changed

    def _readers(self, stmts: list[ast.stmt], out: list[tuple[set[str], list[Key]]]) -> None:
        for s in stmts:
            if isinstance(s, ast.If | ast.While):
                out.append((_loaded(s.test), self.owners_of(s)))
            elif isinstance(s, ast.For):
                out.append((_loaded(s.iter), self.owners_of(s)))
            elif isinstance(s, ast.With):
                for item in s.items:
                    out.append((_loaded(item.context_expr), self.owners_of(item)))
            else:
                out.append((_loaded(s), self.owners_of(s)))
            self._readers(getattr(s, "body", []) + getattr(s, "orelse", []), out)

    def _all(self, stmts: list[ast.stmt]) -> Iterator[ast.stmt]:
        for s in stmts:
            yield s
            yield from self._all(getattr(s, "body", []) + getattr(s, "orelse", []))

    # ------------------------------------------------------------ filtering
    def _filter(self, stmts: list[ast.stmt], key: Key) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for s in stmts:
            if not any(k is key for k in self.owners_of(s)):
                continue
            if isinstance(s, ast.If | ast.For | ast.While):
                s2 = copy.copy(s)
                s2.body = self._filter(s.body, key) or [_pass(s)]
                s2.orelse = self._filter(s.orelse, key)
                out.append(s2)
            elif isinstance(s, ast.With):
                items = [i for i in s.items if any(k is key for k in self.owners_of(i))]
                inner = self._filter(s.body, key)
                if items:
                    w2 = copy.copy(s)
                    w2.items = items
                    w2.body = inner or [_pass(s)]
                    out.append(w2)
                else:
                    out.extend(inner)
            else:
                out.append(s)
        return out


def _is_block_math(call: ast.Call, name: str | None) -> bool:
    """``ttl.math.*`` / ``ttl.block.*`` calls and ``blk.store(...)``."""
    if name is not None:
        return name.startswith(_COMPUTE_INTRINSICS)
    return isinstance(call.func, ast.Attribute) and call.func.attr == "store"


def _pass(node: ast.stmt) -> ast.Pass:
    return ast.Pass(lineno=node.lineno, col_offset=node.col_offset)


def _acquisition(node: ast.stmt | ast.withitem) -> str | None:
    """The block name bound by ``x = dfb.reserve()/wait()`` or ``with ... as x``."""
    if isinstance(node, ast.withitem):
        return node.optional_vars.id if isinstance(node.optional_vars, ast.Name) else None
    if not isinstance(node, ast.Assign):
        return None
    value = node.value
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr in ("reserve", "wait")
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
    ):
        return node.targets[0].id
    return None


def _release_call(stmt: ast.stmt) -> tuple[str, ast.Call] | None:
    """``name.push(...)`` / ``name.pop(...)`` as an expression statement."""
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr in ("push", "pop")
        and isinstance(call.func.value, ast.Name)
    ):
        return call.func.value.id, call
    return None


# ------------------------------------------------------------------ threads
@dataclass
class UnifiedThreadModel(ThreadModel):
    """A logical kernel of a unified operation: a synthetic function over the host scope."""

    scope: dict[str, Any] = field(default_factory=dict)
    original: Any = None

    def lookup(self, name: str) -> Any:
        return _Resolver(self.original, self.scope).lookup(name)


def unified_threads(
    op: Operation, filename: str, def_node: ast.FunctionDef, scope: dict[str, Any]
) -> tuple[list[ThreadModel], SplitPlan]:
    """Split the unified body into one thread model per logical kernel."""
    plan = Splitter(op, filename, def_node, scope).split()
    threads: list[ThreadModel] = []
    for i, part in enumerate(plan.kernels):
        fn_node = ast.FunctionDef(
            name=part.name,
            args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]),
            body=list(part.body),
            decorator_list=[],
            lineno=part.first_line,
            col_offset=0,
        )
        selector = part.key
        loc = SourceLoc(filename, def_node.lineno, def_node.col_offset)
        thread = dsl.Thread(part.kind, op.fn, selector, loc, i)
        threads.append(
            UnifiedThreadModel(
                part.name,
                part.kind,
                thread,
                filename,
                fn_node,
                logical_kernel=part.logical_kernel,
                scope=scope,
                original=op.fn,
            )
        )
    return threads, plan
