"""Bad input to ttl_operation fails the build with an actionable message.

Each target of tests/rules/bad is built on its own (they are `manual`).
"""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def bazel(bazel_factory):
    return bazel_factory(name="ob_bad")


def build_fails(bazel, target):
    result = bazel("build", target)
    assert result.returncode != 0, f"{target} built"
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


def test_unknown_target_names_the_known_targets(bazel):
    err = build_fails(bazel, "//tests/rules/bad:unknown_target")
    assert "grayskull" in err
    assert "blackhole" in err and "wormhole_b0" in err


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
