// OpenCL.std special functions compiled for gsgpu (float_via_double in lower_fp64.cc, lower_extinst.cc):
// erf, erfc, tgamma, lgamma, lgamma_r, pown, rootn, remquo (7 quotient bits) and 64-bit mad_sat, run on the
// shader cores over many inputs (edge cases included) and compared with the C++ library in double (or exact
// integer references).
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tests/gsgpu/compiler/cl_harness.h"

namespace gsgpu::compiler::testing {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

// |got - ref| in units of the float ulp at ref (denormal spacing below FLT_MIN). NaN must match NaN;
// a reference beyond the float range must give the infinity it rounds to.
double ulp_error(float got, double ref) {
  if (std::isnan(ref)) return std::isnan(got) ? 0 : INFINITY;
  if (std::isnan(got)) return INFINITY;
  const float rounded = static_cast<float>(ref);
  if (std::isinf(rounded) || std::isinf(got)) return got == rounded ? 0 : INFINITY;
  if (got == ref) return 0;
  int e = 0;
  std::frexp(ref, &e);
  const double ulp = std::ldexp(1.0, std::max(e - 24, -149));
  return std::fabs(static_cast<double>(got) - ref) / ulp;
}

std::vector<float> sweep(float lo, float hi, int count) {
  std::vector<float> v;
  for (int i = 0; i <= count; ++i) v.push_back(lo + (hi - lo) * static_cast<float>(i) / static_cast<float>(count));
  return v;
}

// Both signs of 10^(e/step) for e in [lo, hi].
std::vector<float> decades(int lo, int hi, int per_decade) {
  std::vector<float> v;
  for (int e = lo * per_decade; e <= hi * per_decade; ++e) {
    const float x = static_cast<float>(std::pow(10.0, static_cast<double>(e) / per_decade));
    v.push_back(x);
    v.push_back(-x);
  }
  return v;
}

std::vector<float> specials() {
  return {0.0f, -0.0f, kInf, -kInf, kNan, 1.0f, -1.0f, 0.5f, -0.5f, 2.0f, -2.0f, std::numeric_limits<float>::min(),
          std::numeric_limits<float>::denorm_min(), -std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::max(),
          -std::numeric_limits<float>::max(), 1e-15f, 1e-30f, -1e-30f};
}

// Runs `float name(float)` elementwise over the inputs.
std::vector<float> run_unary(const std::string& fn, const std::vector<float>& in) {
  ClRunner cl;
  const std::string source = "kernel void k(global float* out, global const float* in) {\n"
                             "  size_t i = get_global_id(0);\n  out[i] = " + fn + "(in[i]);\n}\n";
  if (!cl.build(source)) return {};
  std::vector<float> padded = in;
  while (padded.size() % 64) padded.push_back(1.0f);
  const uint64_t vin = cl.memory.upload(padded);
  const uint64_t vout = cl.memory.upload(std::vector<float>(padded.size(), -7.0f));
  cl.run_ok("k", {Arg::buffer(vout), Arg::buffer(vin)}, NDRange::linear(static_cast<uint32_t>(padded.size()), 64));
  auto out = cl.memory.download<float>(vout, padded.size());
  out.resize(in.size());
  return out;
}

struct Worst {
  double ulps = 0;
  float x = 0;
  float got = 0;
  double ref = 0;
  void note(double u, float in, float g, double r) {
    if (u > ulps || std::isnan(u)) *this = Worst{u, in, g, r};
  }
};

void expect_within(const char* name, const Worst& w, double bound) {
  EXPECT_LE(w.ulps, bound) << name << "(" << w.x << ") = " << w.got << ", reference " << w.ref;
  std::printf("%s: worst %.2f ulp at %.9g\n", name, w.ulps, w.x);
}

TEST(SpecialFunctions, ErfAndErfcWithin16Ulp) {
  GSGPU_REQUIRE_FRONT_END();
  std::vector<float> in = sweep(-11.0f, 11.0f, 22000);
  for (float x : decades(-38, 1, 20)) in.push_back(x);
  for (float x : specials()) in.push_back(x);
  for (float x : {0.5f, 0.49999997f, 1.0f, 1.0000001f, 2.0f, 1.9999999f, 4.0f, 3.9999998f, 10.0f, 10.05f, 10.1f, 10.5f, 10.6f,
                  5.656854f, 5.6568546f, 9.3f, 9.2f})
    in.insert(in.end(), {x, -x});
  const std::vector<float> e = run_unary("erf", in), c = run_unary("erfc", in);
  ASSERT_EQ(e.size(), in.size());
  ASSERT_EQ(c.size(), in.size());
  Worst we, wc;
  for (size_t i = 0; i < in.size(); ++i) {
    const double x = in[i];
    we.note(ulp_error(e[i], std::erf(x)), in[i], e[i], std::erf(x));
    wc.note(ulp_error(c[i], std::erfc(x)), in[i], c[i], std::erfc(x));
  }
  expect_within("erf", we, 4);
  expect_within("erfc", wc, 6);
  // Signs and limits exactly.
  const std::vector<float> es = run_unary("erf", {-0.0f, kInf, -kInf}), cs = run_unary("erfc", {kInf, -kInf});
  EXPECT_TRUE(std::signbit(es[0]));  // erf(-0) = -0
  EXPECT_EQ(es[1], 1.0f);
  EXPECT_EQ(es[2], -1.0f);
  EXPECT_EQ(cs[0], 0.0f);
  EXPECT_EQ(cs[1], 2.0f);
}

TEST(SpecialFunctions, TgammaWithin16Ulp) {
  GSGPU_REQUIRE_FRONT_END();
  std::vector<float> in = sweep(-45.0f, 40.0f, 34000);
  for (float x : decades(-38, 1, 20)) in.push_back(x);
  for (float x : specials()) in.push_back(x);
  // Next to the poles, the branch points (1, 2, 8) and the overflow threshold.
  for (int k = 1; k <= 44; ++k) {
    const float p = static_cast<float>(-k);
    in.insert(in.end(), {std::nextafter(p, 0.0f), std::nextafter(p, -100.0f), p + 1e-3f, p - 1e-3f, p + 0.5f});
  }
  for (float x : {1.0f, 0.99999994f, 2.0f, 1.9999999f, 7.9999995f, 8.0f, 35.0f, 35.04f, 34.9f, -1.0000001f, -0.99999994f})
    in.push_back(x);
  const std::vector<float> g = run_unary("tgamma", in);
  ASSERT_EQ(g.size(), in.size());
  Worst w;
  for (size_t i = 0; i < in.size(); ++i) {
    const double x = in[i];
    // Within a few ulp of FLT_MAX the rounding to infinity is not meaningful.
    if (std::fabs(std::tgamma(x)) > 3.35e38 && std::fabs(std::tgamma(x)) < 3.45e38) continue;
    const double ref = (x < 0 && x == std::floor(x)) ? NAN : std::tgamma(x);
    w.note(ulp_error(g[i], ref), in[i], g[i], ref);
  }
  expect_within("tgamma", w, 16);
  const std::vector<float> s = run_unary("tgamma", {0.0f, -0.0f, kInf, -kInf, -3.0f, 1e-15f});
  EXPECT_EQ(s[0], kInf);
  EXPECT_EQ(s[1], -kInf);
  EXPECT_EQ(s[2], kInf);
  EXPECT_TRUE(std::isnan(s[3]));
  EXPECT_TRUE(std::isnan(s[4]));
  EXPECT_NEAR(s[5], 1e15f, 1e15f * 2e-7f);
}

// lgamma's ulp bound is not specified by OpenCL 1.2; where the result is not near one of lgamma's
// zeros (1, 2, and on the negative axis where |Gamma| = 1) the relative error is held to 16 ulp, and
// near those zeros the absolute error to 16 ulp of 1.
double lgamma_error(float got, double ref) {
  const double u = ulp_error(got, ref);
  if (std::isnan(got) || std::isinf(got) || std::isinf(ref)) return u;
  return std::min(u, std::fabs(got - ref) / std::ldexp(1.0, -24));
}

TEST(SpecialFunctions, LgammaAndLgammaR) {
  GSGPU_REQUIRE_FRONT_END();
  std::vector<float> in = sweep(-40.0f, 40.0f, 32000);
  for (float x : decades(-38, 38, 10)) in.push_back(x);
  for (float x : specials()) in.push_back(x);
  for (float x : {1.0f, 2.0f, 0.99999994f, 1.0000001f, 1.9999999f, 2.0000002f, 3.0f, 7.9999995f, 8.0f, 4e36f, 4.1e36f, -0.99999994f,
                  -1.0000001f, -2.4570247f, -2.7476826f})
    in.push_back(x);
  ClRunner cl;
  ASSERT_TRUE(cl.build(R"(
    kernel void k(global float* out, global int* sign, global const float* in) {
      size_t i = get_global_id(0);
      int s;
      out[i] = lgamma_r(in[i], &s);
      sign[i] = s;
    })"));
  while (in.size() % 64) in.push_back(3.0f);
  const uint64_t vin = cl.memory.upload(in), vout = cl.memory.upload(std::vector<float>(in.size())),
                 vsign = cl.memory.upload(std::vector<int32_t>(in.size(), 7));
  cl.run_ok("k", {Arg::buffer(vout), Arg::buffer(vsign), Arg::buffer(vin)}, NDRange::linear(static_cast<uint32_t>(in.size()), 64));
  const auto out = cl.memory.download<float>(vout, in.size());
  const auto sign = cl.memory.download<int32_t>(vsign, in.size());
  const std::vector<float> plain = run_unary("lgamma", in);
  ASSERT_EQ(plain.size(), in.size());
  Worst w;
  int sign_errors = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const double x = in[i];
    int ref_sign = 1;
    const double ref = lgamma_r(x, &ref_sign);
    w.note(lgamma_error(out[i], ref), in[i], out[i], ref);
    EXPECT_TRUE(out[i] == plain[i] || (std::isnan(out[i]) && std::isnan(plain[i]))) << in[i];
    const bool pole = x <= 0 && x == std::floor(x) && x != 0;
    if (!pole && !std::isnan(x) && sign[i] != ref_sign && ++sign_errors < 10) ADD_FAILURE() << "sign of Gamma(" << in[i] << "): " << sign[i];
  }
  expect_within("lgamma", w, 16);
}

TEST(SpecialFunctions, PownAndRootn) {
  GSGPU_REQUIRE_FRONT_END();
  std::vector<float> xs;
  std::vector<int32_t> ns;
  std::mt19937 rng(5);
  const std::vector<float> bases = {-kInf, -1e30f, -3.3f, -1.0f, -0.5f, -1e-30f, -0.0f, 0.0f, 1e-30f, 0.5f, 1.0f, 1.5f, 10.0f, 1234.0f,
                                    1e30f, kInf, kNan, 3.4e38f, 1.2e-38f, 1e-45f};
  const std::vector<int32_t> exps = {0, 1, -1, 2, -2, 3, -3, 4, 5, 7, -7, 10, 31, -32, 100, 1000, 2147483647, -2147483647 - 1, 16777217};
  for (float x : bases)
    for (int32_t n : exps) xs.push_back(x), ns.push_back(n);
  std::uniform_real_distribution<float> mag(-40.0f, 40.0f);
  std::uniform_int_distribution<int32_t> small(-40, 40);
  for (int i = 0; i < 6000; ++i) {
    const float x = std::pow(10.0f, mag(rng) / 10.0f) * (i % 2 ? -1.0f : 1.0f);
    xs.push_back(x);
    ns.push_back(small(rng));
  }
  while (xs.size() % 64) xs.push_back(2.0f), ns.push_back(2);
  ClRunner cl;
  ASSERT_TRUE(cl.build(R"(
    kernel void k(global float* p, global float* r, global const float* x, global const int* n) {
      size_t i = get_global_id(0);
      p[i] = pown(x[i], n[i]);
      r[i] = rootn(x[i], n[i]);
    })"));
  const uint64_t vx = cl.memory.upload(xs), vn = cl.memory.upload(ns), vp = cl.memory.upload(std::vector<float>(xs.size())),
                 vr = cl.memory.upload(std::vector<float>(xs.size()));
  cl.run_ok("k", {Arg::buffer(vp), Arg::buffer(vr), Arg::buffer(vx), Arg::buffer(vn)}, NDRange::linear(static_cast<uint32_t>(xs.size()), 64));
  const auto p = cl.memory.download<float>(vp, xs.size()), r = cl.memory.download<float>(vr, xs.size());
  Worst wp, wr;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double x = xs[i];
    const int32_t n = ns[i];
    const double pref = std::pow(x, static_cast<double>(n));  // exact n; double rounding is far below a float ulp
    wp.note(ulp_error(p[i], pref), xs[i], p[i], pref);
    double rref;
    if (n == 0 || (x < 0 && n % 2 == 0) || std::isnan(x)) rref = NAN;
    else rref = std::copysign(std::pow(std::fabs(x), 1.0 / n), n % 2 ? x : 1.0);
    wr.note(ulp_error(r[i], rref), xs[i], r[i], rref);
    if (ulp_error(r[i], rref) > 16) ADD_FAILURE() << "rootn(" << xs[i] << ", " << n << ") = " << r[i] << ", reference " << rref;
    if (ulp_error(p[i], pref) > 16) ADD_FAILURE() << "pown(" << xs[i] << ", " << n << ") = " << p[i] << ", reference " << pref;
  }
  expect_within("pown", wp, 16);
  expect_within("rootn", wr, 16);
}

TEST(SpecialFunctions, RemquoIsExactWithTheQuotientsLowBits) {
  GSGPU_REQUIRE_FRONT_END();
  std::vector<float> xs, ys;
  const std::vector<float> edge = {0.0f, -0.0f, 1.0f, -1.0f, 5.1f, -5.1f, 3.0f, 1.5f, 2.5f, 0.75f, 1e-45f, 1e-40f, 1.2e-38f, 3.4e38f,
                                   -3.4e38f, 1e30f, 7.0f, 8.0f, 9.0f, kInf, -kInf, kNan};
  for (float x : edge)
    for (float y : edge) xs.push_back(x), ys.push_back(y);
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> mag(-30.0f, 30.0f);
  for (int i = 0; i < 4000; ++i) {
    xs.push_back(std::pow(2.0f, mag(rng)) * (i & 1 ? -1.0f : 1.0f));
    ys.push_back(std::pow(2.0f, mag(rng) / 3.0f) * (i & 2 ? -1.0f : 1.0f));
  }
  for (int i = -20; i <= 20; ++i) xs.push_back(static_cast<float>(i) * 0.5f), ys.push_back(1.0f);  // ties
  while (xs.size() % 64) xs.push_back(1.0f), ys.push_back(1.0f);
  ClRunner cl;
  ASSERT_TRUE(cl.build(R"(
    kernel void k(global float* r, global int* q, global const float* x, global const float* y) {
      size_t i = get_global_id(0);
      int quo;
      r[i] = remquo(x[i], y[i], &quo);
      q[i] = quo;
    })"));
  const uint64_t vx = cl.memory.upload(xs), vy = cl.memory.upload(ys), vr = cl.memory.upload(std::vector<float>(xs.size())),
                 vq = cl.memory.upload(std::vector<int32_t>(xs.size(), 99));
  cl.run_ok("k", {Arg::buffer(vr), Arg::buffer(vq), Arg::buffer(vx), Arg::buffer(vy)}, NDRange::linear(static_cast<uint32_t>(xs.size()), 64));
  const auto r = cl.memory.download<float>(vr, xs.size());
  const auto q = cl.memory.download<int32_t>(vq, xs.size());
  int errors = 0;
  for (size_t i = 0; i < xs.size() && errors < 20; ++i) {
    int ref_q = 0;
    const float ref = std::remquo(xs[i], ys[i], &ref_q);
    const bool same = std::isnan(ref) ? std::isnan(r[i]) : (r[i] == ref && std::signbit(r[i]) == std::signbit(ref));
    // Quotient: x/y's sign and the low seven bits (OpenCL's n = 7; glibc's remquo gives only three,
    // so the reference takes |x| modulo 128|y| and rounds the small quotient left, all exact in double).
    const double ax = std::fabs(double{xs[i]}), ay = std::fabs(double{ys[i]});
    const double reduced = std::fmod(ax, 128.0 * ay);
    const int low7 = static_cast<int>(std::rint((reduced - std::remainder(reduced, ay)) / ay)) & 127;
    const bool q_ok = std::isnan(ref) || ((std::abs(q[i]) == low7) && (q[i] == 0 || (q[i] < 0) == (std::signbit(xs[i]) != std::signbit(ys[i]))) &&
                             std::abs(q[i]) < 128);
    if (!same || !q_ok) {
      ++errors;
      ADD_FAILURE() << "remquo(" << xs[i] << ", " << ys[i] << ") = " << r[i] << ", " << q[i] << "; reference " << ref << ", " << ref_q;
    }
  }
}

TEST(SpecialFunctions, MadSat64IsExact) {
  GSGPU_REQUIRE_FRONT_END();
  std::vector<int64_t> a, b, c;
  const std::vector<int64_t> edge = {0, 1, -1, 2, -2, 3, INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1, 1ll << 32, -(1ll << 32),
                                     (1ll << 31) + 7, 3037000499ll, 3037000500ll, -3037000500ll, 0x5555555555555555ll};
  for (int64_t x : edge)
    for (int64_t y : edge)
      for (int64_t z : {int64_t{0}, int64_t{1}, int64_t{-1}, INT64_MAX, INT64_MIN, int64_t{52}}) a.push_back(x), b.push_back(y), c.push_back(z);
  std::mt19937_64 rng(3);
  for (int i = 0; i < 4000; ++i) {
    const int shift = static_cast<int>(rng() % 64);
    a.push_back(static_cast<int64_t>(rng()) >> shift);
    b.push_back(static_cast<int64_t>(rng()) >> (63 - shift));
    c.push_back(static_cast<int64_t>(rng()) >> (rng() % 64));
  }
  while (a.size() % 64) a.push_back(1), b.push_back(1), c.push_back(1);
  ClRunner cl;
  ASSERT_TRUE(cl.build(R"(
    kernel void k(global long* s, global ulong* u, global const long* a, global const long* b, global const long* c) {
      size_t i = get_global_id(0);
      s[i] = mad_sat(a[i], b[i], c[i]);
      u[i] = mad_sat((ulong)a[i], (ulong)b[i], (ulong)c[i]);
    })"));
  const uint64_t va = cl.memory.upload(a), vb = cl.memory.upload(b), vc = cl.memory.upload(c),
                 vs = cl.memory.upload(std::vector<int64_t>(a.size())), vu = cl.memory.upload(std::vector<uint64_t>(a.size()));
  cl.run_ok("k", {Arg::buffer(vs), Arg::buffer(vu), Arg::buffer(va), Arg::buffer(vb), Arg::buffer(vc)},
            NDRange::linear(static_cast<uint32_t>(a.size()), 64));
  const auto s = cl.memory.download<int64_t>(vs, a.size());
  const auto u = cl.memory.download<uint64_t>(vu, a.size());
  int errors = 0;
  for (size_t i = 0; i < a.size() && errors < 20; ++i) {
    const __int128 exact = static_cast<__int128>(a[i]) * b[i] + c[i];
    const int64_t sref = exact > INT64_MAX ? INT64_MAX : exact < INT64_MIN ? INT64_MIN : static_cast<int64_t>(exact);
    const unsigned __int128 uexact = static_cast<unsigned __int128>(static_cast<uint64_t>(a[i])) * static_cast<uint64_t>(b[i]) +
                                     static_cast<uint64_t>(c[i]);
    const uint64_t uref = uexact > UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(uexact);
    if (s[i] != sref || u[i] != uref) {
      ++errors;
      ADD_FAILURE() << "mad_sat(" << a[i] << ", " << b[i] << ", " << c[i] << "): long " << s[i] << " (want " << sref << "), ulong "
                    << u[i] << " (want " << uref << ")";
    }
  }
}

}  // namespace
}  // namespace gsgpu::compiler::testing

namespace gsgpu::compiler::testing {
namespace {

// fdim: x - y when x > y, +0 otherwise, NaN when either operand is NaN (CTS test_bruteforce fdim
// fp32 found 0 for a NaN).
TEST(SpecialFunctions, FdimIsNaNForANaNOperand) {
  GSGPU_REQUIRE_FRONT_END();
  const std::vector<float> x = {3.0f, 1.0f, kNan, 2.0f, -kInf, kInf};
  const std::vector<float> y = {1.0f, 3.0f, 1.0f, kNan, -kInf, 1.0f};
  ClRunner cl;
  ASSERT_TRUE(cl.build(R"(
    kernel void k(global float* r, global const float* x, global const float* y) {
      size_t i = get_global_id(0);
      r[i] = fdim(x[i], y[i]);
    })"));
  const uint64_t vx = cl.memory.upload(x), vy = cl.memory.upload(y), vr = cl.memory.upload(std::vector<float>(x.size(), 7));
  cl.run_ok("k", {Arg::buffer(vr), Arg::buffer(vx), Arg::buffer(vy)}, NDRange::linear(static_cast<uint32_t>(x.size()), 1));
  const auto r = cl.memory.download<float>(vr, x.size());
  EXPECT_EQ(r[0], 2.0f);
  EXPECT_EQ(r[1], 0.0f);
  EXPECT_FALSE(std::signbit(r[1]));
  EXPECT_TRUE(std::isnan(r[2]));
  EXPECT_TRUE(std::isnan(r[3]));
  EXPECT_EQ(r[4], 0.0f);
  EXPECT_EQ(r[5], kInf);
}

}  // namespace
}  // namespace gsgpu::compiler::testing

namespace gsgpu::compiler::testing {
namespace {

// remainder(x, y) with |x| = |y| / 2 exactly: a tie between quotients 0 and 1, to even 0, so x
// itself (CTS test_bruteforce remainder fp32 found -x). Ties at 3|y|/2 go to quotient 2.
TEST(SpecialFunctions, RemainderTiesGoToTheEvenQuotient) {
  GSGPU_REQUIRE_FRONT_END();
  const std::vector<float> x = {-0x1.000002p+63f, 0.5f, -1.5f, 2.5f, 1e-45f, 3.0f};
  const std::vector<float> y = {-0x1.000002p+64f, 1.0f, 1.0f, -1.0f, 2e-45f, 2.0f};
  ClRunner cl;
  ASSERT_TRUE(cl.build(R"(
    kernel void k(global float* r, global const float* x, global const float* y) {
      size_t i = get_global_id(0);
      r[i] = remainder(x[i], y[i]);
    })"));
  const uint64_t vx = cl.memory.upload(x), vy = cl.memory.upload(y), vr = cl.memory.upload(std::vector<float>(x.size(), 7));
  cl.run_ok("k", {Arg::buffer(vr), Arg::buffer(vx), Arg::buffer(vy)}, NDRange::linear(static_cast<uint32_t>(x.size()), 1));
  const auto r = cl.memory.download<float>(vr, x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const float want = std::remainder(x[i], y[i]);  // glibc's remainder is exact
    EXPECT_EQ(std::bit_cast<uint32_t>(r[i]), std::bit_cast<uint32_t>(want)) << x[i] << " " << y[i];
  }
}

}  // namespace
}  // namespace gsgpu::compiler::testing
