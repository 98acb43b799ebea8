"""The integer range analysis behind ``ttl-prove-slice-bounds`` is sound.

Hypothesis builds random kernel arithmetic (``+ - * // %`` over a loop variable,
a node coordinate and constants), optionally guarded by a comparison, as IR
text; the analysis gives the range of the value at the guarded use, and every
value the expression takes over all loop iterations and nodes where the guard
holds must lie inside it. A range that is too narrow would drop a bounds check
that a real run needs. The pass's own cases are in ``passes/slice_bounds.mlir``.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

import pytest
from compiler_testlib import parse_ir
from hypothesis import given, settings
from hypothesis import strategies as st

from ttl.compiler import dialect as d
from ttl.compiler.analysis.ranges import I32, Interval, Scope, walk_kernel

GRID = (3, 2)
LOOP = (1, 6)  # for i in range(1, 6)
_OPS = {"+": "addi", "-": "subi", "*": "muli", "//": "floordivsi"}
_PREDICATES = {"<": "slt", "<=": "sle", ">": "sgt", ">=": "sge", "==": "eq", "!=": "ne"}
_COMPARE = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
}


@dataclass(frozen=True)
class Expr:
    """An expression tree: a leaf ("i", "x" or an int) or (op, left, right)."""

    node: object

    def value(self, i: int, x: int) -> int:
        n = self.node
        if n == "i":
            return i
        if n == "x":
            return x
        if isinstance(n, int):
            return n
        op, left, right = n  # type: ignore[misc]
        a, b = left.value(i, x), right.value(i, x)
        if op in ("//", "%") and b == 0:
            return 0  # never used: the run stops at ttl_check_divisor
        return {
            "+": a.__add__,
            "-": a.__sub__,
            "*": a.__mul__,
            "//": a.__floordiv__,
            "%": a.__mod__,
        }[op](b)


leaves = st.sampled_from(["i", "x", -3, -1, 0, 1, 2, 4, 7]).map(Expr)
exprs = st.recursive(
    leaves,
    lambda inner: st.tuples(st.sampled_from([*_OPS, "%"]), inner, inner).map(Expr),
    max_leaves=6,
)


class _Text:
    """IR text for expressions: one SSA value per node."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def value(self, e: Expr) -> str:
        n = e.node
        if n in ("i", "x"):
            return f"%{n}"
        if isinstance(n, int):
            line = f"arith.constant {n} : i32"
        else:
            op, left, right = n  # type: ignore[misc]
            a, b = self.value(left), self.value(right)
            if op == "%":  # as the frontend writes Python's floor modulo: a - (a // b) * b
                q = self._define(f"arith.floordivsi {a}, {b} : i32")
                line = f"arith.subi {a}, {self._define(f'arith.muli {q}, {b} : i32')} : i32"
            else:
                line = f"arith.{_OPS[op]} {a}, {b} : i32"
        return self._define(line)

    def _define(self, line: str) -> str:
        name = f"%v{len(self.lines)}"
        self.lines.append(f"{name} = {line}")
        return name


def _module(expr: Expr, guard: tuple[Expr, str, int] | None) -> str:
    text = _Text()
    body = text.lines
    offset = text.value(expr)
    use = f"%s = ttl.slice %a[{offset}] : !ttl.tensor<32x32xbf16> -> !ttl.slice<1xbf16>"
    if guard is None:
        inner = [use]
    else:
        left, predicate, bound = guard
        lhs = text.value(left)
        body += [
            f"%bound = arith.constant {bound} : i32",
            f"%cond = arith.cmpi {_PREDICATES[predicate]}, {lhs}, %bound : i32",
        ]
        inner = ["scf.if %cond {", use, "} else {", "}"]
    lines = "\n".join(body + inner)
    return f"""
builtin.module {{
  ttl.operation @op attributes {{grid = array<i64: {GRID[0]}, {GRID[1]}>,
      target = "wormhole_b0", identity = "t"}} {{
    ttl.tensor @a {{index = 0 : i64, tensor_type = !ttl.tensor<32x32xbf16>}}
    ttl.kernel @dm attributes {{kind = #ttl<kernel_kind data_movement>,
        logical_kernel = "op.dm"}} {{
      %a = ttl.get_tensor @a : !ttl.tensor<32x32xbf16>
      %x = ttl.node {{dim = 0 : i64}} : i32
      %lb = arith.constant {LOOP[0]} : i32
      %ub = arith.constant {LOOP[1]} : i32
      %one = arith.constant 1 : i32
      scf.for %i = %lb to %ub step %one : i32 {{
{lines}
      }}
    }}
  }}
}}
"""


def _range_at_slice(text: str) -> Interval:
    module = parse_ir(text)
    found: list[Interval] = []

    def visit(op, scope: Scope) -> None:
        if isinstance(op, d.SliceOp):
            found.append(scope.range_of(op.offsets[0]))

    kernel = next(op for op in module.walk() if isinstance(op, d.KernelOp))
    walk_kernel(kernel, GRID, visit)
    assert len(found) == 1
    return found[0]


def _has_zero_divisor(e: Expr, i: int, x: int) -> bool:
    n = e.node
    if not isinstance(n, tuple):
        return False
    op, left, right = n
    return (
        (op in ("//", "%") and right.value(i, x) == 0)
        or _has_zero_divisor(left, i, x)
        or _has_zero_divisor(right, i, x)
    )


def _assert_sound(expr: Expr, guard: tuple[Expr, str, int] | None) -> None:
    r = _range_at_slice(_module(expr, guard))
    for i in range(*LOOP):
        for x in range(GRID[0]):
            if _has_zero_divisor(expr, i, x):
                continue  # the run stops at ttl_check_divisor before the use
            if guard is not None:
                left, predicate, bound = guard
                if _has_zero_divisor(left, i, x):
                    continue
                if not _COMPARE[predicate](left.value(i, x), bound):
                    continue
            v = expr.value(i, x)
            if -(2**31) <= v < 2**31:
                assert r.lo <= v <= r.hi, (expr, guard, i, x, v, r)


@settings(max_examples=200, deadline=None)
@given(expr=exprs, data=st.data())
def test_every_value_a_use_sees_is_inside_its_range(expr, data):
    # The guard compares the used value itself, a variable, or another expression.
    guarded = st.sampled_from([expr, Expr("i"), Expr("x")]) | exprs
    guard = data.draw(
        st.none() | st.tuples(guarded, st.sampled_from(list(_PREDICATES)), st.integers(-4, 12))
    )
    _assert_sound(expr, guard)


_TWO_I_MINUS_X = Expr(("-", Expr(("*", Expr(2), Expr("i"))), Expr("x")))


@pytest.mark.parametrize("predicate", list(_PREDICATES))
@pytest.mark.parametrize("left", [Expr("i"), Expr("x"), _TWO_I_MINUS_X], ids=["i", "x", "2i-x"])
def test_every_comparison_refines_soundly(predicate, left):
    # Every bound from below the range to above it, on both sides of the edges.
    for bound in range(-2, 12):
        _assert_sound(left, (left, predicate, bound))
        _assert_sound(Expr(("+", left, Expr("x"))), (left, predicate, bound))


def test_known_facts_give_tight_ranges():
    # 2 * i + x for i in [1, 5], x in [0, 2]: exactly [2, 12].
    e = Expr(("+", Expr(("*", Expr(2), Expr("i"))), Expr("x")))
    assert _range_at_slice(_module(e, None)) == Interval(2, 12)
    # Guarded by x < 1: x is 0 inside.
    assert _range_at_slice(_module(e, (Expr("x"), "<", 1))) == Interval(2, 10)
    # Division by a range holding zero proves nothing.
    assert _range_at_slice(_module(Expr(("//", Expr(4), Expr("x"))), None)) == I32
    # (2 * i + x) % 4 is in [0, 3]; i % 7 is i (i < 7).
    assert _range_at_slice(_module(Expr(("%", e, Expr(4))), None)) == Interval(0, 3)
    assert _range_at_slice(_module(Expr(("%", Expr("i"), Expr(7))), None)) == Interval(1, 5)
