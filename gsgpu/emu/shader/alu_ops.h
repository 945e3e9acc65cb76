// Semantics of the ALU operations named in gsgpu/isa/opcodes.def, one functor per name. Both the
// vector (per lane) and the scalar form of an operation call the same apply(), on raw register bits
// (uint32_t for 32-bit operands, uint64_t for 64-bit ones). Every function is total: no input traps
// or is undefined behaviour, because inactive lanes are computed too and their results discarded.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace gsgpu::alu {

inline float f(uint32_t bits) { return std::bit_cast<float>(bits); }
inline uint32_t u(float value) { return std::bit_cast<uint32_t>(value); }
inline uint32_t flag(bool value) { return value ? 1u : 0u; }
inline int32_t i32(uint32_t v) { return static_cast<int32_t>(v); }
inline int64_t i64(uint64_t v) { return static_cast<int64_t>(v); }

#define GSGPU_UNARY(name, T, expr) \
  struct name {                    \
    static auto apply(T a) { return expr; } \
  };
#define GSGPU_BINARY(name, T, U, expr) \
  struct name {                        \
    static auto apply(T a, U b) { return expr; } \
  };
#define GSGPU_TERNARY(name, T, U, V, expr) \
  struct name {                            \
    static auto apply(T a, U b, V c) { return expr; } \
  };

using u32 = uint32_t;
using u64 = uint64_t;

// ---- integer, 32-bit. Division by zero gives all ones (quotient) and the dividend (remainder);
// INT_MIN / -1 gives INT_MIN and INT_MIN % -1 gives 0, so that no input is undefined. ----
GSGPU_BINARY(add_u32, u32, u32, u32(a + b))
GSGPU_BINARY(sub_u32, u32, u32, u32(a - b))
GSGPU_BINARY(mul_lo_u32, u32, u32, u32(a * b))
GSGPU_BINARY(mul_hi_u32, u32, u32, u32((u64(a) * b) >> 32))
GSGPU_BINARY(mul_hi_i32, u32, u32, u32(u64(int64_t(i32(a)) * i32(b)) >> 32))
GSGPU_BINARY(div_u32, u32, u32, u32(b == 0 ? ~0u : a / b))
GSGPU_BINARY(rem_u32, u32, u32, u32(b == 0 ? a : a % b))
GSGPU_BINARY(div_i32, u32, u32,
             u32(b == 0 ? ~0u : (a == 0x80000000u && b == ~0u) ? a : u32(i32(a) / i32(b))))
GSGPU_BINARY(rem_i32, u32, u32,
             u32(b == 0 ? a : (a == 0x80000000u && b == ~0u) ? 0u : u32(i32(a) % i32(b))))
GSGPU_BINARY(min_i32, u32, u32, u32(i32(a) < i32(b) ? a : b))
GSGPU_BINARY(max_i32, u32, u32, u32(i32(a) > i32(b) ? a : b))
GSGPU_BINARY(min_u32, u32, u32, u32(a < b ? a : b))
GSGPU_BINARY(max_u32, u32, u32, u32(a > b ? a : b))
GSGPU_UNARY(abs_i32, u32, u32(i32(a) < 0 ? 0u - a : a))
GSGPU_UNARY(neg_i32, u32, u32(0u - a))
GSGPU_TERNARY(mad_u32, u32, u32, u32, u32(a * b + c))

// ---- integer, 64-bit ----
GSGPU_BINARY(add_u64, u64, u64, u64(a + b))
GSGPU_BINARY(sub_u64, u64, u64, u64(a - b))
GSGPU_BINARY(mul_lo_u64, u64, u64, u64(a * b))
GSGPU_BINARY(mul_hi_u64, u64, u64, u64((unsigned __int128)a * b >> 64))
GSGPU_BINARY(mul_hi_i64, u64, u64, u64((__int128)i64(a) * i64(b) >> 64))
GSGPU_BINARY(div_u64, u64, u64, u64(b == 0 ? ~u64{0} : a / b))
GSGPU_BINARY(rem_u64, u64, u64, u64(b == 0 ? a : a % b))
GSGPU_BINARY(div_i64, u64, u64,
             u64(b == 0 ? ~u64{0} : (a == (u64{1} << 63) && b == ~u64{0}) ? a : u64(i64(a) / i64(b))))
GSGPU_BINARY(rem_i64, u64, u64,
             u64(b == 0 ? a : (a == (u64{1} << 63) && b == ~u64{0}) ? u64{0} : u64(i64(a) % i64(b))))
GSGPU_BINARY(min_i64, u64, u64, u64(i64(a) < i64(b) ? a : b))
GSGPU_BINARY(max_i64, u64, u64, u64(i64(a) > i64(b) ? a : b))
GSGPU_BINARY(min_u64, u64, u64, u64(a < b ? a : b))
GSGPU_BINARY(max_u64, u64, u64, u64(a > b ? a : b))
GSGPU_UNARY(abs_i64, u64, u64(i64(a) < 0 ? u64{0} - a : a))
GSGPU_UNARY(neg_i64, u64, u64(u64{0} - a))
GSGPU_TERNARY(mad_u64, u64, u64, u64, u64(a * b + c))
GSGPU_BINARY(mul_wide_u32, u32, u32, u64(u64(a) * b))
GSGPU_BINARY(mul_wide_i32, u32, u32, u64(int64_t(i32(a)) * i32(b)))

// ---- IEEE binary32. Round to nearest even. An arithmetic result that is NaN is the canonical quiet
// NaN 0x7fc00000 (min/max return the non-NaN operand, IEEE minNum/maxNum as OpenCL fmin/fmax): which
// operand's payload the host hardware passes on depends on operand order, which the host compiler
// may swap (a + b = b + a), so keeping payloads would make results depend on the interpreter build
// (backend.h). OpenCL does not define NaN payloads. abs, neg and copysign are bit operations and
// keep them. ----
inline uint32_t q(float r) { return r != r ? 0x7fc00000u : u(r); }
inline float min_num(float x, float y) { return std::isnan(x) ? y : std::isnan(y) ? x : (y < x ? y : x); }
inline float max_num(float x, float y) { return std::isnan(x) ? y : std::isnan(y) ? x : (y > x ? y : x); }
// Adding and subtracting 2^23 rounds to an integer in the (never changed) round-to-nearest-even
// mode; magnitudes at or above 2^23 are integers already.
inline float round_half_even(float x) {
  const float magnitude = std::fabs(x);
  if (!(magnitude < 0x1p23f)) return x;
  return std::copysign((magnitude + 0x1p23f) - 0x1p23f, x);
}
inline float fract(float x) {
  if (std::isinf(x)) return std::copysign(0.0f, x);
  return std::fmin(x - std::floor(x), 0x1.fffffep-1f);
}
GSGPU_BINARY(add_f32, u32, u32, q(f(a) + f(b)))
GSGPU_BINARY(sub_f32, u32, u32, q(f(a) - f(b)))
GSGPU_BINARY(mul_f32, u32, u32, q(f(a) * f(b)))
GSGPU_TERNARY(fma_f32, u32, u32, u32, q(std::fma(f(a), f(b), f(c))))
// mad: multiply then add, each rounded (what OpenCL `a * b + c` means without contraction).
GSGPU_TERNARY(mad_f32, u32, u32, u32, q(f(a) * f(b) + f(c)))
GSGPU_BINARY(div_f32, u32, u32, q(f(a) / f(b)))
GSGPU_BINARY(min_f32, u32, u32, q(min_num(f(a), f(b))))
GSGPU_BINARY(max_f32, u32, u32, q(max_num(f(a), f(b))))
GSGPU_UNARY(abs_f32, u32, u32(a & 0x7fffffffu))
GSGPU_UNARY(neg_f32, u32, u32(a ^ 0x80000000u))
GSGPU_UNARY(floor_f32, u32, q(std::floor(f(a))))
GSGPU_UNARY(ceil_f32, u32, q(std::ceil(f(a))))
GSGPU_UNARY(trunc_f32, u32, q(std::trunc(f(a))))
GSGPU_UNARY(rndne_f32, u32, q(round_half_even(f(a))))
GSGPU_UNARY(fract_f32, u32, q(fract(f(a))))
GSGPU_UNARY(sqrt_f32, u32, q(std::sqrt(f(a))))
GSGPU_UNARY(rsqrt_f32, u32, q(1.0f / std::sqrt(f(a))))
GSGPU_UNARY(rcp_f32, u32, q(1.0f / f(a)))
GSGPU_UNARY(exp2_f32, u32, q(std::exp2(f(a))))
GSGPU_UNARY(log2_f32, u32, q(std::log2(f(a))))
GSGPU_UNARY(sin_f32, u32, q(std::sin(f(a))))
GSGPU_UNARY(cos_f32, u32, q(std::cos(f(a))))
GSGPU_UNARY(exp_f32, u32, q(std::exp(f(a))))
GSGPU_UNARY(log_f32, u32, q(std::log(f(a))))
GSGPU_UNARY(tan_f32, u32, q(std::tan(f(a))))
GSGPU_BINARY(atan2_f32, u32, u32, q(std::atan2(f(a), f(b))))
GSGPU_BINARY(pow_f32, u32, u32, q(std::pow(f(a), f(b))))
GSGPU_BINARY(copysign_f32, u32, u32, u32((a & 0x7fffffffu) | (b & 0x80000000u)))
GSGPU_BINARY(ldexp_f32, u32, u32, q(std::ldexp(f(a), i32(b))))

// ---- compares: 1 or 0. Ordered (o*) compares are false when either operand is NaN, unordered
// (u*) ones true. ----
GSGPU_BINARY(cmp_eq_u32, u32, u32, flag(a == b))
GSGPU_BINARY(cmp_ne_u32, u32, u32, flag(a != b))
GSGPU_BINARY(cmp_lt_i32, u32, u32, flag(i32(a) < i32(b)))
GSGPU_BINARY(cmp_le_i32, u32, u32, flag(i32(a) <= i32(b)))
GSGPU_BINARY(cmp_gt_i32, u32, u32, flag(i32(a) > i32(b)))
GSGPU_BINARY(cmp_ge_i32, u32, u32, flag(i32(a) >= i32(b)))
GSGPU_BINARY(cmp_lt_u32, u32, u32, flag(a < b))
GSGPU_BINARY(cmp_le_u32, u32, u32, flag(a <= b))
GSGPU_BINARY(cmp_gt_u32, u32, u32, flag(a > b))
GSGPU_BINARY(cmp_ge_u32, u32, u32, flag(a >= b))
GSGPU_BINARY(cmp_eq_u64, u64, u64, flag(a == b))
GSGPU_BINARY(cmp_ne_u64, u64, u64, flag(a != b))
GSGPU_BINARY(cmp_lt_i64, u64, u64, flag(i64(a) < i64(b)))
GSGPU_BINARY(cmp_le_i64, u64, u64, flag(i64(a) <= i64(b)))
GSGPU_BINARY(cmp_gt_i64, u64, u64, flag(i64(a) > i64(b)))
GSGPU_BINARY(cmp_ge_i64, u64, u64, flag(i64(a) >= i64(b)))
GSGPU_BINARY(cmp_lt_u64, u64, u64, flag(a < b))
GSGPU_BINARY(cmp_le_u64, u64, u64, flag(a <= b))
GSGPU_BINARY(cmp_gt_u64, u64, u64, flag(a > b))
GSGPU_BINARY(cmp_ge_u64, u64, u64, flag(a >= b))
GSGPU_BINARY(cmp_oeq_f32, u32, u32, flag(f(a) == f(b)))
GSGPU_BINARY(cmp_one_f32, u32, u32, flag(f(a) < f(b) || f(a) > f(b)))
GSGPU_BINARY(cmp_olt_f32, u32, u32, flag(f(a) < f(b)))
GSGPU_BINARY(cmp_ole_f32, u32, u32, flag(f(a) <= f(b)))
GSGPU_BINARY(cmp_ogt_f32, u32, u32, flag(f(a) > f(b)))
GSGPU_BINARY(cmp_oge_f32, u32, u32, flag(f(a) >= f(b)))
GSGPU_BINARY(cmp_ueq_f32, u32, u32, flag(!(f(a) < f(b) || f(a) > f(b))))
GSGPU_BINARY(cmp_une_f32, u32, u32, flag(!(f(a) == f(b))))
GSGPU_BINARY(cmp_ult_f32, u32, u32, flag(!(f(a) >= f(b))))
GSGPU_BINARY(cmp_ule_f32, u32, u32, flag(!(f(a) > f(b))))
GSGPU_BINARY(cmp_ugt_f32, u32, u32, flag(!(f(a) <= f(b))))
GSGPU_BINARY(cmp_uge_f32, u32, u32, flag(!(f(a) < f(b))))
GSGPU_BINARY(cmp_ord_f32, u32, u32, flag(f(a) == f(a) && f(b) == f(b)))
GSGPU_BINARY(cmp_uno_f32, u32, u32, flag(f(a) != f(a) || f(b) != f(b)))
GSGPU_UNARY(cmp_isnan_f32, u32, flag((a & 0x7fffffffu) > 0x7f800000u))
GSGPU_UNARY(cmp_isinf_f32, u32, flag((a & 0x7fffffffu) == 0x7f800000u))

// ---- selects ----
GSGPU_TERNARY(cndmask_b32, u32, u32, u32, u32(a != 0 ? b : c))
GSGPU_TERNARY(cndmask_b64, u32, u64, u64, u64(a != 0 ? b : c))

// ---- conversions ----
// Float to integer: toward zero, saturating at the type's range, NaN to 0 (convert_*_sat; the
// non-saturating OpenCL conversions leave out-of-range values undefined, so this is conformant).
template <typename Int>
Int float_to_int(float x) {
  if (std::isnan(x)) return 0;
  constexpr float lo = static_cast<float>(std::numeric_limits<Int>::min());
  constexpr float hi = static_cast<float>(std::numeric_limits<Int>::max());  // rounds up to 2^N
  if (x <= lo) return std::numeric_limits<Int>::min();
  if (x >= hi) return std::numeric_limits<Int>::max();
  return static_cast<Int>(x);
}
// Integer (exact in double) to float with a directed rounding: round to nearest, then step one ulp
// when that went the wrong way.
enum class Round { kTowardZero, kUp, kDown };
template <Round mode>
float to_float_directed(double exact) {
  float r = static_cast<float>(exact);
  if (mode == Round::kTowardZero && std::fabs(static_cast<double>(r)) > std::fabs(exact))
    r = std::nextafter(r, 0.0f);
  if (mode == Round::kUp && static_cast<double>(r) < exact) r = std::nextafter(r, INFINITY);
  if (mode == Round::kDown && static_cast<double>(r) > exact) r = std::nextafter(r, -INFINITY);
  return r;
}
GSGPU_UNARY(cvt_f32_i32, u32, u(static_cast<float>(i32(a))))
GSGPU_UNARY(cvt_f32_u32, u32, u(static_cast<float>(a)))
GSGPU_UNARY(cvt_f32_i32_rtz, u32, u(to_float_directed<Round::kTowardZero>(i32(a))))
GSGPU_UNARY(cvt_f32_u32_rtz, u32, u(to_float_directed<Round::kTowardZero>(a)))
GSGPU_UNARY(cvt_f32_i32_rtp, u32, u(to_float_directed<Round::kUp>(i32(a))))
GSGPU_UNARY(cvt_f32_u32_rtp, u32, u(to_float_directed<Round::kUp>(a)))
GSGPU_UNARY(cvt_f32_i32_rtn, u32, u(to_float_directed<Round::kDown>(i32(a))))
GSGPU_UNARY(cvt_f32_u32_rtn, u32, u(to_float_directed<Round::kDown>(a)))
GSGPU_UNARY(cvt_i32_f32, u32, u32(float_to_int<int32_t>(f(a))))
GSGPU_UNARY(cvt_u32_f32, u32, u32(float_to_int<uint32_t>(f(a))))
GSGPU_UNARY(cvt_f32_i64, u64, u(static_cast<float>(i64(a))))
GSGPU_UNARY(cvt_f32_u64, u64, u(static_cast<float>(a)))
GSGPU_UNARY(cvt_i64_f32, u32, u64(float_to_int<int64_t>(f(a))))
GSGPU_UNARY(cvt_u64_f32, u32, u64(float_to_int<uint64_t>(f(a))))
GSGPU_UNARY(sext_i64_i32, u32, u64(int64_t(i32(a))))
GSGPU_UNARY(zext_u64_u32, u32, u64(a))
GSGPU_UNARY(trunc_u32_u64, u64, u32(a))
GSGPU_UNARY(sext_i32_i8, u32, u32(int32_t(int8_t(a))))
GSGPU_UNARY(sext_i32_i16, u32, u32(int32_t(int16_t(a))))
GSGPU_UNARY(zext_u32_u8, u32, u32(a & 0xffu))
GSGPU_UNARY(zext_u32_u16, u32, u32(a & 0xffffu))
// binary16 in the low half of a 32-bit register, upper half zero; round to nearest even. Written out
// rather than using _Float16 so that every supported compiler (clang 14 has no x86 _Float16) agrees.
inline uint32_t half_bits(float x) {
  const uint32_t bits = std::bit_cast<uint32_t>(x);
  const uint32_t sign = (bits >> 16) & 0x8000u;
  const uint32_t exponent = (bits >> 23) & 0xffu;
  const uint32_t mantissa = bits & 0x7fffffu;
  if (exponent == 0xff) return sign | 0x7c00u | (mantissa ? 0x200u | (mantissa >> 13) : 0u);
  const int half_exponent = static_cast<int>(exponent) - 127 + 15;
  if (half_exponent >= 31) return sign | 0x7c00u;
  auto round_shift = [](uint32_t value, uint32_t shift) {
    const uint32_t kept = value >> shift;
    const uint32_t rest = value & ((1u << shift) - 1);
    const uint32_t halfway = 1u << (shift - 1);
    return kept + ((rest > halfway || (rest == halfway && (kept & 1))) ? 1u : 0u);
  };
  if (half_exponent >= 1)  // a carry out of the mantissa correctly bumps the exponent (to inf at most)
    return sign | round_shift((static_cast<uint32_t>(half_exponent) << 23) | mantissa, 13);
  const uint32_t shift = 126 - exponent;  // subnormal half: value / 2^-24
  if (shift >= 25) return sign;
  return sign | round_shift(mantissa | 0x800000u, shift);
}
inline float half_value(uint32_t bits) {
  const uint32_t sign = (bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1fu;
  const uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0) {
    const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return std::bit_cast<float>(std::bit_cast<uint32_t>(magnitude) | sign);
  }
  if (exponent == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
}
GSGPU_UNARY(cvt_f16_f32, u32, u32(half_bits(f(a))))
GSGPU_UNARY(cvt_f32_f16, u32, u(half_value(a)))

// ---- bit operations ----
// Bitfield extract of `width` bits at `offset` (offset mod 32, width clamped to the bits left).
inline u32 bitfield_width(u32 offset, u32 width) { return width > 32 - offset ? 32 - offset : width; }
inline u32 bfe_unsigned(u32 value, u32 offset, u32 width) {
  offset &= 31;
  width = bitfield_width(offset, width);
  if (width == 0) return 0;
  const u32 shifted = value >> offset;
  return width == 32 ? shifted : shifted & ((1u << width) - 1);
}
inline u32 bfe_signed(u32 value, u32 offset, u32 width) {
  offset &= 31;
  width = bitfield_width(offset, width);
  if (width == 0) return 0;
  const u32 field = bfe_unsigned(value, offset, width);
  const u32 sign = 1u << (width - 1);
  return (field ^ sign) - sign;
}
inline u32 bitfield_mask(u32 count, u32 offset) {
  offset &= 31;
  count = bitfield_width(offset, count);
  const u32 ones = count == 32 ? ~0u : (1u << count) - 1;
  return ones << offset;
}
GSGPU_BINARY(and_b32, u32, u32, u32(a & b))
GSGPU_BINARY(or_b32, u32, u32, u32(a | b))
GSGPU_BINARY(xor_b32, u32, u32, u32(a ^ b))
GSGPU_UNARY(not_b32, u32, u32(~a))
GSGPU_BINARY(shl_b32, u32, u32, u32(a << (b & 31)))
GSGPU_BINARY(shr_u32, u32, u32, u32(a >> (b & 31)))
GSGPU_BINARY(shr_i32, u32, u32, u32(i32(a) >> (b & 31)))
GSGPU_BINARY(rotl_b32, u32, u32, u32(std::rotl(a, int(b & 31))))
GSGPU_BINARY(rotr_b32, u32, u32, u32(std::rotr(a, int(b & 31))))
GSGPU_UNARY(popcnt_b32, u32, u32(std::popcount(a)))
GSGPU_UNARY(clz_b32, u32, u32(std::countl_zero(a)))
GSGPU_UNARY(ctz_b32, u32, u32(std::countr_zero(a)))
GSGPU_TERNARY(bfe_u32, u32, u32, u32, u32(bfe_unsigned(a, b, c)))
GSGPU_TERNARY(bfe_i32, u32, u32, u32, u32(bfe_signed(a, b, c)))
GSGPU_BINARY(bfm_b32, u32, u32, u32(bitfield_mask(a, b)))
// Bitfield insert as a select of bits: D = (A & B) | (~A & C), A the mask from bfm_b32, B the
// field already shifted into place, C the base.
GSGPU_TERNARY(bfi_b32, u32, u32, u32, u32((a & b) | (~a & c)))
GSGPU_BINARY(and_b64, u64, u64, u64(a & b))
GSGPU_BINARY(or_b64, u64, u64, u64(a | b))
GSGPU_BINARY(xor_b64, u64, u64, u64(a ^ b))
GSGPU_UNARY(not_b64, u64, u64(~a))
GSGPU_BINARY(shl_b64, u64, u32, u64(a << (b & 63)))
GSGPU_BINARY(shr_u64, u64, u32, u64(a >> (b & 63)))
GSGPU_BINARY(shr_i64, u64, u32, u64(i64(a) >> (b & 63)))
GSGPU_UNARY(popcnt_b64, u64, u32(std::popcount(a)))
GSGPU_UNARY(clz_b64, u64, u32(std::countl_zero(a)))
GSGPU_UNARY(ctz_b64, u64, u32(std::countr_zero(a)))

// ---- moves ----
GSGPU_UNARY(mov_b32, u32, u32(a))
GSGPU_UNARY(mov_b64, u64, u64(a))
GSGPU_BINARY(pack_b64, u32, u32, u64(u64(a) | (u64(b) << 32)))

}  // namespace gsgpu::alu

// binary64 and the rounding-mode conversions, with the same macros.
#include "gsgpu/emu/shader/fp64_ops.h"

#undef GSGPU_UNARY
#undef GSGPU_BINARY
#undef GSGPU_TERNARY
