"""The TT-Metal kernel API the emitter writes against: one table, per pinned release.

Generated kernels call TT-Metal's kernel API by its 0.81.1 names
(``ttl/device_build/tt_metal.json`` pins the release). This module is the one
place that knows which header declares each function a generated kernel may
call, so a kernel includes exactly the headers a hand-written TT-Metal kernel
would; moving to the next release is a change of this table (and of the
emulator's headers, which implement the same names under the same paths).
"""

from __future__ import annotations

import re

#: The data-movement kernel API: one header.
DATAFLOW_HEADER = "api/dataflow/dataflow_api.h"

#: The device profiler's zones (``DeviceZoneScopedN``), for either kernel kind.
PROFILER_HEADER = "api/debug/kernel_profiler.hpp"
#: ``DPRINT(format, ...)``, ``TSLICE`` and ``SliceRange``.
DPRINT_HEADER = "api/debug/dprint.h"
ASSERT_HEADER = "api/debug/assert.h"
#: ``print_cb_details``.
DPRINT_PAGES_HEADER = "api/debug/dprint_pages.h"

#: Compute API header -> the functions of it a generated kernel may call.
COMPUTE_HEADERS: dict[str, tuple[str, ...]] = {
    "api/compute/compute_kernel_hw_startup.h": ("compute_kernel_hw_startup",),
    "api/compute/cb_api.h": ("cb_wait_front", "cb_pop_front", "cb_reserve_back", "cb_push_back"),
    "api/compute/reg_api.h": (
        "tile_regs_acquire",
        "tile_regs_commit",
        "tile_regs_wait",
        "tile_regs_release",
    ),
    "api/compute/pack.h": ("pack_tile", "pack_reconfig_l1_acc"),
    "api/compute/reconfig_data_format.h": (
        "reconfig_data_format",
        "reconfig_data_format_srca",
        "pack_reconfig_data_format",
    ),
    "api/compute/tile_move_copy.h": ("copy_init", "copy_tile"),
    "api/compute/eltwise_binary.h": (
        "add_init",
        "sub_init",
        "mul_init",
        "add_tiles",
        "sub_tiles",
        "mul_tiles",
    ),
    "api/compute/eltwise_binary_sfpu.h": (
        "add_binary_tile_init",
        "sub_binary_tile_init",
        "mul_binary_tile_init",
        "div_binary_tile_init",
        "add_binary_tile",
        "sub_binary_tile",
        "mul_binary_tile",
        "div_binary_tile",
    ),
    "api/compute/binary_max_min.h": (
        "binary_max_tile_init",
        "binary_min_tile_init",
        "binary_max_tile",
        "binary_min_tile",
    ),
    "api/compute/binary_remainder.h": ("remainder_binary_tile_init", "remainder_binary_tile"),
    "api/compute/matmul.h": ("matmul_init", "matmul_tiles"),
    "api/compute/reduce.h": ("reduce_init", "reduce_tile", "reduce_uninit"),
    "api/compute/transpose.h": ("transpose_init", "transpose_tile"),
    "api/compute/bcast.h": ("unary_bcast_init", "unary_bcast"),
    "api/compute/mask.h": ("mask_tile_init", "mask_tile", "mask_posinf_tile"),
    "api/compute/eltwise_unary/where.h": ("where_tile_init", "where_tile"),
    "api/compute/eltwise_unary/fill.h": ("fill_tile_init", "fill_tile_bitcast"),
    "api/compute/eltwise_unary/binop_with_scalar.h": (
        "binop_with_scalar_tile_init",
        "add_unary_tile",
        "sub_unary_tile",
        "mul_unary_tile",
        "div_unary_tile",
        "rsub_unary_tile",
    ),
    "api/compute/eltwise_unary/comp.h": tuple(
        f"{c}_tile{s}" for c in ("gtz", "ltz", "gez", "lez", "eqz", "nez") for s in ("", "_init")
    ),
    "api/compute/eltwise_unary/rounding.h": (
        "rounding_op_tile_init",
        "floor_tile",
        "ceil_tile",
        "trunc_tile",
        "frac_tile",
        "round_tile",
    ),
    "api/compute/eltwise_unary/exp.h": ("exp_tile_init", "exp_tile"),
    "api/compute/eltwise_unary/sqrt.h": ("sqrt_tile_init", "sqrt_tile"),
    "api/compute/eltwise_unary/rsqrt.h": ("rsqrt_tile_init", "rsqrt_tile"),
    "api/compute/eltwise_unary/recip.h": ("recip_tile_init", "recip_tile"),
    "api/compute/eltwise_unary/relu.h": (
        "relu_tile_init",
        "relu_tile",
        "relu_max_tile_init",
        "relu_max_tile",
        "relu_min_tile_init",
        "relu_min_tile",
        "leaky_relu_tile_init",
        "leaky_relu_tile",
    ),
    "api/compute/eltwise_unary/negative.h": ("negative_tile_init", "negative_tile"),
    "api/compute/eltwise_unary/log1p.h": ("log1p_tile_init", "log1p_tile"),
    "api/compute/eltwise_unary/trigonometry.h": tuple(
        f"{f}_tile{s}"
        for f in ("tan", "atan", "atanh", "sin", "asin", "asinh", "cos", "acos", "acosh")
        for s in ("", "_init")
    ),
    "api/compute/eltwise_unary/activations.h": (
        "softsign_tile_init",
        "softsign_tile",
        "hardsigmoid_tile_init",
        "hardsigmoid_tile",
        "celu_tile_init",
        "celu_tile",
    ),
    "api/compute/eltwise_unary/gelu.h": ("gelu_tile_init", "gelu_tile"),
    "api/compute/eltwise_unary/elu.h": ("elu_tile_init", "elu_tile"),
    "api/compute/eltwise_unary/prelu.h": ("prelu_tile_init", "prelu_tile"),
    "api/compute/eltwise_unary/softplus.h": ("softplus_tile_init", "softplus_tile"),
    "api/compute/eltwise_unary/hardtanh.h": ("hardtanh_tile_init", "hardtanh_tile"),
    "api/compute/eltwise_unary/selu.h": ("selu_tile_init", "selu_tile"),
    "api/compute/eltwise_unary/clamp.h": ("clamp_tile_init", "clamp_tile"),
    "api/compute/eltwise_unary/threshold.h": ("threshold_tile_init", "threshold_tile"),
    "api/compute/compute_kernel_api.h": tuple(
        f"{f}_tile{s}"
        for f in (
            "log",
            "sigmoid",
            "tanh",
            "abs",
            "exp2",
            "expm1",
            "square",
            "silu",
            "sign",
            "signbit",
            "power",
        )
        for s in ("", "_init")
    ),
}

_HEADER_OF = {fn: header for header, fns in COMPUTE_HEADERS.items() for fn in fns}
_CALL = re.compile(r"\b([a-z_][a-z0-9_]*)\s*[(<]")


def header_of(function: str) -> str | None:
    """The compute API header declaring ``function``, or None if it is not in the table."""
    return _HEADER_OF.get(function)


def compute_headers(code: str) -> list[str]:
    """The compute API headers the calls in ``code`` need, in the table's order."""
    called = {m.group(1) for m in _CALL.finditer(code)}
    needed = {_HEADER_OF[fn] for fn in called if fn in _HEADER_OF}
    return [h for h in COMPUTE_HEADERS if h in needed]
