"""C++ for the debugging ops: ``ttl.print`` as a DPRINT statement, signpost zones.

The frontend fixed the layout (``parts``: text, scalars and the object, in
order); here the object becomes its static header (name, shape, dtype) and a
print item whose runtime contents the emulator formats.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, StringAttr
from xdsl.ir import Block, Operation, SSAValue

from ttl.compiler import dialect as d

# TTL_FMT_* of device_map.h, by tensor dtype.
_FORMAT = {"bf16": 5, "f32": 0, "bfp8": 6}


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


def print_statement(
    op: d.PrintOp,
    val: Callable[[SSAValue], str],
    cb: Callable[[SSAValue], str],
    tensors: dict[str, d.TensorOp],
) -> str:
    """``DPRINT << ... << ENDL();`` for one ``ttl.print``."""
    obj = op.object
    items: list[str] = []  # C++ operands; adjacent literals merged below
    for part in op.parts.data:
        if isinstance(part, StringAttr):
            items.append(cpp_string(part.data))
            continue
        assert isinstance(part, IntegerAttr)
        value = op.values[part.value.data]
        if value is obj:  # its static header, then its runtime contents
            header, item = _object(op, obj, cb, tensors)
            items += [cpp_string(header), item]
        else:
            items.append(_scalar(value, val))
    end = op.end.data
    if end == "\n":
        tail = "ENDL()"
    else:
        if end:
            items.append(cpp_string(end))
        tail = "ttl_print_flush()"
    return "DPRINT << " + " << ".join([*_merge_literals(items), tail]) + ";"


def _scalar(value: SSAValue, val: Callable[[SSAValue], str]) -> str:
    text = val(value)
    if value.type == arith.IntegerType(1):
        return f'({text} ? "True" : "False")'
    if value.type == arith.IntegerType(64):
        return f"static_cast<int64_t>({text})"
    return f"static_cast<int32_t>({text})"


def _object(
    op: d.PrintOp, obj: SSAValue, cb: Callable[[SSAValue], str], tensors: dict[str, d.TensorOp]
) -> tuple[str, str]:
    """(static header text, C++ print item) of the printed tensor, DFB or block."""
    t = obj.type
    if isinstance(t, d.TensorType):
        owner = obj.owner
        assert isinstance(owner, d.GetTensorOp)
        name = owner.ref.root_reference.data
        index = tensors[name].index.value.data
        pages = op.num_pages.value.data if op.num_pages is not None else 1
        cols = -(-t.dims[-1] // 32)
        header = f"<Tensor {name} shape={_shape(t.dims)} dtype={t.dtype}>"
        item = (
            f"ttl_print_tensor(get_arg_val<uint32_t>({index}), {pages}, {_FORMAT[t.dtype]}, {cols})"
        )
        return header, item
    if isinstance(t, d.DFBType):
        owner = obj.owner
        assert isinstance(owner, d.GetDFBOp)
        name = owner.ref.root_reference.data
        return f"<DataflowBuffer {name} shape={_shape(t.dims)} dtype={t.dtype}>", (
            f"ttl_print_dfb({cb(obj)})"
        )
    assert isinstance(t, d.BlockType)
    acquire = obj.owner
    assert isinstance(acquire, d.ReserveOp | d.WaitOp)
    dfb = acquire.dfb.owner
    assert isinstance(dfb, d.GetDFBOp)
    reserved = "true" if isinstance(acquire, d.ReserveOp) else "false"
    header = f"<Block of {dfb.ref.root_reference.data} shape={_shape(t.dims)} dtype={t.dtype}>"
    return header, f"ttl_print_block({cb(obj)}, {t.num_tiles}, {t.dims[-1]}, {reserved})"


def _shape(dims: tuple[int, ...]) -> str:
    return "(" + ", ".join(str(x) for x in dims) + ("," if len(dims) == 1 else "") + ")"


def _merge_literals(items: list[str]) -> list[str]:
    """Adjacent C++ string literals joined into one (one device call instead of two)."""
    out: list[str] = []
    for item in items:
        if item.startswith('"') and out and out[-1].startswith('"'):
            out[-1] = out[-1][:-1] + item[1:]
        else:
            out.append(item)
    return out
