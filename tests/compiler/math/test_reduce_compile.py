# ruff: noqa: E501  (FileCheck lines are the emitted C++, unwrapped)
"""Reductions, transpose, where, mask: IR and C++ (FileCheck), and the located errors."""

from __future__ import annotations

import pytest
from compiler_testlib import filecheck

SPECS = {"a": "bf16[64,96]", "s": "bf16[32,32]", "t": "bf16[2,64,96]", "y": "bf16[64,96]"}

PROGRAM = """
import ttl


@ttl.operation(grid=(1, 1))
def op(a, s, t, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(2, 3))
    c_dfb = ttl.make_dataflow_buffer_like(a, shape=(2, 1))
    s_dfb = ttl.make_dataflow_buffer_like(s, shape=(1, 1))
    t_dfb = ttl.make_dataflow_buffer_like(t, shape=(2, 2, 3))
    y_dfb = ttl.make_dataflow_buffer_like(y, shape={out})

    @ttl.compute()
    def compute():
        with a_dfb.wait() as a_blk, c_dfb.wait() as c_blk, s_dfb.wait() as s_blk, \\
                t_dfb.wait() as t_blk, y_dfb.reserve() as y_blk:
            y_blk.store({expr})  # ERROR
"""


@pytest.mark.parametrize(
    ("expr", "out", "ir", "cpp"),
    [
        (
            "ttl.math.reduce_sum(a_blk, s_blk, dims=[-1])",
            (2, 1),
            "ttl.reduce sum %{{.*}}, %{{.*}} {dims = array<i64: -1>} : !ttl.tiles<2x3xbf16>, "
            "!ttl.tiles<1x1xbf16> -> !ttl.tiles<2x1xbf16>",
            """fill_tile_bitcast(i, 0x00000000u);  // reduce_tile accumulates
            CHECK-NEXT: }
            CHECK-NEXT: reduce_init<PoolType::SUM, ReduceDim::REDUCE_ROW>(dfb_a_dfb, dfb_s_dfb, dfb_y_dfb);
            CHECK-NEXT: for (uint32_t i = 0; i < {{[0-9]+}}; ++i) {
            CHECK-NEXT: for (uint32_t r1 = 0; r1 < 3; ++r1) {
            CHECK-NEXT:   reduce_tile<PoolType::SUM, ReduceDim::REDUCE_ROW>(dfb_a_dfb, dfb_s_dfb, i * 3 + r1, 0, i);
            CHECK-NEXT: }
            CHECK-NEXT: }
            CHECK-NEXT: reduce_uninit();""",
        ),
        (
            "ttl.math.reduce_max(a_blk, s_blk, dims=[0])",
            (1, 3),
            "ttl.reduce max %{{.*}}, %{{.*}} {dims = array<i64: 0>} : !ttl.tiles<2x3xbf16>, "
            "!ttl.tiles<1x1xbf16> -> !ttl.tiles<1x3xbf16>",
            """fill_tile_bitcast(i, 0xff800000u);
            CHECK: reduce_tile<PoolType::MAX, ReduceDim::REDUCE_COL>(dfb_a_dfb, dfb_s_dfb, r0 * 3 + i % 3, 0, i);""",
        ),
        (
            "ttl.math.reduce_sum(a_blk, dims=[-1, -2])",
            (1, 1),
            # No scaler block: ttl-materialize-scalers reads a ones tile from a DFB of its
            # own (tests/compiler/passes/materialize_scalers.mlir). This operation has no
            # data-movement kernel, so its compute kernel packs that tile itself.
            "ttl.dfb @scaler_compute {tensor = @a, block_count = 1 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>\n"
            "CHECK: %[[R:.*]] = ttl.reserve %{{.*}} : !ttl.dfb<1x1xbf16>\n"
            "CHECK-NEXT: %[[F:.*]] = ttl.fill 1.000000e+00 : f32 : !ttl.tiles<1x1xbf16>\n"
            "CHECK-NEXT: ttl.store %[[F]], %[[R]]\n"
            "CHECK-NEXT: ttl.push %[[R]]\n"
            "CHECK: %[[S:.*]] = ttl.wait %{{.*}} : !ttl.dfb<1x1xbf16>\n"
            "CHECK: %[[ONE:.*]] = ttl.read %[[S]] : !ttl.block<1x1xbf16> -> !ttl.tiles<1x1xbf16>\n"
            "CHECK-NEXT: ttl.reduce sum %{{.*}}, %[[ONE]] {dims = array<i64: -1, -2>}\n"
            "CHECK: ttl.pop %[[S]]",
            """reduce_init<PoolType::SUM, ReduceDim::REDUCE_SCALAR>(dfb_a_dfb, dfb_scaler_compute, dfb_y_dfb);
            CHECK: for (uint32_t r0 = 0; r0 < 2; ++r0) {
            CHECK-NEXT: for (uint32_t r1 = 0; r1 < 3; ++r1) {
            CHECK-NEXT: reduce_tile<PoolType::SUM, ReduceDim::REDUCE_SCALAR>(dfb_a_dfb, dfb_scaler_compute, r0 * 3 + r1, 0, 0);""",
        ),
        (
            "ttl.math.reduce_sum(t_blk, s_blk, dims=[1])",
            (2, 1, 3),
            "-> !ttl.tiles<2x1x3xbf16>",
            "reduce_tile<PoolType::SUM, ReduceDim::REDUCE_COL>",
        ),
        (
            "ttl.math.reduce_max(t_blk, dims=[0])",
            (1, 2, 3),
            "ttl.reduce max",
            """copy_tile(dfb_t_dfb, r0 * 6 + {{.*}}, i + 3);
            CHECK-NEXT: binary_max_tile_init();
            CHECK-NEXT: binary_max_tile(i, i + 3, i);""",
        ),
        (
            "ttl.math.transpose(a_blk)",
            (3, 2),
            "ttl.transpose %{{.*}} : !ttl.tiles<2x3xbf16> -> !ttl.tiles<3x2xbf16>",
            """transpose_init(dfb_a_dfb);
            CHECK-NEXT: for (uint32_t i = 0; i < {{[0-9]+}}; ++i) {
            CHECK-NEXT: transpose_tile(dfb_a_dfb, i / 2 + (i % 2) * 3, i);""",
        ),
        (
            "ttl.block.where(a_blk, a_blk, ttl.math.broadcast(c_blk, dims=[-1]))",
            (2, 3),
            "ttl.where %{{.*}}, %{{.*}}, %{{.*}} : !ttl.tiles<2x3xbf16>",
            """where_tile_init();
            CHECK-NEXT: for (uint32_t i = 0; i < {{[0-9]+}}; ++i) {
            CHECK-NEXT: where_tile<DataFormat::Float16_b>(i, i + 2, i + 4, i);""",
        ),
        (
            "ttl.math.mask(a_blk, a_blk) + ttl.math.mask_posinf(a_blk, a_blk)",
            (2, 3),
            "ttl.mask %{{.*}}, %{{.*}} : !ttl.tiles<2x3xbf16>\n"
            "CHECK: ttl.mask %{{.*}}, %{{.*}} {posinf} : !ttl.tiles<2x3xbf16>",
            """mask_tile(i, i + 2);
            CHECK: mask_posinf_tile(i + 2, i + 4);""",
        ),
    ],
)
def test_ir_and_cpp(compile_source, expr, out, ir, cpp):
    result = compile_source(PROGRAM.format(expr=expr, out=out), "op", SPECS)
    filecheck(result.ir, "CHECK: " + ir)
    kernel = next(v for k, v in result.sources.items() if "compute" in k)
    filecheck(kernel, "CHECK: " + cpp)


@pytest.mark.parametrize(
    ("expr", "out", "message"),
    [
        (
            "ttl.math.reduce_sum(a_blk, s_blk, dims=[2])",
            (2, 1),
            "reduce_sum dims [2] are out of range for a (2, 3) block",
        ),
        (
            "ttl.math.reduce_max(t_blk, dims=[-4])",
            (2, 2, 1),
            "reduce_max dims [-4] are out of range for a (2, 2, 3) block",
        ),
        (
            "ttl.math.reduce_sum(a_blk, dims=[-1], shape=(1, 3))",
            (2, 1),
            "reduce_sum of a (2, 3) block over dims [-1] has shape (2, 1), not (1, 3)",
        ),
        (
            "ttl.math.reduce_sum(a_blk, dims=[-1])",
            (2, 3),
            "cannot store a (2, 1) expression into",
        ),
        ("ttl.math.reduce_sum(a_blk)", (2, 1), "reduce_sum() needs dims=[...]"),
        ("ttl.math.transpose(t_blk)", (3, 2), "transpose needs a 2-D block, got a (2, 2, 3)"),
        ("a_blk + ttl.math.transpose(a_blk)", (2, 3), "have shapes (2, 3) and (3, 2)"),
        (
            "ttl.math.where(a_blk, c_blk, a_blk)",
            (2, 3),
            "operands of where() have shapes (2, 3), (2, 1), (2, 3)",
        ),
        ("ttl.math.mask(a_blk, c_blk)", (2, 3), "operands of mask() have shapes (2, 3), (2, 1)"),
        (
            "ttl.math.broadcast(c_blk, dims=[0], shape=(2, 3))",
            (2, 3),
            "cannot broadcast a (2, 1) block along dims [0] to (2, 3)",
        ),
    ],
)
def test_located_errors(compile_error, expr, out, message):
    err = compile_error(PROGRAM.format(expr=expr, out=out), "op", SPECS)
    assert message in err.message, err.render()
