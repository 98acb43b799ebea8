"""Bad input to ttl_operation fails the build with an actionable message.

Each target of tests/rules/bad is built on its own (they are `manual`).
"""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def bazel(root_bazel):
    return root_bazel


def build_fails(bazel, *args):
    result = bazel("build", *args)
    assert result.returncode != 0, f"{args[-1]} built"
    # No Python traceback (a Starlark `fail` at analysis prints a .bzl one).
    assert '.py", line' not in result.stderr, result.stderr
    return result.stderr


def test_compiler_error_shows_the_tt_lang_diagnostic(bazel):
    err = build_fails(bazel, "//tests/rules/bad:compile_error")
    assert "Compiling TT-Lang operation broken (//tests/rules/bad:compile_error)" in err
    assert "tests/rules/bad/broken.py:15:" in err
    assert "tx = ttl.copy(a[0, 0], blk)" in err
    assert "/execroot/" not in err and ".stage/" not in err


def test_unknown_operation_lists_what_src_defines(bazel):
    err = build_fails(bazel, "//tests/rules/bad:unknown_operation")
    assert "'not_there' is not a @ttl.operation in tests/rules/bad/broken.py" in err
    assert "broken" in err


def test_malformed_args_fail_at_analysis_naming_the_spec(bazel):
    err = build_fails(bazel, "//tests/rules/bad:malformed_args")
    assert "malformed tensor spec `a=bf16[64,sixty]`" in err
    assert "dimension `sixty` is not a positive integer" in err


def test_unknown_target_fails_at_analysis_naming_attribute_and_known_targets(bazel):
    err = build_fails(bazel, "//tests/rules/bad:unknown_target")
    assert "attribute `target` of //tests/rules/bad:unknown_target" in err
    assert "`grayskull` is not a device target (known: blackhole, wormhole_b0)" in err
    assert "Analysis of target '//tests/rules/bad:unknown_target' failed" in err


def test_malformed_grid_fails_at_analysis_saying_what_to_write(bazel):
    err = build_fails(bazel, "//tests/rules/bad:malformed_grid")
    assert "attribute `grid` of //tests/rules/bad:malformed_grid (for wormhole_b0)" in err
    assert "`2by2` is not a grid: write `XxY` (columns x rows) with positive integers" in err
    assert "Analysis of target" in err


def test_grid_larger_than_the_target_fails_at_analysis(bazel):
    err = build_fails(bazel, "//tests/rules/bad:grid_too_large")
    assert "grid 9x8 is larger than the wormhole_b0 grid 8x8: use at most 8x8, or `full`" in err


def test_pinned_target_disagreeing_with_the_platform_fails_at_analysis(bazel):
    err = build_fails(
        bazel,
        "--platforms=//toolchains/platforms:blackhole",
        "//tests/rules/bad:pinned_wormhole",
    )
    assert (
        'attribute `target` of //tests/rules/bad:pinned_wormhole is "wormhole_b0" but the '
        "target platform //toolchains/platforms:blackhole is blackhole" in err
    )
    assert "--platforms=@ttl_bazel//toolchains/platforms:wormhole_b0" in err


def test_malformed_tolerance_fails_at_analysis_naming_the_test(bazel):
    err = build_fails(bazel, "//tests/rules/bad:bad_tolerance_test")
    assert "attribute `rtol` of ttl_operation_test //tests/rules/bad:bad_tolerance_test" in err
    assert (
        '`1/128` is not a non-negative decimal number; write a decimal string, e.g. rtol = "0.01"'
        in err
    )


def test_tiled_spec_of_partial_tiles_fails_at_analysis(bazel):
    err = build_fails(bazel, "//tests/rules/bad:partial_tile_spec")
    assert (
        "malformed tensor spec `a=bf16[60,64]` in `args` of //tests/rules/bad:partial_tile_spec"
        in err
    )
    assert "the two innermost dimensions of a tiled tensor must be multiples of 32" in err
    assert "write `:tile` after it for a tensor of that logical shape" in err
    assert "or `:row_major`" in err
    assert "Analysis of target" in err


def test_negative_seed_fails_at_analysis_naming_the_test(bazel):
    err = build_fails(bazel, "//tests/rules/bad:negative_seed_test")
    assert "attribute `seed` of ttl_operation_test //tests/rules/bad:negative_seed_test" in err
    assert "-1 is not a seed of the random inputs: write an integer from 0 to" in err


def test_undeclared_header_names_header_call_line_and_attribute(bazel):
    err = build_fails(bazel, "//tests/rules/bad:undeclared_header")
    assert "header 'undeclared.hpp' of ttl.call_extern_func was not found" in err
    assert "tests/rules/bad/extern_ops.py:10:" in err
    assert "`hdrs`/`deps` of the ttl_operation" in err


def test_include_path_outside_declared_inputs_names_the_path(bazel):
    err = build_fails(bazel, "//tests/rules/bad:undeclared_include_path")
    assert (
        "include path 'tests/rules/bad/include' of ttl.call_extern_func is not a directory" in err
    )
    assert "tests/rules/bad/extern_ops.py:18:" in err
    assert "`hdrs`" in err


def test_undeclared_transitive_include_names_header_call_and_attribute(bazel):
    err = build_fails(bazel, "//tests/rules/bad:undeclared_transitive_include")
    assert "undeclared header `secret.hpp`" in err
    assert "ttl.call_extern_func of `declared.hpp` at extern_ops.py:25" in err
    assert "add it to `hdrs` of //tests/rules/bad:undeclared_transitive_include" in err


def test_a_header_included_by_an_absolute_path_fails_the_device_build(bazel):
    """An undeclared header reached by an absolute path is not an input: the build
    fails (naming it) rather than going stale when it changes (issue: hermetic headers)."""
    import pathlib

    outside = pathlib.Path("/tmp/ttl-bazel-outside")
    outside.mkdir(exist_ok=True)
    (outside / "outside.hpp").write_text("#pragma once\ninline void outside_entry() {}\n")
    err = build_fails(bazel, "//tests/rules/bad:absolute_include")
    assert "includes headers that are not declared inputs of the build" in err
    assert "/tmp/ttl-bazel-outside/outside.hpp" in err
    assert "Declare them in `hdrs`" in err


@pytest.mark.parametrize(
    "strategy",
    [(), ("--spawn_strategy=sandboxed", "--strategy=TtlCompile=sandboxed")],
    ids=["worker", "sandboxed"],
)
def test_an_absolute_include_path_fails_the_device_build(bazel, strategy):
    """Issue 31: include_paths=["/abs/outside"] with no declared header built under the
    worker and the sandboxed strategy: headers there are not inputs (a stale bundle)."""
    import pathlib

    outside = pathlib.Path("/tmp/ttl-bazel-outside")
    outside.mkdir(exist_ok=True)
    (outside / "outside.hpp").write_text("#pragma once\ninline void outside_entry() {}\n")
    err = build_fails(bazel, *strategy, "//tests/rules/bad:absolute_include_path")
    assert "include path '/tmp/ttl-bazel-outside' of an external call is outside the build's" in err
    assert "declare them in `hdrs`" in err


def test_unknown_entry_of_targets_fails_at_analysis(bazel):
    err = build_fails(bazel, "//tests/rules/bad:unknown_in_targets")
    assert "attribute `targets` of the ttl_operation building" in err
    assert "`grayskull` is not a device target (known: blackhole, wormhole_b0)" in err
    assert "Analysis of target '//tests/rules/bad:unknown_in_targets' failed" in err


def test_missing_tensor_spec_hint_names_the_args_attribute(bazel):
    err = build_fails(bazel, "//tests/rules/bad:missing_spec")
    assert "operation 'broken' parameter 'y' has no tensor spec" in err
    hint = 'hint: give it one, e.g. `args = {..., "y": "bf16[64,64]"}`'
    assert f"{hint} of //tests/rules/bad:missing_spec\n" in err
    assert "--arg" not in err and "specs=" not in err
