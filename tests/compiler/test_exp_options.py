"""``ttl.math.exp``'s options (spec v0.20): lowering to TT-Metal's ``exp_tile`` template,
the ``exp(x * C)`` canonicalisation, and errors. Numerics on both targets:
tests/programs/exp_options.py."""

from __future__ import annotations

import pytest

SPECS = {"a": "bf16[32,32]", "y": "bf16[32,32]"}

SOURCE = """
import ttl

@ttl.operation(grid=(1, 1))
def op(a, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1))
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1))

    @ttl.datamovement()
    def read():
        with a_dfb.reserve() as blk:
            ttl.copy(a[0, 0], blk).wait()

    @ttl.compute()
    def compute():
        with a_dfb.wait() as x, y_dfb.reserve() as o:
            o.store({expr})

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as blk:
            ttl.copy(blk, y[0, 0]).wait()
"""


def _compute_cpp(compile_source, expr: str) -> str:
    return compile_source(SOURCE.replace("{expr}", expr), "op", SPECS).sources["compute.cpp"]


@pytest.mark.parametrize(
    ("expr", "init", "tile"),
    [
        ("ttl.math.exp(x)", "exp_tile_init();", "exp_tile(0);"),
        ("ttl.math.exp(x, scale=None)", "exp_tile_init();", "exp_tile(0);"),
        (
            "ttl.math.exp(x, scale=0.5)",
            "exp_tile_init<false, 0x3f000000u, InputClamping::ClampToNegative>();",
            "exp_tile<false, true, InputClamping::ClampToNegative, 8>(0, VectorMode::RC, 0x3f00);",
        ),
        (
            "ttl.math.exp(x, approx=True, skip_clamp_check=True, iterations=4)",
            "exp_tile_init<true, 0x3f800000u, InputClamping::None>();",
            "exp_tile<true, false, InputClamping::None, 4>(0, VectorMode::RC, 0x3f80);",
        ),
        # The spec's canonicalisation: exp(x * C) is exp(x, scale=C), either operand order.
        (
            "ttl.math.exp(x * 2.0)",
            "",
            "exp_tile<false, true, InputClamping::ClampToNegative, 8>(0, VectorMode::RC, 0x4000);",
        ),
        ("ttl.math.exp(0.1 * x)", "", "(0, VectorMode::RC, 0x3dcd);"),  # bf16(0.1)
    ],
)
def test_options_become_exp_tile_template_arguments(compile_source, expr, init, tile):
    cpp = _compute_cpp(compile_source, expr)
    assert init in cpp and tile in cpp, cpp
    if "* 2.0" in expr or "0.1 *" in expr:
        assert "mul_unary_tile" not in cpp  # no separate multiply


def test_an_explicit_scale_keeps_the_multiply(compile_source):
    cpp = _compute_cpp(compile_source, "ttl.math.exp(x * 2.0, scale=3.0)")
    assert "mul_unary_tile" in cpp and "(0, VectorMode::RC, 0x4040);" in cpp


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        ("ttl.math.exp(x, True)", "its options are keyword-only"),
        ("ttl.math.exp(x, fast=True)", "got an unexpected keyword argument 'fast'"),
        ("ttl.math.exp(x, approx=1)", "'approx' of ttl.math.exp must be a compile-time bool"),
        ("ttl.math.exp(x, iterations=0)", "'iterations' of ttl.math.exp is 0"),
        ("ttl.math.exp(x, iterations=9)", "the emulator models 1 to 8 SFPU iterations"),
        ("ttl.math.exp(x, scale='2')", "'scale' of ttl.math.exp must be a compile-time int"),
    ],
)
def test_a_bad_option_is_an_error_at_its_line(compile_error, expr, message):
    source = SOURCE.replace("o.store({expr})", f"o.store({expr})  # ERROR")
    err = compile_error(source, "op", SPECS)
    assert message in err.message
