"""Operation-wide symbols the kernel frontend shares between kernels."""

from __future__ import annotations

from typing import Any

from ttl.compiler import dialect as d
from ttl.compiler.analysis.pipes import PipeTables
from ttl.compiler.frontend import block_expr as bx
from ttl.compiler.model import OperationModel


class ModuleSymbols:
    """Symbol names and types of the operation's tensors and DFBs."""

    def __init__(self, model: OperationModel, include_dirs: tuple[str, ...] = ()):
        self.include_dirs = include_dirs
        self.conditions: list[Any] = []
        self.tensor_types = {
            t.name: d.TensorType(t.spec.shape, bx.element_type(t.spec.dtype), t.spec.layout)
            for t in model.tensors
        }
        self.dfb_types = {
            f.name: d.DFBType(f.shape, bx.element_type(f.dtype), f.layout) for f in model.dfbs
        }
        self.pipes = PipeTables(list(model.pipe_nets))
        # Semaphores by index: (symbol, initial value); the pipes' first (analysis/pipes.py
        # numbers them from 0), then the operation's own, then one staging word per kernel
        # that sets remote semaphores (sync.py).
        self.semaphores: list[tuple[str, int]] = self.pipes.semaphore_table() + [
            (s.name, s.initial_value) for s in model.semaphores
        ]
        self._semaphore_objects = list(model.semaphores)

    def semaphore_symbol(self, semaphore: Any) -> str:
        """The IR symbol of one of the operation's ``ttl.Semaphore`` objects."""
        for s in self._semaphore_objects:
            if s is semaphore:
                return s.name
        raise KeyError(semaphore)

    def staging_semaphore(self, kernel: str) -> str:
        """The kernel's staging word for remote semaphore sets (allocated on first use)."""
        name = f"{kernel}__staging"
        if all(n != name for n, _ in self.semaphores):
            self.semaphores.append((name, 0))
        return name

    def condition_ordinal(self, condition: Any) -> int:
        """Ordinal of a ``ttl.DispatchCondition`` (first use over the operation = 0)."""
        for i, c in enumerate(self.conditions):
            if c is condition:
                return i
        self.conditions.append(condition)
        return len(self.conditions) - 1
