"""Integer ranges of kernel values, refined by the branch conditions that guard a use.

An interval analysis over the ``i32`` arithmetic the frontend emits (``arith``
constants, ``addi``/``subi``/``muli``/``floordivsi``, ``select``), with the
facts a kernel states about its integers: ``ttl.node`` lies inside the grid,
an ``scf.for`` variable lies in ``[lower, upper - 1]`` (steps are positive),
and inside ``scf.if`` a comparison (``<``, ``<=``, ``>``, ``>=``, ``==``, and
``and``/``or``/``not`` of them) holds or fails. Values computed from a refined
value are evaluated again in the refined scope, so ``r0 = row * 2`` computed
before ``if row < rows:`` is known to be small inside the branch.

Everything unknown is the whole ``i32`` range; an operation that could
overflow ``i32`` gives the whole range. The analysis is sound for the values
it names and says nothing more: a caller may drop a check only for what
:meth:`Scope.range_of` proves.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, i1
from xdsl.ir import Block, Operation, OpResult, Region, SSAValue

from ttl.compiler import dialect as d

_I32_MIN, _I32_MAX = -(2**31), 2**31 - 1


@dataclass(frozen=True)
class Interval:
    """The integers ``lo..hi``, both included (``lo <= hi``)."""

    lo: int
    hi: int

    def meet(self, other: Interval) -> Interval:
        """The intersection; ``self`` when it would be empty (an unreachable branch
        proves nothing, and keeping the wider range stays sound)."""
        lo, hi = max(self.lo, other.lo), min(self.hi, other.hi)
        return Interval(lo, hi) if lo <= hi else self

    def join(self, other: Interval) -> Interval:
        """The smallest interval holding both."""
        return Interval(min(self.lo, other.lo), max(self.hi, other.hi))


I32 = Interval(_I32_MIN, _I32_MAX)
"""Nothing known about an ``i32``."""


def _fit(lo: int, hi: int) -> Interval:
    # Outside i32 the device value wraps: nothing is known any more.
    return Interval(lo, hi) if lo >= _I32_MIN and hi <= _I32_MAX else I32


def _corners(a: Interval, b: Interval, fn: Callable[[int, int], int]) -> Interval:
    values = [fn(x, y) for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
    return _fit(min(values), max(values))


def _floordiv(a: Interval, b: Interval) -> Interval:
    if b.lo <= 0 <= b.hi:  # the divisor may be zero: the run stops (ttl_check_divisor)
        return I32
    return _corners(a, b, lambda x, y: x // y)  # monotone in each argument off zero


def _constant(op: arith.ConstantOp) -> Interval:
    value = op.value
    if not isinstance(value, IntegerAttr):
        return I32
    v = value.value.data
    if value.type == i1:  # true may be printed as -1 (signless): a bit
        v &= 1
    return Interval(v, v)


# (lhs, rhs) -> the bound the comparison puts on lhs, given rhs's range; rhs
# gets the mirrored predicate.
_BOUND: dict[str, Callable[[Interval], Interval]] = {
    "slt": lambda r: Interval(_I32_MIN, r.hi - 1),
    "sle": lambda r: Interval(_I32_MIN, r.hi),
    "sgt": lambda r: Interval(r.lo + 1, _I32_MAX),
    "sge": lambda r: Interval(r.lo, _I32_MAX),
    "eq": lambda r: r,
}
_MIRROR = {"slt": "sgt", "sle": "sge", "sgt": "slt", "sge": "sle", "eq": "eq", "ne": "ne"}
_NEGATE = {"slt": "sge", "sle": "sgt", "sgt": "sle", "sge": "slt", "eq": "ne", "ne": "eq"}


class Scope:
    """What is known at one point of a kernel: the facts of the enclosing loops and
    branches (inner scopes first), and ranges already evaluated here."""

    def __init__(self, grid: tuple[int, ...], parent: Scope | None = None):
        self.grid = grid
        self.parent = parent
        self.facts: dict[SSAValue, Interval] = {}
        self._memo: dict[SSAValue, Interval] = {}

    def child(self) -> Scope:
        """A nested scope (a region's body) that sees this scope's facts."""
        return Scope(self.grid, self)

    def _fact(self, value: SSAValue) -> Interval | None:
        scope: Scope | None = self
        while scope is not None:
            if value in scope.facts:
                return scope.facts[value]
            scope = scope.parent
        return None

    def range_of(self, value: SSAValue) -> Interval:
        """The range of ``value`` here (evaluated without recursion: long chains of
        arithmetic are fine)."""
        stack = [value]
        while stack:
            v = stack[-1]
            if self._known(v) is not None:
                stack.pop()
                continue
            owner = v.owner
            missing = [
                o for o in getattr(owner, "operands", ()) if self._known(o) is None
            ]  # (a block argument has no operands)
            if missing and isinstance(v, OpResult):
                stack.extend(missing)
                continue
            self._memo[v] = self._evaluate(v)
            stack.pop()
        known = self._known(value)
        assert known is not None
        return known

    def _known(self, value: SSAValue) -> Interval | None:
        fact = self._fact(value)
        return fact if fact is not None else self._memo.get(value)

    def _evaluate(self, value: SSAValue) -> Interval:
        op = value.owner
        if not isinstance(op, Operation):
            return I32  # a block argument with no fact: a while-loop value, an iter_arg
        r = self._known
        match op:
            case arith.ConstantOp():
                return _constant(op)
            case d.NodeOp():
                dim = op.dim.value.data
                return Interval(0, self.grid[dim] - 1) if dim < len(self.grid) else I32
            case arith.AddiOp():
                a, b = r(op.lhs), r(op.rhs)
                assert a and b
                return _fit(a.lo + b.lo, a.hi + b.hi)
            case arith.SubiOp():
                modulo = self._floor_mod(op)
                if modulo is not None:
                    return modulo
                a, b = r(op.lhs), r(op.rhs)
                assert a and b
                return _fit(a.lo - b.hi, a.hi - b.lo)
            case arith.MuliOp():
                a, b = r(op.lhs), r(op.rhs)
                assert a and b
                return _corners(a, b, lambda x, y: x * y)
            case arith.FloorDivSIOp():
                a, b = r(op.lhs), r(op.rhs)
                assert a and b
                return _floordiv(a, b)
            case arith.SelectOp():
                a, b = r(op.lhs), r(op.rhs)
                assert a and b
                return a.join(b)
            case _:
                return I32

    def _floor_mod(self, op: arith.SubiOp) -> Interval | None:
        """The range of Python's ``a % b``, which the frontend writes as
        ``a - (a // b) * b``, for a divisor known positive; None for other
        subtractions (the subtraction of ranges would lose that the two ``a``
        are the same value)."""
        product = op.rhs.owner
        if not isinstance(product, arith.MuliOp):
            return None
        quotient, divisor = product.lhs.owner, product.rhs
        if not (
            isinstance(quotient, arith.FloorDivSIOp)
            and quotient.lhs == op.lhs
            and quotient.rhs == divisor
        ):
            return None
        a, b = self.range_of(op.lhs), self.range_of(divisor)
        if b.lo <= 0:
            return None
        if a.lo >= 0 and a.hi < b.lo:
            return a  # a % b == a
        return Interval(0, b.hi - 1)

    def refine(self, condition: SSAValue, holds: bool) -> Scope:
        """A child scope in which ``condition`` (an ``i1``) is ``holds``."""
        scope = self.child()
        scope._learn(condition, holds)
        return scope

    def _learn(self, condition: SSAValue, holds: bool) -> None:
        op = condition.owner
        match op:
            case arith.CmpiOp():
                predicate = arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]
                if not holds:
                    predicate = _NEGATE.get(predicate, "")
                self._bound(op.lhs, predicate, op.rhs)
                self._bound(op.rhs, _MIRROR.get(predicate, ""), op.lhs)
            case arith.AndIOp() if holds:
                self._learn(op.lhs, True)
                self._learn(op.rhs, True)
            case arith.OrIOp() if not holds:
                self._learn(op.lhs, False)
                self._learn(op.rhs, False)
            case arith.XOrIOp() if self.range_of(op.rhs) == Interval(1, 1):
                self._learn(op.lhs, not holds)  # `not x` is x ^ true
            case _:
                pass

    def _bound(self, value: SSAValue, predicate: str, other: SSAValue) -> None:
        bound = _BOUND.get(predicate)
        if bound is not None:
            self.facts[value] = self.range_of(value).meet(bound(self.range_of(other)))
            self._memo.clear()  # values derived from it change


Visitor = Callable[[Operation, Scope], None]


def walk_kernel(kernel: d.KernelOp, grid: tuple[int, ...], visit: Visitor) -> None:
    """Calls ``visit(op, scope)`` for every operation of ``kernel``, in order, with
    the scope that holds at it."""
    _walk_region(kernel.body, Scope(grid), visit)


def _walk_region(region: Region, scope: Scope, visit: Visitor) -> None:
    for block in region.blocks:
        _walk_block(block, scope, visit)


def _walk_block(block: Block, scope: Scope, visit: Visitor) -> None:
    # (an explicit stack would only matter past Python's recursion limit, which
    # the driver raises for deep kernels)
    for op in block.ops:
        visit(op, scope)
        match op:
            case scf.ForOp():
                body = scope.child()
                lb, ub, step = (scope.range_of(v) for v in (op.lb, op.ub, op.step))
                if step.lo > 0 and lb.lo <= ub.hi - 1:
                    body.facts[op.body.block.args[0]] = Interval(lb.lo, ub.hi - 1)
                _walk_region(op.body, body, visit)
            case scf.IfOp():
                _walk_region(op.true_region, scope.refine(op.cond, True), visit)
                _walk_region(op.false_region, scope.refine(op.cond, False), visit)
            case _:
                for region in op.regions:
                    _walk_region(region, scope.child(), visit)
