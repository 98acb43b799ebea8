"""C++ for row-major tensors: their DRAM page size and row-slice copies.

A row-major tensor is stored as TT-NN stores it in interleaved DRAM: one page
per row of the innermost dimension (``ttl.specs.TensorSpec.row_page_bytes``),
so a slice is a set of row segments, each contiguous in its page and in the
block (which holds the slice's elements in row-major order). A copy issues one
``noc_async_read``/``noc_async_write`` per row segment.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ttl.compiler import dialect as d
from ttl.compiler.emit.convert import Conversion
from ttl.specs import row_page_bytes
from ttl.targets import tile_bytes

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$|^[0-9]+$")


def element_bytes(dtype: str) -> int:
    return 4 if dtype == "f32" else 2


def tensor_page_bytes(t: d.TensorType) -> int:
    """The tensor's DRAM page: a tile, or one aligned row of a row-major tensor."""
    if not t.is_row_major:
        return tile_bytes(t.dtype)
    return row_page_bytes(t.dims[-1], element_bytes(t.dtype))


def _scaled(expr: str, factor: int) -> str:
    if factor == 1 or expr == "0":
        return expr
    if expr.isdigit():  # a constant offset: fold it
        return str(int(expr) * factor)
    return f"{expr if _IDENT.match(expr) else f'({expr})'} * {factor}"


def _sum(terms: list[str]) -> str:
    terms = [t for t in terms if t != "0"]
    return " + ".join(terms) or "0"


def _strides(shape: tuple[int, ...]) -> list[int]:
    out, acc = [], 1
    for n in reversed(shape):
        out.append(acc)
        acc *= n
    return out[::-1]


def row_major_copy_lines(
    is_read: bool,
    tname: str,
    tensor: d.TensorType,
    coords: list[str],
    sizes: tuple[int, ...],
    blk: str,
    fresh: Callable[[str], str],
    convert: Conversion | None = None,
) -> list[str]:
    """The loop nest of a row-major copy between ``tensor[coords : coords + sizes]``
    and the block at L1 address ``blk`` (coordinates are C++ expressions); with
    ``convert``, each row segment goes through its staging page (``emit/convert.py``)."""
    esize = element_bytes(tensor.dtype)
    outer_dims, outer_sizes = tensor.dims[:-1], sizes[:-1]
    row_strides, local_strides = _strides(outer_dims), _strides(outer_sizes)
    loops: list[tuple[str, int]] = []
    page_terms, local_terms = [], []
    for dim, (coord, size) in enumerate(zip(coords[:-1], outer_sizes, strict=True)):
        if size > 1:
            iv = fresh(f"row{dim}")
            loops.append((iv, size))
            coord = iv if coord == "0" else f"{coord} + {iv}"
            local_terms.append(_scaled(iv, local_strides[dim]))
        page_terms.append(_scaled(coord, row_strides[dim]))
    run = sizes[-1] * esize  # bytes of one row segment in DRAM
    block_run = run if convert is None else sizes[-1] * element_bytes(convert.block_dtype)
    noc = f"tensor_{tname}.get_noc_addr({_sum(page_terms)}, {_scaled(coords[-1], esize)})"
    local = _sum(local_terms)
    l1 = blk if local == "0" else f"{blk} + {_scaled(local, block_run)}"
    if convert is None:
        calls = [
            f"noc_async_read({noc}, {l1}, {run});"
            if is_read
            else f"noc_async_write({l1}, {noc}, {run});"
        ]
    else:
        staged = convert.staged
        transfer = (
            f"noc_async_read({noc}, {staged}, {run});"
            if is_read
            else f"noc_async_write({staged}, {noc}, {run});"
        )
        calls = convert.around(transfer, l1, sizes[-1])
    lines, depth = [], ""
    for iv, size in loops:
        lines.append(f"{depth}for (uint32_t {iv} = 0; {iv} < {size}; ++{iv}) {{")
        depth += "  "
    lines += [depth + call for call in calls]
    for _ in loops:
        depth = depth[:-2]
        lines.append(depth + "}")
    return lines
