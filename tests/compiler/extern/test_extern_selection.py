"""Spec section: Logical-kernel selection."""

from __future__ import annotations

import pytest
from compiler_testlib import filecheck


def _kernels(r) -> list[str]:
    return [k["logical_kernel"] for k in r.manifest["kernels"]]


def test_compute_kind_selects_canonical_compute_kernel(extern_compile):
    """ "`KernelKind.COMPUTE` and `KernelKind.DATA_MOVEMENT` select the compiler-owned canonical
    kernel of that kind." (the spec's compute_external example)"""
    r = extern_compile(
        """
        ttl.call_extern_func(
            HEADER,
            "compute_entry",
            func_args=[ttl.raw_addr(inp)],
            kernel=ttl.KernelKind.COMPUTE,
        )
        """
    )
    assert _kernels(r) == ["op.compute"]
    assert r.manifest["kernels"][0]["kind"] == "compute"


def test_or_combines_canonical_kinds(extern_compile):
    """ "Combine canonical kernel kinds with `|` when one call executes in both.\""""
    r = extern_compile(
        """
        ttl.call_extern_func(
            HEADER,
            "shared_entry",
            kernel=ttl.KernelKind.COMPUTE | ttl.KernelKind.DATA_MOVEMENT,
        )
        """
    )
    assert _kernels(r) == ["op.compute", "op.data_movement"]
    for source in r.sources.values():
        assert source.count("shared_entry();") == 1


FACTORY = """
import ttl

HEADER = "extern_entries.hpp"


def make_selected_external():
    reader = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)

    @ttl.operation(grid=(1, 1))
    def selected_external(inp, out):
        ttl.call_extern_func(
            HEADER,
            "reader_entry",
            func_args=[inp],
            kernel=reader,
        )
        ttl.call_extern_func(
            HEADER,
            "shared_entry",
            kernel=(ttl.KernelKind.COMPUTE, reader),
        )

    return selected_external


selected_external = make_selected_external()
"""


def test_kernel_handle_from_factory(extern_compile):
    """ "An operation-local `Kernel` distinguishes multiple kernels with the same kind. An
    operation factory may create one handle and capture it in the operation.\""""
    r = extern_compile(FACTORY, whole=True, name="selected_external")
    assert _kernels(r) == ["selected_external.reader", "selected_external.compute"]
    filecheck(r.sources["reader.cpp"], "CHECK: reader_entry(tensor_inp);\nCHECK: shared_entry();")
    filecheck(r.sources["compute.cpp"], "CHECK-NOT: reader_entry\nCHECK: shared_entry();")


def test_kernel_handle_as_static_body_assignment(extern_compile):
    """ "A handle used only by the operation may instead be declared as a static top-level
    assignment in the operation body.\""""
    r = extern_compile(
        """
        writer = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)
        ttl.call_extern_func(HEADER, "a", kernel=writer)
        ttl.call_extern_func(HEADER, "b", kernel=ttl.KernelKind.DATA_MOVEMENT)
        """
    )
    assert _kernels(r) == ["op.writer", "op.data_movement"]


def test_explicit_threads_use_the_same_selectors(extern_compile):
    """ "Explicit multi-kernel operations use the same selectors on thread decorators." and
    "A call may omit `kernel=` when its enclosing callback already determines one logical
    kernel.\""""
    r = extern_compile(
        """
        import ttl

        HEADER = "extern_entries.hpp"


        def make_explicit_operation():
            reader = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)

            @ttl.operation(grid=(1, 1))
            def explicit_operation(inp, out):
                @ttl.compute(kernel=ttl.KernelKind.COMPUTE)
                def compute_thread():
                    ttl.call_extern_func(HEADER, "in_compute")

                @ttl.datamovement(kernel=reader)
                def reader_thread():
                    ttl.call_extern_func(HEADER, "in_reader", kernel=reader)

            return explicit_operation


        explicit_operation = make_explicit_operation()
        """,
        whole=True,
        name="explicit_operation",
    )
    assert _kernels(r) == ["explicit_operation.compute_thread", "explicit_operation.reader"]
    filecheck(r.sources["compute_thread.cpp"], "CHECK: in_compute();")
    filecheck(r.sources["reader_thread.cpp"], "CHECK: in_reader();")


def test_explicit_thread_call_selecting_another_kernel_is_rejected(extern_error):
    """ "A call may omit `kernel=` when its enclosing callback already determines one logical
    kernel." (a selector naming a different kernel contradicts the callback)"""
    err = extern_error(
        """
        @ttl.compute()
        def compute():
            ttl.call_extern_func(HEADER, "f", kernel=ttl.KernelKind.DATA_MOVEMENT)  # ERROR
        """
    )
    assert "does not select this compute kernel 'compute'" in err.message
    assert "omit kernel= inside a thread function" in err.hint


def test_tuple_emits_once_in_every_selected_kernel(extern_compile):
    """ "A nonempty tuple supports selections that include operation-local `Kernel` handles.
    Multiple selectors emit the call once in every selected logical kernel.\""""
    r = extern_compile(
        """
        reader = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)
        ttl.call_extern_func(HEADER, "everywhere",
                             kernel=(ttl.KernelKind.COMPUTE, reader, ttl.KernelKind.DATA_MOVEMENT))
        """
    )
    assert _kernels(r) == ["op.compute", "op.reader", "op.data_movement"]
    assert [s.count("everywhere();") for s in r.sources.values()] == [1, 1, 1]


@pytest.mark.parametrize(
    "selector",
    [
        "(ttl.KernelKind.COMPUTE, ttl.KernelKind.COMPUTE)",
        "(ttl.KernelKind.COMPUTE | ttl.KernelKind.DATA_MOVEMENT, ttl.KernelKind.DATA_MOVEMENT)",
    ],
    ids=["tuple", "union-and-tuple"],
)
def test_duplicate_selectors_are_rejected(extern_error, selector):
    """ "An external call accepts one selector or multiple distinct selectors.\""""
    err = extern_error(
        f"""
        ttl.call_extern_func(HEADER, "f", kernel={selector})  # ERROR
        """
    )
    assert "twice" in err.message
    assert "distinct selectors" in err.hint


@pytest.mark.parametrize(
    ("selector", "what"),
    [("()", "selects no logical kernel"), ('"compute"', "is not a logical-kernel selector")],
)
def test_invalid_selectors_are_rejected(extern_error, selector, what):
    """ "A nonempty tuple supports selections..." (empty tuples and strings are not selectors)"""
    err = extern_error(
        f"""
        ttl.call_extern_func(HEADER, "f", kernel={selector})  # ERROR
        """
    )
    assert what in err.message
    assert "kernel=ttl.KernelKind.COMPUTE" in err.hint


def test_top_level_opaque_call_without_selector_is_rejected(extern_error):
    """ "A top-level opaque call without a selector is invalid because the compiler cannot
    infer placement from C++ code.\""""
    err = extern_error(
        """
        ttl.call_extern_func(HEADER, "opaque")  # ERROR
        """
    )
    assert "needs kernel=" in err.message
    assert "cannot infer placement from C++ code" in err.message
    assert "kernel=ttl.KernelKind.COMPUTE" in err.hint


def test_unified_capacity_uses_the_target_table(extern_error):
    """ "Compilation fails when an operation requests more kernels of a kind than the target
    supports. Unified and explicit multi-kernel operations use the same target capacity table
    and diagnostic terms.\""""
    err = extern_error(
        """
        r1 = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)
        r2 = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)
        ttl.call_extern_func(HEADER, "a", kernel=(r1, r2, ttl.KernelKind.DATA_MOVEMENT))  # ERROR
        """
    )
    assert "operation 'op' needs 3 data-movement kernels; target wormhole_b0 has 2" in err.message


def test_omitted_decorator_selector_is_the_canonical_kernel(extern_compile):
    """ "An omitted selector denotes the canonical kernel of that kind." (a call selecting the
    canonical kind inside an unselected thread is that thread's kernel)"""
    r = extern_compile(
        """
        @ttl.compute()
        def compute():
            ttl.call_extern_func(HEADER, "f", kernel=ttl.KernelKind.COMPUTE)
        """
    )
    filecheck(r.sources["compute.cpp"], "CHECK: f();")


def test_target_assigns_kernel_resources(extern_compile):
    """ "The target backend assigns logical kernels to its supported kernel resources.\""""
    r = extern_compile(FACTORY, whole=True, name="selected_external")
    slots = {k["logical_kernel"]: k["processor_slot"] for k in r.manifest["kernels"]}
    assert slots == {"selected_external.reader": "dm0", "selected_external.compute": "compute"}
