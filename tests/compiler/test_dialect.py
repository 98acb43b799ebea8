"""IR invariants of the ttl dialect (verify_ methods)."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import ModuleOp, bf16, f32
from xdsl.ir import Block, Region, SSAValue
from xdsl.utils.exceptions import VerifyException

from ttl.compiler import dialect as d

T22 = d.TilesType((2, 2), bf16)


def add(kb: Block, op):
    kb.add_op(op)
    return op


def build(kind: d.KernelKindEnum, body: Callable[[Block], None]) -> ModuleOp:
    top = Block()
    top.add_op(d.TensorOp("a", 0, d.TensorType((64, 64), bf16)))
    top.add_op(d.DFBOp("a_dfb", "a", d.DFBType((2, 2), bf16), 2, 2048))
    top.add_op(d.DFBOp("s_dfb", "a", d.DFBType((1, 1), bf16), 1, 2048))
    kb = Block()
    body(kb)
    top.add_op(d.KernelOp("k", kind, "op.k", Region(kb)))
    return ModuleOp([d.OperationOp("op", (1, 1), "wormhole_b0", "id", Region(top))])


def dfb(kb: Block) -> SSAValue:
    return add(kb, d.GetDFBOp("a_dfb", d.DFBType((2, 2), bf16))).results[0]


def test_valid_module_verifies():
    def body(kb):
        w = add(kb, d.WaitOp(dfb(kb)))
        r = add(kb, d.ReserveOp(dfb(kb)))
        v = add(kb, d.ReadOp(w.result))
        s = add(kb, d.AddOp(v.result, v.result, T22))
        add(kb, d.StoreOp(r.result, s.result, acc=False))
        add(kb, d.PushOp(r.result))
        add(kb, d.PopOp(w.result))

    build(d.KernelKindEnum.COMPUTE, body).verify()


def _store_waited(kb):
    w = add(kb, d.WaitOp(dfb(kb)))
    v = add(kb, d.ReadOp(w.result))
    add(kb, d.StoreOp(w.result, v.result, acc=False))


def _push_waited(kb):
    add(kb, d.PushOp(add(kb, d.WaitOp(dfb(kb))).result))


def _copy_in_compute(kb):
    t = add(kb, d.GetTensorOp("a", d.TensorType((64, 64), bf16)))
    zero = add(kb, arith.ConstantOp.from_int_and_width(0, 32))
    s = add(kb, d.SliceOp(t.result, [zero.result, zero.result], (2, 2)))
    r = add(kb, d.ReserveOp(dfb(kb)))
    add(kb, d.CopyOp(s.result, r.result))


def _bad_broadcast(kb):
    v = add(kb, d.ReadOp(add(kb, d.WaitOp(dfb(kb))).result))
    add(kb, d.BroadcastOp(v.result, [0], d.TilesType((4, 2), bf16)))


def _bad_matmul(kb):
    v = add(kb, d.ReadOp(add(kb, d.WaitOp(dfb(kb))).result))
    add(kb, d.MatmulOp(v.result, v.result, d.TilesType((2, 3), bf16)))


def _unknown_symbol(kb):
    add(kb, d.GetDFBOp("nope", d.DFBType((2, 2), bf16)))


def _wrong_symbol_type(kb):
    add(kb, d.GetDFBOp("a_dfb", d.DFBType((1, 1), f32)))


def _mixed_dtypes(kb):
    v = add(kb, d.ReadOp(add(kb, d.WaitOp(dfb(kb))).result))
    f = add(kb, d.FillOp(1.0, d.TilesType((2, 2), f32)))
    add(kb, d.AddOp(v.result, f.result, T22))


def _scaler_block(kb, acquire=d.ReserveOp):
    return add(kb, acquire(add(kb, d.GetDFBOp("s_dfb", d.DFBType((1, 1), bf16))).result)).result


def _fill_scaler(value=1.0, block=_scaler_block):
    return lambda kb: add(kb, d.FillScalerOp(block(kb), value))


def _reduce_by(value):
    def body(kb):
        v = add(kb, d.ReadOp(add(kb, d.WaitOp(dfb(kb))).result))
        s = add(kb, d.FillOp(value, d.TilesType((1, 1), bf16)))
        add(
            kb,
            d.ReduceOp(d.ReduceKindEnum.SUM, v.result, s.result, [-1], d.TilesType((2, 1), bf16)),
        )

    return body


@pytest.mark.parametrize(
    "kind,body,message",
    [
        (d.KernelKindEnum.COMPUTE, _store_waited, "store needs a reserved block"),
        (
            d.KernelKindEnum.COMPUTE,
            _push_waited,
            "'ttl.push' releases a block acquired by 'ttl.reserve'",
        ),
        (d.KernelKindEnum.COMPUTE, _copy_in_compute, "only valid in data-movement kernels"),
        (d.KernelKindEnum.DATA_MOVEMENT, _store_waited, "only valid in compute kernels"),
        (
            d.KernelKindEnum.COMPUTE,
            _bad_broadcast,
            "broadcast dim 0 must have size 1 in the operand",
        ),
        (d.KernelKindEnum.COMPUTE, _bad_matmul, "matmul result must be [B.., M, N]"),
        (d.KernelKindEnum.COMPUTE, _unknown_symbol, "nope"),
        (d.KernelKindEnum.COMPUTE, _wrong_symbol_type, "differs from the declaration"),
        (d.KernelKindEnum.COMPUTE, _mixed_dtypes, "operand 'rhs' at position 1 does not verify"),
        (d.KernelKindEnum.DATA_MOVEMENT, _fill_scaler(), None),
        (d.KernelKindEnum.COMPUTE, _fill_scaler(), "only valid in data-movement kernels"),
        (d.KernelKindEnum.DATA_MOVEMENT, _fill_scaler(1.1), "a scaler value must be exact in bf16"),
        (
            d.KernelKindEnum.DATA_MOVEMENT,
            _fill_scaler(block=lambda kb: add(kb, d.ReserveOp(dfb(kb))).result),
            "a scaler block is one bf16 tile (!ttl.block<1x1xbf16>)",
        ),
        (
            d.KernelKindEnum.DATA_MOVEMENT,
            _fill_scaler(block=lambda kb: _scaler_block(kb, d.WaitOp)),
            "fill_scaler needs a reserved block",
        ),
        (d.KernelKindEnum.COMPUTE, _reduce_by(1.0), None),
        (
            d.KernelKindEnum.COMPUTE,
            _reduce_by(2.0),
            "a reduction within tiles reads its scaler tile from a DFB (a ttl.read), or scales "
            "by ttl.fill 1.0",
        ),
    ],
)
def test_invalid_ir_is_rejected(kind, body, message):
    """Each bad body fails with its message; a message of None marks a valid body, the
    twin of the bad ones beside it, which verifies."""
    if message is None:
        build(kind, body).verify()
        return
    with pytest.raises(VerifyException, match=re.escape(message)):
        build(kind, body).verify()


def test_row_major_types_count_elements_in_tile_sized_pages():
    # Shape in elements; L1 pages of 1024 elements (the compute engine's unit).
    assert d.BlockType((48,), bf16, "row_major").num_tiles == 1
    assert d.BlockType((2, 1500), bf16, "row_major").num_tiles == 3
    assert d.BlockType((2, 2), bf16).num_tiles == 4  # tiles, as before
    t = d.TensorType((2, 5, 48), bf16, "row_major")
    assert t.unit_dims == (2, 5, 48) and d.TensorType((64, 96), bf16).unit_dims == (2, 3)
    assert str(t) == "!ttl.tensor<2x5x48xbf16, row_major>"
    assert str(d.TensorType((64, 96), bf16)) == "!ttl.tensor<64x96xbf16>"


def _rm_copy(slice_sizes, block_shape, block_layout="row_major"):
    top = Block()
    top.add_op(d.TensorOp("x", 0, d.TensorType((4, 5, 48), bf16, "row_major")))
    top.add_op(d.DFBOp("x_dfb", "x", d.DFBType(block_shape, bf16, block_layout), 2, 2048))
    kb = Block()
    x = add(kb, d.GetTensorOp("x", d.TensorType((4, 5, 48), bf16, "row_major"))).results[0]
    f = add(kb, d.GetDFBOp("x_dfb", d.DFBType(block_shape, bf16, block_layout))).results[0]
    r = add(kb, d.ReserveOp(f))
    c0 = add(kb, arith.ConstantOp.from_int_and_width(0, 32)).result
    s = add(kb, d.SliceOp(x, [c0, c0, c0], slice_sizes))
    add(kb, d.CopyOp(s.result, r.result))
    add(kb, d.PushOp(r.result))
    top.add_op(d.KernelOp("k", d.KernelKindEnum.DATA_MOVEMENT, "op.k", Region(kb)))
    return ModuleOp([d.OperationOp("op", (1, 1), "wormhole_b0", "id", Region(top))])


def test_row_major_copy_matches_shapes_without_size_one_dims():
    _rm_copy((1, 1, 48), (48,)).verify()  # x[n, h, :] into a (48,) block
    _rm_copy((1, 3, 16), (3, 16)).verify()
    with pytest.raises(VerifyException, match="the same shape"):
        _rm_copy((1, 3, 16), (16, 3)).verify()
    with pytest.raises(VerifyException, match="the same layout"):
        _rm_copy((1, 1, 48), (48,), block_layout="tile").verify()
