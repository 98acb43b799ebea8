"""Spec section: Template arguments."""

from __future__ import annotations

import pytest
from compiler_testlib import filecheck


def test_int_bool_float_constants(extern_compile):
    """ "`int` -> Signed integer constant; `bool` -> Boolean constant; `float` -> Unsigned
    binary32 bit-pattern constant\""""
    r = extern_compile(
        """
        ttl.call_extern_func(HEADER, "t", template_args=[7, -3, True, False, 1.0, -2.5],
                             kernel=ttl.KernelKind.COMPUTE)
        """
    )
    filecheck(
        r.ir,
        "CHECK: template_args = [7 : i64, -3 : i64, true, false, #ttl.float_bits<1065353216>, "
        "#ttl.float_bits<3223322624>]",
    )
    filecheck(r.sources["compute.cpp"], "CHECK: t<7, -3, true, false, 1065353216u, 3223322624u>();")


def test_descriptor_of_one_bf16_tile_in_two_blocks(extern_compile):
    """ "`ttl.dfb_descriptor(dfb)` -> `ttlang::DFBDescriptor` type" (issue: a bf16 block of one
    tile in a 2-block DFB reads `ttlang::DFBDescriptor<i, 1, 2, 2048>`)"""
    r = extern_compile(
        """
        ttl.call_extern_func(HEADER, "d", template_args=[ttl.dfb_descriptor(dst)],
                             kernel=ttl.KernelKind.DATA_MOVEMENT)
        """
    )
    filecheck(r.ir, "CHECK: descriptors(%dst) {{.*}}template_args = [#ttl.dfb_descriptor<@dst>]")
    filecheck(r.sources["data_movement.cpp"], "CHECK: d<ttlang::DFBDescriptor<0, 1, 2, 2048>>();")


def test_descriptor_of_an_fp32_multi_tile_block(extern_compile):
    """ "`ttl.dfb_descriptor` supplies typed allocation metadata." (pages per block, block count,
    page size follow the DFB; the index is 0: the harness's own DFBs are unused, so they
    take no index)"""
    r = extern_compile(
        """
        big = ttl.make_dataflow_buffer_like(inp, shape=(2, 2), block_count=3)
        ttl.call_extern_func(HEADER, "d", template_args=[ttl.dfb_descriptor(big)],
                             kernel=ttl.KernelKind.DATA_MOVEMENT)
        """,
        specs={"inp": "f32[64,64]", "out": "f32[64,64]"},
    )
    filecheck(r.sources["data_movement.cpp"], "CHECK: d<ttlang::DFBDescriptor<0, 4, 3, 4096>>();")


def test_get_dfb_id_is_the_physical_index(extern_compile):
    """ "`ttl.get_dfb_id(dfb)` -> Physical DFB index constant" and "`ttl.get_dfb_id` supplies
    only an integer index.\""""
    r = extern_compile(
        """
        ttl.call_extern_func(HEADER, "i", template_args=[ttl.get_dfb_id(dst)],
                             dfb_dependencies=[dst], kernel=ttl.KernelKind.DATA_MOVEMENT)
        """
    )
    filecheck(r.ir, "CHECK: template_args = [#ttl.dfb_id<@dst>]")
    physical = next(f["physical_index"] for f in r.manifest["dfbs"] if f["name"] == "dst")
    filecheck(r.sources["data_movement.cpp"], f"CHECK: i<{physical}>();")


def test_bare_dfb_is_rejected_naming_both_wrappers(extern_error):
    """ "A bare DFB is invalid in `template_args`.\""""
    err = extern_error(
        """
        ttl.call_extern_func(HEADER, "t", template_args=[4, src],  # ERROR
                             kernel=ttl.KernelKind.COMPUTE)
        """
    )
    assert "a bare DFB ('src') is not a valid template argument" in err.message
    assert "ttl.dfb_descriptor(src)" in err.hint and "ttl.get_dfb_id(src)" in err.hint


@pytest.mark.parametrize(
    ("arg", "what"), [('"text"', "str value"), ("ttl.node(dims=1)", "a runtime value")]
)
def test_non_static_template_arguments_are_rejected(extern_error, arg, what):
    """ "`template_args` accepts compile-time values and explicit DFB wrappers.\""""
    err = extern_error(
        f"""
        ttl.call_extern_func(HEADER, "t", template_args=[{arg}],  # ERROR
                             kernel=ttl.KernelKind.COMPUTE)
        """
    )
    assert f"{what} is not a valid template argument" in err.message
    assert "compile-time int, bool and float" in err.hint
