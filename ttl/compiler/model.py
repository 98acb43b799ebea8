"""The compiler's model of an operation before IR: what its top level declared.

:func:`ttl.compiler.evaluate.evaluate_operation` builds an
:class:`OperationModel`; the frontend compiles its :class:`ThreadModel` kernels
from their AST, and the analyses check it. One module that all of them import.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ttl.compiler.compute_config import ComputeConfig
from ttl.compiler.per_node import merge
from ttl.dsl import DataflowBuffer, KernelKind, TensorArg, Thread
from ttl.errors import SourceLoc
from ttl.options import CompilerOptions
from ttl.targets import Target

UNBOUND = object()


@dataclass
class ThreadModel:
    """A kernel function to compile from its AST."""

    name: str
    kind: KernelKind
    thread: Thread
    filename: str
    def_node: ast.FunctionDef
    logical_kernel: str = ""  # ``<operation>.<handle capture name | function name>``
    # When the top level called ttl.node(): this kernel's function as each other node's
    # evaluation defined it (per_node.node_order without the first node), and the grid.
    node_fns: tuple[Callable[..., Any], ...] = ()
    grid: tuple[int, int] = (1, 1)

    def lookup(self, name: str) -> Any:
        """Resolve a free name of the kernel body: closure, then globals, then builtins.

        With per-node evaluations, values that differ between nodes are merged
        (:func:`ttl.compiler.per_node.merge`; may raise ``NodeVariesError``).
        """
        value = free_name(self.thread.fn, name)
        if not self.node_fns or value is UNBOUND:
            return value
        values = [value, *(free_name(fn, name) for fn in self.node_fns)]
        return merge(values, self.grid)


def free_name(fn: Callable[..., Any], name: str) -> Any:
    """What the free name ``name`` of ``fn`` is bound to, as Python resolves it: ``fn``'s
    closure, then its module's globals, then builtins (:data:`UNBOUND` if none)."""
    code = fn.__code__
    if name in code.co_freevars and fn.__closure__ is not None:
        cell = fn.__closure__[code.co_freevars.index(name)]
        try:
            return cell.cell_contents
        except ValueError:
            return UNBOUND
    if name in fn.__globals__:
        return fn.__globals__[name]
    return getattr(builtins, name, UNBOUND)


@dataclass
class OperationModel:
    """Everything the top level of an operation declared."""

    name: str
    filename: str
    def_node: ast.FunctionDef
    loc: SourceLoc
    grid: tuple[int, int]
    target: Target
    tensors: list[TensorArg]
    dfbs: list[DataflowBuffer]
    threads: list[ThreadModel]
    identity: str
    split_plan: Any = None  # frontend.unified.SplitPlan of a unified operation
    compute: ComputeConfig = field(
        default_factory=ComputeConfig
    )  # DST mode and DST code-generation choices
    options: CompilerOptions = field(
        default_factory=CompilerOptions
    )  # the ttl.CompilerOptions in effect
    pipe_nets: list[Any] = field(default_factory=list)  # ttl.pipes.PipeNet, in creation order
    semaphores: list[Any] = field(default_factory=list)  # ttl.semaphore.Semaphore, in order
    # Compile-time parameters: name -> the value it was compiled for (ttl.specs.ConstantParam).
    constants: dict[str, Any] = field(default_factory=dict)
    device_domain: Any = None  # the ttl.DeviceDomain of ttl.operation(device_domain=), if any


def is_unbound(value: Any) -> bool:
    """True for the marker :meth:`ThreadModel.lookup` returns for unknown names."""
    return value is UNBOUND
