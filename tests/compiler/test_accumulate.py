"""In-place block math (``+=``), accumulators and reading a reserved block back (RW).

IR and C++ with FileCheck, and the located errors of misuse.
"""

from __future__ import annotations

import pytest
from accumulate_program import PROGRAM
from compiler_testlib import filecheck

SPECS = {"a": "bf16[32,128]", "b": "bf16[128,64]", "y": "bf16[32,64]"}

MATMUL = """\
        with y_dfb.reserve() as y_blk:
            acc = ttl.math.fill(0.0, shape=(1, 2))
            for _ in range(K):
                with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk:
                    acc {op} a_blk @ b_blk
            y_blk.store(acc)
"""


def _src(compute: str) -> str:
    return PROGRAM.format(compute=compute.rstrip("\n"))


def test_loop_carried_accumulator_ir(compile_source):
    result = compile_source(_src(MATMUL.format(op="+=")), "op", SPECS)
    filecheck(
        result.ir,
        """
        CHECK: ttl.dfb @acc_compute_acc {{.*}}block_count = 1 : i64
        CHECK-SAME: dfb_type = !ttl.dfb<1x2xbf16>
        CHECK: ttl.kernel @compute
        CHECK: %[[D:.*]] = ttl.get_dfb @acc_compute_acc
        CHECK: %[[ACC:acc]] = ttl.reserve %[[D]]
        CHECK: ttl.fill 0.000000e+00
        CHECK: ttl.store %{{.*}}, %[[ACC]] {acc = false}
        CHECK: scf.for
        CHECK: ttl.matmul
        CHECK: ttl.store %{{.*}}, %[[ACC]] {acc = true}
        CHECK: ttl.read %[[ACC]]
        CHECK: ttl.push %[[ACC]]
        CHECK: %[[W:.*]] = ttl.wait %[[D]]
        CHECK: ttl.pop %[[W]]
        """,
    )
    assert (
        'protocol = #ttl.protocol<balanced [2]>, lifetime = #ttl.lifetime<kernels ["op.compute"]'
        in result.ir
    )


def test_loop_carried_accumulator_cpp(compile_source):
    result = compile_source(_src(MATMUL.format(op="+=")), "op", SPECS)
    filecheck(
        result.sources["compute.cpp"],
        """
        CHECK: void kernel_main() {
        CHECK-NEXT: compute_kernel_hw_startup<SrcOrder::Reverse>(dfb_a_dfb, dfb_b_dfb,
        CHECK-NEXT: // {{.*}}: def compute():
        CHECK-NEXT: cb_reserve_back(dfb_acc_compute_acc, 2);
        CHECK: fill_tile_bitcast(
        CHECK: pack_tile({{.*}}dfb_acc_compute_acc
        CHECK: for (int32_t
        CHECK: matmul_tiles(dfb_a_dfb, dfb_b_dfb
        CHECK: pack_reconfig_l1_acc(1);
        CHECK: pack_tile({{.*}}dfb_acc_compute_acc
        CHECK: pack_reconfig_l1_acc(0);
        CHECK: y_blk.store(acc)
        CHECK-NEXT: // Read back acc: at the DFB's front, where unpackers read.
        CHECK-NEXT: cb_push_back(dfb_acc_compute_acc, 2);
        CHECK-NEXT: cb_wait_front(dfb_acc_compute_acc, 2);
        CHECK-NEXT: {
        CHECK: copy_tile(dfb_acc_compute_acc,
        CHECK: pack_tile({{.*}}dfb_y_dfb
        CHECK: cb_pop_front(dfb_acc_compute_acc, 2);
        CHECK-NEXT: cb_reserve_back(dfb_acc_compute_acc, 2);  // the same block, its value kept
        CHECK: cb_push_back(dfb_y_dfb, 2);
        CHECK: cb_push_back(dfb_acc_compute_acc, 2);
        CHECK-NEXT: cb_wait_front(dfb_acc_compute_acc, 2);
        CHECK-NEXT: cb_pop_front(dfb_acc_compute_acc, 2);
        """,
    )


@pytest.mark.parametrize(("op", "api"), [("-=", "sub_binary_tile"), ("*=", "mul_binary_tile")])
def test_other_in_place_ops_read_back(compile_source, op, api):
    result = compile_source(_src(MATMUL.format(op=op)), "op", SPECS)
    filecheck(
        result.sources["compute.cpp"],
        f"""
        CHECK: for (int32_t
        CHECK: cb_push_back(dfb_acc_compute_acc, 2);
        CHECK-NEXT: cb_wait_front(dfb_acc_compute_acc, 2);
        CHECK-NEXT: cb_reserve_back(dfb_acc_compute_acc, 2);
        CHECK: copy_tile(dfb_acc_compute_acc,
        CHECK: matmul_tiles(
        CHECK: {api}(
        CHECK-NOT: pack_reconfig_l1_acc
        CHECK: pack_tile({{{{.*}}}}dfb_acc_compute_acc
        CHECK: cb_pop_front(dfb_acc_compute_acc, 2);
        """,
    )
    # The acc -= a @ b store reads the block it packs into: two blocks, the front read
    # while the next block takes the result.
    (acc,) = [f for f in result.manifest["dfbs"] if f["name"] == "acc_compute_acc"]
    assert acc["block_count"] == 2


def test_accumulator_reassigned_reads_itself(compile_source):
    src = _src(
        """\
        with y_dfb.reserve() as y_blk:
            acc = ttl.math.fill(1.0, shape=(1, 2))
            for _ in range(K):
                with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk:
                    acc += a_blk @ b_blk
            acc = acc * 2.0
            y_blk.store(acc)
"""
    )
    result = compile_source(src, "op", SPECS)
    filecheck(
        result.sources["compute.cpp"],
        """
        CHECK: acc = acc * 2.0
        CHECK-NEXT: // Read back acc: at the DFB's front, where unpackers read.
        CHECK-NEXT: cb_push_back(dfb_acc_compute_acc, 2);
        CHECK-NEXT: cb_wait_front(dfb_acc_compute_acc, 2);
        CHECK-NEXT: cb_reserve_back(dfb_acc_compute_acc, 2);
        CHECK: copy_tile(dfb_acc_compute_acc,
        CHECK: mul_unary_tile(
        CHECK: pack_tile({{.*}}dfb_acc_compute_acc
        """,
    )


def test_reserved_block_read_back_after_store(compile_source):
    src = _src(
        """\
        for _ in range(K):
            with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk:
                pass
        with y_dfb.reserve() as y_blk:
            y_blk.store(ttl.math.fill(2.0, shape=(1, 2)))
            y_blk.store(y_blk * y_blk + 1.0)
"""
    )
    result = compile_source(src, "op", SPECS)
    filecheck(
        result.sources["compute.cpp"],
        """
        CHECK: y_blk.store(ttl.math.fill(2.0, shape=(1, 2)))
        CHECK: pack_tile({{.*}}dfb_shadow_y_dfb
        CHECK: y_blk.store(y_blk * y_blk + 1.0)
        CHECK-NEXT: // Read back y_blk_shadow: at the DFB's front, where unpackers read.
        CHECK-NEXT: cb_push_back(dfb_shadow_y_dfb, 2);
        CHECK-NEXT: cb_wait_front(dfb_shadow_y_dfb, 2);
        CHECK-NEXT: cb_reserve_back(dfb_shadow_y_dfb, 2);
        CHECK: copy_tile(dfb_shadow_y_dfb, [[T:.*]], [[D:.*]]);
        CHECK-NEXT: }
        CHECK-NEXT: copy_init(dfb_shadow_y_dfb);
        CHECK-NEXT: for (uint32_t i = 0; i < 2; ++i) {
        CHECK-NEXT: copy_tile(dfb_shadow_y_dfb, [[T]], [[D]] + 2);
        CHECK: mul_binary_tile([[D]], [[D]] + 2, [[D]]);
        CHECK: add_unary_tile([[D]], 0x3f800000u);
        CHECK: pack_tile({{.*}}dfb_shadow_y_dfb
        CHECK: cb_pop_front(dfb_shadow_y_dfb, 2);
        CHECK-NEXT: // {{.*}}: with y_dfb.reserve() as y_blk:
        CHECK-NEXT: cb_push_back(dfb_shadow_y_dfb, 2);
        CHECK-NEXT: cb_wait_front(dfb_shadow_y_dfb, 2);
        CHECK: copy_tile(dfb_shadow_y_dfb,
        CHECK: pack_tile({{.*}}dfb_y_dfb
        CHECK: cb_pop_front(dfb_shadow_y_dfb, 2);
        CHECK-NEXT: cb_push_back(dfb_y_dfb, 2);
        """,
    )
    (shadow,) = [f for f in result.manifest["dfbs"] if f["name"] == "shadow_y_dfb"]
    assert shadow["block_count"] == 2  # y_blk * y_blk + 1.0 is stored into y_blk


def test_in_place_on_reserved_block(compile_source):
    src = _src(
        """\
        with y_dfb.reserve() as y_blk:
            y_blk.store(ttl.math.fill(0.0, shape=(1, 2)))
            for _ in range(K):
                with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk:
                    y_blk += a_blk @ b_blk
"""
    )
    result = compile_source(src, "op", SPECS)
    assert "acc_compute" not in result.ir  # no accumulator DFB: the block itself
    filecheck(
        result.sources["compute.cpp"],
        """
        CHECK: matmul_tiles(
        CHECK: pack_reconfig_l1_acc(1);
        CHECK: pack_tile({{.*}}dfb_y_dfb
        """,
    )


LOOP_OK = """\
            for _ in range(K):
                with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk:
                    {stmt}  # ERROR
"""


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (  # += on an integer with a block
            """\
        with y_dfb.reserve() as y_blk:
            n = 0
            for _ in range(K):
                with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk:
                    n += a_blk @ b_blk  # ERROR
            y_blk.store(ttl.math.fill(0.0, shape=(1, 2)))
""",
            ["'n' is a runtime int, not a block", "n = ttl.math.fill(0.0"],
        ),
        (  # shape mismatch names both shapes
            """\
        with y_dfb.reserve() as y_blk:
            acc = ttl.math.fill(0.0, shape=(1, 1))
            for _ in range(K):
                with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk:
                    acc += a_blk @ b_blk  # ERROR
            y_blk.store(ttl.math.fill(0.0, shape=(1, 2)))
""",
            ["'acc += ...' updates a (1, 1) block with a (1, 2) expression"],
        ),
        (  # accumulator re-assigned with another shape
            """\
        with y_dfb.reserve() as y_blk:
            acc = ttl.math.fill(0.0, shape=(1, 2))
            for _ in range(K):
                with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk:
                    acc += a_blk @ b_blk
            acc = ttl.math.fill(0.0, shape=(2, 2))  # ERROR
            y_blk.store(acc)
""",
            ["accumulator 'acc' has shape (1, 2) but is assigned a (2, 2) expression"],
        ),
        (  # MR: += on a waited block
            """\
        with y_dfb.reserve() as y_blk:
            for _ in range(K):
                with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk:
                    b_blk += b_blk  # ERROR
            y_blk.store(ttl.math.fill(0.0, shape=(1, 2)))
""",
            ["block state MR", "wait() -> +="],
        ),
        (  # MW: += on a reserved block never stored
            """\
        with y_dfb.reserve() as y_blk:
            for _ in range(K):
                with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk:
                    y_blk += a_blk @ b_blk  # ERROR
""",
            ["block state MW", "reserve() -> +="],
        ),
        (  # @= is not an in-place block operator
            """\
        with y_dfb.reserve() as y_blk:
            acc = ttl.math.fill(0.0, shape=(1, 2))
            for _ in range(K):
                with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk:
                    acc @= b_blk  # ERROR
            y_blk.store(acc)
""",
            ["'MatMult' in-place operator is not supported on blocks"],
        ),
        (  # no shape for the accumulator
            """\
        with y_dfb.reserve() as y_blk:
            acc = ttl.math.fill(0.0)  # ERROR
            for _ in range(K):
                with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk:
                    acc += a_blk @ b_blk
            y_blk.store(acc)
""",
            ["cannot infer the shape of accumulator 'acc'"],
        ),
        (  # a reserved block read by broadcast before anything was stored into it
            """\
        with y_dfb.reserve() as y_blk:
            for _ in range(K):
                with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk:
                    y_blk.store(ttl.math.broadcast(y_blk, dims=[0], shape=(1, 2)))  # ERROR
""",
            ["MW", "before"],
        ),
        (  # a block value made in a loop (not from itself) and read after it
            """\
        with y_dfb.reserve() as y_blk:
            for _ in range(K):
                with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk:
                    last = b_blk * 2.0
            y_blk.store(last)  # ERROR
""",
            ["'last' is assigned inside the for loop", "'last = f(last, ...)'"],
        ),
    ],
)
def test_accumulate_errors(compile_error, body, words):
    src = _src(body).lstrip("\n")
    err = compile_error(src, "op", SPECS)
    text = err.render()
    for w in words:
        assert w in text, text
    line = next(i for i, s in enumerate(src.splitlines(), 1) if "# ERROR" in s)
    assert err.loc.line == line, text
    assert "# ERROR" in text  # the source line is shown
    assert err.hint, text


def test_a_bfp8_accumulator_is_bf16(compile_source):
    # Partial sums re-quantized to shared exponents every step would lose what bf16 keeps.
    specs = {"a": "bfp8[32,128]", "b": "bfp8[128,64]", "y": "bfp8[32,64]"}
    result = compile_source(_src(MATMUL.format(op="+=")), "op", specs)
    filecheck(
        result.ir,
        """
        CHECK: ttl.dfb @acc_compute_acc {{.*}}dfb_type = !ttl.dfb<1x2xbf16>
        """,
    )
    assert "!ttl.dfb<1x2x!ttl.bfp8>" in result.ir  # y's DFB
