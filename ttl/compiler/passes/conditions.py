"""Dispatch-condition identity in the IR: which branch conditions are declared conditions.

A ``ttl.call_extern`` with ``condition = #ttl.dispatch_condition<ordinal, ty>``
evaluates declaration ``ordinal``; equal attributes in one module identify
one ``ttl.DispatchCondition`` (the frontend numbers declarations in first-use
order, comparing the Python objects by identity, so distinct declarations get
distinct ordinals even with equal C++ names or text).

:func:`truth` evaluates an ``i1`` branch condition under an assignment of
declared conditions, following ``!= 0`` / ``== 0`` tests of condition results,
``not`` (xor with true), ``and``, ``or`` and integer casts. Anything else
(runtime values, undeclared results, loop-carried values) is unknown: the
analyses that use it stay conservative.

Pass ``ttl-check-conditions`` (:class:`CheckConditionsPass`) checks the
identity invariant the analyses rely on: every ``#ttl.dispatch_condition``
with one ordinal has one scalar type (equal ordinals are one declaration).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from ttl.compiler import dialect as d
from ttl.compiler.passes.common import TTLPassError, ttl_operations

MAX_CONDITIONS = 10  # 2**10 assignments; beyond that every condition is treated as unknown


def condition_ordinal(op: Operation) -> int | None:
    """The declaration ordinal a condition-result call evaluates, else None."""
    cond = op.properties.get("condition") if isinstance(op, d.CallExternOp) else None
    return cond.ordinal.data if isinstance(cond, d.DispatchConditionAttr) else None


def declared_conditions(root: Operation) -> list[int]:
    """Sorted ordinals of the conditions evaluated anywhere under ``root``."""
    found = {o for op in root.walk() if (o := condition_ordinal(op)) is not None}
    return sorted(found)


def assignments(ordinals: list[int]) -> Iterator[dict[int, bool]]:
    """Every truth assignment of ``ordinals`` (none if there are too many: all unknown)."""
    if len(ordinals) > MAX_CONDITIONS:
        yield {}
        return
    for bits in range(1 << len(ordinals)):
        yield {o: bool(bits >> i & 1) for i, o in enumerate(ordinals)}


def _constant(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _source(value: SSAValue) -> SSAValue:
    """Look through integer casts."""
    while isinstance(value.owner, arith.ExtSIOp | arith.ExtUIOp | arith.TruncIOp):
        value = value.owner.operands[0]
    return value


def truth(value: SSAValue, env: Mapping[int, bool]) -> bool | None:
    """The truth of ``value`` (an integer tested for nonzero) under ``env``; None if unknown."""
    value = _source(value)
    const = _constant(value)
    if const is not None:
        return const != 0
    owner = value.owner
    ordinal = condition_ordinal(owner) if isinstance(owner, Operation) else None
    if ordinal is not None:
        return env.get(ordinal)
    if isinstance(owner, arith.CmpiOp) and owner.predicate.value.data in (0, 1):  # eq, ne
        lhs, rhs = owner.lhs, owner.rhs
        if _constant(_source(lhs)) == 0:
            lhs, rhs = rhs, lhs
        if _constant(_source(rhs)) != 0:
            return None
        t = truth(lhs, env)
        return None if t is None else (t if owner.predicate.value.data == 1 else not t)
    if isinstance(owner, arith.XOrIOp):
        a, b = truth(owner.lhs, env), truth(owner.rhs, env)
        return None if a is None or b is None else a != b
    if isinstance(owner, arith.AndIOp):
        a, b = truth(owner.lhs, env), truth(owner.rhs, env)
        if a is False or b is False:
            return False
        return None if a is None or b is None else True
    if isinstance(owner, arith.OrIOp):
        a, b = truth(owner.lhs, env), truth(owner.rhs, env)
        if a is True or b is True:
            return True
        return None if a is None or b is None else False
    return None


def check_conditions(op: d.OperationOp, pass_name: str = "ttl-check-conditions") -> None:
    """Raise if two condition-result calls of ``op`` share an ordinal but not a scalar type."""
    first: dict[int, d.CallExternOp] = {}
    for call in op.walk():
        if not isinstance(call, d.CallExternOp) or call.condition is None:
            continue
        ordinal = call.condition.ordinal.data
        seen = first.setdefault(ordinal, call)
        assert seen.condition is not None
        if seen.condition.scalar_type != call.condition.scalar_type:
            raise TTLPassError(
                pass_name,
                call,
                f"dispatch condition #{ordinal} is evaluated as {seen.condition.scalar_type} by "
                f"'{seen.callee.data}' and as {call.condition.scalar_type} by "
                f"'{call.callee.data}'",
                "equal #ttl.dispatch_condition ordinals name one ttl.DispatchCondition, which "
                "has one scalar type; give distinct declarations distinct ordinals",
            )


@dataclass(frozen=True)
class CheckConditionsPass(ModulePass):
    """Checks dispatch-condition identity: one ordinal, one scalar type (IR unchanged)."""

    name = "ttl-check-conditions"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for operation in ttl_operations(op):
            check_conditions(operation, self.name)
