"""Physical DFB index allocation, reusing an index only where lifetimes prove it safe.

The members of a DFB allocation group (spec v0.21, ``allocation_group``) take one
index, the first member's fresh one: ``ttl-check-allocation-groups`` proved their
accesses ordered. Other DFBs are visited in declaration order. A DFB with a bounded
lifetime (see
``lifetimes.py``) takes the lowest existing index whose DFBs are all bounded,
live in the same kernel over spans disjoint from its own, and have the same
configuration (block shape, dtype, block count, page size): the earlier
DFB's traffic is complete (balanced) before the later one's first access, so
the ring is empty and aligned on a block boundary when it is reused. Every
other DFB gets a fresh index. Without reuse, index = declaration order.

Pass ``ttl-allocate-dfbs`` (:class:`AllocateDFBsPass`) reads each DFB's
``lifetime`` and ``protocol`` attributes (a DFB without a lifetime is never
shared) and sets ``physical_index``. :func:`placements` explains the result
from the IR alone: which earlier DFBs share each index and why (``plan.json``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64
from xdsl.passes import ModulePass

from ttl.compiler import dialect as d
from ttl.compiler.passes.common import ttl_operations
from ttl.compiler.passes.lifetimes import Lifetime


@dataclass(frozen=True)
class Placement:
    """The physical index of one DFB and why it was (not) shared."""

    dfb: str
    physical_index: int
    shares_with: tuple[str, ...]  # earlier DFBs on the same index
    reason: str
    protocol: str  # the protocol verdict: balanced (with totals) or why unknown


def _config(f: d.DFBOp) -> tuple[str, int, int]:
    return (str(f.dfb_type), f.block_count.value.data, f.page_size.value.data)


def _disjoint(a: tuple[int, int] | None, b: tuple[int, int] | None) -> bool:
    return a is not None and b is not None and (a[1] < b[0] or b[1] < a[0])


def allocate_dfbs(op: d.OperationOp, lifetimes: Mapping[str, Lifetime]) -> None:
    """Set ``physical_index`` on every ``ttl.dfb`` of ``op``."""
    groups: list[list[d.DFBOp]] = []  # index -> DFBs sharing it
    allocation: dict[int, int] = {}  # allocation group -> its index
    for f in (x for x in op.body.ops if isinstance(x, d.DFBOp)):
        lt = lifetimes[f.sym_name.data]
        member = f.allocation_group.value.data if f.allocation_group is not None else None
        chosen = allocation.get(member) if member is not None else None
        # A tensor-backed DFB's storage is its tensor's: it shares no index.
        if member is None and not f.is_tensor_backed and lt.why_unbounded() is None:
            for index, members in enumerate(groups):
                others = [lifetimes[m.sym_name.data] for m in members]
                if all(
                    o.bounded
                    and not m.is_tensor_backed
                    and o.kernels == lt.kernels
                    and _disjoint(o.span, lt.span)
                    and _config(m) == _config(f)
                    for o, m in zip(others, members, strict=True)
                ):
                    chosen = index
                    break
        if chosen is None:
            chosen = len(groups)
            groups.append([])
        if member is not None:  # ttl-check-allocation-groups proved the members can share
            allocation.setdefault(member, chosen)
        groups[chosen].append(f)
        f.physical_index = IntegerAttr(chosen, i64)


def placements(op: d.OperationOp) -> dict[str, Placement]:
    """The placement of every DFB of ``op``, read from its ``physical_index``,
    ``lifetime`` and ``protocol`` attributes (after ``ttl-allocate-dfbs``)."""
    earlier: dict[int, list[d.DFBOp]] = {}  # index -> DFBs seen on it, in declaration order
    out: dict[str, Placement] = {}
    for f in (x for x in op.body.ops if isinstance(x, d.DFBOp)):
        assert f.physical_index is not None, "placements() needs ttl-allocate-dfbs"
        index = f.physical_index.value.data
        lt = Lifetime.of(f)
        members = earlier.setdefault(index, [])
        if f.is_tensor_backed:
            assert f.tensor is not None
            reason = (
                f"not shared: tensor-backed, its storage is tensor "
                f"'{f.tensor.root_reference.data}''s L1 shard"
            )
        elif not members:
            why_not = lt.why_unbounded()
            reason = (
                f"not reused: {why_not}"
                if why_not is not None
                else "bounded, but no earlier index has a disjoint lifetime in the same kernel "
                "and the same configuration"
            )
        elif f.allocation_group is not None:
            names = ", ".join(f"'{m.sym_name.data}'" for m in members)
            reason = (
                f"shares index {index} with {names}: members of one DFB allocation group, "
                "whose accesses ttl-check-allocation-groups proved ordered"
            )
        else:
            names = ", ".join(f"'{m.sym_name.data}'" for m in members)
            spans = "; ".join(
                f"'{m.sym_name.data}' statements {_span(Lifetime.of(m))}" for m in members
            )
            reason = (
                f"reuses index {index} of {names}: all live only in kernel '{lt.kernels[0]}' over "
                f"disjoint statement spans ({spans}; '{lt.dfb}' statements {_span(lt)}), their "
                "protocols are proven balanced with visible or fully summarized transactions, "
                "and their configurations are equal"
            )
        shares = tuple(m.sym_name.data for m in members)
        members.append(f)
        out[f.sym_name.data] = Placement(f.sym_name.data, index, shares, reason, _protocol(lt))
    return out


@dataclass(frozen=True)
class AllocateDFBsPass(ModulePass):
    """Sets ``physical_index`` on every ``ttl.dfb``, sharing an index only where the recorded
    lifetimes prove it safe."""

    name = "ttl-allocate-dfbs"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for operation in ttl_operations(op):
            dfbs = [f for f in operation.body.ops if isinstance(f, d.DFBOp)]
            allocate_dfbs(operation, {f.sym_name.data: Lifetime.of(f) for f in dfbs})


def _protocol(lt: Lifetime) -> str:
    p = lt.protocol
    if p is None:
        return "unchecked"
    if not p.balanced:
        return f"not proven: {p.reason}"
    totals = " or ".join(str(t) for t in p.tiles) or "0"
    return f"balanced on every path ({totals} tiles pushed and popped)"


def _span(lt: Lifetime) -> str:
    assert lt.span is not None
    lo, hi = lt.span
    return f"{lo}" if lo == hi else f"{lo}-{hi}"
