"""Spec section: Function arguments."""

from __future__ import annotations

import pytest
from compiler_testlib import filecheck


def test_scalar_value_is_a_scalar_parameter(extern_compile):
    """ "Scalar value -> Scalar parameter; Uses the kernel runtime-argument convention."
    (scalars computed in the kernel are passed directly)"""
    r = extern_compile(
        """
        n = ttl.node(dims=1)
        for i in range(2):
            ttl.call_extern_func(HEADER, "s", func_args=[i, n + 1, 9],
                                 kernel=ttl.KernelKind.COMPUTE)
        """
    )
    filecheck(r.sources["compute.cpp"], "CHECK: s(i, [[V:[a-z_0-9]+]], 9);")


def test_dfb_is_an_index_parameter_and_a_dependency(extern_compile):
    """ "DFB -> Physical DFB index parameter; Declares a direct dependency on that DFB.\""""
    r = extern_compile(
        """
        ttl.call_extern_func(HEADER, "f", func_args=[src],
                             dfb_effects=[ttl.DFBEffect.wait(src, tiles=1)],
                             kernel=ttl.KernelKind.DATA_MOVEMENT)
        """
    )
    filecheck(
        r.ir,
        'CHECK: ttl.call_extern {{.*}}"f"(%src) descriptors() deps() '
        "{{.*}}#ttl.dfb_effect<wait, 0, 1>",
    )
    filecheck(r.sources["data_movement.cpp"], "CHECK: f(dfb_src);")


def test_base_tensor_is_a_tensor_accessor_in_data_movement(extern_compile):
    """ "Base tensor -> `TensorAccessor` parameter; Supported in data-movement kernels for tiled
    BF16 and FP32 tensors.\""""
    r = extern_compile(
        """
        ttl.call_extern_func(HEADER, "read", func_args=[inp], kernel=ttl.KernelKind.DATA_MOVEMENT)
        """,
        specs={"inp": "f32[32,64]", "out": "f32[32,64]"},
    )
    filecheck(
        r.sources["data_movement.cpp"],
        """
        CHECK: const auto tensor_inp = TensorAccessor(tensor_inp_args,
        CHECK-SAME: get_arg_val<uint32_t>(0), 4096);
        CHECK: read(tensor_inp);
        """,
    )


def test_base_tensor_in_compute_is_rejected(extern_error):
    """ "Base tensor ... Supported in data-movement kernels" (not in compute)"""
    err = extern_error(
        """
        ttl.call_extern_func(HEADER, "read", func_args=[inp],  # ERROR
                             kernel=ttl.KernelKind.COMPUTE)
        """
    )
    assert "exists only in data-movement kernels" in err.message
    assert "ttl.raw_addr(inp)" in err.hint


@pytest.mark.parametrize("kind", ["COMPUTE", "DATA_MOVEMENT"])
def test_raw_addr_is_a_uint32_address(extern_compile, kind):
    """ "`ttl.raw_addr(tensor)` -> `uint32_t` buffer address; Supported in compute and
    data-movement kernels.\""""
    r = extern_compile(
        f"""
        ttl.call_extern_func(HEADER, "raw", func_args=[ttl.raw_addr(out)],
                             kernel=ttl.KernelKind.{kind})
        """
    )
    filecheck(
        next(iter(r.sources.values())),
        """
        CHECK: const uint32_t [[A:addr[_0-9]*]] = get_arg_val<uint32_t>(1);
        CHECK: raw([[A]]);
        """,
    )


@pytest.mark.parametrize(
    ("arg", "what"),
    [
        ("inp[0, 0]", "a tensor slice is not a valid external function argument"),
        ("ttl.raw_addr(inp[0, 0])", "ttl.raw_addr() takes a base tensor"),
        ("1.5", "float value is not a valid external function argument"),
        ("ttl.get_dfb_id(src)", "is a template argument, not a function argument"),
    ],
    ids=["slice", "raw-addr-of-slice", "float", "dfb-id"],
)
def test_slices_views_and_computed_values_are_rejected(extern_error, arg, what):
    """ "Tensor slices, views, and computed tensor values are not valid external arguments.\""""
    err = extern_error(
        f"""
        ttl.call_extern_func(HEADER, "f", func_args=[{arg}],  # ERROR
                             kernel=ttl.KernelKind.DATA_MOVEMENT)
        """
    )
    assert what in err.message
    assert err.hint


def test_computed_block_value_is_rejected(extern_error):
    """ "Tensor slices, views, and computed tensor values are not valid external arguments."
    (a block expression in compute)"""
    err = extern_error(
        """
        @ttl.compute()
        def compute():
            with src.wait() as a:
                ttl.call_extern_func(HEADER, "f", func_args=[a + a])  # ERROR
        """
    )
    assert "is not a valid external function argument" in err.message


@pytest.mark.parametrize(
    "declare",
    [
        "func_args=[src]",
        "dfb_dependencies=[src]",
        "template_args=[ttl.get_dfb_id(src), ttl.dfb_descriptor(src)]",
    ],
    ids=["func-arg", "dependency", "descriptor"],
)
def test_get_dfb_id_with_a_dependency(extern_compile, declare):
    """ "When an external function consumes `ttl.get_dfb_id(dfb)`, the same DFB must be a
    dependency through `func_args`, `ttl.dfb_descriptor(dfb)`, or `dfb_dependencies`.\""""
    template = (
        "" if declare.startswith("template_args") else "template_args=[ttl.get_dfb_id(src)], "
    )
    r = extern_compile(
        f"""
        ttl.call_extern_func(HEADER, "f", {template}{declare}, kernel=ttl.KernelKind.DATA_MOVEMENT)
        """
    )
    assert "#ttl.dfb_id<@src>" in r.ir


def test_get_dfb_id_without_a_dependency_is_rejected(extern_error):
    """ "An index value does not declare storage access by itself.\""""
    err = extern_error(
        """
        ttl.call_extern_func(HEADER, "f", template_args=[ttl.get_dfb_id(src)],  # ERROR
                             kernel=ttl.KernelKind.DATA_MOVEMENT)
        """
    )
    assert "does not declare a dependency on 'src'" in err.message
    assert "func_args" in err.hint and "ttl.dfb_descriptor(src)" in err.hint
    assert "dfb_dependencies=[src]" in err.hint
