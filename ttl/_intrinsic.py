"""Marking of DSL functions that only have meaning inside kernel bodies.

Kernel bodies are compiled from their AST, never executed: the frontend
resolves a call's callee to a Python object and dispatches on the name this
decorator attaches. Executing one of these functions directly is a user error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ttl.errors import TTLCompileError, caller_loc

INTRINSIC_ATTR = "__ttl_intrinsic__"


def intrinsic(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Mark ``fn`` as the kernel intrinsic ``name``; calling it outside a kernel fails."""

    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        def stub(*args: Any, **kwargs: Any) -> Any:
            raise TTLCompileError(
                f"ttl.{name}() can only be used inside a @ttl.compute() or "
                f"@ttl.datamovement() kernel body",
                caller_loc(2),
                hint="move this call into a kernel function defined in the operation",
            )

        stub.__name__ = fn.__name__
        stub.__qualname__ = fn.__qualname__
        stub.__doc__ = fn.__doc__
        setattr(stub, INTRINSIC_ATTR, name)
        return stub

    return wrap


def intrinsic_name(obj: object) -> str | None:
    """The intrinsic name of ``obj`` or None."""
    return getattr(obj, INTRINSIC_ATTR, None) if callable(obj) else None
