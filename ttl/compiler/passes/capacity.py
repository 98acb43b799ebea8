"""Capacity check of an operation against its target's slot table.

Runs on the evaluated operation (before kernels are compiled) so each
diagnostic points at the declaration that exceeds the target: the kernel
function beyond the slots of its kind, the DFB beyond the DFB count or the
L1 budget.
"""

from __future__ import annotations

from ttl.compiler.evaluate import OperationModel
from ttl.compiler.source import node_loc
from ttl.errors import TTLCompileError
from ttl.targets import tile_bytes


def dfb_bytes(pages_per_block: int, block_count: int, dtype: str) -> int:
    """L1 bytes a DFB occupies."""
    return pages_per_block * block_count * tile_bytes(dtype)


def check_capacity(model: OperationModel) -> None:
    """Raise TTLCompileError if the operation needs more than the target has."""
    target = model.target
    per_kind: dict[str, int] = {}
    for thread in model.threads:
        kind = thread.kind.slot_kind
        per_kind[kind] = per_kind.get(kind, 0) + 1
        limit = target.kernels_per_kind(kind)
        if per_kind[kind] > limit:
            label = kind.replace("_", "-")
            raise TTLCompileError(
                f"operation '{model.name}' declares {per_kind[kind]} {label} kernels but "
                f"{target.name} runs at most {limit} per node",
                node_loc(thread.filename, thread.def_node),
                f"merge this kernel into another {label} kernel",
            )
    used = 0
    for i, dfb in enumerate(model.dfbs):
        if i >= target.dfb_count:
            raise TTLCompileError(
                f"operation '{model.name}' creates {len(model.dfbs)} dataflow buffers but "
                f"{target.name} has {target.dfb_count} per node",
                dfb.loc,
                "reuse a DFB for data with the same block shape and dtype",
            )
        size = dfb_bytes(dfb.tiles_per_block, dfb.block_count, dfb.dtype)
        used += size
        if used > target.l1_bytes:
            raise TTLCompileError(
                f"dataflow buffers need {used} bytes of L1 with '{dfb.name}' ({size} bytes) "
                f"but {target.name} has {target.l1_bytes} bytes per node",
                dfb.loc,
                "use smaller blocks (shape=) or fewer blocks (block_count=)",
            )
