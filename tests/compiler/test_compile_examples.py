"""Every example compiles; IR and C++ checked with filecheck patterns."""

from __future__ import annotations

import numpy as np
import pytest
from compiler_testlib import EXAMPLES, compile_example, filecheck, load_example

BY_NAME = {p.stem: p for p in EXAMPLES}


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_compiles_and_verifies(path):
    result = compile_example(path)
    result.module.verify()
    kernels = result.manifest["kernels"]
    assert [k["source"] for k in kernels] == list(result.sources)
    for text in result.sources.values():
        assert "void kernel_main() {" in text


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_reference_is_numpy(path):
    import inspect

    from ttl.specs import TensorSpec

    module = load_example(path)
    # The reference takes the first tensors (compile-time constants are not tensors).
    tensors = [v for k, v in module.SPECS.items() if k != "y" and not v.startswith("const:")]
    count = len(inspect.signature(module.reference).parameters)
    args = [np.ones(TensorSpec.parse(s).shape, dtype=np.float32) for s in tensors[:count]]
    out = module.reference(*args)
    assert out.shape == TensorSpec.parse(module.SPECS["y"]).shape


def test_eltwise_ir():
    result = compile_example(BY_NAME["eltwise_single_tile"])
    filecheck(
        result.ir,
        """
        CHECK: ttl.operation @eltwise_single_tile attributes {grid = array<i64: 1, 1>, \
target = "wormhole_b0"
        CHECK: ttl.tensor @a {index = 0 : i64, tensor_type = !ttl.tensor<64x128xbf16>}
        CHECK: ttl.dfb @a_dfb {tensor = @a, block_count = 2 : i64, page_size = 2048 : i64, \
dfb_type = !ttl.dfb<1x1xbf16>,
        CHECK-SAME: protocol = #ttl.protocol<balanced [8]>,
        CHECK-SAME: lifetime = #ttl.lifetime<kernels ["eltwise_single_tile.compute",
        CHECK-SAME: "eltwise_single_tile.read"]>,
        CHECK-SAME: physical_index = 0 : i64}
        CHECK: ttl.dfb @y_dfb {{.*}}physical_index = 3 : i64}
        CHECK: ttl.kernel @compute attributes {kind = #ttl<kernel_kind compute>, \
logical_kernel = "eltwise_single_tile.compute", slot = "compute"}
        CHECK: scf.for
        CHECK: scf.for
        CHECK: %[[A:.*]] = ttl.wait %a_dfb : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
        CHECK: %[[Y:.*]] = ttl.reserve %y_dfb
        CHECK: %[[RA:.*]] = ttl.read %[[A]]
        CHECK: %[[M:.*]] = ttl.mul %[[RA]], %{{.*}} : !ttl.tiles<1x1xbf16>
        CHECK: %[[S:.*]] = ttl.add %[[M]], %{{.*}} : !ttl.tiles<1x1xbf16>
        CHECK: ttl.store %[[S]], %[[Y]] {acc = false}
        CHECK: ttl.push %[[Y]]
        CHECK: ttl.pop %[[A]]
        CHECK: ttl.kernel @read attributes {kind = #ttl<kernel_kind data_movement>, \
logical_kernel = "eltwise_single_tile.read", slot = "dm0"}
        CHECK: scf.for %r = {{.*}} to {{.*}} step
        CHECK: scf.for %col =
        CHECK: %[[B:.*]] = ttl.reserve %a_dfb
        CHECK: %[[SL:.*]] = ttl.slice %a[%r, %col] {in_bounds = array<i64: 0, 1>} \
: !ttl.tensor<64x128xbf16> -> !ttl.slice<1x1xbf16>
        CHECK: %[[TX:.*]] = ttl.copy %[[SL]], %[[B]]
        CHECK: ttl.transfer_wait %[[TX]]
        CHECK: ttl.kernel @write attributes {{.*}}slot = "dm1"}
        CHECK: ttl.copy %{{.*}}, %{{.*}} : !ttl.block<1x1xbf16>, !ttl.slice<1x1xbf16>
        """,
    )


def test_eltwise_cpp_single_tile():
    result = compile_example(BY_NAME["eltwise_single_tile"])
    filecheck(
        result.sources["compute.cpp"],
        """
        CHECK: #include <cstdint>
        CHECK: struct DFBDescriptor {
        CHECK: #include "api/compute/common.h"
        CHECK-NEXT: #include "api/compute/compute_kernel_hw_startup.h"
        CHECK-NEXT: #include "api/compute/cb_api.h"
        CHECK-NEXT: #include "api/compute/reg_api.h"
        CHECK-NEXT: #include "api/compute/pack.h"
        CHECK-NEXT: #include "api/compute/tile_move_copy.h"
        CHECK-NEXT: #include "api/compute/eltwise_binary.h"
        CHECK-NEXT: #include "api/compute/eltwise_binary_sfpu.h"
        CHECK-NOT: #include
        CHECK: constexpr uint32_t dfb_a_dfb = get_compile_time_arg_val(0);
        CHECK: constexpr uint32_t dfb_y_dfb = get_compile_time_arg_val(3);
        CHECK: void kernel_main() {
        CHECK-NEXT: compute_kernel_hw_startup(dfb_a_dfb, dfb_b_dfb, dfb_y_dfb);
        CHECK: // eltwise_single_tile.py:[[#]]: for _ in range(rows):
        CHECK-NEXT: for (int32_t [[I:.*]] = 0; [[I]] < 2; ++[[I]]) {
        CHECK: cb_wait_front(dfb_a_dfb, 1);
        CHECK: cb_reserve_back(dfb_y_dfb, 1);
        CHECK: // eltwise_single_tile.py:[[#]]: y_blk.store(a_blk * b_blk + c_blk)
        CHECK: tile_regs_acquire();
        CHECK-NEXT: mul_init(dfb_a_dfb, dfb_b_dfb, false);
        CHECK-NEXT: mul_tiles(dfb_a_dfb, dfb_b_dfb, 0, 0, 0);
        CHECK-NEXT: copy_init(dfb_c_dfb);
        CHECK-NEXT: copy_tile(dfb_c_dfb, 0, 1);
        CHECK-NEXT: add_binary_tile_init();
        CHECK-NEXT: add_binary_tile(0, 1, 0);
        CHECK-NEXT: tile_regs_commit();
        CHECK-NEXT: tile_regs_wait();
        CHECK-NEXT: pack_tile(0, dfb_y_dfb, 0);
        CHECK-NEXT: tile_regs_release();
        CHECK: cb_push_back(dfb_y_dfb, 1);
        CHECK: cb_pop_front(dfb_a_dfb, 1);
        """,
    )
    filecheck(
        result.sources["read.cpp"],
        """
        CHECK: constexpr uint32_t dfb_a_dfb = get_compile_time_arg_val(0);
        CHECK: void kernel_main() {
        CHECK-NEXT: constexpr auto tensor_a_args = TensorAccessorArgs<{{[0-9]+}}>();
        CHECK-NEXT: const auto tensor_a = TensorAccessor(tensor_a_args,
        CHECK-SAME: get_arg_val<uint32_t>(0), 2048);
        CHECK-NEXT: constexpr auto tensor_b_args = TensorAccessorArgs<
        CHECK-SAME: tensor_a_args.next_compile_time_args_offset()>();
        CHECK-NEXT: const auto tensor_b = TensorAccessor(tensor_b_args,
        CHECK-SAME: get_arg_val<uint32_t>(1), 2048);
        CHECK-NEXT: constexpr auto tensor_c_args = TensorAccessorArgs<
        CHECK-SAME: tensor_b_args.next_compile_time_args_offset()>();
        CHECK-NEXT: const auto tensor_c = TensorAccessor(tensor_c_args,
        CHECK-SAME: get_arg_val<uint32_t>(2), 2048);
        CHECK: for (int32_t r = 0; r < 2; ++r) {
        CHECK: for (int32_t col = 0; col < 4; ++col) {
        CHECK: cb_reserve_back(dfb_a_dfb, 1);
        CHECK-NEXT: const uint32_t a_blk_addr = get_write_ptr(dfb_a_dfb);
        CHECK: noc_async_read_page(r * 4 + col, tensor_a, a_blk_addr);
        CHECK: noc_async_read_barrier();
        CHECK: cb_push_back(dfb_a_dfb, 1);
        """,
    )
    filecheck(
        result.sources["write.cpp"],
        """
        CHECK: constexpr uint32_t dfb_y_dfb = get_compile_time_arg_val(0);
        CHECK: constexpr auto tensor_y_args = TensorAccessorArgs<{{[0-9]+}}>();
        CHECK-NEXT: const auto tensor_y = TensorAccessor(tensor_y_args,
        CHECK-SAME: get_arg_val<uint32_t>(3), 2048);
        CHECK: cb_wait_front(dfb_y_dfb, 1);
        CHECK-NEXT: const uint32_t y_blk_addr = get_read_ptr(dfb_y_dfb);
        CHECK: noc_async_write_page(r * 4 + col, tensor_y, y_blk_addr);
        CHECK-NEXT: noc_async_write_barrier();
        CHECK: cb_pop_front(dfb_y_dfb, 1);
        """,
    )


def test_multi_tile_blocks_chunk_dst():
    # 2x4 blocks = 8 tiles, 2 DST registers per tile, 8 registers for bf16 -> 2 chunks of 4.
    result = compile_example(BY_NAME["eltwise_multi_tile"])
    filecheck(
        result.sources["compute.cpp"],
        """
        CHECK: cb_wait_front(dfb_a_dfb, 8);
        CHECK: for (uint32_t t0 = 0; t0 < 8; t0 += 4) {
        CHECK-NEXT: tile_regs_acquire();
        CHECK-NEXT: mul_init(dfb_a_dfb, dfb_b_dfb, false);
        CHECK-NEXT: for (uint32_t i = 0; i < 4; ++i) {
        CHECK-NEXT: const uint32_t t = t0 + i;
        CHECK-NEXT: mul_tiles(dfb_a_dfb, dfb_b_dfb, t, t, i);
        CHECK-NEXT: }
        CHECK-NEXT: copy_init(dfb_c_dfb);
        CHECK-NEXT: for (uint32_t i = 0; i < 4; ++i) {
        CHECK-NEXT: const uint32_t t = t0 + i;
        CHECK-NEXT: copy_tile(dfb_c_dfb, t, i + 4);
        CHECK-NEXT: }
        CHECK-NEXT: add_binary_tile_init();
        CHECK-NEXT: for (uint32_t i = 0; i < 4; ++i) {
        CHECK-NEXT: add_binary_tile(i, i + 4, i);
        CHECK-NEXT: }
        CHECK-NEXT: tile_regs_commit();
        CHECK-NEXT: tile_regs_wait();
        CHECK-NEXT: for (uint32_t i = 0; i < 4; ++i) {
        CHECK-NEXT: pack_tile(i, dfb_y_dfb, t0 + i);
        CHECK: tile_regs_release();
        """,
    )
    filecheck(
        result.sources["read.cpp"],
        """
        CHECK: const int32_t r0 = r * 2;
        CHECK: const int32_t c0 = col * 4;
        CHECK: cb_reserve_back(dfb_a_dfb, 8);
        CHECK: for (uint32_t [[I:tile0]] = 0; [[I]] < 2; ++[[I]]) {
        CHECK-NEXT: for (uint32_t [[J:tile1]] = 0; [[J]] < 4; ++[[J]]) {
        CHECK-NEXT: noc_async_read_page((r0 + [[I]]) * 8 + c0 + [[J]], tensor_a, \
a_blk_addr + ([[I]] * 4 + [[J]]) * 2048);
        """,
    )


def test_chunk_interleaved_without_schedule_by_kind(monkeypatch):
    # The flag upstream's maximize_dst maps to: off, each tile's whole chain in one loop.
    from functools import partial

    from ttl.compiler.emit import compute, cpp

    monkeypatch.setattr(cpp, "emit_store", partial(compute.emit_store, schedule_by_kind=False))
    result = compile_example(BY_NAME["eltwise_multi_tile"])
    filecheck(
        result.sources["compute.cpp"],
        """
        CHECK: tile_regs_acquire();
        CHECK-NEXT: for (uint32_t i = 0; i < 4; ++i) {
        CHECK-NEXT: const uint32_t t = t0 + i;
        CHECK-NEXT: mul_init(dfb_a_dfb, dfb_b_dfb, false);
        CHECK-NEXT: mul_tiles(dfb_a_dfb, dfb_b_dfb, t, t, i * 2);
        CHECK-NEXT: copy_init(dfb_c_dfb);
        CHECK-NEXT: copy_tile(dfb_c_dfb, t, i * 2 + 1);
        CHECK-NEXT: add_binary_tile_init();
        CHECK-NEXT: add_binary_tile(i * 2, i * 2 + 1, i * 2);
        CHECK-NEXT: }
        CHECK-NEXT: tile_regs_commit();
        """,
    )


def test_blackhole_and_f32_dst_capacity(compile_source):
    src = """
    import ttl

    @ttl.operation(grid=(1, 1))
    def op(a, y):
        a_dfb = ttl.make_dataflow_buffer_like(a, shape=(2, 4))
        y_dfb = ttl.make_dataflow_buffer_like(y, shape=(2, 4))

        @ttl.compute()
        def compute():
            with a_dfb.wait() as a_blk, y_dfb.reserve() as y_blk:
                y_blk.store(ttl.math.exp(a_blk))
    """
    bf = compile_source(src, "op", {"a": "bf16[64,128]", "y": "bf16[64,128]"}, target="blackhole")
    filecheck(bf.sources["compute.cpp"], "CHECK: for (uint32_t i = 0; i < 8; ++i) {\n")
    f32 = compile_source(src, "op", {"a": "f32[64,128]", "y": "f32[64,128]"})
    filecheck(
        f32.sources["compute.cpp"],
        """
        CHECK: cb_wait_front(dfb_a_dfb, 8);
        CHECK: for (uint32_t t0 = 0; t0 < 8; t0 += 4) {
        CHECK: copy_tile(dfb_a_dfb, t, i);
        CHECK-NEXT: }
        CHECK-NEXT: exp_tile_init();
        CHECK-NEXT: for (uint32_t i = 0; i < 4; ++i) {
        CHECK-NEXT: exp_tile(i);
        CHECK: pack_tile(i, dfb_y_dfb, t0 + i);
        """,
    )
    assert f32.manifest["dfbs"][0]["page_size"] == 4096
    assert f32.manifest["dfbs"][0]["data_format"] == "Float32"


def test_matmul_accumulate_cpp():
    result = compile_example(BY_NAME["matmul_bias_relu"])
    filecheck(
        result.ir,
        """
        CHECK: %[[F:.*]] = ttl.fill 0.000000e+00 : f32 : !ttl.tiles<2x2xbf16>
        CHECK: ttl.store %[[F]], %[[ACC:.*]] {acc = false}
        CHECK: %[[MM:.*]] = ttl.matmul %{{.*}}, %{{.*}} : \
!ttl.tiles<2x2xbf16>, !ttl.tiles<2x2xbf16> -> !ttl.tiles<2x2xbf16>
        CHECK: ttl.store %[[MM]], %[[ACC]] {acc = true}
        CHECK: ttl.unary relu
        """,
    )
    filecheck(
        result.sources["compute.cpp"],
        """
        CHECK: // matmul_bias_relu.py:[[#]]: acc.store(ttl.block.fill(0.0, shape=(MB, NB)))
        CHECK: fill_tile_bitcast(i, 0x00000000u);
        CHECK: pack_tile(i, dfb_acc_dfb, i);
        CHECK: // matmul_bias_relu.py:[[#]]: acc.store(a_blk @ b_blk, acc=True)
        CHECK: matmul_init(dfb_a_dfb, dfb_b_dfb);
        CHECK-NEXT: for (uint32_t i = 0; i < 4; ++i) {
        CHECK-NEXT: for (uint32_t k = 0; k < 2; ++k) {
        CHECK-NEXT: matmul_tiles(dfb_a_dfb, dfb_b_dfb, (i / 2) * 2 + k, k * 2 + i % 2, i);
        CHECK: pack_reconfig_l1_acc(1);
        CHECK-NEXT: for (uint32_t i = 0; i < 4; ++i) {
        CHECK-NEXT: pack_tile(i, dfb_acc_dfb, i);
        CHECK: pack_reconfig_l1_acc(0);
        CHECK: cb_push_back(dfb_acc_dfb, 4);
        CHECK: cb_wait_front(dfb_acc_dfb, 4);
        CHECK: add_tiles(dfb_acc_dfb, dfb_c_dfb, i, i, i);
        CHECK-NEXT: }
        CHECK-NEXT: relu_tile_init();
        CHECK-NEXT: for (uint32_t i = 0; i < 4; ++i) {
        CHECK-NEXT: relu_tile(i);
        """,
    )


def test_broadcast_cpp():
    result = compile_example(BY_NAME["broadcast"])
    filecheck(
        result.ir,
        """
        CHECK: ttl.broadcast %{{.*}} {dims = array<i64: -1>} : !ttl.tiles<2x1xbf16> \
-> !ttl.tiles<2x2xbf16>
        """,
    )
    filecheck(
        result.sources["compute.cpp"],
        """
        CHECK: unary_bcast_init<BroadcastType::COL>(dfb_c_dfb);
        CHECK-NEXT: for (uint32_t i = 0; i < 4; ++i) {
        CHECK-NEXT: unary_bcast<BroadcastType::COL>(dfb_c_dfb, i / 2, i + 4);
        """,
    )
    filecheck(
        result.sources["read.cpp"],
        """
        CHECK: noc_async_read_page({{.*}} + [[I:tile0_[0-9]+]], tensor_c, \
c_blk_addr + [[I]] * 2048);
        """,
    )


def test_grid_examples_use_node_and_bounds():
    result = compile_example(BY_NAME["eltwise_grid"])
    assert result.manifest["grid"] == {"x": 4, "y": 4}
    filecheck(
        result.sources["compute.cpp"],
        """
        CHECK: const int32_t node_x = static_cast<int32_t>(get_relative_logical_x());
        CHECK: const int32_t node_y = static_cast<int32_t>(get_relative_logical_y());
        CHECK: for (int32_t local_row = 0; local_row < 2; ++local_row) {
        CHECK: const int32_t row = {{.*}} + local_row;
        CHECK: const bool {{.*}} = row < 5;
        CHECK: if (
        """,
    )
    mm = compile_example(BY_NAME["matmul_grid"])
    filecheck(
        mm.sources["read.cpp"],
        """
        CHECK: const int32_t [[XG:.*]] = node_x * 4;
        CHECK: const int32_t me = [[XG]] + node_y;
        CHECK: ttl_floordiv(blk_id, 4)
        """,
    )
    filecheck(
        mm.sources["read.cpp"], "CHECK: static inline int32_t ttl_floordiv(int32_t a, int32_t b)\n"
    )


def _after_evaluation() -> int:
    return 7


def test_evaluating_under_cprofile_keeps_the_profiler():
    # Top-level evaluation installs a profile hook to read the operation's locals; it
    # must hand back a C profiler (python -m cProfile prog.py), whose object is not
    # callable: restoring it with sys.setprofile made every later event a TypeError.
    import cProfile
    import pstats
    import sys

    from ttl.compiler.driver import load_operation
    from ttl.compiler.evaluate import evaluate_operation
    from ttl.compiler.frontend import unified  # noqa: F401 (imported here, not under the profiler)
    from ttl.targets import get_target

    path = BY_NAME["eltwise_single_tile"]
    example = load_example(path)
    op = load_operation(str(path), example.OPERATION)

    def evaluate_then_call() -> int:
        evaluate_operation(op, example.SPECS, get_target("wormhole_b0"))
        assert sys.getprofile() is profiler
        return _after_evaluation()

    profiler = cProfile.Profile()
    assert profiler.runcall(evaluate_then_call) == 7
    assert "_after_evaluation" in {name for (_, _, name) in pstats.Stats(profiler).stats}
