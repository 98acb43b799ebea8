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
            t.name: d.TensorType(t.spec.shape, bx.element_type(t.spec.dtype)) for t in model.tensors
        }
        self.dfb_types = {f.name: d.DFBType(f.shape, bx.element_type(f.dtype)) for f in model.dfbs}
        self.pipes = PipeTables(list(model.pipe_nets))

    def condition_ordinal(self, condition: Any) -> int:
        """Ordinal of a ``ttl.DispatchCondition`` (first use over the operation = 0)."""
        for i, c in enumerate(self.conditions):
            if c is condition:
                return i
        self.conditions.append(condition)
        return len(self.conditions) - 1
