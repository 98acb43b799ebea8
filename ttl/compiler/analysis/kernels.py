"""Logical kernels of an explicit multi-kernel operation, from its thread selectors.

Each thread decorator takes one selector of the thread's kind (checked by
the decorator): a ``ttl.KernelKind`` names the compiler-owned canonical kernel
of that kind, a ``ttl.Kernel`` handle names an operation-local kernel, and an
omitted selector denotes the canonical kernel. TT-Lang programs declare
several unselected data-movement threads (reader, writer); the first
unselected thread of a kind is the canonical kernel when no thread claims it
explicitly, and every further unselected thread is its own logical kernel,
named after its function.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ttl.compiler.model import ThreadModel
from ttl.dsl import Kernel, KernelKind
from ttl.errors import TTLCompileError
from ttl.identity import check_handle_owner


def _kind_word(kind: KernelKind) -> str:
    return "compute" if kind is KernelKind.COMPUTE else "data-movement"


def resolve_thread_kernels(op: Any, threads: list[ThreadModel]) -> None:
    """Set ``logical_kernel`` of every thread; diagnose selectors naming one kernel twice."""
    claimed: dict[KernelKind, ThreadModel] = {}
    for t in threads:  # explicit canonical selectors first: they win over omitted ones
        if isinstance(t.thread.selector, KernelKind):
            if t.kind in claimed:
                _twice(t, claimed[t.kind], f"the canonical {_kind_word(t.kind)} kernel")
            claimed[t.kind] = t
    handles: list[tuple[Kernel, ThreadModel]] = []
    by_name: dict[str, ThreadModel] = {}
    for t in threads:
        sel = t.thread.selector
        name = t.name
        if isinstance(sel, Kernel):
            check_handle_owner(sel, op, t.thread.loc, _thread_label(t))
            binding = sel.binding
            assert binding is not None  # check_handle_owner raised for an unbound handle
            for other_handle, other in handles:
                if other_handle is sel:
                    _twice(t, other, f"ttl.Kernel handle '{binding.capture_name}'")
            handles.append((sel, t))
            name = binding.capture_name
        elif sel is None and t.kind not in claimed:
            claimed[t.kind] = t
        t.logical_kernel = f"{op.name}.{name}"
        if t.logical_kernel in by_name:
            other = by_name[t.logical_kernel]
            raise TTLCompileError(
                f"threads '{other.name}' and '{t.name}' both define logical kernel "
                f"'{t.logical_kernel}'",
                t.thread.loc,
                "rename the thread function or the ttl.Kernel handle so the names differ",
            )
        by_name[t.logical_kernel] = t


def _thread_label(t: ThreadModel) -> Callable[[], str]:
    """Describes thread ``t`` as a handle's use site (built only for a diagnostic)."""
    return lambda: f"thread '{t.name}'"


def _twice(t: ThreadModel, first: ThreadModel, what: str) -> None:
    raise TTLCompileError(
        f"threads '{first.name}' and '{t.name}' both select {what}; each logical kernel "
        "runs one thread function",
        t.thread.loc,
        f"give '{t.name}' its own handle, e.g. "
        f"h = ttl.Kernel(ttl.KernelKind.{t.kind.name}) and kernel=h, or merge the threads",
    )
