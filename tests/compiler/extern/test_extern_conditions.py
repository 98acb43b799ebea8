"""Spec section: Dispatch-stable condition results."""

from __future__ import annotations

import re

import pytest
from compiler_testlib import filecheck

FACTORY = """
import ttl

HEADER = "extern_entries.hpp"


def make_conditional_operation():
    active = ttl.DispatchCondition(ttl.ScalarType.I64)
    other = ttl.DispatchCondition(ttl.ScalarType.I32)
    producer = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)
    consumer = ttl.Kernel(ttl.KernelKind.COMPUTE)

    @ttl.operation(grid=(1, 1))
    def conditional_operation(input_tensor):
        producer_active = ttl.call_extern_func(
            HEADER,
            "evaluate_for_producer",
            condition_result=active,
            kernel=producer,
        )
        consumer_active = ttl.call_extern_func(
            HEADER,
            "evaluate_for_consumer",
            condition_result=active,
            kernel=consumer,
        )
        unrelated = ttl.call_extern_func(
            HEADER,
            "evaluate_for_consumer",
            condition_result=other,
            kernel=consumer,
        )

    return conditional_operation


conditional_operation = make_conditional_operation()
"""


def _compile(extern_compile):
    return extern_compile(
        FACTORY, whole=True, name="conditional_operation", specs={"input_tensor": "bf16[32,32]"}
    )


def test_equal_attributes_identify_one_declaration(extern_compile):
    """ "In the compiled IR module, equal condition attributes identify one declaration and
    distinct declarations use distinct ordinals.\""""
    r = _compile(extern_compile)
    conditions = re.findall(r"condition = (#ttl\.dispatch_condition<[^>]*>)", r.ir)
    assert conditions == [
        "#ttl.dispatch_condition<0, i64>",
        "#ttl.dispatch_condition<0, i64>",
        "#ttl.dispatch_condition<1, i32>",
    ]


def test_distinct_declarations_stay_independent(extern_compile):
    """ "Distinct declarations remain independent even when calls have equal C++ names,
    headers, template arguments, or source text.\""""
    r = _compile(extern_compile)
    consumer = r.ir[r.ir.index('logical_kernel = "conditional_operation.consumer"') :]
    first, second = re.findall(r"dispatch_condition<(\d+)", consumer)[:2]
    assert first != second


def test_condition_supplies_the_result_type(extern_compile):
    """ "`condition_result=` accepts a `ttl.DispatchCondition` created with
    `ttl.ScalarType.I32` or `ttl.ScalarType.I64`." and "`condition_result` supplies the
    result type\""""
    r = _compile(extern_compile)
    filecheck(
        r.sources["producer.cpp"], "CHECK: const int64_t producer_active = evaluate_for_producer();"
    )
    filecheck(
        r.sources["consumer.cpp"], "CHECK: const int32_t unrelated = evaluate_for_consumer();"
    )


def test_condition_and_result_type_are_exclusive(extern_error):
    """ "`condition_result` supplies the result type and cannot be combined with
    `result_type`.\""""
    err = extern_error(
        """
        c = ttl.call_extern_func(HEADER, "f", condition_result=ACTIVE,
                                 result_type=ttl.ScalarType.I64,  # ERROR
                                 kernel=ttl.KernelKind.COMPUTE)
        """,
        top="ACTIVE = ttl.DispatchCondition(ttl.ScalarType.I64)",
    )
    assert "cannot be combined with result_type" in err.message
    assert "remove result_type=" in err.hint


def test_condition_result_must_be_a_dispatch_condition(extern_error):
    """ "`condition_result=` accepts a `ttl.DispatchCondition`\""""
    err = extern_error(
        """
        c = ttl.call_extern_func(HEADER, "f", condition_result=ttl.ScalarType.I64,  # ERROR
                                 kernel=ttl.KernelKind.COMPUTE)
        """
    )
    assert "condition_result must be a ttl.DispatchCondition" in err.message
    assert "ttl.DispatchCondition(ttl.ScalarType.I64)" in err.hint


def test_dispatch_condition_needs_a_scalar_type(extern_error):
    """ "`condition_result=` accepts a `ttl.DispatchCondition` created with
    `ttl.ScalarType.I32` or `ttl.ScalarType.I64`." (other types are rejected at creation)"""
    err = extern_error(
        """
        import ttl

        BAD = ttl.DispatchCondition("i64")  # ERROR
        """,
        whole=True,
    )
    assert "ttl.DispatchCondition takes ttl.ScalarType.I32 or ttl.ScalarType.I64" in err.message


@pytest.mark.parametrize(
    ("extra", "what"),
    [
        ("dfb_dependencies=[src]", "cannot declare dfb_dependencies"),
        (
            "func_args=[src], dfb_effects=[ttl.DFBEffect.wait(src, tiles=1)]",
            "cannot declare dfb_effects",
        ),
        ("unknown_dfb_access=True", "cannot set unknown_dfb_access=True"),
        ("func_args=[src]", "cannot depend on DFB 'src'"),
        ("template_args=[ttl.dfb_descriptor(src)]", "cannot depend on DFB 'src'"),
        ("template_args=[ttl.get_dfb_id(src)], func_args=[src]", "cannot depend on DFB 'src'"),
    ],
    ids=["dependency", "effect", "unknown-access", "dfb-argument", "descriptor", "index"],
)
def test_condition_call_cannot_touch_dfbs(extern_error, extra, what):
    """ "A condition-result call cannot depend on DFB storage, declare DFB effects, or set
    `unknown_dfb_access=True`. It cannot carry a DFB argument, index, or descriptor.\""""
    err = extern_error(
        f"""
        c = ttl.call_extern_func(HEADER, "f", condition_result=ACTIVE, {extra},  # ERROR
                                 kernel=ttl.KernelKind.COMPUTE)
        """,
        top="ACTIVE = ttl.DispatchCondition(ttl.ScalarType.I64)",
    )
    assert what in err.message
    assert "pure runtime condition" in err.hint


def test_condition_index_without_dependency_is_rejected(extern_error):
    """ "It cannot carry a DFB argument, index, or descriptor." (an index alone)"""
    err = extern_error(
        """
        c = ttl.call_extern_func(HEADER, "f", condition_result=ACTIVE,
                                 template_args=[ttl.get_dfb_id(src)],  # ERROR
                                 kernel=ttl.KernelKind.COMPUTE)
        """,
        top="ACTIVE = ttl.DispatchCondition(ttl.ScalarType.I64)",
    )
    assert "ttl.get_dfb_id(src)" in err.message
