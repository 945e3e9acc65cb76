// Semantics of the fp64 / half block of gsgpu/isa/opcodes.def (included by alu_ops.h, same rules:
// raw register bits in and out, every function total). binary64 arithmetic is the host's, which is
// IEEE round-to-nearest-even (the interpreter never changes the host rounding mode); directed
// roundings are derived from it by comparing the nearest result with the exact value. A NaN result
// of arithmetic is the canonical quiet NaN 0x7ff8000000000000 (see the binary32 rule in alu_ops.h).
// The transcendental functions of v_math_f64 are evaluated in the host's long double (x87 extended
// on x86-64, binary128 on AArch64) and rounded once to double: glibc's long double functions are
// within a few ulp of *that* format, which leaves well under 1 ulp of double after the rounding
// (docs/isa.md §8a lists the bounds and which functions are exact).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "gsgpu/isa/fp64.h"

namespace gsgpu::alu {

inline double d(uint64_t bits) { return std::bit_cast<double>(bits); }
inline uint64_t ud(double value) { return std::bit_cast<uint64_t>(value); }
inline uint64_t qd(double r) { return r != r ? 0x7ff8000000000000ull : ud(r); }
inline double min_num64(double x, double y) { return std::isnan(x) ? y : std::isnan(y) ? x : (y < x ? y : x); }
inline double max_num64(double x, double y) { return std::isnan(x) ? y : std::isnan(y) ? x : (y > x ? y : x); }
inline isa::FpRound rounding(uint32_t mode) { return static_cast<isa::FpRound>(mode & 3u); }

// The nearest-even result `r` of a value whose exact form is `exact` (anything r converts to and
// compares with exactly), moved one step when the directed mode needs the other neighbour.
template <typename R, typename Exact>
R directed(R r, Exact exact, isa::FpRound mode) {
  const Exact as_exact = static_cast<Exact>(r);
  switch (mode) {
    case isa::FpRound::kTowardZero:
      if (exact >= 0 ? as_exact > exact : as_exact < exact) r = std::nextafter(r, R{0});
      break;
    case isa::FpRound::kUp:
      if (as_exact < exact) r = std::nextafter(r, std::numeric_limits<R>::infinity());
      break;
    case isa::FpRound::kDown:
      if (as_exact > exact) r = std::nextafter(r, -std::numeric_limits<R>::infinity());
      break;
    case isa::FpRound::kNearestEven: break;
  }
  return r;
}

// double -> float in a given mode. An infinite nearest result of a finite value compares as larger
// than it, so the directed modes step back to FLT_MAX where they must.
inline float narrow_to_float(double x, isa::FpRound mode) {
  if (std::isnan(x)) return std::numeric_limits<float>::quiet_NaN();
  return directed<float, double>(static_cast<float>(x), x, mode);
}
// 64-bit integer -> double or float in a given mode; __int128 holds both the integer and any
// integral result (up to 2^64) exactly.
template <typename R>
R int64_to(__int128 exact, isa::FpRound mode) {
  const R r = static_cast<R>(exact);
  if (mode == isa::FpRound::kNearestEven) return r;
  // r is integral and at most 2^64 in magnitude: the comparison through __int128 is exact.
  const auto back = static_cast<__int128>(r);
  R out = r;
  if (mode == isa::FpRound::kTowardZero && (exact >= 0 ? back > exact : back < exact)) out = std::nextafter(r, R{0});
  if (mode == isa::FpRound::kUp && back < exact) out = std::nextafter(r, std::numeric_limits<R>::infinity());
  if (mode == isa::FpRound::kDown && back > exact) out = std::nextafter(r, -std::numeric_limits<R>::infinity());
  return out;
}
// double -> integer: toward zero, saturating, NaN -> 0 (as float_to_int in alu_ops.h).
template <typename Int>
Int double_to_int(double x) {
  if (std::isnan(x)) return 0;
  constexpr double lo = static_cast<double>(std::numeric_limits<Int>::min());
  constexpr double hi = static_cast<double>(std::numeric_limits<Int>::max());  // 2^N for 64-bit types
  if (x <= lo) return std::numeric_limits<Int>::min();
  if (x >= hi) return std::numeric_limits<Int>::max();
  return static_cast<Int>(x);
}

// double (float sources convert exactly) -> binary16 bits in the low half, in a given mode.
// Overflow gives inf when the mode rounds away from zero on that side, the largest finite half
// (65504) otherwise; NaN stays NaN with the top payload bits.
inline uint32_t half_bits_rounded(double x, isa::FpRound mode) {
  const uint64_t bits = ud(x);
  const uint32_t sign = static_cast<uint32_t>(bits >> 48) & 0x8000u;
  const bool negative = sign != 0;
  if (std::isnan(x)) return sign | 0x7e00u | static_cast<uint32_t>((bits >> 42) & 0x3ffu);
  const double magnitude = std::fabs(x);
  const bool away = mode == isa::FpRound::kNearestEven || (mode == isa::FpRound::kUp && !negative) ||
                    (mode == isa::FpRound::kDown && negative);
  if (std::isinf(x)) return sign | 0x7c00u;
  if (magnitude >= 65536.0) return sign | (away ? 0x7c00u : 0x7bffu);
  if (magnitude == 0.0) return sign;
  // Quantum: 2^(exponent - 10) for normal halves, 2^-24 below them.
  const int quantum = std::max(std::ilogb(magnitude) - 10, -24);
  const double scaled = std::ldexp(magnitude, -quantum);  // exact, < 2^11
  double units = std::trunc(scaled);
  const double rest = scaled - units;  // exact
  bool up = false;
  switch (mode) {
    case isa::FpRound::kNearestEven: up = rest > 0.5 || (rest == 0.5 && std::fmod(units, 2.0) == 1.0); break;
    case isa::FpRound::kTowardZero: break;
    case isa::FpRound::kUp: up = rest > 0 && !negative; break;
    case isa::FpRound::kDown: up = rest > 0 && negative; break;
  }
  if (up) units += 1;
  const double value = std::ldexp(units, quantum);
  if (value > 65504.0) return sign | (away ? 0x7c00u : 0x7bffu);
  if (value < 0x1p-14) return sign | static_cast<uint32_t>(units);  // subnormal (quantum 2^-24) or 0x400
  const int exponent = std::ilogb(value);
  const auto mantissa = static_cast<uint32_t>(std::ldexp(value, 10 - exponent)) - 1024u;
  return sign | (static_cast<uint32_t>(exponent + 15) << 10) | mantissa;
}

inline bool compare_f64(double x, double y, isa::FCmp cond) {
  const bool unordered = std::isnan(x) || std::isnan(y);
  switch (cond) {
    case isa::FCmp::kOeq: return x == y;
    case isa::FCmp::kOne: return x < y || x > y;
    case isa::FCmp::kOlt: return x < y;
    case isa::FCmp::kOle: return x <= y;
    case isa::FCmp::kOgt: return x > y;
    case isa::FCmp::kOge: return x >= y;
    case isa::FCmp::kUeq: return unordered || x == y;
    case isa::FCmp::kUne: return !(x == y);
    case isa::FCmp::kUlt: return unordered || x < y;
    case isa::FCmp::kUle: return unordered || x <= y;
    case isa::FCmp::kUgt: return unordered || x > y;
    case isa::FCmp::kUge: return unordered || x >= y;
    case isa::FCmp::kOrd: return !unordered;
    case isa::FCmp::kUno: return unordered;
    case isa::FCmp::kIsNan: return std::isnan(x);
    case isa::FCmp::kIsInf: return std::isinf(x);
    default: return x == y;
  }
}

uint64_t evaluate_math_f64(uint64_t a, uint64_t b, uint32_t fn);  // fp64_math.cc

GSGPU_BINARY(add_f64, u64, u64, qd(d(a) + d(b)))
GSGPU_BINARY(sub_f64, u64, u64, qd(d(a) - d(b)))
GSGPU_BINARY(mul_f64, u64, u64, qd(d(a) * d(b)))
GSGPU_BINARY(div_f64, u64, u64, qd(d(a) / d(b)))
GSGPU_TERNARY(fma_f64, u64, u64, u64, qd(std::fma(d(a), d(b), d(c))))
GSGPU_UNARY(sqrt_f64, u64, qd(std::sqrt(d(a))))
GSGPU_BINARY(min_f64, u64, u64, qd(min_num64(d(a), d(b))))
GSGPU_BINARY(max_f64, u64, u64, qd(max_num64(d(a), d(b))))
GSGPU_TERNARY(cmp_f64, u64, u64, u32, flag(compare_f64(d(a), d(b), static_cast<isa::FCmp>(c))))
GSGPU_UNARY(cvt_f64_f32, u32, qd(static_cast<double>(f(a))))
GSGPU_BINARY(cvt_f32_f64, u64, u32, q(narrow_to_float(d(a), rounding(b))))
GSGPU_BINARY(cvt_f64_i64, u64, u32, ud(int64_to<double>(i64(a), rounding(b))))
GSGPU_BINARY(cvt_f64_u64, u64, u32, ud(int64_to<double>(a, rounding(b))))
GSGPU_UNARY(cvt_i64_f64, u64, u64(double_to_int<int64_t>(d(a))))
GSGPU_UNARY(cvt_u64_f64, u64, u64(double_to_int<uint64_t>(d(a))))
GSGPU_UNARY(cvt_i32_f64, u64, u32(double_to_int<int32_t>(d(a))))
GSGPU_UNARY(cvt_u32_f64, u64, u32(double_to_int<uint32_t>(d(a))))
GSGPU_BINARY(cvt_f32_i64_rm, u64, u32, u(int64_to<float>(i64(a), rounding(b))))
GSGPU_BINARY(cvt_f32_u64_rm, u64, u32, u(int64_to<float>(a, rounding(b))))
GSGPU_BINARY(cvt_f16_f32_rm, u32, u32, u32(half_bits_rounded(static_cast<double>(f(a)), rounding(b))))
GSGPU_BINARY(cvt_f16_f64, u64, u32, u32(half_bits_rounded(d(a), rounding(b))))
GSGPU_TERNARY(math_f64, u64, u64, u32, u64(evaluate_math_f64(a, b, c)))

}  // namespace gsgpu::alu
