"""Cross-kernel DFB protocol check: produced and consumed tile counts match on every path.

For every truth assignment of the declared dispatch conditions (see
``conditions.py``) each kernel's body is evaluated to the set of possible
(pushed, popped) tile totals per DFB: ``ttl.push``/``ttl.pop`` count the
block's tiles, external calls count their listed push/pop effects, loops with
a static trip count multiply, ``scf.if`` on a declared condition takes the
branch the assignment selects and on any other condition unites both
branches. A loop with a runtime trip count around traffic, or an external
dependency with no listed effects, makes the DFB's count unknown.

Per DFB and assignment: if the possible produced and consumed totals are
disjoint the program is wrong on that path (a located error naming the DFB,
the kernels and the counts); if both are one equal value the DFB is balanced
there. Balanced under every assignment is a proof; anything else stays
unknown (no error, and no physical-index reuse).

Pass ``ttl-check-dfb-protocol`` (:class:`CheckDFBProtocolPass`) raises the
error, or records each DFB's verdict on its ``ttl.dfb`` as ``protocol =
#ttl.protocol<balanced [totals]>`` / ``#ttl.protocol<unknown "why">``
(read by ``ttl-compute-lifetimes``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import NoReturn

from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass

from ttl.compiler import dialect as d
from ttl.compiler.passes.common import TTLPassError, ttl_operations
from ttl.compiler.passes.conditions import (
    _constant,
    assignments,
    condition_ordinal,
    declared_conditions,
    truth,
)

MAX_VALUES = 64  # more possible totals than this: unknown

Vals = frozenset[tuple[int, int]] | None  # possible (pushed, popped) totals; None = unknown
Counts = dict[str, Vals]
_ZERO: frozenset[tuple[int, int]] = frozenset({(0, 0)})


@dataclass(frozen=True)
class ProtocolFact:
    """The verdict for one DFB: proven balanced (with its per-path totals) or unknown (why)."""

    balanced: bool
    tiles: tuple[int, ...]  # distinct balanced totals over all assignments (when balanced)
    reason: str

    def to_attr(self) -> d.ProtocolAttr:
        return d.ProtocolAttr(self.balanced, self.tiles, "" if self.balanced else self.reason)

    @staticmethod
    def from_attr(attr: d.ProtocolAttr) -> ProtocolFact:
        if attr.is_balanced:
            return ProtocolFact(True, attr.tile_totals, BALANCED)
        return ProtocolFact(False, (), attr.reason.data)


BALANCED = "balanced on every path"


def dfb_name(value: SSAValue) -> str | None:
    """The DFB symbol an SSA DFB value refers to."""
    owner = value.owner
    return owner.ref.root_reference.data if isinstance(owner, d.GetDFBOp) else None


def block_dfb(block: SSAValue) -> tuple[str | None, int]:
    """(DFB name, tiles) of an acquired block value."""
    owner = block.owner
    assert isinstance(owner, d.ReserveOp | d.WaitOp)
    return dfb_name(owner.dfb), owner.result.type.num_tiles


def dependencies(op: Operation) -> tuple[SSAValue, ...] | None:
    """The DFB dependency sequence of an op with the DFBDependencyInterface trait, else None."""
    trait = op.get_trait(d.DFBDependencyInterface)
    return None if trait is None else tuple(trait.get_dfb_dependency_operands(op))


def dfb_effects(op: Operation) -> tuple[d.DFBEffectAttr, ...]:
    """The ``dfb_effects`` property of a DFB-dependency op (its listed protocol actions)."""
    effects = op.properties["dfb_effects"]
    assert isinstance(effects, ArrayAttr)
    return tuple(e for e in effects.data if isinstance(e, d.DFBEffectAttr))


def callee(op: Operation) -> str:
    """The ``callee`` property of an external call (for diagnostics)."""
    name = op.properties.get("callee")
    return name.data if isinstance(name, StringAttr) else op.name


def _add(a: Vals, b: Vals) -> Vals:
    if a is None or b is None:
        return None
    out = frozenset((p1 + p2, c1 + c2) for p1, c1 in a for p2, c2 in b)
    return out if len(out) <= MAX_VALUES else None


def _union(a: Vals, b: Vals) -> Vals:
    if a is None or b is None:
        return None
    out = a | b
    return out if len(out) <= MAX_VALUES else None


def _combine(x: Counts, y: Counts, fn: Callable[[Vals, Vals], Vals]) -> Counts:
    return {k: fn(x.get(k, _ZERO), y.get(k, _ZERO)) for k in sorted(set(x) | set(y))}


def _times(vals: Vals, n: int) -> Vals:
    if vals is None or n == 0:
        return _ZERO if n == 0 else None
    if len(vals) == 1:
        ((p, c),) = vals
        return frozenset({(p * n, c * n)})
    out: Vals = _ZERO
    for _ in range(n):
        out = _add(out, vals)
        if out is None:
            return None
    return out


def _trip_count(loop: scf.ForOp) -> int | None:
    lb, ub, step = (_constant(v) for v in (loop.lb, loop.ub, loop.step))
    if lb is None or ub is None or step is None or step <= 0:
        return None
    return max(0, -(-(ub - lb) // step))


class KernelCounter:
    """Evaluates one kernel's DFB traffic under one condition assignment."""

    def __init__(self, kernel: d.KernelOp, env: Mapping[int, bool], reasons: dict[str, str]):
        self.kernel = kernel
        self.env = env
        self.reasons = reasons  # first reason each DFB's count became unknown

    def _unknown(self, counts: Counts, why: str) -> Counts:
        out: Counts = {}
        for k, v in counts.items():
            if v != _ZERO:
                out[k] = None
                self.reasons.setdefault(k, f"{why} in kernel '{self.kernel.logical_kernel.data}'")
            else:
                out[k] = v
        return out

    def block(self, block: Block) -> Counts:
        total: Counts = {}
        for op in block.ops:
            total = _combine(total, self.op(op), _add)
        return total

    def op(self, op: Operation) -> Counts:
        if isinstance(op, d.PushOp | d.PopOp):
            name, tiles = block_dfb(op.block)
            assert name is not None
            return {name: frozenset({(tiles, 0) if isinstance(op, d.PushOp) else (0, tiles)})}
        deps = dependencies(op)
        if deps is not None:
            return self.call(op, deps)
        if isinstance(op, scf.IfOp):
            t = truth(op.cond, self.env)
            then = self.block(op.true_region.block)
            other = self.block(op.false_region.block) if op.false_region.blocks else {}
            return then if t is True else other if t is False else _combine(then, other, _union)
        if isinstance(op, scf.ForOp):
            body = self.block(op.body.block)
            n = _trip_count(op)
            if n is None:
                line = getattr(op.location, "line", None)
                line = getattr(line, "data", line)  # FileLineColLoc holds an IntAttr
                where = f" (line {line})" if line else ""
                return self._unknown(body, f"a loop with a runtime trip count{where}")
            return {k: _times(v, n) for k, v in body.items()}
        if isinstance(op, scf.WhileOp):
            body = _combine(
                self.block(op.before_region.block), self.block(op.after_region.block), _add
            )
            return self._unknown(body, "a while loop")
        total: Counts = {}
        for region in op.regions:
            for b in region.blocks:
                total = _combine(total, self.block(b), _add)
        return total

    def call(self, op: Operation, deps: tuple[SSAValue, ...]) -> Counts:
        effects = dfb_effects(op)
        counts: Counts = {}
        described = {e.dependency_index.data for e in effects}
        for e in effects:
            name = dfb_name(deps[e.dependency_index.data])
            kind = e.kind.data.value
            if name is None or kind not in ("push", "pop"):
                continue
            step = (e.tiles.data, 0) if kind == "push" else (0, e.tiles.data)
            counts = _combine(counts, {name: frozenset({step})}, _add)
        for i, dep in enumerate(deps):
            name = dfb_name(dep)
            if name is not None and i not in described:
                counts = _combine(counts, {name: None}, _add)
                self.reasons.setdefault(
                    name, f"external call '{callee(op)}' accesses it with no listed dfb_effects"
                )
        return counts


def _sides(kernels: list[d.KernelOp]) -> dict[str, dict[str, list[str]]]:
    """For each DFB, the kernels that push and that pop it anywhere (over all paths)."""
    sides: dict[str, dict[str, list[str]]] = {}

    def note(name: str | None, kind: str, kernel: d.KernelOp) -> None:
        if name is not None and kind in ("push", "pop"):
            names = sides.setdefault(name, {}).setdefault(kind, [])
            if kernel.logical_kernel.data not in names:
                names.append(kernel.logical_kernel.data)

    for k in kernels:
        for op in k.walk():
            if isinstance(op, d.PushOp | d.PopOp):
                note(block_dfb(op.block)[0], "push" if isinstance(op, d.PushOp) else "pop", k)
            elif (deps := dependencies(op)) is not None:
                for e in dfb_effects(op):
                    note(dfb_name(deps[e.dependency_index.data]), e.kind.data.value, k)
    return sides


def _evaluations(op: d.OperationOp) -> dict[int, str]:
    """For each condition ordinal, the callees evaluating it (``'f' in kernel 'op.k'``)."""
    found: dict[int, list[str]] = {}
    for k in (x for x in op.body.ops if isinstance(x, d.KernelOp)):
        for inner in k.walk():
            ordinal = condition_ordinal(inner)
            if ordinal is not None:
                text = f"'{callee(inner)}' in '{k.logical_kernel.data}'"
                if text not in found.setdefault(ordinal, []):
                    found[ordinal].append(text)
    return {o: "evaluated by " + ", ".join(v) for o, v in found.items()}


def _fmt(vals: frozenset[int]) -> str:
    xs = sorted(vals)
    return (" or ".join(str(x) for x in xs)) + (" tile" if xs == [1] else " tiles")


def check_protocol(
    op: d.OperationOp, pass_name: str = "ttl-check-dfb-protocol"
) -> dict[str, ProtocolFact]:
    """Verify every DFB's traffic across kernels; return the verdict per DFB.

    Raises :class:`TTLPassError` at the ``ttl.dfb`` of an unbalanced DFB.
    """
    kernels = [k for k in op.body.ops if isinstance(k, d.KernelOp)]
    decls = {f.sym_name.data: f for f in op.body.ops if isinstance(f, d.DFBOp)}
    dfbs = list(decls)
    reasons: dict[str, str] = {}
    totals: dict[str, set[int]] = {n: set() for n in dfbs}
    undecided: dict[str, str] = {}
    sides = _sides(kernels)

    def two_sided(name: str) -> bool:
        return set(sides.get(name, {})) == {"push", "pop"}

    evaluations = _evaluations(op)
    complete = {k.is_compute for k in kernels} == {True, False}
    for env in assignments(declared_conditions(op)):
        per_kernel = [(k, KernelCounter(k, env, reasons).block(k.body.block)) for k in kernels]
        for name in dfbs:
            vals = [(k, c.get(name, _ZERO)) for k, c in per_kernel]
            if any(v is None for _, v in vals):
                undecided.setdefault(name, reasons.get(name, "its traffic is not static"))
                continue
            pushed: Vals = _ZERO
            for _, v in vals:
                pushed = _add(pushed, v)
            if pushed is None:
                undecided.setdefault(name, "too many possible tile counts")
                continue
            produced = {p for p, _ in pushed}
            consumed = {c for _, c in pushed}
            if not two_sided(name):
                # Tiles pushed that nobody pops, or the reverse, in an operation with
                # kernels of both kinds (fewer: a compile-only fragment). That is an
                # error only where it hangs on every path: a wait with no producer, or
                # more pushes than the DFB holds. A kernel may stage data through blocks
                # it reserves and pushes into a DFB nobody reads (the spec's pipe
                # examples), and data that fits is simply left there.
                if complete and (min(consumed) > 0 or min(produced) > _capacity(decls[name])):
                    _one_sided(name, sides.get(name, {}), decls[name], pass_name)
                undecided.setdefault(name, "only one side (producer or consumer) is visible")
                continue
            if not produced & consumed:
                known = [(k, v) for k, v in vals if v is not None]  # all, checked above
                _unbalanced(name, known, sides[name], env, evaluations, decls[name], pass_name)
            if len(produced) == 1 and produced == consumed:
                totals[name] |= produced
            else:
                undecided.setdefault(
                    name,
                    "its tile counts depend on a runtime condition that is not a "
                    "ttl.DispatchCondition evaluated by both sides",
                )
    return {
        n: ProtocolFact(False, (), undecided[n])
        if n in undecided
        else ProtocolFact(True, tuple(sorted(totals[n])), BALANCED)
        for n in dfbs
    }


@dataclass(frozen=True)
class CheckDFBProtocolPass(ModulePass):
    """Checks produced = consumed tiles per DFB on every path; records ``protocol`` on each
    ``ttl.dfb``."""

    name = "ttl-check-dfb-protocol"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for operation in ttl_operations(op):
            facts = check_protocol(operation, self.name)
            for f in operation.body.ops:
                if isinstance(f, d.DFBOp):
                    f.protocol = facts[f.sym_name.data].to_attr()


def _capacity(decl: d.DFBOp) -> int:
    """The tiles ``decl``'s DFB holds: its blocks' pages."""
    return decl.block_count.value.data * decl.dfb_type.num_tiles


def _one_sided(
    name: str, sides: Mapping[str, list[str]], decl: d.DFBOp, pass_name: str
) -> NoReturn:
    if "push" in sides:
        what = (
            f"is pushed by kernel '{sides['push'][0]}' but no kernel pops it, and it "
            f"holds only {_capacity(decl)} tiles: a reserve() beyond them waits forever"
        )
        fix = "wait on it in the kernel that consumes it"
    else:
        what = f"is popped by kernel '{sides['pop'][0]}' but no kernel pushes it"
        if decl.is_tensor_backed:  # its data is in its tensor's shard already
            raise TTLPassError(
                pass_name,
                decl,
                f"DFB '{name}' {what}",
                f"publish the tensor-backed input: {name}.publish() in a data-movement kernel",
            )
        fix = "reserve and push it in the kernel that produces it"
    raise TTLPassError(
        pass_name,
        decl,
        f"DFB '{name}' {what}",
        f"{fix} (is that kernel missing its @ttl.compute() or @ttl.datamovement() decorator?)",
    )


def _unbalanced(
    name: str,
    vals: list[tuple[d.KernelOp, frozenset[tuple[int, int]]]],
    sides: Mapping[str, list[str]],
    env: Mapping[int, bool],
    evaluations: Mapping[int, str],
    decl: d.DFBOp,
    pass_name: str,
) -> NoReturn:
    def side(index: int, verb: str) -> str:
        kernels = sides["push" if index == 0 else "pop"]
        return " and ".join(
            f"kernel '{k.logical_kernel.data}' {verb} {_fmt(frozenset(x[index] for x in v))}"
            for k, v in vals
            if k.logical_kernel.data in kernels
        )

    when = ""
    if env:
        when = " when " + ", ".join(
            f"dispatch condition #{o} ({evaluations[o]}) is {'true' if t else 'false'}"
            for o, t in sorted(env.items())
        )
    raise TTLPassError(
        pass_name,
        decl,
        f"DFB '{name}' is unbalanced{when}: {side(0, 'pushes')} but {side(1, 'pops')}",
        "make the producers push as many tiles as the consumers pop on every path; guard "
        "conditional traffic on both sides with evaluations of one ttl.DispatchCondition",
    )
