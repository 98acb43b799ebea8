"""DFB lifetimes: which kernels touch each DFB, over which span, and whether it is bounded.

A lifetime is *bounded* (eligible for physical-index reuse) when

* the protocol check proved the DFB balanced on every path;
* exactly one logical kernel touches it (kernels run concurrently, so a DFB
  shared by two kernels has no span disjoint from anything else);
* every access is visible: ``ttl.reserve/push/wait/pop``, or an external call
  whose listed effects for that dependency occurrence form complete
  reserve->push / wait->pop transactions with matching tile counts.

Opaque accesses block reuse and extend to the whole call: a dependency
occurrence with no listed effect (also when several occurrences alias one
DFB), a partial summary, and ``unknown_dfb_access`` (an opaque occurrence on
every DFB of the operation).

The span is the range of top-level statements of the kernel body that
contain an access (an access inside a loop or branch spans the whole loop or
branch).

Pass ``ttl-compute-lifetimes`` (:class:`ComputeLifetimesPass`) reads each
DFB's ``protocol`` (absent: unchecked, so not bounded) and records ``lifetime
= #ttl.lifetime<kernels [...], span [first, last], opaque "why">`` on its
``ttl.dfb`` (the span only for a DFB of one kernel, ``opaque`` only when some
access is opaque; the first such reason). ``ttl-allocate-dfbs`` reads it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from ttl.compiler import dialect as d
from ttl.compiler.passes.common import ttl_operations
from ttl.compiler.passes.dfb_protocol import (
    ProtocolFact,
    block_dfb,
    callee,
    dependencies,
    dfb_effects,
    dfb_name,
)


@dataclass
class Lifetime:
    """Where one DFB lives and whether that is proven bounded."""

    dfb: str
    kernels: list[str] = field(default_factory=list)  # logical kernels, in declaration order
    span: tuple[int, int] | None = None  # top-level statement range in its single kernel
    opaque: list[str] = field(default_factory=list)  # why accesses are opaque
    protocol: ProtocolFact | None = None

    @property
    def bounded(self) -> bool:
        return self.why_unbounded() is None

    def to_attr(self) -> d.LifetimeAttr:
        span = self.span if len(self.kernels) == 1 else None
        return d.LifetimeAttr(self.kernels, span, self.opaque[0] if self.opaque else "")

    @staticmethod
    def of(f: d.DFBOp) -> Lifetime:
        """The lifetime recorded on ``f`` (with its recorded protocol verdict)."""
        protocol = ProtocolFact.from_attr(f.protocol) if f.protocol is not None else None
        lt = Lifetime(f.sym_name.data, protocol=protocol)
        if f.lifetime is None:
            lt.opaque.append("its lifetime is not computed (ttl-compute-lifetimes)")
            return lt
        lt.kernels = f.lifetime.kernel_names
        lt.span = f.lifetime.statement_span
        if f.lifetime.opaque.data:
            lt.opaque.append(f.lifetime.opaque.data)
        return lt

    def why_unbounded(self) -> str | None:
        """None when bounded; else the first reason it is not."""
        if self.opaque:
            return self.opaque[0]
        if self.protocol is None or not self.protocol.balanced:
            return "its protocol is not proven balanced: " + (
                self.protocol.reason if self.protocol else "unchecked"
            )
        if len(self.kernels) != 1:
            return (
                "kernels "
                + ", ".join(f"'{k}'" for k in self.kernels)
                + (" use it concurrently" if self.kernels else " never use it")
            )
        return None


def complete_transactions(steps: Sequence[tuple[str, int]]) -> bool:
    """True if ``steps`` (kind, tiles) pair every reserve with a push and every wait with a pop."""
    open_side: dict[str, int | None] = {"reserve": None, "wait": None}
    closes = {"push": "reserve", "pop": "wait"}
    for kind, tiles in steps:
        if kind in open_side:
            if open_side[kind] is not None:
                return False
            open_side[kind] = tiles
        elif open_side[closes[kind]] != tiles:
            return False
        else:
            open_side[closes[kind]] = None
    return all(v is None for v in open_side.values())


def _call_accesses(
    op: Operation, deps: tuple[SSAValue, ...], lifetimes: dict[str, Lifetime]
) -> list[str]:
    """DFBs an external call touches; records its opaque occurrences."""
    fn = callee(op)
    effects = dfb_effects(op)
    touched: list[str] = []
    for i, dep in enumerate(deps):
        name = dfb_name(dep)
        if name is None:
            continue
        touched.append(name)
        listed = [e for e in effects if e.dependency_index.data == i]
        steps = [(e.kind.data.value, e.tiles.data) for e in listed if not e.kind.data.is_access]
        if listed and not steps:
            continue  # ttl.DFBAccess: a storage access with no protocol change
        if not steps:
            lifetimes[name].opaque.append(
                f"external call '{fn}' has no dfb_effects for dependency {i}, an opaque "
                "access for the whole call"
            )
        elif not complete_transactions(steps):
            lifetimes[name].opaque.append(
                f"external call '{fn}' lists a partial summary for dependency {i}"
            )
    if "unknown_dfb_access" in op.properties:
        for name in sorted(lifetimes):
            lifetimes[name].opaque.append(
                f"external call '{fn}' sets unknown_dfb_access, an opaque access to every DFB"
            )
            if name not in touched:
                touched.append(name)
    return touched


def compute_lifetimes(
    op: d.OperationOp, protocol: Mapping[str, ProtocolFact]
) -> dict[str, Lifetime]:
    """The lifetime of every DFB of ``op``, in declaration order."""
    lifetimes = {
        f.sym_name.data: Lifetime(f.sym_name.data, protocol=protocol.get(f.sym_name.data))
        for f in op.body.ops
        if isinstance(f, d.DFBOp)
    }
    for kernel in (k for k in op.body.ops if isinstance(k, d.KernelOp)):
        kname = kernel.logical_kernel.data
        for index, top in enumerate(kernel.body.block.ops):
            for inner in top.walk():
                touched: list[str] = []
                if isinstance(inner, d.ReserveOp | d.WaitOp):
                    touched = [n for n in [dfb_name(inner.dfb)] if n]
                elif isinstance(inner, d.PushOp | d.PopOp):
                    touched = [n for n in [block_dfb(inner.block)[0]] if n]
                elif (deps := dependencies(inner)) is not None:
                    touched = _call_accesses(inner, deps, lifetimes)
                for name in touched:
                    lt = lifetimes[name]
                    if kname not in lt.kernels:
                        lt.kernels.append(kname)
                    lo, hi = lt.span or (index, index)
                    lt.span = (min(lo, index), max(hi, index))
    return lifetimes


@dataclass(frozen=True)
class ComputeLifetimesPass(ModulePass):
    """Records the ``lifetime`` of every ``ttl.dfb`` (from its accesses and ``protocol``)."""

    name = "ttl-compute-lifetimes"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for operation in ttl_operations(op):
            dfbs = [f for f in operation.body.ops if isinstance(f, d.DFBOp)]
            protocol = {
                f.sym_name.data: ProtocolFact.from_attr(f.protocol)
                for f in dfbs
                if f.protocol is not None
            }
            lifetimes = compute_lifetimes(operation, protocol)
            for f in dfbs:
                f.lifetime = lifetimes[f.sym_name.data].to_attr()
