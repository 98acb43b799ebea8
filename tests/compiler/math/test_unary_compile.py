"""Unary ttl.math functions: the IR each compiles to and the TT-Metal calls it emits.

One test per spelling of every Appendix B unary function (the expressions of
ttl.host.mathcheck.CASES, written as the spec writes them), on both targets;
then the located errors of bad calls.
"""

from __future__ import annotations

import pytest
from compiler_testlib import filecheck
from unary_compile_support import SPECS, UNARY_OP

from ttl.host.mathcheck import CASES, Case

TARGETS = ("wormhole_b0", "blackhole")

# spelling -> (IR line, [C++ lines]) as FileCheck patterns.
EXPECTED: dict[str, tuple[str, list[str]]] = {
    "abs": ("ttl.unary abs %{{.*}} :", ["abs_tile_init();", "abs_tile(0);"]),
    "abs(x)": ("ttl.unary abs %{{.*}} :", ["abs_tile_init();", "abs_tile(0);"]),
    "neg": ("ttl.unary neg", ["negative_tile_init();", "negative_tile(0);"]),
    "-x": ("ttl.unary neg", ["negative_tile_init();", "negative_tile(0);"]),
    "pow": (
        "ttl.unary pow %{{.*}} {params = [3 : i32]}",
        ["power_tile_init();", "power_tile(0, 3);"],
    ),
    "**": (
        "ttl.unary pow %{{.*}} {params = [2 : i32]}",
        ["power_tile_init();", "power_tile(0, 2);"],
    ),
    "exp": ("ttl.unary exp", ["exp_tile_init();", "exp_tile(0);"]),
    "exp2": ("ttl.unary exp2", ["exp2_tile_init();", "exp2_tile(0);"]),
    "expm1": ("ttl.unary expm1", ["expm1_tile_init();", "expm1_tile(0);"]),
    "log": ("ttl.unary log %", ["log_tile_init();", "log_tile(0);"]),
    "logp1": ("ttl.unary logp1", ["log1p_tile_init();", "log1p_tile(0);"]),
    "sqrt": ("ttl.unary sqrt", ["sqrt_tile_init();", "sqrt_tile(0);"]),
    "square": ("ttl.unary square", ["square_tile_init();", "square_tile(0);"]),
    "rsqrt": ("ttl.unary rsqrt", ["rsqrt_tile_init();", "rsqrt_tile(0);"]),
    "recip": ("ttl.unary recip", ["recip_tile_init();", "recip_tile(0);"]),
    "relu_max": (
        "ttl.unary relu_max %{{.*}} {params = [2.000000e+00 : f32]}",
        ["relu_max_tile_init();", "relu_max_tile(0, 0x40000000u);"],
    ),
    "relu_min": (
        "ttl.unary relu_min %{{.*}} {params = [1.000000e+00 : f32]}",
        ["relu_min_tile_init();", "relu_min_tile(0, 0x3f800000u);"],
    ),
    "leaky_relu": ("ttl.unary leaky_relu", ["leaky_relu_tile(0, 0x3c23d70au);"]),
    "elu": ("ttl.unary elu", ["elu_tile_init();", "elu_tile(0, 0x3f000000u);"]),
    "elu(alpha=)": ("ttl.unary elu", ["elu_tile(0, 0x3f800000u);"]),
    "gelu": ("ttl.unary gelu", ["gelu_tile_init<false>();", "gelu_tile<false>(0);"]),
    "celu": ("ttl.unary celu", ["celu_tile_init();", "celu_tile(0, 0x40000000u, 0x3f000000u);"]),
    "prelu": ("ttl.unary prelu", ["prelu_tile_init();", "prelu_tile(0, 0x3e800000u);"]),
    "softplus": (
        "ttl.unary softplus %{{.*}} {params = [2.000000e+00 : f32, 5.000000e-01 : f32, "
        "2.000000e+01 : f32]}",
        ["softplus_tile_init();", "softplus_tile(0, 0x40000000u, 0x3f000000u, 0x41a00000u);"],
    ),
    "hardtanh": ("ttl.unary hardtanh", ["hardtanh_tile(0, 0xbf800000u, 0x3f800000u);"]),
    "selu": (
        "ttl.unary selu %{{.*}} {params = [1.05070102 : f32, 1.67326319 : f32]}",
        ["selu_tile_init();", "selu_tile(0, 0x3f867d5fu, 0x3fd62d7du);"],
    ),
    "round": (
        "ttl.unary round %{{.*}} {params = [1 : i32]}",
        ["rounding_op_tile_init();", "round_tile(0, 1);"],
    ),
    "floor": ("ttl.unary floor", ["rounding_op_tile_init();", "floor_tile(0);"]),
    "ceil": ("ttl.unary ceil", ["rounding_op_tile_init();", "ceil_tile(0);"]),
    "trunc": ("ttl.unary trunc", ["rounding_op_tile_init();", "trunc_tile(0);"]),
    "frac": ("ttl.unary frac", ["rounding_op_tile_init();", "frac_tile(0);"]),
    "clamp": (
        "ttl.unary clamp",
        ["clamp_tile_init();", "clamp_tile(0, 0xc0000000u, 0x40400000u);"],
    ),
    "threshold": (
        "ttl.unary threshold",
        ["threshold_tile_init();", "threshold_tile(0, 0x3f800000u, 0x40a00000u);"],
    ),
}


def _expected(case: Case) -> tuple[str, list[str]]:
    if case.name in EXPECTED:
        return EXPECTED[case.name]
    fn = case.name  # plain functions: ttl.unary <fn>, <fn>_tile_init(); <fn>_tile(0);
    return f"ttl.unary {fn} %", [f"{fn}_tile_init();", f"{fn}_tile(0);"]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_unary_lowering(compile_source, case: Case, target: str):
    result = compile_source(UNARY_OP.format(expr=case.expr), "op", SPECS, target=target)
    ir_line, cpp_lines = _expected(case)
    filecheck(result.ir, f"CHECK: ttl.read\nCHECK-NEXT: {ir_line}\nCHECK: ttl.store\n")
    checks = "CHECK: copy_tile(dfb_a_dfb, 0, 0);\n"
    checks += "".join(f"CHECK-NEXT: {line}\n" for line in cpp_lines if "init" in line)
    checks += "".join(
        f"CHECK{'-NEXT' if len(cpp_lines) > 1 else ''}: {line}\n"
        for line in cpp_lines
        if "init" not in line
    )
    checks += "CHECK: pack_tile(0, dfb_y_dfb, 0);\n"
    filecheck(result.sources["compute.cpp"], checks)


@pytest.mark.parametrize("target", TARGETS)
def test_unary_functions_chain_in_one_expression(compile_source, target: str):
    expr = "ttl.math.gelu(ttl.math.clamp(-a_blk ** 2, min=-1, max=1.5) + ttl.math.sin(a_blk))"
    result = compile_source(UNARY_OP.format(expr=expr), "op", SPECS, target=target)
    filecheck(
        result.sources["compute.cpp"],
        """
        CHECK: power_tile(0, 2);
        CHECK: negative_tile(0);
        CHECK: clamp_tile(0, 0xbf800000u, 0x3fc00000u);
        CHECK: sin_tile(1);
        CHECK: add_binary_tile(0, 1, 0);
        CHECK: gelu_tile<false>(0);
        """,
    )


# ------------------------------------------------------------------ bad input
BAD = [
    ("ttl.math.expp(a_blk)", "ttl.math has no function 'expp'", "did you mean ttl.math.exp"),
    ("ttl.math.sigmod(a_blk)", "no function 'sigmod'", "ttl.math.sigmoid"),
    (  # tt-lang-sim's spelling of a function only ttl.math has
        "ttl.block.exp(a_blk)",
        "ttl.block has no function 'exp'",
        "write ttl.math.exp(...)",
    ),
    (
        "ttl.math.exp(a_blk, a_blk)",
        "ttl.math.exp() takes one block operand; its options are keyword-only",
        "write ttl.math.exp(expr, *, approx=False, scale=None",
    ),
    (
        "ttl.math.clamp(a_blk, 1.0)",
        "ttl.math.clamp() is missing its 'max' argument",
        "ttl.math.clamp(expr, min, max)",
    ),
    (
        "ttl.math.elu(a_blk, slope=1.0, alpha=2.0)",
        "got multiple values for argument 'slope'",
        "pass 'slope' once",
    ),
    (
        "ttl.math.relu_max(a_blk, limit=2)",
        "unexpected keyword argument 'limit'",
        "ttl.math.relu_max(expr, upper_limit)",
    ),
    (
        "ttl.math.pow(a_blk, -2)",
        "'exponent' of ttl.math.pow must be a natural number",
        "non-negative integer",
    ),
    ("ttl.math.pow(a_blk, 2.5)", "got 2.5 (not an integer)", "non-negative integer"),
    ("a_blk ** -1", "the exponent of '**' must be a natural number", "non-negative integer"),
    ("a_blk ** 0.5", "the exponent of '**' must be a natural number", "non-negative integer"),
    (
        "a_blk ** a_blk",
        "exponent of '**' must be a compile-time natural number, got a block",
        "blk ** 2",
    ),
    (
        "ttl.math.round(a_blk, decimals=-1)",
        "'decimals' of ttl.math.round must be a natural",
        "non-negative integer",
    ),
    (
        "ttl.math.leaky_relu(a_blk, (1, 2))",
        "'slope' of ttl.math.leaky_relu must be a compile-time int or float, got tuple value",
        "write a number",
    ),
    ("ttl.math.hardtanh(a_blk, True, 1.0)", "got the bool True", "write a number"),
    ("ttl.math.exp(2.0)", "", ""),
]


@pytest.mark.parametrize(("expr", "message", "hint"), BAD, ids=[b[0] for b in BAD])
def test_bad_unary_call(compile_error, expr: str, message: str, hint: str):
    err = compile_error(UNARY_OP.format(expr=expr), "op", SPECS)
    assert message in err.message
    assert hint in (err.hint or "")
    assert "Traceback" not in err.render()
