// Codes carried by the fp64 / half instructions' 32-bit "mode", "cond" and "fn" operands
// (opcodes.def, the fp64 / half block; docs/isa.md §8a). Shared by the compiler, which writes them as
// literals, and the interpreter, which reads them. A code outside a list is not an error (every ALU
// operation is total): it behaves as the list's first entry, and the compiler never emits one.
#pragma once

#include <cstdint>

namespace gsgpu::isa {

// Rounding of a conversion: the low 2 bits of the mode operand.
enum class FpRound : uint32_t { kNearestEven = 0, kTowardZero = 1, kUp = 2, kDown = 3 };

// v_cmp_f64's condition: ordered (o*) compares are false when an operand is NaN, unordered (u*) true.
enum class FCmp : uint32_t {
  kOeq, kOne, kOlt, kOle, kOgt, kOge, kUeq, kUne, kUlt, kUle, kUgt, kUge, kOrd, kUno, kIsNan, kIsInf,
  kCount
};

// v_math_f64's function: D = fn(A) for unary functions (B is ignored), D = fn(A, B) for binary ones.
// "int" operands and results are 32-bit signed integers in the low word (sign-extended to 64 bits
// in results). X(name, arity)
#define GSGPU_MATH_F64(X) \
  X(floor, 1) X(ceil, 1) X(trunc, 1) X(rint, 1) X(round, 1) X(fract, 1) X(abs, 1) X(neg, 1) \
  X(rsqrt, 1) X(cbrt, 1) X(exp, 1) X(exp2, 1) X(exp10, 1) X(expm1, 1) X(log, 1) X(log2, 1) X(log10, 1) \
  X(log1p, 1) X(sin, 1) X(cos, 1) X(tan, 1) X(asin, 1) X(acos, 1) X(atan, 1) X(sinh, 1) X(cosh, 1) \
  X(tanh, 1) X(asinh, 1) X(acosh, 1) X(atanh, 1) X(sinpi, 1) X(cospi, 1) X(tanpi, 1) X(asinpi, 1) \
  X(acospi, 1) X(atanpi, 1) X(erf, 1) X(erfc, 1) X(tgamma, 1) X(lgamma, 1) X(lgamma_sign, 1) X(logb, 1) \
  X(ilogb, 1) X(frexp_mantissa, 1) X(frexp_exponent, 1) \
  X(pow, 2) X(powr, 2) X(pown, 2) X(rootn, 2) X(atan2, 2) X(atan2pi, 2) X(hypot, 2) X(fmod, 2) \
  X(remainder, 2) X(remquo_quotient, 2) X(copysign, 2) X(fdim, 2) X(nextafter, 2) X(ldexp, 2) \
  X(maxmag, 2) X(minmag, 2)

enum class MathF64 : uint32_t {
#define GSGPU_MATH_F64_ENUM(name, arity) k_##name,
  GSGPU_MATH_F64(GSGPU_MATH_F64_ENUM)
#undef GSGPU_MATH_F64_ENUM
  kCount
};

}  // namespace gsgpu::isa
