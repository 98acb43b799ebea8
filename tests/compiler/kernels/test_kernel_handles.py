"""Logical-kernel handles, explicit selectors and capacity (spec: "Logical-kernel selection").

Each test quotes the spec sentence (or issue item) it checks.
"""

from __future__ import annotations

import pytest

import ttl
from ttl.compiler.analysis.capacity import kernel_capacity_error
from ttl.targets import DATA_MOVEMENT, get_target

SPECS = {"a": "bf16[32,32]"}


def test_unbound_handle_equality_and_hash_raise():
    # Issue 5 item 4: "Equality/hash of an unbound handle raises".
    h = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)
    with pytest.raises(ttl.TTLCompileError, match="before any operation registered it"):
        _ = h == ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)
    with pytest.raises(ttl.TTLCompileError, match="before any operation registered it"):
        hash(h)


FACTORY = """
import ttl

def make(n):
    reader = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)

    @ttl.operation(grid=(1, 1))
    def selected(a):
        k = n
        @ttl.compute(kernel=ttl.KernelKind.COMPUTE)
        def compute_thread():
            pass

        @ttl.datamovement(kernel=reader)
        def reader_thread():
            pass

    return selected, reader

op1, r1 = make(1)
op1b, r1b = make(1)
op2, r2 = make(2)
"""


def test_registration_binds_captured_handle_in_place(write_source):
    # Spec: "Operation registration binds the same handle in place using its capture
    # name and deterministic operation identity." / "Operation registration binds a
    # captured thread selector before compilation."
    from ttl.compiler.driver import compile_operation, load_operation

    path = write_source(FACTORY)
    op1 = load_operation(str(path), "op1")
    mod = op1.fn.__globals__
    r1, r1b, r2 = mod["r1"], mod["r1b"], mod["r2"]
    assert r1.binding.owner is op1 and r1.binding.capture_name == "reader"
    assert r1.name == "selected.reader"
    # "Equal captures retain the same identity" -> equal handles; different captures differ.
    assert r1 == r1b and hash(r1) == hash(r1b)
    assert r1 != r2
    m = compile_operation(op1, SPECS).manifest
    assert [(k["logical_kernel"], k["processor_slot"]) for k in m["kernels"]] == [
        ("selected.compute_thread", "compute"),
        ("selected.reader", "dm0"),
    ]
    assert r1.binding.owner is op1  # compiling again does not rebind


def test_static_top_level_handle_in_body(compile_source):
    # Spec: "A handle used only by the operation may instead be declared as a static
    # top-level assignment in the operation body."
    src = """
    import ttl

    @ttl.operation(grid=(1, 1))
    def op(a):
        reader = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)
        writer = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)

        @ttl.datamovement(kernel=reader)
        def r():
            pass

        @ttl.datamovement(kernel=writer)
        def w():
            pass
    """
    m = compile_source(src, "op", SPECS).manifest
    # Issue 5 item 5: several data-movement threads with distinct handles.
    assert [(k["logical_kernel"], k["processor_slot"]) for k in m["kernels"]] == [
        ("op.reader", "dm0"),
        ("op.writer", "dm1"),
    ]


def test_foreign_handle_rejected(compile_error):
    # Issue 5 item 4: "a handle owned by another operation ... is rejected".
    src = """
    import ttl

    SHARED = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)

    @ttl.operation(grid=(1, 1))
    def first(a):
        @ttl.datamovement(kernel=SHARED)
        def r():
            pass

    @ttl.operation(grid=(1, 1))
    def second(a):
        @ttl.datamovement(kernel=SHARED)  # ERROR
        def r():
            pass
    """
    err = compile_error(src, "second", SPECS)
    assert err.message == (
        "thread 'r' uses ttl.Kernel handle 'SHARED' owned by operation 'first', not by 'second'"
    )


@pytest.mark.parametrize("selector", ['"dm0"', '"riscv_0"'])
def test_processor_string_selector_rejected(compile_error, selector):
    # Issue 5 item 4: "a physical processor string, is rejected".
    src = f"""
    import ttl

    @ttl.operation(grid=(1, 1))
    def op(a):
        @ttl.datamovement(kernel={selector})  # ERROR
        def r():
            pass
    """
    err = compile_error(src, "op", SPECS)
    assert err.message.startswith(
        f"kernel={selector.replace(chr(34), chr(39))} names a physical processor"
    )


def test_mismatched_decorator_kind_rejected(compile_error):
    # Spec: "Each decorator accepts one selector whose kind matches the thread type."
    src = """
    import ttl

    def make():
        reader = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)

        @ttl.operation(grid=(1, 1))
        def op(a):
            @ttl.compute(kernel=reader)  # ERROR
            def c():
                pass

        return op

    op = make()
    """
    err = compile_error(src, "op", SPECS)
    assert err.message == (
        "kernel= ttl.Kernel handle of kind data-movement does not match the thread kind "
        "compute of @ttl.compute()"
    )


def test_one_handle_on_two_threads_rejected(compile_error):
    # A handle names one logical kernel; two thread functions cannot both be it.
    src = """
    import ttl

    @ttl.operation(grid=(1, 1))
    def op(a):
        h = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)

        @ttl.datamovement(kernel=h)
        def r():
            pass

        @ttl.datamovement(kernel=h)  # ERROR
        def w():
            pass
    """
    err = compile_error(src, "op", SPECS)
    assert "both select ttl.Kernel handle 'h'" in err.message


def test_over_capacity_explicit_handles(compile_error):
    # Spec: "Compilation fails when an operation requests more kernels of a kind than the
    # target supports." Issue 5 item 8 wording.
    src = """
    import ttl

    def make():
        r1 = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)
        r2 = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)
        r3 = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)

        @ttl.operation(grid=(1, 1))
        def f(a):
            @ttl.datamovement(kernel=r1)
            def x():
                pass

            @ttl.datamovement(kernel=r2)
            def y():
                pass

            @ttl.datamovement(kernel=r3)
            def z():  # ERROR
                pass

        return f

    f = make()
    """
    err = compile_error(src, "f", SPECS)
    assert err.message == "operation 'f' needs 3 data-movement kernels; target wormhole_b0 has 2"


def test_capacity_wording_is_one_function_for_both_forms():
    # Spec: "Unified and explicit multi-kernel operations use the same target capacity
    # table and diagnostic terms." The unified path calls the same function.
    target = get_target("wormhole_b0")
    assert kernel_capacity_error("f", DATA_MOVEMENT, 2, target, None) is None
    err = kernel_capacity_error("f", DATA_MOVEMENT, 3, target, None)
    assert err is not None
    assert err.message == "operation 'f' needs 3 data-movement kernels; target wormhole_b0 has 2"


def test_over_capacity_unified_operation_same_terms(compile_error, tmp_path):
    # Spec: "Unified and explicit multi-kernel operations use the same target capacity
    # table and diagnostic terms."
    (tmp_path / "h.hpp").write_text("#pragma once\n")
    src = """
    import ttl

    HEADER = "h.hpp"

    def make():
        r1 = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)
        r2 = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)
        r3 = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)

        @ttl.operation(grid=(1, 1))
        def f(a):
            ttl.call_extern_func(HEADER, "x", kernel=r1)
            ttl.call_extern_func(HEADER, "y", kernel=r2)
            ttl.call_extern_func(HEADER, "z", kernel=r3)  # ERROR

        return f

    f = make()
    """
    err = compile_error(src, "f", SPECS, include_dirs=(str(tmp_path),))
    assert err.message == "operation 'f' needs 3 data-movement kernels; target wormhole_b0 has 2"


def test_decorator_takes_one_selector(compile_error):
    # Spec: "Each decorator accepts one selector whose kind matches the thread type."
    src = """
    import ttl

    @ttl.operation(grid=(1, 1))
    def op(a):
        @ttl.compute(kernel=ttl.KernelKind.COMPUTE | ttl.KernelKind.DATA_MOVEMENT)  # ERROR
        def c():
            pass
    """
    err = compile_error(src, "op", SPECS)
    assert err.message.startswith("a thread decorator takes one selector")


def test_canonical_kernel_selected_by_two_threads_rejected(compile_error):
    # Spec: "An omitted selector denotes the canonical kernel of that kind." Two threads
    # that both name the canonical kernel explicitly would be one logical kernel.
    src = """
    import ttl

    @ttl.operation(grid=(1, 1))
    def op(a):
        @ttl.datamovement(kernel=ttl.KernelKind.DATA_MOVEMENT)
        def r():
            pass

        @ttl.datamovement(kernel=ttl.KernelKind.DATA_MOVEMENT)  # ERROR
        def w():
            pass
    """
    err = compile_error(src, "op", SPECS)
    assert err.message.startswith(
        "threads 'r' and 'w' both select the canonical data-movement kernel"
    )
