"""Block expressions: the trees ``+ - * / @``, ``ttl.math.*``, broadcast and fill build.

The frontend builds an immutable tree while walking the kernel; ``store``
lowers it to ``ttl`` ops with shapes resolved top-down, so a broadcast or a
fill without an explicit shape takes it from its context (the other operand,
or the stored block).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, fields

from xdsl.dialects.builtin import bf16, f32
from xdsl.ir import Attribute, Operation, SSAValue

from ttl.compiler import dialect as d
from ttl.compiler.frontend.values import BlockHandle
from ttl.specs import TILE

Shape = tuple[int, ...]


@dataclass(frozen=True)
class Expr:
    """Base of block-expression nodes; ``node`` is the AST that built it."""

    node: ast.AST


@dataclass(frozen=True)
class Leaf(Expr):
    block: BlockHandle
    view: Shape | None = None  # ttl.math.unsqueeze/squeeze: the shape it is read at

    @property
    def shape(self) -> Shape:
        return self.block.dfb.shape if self.view is None else self.view


@dataclass(frozen=True)
class Binary(Expr):
    op: str  # add, sub, mul, div
    lhs: Expr
    rhs: Expr


@dataclass(frozen=True)
class BinaryFn(Expr):
    """``ttl.math.max/min``, comparisons, ``%`` and ``//`` (``fn``: a ``d.BinaryFnEnum`` value)."""

    fn: str
    lhs: Expr
    rhs: Expr


@dataclass(frozen=True)
class Scalar(Expr):
    """A block expression with a compile-time scalar (``fn``: a ``d.ScalarFnEnum`` value)."""

    fn: str
    operand: Expr
    value: float


@dataclass(frozen=True)
class Matmul(Expr):
    lhs: Expr
    rhs: Expr


@dataclass(frozen=True)
class Unary(Expr):
    fn: str
    operand: Expr
    params: tuple[float | int, ...] = ()  # ttl.math.UNARY_PARAMS values


@dataclass(frozen=True)
class Broadcast(Expr):
    operand: Expr
    dims: tuple[int, ...]
    shape: Shape | None


@dataclass(frozen=True)
class Fill(Expr):
    value: float
    shape: Shape | None


@dataclass(frozen=True)
class Reduce(Expr):
    kind: str  # sum, max (d.ReduceKindEnum values)
    operand: Expr
    scaler: Expr | None
    dims: tuple[int, ...]
    shape: Shape | None  # the result shape the program states (shape=), if any


@dataclass(frozen=True)
class Transpose(Expr):
    operand: Expr


@dataclass(frozen=True)
class Where(Expr):
    condition: Expr
    true_value: Expr
    false_value: Expr


@dataclass(frozen=True)
class Mask(Expr):
    operand: Expr
    mask: Expr
    posinf: bool


def leaf_blocks(e: Expr) -> list[BlockHandle]:
    """The blocks ``e`` reads, in tree order."""
    if isinstance(e, Leaf):
        return [e.block]
    out: list[BlockHandle] = []
    for f in fields(e):
        v = getattr(e, f.name)
        if isinstance(v, Expr):
            out += leaf_blocks(v)
    return out


def leaf_dtypes(e: Expr) -> list[str]:
    """The dtypes of the blocks ``e`` reads, in tree order."""
    return [b.dfb.dtype for b in leaf_blocks(e)]


def dst_dtype(dtype: str) -> str:
    """The dtype of ``dtype``'s tiles in DST: block-float tiles unpack to bf16 values."""
    return "bf16" if dtype == "bfp8" else dtype


def element_type(dtype: str) -> Attribute:
    """The xDSL element type of a TT-Lang dtype."""
    if dtype == "bfp8":
        return d.Bfp8Type()
    return f32 if dtype == "f32" else bf16


def _fmt(shape: Shape) -> str:
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


ErrorFn = Callable[[str, ast.AST, str], Exception]


class ExprLowering:
    """Lowers one stored expression tree to ttl ops via ``emit``."""

    def __init__(
        self,
        emit: Callable[[Operation], Operation],
        error: ErrorFn,
        dtype: str,
        mixed: bool = False,
        layout: str = TILE,
    ):
        self.emit = emit
        self.error = error
        self.dtype = dtype
        self.layout = layout  # of every block of the store (frontend/row_major.py)
        self.mixed = mixed  # an accumulator store: operands of any dtype (unpacked to DST)
        self.elem = element_type(dst_dtype(dtype))
        self._reads: dict[tuple[SSAValue, Shape], SSAValue] = {}

    # ------------------------------------------------------------ shapes
    def shape_of(self, e: Expr) -> Shape | None:
        """The shape ``e`` has on its own, or None if it comes from context."""
        if isinstance(e, Leaf):
            return e.shape
        if isinstance(e, Binary):
            return self.shape_of(e.lhs) or self.shape_of(e.rhs)
        if isinstance(e, Matmul):
            a, b = self.shape_of(e.lhs), self.shape_of(e.rhs)
            return d.matmul_shape(a, b) if a and b else None
        if isinstance(e, BinaryFn):
            return self.shape_of(e.lhs) or self.shape_of(e.rhs)
        if isinstance(e, Scalar):
            return self.shape_of(e.operand)
        if isinstance(e, Unary):
            return self.shape_of(e.operand)
        if isinstance(e, Broadcast | Fill):
            return e.shape
        if isinstance(e, Reduce):
            return self._reduce_shape(e)
        if isinstance(e, Transpose):
            s = self.shape_of(e.operand)
            if s is not None and len(s) != 2:
                raise self.error(
                    f"transpose needs a 2-D block, got a {_fmt(s)} block",
                    e.node,
                    "transpose (M, N) blocks; index or reshape higher-rank blocks first",
                )
            return None if s is None else tuple(reversed(s))
        if isinstance(e, Where):
            return self._same_shape("where()", e.condition, e.true_value, e.false_value)
        if isinstance(e, Mask):
            return self._same_shape(_mask_name(e), e.operand, e.mask)
        raise AssertionError(type(e))

    def _tiles(self, shape: Shape) -> d.TilesType:
        return d.TilesType(shape, self.elem, self.layout)

    # ------------------------------------------------------------ lowering
    def lower(self, e: Expr, expected: Shape | None) -> SSAValue:
        """Emit ops computing ``e``; ``expected`` is the shape its context wants."""
        method = getattr(self, "_lower_" + type(e).__name__.lower())
        return method(e, expected)

    def _lower_leaf(self, e: Leaf, expected: Shape | None) -> SSAValue:
        blk = e.block
        # One read per block (and view) per store: the same block used twice is one operand.
        key = (blk.value, e.shape)
        if key not in self._reads:
            # Operands of another dtype than the stored block's are unpacked to its dtype
            # in DST (the unpacker converts any format), so the element-wise ops see one
            # tile type; the packer writes the stored block's format.
            # Block-float tiles unpack to bf16 values (dst_dtype).
            convert = self.mixed or element_type(blk.dfb.dtype) != self.elem
            read = d.ReadOp(blk.value, e.view, self.elem if convert else None)
            self._reads[key] = self.emit(read).results[0]
        return self._reads[key]

    def _lower_binary(self, e: Binary, expected: Shape | None) -> SSAValue:
        lhs, rhs, shape = self._lower_operands(e.lhs, e.rhs, _OP_SYMBOLS[e.op], e.node, expected)
        return self.emit(d.BINARY_OPS[e.op](lhs, rhs, self._tiles(shape))).results[0]

    def _lower_binaryfn(self, e: BinaryFn, expected: Shape | None) -> SSAValue:
        what = _FN_SYMBOLS.get(e.fn, f"ttl.math.{e.fn}")
        lhs, rhs, _ = self._lower_operands(e.lhs, e.rhs, what, e.node, expected)
        return self.emit(d.BinaryFnOp(d.BinaryFnEnum(e.fn), lhs, rhs)).results[0]

    def _lower_operands(
        self, lhs: Expr, rhs: Expr, what: str, node: ast.AST, expected: Shape | None
    ) -> tuple[SSAValue, SSAValue, Shape]:
        """Both operands of an element-wise binary, lowered at their common shape."""
        ls, rs = self.shape_of(lhs), self.shape_of(rhs)
        if ls and rs and ls != rs:
            raise self.error(
                f"operands of '{what}' have shapes {_fmt(ls)} and {_fmt(rs)}",
                node,
                "use operands of one shape, or ttl.math.broadcast(x, dims=[...]) to expand "
                "a size-1 dimension",
            )
        shape = ls or rs or expected
        if shape is None:
            raise self.error(
                "cannot infer the shape of this expression",
                node,
                "give the broadcast or fill an explicit shape=(rows, cols)",
            )
        return self.lower(lhs, shape), self.lower(rhs, shape), shape

    def _lower_scalar(self, e: Scalar, expected: Shape | None) -> SSAValue:
        operand = self.lower(e.operand, expected)
        return self.emit(d.ScalarOp(d.ScalarFnEnum(e.fn), operand, e.value)).results[0]

    def _block_operand(self, e: Expr, what: str) -> Leaf:
        """The waited block ``e`` that ``what`` reads from the front of its DFB: the
        frontend's ``materialize_operand`` made every other operand one."""
        assert isinstance(e, Leaf) and e.block.acquire != "reserve", f"unmaterialized {what}"
        return e

    def _lower_matmul(self, e: Matmul, expected: Shape | None) -> SSAValue:
        a = self._block_operand(e.lhs, "'@'")
        b = self._block_operand(e.rhs, "'@'")
        sa, sb = a.shape, b.shape
        shape = d.matmul_shape(sa, sb)
        if shape is None:
            raise self.error(
                f"cannot multiply blocks of shapes {_fmt(sa)} and {_fmt(sb)}",
                e.node,
                "'@' needs (M, K) @ (K, N) blocks, or batched (B, M, K) @ (B, K, N) with "
                "equal batch dims (ttl.math.broadcast a (1, K, N) operand to (B, K, N))",
            )
        lhs, rhs = self.lower(a, None), self.lower(b, None)
        return self.emit(d.MatmulOp(lhs, rhs, self._tiles(shape))).results[0]

    def _lower_unary(self, e: Unary, expected: Shape | None) -> SSAValue:
        operand = self.lower(e.operand, expected)
        return self.emit(d.UnaryOp(d.UnaryFnEnum(e.fn), operand, e.params)).results[0]

    def _lower_broadcast(self, e: Broadcast, expected: Shape | None) -> SSAValue:
        src = self._block_operand(e.operand, "a broadcast")
        shape = e.shape or expected
        if shape is None:
            raise self.error(
                "cannot infer the shape this broadcast expands to",
                e.node,
                "pass shape=(rows, cols), or use it in an expression with a full-size block",
            )
        self.check_broadcast(src.shape, e.dims, shape, e.node)
        operand = self.lower(src, None)
        return self.emit(d.BroadcastOp(operand, e.dims, self._tiles(shape))).results[0]

    def check_broadcast(
        self, sshape: Shape, dims: tuple[int, ...], shape: Shape, node: ast.AST
    ) -> None:
        """A located error unless a ``sshape`` block broadcasts along ``dims`` to ``shape``."""
        rank = len(shape)
        e = Broadcast(node, Fill(node, 0.0, None), dims, shape)
        if len(sshape) != rank or any(not -rank <= x < rank for x in e.dims) or not e.dims:
            raise self.error(
                f"cannot broadcast a {_fmt(sshape)} block along dims {list(e.dims)} "
                f"to {_fmt(shape)}",
                e.node,
                "broadcast keeps the rank; dims index the size-1 dimensions (e.g. dims=[-1])",
            )
        bdims = {x % rank for x in e.dims}
        for i in range(rank):
            want = 1 if i in bdims else shape[i]
            if sshape[i] != want:
                raise self.error(
                    f"cannot broadcast a {_fmt(sshape)} block along dims {list(e.dims)} "
                    f"to {_fmt(shape)}: dimension {i} must be {want}",
                    e.node,
                    "broadcast only size-1 dimensions; the others must match the result",
                )

    def _lower_fill(self, e: Fill, expected: Shape | None) -> SSAValue:
        shape = e.shape or expected
        if shape is None:
            raise self.error(
                "cannot infer the shape of this fill", e.node, "pass shape=(rows, cols)"
            )
        return self.emit(d.FillOp(e.value, self._tiles(shape))).results[0]

    # ------------------------------------------------ reduce, transpose, where, mask
    def _reduce_shape(self, e: Reduce) -> Shape | None:
        """The result shape of a reduction (the operand's with ``dims`` reduced to 1)."""
        src = self.shape_of(e.operand)
        if src is None:
            return e.shape
        rank, name = len(src), f"reduce_{e.kind}"
        bad = [x for x in e.dims if not -rank <= x < rank]
        if bad:
            raise self.error(
                f"{name} dims {list(e.dims)} are out of range for a {_fmt(src)} block",
                e.node,
                f"a {rank}-D block has dims {-rank}..{rank - 1} (e.g. dims=[-1] for the last)",
            )
        shape = d.reduced_shape(src, e.dims)
        if e.shape is not None and e.shape != shape:
            raise self.error(
                f"{name} of a {_fmt(src)} block over dims {list(e.dims)} has shape "
                f"{_fmt(shape)}, not {_fmt(e.shape)}",
                e.node,
                f"write shape={_fmt(shape)}, or leave shape= out",
            )
        return shape

    def _same_shape(self, what: str, *operands: Expr) -> Shape | None:
        shapes = [self.shape_of(x) for x in operands]
        known = [s for s in shapes if s is not None]
        if any(s != known[0] for s in known):
            listed = ", ".join("?" if s is None else _fmt(s) for s in shapes)
            raise self.error(
                f"operands of {what} have shapes {listed}",
                operands[0].node,
                "use operands of one shape, or ttl.math.broadcast(x, dims=[...]) to expand "
                "a size-1 dimension",
            )
        return known[0] if known else None

    def _lower_reduce(self, e: Reduce, expected: Shape | None) -> SSAValue:
        name = f"reduce_{e.kind}"
        src = self._block_operand(e.operand, name)
        shape = self._reduce_shape(e)
        assert shape is not None
        rank = len(shape)
        scaler: SSAValue
        if e.scaler is None:
            scaler = self.emit(d.FillOp(1.0, self._tiles((1,) * rank))).results[0]
        else:
            scaler = self.lower(self._block_operand(e.scaler, f"the scaler of {name}"), None)
        operand = self.lower(src, None)
        op = d.ReduceOp(d.ReduceKindEnum(e.kind), operand, scaler, e.dims, self._tiles(shape))
        return self.emit(op).results[0]

    def _lower_transpose(self, e: Transpose, expected: Shape | None) -> SSAValue:
        src = self._block_operand(e.operand, "transpose")
        sshape = src.shape
        if len(sshape) != 2:
            raise self.error(
                f"transpose needs a 2-D block, got a {_fmt(sshape)} block",
                e.node,
                "transpose (M, N) blocks; index or reshape higher-rank blocks first",
            )
        operand = self.lower(src, None)
        return self.emit(d.TransposeOp(operand, self._tiles((sshape[1], sshape[0])))).results[0]

    def _lower_where(self, e: Where, expected: Shape | None) -> SSAValue:
        shape = self._same_shape("where()", e.condition, e.true_value, e.false_value) or expected
        cond = self.lower(e.condition, shape)
        t = self.lower(e.true_value, shape)
        f = self.lower(e.false_value, shape)
        return self.emit(d.WhereOp(cond, t, f)).results[0]

    def _lower_mask(self, e: Mask, expected: Shape | None) -> SSAValue:
        shape = self._same_shape(_mask_name(e), e.operand, e.mask) or expected
        x = self.lower(e.operand, shape)
        m = self.lower(e.mask, shape)
        return self.emit(d.MaskOp(x, m, e.posinf)).results[0]


_OP_SYMBOLS = {"add": "+", "sub": "-", "mul": "*", "div": "/"}
_FN_SYMBOLS = {
    "gt": ">",
    "lt": "<",
    "ge": ">=",
    "le": "<=",
    "eq": "==",
    "ne": "!=",
    "mod": "%",
    "floordiv": "//",
}


def _mask_name(e: Mask) -> str:
    return "mask_posinf()" if e.posinf else "mask()"
