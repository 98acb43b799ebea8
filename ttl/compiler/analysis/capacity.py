"""Capacity check of an operation against its target's slot table.

Runs on the evaluated operation (before kernels are compiled) so each
diagnostic points at the declaration that exceeds the target: the kernel
function beyond the slots of its kind, the DFB beyond the DFB count or the
L1 budget.
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from typing import Any

from ttl.compiler.model import OperationModel
from ttl.errors import SourceLoc, TTLCompileError
from ttl.source import node_loc
from ttl.targets import TARGETS, Target, tile_bytes


def dfb_bytes(pages_per_block: int, block_count: int, dtype: str) -> int:
    """L1 bytes a DFB occupies."""
    return pages_per_block * block_count * tile_bytes(dtype)


def kernel_capacity_error(
    operation: str, kind: str, needed: int, target: Target, loc: SourceLoc | None
) -> TTLCompileError | None:
    """The over-capacity diagnostic for ``needed`` logical kernels of ``kind``, or None.

    The single source of the wording: explicit-thread and unified operations
    both call it, so both forms use the same slot table and the same terms
    (``operation 'f' needs 3 data-movement kernels; target wormhole_b0 has 2``).
    """
    limit = target.kernels_per_kind(kind)
    if needed <= limit:
        return None
    label = kind.replace("_", "-")
    return TTLCompileError(
        f"operation '{operation}' needs {needed} {label} kernels; target {target.name} has {limit}",
        loc,
        f"use at most {limit} distinct {label} kernels: select an existing one (a shared "
        "ttl.Kernel handle or the canonical ttl.KernelKind) or merge the work",
    )


def check_kernel_capacity(
    operation: str, kernels: list[tuple[str, SourceLoc | None]], target: Target
) -> None:
    """Raise if the logical kernels (kind, location), in order, exceed the target's slots.

    The diagnostic points at the first kernel beyond the slots of its kind and
    counts every kernel of that kind.
    """
    totals: dict[str, int] = {}
    for kind, _ in kernels:
        totals[kind] = totals.get(kind, 0) + 1
    seen: dict[str, int] = {}
    for kind, loc in kernels:
        seen[kind] = seen.get(kind, 0) + 1
        if seen[kind] > target.kernels_per_kind(kind):
            err = kernel_capacity_error(operation, kind, totals[kind], target, loc)
            assert err is not None
            raise err


def check_capacity(model: OperationModel, used: Set[str] | None = None) -> None:
    """Raise TTLCompileError if the operation needs more than the target has.

    ``used``: the DFBs its kernels touch, once they are compiled (None: check the
    kernels only). A DFB no kernel touches is never allocated, so it counts for
    neither the target's DFBs nor its L1.
    """
    target = model.target
    check_kernel_capacity(
        model.name,
        [(t.kind.slot_kind, node_loc(t.filename, t.def_node)) for t in model.threads],
        target,
    )
    budget = model.options.l1_budget or target.l1_bytes
    where = (
        f"the L1 budget is {budget} bytes per node (--ttl-l1-budget)"
        if model.options.l1_budget
        else f"{target.name} has {target.l1_bytes} bytes per node"
    )
    if used is None:
        return
    # The members of a DFB allocation group take one index and the largest one's L1.
    allocations: dict[int, list[Any]] = {}
    for f in model.dfbs:
        if f.name in used:
            key = id(f.allocation_group) if f.allocation_group is not None else id(f)
            allocations.setdefault(key, []).append(f)
    total = 0
    for i, members in enumerate(allocations.values()):
        dfb = max(members, key=lambda m: dfb_bytes(m.tiles_per_block, m.block_count, m.dtype))
        if i >= target.dfb_count:
            raise TTLCompileError(
                f"operation '{model.name}' uses {len(allocations)} dataflow buffers in its "
                f"kernels but {target.name} has {target.dfb_count} per node",
                dfb.loc,
                "reuse a DFB for data with the same block shape and dtype, or share an index "
                "with a DFB allocation group" + _larger_target_hint(target, len(allocations)),
            )
        # A tensor-backed DFB lives in its tensor's shard (checked when the tensor is placed).
        size = (
            0 if dfb.tensor_backed else dfb_bytes(dfb.tiles_per_block, dfb.block_count, dfb.dtype)
        )
        total += size
        if total > budget:
            raise TTLCompileError(
                f"dataflow buffers need {total} bytes of L1 with '{dfb.name}' ({size} bytes) "
                f"but {where}",
                dfb.loc,
                "use smaller blocks (shape=) or fewer blocks (block_count=)",
            )


def _larger_target_hint(target: Target, count: int) -> str:
    """``, or compile for <target>, which has N`` for a target that has ``count`` DFBs."""
    for other in TARGETS.values():
        if other.dfb_count >= count > target.dfb_count:
            return (
                f", or compile for {other.name}, which has {other.dfb_count} per node "
                f"(ttl run --target={other.name})"
            )
    return ""


def check_program_capacity(manifest: Mapping[str, Any], model: OperationModel) -> None:
    """After the passes: the physical DFBs fit the target, with what the passes added.

    ``ttl-materialize-scalers`` and ``ttl-prepare-read-back`` add DFBs (a reduction's
    scaler tile, a shadow of a block read back) and give accumulators updated in
    place a second block, after :func:`check_capacity` saw the program's own.
    """
    target = model.target
    budget = model.options.l1_budget or target.l1_bytes
    declared = {f.name: f for f in model.dfbs}
    added = [f["name"] for f in manifest["logical_dfbs"] if f["name"] not in declared]
    doubled = [
        f["name"]
        for f in manifest["dfbs"]
        if f["name"] in declared and f["block_count"] > declared[f["name"]].block_count
    ]
    count, used = len(manifest["dfbs"]), manifest["l1_bytes"]
    if count <= target.dfb_count and used <= budget:
        return
    need = (
        f"{count} dataflow buffers ({target.name} has {target.dfb_count} per node)"
        if count > target.dfb_count
        else f"{used} bytes of L1 for its dataflow buffers (the budget is {budget})"
    )
    why = [
        *(f"'{n}' was added for it" for n in added),
        *(f"'{n}' got a second block for an in-place update" for n in doubled),
    ]
    raise TTLCompileError(
        f"operation '{model.name}' needs {need} once the compiler has added what TT-Metal "
        f"kernels need: {'; '.join(why)}",
        model.loc,
        "give reductions a scaler block of your own, store values read back after a store "
        "into a block of another DFB, or use smaller blocks",
    )
