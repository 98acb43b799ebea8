"""The spec's worked examples' language: unsqueeze/squeeze, batched ``@``, expression operands.

IR and C++ with FileCheck, and the located errors of bad shapes.
"""

from __future__ import annotations

import pytest
from compiler_testlib import filecheck

SPECS = {"a": "bf16[2,64,64]", "b": "bf16[64,32]", "y": "bf16[2,64,32]"}

PROGRAM = """
import ttl


@ttl.operation(grid=(1, 1))
def op(a, b, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(2, 2, 2), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(2, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(2, 2, 1), block_count=2)

    @ttl.compute()
    def compute():
        with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk, y_dfb.reserve() as y_blk:
{compute}

    @ttl.datamovement()
    def read():
        with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk:
            ttl.copy(a[0:2, 0:2, 0:2], a_blk).wait()
            ttl.copy(b[slice(0, 2), 0], b_blk).wait()

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as y_blk:
            ttl.copy(y_blk, y[0:2, 0:2, 0]).wait()
"""

BATCHED = """\
            b3 = ttl.math.broadcast(ttl.math.unsqueeze(b_blk, dim=0), dims=[0], shape=(2, 2, 1))
            y_blk.store(a_blk @ b3)
"""


def _src(compute: str) -> str:
    return PROGRAM.format(compute=compute.rstrip("\n"))


def test_unsqueeze_broadcast_batched_matmul_ir(compile_source):
    result = compile_source(_src(BATCHED), "op", SPECS)
    filecheck(
        result.ir,
        """
        CHECK: ttl.dfb @expr_compute_{{[0-9]+}} {{.*}}block_count = 1 : i64
        CHECK: ttl.read %b_blk {{.*}}: !ttl.block<2x1xbf16> -> !ttl.tiles<1x2x1xbf16>
        CHECK: ttl.broadcast {{.*}}: !ttl.tiles<1x2x1xbf16> -> !ttl.tiles<2x2x1xbf16>
        CHECK: ttl.store
        CHECK: ttl.push
        CHECK: ttl.wait
        CHECK: ttl.matmul {{.*}}: !ttl.tiles<2x2x2xbf16>, !ttl.tiles<2x2x1xbf16>
        CHECK-SAME: -> !ttl.tiles<2x2x1xbf16>
        CHECK: ttl.pop
        """,
    )
    assert any(dfb["name"].startswith("expr_compute_") for dfb in result.manifest["dfbs"])


def test_batched_matmul_cpp(compile_source):
    result = compile_source(_src(BATCHED), "op", SPECS)
    filecheck(
        result.sources["compute.cpp"],
        """
        CHECK: cb_reserve_back(dfb_expr_compute_{{[0-9]+}}, 4);
        CHECK: copy_tile(dfb_b_dfb
        CHECK: cb_push_back(dfb_expr_compute_{{[0-9]+}}, 4);
        CHECK: cb_wait_front(dfb_expr_compute_{{[0-9]+}}, 4);
        CHECK: for (uint32_t k = 0; k < 2; ++k) {
        CHECK:   matmul_tiles(dfb_a_dfb, dfb_expr_compute_{{[0-9]+}},
        CHECK-SAME: (i / 2) * 4 + (i % 2) * 2 + k, (i / 2) * 2 + k, i);
        CHECK: cb_pop_front(dfb_expr_compute_{{[0-9]+}}, 4);
        """,
    )


def test_block_unsqueeze_and_squeeze_take_lists_of_dims(compile_source):
    # Spec v0.16: ttl.block.unsqueeze(x, dims=[...]) / ttl.block.squeeze(x, dims=[...])
    # (upstream's batched_matmul_bias and signpost examples); dims of unsqueeze are
    # positions in the result, those of squeeze positions in the operand.
    src = _src(
        "            b3 = ttl.block.squeeze(ttl.block.unsqueeze(b_blk, dims=[0, 1]), dims=[1])\n"
        "            y_blk.store(a_blk @ ttl.block.broadcast(b3, dims=[0], shape=(2, 2, 1)))\n"
    )
    result = compile_source(src, "op", SPECS)
    # (2, 1) -> (1, 1, 2, 1) -> (1, 2, 1): b_blk read at that view, then broadcast.
    filecheck(result.ir, "CHECK: ttl.read %b_blk {{.*}}-> !ttl.tiles<1x2x1xbf16>")


def test_squeeze_reads_a_view(compile_source):
    src = _src(
        """\
            y_blk.store(ttl.math.unsqueeze(ttl.math.squeeze(ttl.math.unsqueeze(b_blk, 0), 0), 0)
                        + ttl.math.unsqueeze(b_blk, dim=-3))
"""
    )
    specs = dict(SPECS, y="bf16[1,64,32]")
    src = src.replace(
        "shape=(2, 2, 1), block_count=2)\n\n    @ttl.compute",
        "shape=(1, 2, 1), block_count=2)\n\n    @ttl.compute",
    ).replace("y[0:2, 0:2, 0]", "y[0, 0:2, 0]")
    result = compile_source(src, "op", specs)
    filecheck(
        result.ir,
        """
        CHECK: ttl.read %b_blk {{.*}}-> !ttl.tiles<1x2x1xbf16>
        CHECK-NOT: ttl.read
        CHECK: ttl.add {{.*}}: !ttl.tiles<1x2x1xbf16>
        """,
    )


def test_reduce_and_broadcast_of_expressions(compile_source):
    src = _src(
        """\
            s = ttl.math.reduce_sum(ttl.math.sqrt(b_blk * b_blk), dims=[-1], shape=(2, 1))
            y_blk.store(ttl.math.broadcast(ttl.math.unsqueeze(ttl.math.exp(b_blk) + s, 0), dims=[0],
                                           shape=(2, 2, 1)))
"""
    )
    result = compile_source(src, "op", SPECS)
    filecheck(
        result.ir,
        """
        CHECK-DAG: ttl.dfb @expr_compute_13 {{.*}}block_count = 1 : i64{{.*}}!ttl.dfb<2x1xbf16>
        CHECK-DAG: ttl.dfb @expr_compute_14 {{.*}}block_count = 1 : i64{{.*}}!ttl.dfb<2x1xbf16>
        CHECK: ttl.kernel @compute
        CHECK: ttl.unary sqrt
        CHECK: ttl.store
        CHECK: ttl.push
        CHECK: %[[W1:[a-z_0-9]+]] = ttl.wait
        CHECK: ttl.unary exp
        CHECK: ttl.read %[[W1]]
        CHECK: ttl.reduce sum
        CHECK: ttl.store
        CHECK: ttl.push
        CHECK: %[[W2:[a-z_0-9]+]] = ttl.wait
        CHECK: ttl.read %[[W2]] {{.*}}-> !ttl.tiles<1x2x1xbf16>
        CHECK: ttl.broadcast
        CHECK: ttl.store
        CHECK: ttl.pop %[[W1]]
        CHECK: ttl.pop %[[W2]]
        """,
    )
    filecheck(
        result.sources["compute.cpp"],
        """
        CHECK: sqrt_tile(
        CHECK: cb_push_back(dfb_expr_compute_
        CHECK: reduce_tile<PoolType::SUM, ReduceDim::REDUCE_ROW>(dfb_expr_compute_
        CHECK: cb_pop_front(dfb_expr_compute_
        """,
    )


@pytest.mark.parametrize(
    ("compute", "words"),
    [
        (
            "            y_blk.store(a_blk @ ttl.math.unsqueeze(a_blk, 0))  # ERROR\n",
            ["cannot multiply blocks of shapes (2, 2, 2) and (1, 2, 2, 2)"],
        ),
        (
            "            y_blk.store(a_blk @ b_blk)  # ERROR\n",
            ["cannot multiply blocks of shapes (2, 2, 2) and (2, 1)"],
        ),
        (
            "            y_blk.store(ttl.math.squeeze(a_blk, dim=1))  # ERROR\n",
            ["squeeze() of a (2, 2, 2) block: dimension 1 has size 2, not 1"],
        ),
        (
            "            y_blk.store(ttl.math.unsqueeze(b_blk, dim=3))  # ERROR\n",
            ["unsqueeze() dim 3 is out of range for a (2, 1) block"],
        ),
        (  # spec v0.16's form: dims=[...] in ttl.block
            "            y_blk.store(ttl.block.squeeze(a_blk, dims=[0, 1]))  # ERROR\n",
            ["squeeze() of a (2, 2, 2) block: dimension 0 has size 2, not 1"],
        ),
        (
            "            y_blk.store(ttl.block.unsqueeze(b_blk, dims=[0, -4]))  # ERROR\n",
            ["unsqueeze() names a dimension twice: dims [0, -4]"],
        ),
        (
            "            y_blk.store(ttl.block.unsqueeze(b_blk, 0, dims=[0]))  # ERROR\n",
            ["unsqueeze() takes dim= or dims=, one of them"],
        ),
        (
            "            y_blk.store(ttl.math.broadcast(ttl.math.unsqueeze(b_blk + b_blk, 0), "
            "dims=[0], shape=(2, 3, 1)))  # ERROR\n",
            ["cannot broadcast a (1, 2, 1) block along dims [0] to (2, 3, 1)"],
        ),
        (
            "            y_blk.store(ttl.math.reduce_sum(ttl.math.exp(a_blk), dims=[2], "
            "shape=(2, 2, 2)))  # ERROR\n",
            ["reduce_sum of a (2, 2, 2) block over dims [2] has shape (2, 2, 1), not (2, 2, 2)"],
        ),
    ],
)
def test_bad_shapes_are_located(compile_error, compute, words):
    src = _src(compute)
    err = compile_error(src, "op", SPECS)
    text = err.render()
    for w in words:
        assert w in text, text
    assert "# ERROR" in text
    assert err.hint, text
