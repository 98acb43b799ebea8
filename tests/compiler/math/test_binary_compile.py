"""Binary block math: IR and C++ (FileCheck), and the located errors.

max/min, comparisons, ``%``/``//``, scalar operands and ``ttl.math.rsub``.
"""

from __future__ import annotations

import pytest
from compiler_testlib import filecheck

SPECS = {"a": "bf16[64,64]", "b": "bf16[64,64]", "y": "bf16[64,64]"}

PROGRAM = """
import ttl


@ttl.operation(grid=(1, 1))
def op(a, b, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk, y_dfb.reserve() as y_blk:
            y_blk.store({expr})  # ERROR

    @ttl.datamovement()
    def read():
        with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk:
            ttl.copy(a[0, 0], a_blk).wait()
            ttl.copy(b[0, 0], b_blk).wait()

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as y_blk:
            ttl.copy(y_blk, y[0, 0]).wait()
"""


@pytest.mark.parametrize(
    ("expr", "ir", "cpp"),
    [
        (
            "ttl.math.max(a_blk, b_blk)",
            "ttl.binary max %{{.*}}, %{{.*}} : !ttl.tiles<1x1xbf16>",
            "binary_max_tile_init();\nCHECK-NEXT: binary_max_tile(0, 1, 0);",
        ),
        (
            "ttl.math.min(a_blk, b_blk)",
            "ttl.binary min",
            "binary_min_tile_init();\nCHECK-NEXT: binary_min_tile(0, 1, 0);",
        ),
        (
            "a_blk > b_blk",
            "ttl.binary gt",
            "sub_binary_tile(0, 1, 0);\nCHECK-NEXT: gtz_tile_init();\nCHECK-NEXT: gtz_tile(0);",
        ),
        ("a_blk < b_blk", "ttl.binary lt", "ltz_tile(0);"),
        ("a_blk >= b_blk", "ttl.binary ge", "gez_tile(0);"),
        ("a_blk <= b_blk", "ttl.binary le", "lez_tile(0);"),
        ("ttl.math.eq(a_blk, b_blk)", "ttl.binary eq", "eqz_tile(0);"),
        ("a_blk != b_blk", "ttl.binary ne", "nez_tile(0);"),
        ("a_blk % b_blk", "ttl.binary mod", "remainder_binary_tile(0, 1, 0);"),
        (
            "a_blk // b_blk",
            "ttl.binary floordiv",
            "remainder_binary_tile(0, 1, 2);\nCHECK-NEXT: sub_binary_tile_init();\n"
            "CHECK-NEXT: sub_binary_tile(0, 2, 0);\nCHECK-NEXT: div_binary_tile_init();\n"
            "CHECK-NEXT: div_binary_tile(0, 1, 0);\nCHECK-NEXT: rounding_op_tile_init();\n"
            "CHECK-NEXT: round_tile(0, 0);",
        ),
        (
            "a_blk * 2.0",
            "ttl.scalar mul %{{.*}}, 2.000000e+00 : f32 : !ttl.tiles<1x1xbf16>",
            "binop_with_scalar_tile_init();\nCHECK-NEXT: mul_unary_tile(0, 0x40000000u);",
        ),
        ("a_blk + 1", "ttl.scalar add", "add_unary_tile(0, 0x3f800000u);"),
        ("a_blk - 1", "ttl.scalar sub", "sub_unary_tile(0, 0x3f800000u);"),
        ("a_blk / 4", "ttl.scalar div", "div_unary_tile(0, 0x40800000u);"),
        ("1.0 - a_blk", "ttl.scalar rsub", "rsub_unary_tile(0, 0x3f800000u);"),
        ("ttl.math.rsub(a_blk, 3)", "ttl.scalar rsub", "rsub_unary_tile(0, 0x40400000u);"),
        (
            "2.0 / a_blk",
            "ttl.scalar rdiv",
            "recip_tile(0);\nCHECK-NEXT: binop_with_scalar_tile_init();\n"
            "CHECK-NEXT: mul_unary_tile(0, 0x40000000u);",
        ),
        (
            "ttl.math.max(a_blk, 0.5)",
            "ttl.fill 5.000000e-01",
            "fill_tile_bitcast(1, 0x3f000000u);\nCHECK: binary_max_tile(0, 1, 0);",
        ),
    ],
)
def test_binary_lowering(compile_source, expr, ir, cpp):
    result = compile_source(PROGRAM.format(expr=expr), "op", SPECS)
    filecheck(result.ir, f"CHECK: ttl.kernel @compute\nCHECK: {ir}\nCHECK: ttl.store")
    filecheck(
        result.sources["compute.cpp"],
        f"CHECK: tile_regs_acquire();\nCHECK: {cpp}\nCHECK: pack_tile",
    )


def test_nested_binary_uses_more_dst_registers(compile_source):
    expr = "ttl.math.max(a_blk, b_blk) + (a_blk > b_blk) * 2.0"
    result = compile_source(PROGRAM.format(expr=expr), "op", SPECS)
    filecheck(
        result.sources["compute.cpp"],
        """
        CHECK: binary_max_tile(0, 1, 0);
        CHECK: copy_tile(dfb_a_dfb, 0, 1);
        CHECK: copy_tile(dfb_b_dfb, 0, 2);
        CHECK: sub_binary_tile(1, 2, 1);
        CHECK: gtz_tile(1);
        CHECK: mul_unary_tile(1, 0x40000000u);
        CHECK: add_binary_tile(0, 1, 0);
        """,
    )


def test_f32_scalar_bits(compile_source):
    specs = dict.fromkeys(SPECS, "f32[64,64]")
    result = compile_source(PROGRAM.format(expr="a_blk * 0.1"), "op", specs)
    filecheck(result.sources["compute.cpp"], "CHECK: mul_unary_tile(0, 0x3dcccccdu);  // 0.1")


@pytest.mark.parametrize(
    ("expr", "words"),
    [
        ("ttl.math.max(a_blk, y_blk)", ["reserve()", "cannot be read"]),
        ("a_blk * True", ["int or float", "True"]),
        ("a_blk * a_dfb", ["int or float"]),
        ("a_blk @ 2.0", ["not supported between a block and a scalar"]),
        ("0 < a_blk < b_blk", ["chained comparisons"]),
        ("ttl.math.rsub(a_blk, b_blk)", ["second argument of ttl.math.rsub must be a scalar"]),
        ("ttl.math.max(1.0, 2.0)", ["at least one block operand"]),
        ("ttl.math.max(a_blk)", ["missing its 'b' argument"]),
    ],
)
def test_binary_errors(compile_error, expr, words):
    err = compile_error(PROGRAM.format(expr=expr), "op", SPECS)
    for w in words:
        assert w in err.render(), err.render()


def test_binary_shape_mismatch_names_both_shapes(compile_error):
    src = PROGRAM.replace(
        "b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 1)",
        "b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 2)",
    )
    src = src.replace("ttl.copy(b[0, 0], b_blk)", "ttl.copy(b[0, 0:2], b_blk)")
    for expr, sym in (("ttl.math.max(a_blk, b_blk)", "ttl.math.max"), ("a_blk > b_blk", ">")):
        err = compile_error(src.format(expr=expr), "op", SPECS)
        assert f"operands of '{sym}' have shapes (1, 1) and (1, 2)" in err.render()


def test_runtime_scalar_is_rejected(compile_error):
    src = PROGRAM.replace(
        "            y_blk.store({expr})  # ERROR",
        "            n = ttl.node(dims=1)\n            y_blk.store(a_blk * n)  # ERROR",
    )
    err = compile_error(src, "op", SPECS)
    assert "compile-time number" in err.render()
