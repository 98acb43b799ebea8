"""Compile-time values of the kernel frontend.

While walking a kernel's AST the frontend binds Python names to:

* plain Python ``int``/``bool``/``float`` for compile-time constants (folded);
* :class:`Dyn` for runtime scalars (an SSA value plus, when known, its
  :class:`Affine` form, used to prove slice extents static);
* :class:`BlockHandle` / :class:`TransferHandle` for DFB blocks and copies;
* :class:`SliceVal` for tensor slices and block-expression trees
  (:mod:`ttl.compiler.frontend.block_expr`);
* objects from the operation (tensors, DFBs, modules, intrinsics) as-is.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any

from xdsl.ir import SSAValue

from ttl.dsl import DataflowBuffer, TensorArg


@dataclass(frozen=True)
class Affine:
    """``const + sum(coef * var)`` over runtime SSA values (keys compared by identity)."""

    const: int
    terms: tuple[tuple[SSAValue, int], ...] = ()

    @staticmethod
    def var(v: SSAValue) -> Affine:
        return Affine(0, ((v, 1),))

    def _combine(self, other: Affine, sign: int) -> Affine:
        coefs: dict[SSAValue, int] = {}
        order: list[SSAValue] = []
        for v, c in self.terms + tuple((v, sign * c) for v, c in other.terms):
            if v not in coefs:
                order.append(v)
                coefs[v] = 0
            coefs[v] += c
        terms = tuple((v, coefs[v]) for v in order if coefs[v] != 0)
        return Affine(self.const + sign * other.const, terms)

    def add(self, other: Affine) -> Affine:
        return self._combine(other, 1)

    def sub(self, other: Affine) -> Affine:
        return self._combine(other, -1)

    def scale(self, k: int) -> Affine:
        if k == 0:
            return Affine(0)
        return Affine(self.const * k, tuple((v, c * k) for v, c in self.terms))

    @property
    def constant(self) -> int | None:
        return None if self.terms else self.const


@dataclass
class Dyn:
    """A runtime scalar: ``kind`` is ``int`` (i32) or ``bool`` (i1)."""

    value: SSAValue
    kind: str
    affine: Affine | None = None

    def __post_init__(self) -> None:
        # An int with no known form is its own opaque variable: (m + 1) * 2 - m * 2 is
        # still provably 2.
        if self.kind == "int" and self.affine is None:
            self.affine = Affine.var(self.value)


@dataclass
class Poison:
    """A name whose value cannot be used at this point (e.g. set inside a loop)."""

    reason: str
    hint: str = "define the value before the loop or branch"


@dataclass
class TransferHandle:
    """The handle ``ttl.copy`` returns."""

    value: SSAValue
    is_read: bool
    block: BlockHandle
    waited: bool = False
    node: ast.AST | None = None  # the ttl.copy call, for diagnostics about its block
    # A pipe receive given to ttl.wait_any: it may have completed there, so the first
    # use of its block (or its own wait()) takes it if wait_any did not.
    selectable: bool = False

    def where(self) -> str:
        """`` (the ttl.copy at line N)``, or nothing if its line is unknown."""
        line = getattr(self.node, "lineno", None)
        return f" (the ttl.copy at line {line})" if line else ""


@dataclass(frozen=True)
class ReadyReceive:
    """What ``ttl.wait_any`` returns: ``index()`` is the selected request's index (i32)."""

    value: SSAValue


@dataclass(frozen=True)
class ElementValue:
    """A value read with ``ttl.raw_element_read``: an f32's bits (a bf16 element
    widened) in an i32. Not a scalar: it is written to a block or compared (as the
    float it holds), nothing else (spec v0.18, "Limitations")."""

    value: SSAValue


@dataclass
class BlockHandle:
    """A block acquired from a DFB, with the protocol state the frontend checks."""

    value: SSAValue
    dfb: DataflowBuffer
    acquire: str  # "reserve" or "wait"
    node: ast.AST
    loop_depth: int
    name: str = ""
    with_line: int | None = None  # line of the `with` that releases it implicitly
    released_line: int | None = None
    stored: bool = False
    # Stored or copied into on some path (state MW left): a reserved block pushed
    # without it is an error. Not reset per branch, unlike ``stored``.
    written: bool = False
    unread: bool = False  # written and not read since (state MR): writing again is an error
    pending: list[TransferHandle] = field(default_factory=list)
    accumulator: bool = False  # a compiler-made block holding a `+=` accumulator
    region_depth: int = 0  # nesting of IR regions where it was acquired (straight-line checks)
    first_access: bool = False  # the kernel's first acquisition from its DFB
    # Waited-block replacement (spec v0.21): the waited block ``value`` replaced, now
    # read from a compiler DFB's block in ``value``; popped after it.
    replaced: SSAValue | None = None

    @property
    def release_name(self) -> str:
        return "push" if self.acquire == "reserve" else "pop"

    def describe(self) -> str:
        return f"block '{self.name}'" if self.name else f"block of '{self.dfb.name}'"


@dataclass
class SliceVal:
    """``tensor[...]`` in tile units: per-dimension offset (int or Dyn) and static size."""

    tensor: TensorArg
    offsets: list[int | Dyn]
    sizes: tuple[int, ...]
    node: ast.AST


@dataclass(frozen=True)
class PySlice:
    """``slice(lo, hi)`` in a kernel: tensor-index bounds (in tiles) to subscript with."""

    lower: Any
    upper: Any


@dataclass(frozen=True)
class BoundMethod:
    """``obj.method`` of a frontend value, awaiting its call."""

    obj: object
    method: str


IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def scalar_type(kind: str) -> Any:
    """The IR type of a scalar kind: ``bool`` i1, ``int`` i32, ``i64`` (external results) i64."""
    from xdsl.dialects.builtin import i1, i32, i64

    return {"bool": i1, "i64": i64}.get(kind, i32)


def is_scalar(v: Any) -> bool:
    """True for compile-time ints/bools and runtime scalars."""
    return isinstance(v, Dyn | int)  # bool is an int


def affine_of(v: Any) -> Affine | None:
    """The affine form of an integer value, if known."""
    if isinstance(v, Dyn):
        return v.affine
    if isinstance(v, int) and not isinstance(v, bool):
        return Affine(v)
    return None
