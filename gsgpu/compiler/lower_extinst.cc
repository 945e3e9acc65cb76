// OpenCL.std extended instructions: the math the ISA has directly, short sequences for the rest of
// what common kernels use, integer built-ins, geometric functions and vload/vstore. Anything else
// fails with the instruction's name.
#include <spirv/unified1/OpenCL.std.h>

#include <bit>
#include <cmath>
#include <initializer_list>

#include "gsgpu/compiler/lower.h"
#include "gsgpu/compiler/spirv_names.inc"

namespace gsgpu::compiler {

using isa::Opcode;
namespace cl = OpenCLLIB;

namespace {

std::string ext_name(uint32_t ext) {
  for (const auto& entry : generated::kOpenClStdNames)
    if (entry.code == ext) return entry.name;
  return "OpenCL.std #" + std::to_string(ext);
}

// Float operations that are one ISA instruction (the transcendentals at their full accuracy go through
// the double unit first: float_via_double in lower_fp64.cc).
Opcode direct_float_op(uint32_t ext) {
  switch (ext) {
    case cl::Sqrt: case cl::Native_sqrt: case cl::Half_sqrt: return Opcode::v_sqrt_f32;
    case cl::Rsqrt: case cl::Native_rsqrt: case cl::Half_rsqrt: return Opcode::v_rsqrt_f32;
    case cl::Fabs: return Opcode::v_abs_f32;
    case cl::Floor: return Opcode::v_floor_f32;
    case cl::Ceil: return Opcode::v_ceil_f32;
    case cl::Trunc: return Opcode::v_trunc_f32;
    case cl::Rint: return Opcode::v_rndne_f32;
    case cl::Native_exp2: case cl::Half_exp2: return Opcode::v_exp2_f32;
    case cl::Native_log2: case cl::Half_log2: return Opcode::v_log2_f32;
    case cl::Native_exp: case cl::Half_exp: return Opcode::v_exp_f32;
    case cl::Native_log: case cl::Half_log: return Opcode::v_log_f32;
    case cl::Native_sin: case cl::Half_sin: return Opcode::v_sin_f32;
    case cl::Native_cos: case cl::Half_cos: return Opcode::v_cos_f32;
    case cl::Native_tan: case cl::Half_tan: return Opcode::v_tan_f32;
    case cl::Native_recip: case cl::Half_recip: return Opcode::v_rcp_f32;
    case cl::Native_powr: return Opcode::v_pow_f32;
    case cl::Copysign: return Opcode::v_copysign_f32;
    case cl::Ldexp: return Opcode::v_ldexp_f32;
    case cl::Fmin: case cl::FMin_common: return Opcode::v_min_f32;
    case cl::Fmax: case cl::FMax_common: return Opcode::v_max_f32;
    case cl::Fma: return Opcode::v_fma_f32;
    case cl::Mad: return Opcode::v_mad_f32;
    case cl::Native_divide: case cl::Half_divide: return Opcode::v_div_f32;
    default: return Opcode::kCount;
  }
}

constexpr uint32_t kOne = 0x3f800000u;   // 1.0f
constexpr uint32_t kHalf = 0x3f000000u;  // 0.5f

// Float emission helpers for the lowerings below that build a value from several instructions
// (remquo). The float transcendentals go through the double unit (float_via_double, lower_fp64.cc).
struct FloatOps {
  Lowering& l;
  MOperand op(Opcode o, MOperand a, MOperand b = {}, MOperand c = {}) { return MOperand::vreg(l.emit(o, 32, a, b, c)); }
  static MOperand k(float f) { return MOperand::literal(std::bit_cast<uint32_t>(f)); }
  MOperand add(MOperand a, MOperand b) { return op(Opcode::v_add_f32, a, b); }
  MOperand sub(MOperand a, MOperand b) { return op(Opcode::v_sub_f32, a, b); }
  MOperand mul(MOperand a, MOperand b) { return op(Opcode::v_mul_f32, a, b); }
  MOperand div(MOperand a, MOperand b) { return op(Opcode::v_div_f32, a, b); }
  MOperand fma(MOperand a, MOperand b, MOperand c) { return op(Opcode::v_fma_f32, a, b, c); }
  MOperand neg(MOperand a) { return op(Opcode::v_neg_f32, a); }
  MOperand abs(MOperand a) { return op(Opcode::v_abs_f32, a); }
  MOperand log(MOperand a) { return op(Opcode::v_log_f32, a); }
  MOperand exp(MOperand a) { return op(Opcode::v_exp_f32, a); }
  MOperand lt(MOperand a, MOperand b) { return op(Opcode::v_cmp_olt_f32, a, b); }
  MOperand ge(MOperand a, MOperand b) { return op(Opcode::v_cmp_oge_f32, a, b); }
  MOperand sel(MOperand c, MOperand a, MOperand b) { return l.select(c, a, b, 32); }
};

}  // namespace

MOperand Lowering::opencl_math(uint32_t ext, uint32_t scalar, const std::vector<MOperand>& a) {
  auto op = [&](Opcode o, MOperand x, MOperand y = {}, MOperand z = {}) {
    return MOperand::vreg(emit(o, 32, x, y, z));
  };
  auto op64 = [&](Opcode o, MOperand x, MOperand y = {}, MOperand z = {}) {
    return MOperand::vreg(emit(o, 64, x, y, z));
  };
  auto need = [&](size_t n) {
    if (a.size() < n) fail(ext_name(ext) + " needs " + std::to_string(n) + " operands");
  };
  const SpirvType& t = type(scalar);
  if (t.kind == TypeKind::kFloat) {
    if (t.width != 32) fail(ext_name(ext) + " on a " + std::to_string(t.width) + "-bit float (only float is supported)");
    if (MOperand r; float_via_double(ext, a, &r)) return r;  // the transcendentals (lower_fp64.cc)
    const isa::OpInfo* info = nullptr;
    if (Opcode direct = direct_float_op(ext); direct != Opcode::kCount) {
      info = &isa::op_info(direct);
      const size_t n = info->src2 != isa::OperandKind::kNone ? 3 : info->src1 != isa::OperandKind::kNone ? 2 : 1;
      need(n);
      return op(direct, a[0], n > 1 ? a[1] : MOperand{}, n > 2 ? a[2] : MOperand{});
    }
    switch (ext) {
      case cl::Native_exp10: case cl::Half_exp10:
        need(1);
        return op(Opcode::v_exp2_f32, op(Opcode::v_mul_f32, a[0], MOperand::literal(0x40549a78u)));  // log2(10)
      case cl::Native_log10: case cl::Half_log10:
        need(1);
        return op(Opcode::v_mul_f32, op(Opcode::v_log2_f32, a[0]), MOperand::literal(0x3e9a209bu));  // log10(2)
      case cl::Fdim: {
        need(2);
        // x - y when x > y, +0 when not, NaN when either is NaN (x - y is then that NaN).
        const MOperand diff = op(Opcode::v_sub_f32, a[0], a[1]);
        return select(op(Opcode::v_cmp_ule_f32, a[0], a[1]), select(op(Opcode::v_cmp_uno_f32, a[0], a[1]), diff,
                                                                     MOperand::literal(0), 32), diff, 32);
      }
      case cl::Round: {
        need(1);
        // Half-way cases away from zero: trunc, then add one in x's direction when |x - trunc| >= 0.5.
        const MOperand whole = op(Opcode::v_trunc_f32, a[0]);
        const MOperand part = op(Opcode::v_abs_f32, op(Opcode::v_sub_f32, a[0], whole));
        const MOperand step = op(Opcode::v_copysign_f32, MOperand::literal(kOne), a[0]);
        return op(Opcode::v_add_f32, whole, select(op(Opcode::v_cmp_oge_f32, part, MOperand::literal(kHalf)), step, MOperand::literal(0), 32));
      }
      case cl::Logb: case cl::Ilogb: {
        need(1);
        // Exponent of a normal number from its bits; denormals are scaled by 2^32 first.
        const MOperand denormal = op(Opcode::v_cmp_lt_u32, op(Opcode::v_and_b32, a[0], MOperand::literal(0x7fffffffu)), MOperand::literal(0x00800000u));
        const MOperand scaled = select(denormal, op(Opcode::v_mul_f32, a[0], MOperand::literal(0x4f800000u)), a[0], 32);
        const MOperand field = op(Opcode::v_bfe_u32, scaled, MOperand::literal(23), in_register(MOperand::literal(8), 32));
        const MOperand exponent = op(Opcode::v_sub_u32, field, select(denormal, MOperand::literal(127 + 32), MOperand::literal(127), 32));
        const MOperand is_zero = op(Opcode::v_cmp_oeq_f32, a[0], MOperand::literal(0));
        const MOperand is_nan = op(Opcode::v_cmp_isnan_f32, a[0]);
        const MOperand is_inf = op(Opcode::v_cmp_isinf_f32, a[0]);
        if (ext == cl::Ilogb) {
          // FP_ILOGB0 = INT_MIN, FP_ILOGBNAN = INT_MAX (as clang's OpenCL headers define them)
          MOperand r = select(is_zero, MOperand::literal(0x80000000u), exponent, 32);
          r = select(is_inf, MOperand::literal(0x7fffffffu), r, 32);
          return select(is_nan, MOperand::literal(0x7fffffffu), r, 32);
        }
        MOperand r = select(is_zero, MOperand::literal(0xff800000u), op(Opcode::v_cvt_f32_i32, exponent), 32);  // -inf
        r = select(is_inf, MOperand::literal(0x7f800000u), r, 32);
        return select(is_nan, a[0], r, 32);
      }
      case cl::Nextafter: {
        need(2);
        // One ulp toward y: +1 on the bits when moving away from zero, -1 when toward it.
        const MOperand x = a[0], y = a[1];
        const MOperand x_negative = op(Opcode::v_shr_u32, x, MOperand::literal(31));
        const MOperand up = op(Opcode::v_cmp_olt_f32, x, y);
        const MOperand away = op(Opcode::v_xor_b32, up, x_negative);  // up for positive x, down for negative x
        const MOperand stepped = select(away, op(Opcode::v_add_u32, x, MOperand::literal(1)), op(Opcode::v_sub_u32, x, MOperand::literal(1)), 32);
        const MOperand tiniest = op(Opcode::v_or_b32, op(Opcode::v_and_b32, y, MOperand::literal(0x80000000u)), MOperand::literal(1));
        MOperand r = select(op(Opcode::v_cmp_oeq_f32, x, MOperand::literal(0)), tiniest, stepped, 32);
        r = select(op(Opcode::v_cmp_oeq_f32, x, y), y, r, 32);
        return select(op(Opcode::v_cmp_uno_f32, x, y), op(Opcode::v_add_f32, x, y), r, 32);
      }
      case cl::Nan: need(1); return op(Opcode::v_or_b32, op(Opcode::v_and_b32, a[0], MOperand::literal(0x003fffffu)), MOperand::literal(0x7fc00000u));
      case cl::Degrees: need(1); return op(Opcode::v_mul_f32, a[0], MOperand::literal(0x42652ee1u));  // 180/pi
      case cl::Radians: need(1); return op(Opcode::v_mul_f32, a[0], MOperand::literal(0x3c8efa35u));  // pi/180
      case cl::FClamp: need(3); return op(Opcode::v_min_f32, op(Opcode::v_max_f32, a[0], a[1]), a[2]);
      case cl::Mix: need(3); return op(Opcode::v_mad_f32, op(Opcode::v_sub_f32, a[1], a[0]), a[2], a[0]);
      case cl::Step: need(2); return select(op(Opcode::v_cmp_olt_f32, a[1], a[0]), MOperand::literal(0), MOperand::literal(kOne), 32);
      case cl::Smoothstep: {
        need(3);
        const MOperand span = op(Opcode::v_sub_f32, a[1], a[0]);
        MOperand x = op(Opcode::v_div_f32, op(Opcode::v_sub_f32, a[2], a[0]), span);
        x = op(Opcode::v_min_f32, op(Opcode::v_max_f32, x, MOperand::literal(0)), MOperand::literal(kOne));
        const MOperand three_minus = op(Opcode::v_sub_f32, MOperand::literal(0x40400000u), op(Opcode::v_add_f32, x, x));
        return op(Opcode::v_mul_f32, op(Opcode::v_mul_f32, x, x), three_minus);
      }
      case cl::Sign: {
        need(1);
        const MOperand one = op(Opcode::v_copysign_f32, MOperand::literal(kOne), a[0]);
        const MOperand nonzero = op(Opcode::v_cmp_une_f32, a[0], MOperand::literal(0));
        const MOperand zero_or_one = select(nonzero, one, MOperand::literal(0), 32);
        return select(op(Opcode::v_cmp_isnan_f32, a[0]), MOperand::literal(0), zero_or_one, 32);
      }
      case cl::Maxmag: case cl::Minmag: {
        need(2);
        const MOperand ax = op(Opcode::v_abs_f32, a[0]), ay = op(Opcode::v_abs_f32, a[1]);
        const bool max = ext == cl::Maxmag;
        const MOperand x_wins = op(max ? Opcode::v_cmp_ogt_f32 : Opcode::v_cmp_olt_f32, ax, ay);
        const MOperand y_wins = op(max ? Opcode::v_cmp_ogt_f32 : Opcode::v_cmp_olt_f32, ay, ax);
        return select(x_wins, a[0], select(y_wins, a[1], op(max ? Opcode::v_max_f32 : Opcode::v_min_f32, a[0], a[1]), 32), 32);
      }
      default: break;
    }
    fail(ext_name(ext) + " is not supported");
  }
  // Integers.
  const uint32_t width = int_width(scalar);
  const bool wide = width == 64;
  auto sx = [&](MOperand x) { return sign_extend32(x, width); };
  // (x >> 1) + (y >> 1) + the carry of the low bits: hadd and rhadd without overflow.
  auto hadd64 = [&](bool is_signed, bool round) {
    need(2);
    const Opcode shift = is_signed ? Opcode::v_shr_i64 : Opcode::v_shr_u64;
    const MOperand halves = op64(Opcode::v_add_u64, op64(shift, a[0], MOperand::literal(1)), op64(shift, a[1], MOperand::literal(1)));
    const MOperand low = op64(round ? Opcode::v_or_b64 : Opcode::v_and_b64, a[0], a[1]);
    return op64(Opcode::v_add_u64, halves, op64(Opcode::v_and_b64, low, MOperand::literal(1)));
  };
  switch (ext) {
    case cl::SMin: case cl::SMax: case cl::UMin: case cl::UMax: {
      need(2);
      const bool is_signed = ext == cl::SMin || ext == cl::SMax;
      const bool is_min = ext == cl::SMin || ext == cl::UMin;
      if (wide) return op64(is_signed ? (is_min ? Opcode::v_min_i64 : Opcode::v_max_i64) : (is_min ? Opcode::v_min_u64 : Opcode::v_max_u64), a[0], a[1]);
      const Opcode o = is_signed ? (is_min ? Opcode::v_min_i32 : Opcode::v_max_i32) : (is_min ? Opcode::v_min_u32 : Opcode::v_max_u32);
      return normalise(is_signed ? op(o, sx(a[0]), sx(a[1])) : op(o, a[0], a[1]), width);
    }
    case cl::SClamp: case cl::UClamp: {
      need(3);
      const bool is_signed = ext == cl::SClamp;
      if (wide) return op64(is_signed ? Opcode::v_min_i64 : Opcode::v_min_u64, op64(is_signed ? Opcode::v_max_i64 : Opcode::v_max_u64, a[0], a[1]), a[2]);
      if (is_signed) return normalise(op(Opcode::v_min_i32, op(Opcode::v_max_i32, sx(a[0]), sx(a[1])), sx(a[2])), width);
      return op(Opcode::v_min_u32, op(Opcode::v_max_u32, a[0], a[1]), a[2]);
    }
    case cl::SAbs: need(1); return wide ? op64(Opcode::v_abs_i64, a[0]) : normalise(op(Opcode::v_abs_i32, sx(a[0])), width);
    case cl::UAbs: need(1); return a[0];
    case cl::SAbs_diff: case cl::UAbs_diff: {
      need(2);
      const bool is_signed = ext == cl::SAbs_diff;
      if (wide) return op64(Opcode::v_sub_u64, op64(is_signed ? Opcode::v_max_i64 : Opcode::v_max_u64, a[0], a[1]),
                            op64(is_signed ? Opcode::v_min_i64 : Opcode::v_min_u64, a[0], a[1]));
      const MOperand x = is_signed ? sx(a[0]) : a[0], y = is_signed ? sx(a[1]) : a[1];
      return normalise(op(Opcode::v_sub_u32, op(is_signed ? Opcode::v_max_i32 : Opcode::v_max_u32, x, y),
                          op(is_signed ? Opcode::v_min_i32 : Opcode::v_min_u32, x, y)), width);
    }
    case cl::Clz:
      need(1);
      if (wide) return op64(Opcode::v_zext_u64_u32, op(Opcode::v_clz_b64, a[0]));
      return width == 32 ? op(Opcode::v_clz_b32, a[0]) : op(Opcode::v_sub_u32, op(Opcode::v_clz_b32, a[0]), MOperand::literal(32 - width));
    case cl::Ctz:
      need(1);
      if (wide) return op64(Opcode::v_zext_u64_u32, op(Opcode::v_ctz_b64, a[0]));
      return width == 32 ? op(Opcode::v_ctz_b32, a[0]) : op(Opcode::v_min_u32, op(Opcode::v_ctz_b32, a[0]), MOperand::literal(width));
    case cl::Popcount:
      need(1);
      return wide ? op64(Opcode::v_zext_u64_u32, op(Opcode::v_popcnt_b64, a[0])) : op(Opcode::v_popcnt_b32, a[0]);
    case cl::SMul_hi: case cl::UMul_hi: {
      need(2);
      const bool is_signed = ext == cl::SMul_hi;
      if (wide) return op64(is_signed ? Opcode::v_mul_hi_i64 : Opcode::v_mul_hi_u64, a[0], a[1]);
      if (width == 32) return op(is_signed ? Opcode::v_mul_hi_i32 : Opcode::v_mul_hi_u32, a[0], a[1]);
      const MOperand product = is_signed ? op(Opcode::v_mul_lo_u32, sx(a[0]), sx(a[1])) : op(Opcode::v_mul_lo_u32, a[0], a[1]);
      return normalise(op(is_signed ? Opcode::v_shr_i32 : Opcode::v_shr_u32, product, MOperand::literal(width)), width);
    }
    case cl::Rotate:
      need(2);
      if (width == 32) return op(Opcode::v_rotl_b32, a[0], a[1]);
      if (wide) {
        const MOperand count = op(Opcode::v_and_b32, low_half(a[1]), MOperand::literal(63));
        const MOperand back = op(Opcode::v_and_b32, op(Opcode::v_sub_u32, MOperand::literal(64), count), MOperand::literal(63));
        return op64(Opcode::v_or_b64, op64(Opcode::v_shl_b64, a[0], count), op64(Opcode::v_shr_u64, a[0], back));
      } else {
        const MOperand count = op(Opcode::v_and_b32, a[1], MOperand::literal(width - 1));
        const MOperand back = op(Opcode::v_sub_u32, MOperand::literal(width), count);
        return normalise(op(Opcode::v_or_b32, op(Opcode::v_shl_b32, a[0], count), op(Opcode::v_shr_u32, a[0], back)), width);
      }
    case cl::UMad24: case cl::SMad24: need(3); return op(Opcode::v_mad_u32, a[0], a[1], a[2]);
    case cl::UMul24: case cl::SMul24: need(2); return op(Opcode::v_mul_lo_u32, a[0], a[1]);
    case cl::UMad_hi: case cl::SMad_hi: {
      need(3);
      const MOperand high = opencl_math(ext == cl::SMad_hi ? cl::SMul_hi : cl::UMul_hi, scalar, {a[0], a[1]});
      if (wide) return op64(Opcode::v_add_u64, high, a[2]);
      return normalise(op(Opcode::v_add_u32, high, a[2]), width);
    }
    case cl::S_Upsample: case cl::U_Upsample: {
      need(2);
      if (wide) return op64(Opcode::v_pack_b64, a[1], a[0]);
      return normalise(op(Opcode::v_or_b32, op(Opcode::v_shl_b32, a[0], MOperand::literal(width / 2)), a[1]), width);
    }
    case cl::UHadd: case cl::URhadd: {
      need(2);
      if (width < 32) {
        const MOperand sum = op(Opcode::v_add_u32, a[0], a[1]);
        return op(Opcode::v_shr_u32, ext == cl::URhadd ? op(Opcode::v_add_u32, sum, MOperand::literal(1)) : sum, MOperand::literal(1));
      }
      if (wide) return hadd64(false, ext == cl::URhadd);
      // (x >> 1) + (y >> 1) + carry of the low bits: no overflow.
      const MOperand halves = op(Opcode::v_add_u32, op(Opcode::v_shr_u32, a[0], MOperand::literal(1)), op(Opcode::v_shr_u32, a[1], MOperand::literal(1)));
      const MOperand low = op(ext == cl::UHadd ? Opcode::v_and_b32 : Opcode::v_or_b32, a[0], a[1]);
      return op(Opcode::v_add_u32, halves, op(Opcode::v_and_b32, low, MOperand::literal(1)));
    }
    case cl::SAdd_sat: case cl::SSub_sat: {
      need(2);
      const bool add = ext == cl::SAdd_sat;
      if (width < 32) {
        const int32_t hi = (1 << (width - 1)) - 1;
        MOperand sum = op(add ? Opcode::v_add_u32 : Opcode::v_sub_u32, sx(a[0]), sx(a[1]));
        sum = op(Opcode::v_max_i32, op(Opcode::v_min_i32, sum, MOperand::literal(static_cast<uint32_t>(hi))),
                 MOperand::literal(static_cast<uint32_t>(-hi - 1)));
        return normalise(sum, width);
      }
      if (width == 64) {
        const MOperand sum = op64(add ? Opcode::v_add_u64 : Opcode::v_sub_u64, a[0], a[1]);
        const MOperand signs = add ? op64(Opcode::v_not_b64, op64(Opcode::v_xor_b64, a[0], a[1])) : op64(Opcode::v_xor_b64, a[0], a[1]);
        const MOperand overflow = op(Opcode::v_cmp_lt_i64, op64(Opcode::v_and_b64, signs, op64(Opcode::v_xor_b64, a[0], sum)), MOperand::literal(0));
        // a < 0 ? INT64_MIN : INT64_MAX, as (a >> 63) ^ INT64_MAX.
        const MOperand limit = op64(Opcode::v_xor_b64, op64(Opcode::v_shr_i64, a[0], MOperand::literal(63)), constant64(0x7fffffffffffffffull));
        return select(overflow, limit, sum, 64);
      }
      // Overflow when the operands' signs make it possible and the result's sign is wrong.
      const MOperand sum = op(add ? Opcode::v_add_u32 : Opcode::v_sub_u32, a[0], a[1]);
      const MOperand sign_change = op(Opcode::v_and_b32,
                                      add ? op(Opcode::v_not_b32, op(Opcode::v_xor_b32, a[0], a[1])) : op(Opcode::v_xor_b32, a[0], a[1]),
                                      op(Opcode::v_xor_b32, a[0], sum));
      const MOperand overflow = op(Opcode::v_shr_u32, sign_change, MOperand::literal(31));
      const MOperand limit = op(Opcode::v_add_u32, op(Opcode::v_shr_u32, a[0], MOperand::literal(31)), MOperand::literal(0x7fffffffu));
      return select(overflow, limit, sum, 32);
    }
    case cl::SMad_sat: case cl::UMad_sat: {
      need(3);
      const bool is_signed = ext == cl::SMad_sat;
      if (wide) {
        // The 128-bit product (mul_hi : mul_lo) plus the addend, saturated when it does not fit.
        const MOperand lo = op64(Opcode::v_mul_lo_u64, a[0], a[1]);
        const MOperand hi = op64(is_signed ? Opcode::v_mul_hi_i64 : Opcode::v_mul_hi_u64, a[0], a[1]);
        const MOperand sum = op64(Opcode::v_add_u64, lo, a[2]);
        const MOperand carry = op(Opcode::v_cmp_lt_u64, sum, lo);
        if (!is_signed) {
          const MOperand overflow = op(Opcode::v_or_b32, carry, op(Opcode::v_cmp_ne_u64, hi, MOperand::literal(0)));
          return select(overflow, MOperand::literal(0xffffffffu), sum, 64);  // literal: sign-extended all ones
        }
        // High word of the 128-bit sum: hi + (c < 0 ? -1 : 0) + carry. It fits when that equals
        // the sign extension of the low word.
        const MOperand high = op64(Opcode::v_add_u64, op64(Opcode::v_add_u64, hi, op64(Opcode::v_shr_i64, a[2], MOperand::literal(63))),
                                   op64(Opcode::v_zext_u64_u32, carry));
        const MOperand fits = op(Opcode::v_cmp_eq_u64, high, op64(Opcode::v_shr_i64, sum, MOperand::literal(63)));
        const MOperand limit = op64(Opcode::v_xor_b64, op64(Opcode::v_shr_i64, high, MOperand::literal(63)), constant64(0x7fffffffffffffffull));
        return select(fits, sum, limit, 64);
      }
      if (width < 32) {
        // The exact result fits in 32 bits; clamp it to the narrow range.
        MOperand r = op(Opcode::v_mad_u32, is_signed ? sx(a[0]) : a[0], is_signed ? sx(a[1]) : a[1], is_signed ? sx(a[2]) : a[2]);
        if (is_signed) {
          const int32_t hi = (1 << (width - 1)) - 1;
          r = op(Opcode::v_max_i32, op(Opcode::v_min_i32, r, MOperand::literal(static_cast<uint32_t>(hi))),
                 MOperand::literal(static_cast<uint32_t>(-hi - 1)));
        } else {
          r = op(Opcode::v_min_u32, r, MOperand::literal((1u << width) - 1));
        }
        return normalise(r, width);
      }
      // 32-bit: the 64-bit product plus the addend, clamped.
      MOperand r = op64(is_signed ? Opcode::v_mul_wide_i32 : Opcode::v_mul_wide_u32, a[0], a[1]);
      r = op64(Opcode::v_add_u64, r, op64(is_signed ? Opcode::v_sext_i64_i32 : Opcode::v_zext_u64_u32, a[2]));
      if (is_signed) {
        r = op64(Opcode::v_min_i64, r, MOperand::literal(0x7fffffffu));
        r = op64(Opcode::v_max_i64, r, MOperand::literal(0x80000000u));
      } else {
        r = op64(Opcode::v_min_u64, r, constant64(0xffffffffull));
      }
      return low_half(r);
    }
    case cl::SHadd: case cl::SRhadd: {
      need(2);
      if (wide) return hadd64(true, ext == cl::SRhadd);
      const MOperand x = sx(a[0]), y = sx(a[1]);
      const MOperand halves = op(Opcode::v_add_u32, op(Opcode::v_shr_i32, x, MOperand::literal(1)), op(Opcode::v_shr_i32, y, MOperand::literal(1)));
      const MOperand low = op(ext == cl::SHadd ? Opcode::v_and_b32 : Opcode::v_or_b32, x, y);
      return normalise(op(Opcode::v_add_u32, halves, op(Opcode::v_and_b32, low, MOperand::literal(1))), width);
    }
    case cl::UAdd_sat: {
      need(2);
      if (width == 64) {
        const MOperand sum = op64(Opcode::v_add_u64, a[0], a[1]);
        return select(op(Opcode::v_cmp_lt_u64, sum, a[0]), MOperand::literal(0xffffffffu), sum, 64);  // literal: sign-extended all ones
      }
      const MOperand sum = op(Opcode::v_add_u32, a[0], a[1]);
      if (width < 32) return op(Opcode::v_min_u32, sum, MOperand::literal((1u << width) - 1));
      return select(op(Opcode::v_cmp_lt_u32, sum, a[0]), MOperand::literal(0xffffffffu), sum, 32);
    }
    case cl::USub_sat: {
      need(2);
      if (width == 64) return select(op(Opcode::v_cmp_gt_u64, a[1], a[0]), MOperand::literal(0), op64(Opcode::v_sub_u64, a[0], a[1]), 64);
      return select(op(Opcode::v_cmp_gt_u32, a[1], a[0]), MOperand::literal(0), op(Opcode::v_sub_u32, a[0], a[1]), 32);
    }
    default: break;
  }
  fail(ext_name(ext) + " on " + std::to_string(width) + "-bit integers is not supported");
}

// fmod without rounding error: r = |x|; while r >= |y|, subtract the largest |y| * 2^k <= r. Each
// subtraction is exact (Sterbenz: s <= r <= 2s) and at least halves r, so the loop runs at most
// about 280 times. NaN, infinite x and zero y give NaN; their lanes skip the loop.
MOperand Lowering::exact_fmod(uint32_t float_type, MOperand x, MOperand y) {
  auto op = [&](Opcode o, MOperand a, MOperand b = {}, MOperand c = {}) { return MOperand::vreg(emit(o, 32, a, b, c)); };
  const MOperand invalid = op(Opcode::v_or_b32, op(Opcode::v_or_b32, op(Opcode::v_cmp_uno_f32, x, y), op(Opcode::v_cmp_isinf_f32, x)),
                              op(Opcode::v_cmp_oeq_f32, y, MOperand::literal(0)));
  const MOperand divisor = select(invalid, MOperand::literal(kOne), op(Opcode::v_abs_f32, y), 32);
  const uint32_t r = f_.new_vreg(32);  // the running remainder: assigned before and inside the loop
  emit_to(Opcode::v_cndmask_b32, MOperand::vreg(r), invalid, MOperand::literal(0), op(Opcode::v_abs_f32, x));
  const uint32_t header = f_.new_block("fmod loop"), body = f_.new_block("fmod step"), done = f_.new_block("fmod done");
  f_.blocks[current_block_].term = MTerminator{MTerminator::Kind::kJump, {}, {header, 0}};
  current_block_ = header;
  f_.blocks[header].term = MTerminator{MTerminator::Kind::kBranch, op(Opcode::v_cmp_oge_f32, MOperand::vreg(r), divisor), {body, done}};
  current_block_ = body;
  const MOperand shift = op(Opcode::v_sub_u32, opencl_math(OpenCLLIB::Ilogb, float_type, {MOperand::vreg(r)}),
                            opencl_math(OpenCLLIB::Ilogb, float_type, {divisor}));
  MOperand step = op(Opcode::v_ldexp_f32, divisor, shift);
  step = select(op(Opcode::v_cmp_ogt_f32, step, MOperand::vreg(r)), op(Opcode::v_mul_f32, step, MOperand::literal(kHalf)), step, 32);
  emit_to(Opcode::v_sub_f32, MOperand::vreg(r), MOperand::vreg(r), step);
  f_.blocks[body].term = MTerminator{MTerminator::Kind::kJump, {}, {header, 0}};
  current_block_ = done;
  return select(invalid, MOperand::literal(0x7fc00000u), op(Opcode::v_copysign_f32, MOperand::vreg(r), x), 32);
}

// remainder(x, y) = x - n*y, n the nearest integer to x/y (ties to even), exactly: reduce modulo
// 2|y| with exact_fmod (an even multiple), then take |y| off at most twice.
MOperand Lowering::exact_remainder(uint32_t float_type, MOperand x, MOperand y) {
  auto op = [&](Opcode o, MOperand a, MOperand b = {}, MOperand c = {}) { return MOperand::vreg(emit(o, 32, a, b, c)); };
  const MOperand p = op(Opcode::v_abs_f32, y);
  // 2|y| overflows to infinity only when |x| < 2|y| already; fmod(x, inf) is x.
  const MOperand reduced = exact_fmod(float_type, x, op(Opcode::v_add_f32, p, p));
  const MOperand ax = op(Opcode::v_abs_f32, reduced);
  // Normal |y|: compare with |y|/2. Tiny |y| (halving would round): compare 2|x| with |y|.
  const MOperand half = op(Opcode::v_mul_f32, p, MOperand::literal(kHalf));
  const MOperand tiny = op(Opcode::v_cmp_olt_f32, p, MOperand::literal(0x01000000u));  // 2^-125
  auto above = [&](MOperand v, bool or_equal) {
    const Opcode cmp = or_equal ? Opcode::v_cmp_oge_f32 : Opcode::v_cmp_ogt_f32;
    return select(tiny, op(cmp, op(Opcode::v_add_f32, v, v), p), op(cmp, v, half), 32);
  };
  // A second |y| comes off only after a first (quotient 1 -> 2 on a tie); |reduced| = |y|/2 exactly is
  // a tie between quotients 0 and 1 and stays (to even 0).
  const MOperand first = above(ax, false);
  const MOperand once = select(first, op(Opcode::v_sub_f32, ax, p), ax, 32);
  const MOperand twice = select(op(Opcode::v_and_b32, first, above(once, true)), op(Opcode::v_sub_f32, once, p), once, 32);
  // The sign of x applies on top (xor: a negative intermediate with a negative x becomes positive).
  const MOperand result = op(Opcode::v_xor_b32, twice, op(Opcode::v_and_b32, reduced, MOperand::literal(0x80000000u)));
  return select(op(Opcode::v_cmp_isnan_f32, reduced), reduced, result, 32);
}

void Lowering::vload_store(uint32_t ext, const SpirvInstruction& inst) {
  const bool is_load = ext == cl::Vloadn || ext == cl::Vload_half || ext == cl::Vload_halfn || ext == cl::Vloada_halfn;
  // vloadn(offset, p, n) / vstoren(data, offset, p): element address p + offset * n * sizeof(element).
  const uint32_t offset_id = operand_id(inst, is_load ? 2 : 3);
  const uint32_t pointer_id = operand_id(inst, is_load ? 3 : 4);
  const uint32_t pointer_type = type_of(pointer_id);
  const SpirvType& ptr = type(pointer_type);
  const bool half = ext != cl::Vloadn && ext != cl::Vstoren;
  const uint32_t data_type = is_load ? inst.result_type : type_of(operand_id(inst, 2));
  const uint32_t n = component_count(data_type);
  const uint32_t element_bytes = half ? 2 : size_of(ptr.element);
  // vloada_half/vstorea_half: 3-vectors are aligned like 4-vectors.
  const uint32_t stride = (ext == cl::Vloada_halfn || ext == cl::Vstorea_halfn || ext == cl::Vstorea_halfn_r) && n == 3 ? 4 : n;
  MOperand index = value(offset_id).parts.at(0);
  if (int_width(scalar_of(type_of(offset_id))) != 64) index = MOperand::vreg(emit(Opcode::v_zext_u64_u32, 64, index));
  const MOperand address = MOperand::vreg(emit(Opcode::v_mad_u64, 64, index, MOperand::literal(stride * element_bytes),
                                               value(pointer_id).parts.at(0)));
  if (!half) {
    if (is_load) {
      define(inst.result_id, load(pointer_type, address, data_type, 0));
    } else {
      store(pointer_type, address, value(operand_id(inst, 2)), data_type, 0);
    }
    return;
  }
  // Half conversions: f16 -> f32 is exact; stores round float or double data in the instruction's
  // mode (the _r forms' literal FPRoundingMode, whose codes are isa::FpRound's), nearest even otherwise.
  uint32_t mode = static_cast<uint32_t>(spv::FPRoundingMode::RTE);
  if (ext == cl::Vstore_half_r || ext == cl::Vstore_halfn_r || ext == cl::Vstorea_halfn_r) {
    mode = operand_id(inst, 5);
    if (mode > static_cast<uint32_t>(spv::FPRoundingMode::RTN)) fail(ext_name(ext) + " with an unknown rounding mode");
  }
  const isa::MemSpace space = ptr.storage == spv::StorageClass::CrossWorkgroup  ? isa::MemSpace::kGlobal
                              : ptr.storage == spv::StorageClass::UniformConstant ? isa::MemSpace::kConstant
                              : ptr.storage == spv::StorageClass::Workgroup       ? isa::MemSpace::kLocal
                                                                                  : isa::MemSpace::kPrivate;
  const bool wide_address = space == isa::MemSpace::kGlobal || space == isa::MemSpace::kConstant;
  const MOperand base = wide_address ? address : low_half(address);
  if (is_load) {
    const Opcode load16 = space == isa::MemSpace::kGlobal ? Opcode::global_load_u16
                          : space == isa::MemSpace::kConstant ? Opcode::const_load_u16
                          : space == isa::MemSpace::kLocal ? Opcode::local_load_u16
                                                           : Opcode::private_load_u16;
    Value v;
    for (uint32_t i = 0; i < n; ++i) {
      const MOperand bits = MOperand::vreg(emit(load16, 32, base, {}, {}, static_cast<int32_t>(2 * i)));
      v.parts.push_back(MOperand::vreg(emit(Opcode::v_cvt_f32_f16, 32, bits)));
    }
    define(inst.result_id, std::move(v));
    return;
  }
  if (space == isa::MemSpace::kConstant) fail("vstore_half to __constant memory");
  const Opcode store16 = space == isa::MemSpace::kGlobal ? Opcode::global_store_b16
                         : space == isa::MemSpace::kLocal ? Opcode::local_store_b16
                                                          : Opcode::private_store_b16;
  const Value data = value(operand_id(inst, 2));
  const bool wide = is_double(scalar_of(data_type));
  for (uint32_t i = 0; i < n && i < data.parts.size(); ++i) {
    const MOperand bits = wide ? MOperand::vreg(emit(Opcode::v_cvt_f16_f64, 32, data.parts[i], MOperand::literal(mode)))
                          : mode == 0 ? MOperand::vreg(emit(Opcode::v_cvt_f16_f32, 32, data.parts[i]))
                                      : MOperand::vreg(emit(Opcode::v_cvt_f16_f32_rm, 32, data.parts[i], MOperand::literal(mode)));
    emit_store(store16, base, bits, static_cast<int32_t>(2 * i));
  }
}

bool Lowering::lower_extinst(const SpirvInstruction& inst) {
  if (inst.opcode != spv::Op::OpExtInst) return false;
  const uint32_t set = operand_id(inst, 0);
  const uint32_t ext = operand_id(inst, 1);
  auto name = m_.ext_inst_sets.find(set);
  if (graphics() && name != m_.ext_inst_sets.end() && name->second == "GLSL.std.450") return lower_glsl_extinst(inst);
  if (name == m_.ext_inst_sets.end() || name->second != "OpenCL.std")
    fail("extended instruction " + std::to_string(ext) + " from a set other than OpenCL.std");
  return lower_opencl_extinst(ext, inst);
}

bool Lowering::lower_opencl_extinst(uint32_t ext, const SpirvInstruction& inst) {
  switch (ext) {
    case cl::Vloadn: case cl::Vstoren: case cl::Vload_half: case cl::Vload_halfn: case cl::Vstore_half:
    case cl::Vstore_halfn: case cl::Vloada_halfn: case cl::Vstorea_halfn: case cl::Vstore_half_r:
    case cl::Vstore_halfn_r: case cl::Vstorea_halfn_r:
      vload_store(ext, inst);
      return true;
    case cl::Printf: define(inst.result_id, Value{{lower_printf(inst)}}); return true;
    case cl::Prefetch: return true;
    default: break;
  }
  std::vector<Value> args;
  for (size_t i = 2; i < inst.operands.size(); ++i) args.push_back(value(inst.operands[i]));
  // ilogb returns int from a float: dispatch on the operand's type.
  const uint32_t scalar = ext == cl::Ilogb && inst.operands.size() > 2 ? scalar_of(type_of(inst.operands[2]))
                                                                       : scalar_of(inst.result_type);
  const uint32_t n = component_count(inst.result_type);
  // Doubles (cl_khr_fp64): lower_fp64.cc. Geometric functions and the two-result built-ins first,
  // then per component. ilogb and the integer-result relationals dispatch on the operand's type.
  const bool bitwise = ext == cl::Shuffle || ext == cl::Shuffle2 || ext == cl::Bitselect || ext == cl::Select;
  const bool double_operand = inst.operands.size() > 2 && is_double(scalar_of(type_of(inst.operands[2])));
  if (!bitwise && (double_operand || is_double(scalar_of(inst.result_type)))) {
    if (lower_double_extinst(ext, inst, args, n, ext_name(ext))) return true;
    Value r;
    for (uint32_t i = 0; i < n; ++i) {
      std::vector<MOperand> per_component;
      for (const Value& a : args) {
        if (a.parts.empty()) fail(ext_name(ext) + ": an operand has no value");
        per_component.push_back(a.parts.size() == 1 ? a.parts[0] : a.parts.at(i));  // scalars broadcast
      }
      r.parts.push_back(double_math(ext, per_component, ext_name(ext)));
    }
    define(inst.result_id, std::move(r));
    return true;
  }
  Value r;
  switch (ext) {
    case cl::Length: case cl::Distance: case cl::Normalize:
      define(inst.result_id, float_geometric_via_double(ext, args, ext_name(ext)));
      return true;
    case cl::Fast_length: case cl::Fast_distance: case cl::Fast_normalize: {
      // The fast forms stay in float (half_sqrt / half_rsqrt accuracy is all they promise).
      if (args.empty() || (ext == cl::Fast_distance && args.size() < 2)) fail(ext_name(ext) + ": missing operands");
      std::vector<MOperand> x = args[0].parts;
      if (ext == cl::Fast_distance)
        for (size_t i = 0; i < x.size(); ++i) x[i] = MOperand::vreg(emit(Opcode::v_sub_f32, 32, args[0].parts[i], args[1].parts.at(i)));
      MOperand sum = MOperand::vreg(emit(Opcode::v_mul_f32, 32, x[0], x[0]));
      for (size_t i = 1; i < x.size(); ++i) sum = MOperand::vreg(emit(Opcode::v_mad_f32, 32, x[i], x[i], sum));
      if (ext == cl::Fast_normalize) {
        const MOperand inverse = MOperand::vreg(emit(Opcode::v_rsqrt_f32, 32, sum));
        for (const MOperand& c : x) r.parts.push_back(MOperand::vreg(emit(Opcode::v_mul_f32, 32, c, inverse)));
      } else {
        r.parts.push_back(MOperand::vreg(emit(Opcode::v_sqrt_f32, 32, sum)));
      }
      define(inst.result_id, std::move(r));
      return true;
    }
    case cl::Cross: {
      if (args.size() < 2 || args[0].parts.size() < 3 || args[1].parts.size() < 3) fail("cross needs two 3- or 4-vectors");
      const auto& x = args[0].parts;
      const auto& y = args[1].parts;
      for (int i = 0; i < 3; ++i) {
        const int j = (i + 1) % 3, k = (i + 2) % 3;
        const MOperand p = MOperand::vreg(emit(Opcode::v_mul_f32, 32, x[k], y[j]));
        r.parts.push_back(MOperand::vreg(emit(Opcode::v_sub_f32, 32, MOperand::vreg(emit(Opcode::v_mul_f32, 32, x[j], y[k])), p)));
      }
      if (n == 4) r.parts.push_back(MOperand::literal(0));
      define(inst.result_id, std::move(r));
      return true;
    }
    case cl::Fmod: case cl::Remainder: {
      if (args.size() < 2 || type(scalar).kind != TypeKind::kFloat || type(scalar).width != 32)
        fail(ext_name(ext) + ": only float is supported");
      for (uint32_t i = 0; i < n; ++i) {
        const MOperand x = args[0].parts.at(i), y = args[1].parts.size() == 1 ? args[1].parts[0] : args[1].parts.at(i);
        r.parts.push_back(ext == cl::Fmod ? exact_fmod(scalar, x, y) : exact_remainder(scalar, x, y));
      }
      define(inst.result_id, std::move(r));
      return true;
    }
    case cl::Lgamma_r: case cl::Remquo: {
      // Two results: the value, and an int per component stored through the last operand.
      const bool is_remquo = ext == cl::Remquo;
      if (args.size() < (is_remquo ? 3u : 2u)) fail(ext_name(ext) + ": missing operands");
      if (type(scalar).kind != TypeKind::kFloat || type(scalar).width != 32) fail(ext_name(ext) + ": only float is supported");
      const uint32_t pointer = inst.operands[is_remquo ? 4 : 3];
      Value ints;
      for (uint32_t i = 0; i < n; ++i) {
        const MOperand x = args[0].parts.at(i);
        if (!is_remquo) {
          // As lgamma (through the double math unit, lower_fp64.cc), with its sign.
          const MOperand wide = f64(Opcode::v_cvt_f64_f32, x);
          r.parts.push_back(MOperand::vreg(emit(Opcode::v_cvt_f32_f64, 32, f64_math(isa::MathF64::k_lgamma, wide),
                                                MOperand::literal(0))));
          ints.parts.push_back(low_half(f64_math(isa::MathF64::k_lgamma_sign, wide)));
          continue;
        }
        // remquo: reduce |x| modulo 128|y| exactly, take the quotient's seven low bits (OpenCL's n = 7,
        // which the CTS checks) off with exact subtractions of 64|y| ... |y|, then round to nearest
        // (ties to even) as remainder does. A 2^k|y| that overflows is above any finite remainder.
        FloatOps f{*this};
        const MOperand y = args[1].parts.size() == 1 ? args[1].parts[0] : args[1].parts.at(i);
        const MOperand ay = f.abs(y);
        MOperand rem = exact_fmod(scalar, f.abs(x), f.mul(ay, FloatOps::k(128.0f)));  // NaN where remquo is NaN
        MOperand q = MOperand::literal(0);
        for (int bit = 6; bit >= 0; --bit) {
          const MOperand step = f.mul(ay, FloatOps::k(float(1 << bit)));
          const MOperand take = f.ge(rem, step);
          rem = f.sel(take, f.sub(rem, step), rem);
          q = f.op(Opcode::v_or_b32, q, f.op(Opcode::v_shl_b32, take, MOperand::literal(static_cast<uint32_t>(bit))));
        }
        const MOperand twice = f.add(rem, rem);  // exact, or infinite and then above |y| anyway
        const MOperand up = f.op(Opcode::v_or_b32, f.op(Opcode::v_cmp_ogt_f32, twice, ay),
                                 f.op(Opcode::v_and_b32, f.op(Opcode::v_cmp_oeq_f32, twice, ay), f.op(Opcode::v_and_b32, q, MOperand::literal(1))));
        rem = f.sel(up, f.sub(rem, ay), rem);
        q = f.op(Opcode::v_and_b32, f.op(Opcode::v_add_u32, q, up), MOperand::literal(127));
        r.parts.push_back(f.op(Opcode::v_xor_b32, rem, f.op(Opcode::v_and_b32, x, MOperand::literal(0x80000000u))));
        const MOperand negative = f.op(Opcode::v_shr_u32, f.op(Opcode::v_xor_b32, x, y), MOperand::literal(31));
        ints.parts.push_back(f.sel(negative, f.op(Opcode::v_sub_u32, MOperand::literal(0), q), q));
      }
      const SpirvType& ptr = type(type_of(pointer));
      store(type_of(pointer), value(pointer).parts.at(0), ints, ptr.element, 0);
      define(inst.result_id, std::move(r));
      return true;
    }
    case cl::Frexp: {
      if (args.size() < 2) fail("frexp needs a value and a pointer");
      const uint32_t pointer = inst.operands[3];
      Value exponents;
      for (uint32_t i = 0; i < n; ++i) {
        const MOperand x = args[0].parts.at(i);
        auto op = [&](Opcode o, MOperand p, MOperand q = {}, MOperand s2 = {}) { return MOperand::vreg(emit(o, 32, p, q, s2)); };
        const MOperand denormal = op(Opcode::v_cmp_lt_u32, op(Opcode::v_and_b32, x, MOperand::literal(0x7fffffffu)), MOperand::literal(0x00800000u));
        const MOperand scaled = select(denormal, op(Opcode::v_mul_f32, x, MOperand::literal(0x4f800000u)), x, 32);
        const MOperand field = op(Opcode::v_bfe_u32, scaled, MOperand::literal(23), in_register(MOperand::literal(8), 32));
        const MOperand exponent = op(Opcode::v_sub_u32, field, select(denormal, MOperand::literal(126 + 32), MOperand::literal(126), 32));
        const MOperand mantissa = op(Opcode::v_or_b32, op(Opcode::v_and_b32, scaled, MOperand::literal(0x807fffffu)), MOperand::literal(0x3f000000u));
        // Zero, infinity and NaN come back unchanged with exponent 0.
        const MOperand special = op(Opcode::v_or_b32, op(Opcode::v_cmp_oeq_f32, x, MOperand::literal(0)),
                                    op(Opcode::v_cmp_eq_u32, field, MOperand::literal(255)));
        r.parts.push_back(select(special, x, mantissa, 32));
        exponents.parts.push_back(select(special, MOperand::literal(0), exponent, 32));
      }
      const SpirvType& ptr = type(type_of(pointer));
      store(type_of(pointer), value(pointer).parts.at(0), exponents, ptr.element, 0);
      define(inst.result_id, std::move(r));
      return true;
    }
    case cl::Fract: case cl::Modf: case cl::Sincos: {
      // Two results: one returned, one stored through the pointer operand.
      if (args.size() < 2) fail(ext_name(ext) + " needs a value and a pointer");
      const uint32_t pointer = inst.operands[3];
      Value stored;
      for (uint32_t i = 0; i < n; ++i) {
        const MOperand x = args[0].parts.at(i);
        if (ext == cl::Fract) {
          stored.parts.push_back(MOperand::vreg(emit(Opcode::v_floor_f32, 32, x)));
          r.parts.push_back(MOperand::vreg(emit(Opcode::v_fract_f32, 32, x)));
        } else if (ext == cl::Modf) {
          const MOperand whole = MOperand::vreg(emit(Opcode::v_trunc_f32, 32, x));
          stored.parts.push_back(whole);
          // x - trunc(x) is exact; infinities give +-0 with x's sign.
          const MOperand part = MOperand::vreg(emit(Opcode::v_sub_f32, 32, x, whole));
          const MOperand finite_part = select(MOperand::vreg(emit(Opcode::v_cmp_isinf_f32, 32, x)), MOperand::literal(0), part, 32);
          r.parts.push_back(MOperand::vreg(emit(Opcode::v_copysign_f32, 32, finite_part, x)));
        } else {
          stored.parts.push_back(MOperand::vreg(emit(Opcode::v_cos_f32, 32, x)));
          r.parts.push_back(MOperand::vreg(emit(Opcode::v_sin_f32, 32, x)));
        }
      }
      store(type_of(pointer), value(pointer).parts.at(0), stored, inst.result_type, 0);
      define(inst.result_id, std::move(r));
      return true;
    }
    case cl::Shuffle: case cl::Shuffle2: {
      const bool two = ext == cl::Shuffle2;
      if (args.size() < (two ? 3u : 2u)) fail(ext_name(ext) + ": missing operands");
      std::vector<MOperand> sources = args[0].parts;
      if (two) sources.insert(sources.end(), args[1].parts.begin(), args[1].parts.end());
      const Value& mask = args[two ? 2 : 1];
      const uint32_t mask_id = inst.operands[two ? 4 : 3];
      const bool wide_mask = int_width(scalar_of(type_of(mask_id))) == 64;
      const unsigned bits = reg_bits(scalar);
      // Only the low log2(2n) bits of each mask element count.
      const uint32_t index_mask = static_cast<uint32_t>(sources.size()) - 1;
      for (uint32_t i = 0; i < n; ++i) {
        const MOperand m = wide_mask ? low_half(mask.parts.at(i)) : mask.parts.at(i);
        const MOperand index = MOperand::vreg(emit(Opcode::v_and_b32, 32, m, MOperand::literal(index_mask)));
        MOperand picked = sources[0];
        for (uint32_t c = 1; c < sources.size(); ++c)
          picked = select(MOperand::vreg(emit(Opcode::v_cmp_eq_u32, 32, index, MOperand::literal(c))), sources[c], picked, bits);
        r.parts.push_back(picked);
      }
      define(inst.result_id, std::move(r));
      return true;
    }
    case cl::Bitselect: case cl::Select: {
      if (args.size() < 3) fail(ext_name(ext) + " needs three operands");
      const unsigned bits = reg_bits(scalar);
      for (uint32_t i = 0; i < n; ++i) {
        const MOperand x = args[0].parts.at(i), y = args[1].parts.at(i), c = args[2].parts.at(i);
        if (ext == cl::Bitselect) {
          const Opcode o_and = bits == 64 ? Opcode::v_and_b64 : Opcode::v_and_b32;
          const Opcode o_not = bits == 64 ? Opcode::v_not_b64 : Opcode::v_not_b32;
          const Opcode o_or = bits == 64 ? Opcode::v_or_b64 : Opcode::v_or_b32;
          const MOperand keep = MOperand::vreg(emit(o_and, bits, x, MOperand::vreg(emit(o_not, bits, c))));
          r.parts.push_back(MOperand::vreg(emit(o_or, bits, keep, MOperand::vreg(emit(o_and, bits, y, c)))));
        } else {
          // Scalar select tests c != 0; vector select tests c's most significant bit.
          const uint32_t cond_type = scalar_of(type_of(inst.operands[4]));
          const uint32_t cw = int_width(cond_type);
          MOperand test;
          if (n == 1) test = cw == 64 ? MOperand::vreg(emit(Opcode::v_cmp_ne_u64, 32, c, MOperand::literal(0)))
                                      : MOperand::vreg(emit(Opcode::v_cmp_ne_u32, 32, c, MOperand::literal(0)));
          else test = cw == 64 ? MOperand::vreg(emit(Opcode::v_shr_u32, 32, high_half(c), MOperand::literal(31)))
                               : MOperand::vreg(emit(Opcode::v_shr_u32, 32, c, MOperand::literal(cw - 1)));
          r.parts.push_back(select(test, y, x, bits));
        }
      }
      define(inst.result_id, std::move(r));
      return true;
    }
    default: break;
  }
  for (uint32_t i = 0; i < n; ++i) {
    std::vector<MOperand> per_component;
    for (const Value& a : args) {
      if (a.parts.empty()) fail(ext_name(ext) + ": an operand has no value");
      per_component.push_back(a.parts.size() == 1 ? a.parts[0] : a.parts.at(i));  // scalars broadcast
    }
    r.parts.push_back(opencl_math(ext, scalar, per_component));
  }
  define(inst.result_id, std::move(r));
  return true;
}

}  // namespace gsgpu::compiler
