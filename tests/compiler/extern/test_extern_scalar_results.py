"""Spec section: Scalar results."""

from __future__ import annotations

import pytest
from compiler_testlib import filecheck


@pytest.mark.parametrize(
    ("scalar", "ir", "cpp"), [("I32", "i32", "int32_t"), ("I64", "i64", "int64_t")]
)
def test_i32_and_i64_results(extern_compile, scalar, ir, cpp):
    """ "`result_type=ttl.ScalarType.I32` and `result_type=ttl.ScalarType.I64` declare one
    signless scalar integer result.\""""
    r = extern_compile(
        f"""
        v = ttl.call_extern_func(HEADER, "value", result_type=ttl.ScalarType.{scalar},
                                 kernel=ttl.KernelKind.COMPUTE)
        if v:
            ttl.call_extern_func(HEADER, "use", kernel=ttl.KernelKind.COMPUTE)
        """
    )
    filecheck(r.ir, f'CHECK: ttl.call_extern "extern_entries.hpp", "value"(){{{{.*}}}} -> {ir}')
    filecheck(r.sources["compute.cpp"], f"CHECK: const {cpp} v = value();")


@pytest.mark.parametrize("spelling", ["", ", result_type=None"])
def test_void_when_omitted_or_none(extern_compile, spelling):
    """ "Omitting `result_type` or passing `None` declares a void function.\""""
    r = extern_compile(
        f"""
        ttl.call_extern_func(HEADER, "work"{spelling}, kernel=ttl.KernelKind.COMPUTE)
        """
    )
    filecheck(r.ir, 'CHECK: ttl.call_extern "extern_entries.hpp", "work"(){{.*}} : (), (), ()\n')
    filecheck(
        r.sources["compute.cpp"],
        """
        CHECK-NOT: = work();
        CHECK: {{^  work\\(\\);}}
        """,
    )


@pytest.mark.parametrize(
    ("value", "shown"),
    [('"i32"', "'i32'"), ("32", "32"), ("ttl.ScalarType", "the class")],
    ids=["raw-string", "integer", "class"],
)
def test_invalid_result_declarations(extern_error, value, shown):
    """ "Raw strings, integers, and the `ScalarType` class are invalid result declarations.\""""
    err = extern_error(
        f"""
        ttl.call_extern_func(HEADER, "f", result_type={value}, \
kernel=ttl.KernelKind.COMPUTE)  # ERROR
        """
    )
    assert "result_type" in err.message and shown in err.message
    assert "ttl.ScalarType.I32 or result_type=ttl.ScalarType.I64" in err.hint


def test_spec_example_result_guards_work(extern_compile):
    """ "A scalar-result call may be assigned directly in a unified operation." (the spec's
    is_enabled / execute_enabled_work example)"""
    r = extern_compile(
        """
        predicate = ttl.call_extern_func(
            HEADER,
            "is_enabled",
            result_type=ttl.ScalarType.I64,
            kernel=ttl.KernelKind.COMPUTE,
        )
        if predicate:
            ttl.call_extern_func(
                HEADER,
                "execute_enabled_work",
                kernel=ttl.KernelKind.COMPUTE,
            )
        """
    )
    filecheck(
        r.sources["compute.cpp"],
        """
        CHECK: const int64_t predicate = is_enabled();
        CHECK: const bool [[C:.*]] = predicate != 0;
        CHECK: if ([[C]]) {
        CHECK-NEXT: //
        CHECK-NEXT: execute_enabled_work();
        CHECK-NEXT: }
        """,
    )


def test_result_is_local_to_each_selected_kernel(extern_compile):
    """ "A call selected for multiple logical kernels creates an independent local result in
    each selected kernel.\""""
    r = extern_compile(
        """
        p = ttl.call_extern_func(HEADER, "probe", result_type=ttl.ScalarType.I32,
                                 kernel=ttl.KernelKind.COMPUTE | ttl.KernelKind.DATA_MOVEMENT)
        if p:
            ttl.call_extern_func(HEADER, "act",
                                 kernel=ttl.KernelKind.COMPUTE | ttl.KernelKind.DATA_MOVEMENT)
        """
    )
    for name in ("compute.cpp", "data_movement.cpp"):
        filecheck(
            r.sources[name],
            """
            CHECK: const int32_t p = probe();
            CHECK: if (
            CHECK: act();
            """,
        )


def test_result_needed_in_an_unselected_kernel_is_rejected(extern_error):
    """ "A call selected for multiple logical kernels creates an independent local result in
    each selected kernel." (only there: reading it elsewhere is an error)"""
    err = extern_error(
        """
        p = ttl.call_extern_func(HEADER, "probe", result_type=ttl.ScalarType.I32,  # ERROR
                                 kernel=ttl.KernelKind.COMPUTE)
        if p:
            ttl.call_extern_func(HEADER, "act", kernel=ttl.KernelKind.DATA_MOVEMENT)
        """
    )
    assert "'p' is computed in the canonical compute kernel" in err.message
    assert "also needed in the canonical data-movement kernel" in err.message
    assert "select every kernel that reads it" in err.hint


def test_control_flow_kept_only_where_work_remains(extern_compile):
    """ "Enclosing structured control is retained only in logical kernels that retain work in
    its regions.\""""
    r = extern_compile(
        """
        for i in range(3):
            if i > 0:
                ttl.call_extern_func(HEADER, "inner", func_args=[i], kernel=ttl.KernelKind.COMPUTE)
        ttl.call_extern_func(HEADER, "outer", kernel=ttl.KernelKind.DATA_MOVEMENT)
        """
    )
    filecheck(
        r.sources["compute.cpp"],
        """
        CHECK: for (int32_t i = 0; i < 3; ++i) {
        CHECK: if (
        CHECK: inner(i);
        CHECK-NOT: outer
        """,
    )
    filecheck(
        r.sources["data_movement.cpp"],
        """
        CHECK-NOT: for (
        CHECK-NOT: if (
        CHECK: outer();
        """,
    )


COMPOSED = """
import ttl

HEADER = "extern_entries.hpp"


def make_probe(scalar):
    @ttl.operation(grid=(1, 1))
    def probe(a):
        v = ttl.call_extern_func(HEADER, "probe", result_type=scalar, kernel=ttl.KernelKind.COMPUTE)
        if v:
            ttl.call_extern_func(HEADER, "act", kernel=ttl.KernelKind.COMPUTE)

    return probe


probe32 = make_probe(ttl.ScalarType.I32)
probe64 = make_probe(ttl.ScalarType.I64)
probe32_again = make_probe(ttl.ScalarType.I32)


@ttl.operation(grid=(1, 1))
def outer32(a):
    probe32(a)


@ttl.operation(grid=(1, 1))
def outer64(a):
    probe64(a)
"""


def test_composition_preserves_captured_scalar_types(write_source):
    """ "Composition preserves captured `ScalarType` members and includes them in deterministic
    operation identity.\""""
    from ttl.compiler.driver import compile_operation, load_operation

    path = str(write_source(COMPOSED))
    from extern_testlib import INCLUDE_DIR, REPO

    inc = (str(REPO / INCLUDE_DIR),)
    r32 = compile_operation(load_operation(path, "outer32"), {"a": "bf16[32,32]"}, include_dirs=inc)
    r64 = compile_operation(load_operation(path, "outer64"), {"a": "bf16[32,32]"}, include_dirs=inc)
    filecheck(r32.sources["compute.cpp"], "CHECK: const int32_t {{.*}} = probe();")
    filecheck(r64.sources["compute.cpp"], "CHECK: const int64_t {{.*}} = probe();")
    p32, p64 = load_operation(path, "probe32"), load_operation(path, "probe64")
    assert p32.identity != p64.identity
    assert p32.identity == load_operation(path, "probe32_again").identity
