"""TT-Metal compute-API spelling of each unary ``ttl.math`` function.

Each function lowers to the SFPU call a hand-written TT-Metal kernel makes on
the DST tile: ``<init>();`` then ``<tile>(dst[, params])``. Float parameters
are passed as their binary32 bit patterns (``float_bits``), naturals as
integers, in the order of ``ttl.math.UNARY_PARAMS``.
"""

from __future__ import annotations

import struct

from ttl.compiler import dialect as d

F = d.UnaryFnEnum

# fn -> (tile call, init call); the default is (<fn>_tile, <fn>_tile_init).
_SPELLING: dict[F, tuple[str, str]] = {
    F.NEG: ("negative_tile", "negative_tile_init"),
    F.LOGP1: ("log1p_tile", "log1p_tile_init"),
    F.POW: ("power_tile", "power_tile_init"),
    # Accurate (erf) GELU; gelu_tile<true> is TT-Metal's default tanh approximation.
    F.GELU: ("gelu_tile<false>", "gelu_tile_init<false>"),
    # TT-Metal's rounding ops share one init.
    F.FLOOR: ("floor_tile", "rounding_op_tile_init"),
    F.CEIL: ("ceil_tile", "rounding_op_tile_init"),
    F.TRUNC: ("trunc_tile", "rounding_op_tile_init"),
    F.FRAC: ("frac_tile", "rounding_op_tile_init"),
    F.ROUND: ("round_tile", "rounding_op_tile_init"),
}


def spelling(fn: F) -> tuple[str, str]:
    """(tile call, init call) of ``fn``."""
    return _SPELLING.get(fn, (f"{fn.value}_tile", f"{fn.value}_tile_init"))


def float_bits(value: float) -> str:
    """A float's binary32 bit pattern as a C++ literal."""
    return f"0x{struct.unpack('<I', struct.pack('<f', value))[0]:08x}u"


def param_args(op: d.UnaryOp) -> list[str]:
    """The C++ arguments after ``dst`` (float bits or integers)."""
    return [str(v) if isinstance(v, int) else float_bits(v) for v in op.param_values]


def bf16_bits(value: float) -> int:
    """``value`` rounded to bfloat16 (to nearest, ties to even), as its 16 bits."""
    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF


def _emit_exp_options(op: d.UnaryOp, dst: str) -> tuple[str, str]:
    """``exp_tile`` with spec v0.20's options, as TT-Metal's exp.h takes them: template
    flags, and the scale as bfloat16 bits (``scale_en``) after ``VectorMode::RC``."""
    approx, scale, skip_clamp, iterations = op.param_values
    flag = "true" if approx else "false"
    clamping = "InputClamping::None" if skip_clamp else "InputClamping::ClampToNegative"
    scaled = "true" if scale != 1.0 else "false"
    init = f"exp_tile_init<{flag}, {float_bits(float(scale))}, {clamping}>();"
    scale16 = f"0x{bf16_bits(float(scale)):04x}"
    tile = (
        f"exp_tile<{flag}, {scaled}, {clamping}, {iterations}>({dst}, VectorMode::RC, {scale16});"
    )
    return init, tile


def emit_unary(op: d.UnaryOp, dst: str) -> tuple[str, str]:
    """The two C++ lines applying ``op`` to DST[dst]: its init call and its tile call."""
    if op.fn.data is F.EXP and op.params is not None:
        return _emit_exp_options(op, dst)
    tile, init = spelling(op.fn.data)
    args = ", ".join([dst, *param_args(op)])
    return f"{init}();", f"{tile}({args});"
