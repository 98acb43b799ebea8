"""The compile plan (``--emit=plan``): logical kernels, slots and DFB endpoints."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ttl.compiler import dialect as d
from ttl.compiler.passes.allocate import Placement


def _allocation(placements: Mapping[str, Placement] | None, name: str) -> dict[str, Any]:
    """The allocation record of one DFB: the index it shares and why (or why not)."""
    if placements is None or name not in placements:
        return {}
    p = placements[name]
    return {
        "allocation": {"shares_index_with": list(p.shares_with), "reason": p.reason},
        "protocol": p.protocol,
    }


def build_plan(
    op: d.OperationOp,
    placements: Mapping[str, Placement] | None = None,
    split: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Which kernel runs where, which kernels produce/consume each DFB, and why indices are shared.

    ``split`` (unified operations): the split plan, per logical kernel the source lines of
    the body statements it compiles.
    """
    kernels = [k for k in op.body.ops if isinstance(k, d.KernelOp)]
    endpoints: dict[str, dict[str, list[str]]] = {}
    for k in kernels:
        for inner in k.walk():
            if isinstance(inner, d.ReserveOp | d.WaitOp):
                ref = inner.dfb.owner
                assert isinstance(ref, d.GetDFBOp)
                role = "producers" if isinstance(inner, d.ReserveOp) else "consumers"
                lists = endpoints.setdefault(ref.ref.root_reference.data, {})
                names = lists.setdefault(role, [])
                if k.logical_kernel.data not in names:
                    names.append(k.logical_kernel.data)
    return {
        **({"split": split} if split is not None else {}),
        "operation": op.sym_name.data,
        "target": op.target.data,
        "grid": list(op.grid.get_values()),
        "kernels": [
            {
                "logical_kernel": k.logical_kernel.data,
                "kind": k.kind.data.value,
                "processor_slot": k.slot.data if k.slot else None,
            }
            for k in kernels
        ],
        "dfbs": [
            {
                "name": f.sym_name.data,
                # (ignore: physical_index is optional in the IR; ttl-allocate-dfbs set it)
                "physical_index": f.physical_index.value.data,  # type: ignore[union-attr]
                "producers": endpoints.get(f.sym_name.data, {}).get("producers", []),
                "consumers": endpoints.get(f.sym_name.data, {}).get("consumers", []),
                **_allocation(placements, f.sym_name.data),
            }
            for f in op.body.ops
            if isinstance(f, d.DFBOp)
        ],
    }
