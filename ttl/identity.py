"""Deterministic operation identity and in-place binding of captured handles.

Identity = SHA-256 of (qualified name, normalized source AST, fingerprint of
the immutable nonlocal captures). Only value texts enter the hash: never
``id()``, ``hash()`` of objects or addresses, so the identity is the same in
every process and on every machine. Equal captures give equal identities;
factory operations with different captures differ.

This module does not import xDSL (``import ttl`` stays cheap): operation
registration calls :func:`bind_captured_handles`.
"""

from __future__ import annotations

import ast
import enum
import hashlib
import types
from collections.abc import Callable, Iterator
from typing import Any

from ttl.dsl import Kernel
from ttl.errors import TTLCompileError
from ttl.source import function_def

_MISSING = object()


def fingerprint(value: Any, _seen: tuple[int, ...] = ()) -> str | None:
    """A stable text for an immutable captured value; None for anything else.

    Covers None, bool, int, float, str, bytes, tuples and frozensets of those,
    members of enums (``ScalarType.I64``, ``KernelKind.COMPUTE``), objects that
    define ``__ttl_fingerprint__`` (``ttl.Kernel``, ``ttl.DispatchCondition``)
    and captured operations (by their own identity).
    """
    if value is None or isinstance(value, bool | int | float | str | bytes):
        return repr(value)
    if isinstance(value, enum.Enum):
        return f"{type(value).__qualname__}.{value.name}"
    if isinstance(value, tuple):
        parts = [fingerprint(v, _seen) for v in value]
        texts = [p for p in parts if p is not None]
        return None if len(texts) != len(parts) else "(" + ",".join(texts) + ")"
    if isinstance(value, frozenset):
        parts = [fingerprint(v, _seen) for v in value]
        texts = [p for p in parts if p is not None]
        return None if len(texts) != len(parts) else "frozenset{" + ",".join(sorted(texts)) + "}"
    method = getattr(type(value), "__ttl_fingerprint__", None)
    if method is not None:
        return str(method(value))
    if type(value).__name__ == "DispatchCondition" and hasattr(value, "scalar_type"):
        return f"DispatchCondition({fingerprint(value.scalar_type)})"
    fn = getattr(value, "fn", None)
    if type(value).__name__ == "Operation" and isinstance(fn, types.FunctionType):
        return f"Operation({function_identity(fn)})"
    return None


def _referenced_names(fn: Callable[..., Any]) -> set[str]:
    """Global and free names used by ``fn`` and the functions nested in it."""
    names: set[str] = set()
    stack = [fn.__code__]
    while stack:
        code = stack.pop()
        names.update(code.co_names)
        names.update(code.co_freevars)
        stack.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    return names


def captures(fn: Callable[..., Any]) -> Iterator[tuple[str, Any]]:
    """(name, value) of every nonlocal capture of ``fn``, sorted by name.

    Closure cells first, then module globals; names not (yet) bound are skipped.
    """
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or (), strict=False))
    for name in sorted(_referenced_names(fn)):
        if name in cells:
            try:
                value = cells[name].cell_contents
            except ValueError:
                continue
        else:
            value = fn.__globals__.get(name, _MISSING)
            if value is _MISSING:
                continue
        yield name, value


def _hash_ast(root: ast.AST, h: Any) -> None:
    """Feeds ``root``'s structure (node types, fields, values; no positions) into ``h``.

    Iterative, unlike ``ast.dump``: a 2000-term expression must not hit the
    recursion limit. The stack holds (is_marker, item) pairs so that a string
    constant in the source can never pass for structure.
    """
    stack: list[tuple[bool, Any]] = [(False, root)]
    while stack:
        marker, item = stack.pop()
        if marker:
            h.update(item.encode())
        elif isinstance(item, ast.AST):
            h.update(f"({type(item).__name__}".encode())
            stack.append((True, ")"))
            for name in reversed(item._fields):
                stack.extend(((False, getattr(item, name, None)), (True, f" {name}=")))
        elif isinstance(item, list):
            h.update(b"[")
            stack.append((True, "]"))
            stack.extend((False, x) for x in reversed(item))
        else:
            h.update(repr(item).encode() + b";")


def function_identity(fn: Callable[..., Any], def_node: ast.FunctionDef | None = None) -> str:
    """Hash of (qualified name, normalized source, immutable captures) of ``fn``.

    ``fn`` is a Python function (typed as a Callable, as mypy types ``def``s; its
    ``__code__``, ``__closure__`` and ``__globals__`` are read).
    """
    if def_node is None:
        _, def_node = function_def(fn)
    h = hashlib.sha256()
    h.update(fn.__qualname__.encode())
    _hash_ast(def_node, h)
    for name, value in captures(fn):
        fp = fingerprint(value)
        if fp is not None:
            h.update(f"{name}={fp};".encode())
    return h.hexdigest()


def bind_handles(
    owner: Any, named_values: Iterator[tuple[str, Any]] | list[tuple[str, Any]]
) -> None:
    """Bind every unbound ``ttl.Kernel`` among ``named_values`` to ``owner`` in place.

    The first name (in the given, sorted order) wins when one handle has
    several names; a handle another operation owns keeps its owner (its use is
    diagnosed where it occurs, see :func:`check_handle_owner`).
    """

    for name, value in named_values:
        if isinstance(value, Kernel):
            value.bind(owner, name)


def bind_captured_handles(owner: Any) -> None:
    """Registration: bind the handles ``owner.fn`` captures (closure cells and globals)."""
    bind_handles(owner, list(captures(owner.fn)))


def check_handle_owner(handle: Any, operation: Any, loc: Any, what: Callable[[], str]) -> None:
    """Raise if ``handle`` (a ``ttl.Kernel``) is owned by an operation other than ``operation``.

    ``what`` describes the use site for the message (e.g. "thread 'reader'").
    """

    b = handle.binding
    if b is not None and b.owner is operation:
        return
    if b is None:
        raise TTLCompileError(
            f"{what()} uses a ttl.Kernel handle that no operation captured or declared",
            loc,
            "create the handle in the operation's factory and capture it, or assign it at "
            "the top level of the operation body",
        )
    raise TTLCompileError(
        f"{what()} uses ttl.Kernel handle '{b.capture_name}' owned by operation "
        f"'{b.operation_name}', not by '{operation.name}'",
        loc,
        "create a separate ttl.Kernel for this operation (call the factory again, or "
        "declare the handle in this operation's body)",
    )
