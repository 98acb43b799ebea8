"""Compute options: ``fp32_dest_acc_en``, ``dst_full_sync_en`` and ``ttl.CompilerOptions``.

What each one changes in the IR, the manifest and the emitted C++, and the
errors for options that are misspelled, of the wrong type or not honoured.
"""

from __future__ import annotations

import pytest
from compiler_testlib import filecheck

import ttl
from ttl.compiler.opt import main as ttl_opt_main
from ttl.options import CompilerOptions, OptionsError, split_argv

EXP = """
import ttl

@ttl.operation(grid=(1, 1){options})
def op(a, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 16))
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 16))

    @ttl.compute()
    def compute():
        with a_dfb.wait() as a_blk, y_dfb.reserve() as y_blk:
            y_blk.store(ttl.math.exp(a_blk))
"""
BF16 = {"a": "bf16[32,512]", "y": "bf16[32,512]"}
F32 = {"a": "f32[32,512]", "y": "f32[32,512]"}


def _compute_config(result) -> dict:
    (entry,) = [k for k in result.manifest["kernels"] if k["kind"] == "compute"]
    return entry["compute_config"]


@pytest.mark.parametrize(
    ("options", "specs", "fp32", "full_sync", "tiles"),
    [
        ("", BF16, False, False, 8),  # bf16 tensors: 16-bit DST
        ("", F32, True, False, 4),  # an f32 tensor turns fp32 accumulation on (as tt-lang)
        (", fp32_dest_acc_en=True", BF16, True, False, 4),
        (", fp32_dest_acc_en=False", F32, False, False, 8),
        (", dst_full_sync_en=True", BF16, False, True, 16),
        (", fp32_dest_acc_en=True, dst_full_sync_en=True", BF16, True, True, 8),
    ],
)
def test_dst_mode_sets_capacity_manifest_and_chunking(
    compile_source, options, specs, fp32, full_sync, tiles
):
    result = compile_source(EXP.format(options=options), "op", specs)
    assert _compute_config(result) == {
        "fp32_dest_acc_en": fp32,
        "dst_full_sync_en": full_sync,
        "dst_tiles": tiles,
        "math_fidelity": "HiFi4",  # what the emulator models
        "math_approx_mode": False,
    }
    chunk = min(tiles, 16)
    loop = (
        f"for (uint32_t i = 0; i < {chunk}; ++i) {{"
        if chunk == 16
        else f"for (uint32_t t0 = 0; t0 < 16; t0 += {chunk}) {{"
    )
    mode = f"{'fp32' if fp32 else '16-bit'} DST, {'full' if full_sync else 'half'} sync"
    filecheck(
        result.sources["compute.cpp"],
        f"""
        CHECK: // DST: {mode}, {tiles} tiles
        CHECK: {loop}
        CHECK: exp_tile(
        """,
    )
    ir_has = "fp32_dest_acc_en" in result.ir, "dst_full_sync_en" in result.ir
    assert ir_has == (fp32, full_sync)


def test_no_maximize_dst_syncs_per_tile(compile_source):
    result = compile_source(EXP.format(options=', options="--no-ttl-maximize-dst"'), "op", BF16)
    assert 'options = "--no-ttl-maximize-dst"' in result.ir
    filecheck(
        result.sources["compute.cpp"],
        """
        CHECK: for (uint32_t t = 0; t < 16; ++t) {
        CHECK-NEXT: tile_regs_acquire();
        CHECK-NEXT: copy_init(dfb_a_dfb);
        CHECK-NEXT: copy_tile(dfb_a_dfb, t, 0);
        CHECK: pack_tile(0, dfb_y_dfb, t);
        CHECK-NEXT: tile_regs_release();
        """,
    )


ADD = """
import ttl

@ttl.operation(grid=(1, 1){options})
def op(a, b, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1))
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 1))
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1))

    @ttl.compute()
    def compute():
        with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk, y_dfb.reserve() as y_blk:
            y_blk.store(a_blk + b_blk)
"""
ADD_SPECS = {"a": "bf16[32,32]", "b": "bf16[32,32]", "y": "bf16[32,32]"}


def test_fpu_binary_ops_option_selects_the_sfpu_form(compile_source):
    fpu = compile_source(ADD.format(options=""), "op", ADD_SPECS)
    filecheck(fpu.sources["compute.cpp"], "CHECK: add_tiles(dfb_a_dfb, dfb_b_dfb, 0, 0, 0);")
    sfpu = compile_source(
        ADD.format(options=', options="--no-ttl-fpu-binary-ops"'), "op", ADD_SPECS
    )
    filecheck(
        sfpu.sources["compute.cpp"],
        """
        CHECK-NOT: add_tiles(
        CHECK: copy_tile(dfb_a_dfb, 0, 0);
        CHECK: copy_tile(dfb_b_dfb, 0, 1);
        CHECK: add_binary_tile(0, 1, 0);
        """,
    )


def test_compile_options_override_the_decorator_field_by_field(compile_source):
    src = EXP.format(options=', options="--no-ttl-maximize-dst --no-ttl-fpu-binary-ops"')
    result = compile_source(
        src, "op", BF16, options=CompilerOptions.from_string("--ttl-maximize-dst")
    )
    assert 'options = "--no-ttl-fpu-binary-ops"' in result.ir
    filecheck(result.sources["compute.cpp"], "CHECK: for (uint32_t i = 0; i < 8; ++i) {")


def test_no_compiler_dfbs_rejects_an_expression_operand(compile_error):
    src = """
    import ttl

    @ttl.operation(grid=(1, 1), options="--no-ttl-compiler-dfbs")
    def op(a, y):
        a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 2))
        y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1))

        @ttl.compute()
        def compute():
            with a_dfb.wait() as a_blk, y_dfb.reserve() as y_blk:
                y_blk.store(ttl.math.reduce_sum(ttl.math.exp(a_blk), dims=[-1]))  # ERROR
    """
    err = compile_error(src, "op", {"a": "bf16[32,64]", "y": "bf16[32,32]"})
    assert "--no-ttl-compiler-dfbs forbids them" in err.message
    assert "store the expression into a block of your own DFB" in err.hint


def test_l1_budget_option_limits_the_dfbs(compile_error):
    src = """
    import ttl

    @ttl.operation(grid=(1, 1), options="--ttl-l1-budget 8192")
    def op(a):
        small = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
        big = ttl.make_dataflow_buffer_like(a, shape=(1, 2), block_count=2)  # ERROR

        @ttl.datamovement()
        def fill():
            with small.reserve() as s, big.reserve() as b:
                ttl.copy(a[0, 0], s).wait()
                ttl.copy(a[0, 0:2], b).wait()
    """
    err = compile_error(src, "op", {"a": "bf16[64,64]"})
    assert err.message == (
        "dataflow buffers need 12288 bytes of L1 with 'big' (8192 bytes) but the L1 budget "
        "is 8192 bytes per node (--ttl-l1-budget)"
    )


def test_dst_capacity_message_names_the_mode(compile_error):
    expr = "blk"
    for _ in range(4):
        expr = f"ttl.math.exp(blk) + ({expr})"
    src = f"""
    import ttl

    @ttl.operation(grid=(1, 1), fp32_dest_acc_en=True)
    def op(a, y):
        a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1))
        y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1))

        @ttl.compute()
        def compute():
            with a_dfb.wait() as blk, y_dfb.reserve() as out:
                out.store({expr})  # ERROR
    """
    err = compile_error(src, "op", {"a": "bf16[32,32]", "y": "bf16[32,32]"})
    assert "needs 5 DST registers per tile but wormhole_b0 has 4 (fp32 DST, half sync)" in (
        err.message
    )


def test_ir_with_compute_options_round_trips_through_ttl_opt(compile_source, tmp_path, capsys):
    src = EXP.format(options=', fp32_dest_acc_en=True, options="--no-ttl-maximize-dst"')
    result = compile_source(src, "op", BF16)
    path = tmp_path / "op.mlir"
    path.write_text(result.ir)
    assert ttl_opt_main([str(path)]) == 0
    assert capsys.readouterr().out == result.ir


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    ("decorator", "message", "hint"),
    [
        ("grid=(1, 1), fp32_dest_acc=True", "has no parameter 'fp32_dest_acc'", "fp32_dest_acc_en"),
        ("grid=(1, 1), fp32_dest_acc_en='yes'", "expected True, False or None", "leave it out"),
        ("grid=(1, 1), dst_full_sync_en=1", "expected True, False or None", "leave it out"),
        (
            "grid=(1, 1), options='--ttl-maximise-dst'",
            "did you mean --ttl-maximize-dst",
            "--ttl-help",
        ),
        ("grid=(1, 1), options='--ttl-specialize-cores'", "does not have", "--ttl-help"),
        ("grid=(1, 1), options=3", "must be a flag string or ttl.CompilerOptions", "--ttl-help"),
    ],
)
def test_decorator_errors_are_located(write_source, decorator, message, hint):
    path = write_source(
        f"""
        import ttl

        @ttl.operation({decorator})  # ERROR
        def op(a):
            pass
        """
    )
    with pytest.raises(ttl.TTLCompileError) as info:
        from ttl.compiler.driver import load_operation

        load_operation(str(path), "op")
    err = info.value
    assert message in err.message
    assert hint in err.hint
    assert err.loc.filename == str(path) and err.loc.line == 3


def test_options_parse_merge_and_print():
    o = CompilerOptions.from_string("--no-ttl-maximize-dst --ttl-l1-budget=4096")
    assert (o.maximize_dst, o.l1_budget, o.enable_fpu_binary_ops) == (False, 4096, True)
    assert o.to_string() == "--no-ttl-maximize-dst --ttl-l1-budget 4096"
    assert CompilerOptions.from_string("--no-ttl-maximize-dst --ttl-maximize-dst").maximize_dst
    later = CompilerOptions.from_string("--ttl-maximize-dst")
    assert o.merge(later).to_string() == "--ttl-l1-budget 4096"  # only explicit fields override
    argv = ["prog.py", "--steps", "3", "--no-ttl-fpu-binary-ops"]
    assert CompilerOptions.from_argv(argv).to_string() == "--no-ttl-fpu-binary-ops"
    assert CompilerOptions() == CompilerOptions.from_string("")
    assert "--[no-]ttl-maximize-dst" in CompilerOptions.usage()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("--ttl-l1-budget", "--ttl-l1-budget needs a value"),
        ("--ttl-l1-budget x", "write a whole number of bytes"),
        ("--no-ttl-l1-budget", "--no-ttl-l1-budget is not an option"),
        ("--ttl-maximize-dst=1", "takes no value"),
        ("maximize", "unknown compiler option 'maximize'"),
        ("--ttl-block-matmul", "selects a tt-lang transformation that ttl-bazel does not have"),
    ],
)
def test_bad_option_strings(text, message):
    with pytest.raises(OptionsError, match=message):
        CompilerOptions.from_string(text)


def test_unknown_ttl_flag_in_argv_is_an_error():
    with pytest.raises(OptionsError, match="unknown compiler option '--ttl-maximise-dst'"):
        CompilerOptions.from_argv(["prog.py", "--ttl-maximise-dst"])


@pytest.mark.parametrize("bad", [{"maximize_dst": 1}, {"l1_budget": 0}, {"l1_budget": True}])
def test_compiler_options_fields_are_checked(bad):
    with pytest.raises(OptionsError):
        CompilerOptions(**bad)


def test_split_argv_takes_the_ttl_flags_and_their_values():
    argv = ["--rows", "32", "--ttl-l1-budget", "4096", "--no-ttl-maximize-dst", "x", "--ttl-help"]
    ours, rest = split_argv(argv)
    assert ours == ["--ttl-l1-budget", "4096", "--no-ttl-maximize-dst", "--ttl-help"]
    assert rest == ["--rows", "32", "x"]
    assert split_argv(["--ttl-l1-budget=8", "-v"]) == (["--ttl-l1-budget=8"], ["-v"])


_REDUCE_ROWS = """
import ttl

@ttl.operation(grid=(1, 1), options="{options}")
def op(a, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=1)

    @ttl.datamovement()
    def read():
        with a_dfb.reserve() as blk:
            ttl.copy(a[0, 0], blk).wait()

    @ttl.compute()
    def compute():
        with a_dfb.wait() as a_blk, y_dfb.reserve() as y_blk:
            {body}

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as blk:
            ttl.copy(blk, y[0, 0]).wait()
"""
_SPECS = {"a": "bf16[32,32]", "y": "bf16[32,32]"}


def test_a_reduction_without_a_scaler_block_needs_compiler_dfbs(compile_error):
    body = "y_blk.store(ttl.math.reduce_sum(a_blk, dims=[-1]))  # ERROR"
    src = _REDUCE_ROWS.format(options="--no-ttl-compiler-dfbs", body=body)
    err = compile_error(src, "op", _SPECS)
    assert err.message == (
        "a reduction without a scaler block needs a compiler-made DFB for the scaler tile "
        "TT-Metal's reduce_tile reads, and --no-ttl-compiler-dfbs forbids them"
    )
    assert "pass a scaler block of your own" in err.hint


def test_a_block_read_back_needs_compiler_dfbs(compile_error):
    body = "y_blk.store(a_blk)\n            y_blk.store(y_blk + 1.0)"
    src = _REDUCE_ROWS.format(options="--no-ttl-compiler-dfbs", body=body)
    err = compile_error(src, "op", _SPECS)
    assert err.message.startswith("a block of 'y_dfb' is read back after a store")
    assert "store the value into a block of another DFB" in err.hint


def test_the_l1_budget_counts_the_dfbs_the_compiler_adds(compile_error, compile_source):
    """6144 bytes of the program's own DFBs fit a 7168-byte budget; the scaler tile the
    reduction needs (2048 bytes) does not."""
    body = "y_blk.store(ttl.math.reduce_sum(a_blk, dims=[-1]))"
    assert compile_source(
        _REDUCE_ROWS.format(options="--ttl-l1-budget 8192", body=body), "op", _SPECS
    )
    err = compile_error(
        _REDUCE_ROWS.format(options="--ttl-l1-budget 7168", body=body), "op", _SPECS
    )
    assert err.message == (
        "operation 'op' needs 8192 bytes of L1 for its dataflow buffers (the budget is 7168) "
        "once the compiler has added what TT-Metal kernels need: 'scaler_compute' was added "
        "for it"
    )
    assert "give reductions a scaler block of your own" in err.hint
