"""``@ttl.operation``: the decorator and the Operation object it returns.

This module is part of the DSL, the lowest layer: it does not import the
compiler or the runtime. ``Operation.compile`` and calling an operation go
through the :class:`Backend` that ``import ttl`` installs (the compiler and the
JIT, imported only when first used).
"""

from __future__ import annotations

import difflib
import functools
import inspect
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from ttl.devices import DeviceDomain, domain_of
from ttl.errors import SourceLoc, TTLCompileError, caller_loc
from ttl.identity import bind_captured_handles, function_identity
from ttl.options import CompilerOptions, OptionsError

Grid = tuple[int, ...] | str


class Backend(Protocol):
    """What compiles and runs operations: installed by ``ttl/__init__.py``."""

    def compile(
        self,
        op: Operation,
        specs: dict[str, Any],
        *,
        target: str | None,
        grid: Grid | None,
        include_dirs: tuple[str, ...],
        options: CompilerOptions | None,
    ) -> Any:
        """Compile ``op`` for ``specs``; returns a ``ttl.compiler.driver.CompileResult``."""
        ...

    def run(self, op: Operation, *tensors: Any, **kwargs: Any) -> Any:
        """Compile (or reuse) and dispatch ``op`` on ``tensors``."""
        ...


_BACKEND: Backend | None = None


def install_backend(backend: Backend) -> None:
    """Sets what ``Operation.compile`` and ``Operation.__call__`` use."""
    global _BACKEND
    _BACKEND = backend


def _backend(op: Operation, what: str) -> Backend:
    if _BACKEND is None:
        raise TTLCompileError(
            f"operation '{op.name}' cannot {what}: no TT-Lang compiler is installed",
            op.loc,
            "import ttl (the package installs its compiler and runtime)",
        )
    return _BACKEND


class Operation:
    """A TT-Lang operation: a Python function plus its grid request.

    ``compile(...)`` runs the compiler (imported lazily). Calling the
    operation with tensors is the runtime's JIT path.
    """

    def __init__(
        self,
        fn: Callable[..., Any],
        grid: Grid,
        loc: SourceLoc,
        *,
        fp32_dest_acc_en: bool | None = None,
        dst_full_sync_en: bool | None = None,
        options: CompilerOptions | None = None,
        device_domain: DeviceDomain | None = None,
    ):
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.grid = grid
        self.loc = loc
        # Compute options (docs/language.md): None lets the compiler choose.
        self.fp32_dest_acc_en = fp32_dest_acc_en
        self.dst_full_sync_en = dst_full_sync_en
        self.options = options or CompilerOptions()
        # The logical devices it runs on (spec v0.21); None: the mesh it is called on.
        self.device_domain = device_domain
        self._identity: str | None = None

    @property
    def identity(self) -> str:
        """Deterministic identity (qualified name, normalized source, immutable captures).

        Computed once, the first time it is needed (compilation or a handle
        comparison); see ``ttl.identity``.
        """
        if self._identity is None:
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
        options: str | CompilerOptions | None = None,
    ) -> Any:
        """Compile for tensor ``specs`` (name -> TensorSpec or spec string).

        ``options`` (flags or :class:`ttl.CompilerOptions`) override the
        decorator's, field by field. Returns a
        :class:`ttl.compiler.driver.CompileResult`.
        """
        overrides = _options(options, "compile(options=...)", caller_loc(2))
        return _backend(self, "compile").compile(
            self,
            dict(specs or {}),
            target=target,
            grid=grid,
            include_dirs=include_dirs,
            options=overrides,
        )

    def __call__(self, *tensors: Any, **kwargs: Any) -> Any:
        return _backend(self, "run").run(self, *tensors, **kwargs)

    def __repr__(self) -> str:
        return f"<ttl.Operation {self.name} grid={self.grid!r}>"


def _options(value: Any, what: str, loc: SourceLoc) -> CompilerOptions:
    """``value`` (flags or CompilerOptions) parsed; a bad one is an error at ``loc``."""
    try:
        return CompilerOptions.coerce(value, what)
    except OptionsError as e:
        raise TTLCompileError(str(e), loc, "run with --ttl-help for the list") from None


_KEYWORDS = ("grid", "fp32_dest_acc_en", "dst_full_sync_en", "options", "device_domain")


def operation(
    grid: Grid = (1, 1),
    fp32_dest_acc_en: bool | None = None,
    dst_full_sync_en: bool | None = None,
    options: str | CompilerOptions | None = None,
    device_domain: DeviceDomain | None = None,
    **unknown: Any,
) -> Callable[[Callable[..., Any]], Operation]:
    """Declare a TT-Lang operation running on ``grid`` ((x, y) nodes or ``"full"``).

    ``fp32_dest_acc_en``: DST keeps fp32 between tile operations (default: on
    when any tensor is f32, else DST is 16-bit and every result rounds to bf16).
    ``dst_full_sync_en``: DST is not split between math and pack, doubling its
    tiles. ``options``: code-generation flags (``"--no-ttl-maximize-dst"``) or a
    :class:`ttl.CompilerOptions`. ``device_domain``: the :class:`ttl.DeviceDomain`
    whose every device runs the grid (spec v0.21): it must have as many devices as
    the mesh the operation is called on.
    """
    loc = caller_loc(2)
    if unknown:
        name = sorted(unknown)[0]
        close = difflib.get_close_matches(name, _KEYWORDS, n=1)
        raise TTLCompileError(
            f"ttl.operation() has no parameter '{name}'",
            loc,
            f"did you mean '{close[0]}'?"
            if close
            else "its parameters are " + ", ".join(_KEYWORDS),
        )
    for name, value in (
        ("fp32_dest_acc_en", fp32_dest_acc_en),
        ("dst_full_sync_en", dst_full_sync_en),
    ):
        if value is not None and not isinstance(value, bool):
            raise TTLCompileError(
                f"ttl.operation({name}={value!r}): expected True, False or None",
                loc,
                f"write {name}=True or leave it out for the default",
            )
    parsed = _options(options, "ttl.operation(options=...)", loc)
    domain = domain_of(device_domain, loc)

    def wrap(fn: Callable[..., Any]) -> Operation:
        if not inspect.isfunction(fn):
            what = f"class '{fn.__name__}'" if inspect.isclass(fn) else type(fn).__name__
            raise TTLCompileError(
                f"@ttl.operation decorates a function, not a {what}",
                loc,
                "write 'def name(tensors...):' under the decorator",
            )
        op = Operation(
            fn,
            grid,
            loc,
            fp32_dest_acc_en=fp32_dest_acc_en,
            dst_full_sync_en=dst_full_sync_en,
            options=parsed,
            device_domain=domain,
        )
        bind_captured_handles(op)  # registration binds captured ttl.Kernel handles in place
        return op

    return wrap
