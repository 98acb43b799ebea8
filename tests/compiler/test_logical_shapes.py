"""Logical tensor shapes: a tiled tensor whose shape is not whole tiles.

A ttnn ``TILE_LAYOUT`` tensor of shape ``[1, 1]`` is stored as one 32 x 32 tile.
The operation's top level reads ``tensor.shape`` as the logical shape (ttnn's)
and ``tensor.padded_shape`` as the stored one; the kernels index whole tiles. The
logical shape is part of what compiles: the IR's ``ttl.tensor`` and the manifest
record it, and another logical shape is another bundle.
"""

from __future__ import annotations

import pytest
from compiler_testlib import parse_ir
from xdsl.dialects.builtin import bf16
from xdsl.utils.exceptions import VerifyException

from ttl.compiler.dialect import TensorOp, TensorType

PROGRAM = """
import ttl

@ttl.operation(grid=(1, 1))
def op(c, y):
    assert c.shape == (1, 1), f"c must be 1x1, got {c.shape}"  # ERROR
    assert c.padded_shape == (32, 32)
    c_dfb = ttl.make_dataflow_buffer_like(c, shape=(1, 1))

    @ttl.datamovement()
    def read():
        with c_dfb.reserve() as blk:
            ttl.copy(c[0, 0], blk).wait()

    @ttl.compute()
    def compute():
        pass

    @ttl.datamovement()
    def write():
        with c_dfb.wait() as blk:
            ttl.copy(blk, y[0, c.shape[0] - 1]).wait()
"""


def test_the_top_level_and_kernels_read_the_logical_shape(compile_source):
    result = compile_source(PROGRAM, "op", {"c": "bf16[1,1]:tile", "y": "bf16[32,32]"})
    c = result.manifest["tensors"][0]
    assert (c["shape"], c["logical_shape"], c["num_pages"]) == ([32, 32], [1, 1], 1)
    assert "logical_shape" not in result.manifest["tensors"][1]  # whole tiles: none
    assert "logical_shape = array<i64: 1, 1>" in result.ir


def test_a_top_level_check_of_the_logical_shape_fails_for_the_stored_one(compile_error):
    err = compile_error(PROGRAM, "op", {"c": "bf16[32,32]", "y": "bf16[32,32]"})
    assert "c must be 1x1, got (32, 32)" in err.render()


def test_the_ir_verifier_rejects_a_logical_shape_that_does_not_pad_to_the_tensor():
    TensorOp("c", 0, TensorType((32, 64), bf16), (1, 40)).verify_()
    bad = TensorOp("c", 0, TensorType((64, 64), bf16), (1, 1))
    with pytest.raises(VerifyException, match=r"logical shape \[1, 1\] of tensor @c does not pad"):
        bad.verify_()


def test_logical_shapes_survive_the_ir_text_round_trip(compile_source):
    result = compile_source(PROGRAM, "op", {"c": "bf16[1,1]:tile", "y": "bf16[32,32]"})
    reparsed = parse_ir(result.ir)
    (c,) = [op for op in reparsed.walk() if isinstance(op, TensorOp) and op.sym_name.data == "c"]
    assert c.logical_dims == (1, 1)
