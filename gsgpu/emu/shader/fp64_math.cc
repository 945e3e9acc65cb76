// v_math_f64: the OpenCL double built-ins that are not a single IEEE operation. Exact functions
// (floor ... frexp, fmod, remainder, copysign, nextafter, ldexp, fdim, maxmag, minmag) are computed in
// double; the others in long double, then rounded once to double (fp64_ops.h says why that is
// accurate). Special values follow the OpenCL C specification's lists (§7.5.1 of OpenCL C 3.0).
#include <cmath>

#include "gsgpu/emu/shader/alu_ops.h"

namespace gsgpu::alu {
namespace {

using Long = long double;
constexpr Long kPi = 3.141592653589793238462643383279502884L;

uint64_t from_int(int64_t value) { return static_cast<uint64_t>(value); }
int32_t int_operand(uint64_t bits) { return static_cast<int32_t>(static_cast<uint32_t>(bits)); }
uint64_t rounded(Long value) { return qd(static_cast<double>(value)); }

// sin(pi x) with the argument reduced exactly to [-1/2, 1/2] first, so that results near the zeros
// at the integers keep their relative accuracy.
Long sinpi_long(double x) {
  double r = std::fmod(x, 2.0);  // exact, in (-2, 2)
  if (r > 1.0) r -= 2.0;         // exact (Sterbenz), now in [-1, 1]
  if (r < -1.0) r += 2.0;
  if (r > 0.5) r = 1.0 - r;      // sin(pi r) = sin(pi (1 - r)); exact
  if (r < -0.5) r = -1.0 - r;
  if (r == 0.0) return x < 0 ? -0.0L : 0.0L;  // an integer: +0 for positive, -0 for negative
  return std::sin(kPi * static_cast<Long>(r));
}
Long cospi_long(double x) {
  double r = std::fmod(std::fabs(x), 2.0);  // [0, 2)
  if (r > 1.0) r = 2.0 - r;                 // cos(pi r) = cos(pi (2 - r)); [0, 1]
  Long sign = 1.0L;
  if (r > 0.5) {
    r = 1.0 - r;  // cos(pi r) = -cos(pi (1 - r))
    sign = -1.0L;
  }
  if (r == 0.5) return 0.0L;  // cospi(n + 1/2) = +0
  if (r > 0.25) return sign * std::sin(kPi * static_cast<Long>(0.5 - r));  // 0.5 - r exact here
  return sign * std::cos(kPi * static_cast<Long>(r));
}
uint64_t tanpi(double x) {
  if (!std::isfinite(x)) return qd(NAN);
  const double r = std::fmod(x, 2.0);
  const double odd_integer = std::fabs(std::fmod(std::trunc(x), 2.0));
  if (r == std::trunc(r)) {  // an integer: signed zero, its sign flipped for odd integers
    const double zero = std::copysign(0.0, x);
    return ud(odd_integer == 1.0 ? -zero : zero);
  }
  const Long c = cospi_long(x);
  if (c == 0.0L) {  // x = n + 1/2 (n = floor(x), -1 for -0.5): +inf for even n, -inf for odd n
    const bool odd = std::fabs(std::fmod(std::floor(x), 2.0)) == 1.0;
    return ud(odd ? -INFINITY : INFINITY);
  }
  return rounded(sinpi_long(x) / c);
}

// pow in long double, except where that is no more accurate and glibc's x87 powl is wrong: special
// operands (powl(-inf, -2^63) gives inf, not +0: it takes -2^63 for an odd integer) and |y| >= 2^53,
// where y is an even integer and the double pow (correctly rounded in glibc) is as good.
uint64_t pow_accurate(double x, double y) {
  if (!std::isfinite(x) || !std::isfinite(y) || x == 0 || y == 0 || std::fabs(y) >= 0x1p53)
    return qd(std::pow(x, y));
  return rounded(std::pow(static_cast<Long>(x), static_cast<Long>(y)));
}

// OpenCL powr: pow for x >= 0 only, with its own special values.
uint64_t powr(double x, double y) {
  if (std::isnan(x) || std::isnan(y) || x < 0) return qd(NAN);
  if (x == 0) {
    if (y == 0) return qd(NAN);
    return ud(y < 0 ? INFINITY : 0.0);
  }
  if (std::isinf(x) && y == 0) return qd(NAN);
  if (x == 1.0) return std::isinf(y) ? qd(NAN) : ud(1.0);
  return pow_accurate(x, y);
}

uint64_t rootn(double x, int32_t n) {
  if (n == 0 || std::isnan(x)) return qd(NAN);
  const bool odd = (n & 1) != 0;
  if (x < 0 && !odd) return qd(NAN);
  const Long root = std::pow(std::fabs(static_cast<Long>(x)), 1.0L / static_cast<Long>(n));
  return rounded(odd ? std::copysign(root, static_cast<Long>(x)) : root);
}

// remquo's quotient: the sign of x / y and the low 7 bits of |round(x / y)| (OpenCL's n = 7).
uint64_t remquo_quotient(double x, double y) {
  if (std::isnan(x) || std::isnan(y) || std::isinf(x) || y == 0) return 0;
  const double ay = std::fabs(y);
  const double big = 128.0 * ay;
  const double reduced = std::isinf(big) ? std::fabs(x) : std::fmod(std::fabs(x), big);  // exact
  const double rest = std::remainder(reduced, ay);                                        // exact
  const auto count = static_cast<int64_t>(std::rint((reduced - rest) / ay)) & 0x7f;
  const bool negative = std::signbit(x) != std::signbit(y);
  return from_int(negative ? -count : count);
}

uint64_t fract(double x) {
  if (std::isnan(x)) return qd(x);
  if (std::isinf(x)) return ud(std::copysign(0.0, x));
  return ud(std::fmin(x - std::floor(x), 0x1.fffffffffffffp-1));
}

uint64_t unary(isa::MathF64 fn, double x) {
  using F = isa::MathF64;
  const Long lx = x;
  switch (fn) {
    case F::k_floor: return qd(std::floor(x));
    case F::k_ceil: return qd(std::ceil(x));
    case F::k_trunc: return qd(std::trunc(x));
    case F::k_rint: return qd(std::nearbyint(x));
    case F::k_round: return qd(std::round(x));
    case F::k_fract: return fract(x);
    case F::k_abs: return ud(x) & ~(uint64_t{1} << 63);
    case F::k_neg: return ud(x) ^ (uint64_t{1} << 63);
    case F::k_rsqrt: return rounded(1.0L / std::sqrt(lx));
    case F::k_cbrt: return rounded(std::cbrt(lx));
    case F::k_exp: return rounded(std::exp(lx));
    case F::k_exp2: return rounded(std::exp2(lx));
    case F::k_exp10: return rounded(exp10l(lx));
    case F::k_expm1: return rounded(std::expm1(lx));
    case F::k_log: return rounded(std::log(lx));
    case F::k_log2: return rounded(std::log2(lx));
    case F::k_log10: return rounded(std::log10(lx));
    case F::k_log1p: return rounded(std::log1p(lx));
    case F::k_sin: return rounded(std::sin(lx));
    case F::k_cos: return rounded(std::cos(lx));
    case F::k_tan: return rounded(std::tan(lx));
    case F::k_asin: return rounded(std::asin(lx));
    case F::k_acos: return rounded(std::acos(lx));
    case F::k_atan: return rounded(std::atan(lx));
    case F::k_sinh: return rounded(std::sinh(lx));
    case F::k_cosh: return rounded(std::cosh(lx));
    case F::k_tanh: return rounded(std::tanh(lx));
    case F::k_asinh: return rounded(std::asinh(lx));
    case F::k_acosh: return rounded(std::acosh(lx));
    case F::k_atanh: return rounded(std::atanh(lx));
    case F::k_sinpi: return std::isfinite(x) ? rounded(sinpi_long(x)) : qd(NAN);
    case F::k_cospi: return std::isfinite(x) ? rounded(cospi_long(x)) : qd(NAN);
    case F::k_tanpi: return tanpi(x);
    case F::k_asinpi: return rounded(std::asin(lx) / kPi);
    case F::k_acospi: return rounded(std::acos(lx) / kPi);
    case F::k_atanpi: return rounded(std::atan(lx) / kPi);
    case F::k_erf: return rounded(std::erf(lx));
    case F::k_erfc: return rounded(std::erfc(lx));
    case F::k_tgamma: return rounded(std::tgamma(lx));
    case F::k_lgamma: {
      int sign = 0;
      return rounded(lgammal_r(lx, &sign));
    }
    case F::k_lgamma_sign: {
      int sign = 0;
      lgammal_r(lx, &sign);
      return from_int(std::isnan(x) ? 0 : sign);
    }
    case F::k_logb: return qd(std::logb(x));
    case F::k_ilogb:  // OpenCL's FP_ILOGB0 = INT_MIN, FP_ILOGBNAN = INT_MAX; infinity gives INT_MAX
      if (std::isnan(x) || std::isinf(x)) return from_int(INT32_MAX);
      return from_int(x == 0 ? INT32_MIN : std::ilogb(x));
    case F::k_frexp_mantissa: {
      int exponent = 0;
      return qd(std::frexp(x, &exponent));
    }
    case F::k_frexp_exponent: {
      int exponent = 0;
      std::frexp(x, &exponent);
      return from_int(std::isfinite(x) ? exponent : 0);
    }
    default: return qd(std::floor(x));
  }
}

uint64_t binary(isa::MathF64 fn, double x, uint64_t b) {
  using F = isa::MathF64;
  const double y = d(b);
  const Long lx = x, ly = y;
  switch (fn) {
    case F::k_pow: return pow_accurate(x, y);
    case F::k_powr: return powr(x, y);
    case F::k_pown: return rounded(std::pow(lx, static_cast<Long>(int_operand(b))));
    case F::k_rootn: return rootn(x, int_operand(b));
    case F::k_atan2: return rounded(std::atan2(lx, ly));
    case F::k_atan2pi: return rounded(std::atan2(lx, ly) / kPi);
    case F::k_hypot: return rounded(std::hypot(lx, ly));
    case F::k_fmod: return qd(std::fmod(x, y));
    case F::k_remainder: return qd(std::remainder(x, y));
    case F::k_remquo_quotient: return remquo_quotient(x, y);
    case F::k_copysign: return (ud(x) & ~(uint64_t{1} << 63)) | (b & (uint64_t{1} << 63));
    case F::k_fdim: return std::isnan(x) || std::isnan(y) ? qd(NAN) : qd(x > y ? x - y : 0.0);
    case F::k_nextafter: return qd(std::nextafter(x, y));
    case F::k_ldexp: return qd(std::ldexp(x, int_operand(b)));
    case F::k_maxmag: {
      const double ax = std::fabs(x), ay = std::fabs(y);
      return qd(ax > ay ? x : ay > ax ? y : max_num64(x, y));
    }
    case F::k_minmag: {
      const double ax = std::fabs(x), ay = std::fabs(y);
      return qd(ax < ay ? x : ay < ax ? y : min_num64(x, y));
    }
    default: return qd(std::pow(x, y));
  }
}

constexpr int kArity[] = {
#define GSGPU_MATH_F64_ARITY(name, arity) arity,
    GSGPU_MATH_F64(GSGPU_MATH_F64_ARITY)
#undef GSGPU_MATH_F64_ARITY
};

}  // namespace

uint64_t evaluate_math_f64(uint64_t a, uint64_t b, uint32_t fn) {
  if (fn >= static_cast<uint32_t>(isa::MathF64::kCount)) fn = 0;
  const auto function = static_cast<isa::MathF64>(fn);
  return kArity[fn] == 1 ? unary(function, d(a)) : binary(function, d(a), b);
}

}  // namespace gsgpu::alu
