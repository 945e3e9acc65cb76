// cl_khr_fp64: double arithmetic, compares, conversions and the OpenCL.std double built-ins, on the
// ISA's fp64 block (docs/isa.md §8a). Doubles live in 64-bit virtual registers (register pairs), as
// 64-bit integers do. Every built-in that is not one IEEE operation is one v_math_f64 with its
// function code; geometric functions are short sequences of exact operations around it.
#include <spirv/unified1/OpenCL.std.h>

#include <bit>
#include <cfloat>
#include <cmath>

#include "gsgpu/compiler/lower.h"
#include "gsgpu/isa/fp64.h"

namespace gsgpu::compiler {

using isa::FCmp;
using isa::MathF64;
using isa::Opcode;
using spv::Op;
namespace cl = OpenCLLIB;

namespace {

uint32_t code(MathF64 fn) { return static_cast<uint32_t>(fn); }

}  // namespace

// ---- helpers ----

MOperand Lowering::f64(Opcode op, MOperand a, MOperand b, MOperand c) { return MOperand::vreg(emit(op, 64, a, b, c)); }

MOperand Lowering::f64_math(MathF64 fn, MOperand a, MOperand b) {
  // A unary function ignores B: passing A again adds no literal that could clash with the code's.
  return f64(Opcode::v_math_f64, a, b.kind == MOperand::Kind::kNone ? a : b, MOperand::literal(code(fn)));
}

MOperand Lowering::f64_compare(FCmp cond, MOperand a, MOperand b) {
  return MOperand::vreg(emit(Opcode::v_cmp_f64, 32, a, b.kind == MOperand::Kind::kNone ? a : b,
                             MOperand::literal(static_cast<uint32_t>(cond))));
}

MOperand Lowering::f64_constant(double value) { return constant64(std::bit_cast<uint64_t>(value)); }

bool Lowering::is_double(uint32_t scalar_type) const {
  const SpirvType& t = type(scalar_type);
  return t.kind == TypeKind::kFloat && t.width == 64;
}

// ---- arithmetic and compares (lower_arith.cc calls these for 64-bit float operands) ----

MOperand Lowering::double_binary(Op op, MOperand a, MOperand b) {
  switch (op) {
    case Op::OpFAdd: return f64(Opcode::v_add_f64, a, b);
    case Op::OpFSub: return f64(Opcode::v_sub_f64, a, b);
    case Op::OpFMul: return f64(Opcode::v_mul_f64, a, b);
    case Op::OpFDiv: return f64(Opcode::v_div_f64, a, b);
    default: fail("unsupported double operation");
  }
}

MOperand Lowering::double_compare(Op op, MOperand a, MOperand b) {
  FCmp cond;
  switch (op) {
    case Op::OpFOrdEqual: cond = FCmp::kOeq; break;
    case Op::OpFOrdNotEqual: cond = FCmp::kOne; break;
    case Op::OpFOrdLessThan: cond = FCmp::kOlt; break;
    case Op::OpFOrdLessThanEqual: cond = FCmp::kOle; break;
    case Op::OpFOrdGreaterThan: cond = FCmp::kOgt; break;
    case Op::OpFOrdGreaterThanEqual: cond = FCmp::kOge; break;
    case Op::OpFUnordEqual: cond = FCmp::kUeq; break;
    case Op::OpFUnordNotEqual: cond = FCmp::kUne; break;
    case Op::OpFUnordLessThan: cond = FCmp::kUlt; break;
    case Op::OpFUnordLessThanEqual: cond = FCmp::kUle; break;
    case Op::OpFUnordGreaterThan: cond = FCmp::kUgt; break;
    case Op::OpFUnordGreaterThanEqual: cond = FCmp::kUge; break;
    case Op::OpOrdered: cond = FCmp::kOrd; break;
    case Op::OpUnordered: cond = FCmp::kUno; break;
    default: fail("unsupported double compare");
  }
  return f64_compare(cond, a, b);
}

// OpIsNan, OpIsInf, OpIsFinite, OpIsNormal, OpSignBitSet on a double.
MOperand Lowering::double_classify(Op op, MOperand x) {
  auto op32 = [&](Opcode o, MOperand p, MOperand q) { return MOperand::vreg(emit(o, 32, p, q)); };
  switch (op) {
    case Op::OpIsNan: return f64_compare(FCmp::kIsNan, x);
    case Op::OpIsInf: return f64_compare(FCmp::kIsInf, x);
    case Op::OpSignBitSet: return op32(Opcode::v_shr_u32, high_half(x), MOperand::literal(31));
    case Op::OpIsFinite: return f64_compare(FCmp::kOlt, f64_math(MathF64::k_abs, x), f64_constant(INFINITY));
    case Op::OpIsNormal: {
      const MOperand magnitude = f64_math(MathF64::k_abs, x);
      return op32(Opcode::v_and_b32, f64_compare(FCmp::kOlt, magnitude, f64_constant(INFINITY)),
                  f64_compare(FCmp::kOge, magnitude, f64_constant(DBL_MIN)));
    }
    default: fail("unsupported classification of a double");
  }
}

// ---- conversions ----

// Any OpenCL conversion with a double on either side, and 64-bit integer -> float with a directed
// rounding (which the float-only instructions cannot do). `rounding` is the FPRoundingMode
// decoration, Max when there is none (truncation to integers, nearest even to floats).
MOperand Lowering::convert_double(Op op, uint32_t wf, uint32_t wt, MOperand v, spv::FPRoundingMode rounding,
                                  bool saturate) {
  const uint32_t mode = rounding == spv::FPRoundingMode::RTZ   ? static_cast<uint32_t>(isa::FpRound::kTowardZero)
                        : rounding == spv::FPRoundingMode::RTP ? static_cast<uint32_t>(isa::FpRound::kUp)
                        : rounding == spv::FPRoundingMode::RTN ? static_cast<uint32_t>(isa::FpRound::kDown)
                                                               : static_cast<uint32_t>(isa::FpRound::kNearestEven);
  const MOperand mode_operand = MOperand::literal(mode);
  if (op == Op::OpFConvert) {
    if (wf == wt) return v;
    if (wf == 64 && wt == 32) return MOperand::vreg(emit(Opcode::v_cvt_f32_f64, 32, v, mode_operand));
    if (wf == 64 && wt == 16) return MOperand::vreg(emit(Opcode::v_cvt_f16_f64, 32, v, mode_operand));
    if (wf == 32 && wt == 64) return f64(Opcode::v_cvt_f64_f32, v);
    if (wf == 16 && wt == 64) return f64(Opcode::v_cvt_f64_f32, MOperand::vreg(emit(Opcode::v_cvt_f32_f16, 32, v)));
    fail("conversion between " + std::to_string(wf) + "- and " + std::to_string(wt) + "-bit floats");
  }
  if (op == Op::OpConvertFToS || op == Op::OpConvertFToU) {
    const bool is_signed = op == Op::OpConvertFToS;
    // convert_<int>_rte/rtp/rtn: round to an integral double first (exact); the conversion truncates.
    if (rounding == spv::FPRoundingMode::RTE) v = f64_math(MathF64::k_rint, v);
    if (rounding == spv::FPRoundingMode::RTP) v = f64_math(MathF64::k_ceil, v);
    if (rounding == spv::FPRoundingMode::RTN) v = f64_math(MathF64::k_floor, v);
    if (wt == 64) return f64(is_signed ? Opcode::v_cvt_i64_f64 : Opcode::v_cvt_u64_f64, v);
    MOperand r = MOperand::vreg(emit(is_signed ? Opcode::v_cvt_i32_f64 : Opcode::v_cvt_u32_f64, 32, v));
    if (wt < 32 && saturate) r = clamp_to_narrow_int(r, wt, is_signed);
    return normalise(r, wt);
  }
  // Integer -> double (or 64-bit integer -> float in a directed mode).
  const bool is_signed = op == Op::OpConvertSToF;
  MOperand wide = v;
  if (wf < 64) {
    wide = is_signed ? MOperand::vreg(emit(Opcode::v_sext_i64_i32, 64, sign_extend32(v, wf)))
                     : MOperand::vreg(emit(Opcode::v_zext_u64_u32, 64, v));
  }
  if (wt == 64) return f64(is_signed ? Opcode::v_cvt_f64_i64 : Opcode::v_cvt_f64_u64, wide, mode_operand);
  if (wt == 32) return MOperand::vreg(emit(is_signed ? Opcode::v_cvt_f32_i64_rm : Opcode::v_cvt_f32_u64_rm, 32, wide, mode_operand));
  fail("conversion to a " + std::to_string(wt) + "-bit float");
}

// ---- OpenCL.std on doubles, one component ----

namespace {

// Built-ins that are one v_math_f64 function of their operands as they are.
bool direct_math(uint32_t ext, MathF64* fn) {
  switch (ext) {
    case cl::Floor: *fn = MathF64::k_floor; return true;
    case cl::Ceil: *fn = MathF64::k_ceil; return true;
    case cl::Trunc: *fn = MathF64::k_trunc; return true;
    case cl::Rint: *fn = MathF64::k_rint; return true;
    case cl::Round: *fn = MathF64::k_round; return true;
    case cl::Fabs: *fn = MathF64::k_abs; return true;
    case cl::Rsqrt: *fn = MathF64::k_rsqrt; return true;
    case cl::Cbrt: *fn = MathF64::k_cbrt; return true;
    case cl::Exp: *fn = MathF64::k_exp; return true;
    case cl::Exp2: *fn = MathF64::k_exp2; return true;
    case cl::Exp10: *fn = MathF64::k_exp10; return true;
    case cl::Expm1: *fn = MathF64::k_expm1; return true;
    case cl::Log: *fn = MathF64::k_log; return true;
    case cl::Log2: *fn = MathF64::k_log2; return true;
    case cl::Log10: *fn = MathF64::k_log10; return true;
    case cl::Log1p: *fn = MathF64::k_log1p; return true;
    case cl::Sin: *fn = MathF64::k_sin; return true;
    case cl::Cos: *fn = MathF64::k_cos; return true;
    case cl::Tan: *fn = MathF64::k_tan; return true;
    case cl::Asin: *fn = MathF64::k_asin; return true;
    case cl::Acos: *fn = MathF64::k_acos; return true;
    case cl::Atan: *fn = MathF64::k_atan; return true;
    case cl::Sinh: *fn = MathF64::k_sinh; return true;
    case cl::Cosh: *fn = MathF64::k_cosh; return true;
    case cl::Tanh: *fn = MathF64::k_tanh; return true;
    case cl::Asinh: *fn = MathF64::k_asinh; return true;
    case cl::Acosh: *fn = MathF64::k_acosh; return true;
    case cl::Atanh: *fn = MathF64::k_atanh; return true;
    case cl::Sinpi: *fn = MathF64::k_sinpi; return true;
    case cl::Cospi: *fn = MathF64::k_cospi; return true;
    case cl::Tanpi: *fn = MathF64::k_tanpi; return true;
    case cl::Asinpi: *fn = MathF64::k_asinpi; return true;
    case cl::Acospi: *fn = MathF64::k_acospi; return true;
    case cl::Atanpi: *fn = MathF64::k_atanpi; return true;
    case cl::Erf: *fn = MathF64::k_erf; return true;
    case cl::Erfc: *fn = MathF64::k_erfc; return true;
    case cl::Tgamma: *fn = MathF64::k_tgamma; return true;
    case cl::Lgamma: *fn = MathF64::k_lgamma; return true;
    case cl::Logb: *fn = MathF64::k_logb; return true;
    case cl::Pow: *fn = MathF64::k_pow; return true;
    case cl::Powr: *fn = MathF64::k_powr; return true;
    case cl::Pown: *fn = MathF64::k_pown; return true;
    case cl::Rootn: *fn = MathF64::k_rootn; return true;
    case cl::Atan2: *fn = MathF64::k_atan2; return true;
    case cl::Atan2pi: *fn = MathF64::k_atan2pi; return true;
    case cl::Hypot: *fn = MathF64::k_hypot; return true;
    case cl::Fmod: *fn = MathF64::k_fmod; return true;
    case cl::Remainder: *fn = MathF64::k_remainder; return true;
    case cl::Copysign: *fn = MathF64::k_copysign; return true;
    case cl::Fdim: *fn = MathF64::k_fdim; return true;
    case cl::Nextafter: *fn = MathF64::k_nextafter; return true;
    case cl::Ldexp: *fn = MathF64::k_ldexp; return true;
    case cl::Maxmag: *fn = MathF64::k_maxmag; return true;
    case cl::Minmag: *fn = MathF64::k_minmag; return true;
    default: return false;
  }
}

}  // namespace

// Float transcendentals through the double math unit: the float is widened (exact), v_math_f64
// computes the function to within a small fraction of a double ulp, and one rounding to float
// leaves at most 0.5 float ulp plus ~2^-29: within every OpenCL float bound, where the float
// sequences of lower_extinst.cc were not (CTS test_bruteforce: acos 4.6 ulp, acosh(-4097) = -inf,
// asinh(-2^64) = -inf, ...). The exact functions, native_* and half_* keep their float lowering.
bool Lowering::float_via_double(uint32_t ext, const std::vector<MOperand>& a, MOperand* result) {
  MathF64 fn;
  switch (ext) {
    case cl::Cbrt: case cl::Exp: case cl::Exp2: case cl::Exp10: case cl::Expm1: case cl::Log: case cl::Log2:
    case cl::Log10: case cl::Log1p: case cl::Sin: case cl::Cos: case cl::Tan: case cl::Asin: case cl::Acos:
    case cl::Atan: case cl::Sinh: case cl::Cosh: case cl::Tanh: case cl::Asinh: case cl::Acosh: case cl::Atanh:
    case cl::Sinpi: case cl::Cospi: case cl::Tanpi: case cl::Asinpi: case cl::Acospi: case cl::Atanpi: case cl::Erf:
    case cl::Erfc: case cl::Tgamma: case cl::Lgamma: case cl::Pow: case cl::Powr: case cl::Pown: case cl::Rootn:
    case cl::Atan2: case cl::Atan2pi: case cl::Hypot:
      if (!direct_math(ext, &fn)) return false;
      break;
    case cl::Half_powr: fn = MathF64::k_powr; break;  // NaN for x < 0 (CTS), which v_pow_f32 is not
    default: return false;
  }
  const bool binary = ext == cl::Pow || ext == cl::Powr || ext == cl::Pown || ext == cl::Rootn || ext == cl::Atan2 ||
                      ext == cl::Atan2pi || ext == cl::Hypot || ext == cl::Half_powr;
  if (a.size() < (binary ? 2u : 1u)) return false;
  const MOperand x = f64(Opcode::v_cvt_f64_f32, a[0]);
  MOperand y;
  if (binary) {
    y = ext == cl::Pown || ext == cl::Rootn ? MOperand::vreg(emit(Opcode::v_sext_i64_i32, 64, a[1]))
                                            : f64(Opcode::v_cvt_f64_f32, a[1]);
  }
  *result = MOperand::vreg(emit(Opcode::v_cvt_f32_f64, 32, f64_math(fn, x, y), MOperand::literal(0)));
  return true;
}

// Float length, distance and normalize: the components widened exactly to double, where no square of a
// float overflows or underflows (a float of 2^64 has a length, not an infinity), one rounding back.
// normalize's special cases as OpenCL C gives them: a zero vector comes back as it is; with an
// infinite component (and no NaN) each infinite one becomes +-1 and the others +-0.
Value Lowering::float_geometric_via_double(uint32_t ext, const std::vector<Value>& args, const std::string& name) {
  const bool distance = ext == cl::Distance;
  if (args.empty() || args[0].parts.empty() || (distance && (args.size() < 2 || args[1].parts.size() < args[0].parts.size())))
    fail(name + ": missing operands");  // hostile SPIR-V
  std::vector<MOperand> wide;
  for (size_t i = 0; i < args[0].parts.size(); ++i) {
    MOperand x = f64(Opcode::v_cvt_f64_f32, args[0].parts[i]);
    if (distance) x = f64(Opcode::v_sub_f64, x, f64(Opcode::v_cvt_f64_f32, args[1].parts[i]));
    wide.push_back(x);
  }
  MOperand sum = f64(Opcode::v_mul_f64, wide[0], wide[0]);
  for (size_t i = 1; i < wide.size(); ++i) sum = f64(Opcode::v_fma_f64, wide[i], wide[i], sum);
  const MOperand root = f64(Opcode::v_sqrt_f64, sum);
  auto to_float = [&](MOperand d) { return MOperand::vreg(emit(Opcode::v_cvt_f32_f64, 32, d, MOperand::literal(0))); };
  Value r;
  if (ext != cl::Normalize) {
    r.parts.push_back(to_float(root));
    return r;
  }
  const MOperand zero = f64_compare(FCmp::kOeq, sum, f64_constant(0.0));
  const MOperand infinite = f64_compare(FCmp::kIsInf, sum);
  for (size_t i = 0; i < wide.size(); ++i) {
    const MOperand x = args[0].parts[i];
    const MOperand unit = MOperand::vreg(emit(Opcode::v_copysign_f32, 32,
                                              select(MOperand::vreg(emit(Opcode::v_cmp_isinf_f32, 32, x)),
                                                     MOperand::literal(0x3f800000u), MOperand::literal(0), 32),
                                              x));
    const MOperand scaled = to_float(f64(Opcode::v_div_f64, wide[i], root));
    r.parts.push_back(select(zero, x, select(infinite, unit, scaled, 32), 32));
  }
  return r;
}

MOperand Lowering::double_math(uint32_t ext, const std::vector<MOperand>& a, const std::string& name) {
  auto need = [&](size_t n) {
    if (a.size() < n) fail(name + " needs " + std::to_string(n) + " operands");
  };
  if (MathF64 fn; direct_math(ext, &fn)) {
    const bool binary = ext == cl::Pow || ext == cl::Powr || ext == cl::Pown || ext == cl::Rootn || ext == cl::Atan2 ||
                        ext == cl::Atan2pi || ext == cl::Hypot || ext == cl::Fmod || ext == cl::Remainder ||
                        ext == cl::Copysign || ext == cl::Fdim || ext == cl::Nextafter || ext == cl::Ldexp ||
                        ext == cl::Maxmag || ext == cl::Minmag;
    need(binary ? 2 : 1);
    // pown / rootn / ldexp take an int: v_math_f64 reads it from the low word of a 64-bit operand.
    const bool int_operand = ext == cl::Pown || ext == cl::Rootn || ext == cl::Ldexp;
    const MOperand second = !binary       ? MOperand{}
                            : int_operand ? MOperand::vreg(emit(Opcode::v_sext_i64_i32, 64, a[1]))
                                          : a[1];
    return f64_math(fn, a[0], second);
  }
  switch (ext) {
    case cl::Sqrt: need(1); return f64(Opcode::v_sqrt_f64, a[0]);
    case cl::Fmin: case cl::FMin_common: need(2); return f64(Opcode::v_min_f64, a[0], a[1]);
    case cl::Fmax: case cl::FMax_common: need(2); return f64(Opcode::v_max_f64, a[0], a[1]);
    case cl::Fma: need(3); return f64(Opcode::v_fma_f64, a[0], a[1], a[2]);
    // mad may be computed any way; the fused form is the most accurate.
    case cl::Mad: need(3); return f64(Opcode::v_fma_f64, a[0], a[1], a[2]);
    case cl::Ilogb: need(1); return low_half(f64_math(MathF64::k_ilogb, a[0]));
    case cl::Nan: {
      // nan(ulong payload): a quiet NaN carrying the payload's low 51 bits.
      need(1);
      const MOperand payload = f64(Opcode::v_and_b64, a[0], constant64(0x0007ffffffffffffull));
      return f64(Opcode::v_or_b64, payload, constant64(0x7ff8000000000000ull));
    }
    case cl::Degrees: need(1); return f64(Opcode::v_mul_f64, a[0], f64_constant(57.29577951308232));
    case cl::Radians: need(1); return f64(Opcode::v_mul_f64, a[0], f64_constant(0.017453292519943295));
    case cl::FClamp: need(3); return f64(Opcode::v_min_f64, f64(Opcode::v_max_f64, a[0], a[1]), a[2]);
    case cl::Mix: need(3); return f64(Opcode::v_fma_f64, f64(Opcode::v_sub_f64, a[1], a[0]), a[2], a[0]);
    case cl::Step: need(2); return select(f64_compare(FCmp::kOlt, a[1], a[0]), f64_constant(0.0), f64_constant(1.0), 64);
    case cl::Smoothstep: {
      need(3);
      MOperand t = f64(Opcode::v_div_f64, f64(Opcode::v_sub_f64, a[2], a[0]), f64(Opcode::v_sub_f64, a[1], a[0]));
      t = f64(Opcode::v_min_f64, f64(Opcode::v_max_f64, t, f64_constant(0.0)), f64_constant(1.0));
      const MOperand three_minus = f64(Opcode::v_sub_f64, f64_constant(3.0), f64(Opcode::v_add_f64, t, t));
      return f64(Opcode::v_mul_f64, f64(Opcode::v_mul_f64, t, t), three_minus);
    }
    case cl::Sign: {
      // NaN -> 0, +-0 -> +-0, otherwise +-1.
      need(1);
      const MOperand one = f64_math(MathF64::k_copysign, f64_constant(1.0), a[0]);
      const MOperand signed_value = select(f64_compare(FCmp::kOeq, a[0], f64_constant(0.0)), a[0], one, 64);
      return select(f64_compare(FCmp::kIsNan, a[0]), f64_constant(0.0), signed_value, 64);
    }
    default: break;
  }
  fail(name + " on double is not supported");
}

// ---- OpenCL.std on doubles with several results or whole vectors ----

// Sum of squares of x scaled by 2^-e, e the exponent of the largest |x_i|: exact scaling, so
// length / distance / normalize neither overflow nor underflow. Returns the scaled components.
std::vector<MOperand> Lowering::double_scaled(const std::vector<MOperand>& x, MOperand* exponent, MOperand* sum) {
  MOperand largest = f64_math(MathF64::k_abs, x[0]);
  for (size_t i = 1; i < x.size(); ++i) largest = f64(Opcode::v_max_f64, largest, f64_math(MathF64::k_abs, x[i]));
  // ilogb(0) is INT_MIN and ilogb(inf) INT_MAX; ldexp by either gives 0 or inf, which is right.
  const MOperand e = MOperand::vreg(emit(Opcode::v_sext_i64_i32, 64, low_half(f64_math(MathF64::k_ilogb, largest))));
  const MOperand minus_e = f64(Opcode::v_neg_i64, e);
  std::vector<MOperand> scaled;
  for (const MOperand& c : x) scaled.push_back(f64_math(MathF64::k_ldexp, c, minus_e));
  MOperand s = f64(Opcode::v_mul_f64, scaled[0], scaled[0]);
  for (size_t i = 1; i < scaled.size(); ++i) s = f64(Opcode::v_fma_f64, scaled[i], scaled[i], s);
  *exponent = e;
  *sum = s;
  return scaled;
}

bool Lowering::lower_double_extinst(uint32_t ext, const SpirvInstruction& inst, const std::vector<Value>& args,
                                    uint32_t n, const std::string& name) {
  Value r;
  auto component = [&](size_t arg, uint32_t i) {
    if (args.size() <= arg || args[arg].parts.empty()) fail(name + ": missing operands");
    return args[arg].parts.size() == 1 ? args[arg].parts[0] : args[arg].parts.at(i);
  };
  switch (ext) {
    case cl::Length: case cl::Distance: case cl::Normalize: {
      if (args.empty() || args[0].parts.empty()) fail(name + ": missing operands");  // hostile SPIR-V
      std::vector<MOperand> x;
      for (size_t i = 0; i < args.at(0).parts.size(); ++i)
        x.push_back(ext == cl::Distance ? f64(Opcode::v_sub_f64, args[0].parts[i], component(1, static_cast<uint32_t>(i)))
                                        : args[0].parts[i]);
      MOperand e, sum;
      const std::vector<MOperand> scaled = double_scaled(x, &e, &sum);
      const MOperand root = f64(Opcode::v_sqrt_f64, sum);
      if (ext != cl::Normalize) {
        r.parts.push_back(f64_math(MathF64::k_ldexp, root, e));
      } else {
        // A zero vector is returned as it is (OpenCL normalize).
        const MOperand zero = f64_compare(FCmp::kOeq, sum, f64_constant(0.0));
        for (size_t i = 0; i < x.size(); ++i) r.parts.push_back(select(zero, x[i], f64(Opcode::v_div_f64, scaled[i], root), 64));
      }
      break;
    }
    case cl::Cross: {
      if (args.size() < 2 || args[0].parts.size() < 3 || args[1].parts.size() < 3) fail("cross needs two 3- or 4-vectors");
      const auto& x = args[0].parts;
      const auto& y = args[1].parts;
      for (int i = 0; i < 3; ++i) {
        const int j = (i + 1) % 3, k = (i + 2) % 3;
        r.parts.push_back(f64(Opcode::v_sub_f64, f64(Opcode::v_mul_f64, x[j], y[k]), f64(Opcode::v_mul_f64, x[k], y[j])));
      }
      if (n == 4) r.parts.push_back(f64_constant(0.0));
      break;
    }
    case cl::Frexp: case cl::Fract: case cl::Modf: case cl::Sincos: case cl::Lgamma_r: case cl::Remquo: {
      // Two results: one returned, one stored through the last operand.
      const bool is_remquo = ext == cl::Remquo;
      if (inst.operands.size() < (is_remquo ? 5u : 4u)) fail(name + ": missing operands");
      const uint32_t pointer = inst.operands[is_remquo ? 4 : 3];
      Value stored;
      for (uint32_t i = 0; i < n; ++i) {
        const MOperand x = component(0, i);
        switch (ext) {
          case cl::Frexp:
            r.parts.push_back(f64_math(MathF64::k_frexp_mantissa, x));
            stored.parts.push_back(low_half(f64_math(MathF64::k_frexp_exponent, x)));
            break;
          case cl::Fract:
            r.parts.push_back(f64_math(MathF64::k_fract, x));
            stored.parts.push_back(f64_math(MathF64::k_floor, x));
            break;
          case cl::Modf: {
            const MOperand whole = f64_math(MathF64::k_trunc, x);
            stored.parts.push_back(whole);
            // x - trunc(x) is exact; infinities give +-0; the sign is x's.
            const MOperand part = select(f64_compare(FCmp::kIsInf, x), f64_constant(0.0), f64(Opcode::v_sub_f64, x, whole), 64);
            r.parts.push_back(f64_math(MathF64::k_copysign, part, x));
            break;
          }
          case cl::Sincos:
            r.parts.push_back(f64_math(MathF64::k_sin, x));
            stored.parts.push_back(f64_math(MathF64::k_cos, x));
            break;
          case cl::Lgamma_r:
            r.parts.push_back(f64_math(MathF64::k_lgamma, x));
            stored.parts.push_back(low_half(f64_math(MathF64::k_lgamma_sign, x)));
            break;
          default:
            r.parts.push_back(f64_math(MathF64::k_remainder, x, component(1, i)));
            stored.parts.push_back(low_half(f64_math(MathF64::k_remquo_quotient, x, component(1, i))));
        }
      }
      const uint32_t pointer_type = type_of(pointer);
      const uint32_t element = ext == cl::Fract || ext == cl::Modf || ext == cl::Sincos ? inst.result_type
                                                                                       : type(pointer_type).element;
      store(pointer_type, value(pointer).parts.at(0), stored, element, 0);
      break;
    }
    default: return false;
  }
  define(inst.result_id, std::move(r));
  return true;
}

}  // namespace gsgpu::compiler
