"""Row-major tensors and DFBs in kernels: the checks the frontend makes for them.

A row-major DFB (made like a row-major tensor) has its block shape in elements.
Copies move row slices between such a tensor and its blocks; compute runs the
element-wise block operators and math functions on them (what tt-lang-sim
1.1.6 allows). Reductions, broadcasts, transposes and matmul need tiles, and
mixing row-major and tiled blocks in one expression is an error there too.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import fields
from typing import NoReturn

from ttl import dsl
from ttl.compiler.frontend import block_expr as bx
from ttl.compiler.frontend.values import BlockHandle
from ttl.specs import ROW_MAJOR, TILE

FailFn = Callable[[str, ast.AST, str], NoReturn]

# Block-expression nodes that need tiles, with the name a program spells them by.
_TILE_ONLY = {
    bx.Matmul: "matmul (@)",
    bx.Reduce: "ttl.math.reduce_sum/reduce_max",
    bx.Broadcast: "ttl.math.broadcast",
    bx.Transpose: "ttl.math.transpose",
}


def _squeezed(shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(n for n in shape if n != 1)


def copy_shapes_match(
    tensor: dsl.TensorArg, sizes: tuple[int, ...], block: tuple[int, ...]
) -> bool:
    """Whether a slice of ``sizes`` fills a block of shape ``block``.

    Tiled: the same shape. Row-major: the same elements in the same order, so the
    shapes agree once their size-1 dimensions are dropped (``x[n, h, w, :]`` of an
    (N, H, W, C) tensor fills a (C,) block).
    """
    if tensor.spec.is_row_major:
        return _squeezed(sizes) == _squeezed(block)
    return sizes == block


def check_copy_layouts(tensor: dsl.TensorArg, dfb: dsl.DataflowBuffer, node: ast.AST, fail: FailFn):
    """A copy's tensor and block must have one layout (tt-lang-sim: "Layout mismatch")."""
    if tensor.spec.layout == dfb.layout:
        return
    fail(
        f"ttl.copy between tensor '{tensor.name}' ({_name(tensor.spec.layout)}) and a block "
        f"of DFB '{dfb.name}' ({_name(dfb.layout)}): the layouts differ",
        node,
        f"make the DFB like a {_name(tensor.spec.layout)} tensor "
        f"(ttl.make_dataflow_buffer_like({tensor.name}, ...))",
    )


def _name(layout: str) -> str:
    return "row-major" if layout == ROW_MAJOR else "tiled"


def _leaves(e: bx.Expr) -> list[bx.Leaf]:
    if isinstance(e, bx.Leaf):
        return [e]
    out: list[bx.Leaf] = []
    for f in fields(e):
        v = getattr(e, f.name)
        if isinstance(v, bx.Expr):
            out += _leaves(v)
    return out


def _tile_only(e: bx.Expr) -> list[tuple[str, bx.Expr]]:
    """The tile-only operations of ``e`` (outermost first)."""
    found = [(name, e) for kind, name in _TILE_ONLY.items() if isinstance(e, kind)]
    if isinstance(e, bx.Leaf) and e.view is not None:
        found.append(("ttl.math.unsqueeze/squeeze", e))
    for f in fields(e):
        v = getattr(e, f.name)
        if isinstance(v, bx.Expr):
            found += _tile_only(v)
    return found


def expression_layout(stored: BlockHandle, expr: bx.Expr, fail: FailFn) -> str:
    """The layout a store of ``expr`` into ``stored`` computes in.

    Every block of the store has one layout; a row-major store uses element-wise
    operations only. Anything else is a located error naming the operation and DFB.
    """
    handles = [stored, *(leaf.block for leaf in _leaves(expr))]
    row_major = [h.dfb for h in handles if h.dfb.is_row_major]
    if not row_major:
        return TILE
    ops = _tile_only(expr)
    if ops:
        name, at = ops[0]
        # Name the operand's row-major DFB when it has one, else the stored block's.
        operands = [leaf.block.dfb for leaf in _leaves(at) if leaf.block.dfb.is_row_major]
        dfb = (operands or row_major)[0]
        fail(
            f"{name} is not supported on row-major blocks (DFB '{dfb.name}' is "
            "row-major: its shape unit is an element, and this operation works on 32x32 tiles)",
            at.node,
            "make the DFB like a TILE_LAYOUT tensor (ttnn.from_torch(..., "
            "layout=ttnn.TILE_LAYOUT), or ttnn.to_layout) for this computation; row-major "
            "blocks take element-wise operators and ttl.math functions",
        )
    accumulators = [h for h in handles if h.accumulator]
    if accumulators:  # compiler-made accumulator blocks hold tiles
        fail(
            f"accumulator '{accumulators[0].name}' (a name updated with +=) holds tiles, but "
            f"DFB '{row_major[0].name}' is row-major: accumulators are not supported on "
            "row-major blocks",
            expr.node,
            "accumulate in a reserved row-major block instead: o.store(x), then o += y",
        )
    tiled = [h.dfb for h in handles if not h.dfb.is_row_major]
    if tiled:
        fail(
            f"this expression mixes blocks of row-major DFB '{row_major[0].name}' and tiled "
            f"DFB '{tiled[0].name}'; an expression's blocks must share one layout",
            expr.node,
            "make every DFB of the expression like tensors of one layout (convert the "
            "tensor with ttnn.to_layout, or pass both as row-major)",
        )
    return ROW_MAJOR
