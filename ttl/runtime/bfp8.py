"""Tenstorrent's BFP8_b block-float tile format: pack and unpack, vectorized.

A 32x32 tile (four 16x16 faces, each face row-major: ``tiles.py``) is stored
in 1088 bytes: 64 shared exponents, then 1024 sign-magnitude mantissa bytes.
Each group of 16 elements (one face row; face-layout elements 16g..16g+15)
shares exponent byte g. Element byte i is ``sign << 7 | m`` with a 7-bit
magnitude ``m`` whose top bit is the explicit leading one of the largest
element of the row, so the value is ``(-1)^sign * m * 2^(exp - 127 - 6)``.

The layout and arithmetic follow TT-Metal's host conversion
(``tt_metal/impl/data_format/blockfloat_common.cpp``: ``get_max_exp``,
``convert_u32_to_bfp<Bfp8_b>``, ``pack_fp32_vec_as_bfp_tiles``,
``convert_bfp_to_u32``), re-implemented over whole arrays:

* "_b" is the exponent-b variant: the shared exponent is the float32
  (bfloat16) biased 8-bit exponent itself, bias 127, not re-biased to 5 bits.
* The shared exponent is the largest float32 exponent field of the 16
  elements (zeros count as exponent 0).
* An element's 24-bit mantissa (hidden one included, also for float32
  denormals, as TT-Metal does) is shifted right by ``shared - own`` exponent
  and then by 17 more bits, rounding to nearest with ties to even on the 17
  dropped bits; a carry past 7 bits saturates at 127 (TT-Metal does not
  renormalise). A result of 0 drops the sign; +0 and -0 pack as 0.
* Exponents fill bytes 0..63 in face order (16 per face), mantissas bytes
  64..1087 in face layout; on Wormhole and Blackhole the 64 exponent bytes
  are already 16-byte aligned, so there is no padding.

Unpacking rebuilds each float32 from the shared exponent and the normalised
magnitude (exactly representable in bfloat16: at most 7 significant bits).
Values whose rebuilt exponent would be zero or negative (magnitudes below
2^-126, where TT-Metal's host code wraps around) unpack to a signed zero.
"""

from __future__ import annotations

import numpy as np

GROUP = 16  # elements sharing one exponent: a face row
TILE_ELEMS = 1024
GROUPS = TILE_ELEMS // GROUP  # exponent bytes per tile
TILE_BYTES = GROUPS + TILE_ELEMS  # 1088
_MANTISSA_BITS = 7
_DROP = 24 - _MANTISSA_BITS  # bits of the 24-bit mantissa below the kept 7
_TIE = 1 << (_DROP - 1)
_MAX = (1 << _MANTISSA_BITS) - 1

# Leading-zero count of a 7-bit magnitude (index 0 unused): how far unpacking
# shifts it left to put its top one in bit 6.
_SHIFT = np.array([0] + [6 - int(m).bit_length() + 1 for m in range(1, 128)], dtype=np.int32)


def pack(values: np.ndarray) -> np.ndarray:
    """Face-layout tiles ``values`` (n, 1024), any float dtype, as (n, 1088) BFP8_b bytes."""
    v = np.asarray(values, dtype=np.float32).reshape(-1, GROUPS, GROUP)
    bits = np.ascontiguousarray(v).view(np.uint32)
    exp = (bits >> 23) & 0xFF
    shared = exp.max(axis=2, keepdims=True)
    mantissa = (bits & 0x7FFFFF) | 0x800000
    # A 24-bit mantissa shifted 24 or more places is 0 (TT-Metal shifts in steps of 31).
    mantissa >>= np.minimum(shared - exp, 31)
    dropped = mantissa & ((1 << _DROP) - 1)
    kept = mantissa >> _DROP
    up = (dropped > _TIE) | ((dropped == _TIE) & ((kept & 1) == 1))
    kept = np.minimum(kept + up, _MAX)
    kept[(bits & 0x7FFFFFFF) == 0] = 0  # +0 and -0
    sign = (bits >> 31) & (kept != 0)
    out = np.empty((v.shape[0], TILE_BYTES), dtype=np.uint8)
    out[:, :GROUPS] = shared[:, :, 0]
    out[:, GROUPS:] = ((sign << 7) | kept).reshape(-1, TILE_ELEMS)
    return out


def _float_bits(shared: np.ndarray, data: np.ndarray) -> np.ndarray:
    """The float32 bit patterns of element bytes ``data`` under exponents ``shared``
    (broadcast together): the normalised magnitude under the shared exponent."""
    shared, data = shared.astype(np.int32), data.astype(np.int32)
    sign, magnitude = data >> 7, data & _MAX
    shift = _SHIFT[magnitude]
    exp = shared - shift
    fraction = (magnitude << (shift + 1)) & _MAX
    bits = (sign << 31) | (exp << 23) | (fraction << 16)
    return np.where((magnitude == 0) | (exp <= 0), sign << 31, bits).astype(np.uint32)


# Every (exponent, element byte) pair's float32 bits: unpacking is one table lookup
# (256 KiB; one tile at a time is what the coprocessor mostly unpacks).
_BITS = _float_bits(np.arange(256)[:, None], np.arange(256)[None, :])


def unpack(raw: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """(n, 1088) BFP8_b bytes as face-layout float32 tiles (n, 1024), into ``out`` if given."""
    r = np.asarray(raw, dtype=np.uint8).reshape(-1, TILE_BYTES)
    data = r[:, GROUPS:].reshape(-1, GROUPS, GROUP)
    bits = _BITS[r[:, :GROUPS, None], data]
    values = bits.view(np.float32).reshape(-1, TILE_ELEMS)
    if out is None:
        return values
    np.copyto(out, values, casting="unsafe")
    return out
