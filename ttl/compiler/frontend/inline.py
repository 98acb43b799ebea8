"""Calls to the program's own Python functions from kernels: inlined at the call.

A kernel may call a helper defined at the operation's top level, at module
level or inside the kernel itself (``def block_slice(i, n): return slice(...)``,
``def tiles_for(node): if node < k: return a ... return b``). The compiler
compiles the helper's body in place of the call, with its parameters bound to
the call's arguments, as Python would run it: its locals are its own, its free
names resolve where Python resolves them (the kernel's variables for a helper
defined in the kernel; the helper's closure and module otherwise), and its
``return`` value is the call's value.

``return`` may appear anywhere in ``if``/``else`` chains: the body is rewritten
so that each path assigns the result once (the statements after an ``if``
whose branch returns are compiled into the branches that do not). A ``return``
inside a loop or a ``with`` has no such form and is a located error, as is a
helper that calls itself.
"""

from __future__ import annotations

import ast
import inspect
import types
from collections.abc import Callable
from typing import Any, TypeVar

from ttl.compiler.frontend.protocol import MixinBase
from ttl.compiler.model import free_name, is_unbound
from ttl.source import function_def

MAX_INLINE_DEPTH = 32
_RESULT = "ttl helper result"  # a name no Python program can bind


def is_helper(value: Any) -> bool:
    """A plain Python function of the program (not a ttl function or a builtin)."""
    return isinstance(value, types.FunctionType) and not value.__module__.startswith("ttl.")


class InlineMixin(MixinBase):
    """Inlining calls to the program's helper functions (mixed into KernelCompiler)."""

    filename: str
    inline_stack: list[str]
    resolvers: list[Callable[[str], Any]]

    def call_function(self, fn: types.FunctionType, node: ast.Call) -> Any:
        """The value of ``fn(...)`` at ``node``, for a helper defined outside the kernel."""
        filename, fdef = function_def(fn)
        saved: str = self.filename
        self.filename = filename  # the helper's own lines in its diagnostics
        try:
            return self.call_helper(fn, fdef, node)
        finally:
            self.filename = saved

    def call_helper(
        self, fn: types.FunctionType | None, fdef: ast.FunctionDef, node: ast.Call
    ) -> Any:
        """The value of ``fdef(...)`` at ``node``; ``fn`` is None for a function defined
        in this kernel (its free names are the kernel's variables)."""
        name = fdef.name
        if name in self.inline_stack or len(self.inline_stack) >= MAX_INLINE_DEPTH:
            self.fail(
                f"'{name}' calls itself: a helper called from a kernel is inlined, and "
                "recursion cannot be",
                node,
                "write the recursion as a loop",
            )
        for kw in node.keywords:
            if kw.arg is None:
                self.fail(
                    "'**' arguments are not supported in a kernel",
                    kw.value,
                    "pass each keyword argument by name",
                )
        if any(isinstance(a, ast.Starred) for a in node.args):
            self.fail(
                "'*' arguments are not supported in a kernel", node, "pass each argument in turn"
            )
        args = [self.visit(a) for a in node.args]
        kwargs = {kw.arg: self.visit(kw.value) for kw in node.keywords if kw.arg}
        params = self._bind_parameters(fn, fdef, args, kwargs, node)
        body = _without_returns(fdef.body, self, fdef)
        saved = self.vars
        self.vars = {**(saved if fn is None else {}), **params}
        if fn is not None:
            self.resolvers.append(_closure_resolver(fn, self.thread.lookup))
        self.inline_stack.append(name)
        stmt = self.stmt
        try:
            self.visit_body(body)
            result = self.vars.get(_RESULT)
        finally:
            self.inline_stack.pop()
            if fn is not None:
                self.resolvers.pop()
            self.vars = saved
            self.stmt = stmt
        return result

    def _bind_parameters(
        self,
        fn: types.FunctionType | None,
        fdef: ast.FunctionDef,
        args: list[Any],
        kwargs: dict[str, Any],
        node: ast.Call,
    ) -> dict[str, Any]:
        """The helper's parameters bound as Python binds them (defaults included)."""
        if fn is not None:
            signature = inspect.signature(fn)
        else:  # defaults are evaluated where the def is, as Python does
            defaults = [self.visit(d) for d in fdef.args.defaults]
            kw_defaults = [None if d is None else self.visit(d) for d in fdef.args.kw_defaults]
            signature = _signature(fdef.args, defaults, kw_defaults)
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as e:
            self.fail(f"{fdef.name}(): {e}", node, f"call it as {fdef.name}{signature}")
        bound.apply_defaults()
        return dict(bound.arguments)

    def lookup_free_name(self, name: str) -> Any:
        """A name neither the kernel nor an inlined helper binds: the helper's closure
        and module, or the operation's top level (for the kernel itself)."""
        if self.resolvers:
            return self.resolvers[-1](name)
        return self.thread.lookup(name)


def _closure_resolver(fn: types.FunctionType, operation_lookup: Callable[[str], Any]):
    """Resolves free names as ``fn`` sees them. Names of the operation's top level go
    through the kernel's lookup, which knows values that differ between nodes."""
    freevars = fn.__code__.co_freevars

    def resolve(name: str) -> Any:
        if name in freevars:
            value = operation_lookup(name)
            if not is_unbound(value):
                return value
        return free_name(fn, name)

    return resolve


def _signature(a: ast.arguments, defaults: list[Any], kw_defaults: list[Any]) -> inspect.Signature:
    """An ``inspect.Signature`` for a ``def`` compiled from source (not run)."""
    param = inspect.Parameter
    positional = [*a.posonlyargs, *a.args]
    first_default = len(positional) - len(defaults)
    params = []
    for i, arg in enumerate(positional):
        kind = param.POSITIONAL_ONLY if i < len(a.posonlyargs) else param.POSITIONAL_OR_KEYWORD
        default = defaults[i - first_default] if i >= first_default else param.empty
        params.append(param(arg.arg, kind, default=default))
    if a.vararg:
        params.append(param(a.vararg.arg, param.VAR_POSITIONAL))
    for arg, d in zip(a.kwonlyargs, kw_defaults, strict=True):
        params.append(param(arg.arg, param.KEYWORD_ONLY, default=param.empty if d is None else d))
    if a.kwarg:
        params.append(param(a.kwarg.arg, param.VAR_KEYWORD))
    return inspect.Signature(params)


def _own_returns(node: ast.AST) -> list[ast.Return]:
    """The ``return`` statements of ``node`` itself, not of functions nested in it."""
    found: list[ast.Return] = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Return):
            found.append(child)
        elif not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            found.extend(_own_returns(child))
    return found


_NodeT = TypeVar("_NodeT", bound=ast.AST)


def _located(new: _NodeT, like: ast.AST) -> _NodeT:
    """``new`` with ``like``'s position on every node of it that has none."""
    for n in ast.walk(new):
        if "lineno" in n._attributes and not hasattr(n, "lineno"):
            ast.copy_location(n, like)
    return new


def _without_returns(
    stmts: list[ast.stmt], reporter: Any, fdef: ast.FunctionDef, kernel: bool = False
) -> list[ast.stmt]:
    """``stmts`` with every ``return e`` made an assignment of the call's result, and what
    follows an ``if`` that returns moved into its branches (``kernel``: a kernel body,
    whose bare ``return`` ends the kernel early).
    """
    out: list[ast.stmt] = []
    for i, s in enumerate(stmts):
        if isinstance(s, ast.Return):
            if kernel:
                if s.value is not None:
                    reporter.fail(
                        f"kernel '{fdef.name}' returns a value; a kernel returns nothing",
                        s.value,
                        "write a bare 'return' to end the kernel early",
                    )
                return out
            value = s.value if s.value is not None else ast.Constant(None)
            out.append(_located(ast.Assign([ast.Name(_RESULT, ast.Store())], value), s))
            return out
        if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.append(s)  # a nested function's returns are its own
            continue
        returns = _own_returns(s)
        if isinstance(s, ast.If) and returns:
            rest = stmts[i + 1 :]
            body = _without_returns(s.body + rest, reporter, fdef, kernel) or [ast.Pass()]
            orelse = _without_returns(s.orelse + rest, reporter, fdef, kernel)
            out.append(_located(ast.If(s.test, body, orelse), s))
            return out
        if returns:
            who = (
                f"kernel '{fdef.name}' returns from inside a '{type(s).__name__.lower()}' "
                "statement; a kernel may return only from its body or from if/else branches"
                if kernel
                else f"'{fdef.name}' returns from inside a '{type(s).__name__.lower()}' "
                "statement; a helper called from a kernel is inlined, so it may return only "
                "from its body or from if/else branches"
            )
            reporter.fail(
                who,
                returns[0],
                "end the loop with a flag variable and test it after the statement"
                if kernel
                else "assign the value to a variable and return it after the statement",
            )
        out.append(s)
    return out


def kernel_body(stmts: list[ast.stmt], reporter: Any, fdef: ast.FunctionDef) -> list[ast.stmt]:
    """A kernel's statements with its early ``return``s (``if not active: return``, as
    upstream's examples end a node that takes no part) turned into if/else branches."""
    return _without_returns(stmts, reporter, fdef, kernel=True)
