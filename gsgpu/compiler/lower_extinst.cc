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

// Float operations that are one ISA instruction.
Opcode direct_float_op(uint32_t ext) {
  switch (ext) {
    case cl::Sqrt: case cl::Native_sqrt: case cl::Half_sqrt: return Opcode::v_sqrt_f32;
    case cl::Rsqrt: case cl::Native_rsqrt: case cl::Half_rsqrt: return Opcode::v_rsqrt_f32;
    case cl::Fabs: return Opcode::v_abs_f32;
    case cl::Floor: return Opcode::v_floor_f32;
    case cl::Ceil: return Opcode::v_ceil_f32;
    case cl::Trunc: return Opcode::v_trunc_f32;
    case cl::Rint: return Opcode::v_rndne_f32;
    case cl::Exp2: case cl::Native_exp2: case cl::Half_exp2: return Opcode::v_exp2_f32;
    case cl::Log2: case cl::Native_log2: case cl::Half_log2: return Opcode::v_log2_f32;
    case cl::Exp: case cl::Native_exp: case cl::Half_exp: return Opcode::v_exp_f32;
    case cl::Log: case cl::Native_log: case cl::Half_log: return Opcode::v_log_f32;
    case cl::Sin: case cl::Native_sin: case cl::Half_sin: return Opcode::v_sin_f32;
    case cl::Cos: case cl::Native_cos: case cl::Half_cos: return Opcode::v_cos_f32;
    case cl::Tan: case cl::Native_tan: case cl::Half_tan: return Opcode::v_tan_f32;
    case cl::Native_recip: case cl::Half_recip: return Opcode::v_rcp_f32;
    case cl::Pow: case cl::Powr: case cl::Native_powr: case cl::Half_powr: return Opcode::v_pow_f32;
    case cl::Atan2: return Opcode::v_atan2_f32;
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

// ---- Special functions (erf, erfc, tgamma, lgamma, rootn) ----
// Written with the public emission helpers only. Polynomials were fitted for this file by Chebyshev
// interpolation in long double (coefficients rounded to float, evaluated by Horner with fma); the
// comments give each fit's interval and its relative error before float rounding.
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
  // Horner with fma; coefficients from the highest degree down.
  MOperand poly(MOperand w, std::initializer_list<float> c) {
    auto it = c.begin();
    MOperand acc = k(*it++);
    for (; it != c.end(); ++it) acc = fma(acc, w, k(*it));
    return acc;
  }
  // Two or three polynomials of one degree in one Horner chain: each coefficient is selected first
  // (in_b picks b over a, in_c picks c over both).
  MOperand poly2(MOperand w, MOperand in_b, const float* a, const float* b, size_t n, MOperand in_c = {}, const float* c = nullptr) {
    auto coefficient = [&](size_t i) {
      MOperand v = sel(in_b, k(b[i]), k(a[i]));
      return c ? sel(in_c, k(c[i]), v) : v;
    };
    MOperand acc = coefficient(0);
    for (size_t i = 1; i < n; ++i) acc = fma(acc, w, coefficient(i));
    return acc;
  }
  // sin(pi x) with relative accuracy near the integers: x - rint(x) is exact.
  MOperand sinpi(MOperand x) {
    const MOperand n = op(Opcode::v_rndne_f32, x);
    const MOperand s = op(Opcode::v_sin_f32, mul(sub(x, n), k(3.14159265f)));
    const MOperand odd = op(Opcode::v_shl_b32, op(Opcode::v_cvt_i32_f32, n), MOperand::literal(31));
    return op(Opcode::v_xor_b32, s, odd);
  }
  MOperand is_negative_integer(MOperand x) {
    return op(Opcode::v_and_b32, lt(x, k(0.0f)), op(Opcode::v_cmp_oeq_f32, x, op(Opcode::v_floor_f32, x)));
  }

  // erfc(x) for x >= 0.5 (0 above 10.5, NaN for NaN): exp(-x^2) * g(x), g(x) = erfc(x) e^(x^2).
  MOperand erfc_tail(MOperand x) {
    // g on [0.5, 2) in (x - 1.25), rel. error 2.6e-9; [2, 4) in (x - 3), 4.4e-10;
    // x g(x) on [4, 10.5] as a polynomial in s = 1/x^2, 1.2e-15.
    static const float kLow[] = {6.318043597e-05f, -1.924501121e-04f, 4.686912871e-04f, -1.308697741e-03f, 3.554425901e-03f,
                                 -9.085889906e-03f, 2.201123163e-02f, -5.021784455e-02f, 1.067955717e-01f, -2.088218927e-01f,
                                 3.678229153e-01f};
    static const float kMid[] = {3.341543220e-07f, -1.433213697e-06f, 5.100322596e-06f, -2.078395664e-05f, 8.357456682e-05f,
                                 -3.242166131e-04f, 1.223035390e-03f, -4.479414783e-03f, 1.588437147e-02f, -5.437226221e-02f,
                                 1.790011525e-01f};
    static const float kHigh[] = {1.769625781e+04f, -9.364254883e+03f, 2.522437500e+03f, -4.950826416e+02f, 8.781153870e+01f,
                                  -1.655635452e+01f, 3.700468063e+00f, -1.057828784e+00f, 4.231419563e-01f, -2.820947766e-01f,
                                  5.641896129e-01f};
    const MOperand mid = ge(x, k(2.0f)), high = ge(x, k(4.0f));
    const MOperand x2 = mul(x, x);
    const MOperand w = sel(high, op(Opcode::v_rcp_f32, x2), sub(x, sel(mid, k(3.0f), k(1.25f))));
    MOperand g = poly2(w, mid, kLow, kMid, 11, high, kHigh);
    g = sel(high, div(g, x), g);
    // exp(-x^2) with x^2 = x2 + x2_low exactly: exp(-x2) * (1 - x2_low). Past x^2 = 32 the exponent is
    // shifted by 64 (64 - x2 is exact there) so that the product is formed before any underflow.
    const MOperand x2_low = fma(x, x, neg(x2));
    const MOperand far = ge(x2, k(32.0f));
    const MOperand e = exp(sel(far, sub(k(64.0f), x2), neg(x2)));
    MOperand r = mul(e, g);
    r = fma(neg(r), x2_low, r);
    r = sel(far, mul(r, k(1.603810939e-28f)), r);  // e^-64
    return sel(op(Opcode::v_cmp_ogt_f32, x, k(10.5f)), k(0.0f), r);
  }
  // erf(x) for |x| <= 1: x * P(x^2), P fitted on [0, 1] (rel. error 3.7e-11).
  MOperand erf_small(MOperand x) {
    return mul(x, poly(mul(x, x), {-9.667044651e-06f, 1.126595889e-04f, -8.484080317e-04f, 5.221031606e-03f, -2.686543018e-02f,
                                   1.128378212e-01f, -3.761263788e-01f, 1.128379226e+00f}));
  }
  MOperand erf(MOperand x) {
    const MOperand ax = abs(x);
    const MOperand big = op(Opcode::v_copysign_f32, sub(k(1.0f), erfc_tail(ax)), x);
    return sel(op(Opcode::v_cmp_ole_f32, ax, k(1.0f)), erf_small(x), big);
  }
  MOperand erfc(MOperand x) {
    const MOperand tail = erfc_tail(abs(x));
    const MOperand r = sel(lt(x, k(0.0f)), sub(k(2.0f), tail), tail);
    return sel(lt(abs(x), k(0.5f)), sub(k(1.0f), erf_small(x)), r);
  }

  // Gamma(y) for y in [1, 2): fitted in (y - 1.5), rel. error 7.6e-9.
  MOperand gamma_1_2(MOperand y) {
    return poly(sub(y, k(1.5f)), {1.586386561e-02f, -2.372913621e-02f, 2.468161844e-02f, -3.626931459e-02f, 5.874044821e-02f,
                                  -7.771812379e-02f, 1.446394622e-01f, -1.072859690e-01f, 4.148135185e-01f, 3.233828768e-02f,
                                  8.862269521e-01f});
  }
  // Gamma(v) for v in [-1, 8): Gamma(y) on [1, 2) times (v-1)...(v-m), or divided by v (and v + 1)
  // below 1. Every v - j is exact, so the error is the polynomial's plus one rounding per factor.
  MOperand gamma_shift(MOperand v) {
    const MOperand m = sub(op(Opcode::v_floor_f32, v), k(1.0f));  // -2 .. 6
    MOperand r = gamma_1_2(sub(v, m));
    for (int j = 1; j <= 6; ++j) r = mul(r, sel(ge(m, k(float(j))), sub(v, k(float(j))), k(1.0f)));
    const MOperand d1 = sel(lt(m, k(0.0f)), v, k(1.0f));
    const MOperand d2 = sel(lt(m, k(-1.0f)), add(v, k(1.0f)), k(1.0f));
    return div(r, mul(d1, d2));
  }
  // Stirling's series for t >= 8: S(t) = 1/(12t) - 1/(360t^3) + 1/(1260t^5) - 1/(1680t^7).
  MOperand stirling_series(MOperand t) {
    const MOperand z = op(Opcode::v_rcp_f32, t);
    return mul(z, poly(mul(z, z), {-1.0f / 1680, 1.0f / 1260, -1.0f / 360, 1.0f / 12}));
  }
  // Gamma(t) = h * h * e for t >= 8: h = t^((t - 0.5) / 2) (exact exponent), e = e^-t sqrt(2 pi) e^S.
  void stirling_gamma(MOperand t, MOperand* h, MOperand* e) {
    *h = op(Opcode::v_pow_f32, t, mul(sub(t, k(0.5f)), k(0.5f)));
    const MOperand s = stirling_series(t);
    const MOperand em1 = mul(s, poly(s, {1.0f / 6, 0.5f, 1.0f}));  // e^S - 1
    // sqrt(2 pi) as hi + lo
    const MOperand q = add(k(2.506628275f), fma(k(2.506628275f), em1, k(-2.866020476e-10f)));
    *e = mul(exp(neg(t)), q);
  }
  MOperand tgamma(MOperand x) {
    const MOperand reflect = lt(x, k(-1.0f));
    const MOperand v = sel(reflect, neg(x), x);
    const MOperand big = ge(v, k(8.0f));
    const MOperand small = gamma_shift(op(Opcode::v_min_f32, v, k(7.99999952f)));
    MOperand h, e;
    stirling_gamma(op(Opcode::v_max_f32, v, k(8.0f)), &h, &e);
    MOperand direct = sel(big, mul(mul(h, e), h), small);
    direct = sel(op(Opcode::v_cmp_ogt_f32, x, k(36.0f)), k(INFINITY), direct);
    // Gamma(x) = -pi / (x sin(pi x) Gamma(-x)) for x < -1.
    const MOperand c = div(k(-3.14159265f), mul(x, sinpi(x)));
    MOperand reflected = sel(big, div(div(div(c, e), h), h), div(c, small));
    reflected = sel(lt(x, k(-50.0f)), mul(c, k(0.0f)), reflected);
    MOperand r = sel(reflect, reflected, direct);
    r = sel(is_negative_integer(x), k(NAN), r);
    return sel(op(Opcode::v_cmp_isnan_f32, x), x, r);
  }

  // lgamma(t) for t >= 0 (not NaN). [1, 3): (t-1)(t-2) P(t) with P fitted on [1, 2) and [2, 3);
  // [3, 8): shifted down to [2, 3) plus the log of the factors; below 1: lgamma(t+1) - log(t);
  // from 8: Stirling.
  MOperand lgamma_positive(MOperand t) {
    static const float kP1[] = {9.349331376e-04f, -1.524485881e-03f, 1.863884972e-03f, -3.116982058e-03f, 5.453080405e-03f,
                                -9.436287917e-03f, 1.679679938e-02f, -3.130800650e-02f, 6.291140616e-02f, -1.459598988e-01f,
                                4.831289649e-01f};  // [1, 2) in (y - 1.5), rel. error 6.9e-10
    static const float kP2[] = {4.328513114e-06f, -1.174857516e-05f, 2.919780309e-05f, -8.103041182e-05f, 2.290648408e-04f,
                                -6.586697418e-04f, 1.949056983e-03f, -6.018767133e-03f, 1.990515366e-02f, -7.466357201e-02f,
                                3.795771599e-01f};  // [2, 3) in (y - 2.5), rel. error 2.2e-12
    const MOperand u = op(Opcode::v_min_f32, t, k(7.99999952f));
    const MOperand below_one = lt(u, k(1.0f));
    const MOperand m = op(Opcode::v_max_f32, sub(op(Opcode::v_floor_f32, u), k(2.0f)), k(0.0f));  // 0 .. 5
    const MOperand y = sel(below_one, add(u, k(1.0f)), sub(u, m));
    const MOperand upper = ge(y, k(2.0f));
    const MOperand p = poly2(sub(y, sel(upper, k(2.5f), k(1.5f))), upper, kP1, kP2, 11);
    const MOperand f1 = sel(below_one, u, sub(y, k(1.0f)));
    const MOperand f2 = sel(below_one, sub(u, k(1.0f)), sub(y, k(2.0f)));
    MOperand product = k(1.0f);
    for (int j = 1; j <= 5; ++j) product = mul(product, sel(ge(m, k(float(j))), sub(u, k(float(j))), k(1.0f)));
    const MOperand correction = sel(below_one, neg(log(u)), log(product));
    const MOperand near = fma(mul(f1, f2), p, correction);
    // (t - 0.5)(log t - 1) + (log(2 pi) - 1) / 2 + S(t)
    const MOperand w = op(Opcode::v_max_f32, t, k(8.0f));
    const MOperand far = fma(sub(w, k(0.5f)), sub(log(w), k(1.0f)), add(k(4.189385474e-01f), stirling_series(w)));
    return sel(ge(t, k(8.0f)), far, near);
  }
  // lgamma(x); *sign gets the sign of Gamma(x) (+1 or -1, as an int).
  MOperand lgamma(MOperand x, MOperand* sign) {
    const MOperand ax = abs(x);
    const MOperand positive = lgamma_positive(ax);
    // x < -1 (and at most -1 for the poles): log(pi / |x sin(pi x)|) - lgamma(-x).
    const MOperand s = sinpi(x);
    const MOperand reflected = sub(log(div(k(3.14159265f), abs(mul(x, s)))), positive);
    // -1 < x < 0: lgamma(x + 2) - log(x + 1) - log(-x), lgamma(x + 2) = x (x + 1) P1(x + 2).
    MOperand between = lgamma_positive(add(x, k(2.0f)));  // x + 2 in (1, 2)
    between = sub(sub(between, log(add(x, k(1.0f)))), log(ax));
    MOperand r = sel(lt(x, k(0.0f)), sel(lt(x, k(-1.0f)), reflected, between), positive);
    r = sel(is_negative_integer(x), k(INFINITY), r);
    r = sel(op(Opcode::v_cmp_isnan_f32, x), x, r);
    if (sign) {
      // Negative where x < 0 and sin(pi x) < 0 (-1 < x < 0 included), and for -0.
      const MOperand negative = op(Opcode::v_or_b32, op(Opcode::v_and_b32, lt(x, k(0.0f)), lt(s, k(0.0f))),
                                   op(Opcode::v_cmp_eq_u32, x, MOperand::literal(0x80000000u)));
      *sign = l.select(op(Opcode::v_and_b32, negative, op(Opcode::v_xor_b32, is_negative_integer(x), MOperand::literal(1))),
                       MOperand::literal(0xffffffffu), MOperand::literal(1), 32);
    }
    return r;
  }
};

// rootn(x, n) = x^(1/n): pow with the rounded 1/n, then one Newton step on r^n = |x| (1/n's rounding
// would otherwise cost up to |log x| / n ulp for small n). Odd n keeps x's sign; even n of a negative x and n = 0
// are NaN.
MOperand rootn(Lowering& l, MOperand x, MOperand n) {
  FloatOps f{l};
  const MOperand nf = f.op(Opcode::v_cvt_f32_i32, n);
  const MOperand ax = f.abs(x);
  const MOperand r0 = f.op(Opcode::v_pow_f32, ax, f.op(Opcode::v_rcp_f32, nf));
  const MOperand pn = f.op(Opcode::v_pow_f32, r0, nf);
  const MOperand q = f.div(f.sub(pn, ax), ax);  // r0^n / |x| - 1; pn - |x| is exact
  const MOperand normal = f.op(Opcode::v_and_b32,
                               f.op(Opcode::v_and_b32, f.ge(pn, FloatOps::k(1.17549435e-38f)), f.lt(pn, FloatOps::k(INFINITY))),
                               f.op(Opcode::v_and_b32, f.ge(ax, FloatOps::k(1.17549435e-38f)), f.lt(ax, FloatOps::k(INFINITY))));
  // Only where r0^n is close to |x| (a large n amplifies r0's own rounding beyond a correction).
  const MOperand close = f.op(Opcode::v_and_b32, normal, f.lt(f.abs(q), FloatOps::k(0x1p-10f)));
  MOperand r = f.sel(close, f.fma(f.neg(r0), f.div(q, nf), r0), r0);
  r = f.op(Opcode::v_or_b32, r, f.op(Opcode::v_and_b32, x, f.op(Opcode::v_shl_b32, n, MOperand::literal(31))));
  const MOperand even = f.op(Opcode::v_xor_b32, f.op(Opcode::v_and_b32, n, MOperand::literal(1)), MOperand::literal(1));
  const MOperand invalid = f.op(Opcode::v_or_b32, f.op(Opcode::v_cmp_eq_u32, n, MOperand::literal(0)),
                                f.op(Opcode::v_and_b32, even, f.lt(x, FloatOps::k(0.0f))));
  return f.sel(invalid, FloatOps::k(NAN), r);
}

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
      case cl::Exp10: case cl::Native_exp10: case cl::Half_exp10:
        need(1);
        return op(Opcode::v_exp2_f32, op(Opcode::v_mul_f32, a[0], MOperand::literal(0x40549a78u)));  // log2(10)
      case cl::Log10: case cl::Native_log10: case cl::Half_log10:
        need(1);
        return op(Opcode::v_mul_f32, op(Opcode::v_log2_f32, a[0]), MOperand::literal(0x3e9a209bu));  // log10(2)
      case cl::Pown: {
        need(2);
        // |x|^n, negated for a negative x and an odd n (float(n) can round an odd n to an even one).
        const MOperand magnitude = op(Opcode::v_pow_f32, op(Opcode::v_abs_f32, a[0]), op(Opcode::v_cvt_f32_i32, a[1]));
        return op(Opcode::v_or_b32, magnitude, op(Opcode::v_and_b32, a[0], op(Opcode::v_shl_b32, a[1], MOperand::literal(31))));
      }
      case cl::Rootn: need(2); return rootn(*this, a[0], a[1]);
      case cl::Erf: need(1); return FloatOps{*this}.erf(a[0]);
      case cl::Erfc: need(1); return FloatOps{*this}.erfc(a[0]);
      case cl::Tgamma: need(1); return FloatOps{*this}.tgamma(a[0]);
      case cl::Lgamma: need(1); return FloatOps{*this}.lgamma(a[0], nullptr);
      case cl::Atan: need(1); return op(Opcode::v_atan2_f32, a[0], MOperand::literal(kOne));
      case cl::Asin: case cl::Acos: {
        need(1);
        const MOperand root = op(Opcode::v_sqrt_f32, op(Opcode::v_sub_f32, MOperand::literal(kOne), op(Opcode::v_mul_f32, a[0], a[0])));
        return ext == cl::Asin ? op(Opcode::v_atan2_f32, a[0], root) : op(Opcode::v_atan2_f32, root, a[0]);
      }
      case cl::Hypot: need(2); return op(Opcode::v_sqrt_f32, op(Opcode::v_mad_f32, a[0], a[0], op(Opcode::v_mul_f32, a[1], a[1])));
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
      case cl::Cbrt: {
        need(1);
        const MOperand root = op(Opcode::v_pow_f32, op(Opcode::v_abs_f32, a[0]), MOperand::literal(0x3eaaaaabu));  // 1/3
        return op(Opcode::v_copysign_f32, root, a[0]);
      }
      case cl::Sinh: case cl::Cosh: case cl::Tanh: {
        need(1);
        const MOperand e = op(Opcode::v_exp_f32, a[0]);
        const MOperand inv = op(Opcode::v_rcp_f32, e);
        const MOperand cosh = op(Opcode::v_mul_f32, op(Opcode::v_add_f32, e, inv), MOperand::literal(kHalf));
        if (ext == cl::Cosh) return cosh;
        // Small |x|: the series x + x^3/6 + x^5/120 + x^7/5040 avoids the cancellation in e^x - e^-x.
        const MOperand x2 = op(Opcode::v_mul_f32, a[0], a[0]);
        MOperand series = op(Opcode::v_mad_f32, x2, MOperand::literal(0x39500d01u), MOperand::literal(0x3c088889u));  // 1/5040, 1/120
        series = op(Opcode::v_mad_f32, series, x2, MOperand::literal(0x3e2aaaabu));  // 1/6
        series = op(Opcode::v_mad_f32, op(Opcode::v_mul_f32, series, x2), a[0], a[0]);
        const MOperand wide = op(Opcode::v_mul_f32, op(Opcode::v_sub_f32, e, inv), MOperand::literal(kHalf));
        const MOperand small = op(Opcode::v_cmp_olt_f32, op(Opcode::v_abs_f32, a[0]), MOperand::literal(kHalf));
        const MOperand sinh = select(small, series, wide, 32);
        if (ext == cl::Sinh) return sinh;
        const MOperand ratio = op(Opcode::v_div_f32, sinh, cosh);
        const MOperand saturated = op(Opcode::v_cmp_ogt_f32, op(Opcode::v_abs_f32, a[0]), MOperand::literal(0x41200000u));  // 10
        return select(saturated, op(Opcode::v_copysign_f32, MOperand::literal(kOne), a[0]), ratio, 32);
      }
      case cl::Asinpi: case cl::Acospi: case cl::Atanpi: case cl::Atan2pi: {
        const uint32_t base = ext == cl::Asinpi ? cl::Asin : ext == cl::Acospi ? cl::Acos : ext == cl::Atanpi ? cl::Atan : cl::Atan2;
        return op(Opcode::v_mul_f32, opencl_math(base, scalar, a), MOperand::literal(0x3ea2f983u));  // 1/pi
      }
      case cl::Sinpi: case cl::Cospi: case cl::Tanpi: {
        need(1);
        // Reduce to [-1, 1] exactly (x - 2 * rint(x / 2)) before multiplying by pi.
        const MOperand reduced = op(Opcode::v_sub_f32, a[0],
                                    op(Opcode::v_mul_f32, op(Opcode::v_rndne_f32, op(Opcode::v_mul_f32, a[0], MOperand::literal(kHalf))),
                                       MOperand::literal(0x40000000u)));
        const MOperand angle = op(Opcode::v_mul_f32, reduced, MOperand::literal(0x40490fdbu));  // pi
        const Opcode trig = ext == cl::Sinpi ? Opcode::v_sin_f32 : ext == cl::Cospi ? Opcode::v_cos_f32 : Opcode::v_tan_f32;
        MOperand r = op(trig, angle);
        // Exact zeros where the function has them: sinpi(n) = +-0, cospi(n + 0.5) = 0.
        if (ext == cl::Sinpi || ext == cl::Tanpi)
          r = select(op(Opcode::v_cmp_oeq_f32, reduced, op(Opcode::v_trunc_f32, reduced)), op(Opcode::v_copysign_f32, MOperand::literal(0), a[0]), r, 32);
        if (ext == cl::Cospi)
          r = select(op(Opcode::v_cmp_oeq_f32, op(Opcode::v_abs_f32, reduced), MOperand::literal(kHalf)), MOperand::literal(0), r, 32);
        return r;
      }
      case cl::Asinh: case cl::Acosh: case cl::Atanh: {
        need(1);
        const MOperand ax = op(Opcode::v_abs_f32, a[0]);
        const MOperand x2 = op(Opcode::v_mul_f32, a[0], a[0]);
        if (ext == cl::Acosh)
          return op(Opcode::v_log_f32, op(Opcode::v_add_f32, a[0], op(Opcode::v_sqrt_f32, op(Opcode::v_sub_f32, x2, MOperand::literal(kOne)))));
        MOperand big, series;
        if (ext == cl::Asinh) {
          big = op(Opcode::v_copysign_f32, op(Opcode::v_log_f32, op(Opcode::v_add_f32, ax, op(Opcode::v_sqrt_f32, op(Opcode::v_add_f32, x2, MOperand::literal(kOne))))), a[0]);
          series = op(Opcode::v_mad_f32, op(Opcode::v_mul_f32, x2, MOperand::literal(0xbe2aaaabu)), a[0], a[0]);  // x - x^3/6
        } else {
          big = op(Opcode::v_mul_f32, op(Opcode::v_log_f32, op(Opcode::v_div_f32, op(Opcode::v_add_f32, MOperand::literal(kOne), a[0]),
                                                                   op(Opcode::v_sub_f32, MOperand::literal(kOne), a[0]))), MOperand::literal(kHalf));
          series = op(Opcode::v_mad_f32, op(Opcode::v_mad_f32, x2, MOperand::literal(0x3e4ccccdu), MOperand::literal(0x3eaaaaabu)),  // 1/5, 1/3
                      op(Opcode::v_mul_f32, x2, a[0]), a[0]);
        }
        return select(op(Opcode::v_cmp_olt_f32, ax, MOperand::literal(0x3c800000u)), series, big, 32);  // |x| < 2^-6
      }
      case cl::Expm1: case cl::Log1p: {
        need(1);
        const MOperand x = a[0];
        MOperand series, big;
        if (ext == cl::Expm1) {
          // x + x^2/2 + x^3/6 + x^4/24
          series = op(Opcode::v_mad_f32, x, MOperand::literal(0x3d2aaaabu), MOperand::literal(0x3e2aaaabu));
          series = op(Opcode::v_mad_f32, series, x, MOperand::literal(kHalf));
          series = op(Opcode::v_mad_f32, op(Opcode::v_mul_f32, series, x), x, x);
          big = op(Opcode::v_sub_f32, op(Opcode::v_exp_f32, x), MOperand::literal(kOne));
        } else {
          // x - x^2/2 + x^3/3 - x^4/4
          series = op(Opcode::v_mad_f32, x, MOperand::literal(0xbe800000u), MOperand::literal(0x3eaaaaabu));
          series = op(Opcode::v_mad_f32, series, x, MOperand::literal(0xbf000000u));
          series = op(Opcode::v_mad_f32, op(Opcode::v_mul_f32, series, x), x, x);
          big = op(Opcode::v_log_f32, op(Opcode::v_add_f32, x, MOperand::literal(kOne)));
        }
        return select(op(Opcode::v_cmp_olt_f32, op(Opcode::v_abs_f32, x), MOperand::literal(0x3c800000u)), series, big, 32);
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
  if (name == m_.ext_inst_sets.end() || name->second != "OpenCL.std")
    fail("extended instruction " + std::to_string(ext) + " from a set other than OpenCL.std");
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
    case cl::Length: case cl::Fast_length: case cl::Distance: case cl::Fast_distance: case cl::Normalize:
    case cl::Fast_normalize: {
      if (args.empty() || ((ext == cl::Distance || ext == cl::Fast_distance) && args.size() < 2)) fail(ext_name(ext) + ": missing operands");
      std::vector<MOperand> x = args[0].parts;
      if (ext == cl::Distance || ext == cl::Fast_distance)
        for (size_t i = 0; i < x.size(); ++i) x[i] = MOperand::vreg(emit(Opcode::v_sub_f32, 32, args[0].parts[i], args[1].parts.at(i)));
      MOperand sum = MOperand::vreg(emit(Opcode::v_mul_f32, 32, x[0], x[0]));
      for (size_t i = 1; i < x.size(); ++i) sum = MOperand::vreg(emit(Opcode::v_mad_f32, 32, x[i], x[i], sum));
      if (ext == cl::Normalize || ext == cl::Fast_normalize) {
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
