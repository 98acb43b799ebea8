"""C++ for the debugging ops: ``ttl.print`` as TT-Metal DPRINTs, signpost zones.

The frontend fixed the layout (``parts``: text, scalars and the object, in
order); here the text and scalars become one ``DPRINT(format, ...)`` with the
object's static header (name, shape, dtype), and the object's contents the
TT-Metal calls that print them (``emit_print``).
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, StringAttr
from xdsl.ir import Block, Operation, SSAValue

from ttl.compiler import dialect as d


def cpp_string(text: str) -> str:
    """A C++ string literal for ``text`` (UTF-8; deterministic escapes)."""
    out = []
    for byte in text.encode():
        ch = chr(byte)
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif 32 <= byte < 127 and ch != "?":  # '?' would start trigraphs
            out.append(ch)
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def zone_statement(name: str) -> str:
    """``DeviceZoneScopedN("name");``: TT-Metal's profiler zone over the enclosing scope."""
    return f"DeviceZoneScopedN({cpp_string(name)});"


def zone_end(begin: d.SignpostBeginOp) -> d.SignpostEndOp:
    """The ``ttl.signpost_end`` that closes ``begin``: a later op of its block (zones nest)."""
    depth, op = 0, begin.next_op
    while op is not None:
        if isinstance(op, d.SignpostBeginOp):
            depth += 1
        elif isinstance(op, d.SignpostEndOp):
            if depth == 0:
                return op
            depth -= 1
        op = op.next_op
    raise AssertionError("a signpost_begin without its end in the same block")


def outliving_values(begin: d.SignpostBeginOp) -> list[SSAValue]:
    """Results of the ops of ``begin``'s zone that ops after the zone use, in order."""
    end = zone_end(begin)
    block = begin.parent_block()
    assert block is not None
    after: set[Operation] = set()
    op = end.next_op
    while op is not None:
        after.add(op)
        op = op.next_op
    found: list[SSAValue] = []
    op = begin.next_op
    while op is not None and op is not end:
        for r in op.results:
            if any(_ancestor_in(block, use.operation) in after for use in r.uses):
                found.append(r)
        op = op.next_op
    return found


def _ancestor_in(block: Block, op: Operation) -> Operation | None:
    """``op`` or the op of ``block`` that holds it (None if it is not inside ``block``)."""
    current: Operation | None = op
    while current is not None and current.parent_block() is not block:
        current = current.parent_op()
    return current


def emit_print(
    op: d.PrintOp,
    line: Callable[[str], None],
    indent: Callable[[int], None],
    val: Callable[[SSAValue], str],
    cb: Callable[[SSAValue], str],
    compute: bool,
) -> None:
    """TT-Metal's ``DPRINT(format, ...)`` statements of one ``ttl.print``.

    The text, scalars and the object's header are one call; the object's
    contents follow: a block's tiles and a staged tensor's pages row by row as
    ``TSLICE``s, a DFB's state through ``print_cb_details``. A compute kernel
    prints from one thread: the unpacker for a waited block (it reads the
    CB's front), else the packer.
    """
    obj = op.object
    waited = obj is not None and isinstance(obj.owner, d.WaitOp)
    dprint = ("DPRINT_UNPACK" if waited else "DPRINT_PACK") if compute else "DPRINT"

    def call(text: str, *args: str) -> None:
        line(f"{dprint}({', '.join([cpp_string(text), *args])});")

    text, args = "", []
    for part in op.parts.data:
        if isinstance(part, StringAttr):
            text += _fmt_literal(part.data)
            continue
        assert isinstance(part, IntegerAttr)
        value = op.values[part.value.data]
        if value is obj:  # its static header; its contents follow
            text += _fmt_literal(_header(obj))
        else:
            text += "{}"
            args.append(_scalar(value, val))
    end = _fmt_literal(op.end.data)
    t = obj.type if obj is not None else None
    if isinstance(t, d.DFBType):
        assert obj is not None
        call(text + "\n", *args)
        details = f"print_cb_details({cb(obj)})"  # its own line ends it
        line(f"PACK({details});" if compute else f"{details};")
        if op.end.data not in ("\n", ""):
            call(end)
    elif isinstance(t, d.BlockType):
        assert obj is not None
        call(text, *args)
        side = _slice_side(obj, compute)
        _tiles(line, indent, call, cb(obj), t.num_tiles, t.dims[-1], side, t.dtype)
        if end:
            call(end)
    elif isinstance(t, d.TensorType):
        assert obj is not None and op.staging is not None
        pages = op.num_pages.value.data if op.num_pages is not None else 1
        call(text + f"\n  Printing first {pages} page(s):", *args)
        _staged_pages(line, indent, call, obj, pages, cb(op.staging))
        if end:
            call(end)
    else:
        call(text + end, *args)


def _fmt_literal(text: str) -> str:
    """``text`` in a DPRINT format string: braces doubled."""
    return text.replace("{", "{{").replace("}", "}}")


def _scalar(value: SSAValue, val: Callable[[SSAValue], str]) -> str:
    text = val(value)
    if value.type == arith.IntegerType(1):
        return f'({text} ? "True" : "False")'
    if value.type == arith.IntegerType(64):
        return f"static_cast<int64_t>({text})"
    return f"static_cast<int32_t>({text})"


def _header(obj: SSAValue) -> str:
    """The static first line of the printed tensor, DFB or block."""
    t = obj.type
    if isinstance(t, d.TensorType):
        owner = obj.owner
        assert isinstance(owner, d.GetTensorOp)
        return f"<Tensor {owner.ref.root_reference.data} shape={_shape(t.dims)} dtype={t.dtype}>"
    if isinstance(t, d.DFBType):
        owner = obj.owner
        assert isinstance(owner, d.GetDFBOp)
        name = owner.ref.root_reference.data
        return f"<DataflowBuffer {name} shape={_shape(t.dims)} dtype={t.dtype}>"
    assert isinstance(t, d.BlockType)
    acquire = obj.owner
    assert isinstance(acquire, d.ReserveOp | d.WaitOp)
    dfb = acquire.dfb.owner
    assert isinstance(dfb, d.GetDFBOp)
    return f"<Block of {dfb.ref.root_reference.data} shape={_shape(t.dims)} dtype={t.dtype}>"


def _slice_side(block: SSAValue, compute: bool) -> str:
    """The TSLICE arguments after the range that pick ``block``'s side of its CB
    (a compute kernel's thread picks it: ``emit_print``)."""
    if compute:
        return ""
    if isinstance(block.owner, d.WaitOp):
        return "TSLICE_INPUT_CB, TSLICE_RD_PTR, "
    return "TSLICE_OUTPUT_CB, TSLICE_WR_PTR, "


def _row_slice(cb_name: str, tile: str, side: str, dtype: str) -> str:
    """A TileSlice of row ``row`` of tile ``tile`` of ``cb_name``: 32 values, untilized."""
    # TSLICE holds 64 bytes of data: a row of 16-bit values; f32 rows need 128.
    kind = "TileSlice<128>" if dtype == "f32" else "TSLICE"
    rng = "SliceRange{row, static_cast<uint8_t>(row + 1), 1, 0, 32, 1}"
    return f"{kind}({cb_name}, {tile}, {rng}, {side}false, true)"


def _tile_rows(line, indent, call, cb_name: str, tile: str, side: str, dtype: str) -> None:
    line("for (uint8_t row = 0; row < 32; ++row) {")
    indent(1)
    call("\n    {}", _row_slice(cb_name, tile, side, dtype))
    indent(-1)
    line("}")


def _tiles(line, indent, call, cb_name: str, tiles: int, cols: int, side: str, dtype: str):
    """A block's tiles in row-major order, each a label line and 32 rows."""
    line(f"for (uint32_t tile = 0; tile < {tiles}; ++tile) {{")
    indent(1)
    call("\n  tile ({}, {}):", f"tile / {cols}", f"tile % {cols}")
    _tile_rows(line, indent, call, cb_name, "tile", side, dtype)
    indent(-1)
    line("}")


def _staged_pages(line, indent, call, tensor: SSAValue, pages: int, staging: str):
    """Pages 0..pages-1 of ``tensor``, each read into ``staging``'s reserved page and
    printed from there (TT-Metal prints tiles from L1)."""
    t = tensor.type
    assert isinstance(t, d.TensorType)
    owner = tensor.owner
    assert isinstance(owner, d.GetTensorOp)
    accessor = f"tensor_{owner.ref.root_reference.data}"
    cols = -(-t.dims[-1] // 32)
    line(f"for (uint32_t page = 0; page < {pages}; ++page) {{")
    indent(1)
    line(f"cb_reserve_back({staging}, 1);")
    line(f"noc_async_read_page(page, {accessor}, get_write_ptr({staging}));")
    line("noc_async_read_barrier();")
    call("\n  page {} (tile ({}, {})):", "page", f"page / {cols}", f"page % {cols}")
    _tile_rows(line, indent, call, staging, "0", "TSLICE_OUTPUT_CB, TSLICE_WR_PTR, ", t.dtype)
    indent(-1)
    line("}")


def _shape(dims: tuple[int, ...]) -> str:
    return "(" + ", ".join(str(x) for x in dims) + ("," if len(dims) == 1 else "") + ")"
