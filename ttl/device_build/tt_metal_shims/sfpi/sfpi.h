// Our declarations of SFPI's interface (sfpi.h), for the hardware check only.
//
// SFPI, the SFPU's vector library, ships with the SFPI compiler, not in the ttnn
// wheel, and TT-Metal's SFPU code (below the compute API's SFPU operations) is
// written against it. These declarations are permissive on purpose: each vector
// type converts from anything, every operator and library function takes
// anything, and the hardware constants are distinct placeholders (their names are
// those the pinned LLK uses; the values are not SFPI's). They let the LLK's SFPU
// templates parse and instantiate, so the check finds what a kernel gets wrong in
// the compute API and the LLK above SFPI; they cannot find a misuse of SFPI
// itself, and they generate nothing (the check compiles with -fsyntax-only).
#pragma once

#include <cstddef>
#include <cstdint>

#ifndef sfpi_inline
#define sfpi_inline inline __attribute__((always_inline))
#endif

namespace sfpi {

constexpr unsigned int CREG_IDX_0P837300003 = 100;
constexpr unsigned int CREG_IDX_LUT_SLOPES = 101;
constexpr unsigned int CREG_IDX_TILEID = 102;
constexpr unsigned int SFPABS_MOD1_INT = 103;
constexpr unsigned int SFPAND_MOD1_USE_VB = 104;
constexpr unsigned int SFPARECIP_MOD1_RECIP = 105;
constexpr unsigned int SFPCAST_MOD1_INT32_TO_FP32_RNE = 106;
constexpr unsigned int SFPCAST_MOD1_SM32_TO_FP32_RNE = 107;
constexpr unsigned int SFPENCC_IMM12_BOTH = 108;
constexpr unsigned int SFPENCC_MOD1_EI_RI = 109;
constexpr unsigned int SFPENCC_MOD1_EU_R1 = 110;
constexpr unsigned int SFPEXEXP_MOD1_SET_CC_COMP_EXP = 111;
constexpr unsigned int SFPEXEXP_MOD1_SET_CC_SGN_EXP = 112;
constexpr unsigned int SFPEXMAN_MOD1_PAD9 = 113;
constexpr unsigned int SFPGT_MOD1_SET_ALL_ONES = 114;
constexpr unsigned int SFPGT_MOD1_SET_CC = 115;
constexpr unsigned int SFPGT_MOD1_SET_VD = 116;
constexpr unsigned int SFPIADD_MOD1_ARG_2SCOMP_LREG_DST = 117;
constexpr unsigned int SFPIADD_MOD1_ARG_IMM = 118;
constexpr unsigned int SFPIADD_MOD1_ARG_LREG_DST = 119;
constexpr unsigned int SFPIADD_MOD1_CC_GTE0 = 120;
constexpr unsigned int SFPIADD_MOD1_CC_LT0 = 121;
constexpr unsigned int SFPIADD_MOD1_CC_NONE = 122;
constexpr unsigned int SFPIADD_MOD1_IMM_NO_CC = 123;
constexpr unsigned int SFPIADD_MOD1_REG_NO_CC = 124;
constexpr unsigned int SFPLE_MOD1_SET_CC = 125;
constexpr unsigned int SFPLE_MOD1_SET_VD = 126;
constexpr unsigned int SFPLOADI_MOD0_FLOATA = 127;
constexpr unsigned int SFPLOADI_MOD0_FLOATB = 128;
constexpr unsigned int SFPLOADI_MOD0_LOWER = 129;
constexpr unsigned int SFPLOADI_MOD0_SHORT = 130;
constexpr unsigned int SFPLOADI_MOD0_UPPER = 131;
constexpr unsigned int SFPLOADI_MOD0_USHORT = 132;
constexpr unsigned int SFPLOAD_MOD0_FMT_FP16B = 133;
constexpr unsigned int SFPLOAD_MOD0_FMT_SRCB = 134;
constexpr unsigned int SFPLZ_MOD1_CC_NE0 = 135;
constexpr unsigned int SFPLZ_MOD1_CC_NONE = 136;
constexpr unsigned int SFPMAD_MOD1_INDIRECT_VA = 137;
constexpr unsigned int SFPMAD_MOD1_INDIRECT_VD = 138;
constexpr unsigned int SFPMAD_MOD1_NEGATE_VA = 139;
constexpr unsigned int SFPMAD_MOD1_NEGATE_VC = 140;
constexpr unsigned int SFPMAD_MOD1_OFFSET_NONE = 141;
constexpr unsigned int SFPMOV_MOD1_CONFIG = 142;
constexpr unsigned int SFPMOV_MOD1_FROM_RS = 143;
constexpr unsigned int SFPMOV_MOD1_NEGATE = 144;
constexpr unsigned int SFPMUL24_MOD1_LOWER = 145;
constexpr unsigned int SFPMUL24_MOD1_UPPER = 146;
constexpr unsigned int SFPSETCC_MOD1_LREG_EQ0 = 147;
constexpr unsigned int SFPSETCC_MOD1_LREG_GTE0 = 148;
constexpr unsigned int SFPSETCC_MOD1_LREG_LT0 = 149;
constexpr unsigned int SFPSETCC_MOD1_LREG_NE0 = 150;
constexpr unsigned int SFPSETEXP_MOD1_ARG_EXPONENT = 151;
constexpr unsigned int SFPSETSGN_MOD1_ARG_IMM = 152;
constexpr unsigned int SFPSETSGN_MOD1_SIGN_FROM_IMM = 153;
constexpr unsigned int SFPSHFT2_MOD1_ROTATE_COLS = 154;
constexpr unsigned int SFPSHFT2_MOD1_SHFT_IMM = 155;
constexpr unsigned int SFPSHFT2_MOD1_SHFT_LREG = 156;
constexpr unsigned int SFPSHFT2_MOD1_SHIFT_COLS_ZERO_FILL = 157;
constexpr unsigned int SFPSHFT2_MOD1_SUBVEC_SHFLROR1 = 158;
constexpr unsigned int SFPSHFT2_MOD1_SUBVEC_SHFLSHR1 = 159;
constexpr unsigned int SFPSHFT_MOD1_ARG_IMM = 160;
constexpr unsigned int SFPSHFT_MOD1_ARG_IMM_USE_VC = 161;
constexpr unsigned int SFPSHFT_MOD1_IMM_SRC_C = 162;
constexpr unsigned int SFPSHFT_MOD1_SHIFT_IMM = 163;
constexpr unsigned int SFPSTOCHRND_MOD1_FP32_TO_FP16B = 164;
constexpr unsigned int SFPSTOCHRND_MOD1_FP32_TO_INT16 = 165;
constexpr unsigned int SFPSTOCHRND_MOD1_FP32_TO_INT8 = 166;
constexpr unsigned int SFPSTOCHRND_MOD1_FP32_TO_UINT16 = 167;
constexpr unsigned int SFPSTOCHRND_MOD1_FP32_TO_UINT8 = 168;
constexpr unsigned int SFPSTOCHRND_RND_EVEN = 169;
constexpr unsigned int SFPSTORE_MOD0_FMT_FP16B = 170;
constexpr unsigned int SFPSTORE_MOD0_FMT_LO16 = 171;
constexpr unsigned int SFPSTORE_MOD0_FMT_SRCB = 172;
constexpr unsigned int SFPSWAP_MOD1_SWAP = 173;
constexpr unsigned int SFPSWAP_MOD1_VEC_MIN_MAX = 174;
constexpr unsigned int SFP_DESTREG_STRIDE = 2;
constexpr unsigned int SFP_ROWS = 4;
constexpr unsigned int SFP_SRCSREG_STRIDE = 2;
constexpr unsigned int SFP_STOCH_RND = 178;
constexpr unsigned int SFP_SWAP = 179;

// One distinct type per SFPI vector type.
template <int K>
struct __v {
  constexpr __v() {}
  template <typename T, typename... U>
  constexpr __v(const T&, const U&...) {}
  template <typename T>
  __v& operator=(const T&) { return *this; }
  template <typename T>
  const __v& operator=(const T&) const { return *this; }
  __v operator-() const { return *this; }
  __v operator+() const { return *this; }
  __v operator~() const { return *this; }
  __v operator!() const { return *this; }
  __v& operator++() { return *this; }
  __v operator++(int) { return *this; }
  __v& operator--() { return *this; }
  __v operator--(int) { return *this; }
  template <typename T> __v operator[](const T&) const { return *this; }
  // The underlying builtin vector (for __builtin_rvtt_* calls).
  __v get() const { return *this; }
  // Whether the constant register is in use (the programmable constants).
  bool in_use() const { return false; }
  // A view of the register in another data layout (dst_reg[0].mode<DataLayout::I32>()).
  template <auto Layout> __v& mode() { return *this; }
  template <auto Layout> const __v& mode() const { return *this; }
  template <typename T> __v& mode(const T&) { return *this; }
  template <typename T> const __v& mode(const T&) const { return *this; }

  template <typename T> __v& operator+=(const T&) { return *this; }
  template <typename T> __v& operator-=(const T&) { return *this; }
  template <typename T> __v& operator*=(const T&) { return *this; }
  template <typename T> __v& operator/=(const T&) { return *this; }
  template <typename T> __v& operator&=(const T&) { return *this; }
  template <typename T> __v& operator|=(const T&) { return *this; }
  template <typename T> __v& operator^=(const T&) { return *this; }
  template <typename T> __v& operator<<=(const T&) { return *this; }
  template <typename T> __v& operator>>=(const T&) { return *this; }
  template <typename T> __v& operator%=(const T&) { return *this; }
};

template <int K, typename T> __v<K> operator+(const __v<K>& a, const T&) { return a; }
template <typename T, int K> __v<K> operator+(const T&, const __v<K>& b) { return b; }
template <int K, int L> __v<K> operator+(const __v<K>& a, const __v<L>&) { return a; }
template <int K, typename T> __v<K> operator-(const __v<K>& a, const T&) { return a; }
template <typename T, int K> __v<K> operator-(const T&, const __v<K>& b) { return b; }
template <int K, int L> __v<K> operator-(const __v<K>& a, const __v<L>&) { return a; }
template <int K, typename T> __v<K> operator*(const __v<K>& a, const T&) { return a; }
template <typename T, int K> __v<K> operator*(const T&, const __v<K>& b) { return b; }
template <int K, int L> __v<K> operator*(const __v<K>& a, const __v<L>&) { return a; }
template <int K, typename T> __v<K> operator/(const __v<K>& a, const T&) { return a; }
template <typename T, int K> __v<K> operator/(const T&, const __v<K>& b) { return b; }
template <int K, int L> __v<K> operator/(const __v<K>& a, const __v<L>&) { return a; }
template <int K, typename T> __v<K> operator&(const __v<K>& a, const T&) { return a; }
template <typename T, int K> __v<K> operator&(const T&, const __v<K>& b) { return b; }
template <int K, int L> __v<K> operator&(const __v<K>& a, const __v<L>&) { return a; }
template <int K, typename T> __v<K> operator|(const __v<K>& a, const T&) { return a; }
template <typename T, int K> __v<K> operator|(const T&, const __v<K>& b) { return b; }
template <int K, int L> __v<K> operator|(const __v<K>& a, const __v<L>&) { return a; }
template <int K, typename T> __v<K> operator^(const __v<K>& a, const T&) { return a; }
template <typename T, int K> __v<K> operator^(const T&, const __v<K>& b) { return b; }
template <int K, int L> __v<K> operator^(const __v<K>& a, const __v<L>&) { return a; }
template <int K, typename T> __v<K> operator<<(const __v<K>& a, const T&) { return a; }
template <typename T, int K> __v<K> operator<<(const T&, const __v<K>& b) { return b; }
template <int K, int L> __v<K> operator<<(const __v<K>& a, const __v<L>&) { return a; }
template <int K, typename T> __v<K> operator>>(const __v<K>& a, const T&) { return a; }
template <typename T, int K> __v<K> operator>>(const T&, const __v<K>& b) { return b; }
template <int K, int L> __v<K> operator>>(const __v<K>& a, const __v<L>&) { return a; }
template <int K, typename T> __v<K> operator%(const __v<K>& a, const T&) { return a; }
template <typename T, int K> __v<K> operator%(const T&, const __v<K>& b) { return b; }
template <int K, int L> __v<K> operator%(const __v<K>& a, const __v<L>&) { return a; }
template <int K, typename T> __v<K> operator&&(const __v<K>& a, const T&) { return a; }
template <typename T, int K> __v<K> operator&&(const T&, const __v<K>& b) { return b; }
template <int K, int L> __v<K> operator&&(const __v<K>& a, const __v<L>&) { return a; }
template <int K, typename T> __v<K> operator||(const __v<K>& a, const T&) { return a; }
template <typename T, int K> __v<K> operator||(const T&, const __v<K>& b) { return b; }
template <int K, int L> __v<K> operator||(const __v<K>& a, const __v<L>&) { return a; }
template <int K, typename T> __v<99> operator<(const __v<K>&, const T&) { return {}; }
template <typename T, int K> __v<99> operator<(const T&, const __v<K>&) { return {}; }
template <int K, int L> __v<99> operator<(const __v<K>&, const __v<L>&) { return {}; }
template <int K, typename T> __v<99> operator>(const __v<K>&, const T&) { return {}; }
template <typename T, int K> __v<99> operator>(const T&, const __v<K>&) { return {}; }
template <int K, int L> __v<99> operator>(const __v<K>&, const __v<L>&) { return {}; }
template <int K, typename T> __v<99> operator<=(const __v<K>&, const T&) { return {}; }
template <typename T, int K> __v<99> operator<=(const T&, const __v<K>&) { return {}; }
template <int K, int L> __v<99> operator<=(const __v<K>&, const __v<L>&) { return {}; }
template <int K, typename T> __v<99> operator>=(const __v<K>&, const T&) { return {}; }
template <typename T, int K> __v<99> operator>=(const T&, const __v<K>&) { return {}; }
template <int K, int L> __v<99> operator>=(const __v<K>&, const __v<L>&) { return {}; }
template <int K, typename T> __v<99> operator==(const __v<K>&, const T&) { return {}; }
template <typename T, int K> __v<99> operator==(const T&, const __v<K>&) { return {}; }
template <int K, int L> __v<99> operator==(const __v<K>&, const __v<L>&) { return {}; }
template <int K, typename T> __v<99> operator!=(const __v<K>&, const T&) { return {}; }
template <typename T, int K> __v<99> operator!=(const T&, const __v<K>&) { return {}; }
template <int K, int L> __v<99> operator!=(const __v<K>&, const __v<L>&) { return {}; }

using vFloat = __v<0>;
using vInt = __v<1>;
using vUInt = __v<2>;
using vSMag = __v<3>;
using vMag = __v<4>;
using vFloat16a = __v<5>;
using vFloat16b = __v<6>;
using vUInt16 = __v<7>;
using vUInt8 = __v<8>;
using vSMag16 = __v<9>;
using vSMag8 = __v<10>;
using vBool = __v<99>;
using vLut = __v<12>;
using vLut4 = __v<13>;
using vLut16 = __v<14>;
using vLut8si = __v<15>;
using vLut16ii = __v<16>;
using vLut16ss = __v<17>;
using sFloat16a = __v<18>;
using sFloat16b = __v<19>;
using sLut16si = __v<20>;
using sLut8si = __v<21>;

constexpr __v<0> vConst0{};
constexpr __v<0> vConst1{};
constexpr __v<0> vConstNeg1{};
constexpr __v<0> vConst0p8373{};
constexpr __v<0> vConstFloatPrgm0{};
constexpr __v<0> vConstFloatPrgm1{};
constexpr __v<0> vConstFloatPrgm2{};
constexpr __v<0> vConstFloatPrgm3{};
constexpr __v<0> vConstIntPrgm0{};
constexpr __v<0> vConstIntPrgm1{};
constexpr __v<0> vConstIntPrgm2{};
constexpr __v<0> vConstTileId{};

enum class LRegs { LReg0, LReg1, LReg2, LReg3, LReg4, LReg5, LReg6, LReg7, LReg8, LReg9, LReg10, LReg11, LReg12, LReg13, LReg14, LReg15, LRegCount };
enum class DataLayout { Default, F16a, F16b, F32, FSrcB, I32, M32, None, ROW_MAJOR, SM16, SM32, SM8, TILE, U16, U32, U8 };
enum class RoundMode { Nearest, NearestAway, NearestEven, NearestStochastic, Stochastic, Zero };
enum class ExponentMode { Biased, Debiased };
enum class MantissaMode { ImplicitOne, NoImplicitOne };
enum class ShiftMode { Arithmetic, Logical };
enum class LutSign { Retain, Update };
enum class FractionalHalf { High, Low };

// The DST register file as SFPU code addresses it, and the local registers.
struct __RegFile {
  template <typename T>
  __v<0>& operator[](const T&) const {
    static __v<0> element;
    return element;
  }
  __RegFile& operator++() { return *this; }
  __RegFile operator++(int) { return *this; }
  template <typename T> __RegFile& operator+=(const T&) { return *this; }
};
inline __RegFile dst_reg;
inline __RegFile l_reg;

// Register-pressure hints: a scope object.
struct lreg_pressure {
  template <typename... A>
  lreg_pressure(const A&...) {}
};

// The library functions, in both template forms SFPI's callers use.

template <typename R = __v<0>, typename... A> sfpi_inline R abs(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> abs(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R addexp(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> addexp(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R approx_exp(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> approx_exp(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R approx_recip(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> approx_recip(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R as(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> as(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R clamp(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> clamp(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R convert(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> convert(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R copyman(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> copyman(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R copysgn(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> copysgn(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R exexp(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> exexp(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R exexp_nodebias(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> exexp_nodebias(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R exman(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> exman(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R exman8(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> exman8(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R exman9(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> exman9(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R float_to_fp16a(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> float_to_fp16a(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R float_to_fp16b(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> float_to_fp16b(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R float_to_int16(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> float_to_int16(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R float_to_int8(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> float_to_int8(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R float_to_uint16(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> float_to_uint16(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R float_to_uint8(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> float_to_uint8(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R int32_to_float(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> int32_to_float(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R is_finite(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> is_finite(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R is_inf(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> is_inf(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R is_nan(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> is_nan(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R is_neg(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> is_neg(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R is_pos(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> is_pos(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R lut(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> lut(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R lut2(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> lut2(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R lut2_sign(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> lut2_sign(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R lz(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> lz(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R lz_nosgn(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> lz_nosgn(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R max(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> max(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R min(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> min(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R min_max(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> min_max(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R nearby(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> nearby(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R reinterpret(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> reinterpret(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R setexp(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> setexp(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R setman(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> setman(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R setsgn(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> setsgn(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R setsgn2(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> setsgn2(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R shft(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> shft(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R signbit(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> signbit(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R subvec_shflror1(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> subvec_shflror1(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R subvec_shflshr1(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> subvec_shflshr1(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R subvec_transp(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> subvec_transp(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R symmetric_clamp(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> symmetric_clamp(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R vec_min_max(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> vec_min_max(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R vec_swap(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> vec_swap(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R int32_to_fp16b(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> int32_to_fp16b(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R float_to_int32(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> float_to_int32(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R float_to_uint32(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> float_to_uint32(const A&...) { return {}; }
template <typename R = __v<0>, typename... A> sfpi_inline R abs_int(const A&...) { return R{}; }
template <auto N, typename... A> sfpi_inline __v<0> abs_int(const A&...) { return {}; }

// Condition codes: the block structure of SFPI's v_if macros.
template <typename T> sfpi_inline void __cc_if(const T&) {}
}  // namespace sfpi

#define v_if(x) { sfpi::__cc_if(x); {
#define v_elseif(x) } sfpi::__cc_if(x); {
#define v_else } {
#define v_endif } }
#define v_block {
#define v_endblock }
#define v_and(x) sfpi::__cc_if(x)

// The SFPI compiler's builtins the LLK calls directly.
template <typename... A> sfpi::__v<0> __builtin_rvtt_sfpmad(const A&...) { return {}; }
template <typename... A> sfpi::__v<0> __builtin_rvtt_sfpgt(const A&...) { return {}; }
template <typename... A> void __builtin_rvtt_ttreplay(const A&...) {}
