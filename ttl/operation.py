"""``@ttl.operation``: the decorator and the Operation object it returns."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

from ttl.errors import SourceLoc, TTLCompileError, caller_loc

Grid = tuple[int, ...] | str


class Operation:
    """A TT-Lang operation: a Python function plus its grid request.

    ``compile(...)`` runs the compiler (imported lazily). Calling the
    operation with tensors is the runtime's JIT path.
    """

    def __init__(self, fn: Callable[..., Any], grid: Grid, loc: SourceLoc):
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.grid = grid
        self.loc = loc
        self._identity: str | None = None

    @property
    def identity(self) -> str:
        """Deterministic identity (qualified name, normalized source, immutable captures).

        Computed once, the first time it is needed (compilation or a handle
        comparison); see ``ttl.compiler.identity``.
        """
        if self._identity is None:
            from ttl.compiler.identity import function_identity

            self._identity = function_identity(self.fn)
        return self._identity

    @property
    def name(self) -> str:
        return self.fn.__name__

    def compile(
        self,
        specs: Mapping[str, Any] | None = None,
        *,
        target: str | None = None,
        grid: Grid | None = None,
        include_dirs: tuple[str, ...] = (),
    ) -> Any:
        """Compile for tensor ``specs`` (name -> TensorSpec or spec string).

        Returns a :class:`ttl.compiler.driver.CompileResult`.
        """
        from ttl.compiler.driver import compile_operation

        return compile_operation(
            self, dict(specs or {}), target=target, grid=grid, include_dirs=include_dirs
        )

    def __call__(self, *tensors: Any, **kwargs: Any) -> Any:
        try:
            from ttl.runtime.jit import run_operation  # type: ignore[import-not-found]
        except ImportError:
            raise TTLCompileError(
                f"operation '{self.name}' cannot run: the ttl runtime is not installed",
                self.loc,
                "compile it with ttlc or op.compile(specs) instead",
            ) from None
        return run_operation(self, *tensors, **kwargs)

    def __repr__(self) -> str:
        return f"<ttl.Operation {self.name} grid={self.grid!r}>"


def operation(grid: Grid = (1, 1)) -> Callable[[Callable[..., Any]], Operation]:
    """Declare a TT-Lang operation running on ``grid`` ((x, y) nodes or ``"full"``)."""
    loc = caller_loc(2)

    def wrap(fn: Callable[..., Any]) -> Operation:
        from ttl.compiler.identity import bind_captured_handles

        op = Operation(fn, grid, loc)
        bind_captured_handles(op)  # registration binds captured ttl.Kernel handles in place
        return op

    return wrap
