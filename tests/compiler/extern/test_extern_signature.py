"""Spec section: the ``ttl.call_extern_func`` signature (external-functions.md, intro)."""

from __future__ import annotations

from compiler_testlib import filecheck


def test_header_and_callee_are_compile_time_strings(extern_compile):
    """ "`header` and `callee` are compile-time strings." (literal and captured constant)"""
    r = extern_compile(
        """
        ttl.call_extern_func(HEADER, "shared_entry", kernel=ttl.KernelKind.COMPUTE)
        ttl.call_extern_func("extern_entries.hpp", CALLEE, kernel=ttl.KernelKind.COMPUTE)
        """,
        top='CALLEE = "execute_me"',
    )
    filecheck(
        r.ir,
        """
        CHECK: ttl.call_extern "extern_entries.hpp", "shared_entry"()
        CHECK: ttl.call_extern "extern_entries.hpp", "execute_me"()
        """,
    )


def test_header_must_be_a_string(extern_error):
    """ "`header` and `callee` are compile-time strings." (an int header is rejected)"""
    err = extern_error(
        """
        ttl.call_extern_func(3, "f", kernel=ttl.KernelKind.COMPUTE)  # ERROR
        """
    )
    assert "'header' of ttl.call_extern_func must be a compile-time string" in err.message
    assert "string literal" in err.hint


def test_callee_must_not_be_a_runtime_value(extern_error):
    """ "`header` and `callee` are compile-time strings." (a runtime result is rejected)"""
    err = extern_error(
        """
        x = ttl.call_extern_func(HEADER, "f", result_type=ttl.ScalarType.I32, \
kernel=ttl.KernelKind.COMPUTE)
        ttl.call_extern_func(HEADER, x, kernel=ttl.KernelKind.COMPUTE)  # ERROR
        """
    )
    assert "'callee' of ttl.call_extern_func must be a compile-time string" in err.message
    assert "a runtime int" in err.message


def test_source_order_is_preserved(extern_compile):
    """ "`template_args`, `func_args`, and `include_paths` preserve source order.\""""
    r = extern_compile(
        """
        ttl.call_extern_func(
            HEADER,
            "ordered",
            template_args=[3, True, 2],
            func_args=[7, src, 5],
            include_paths=[B, A],
            kernel=ttl.KernelKind.DATA_MOVEMENT,
        )
        """,
        top=f'A = "{_include()}"\nB = "{_include()}/../include"',
    )
    filecheck(r.sources["data_movement.cpp"], "CHECK: ordered<3, true, 2>(7, dfb_src, 5);")
    kernel = r.manifest["kernels"][0]
    assert kernel["include_dirs"] == [f"{_include()}/../include", _include()]


def test_cpp_signature_is_not_validated(extern_compile):
    """ "The compiler does not validate the C++ signature." (an undeclared callee compiles)"""
    r = extern_compile(
        """
        ttl.call_extern_func(HEADER, "not_declared_anywhere", func_args=[1, 2, 3],
                             kernel=ttl.KernelKind.COMPUTE)
        """
    )
    filecheck(r.sources["compute.cpp"], "CHECK: not_declared_anywhere(1, 2, 3);")


def test_unknown_keyword_is_rejected(extern_error):
    """The signature: keyword-only arguments are exactly those of the spec."""
    err = extern_error(
        """
        ttl.call_extern_func(HEADER, "f", kernal=ttl.KernelKind.COMPUTE)  # ERROR
        """
    )
    assert "unexpected keyword argument 'kernal'" in err.message
    assert "template_args, func_args, dfb_dependencies, dfb_effects" in err.hint


def test_only_header_and_callee_are_positional(extern_error):
    """The signature: `header, callee, *, ...` (a third positional argument is rejected)."""
    err = extern_error(
        """
        ttl.call_extern_func(HEADER, "f", [1], kernel=ttl.KernelKind.COMPUTE)  # ERROR
        """
    )
    assert "takes two positional arguments (header, callee)" in err.message


def _include() -> str:
    from extern_testlib import INCLUDE_DIR, REPO

    return str(REPO / INCLUDE_DIR)
