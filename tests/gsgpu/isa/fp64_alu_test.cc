// Semantics of the fp64 / half block (opcodes.def): binary64 arithmetic, compares, conversions in
// each rounding mode and v_math_f64, against references computed here independently: the host's
// arithmetic under fesetround for directed conversions, a table of every finite binary16 value for
// the half roundings, glibc's double functions with an ulp bound for the transcendentals. (The
// AluTable test in alu_test.cc already runs each instruction through the shader core.)
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cfenv>
#include <cmath>
#include <random>
#include <vector>

#include "gsgpu/emu/shader/alu_ops.h"
#include "gsgpu/isa/fp64.h"

namespace gsgpu::testing {
namespace {

using isa::FCmp;
using isa::FpRound;
using isa::MathF64;

uint64_t bits(double x) { return std::bit_cast<uint64_t>(x); }
double value(uint64_t b) { return std::bit_cast<double>(b); }
uint32_t mode(FpRound r) { return static_cast<uint32_t>(r); }
constexpr FpRound kModes[] = {FpRound::kNearestEven, FpRound::kTowardZero, FpRound::kUp, FpRound::kDown};
constexpr int kHostModes[] = {FE_TONEAREST, FE_TOWARDZERO, FE_UPWARD, FE_DOWNWARD};

// A value under the host's directed rounding; volatile so the conversion happens at run time.
template <typename To, typename From>
To convert_in(int host_mode, From x) {
  volatile From in = x;
  std::fesetround(host_mode);
  volatile To out = static_cast<To>(in);
  std::fesetround(FE_TONEAREST);
  return out;
}

std::vector<double> sample_doubles(uint32_t seed, size_t n) {
  std::mt19937_64 rng(seed);
  std::vector<double> v = {0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, -2.5, 0x1p-1074, -0x1p-1022, 0x1.fffffffffffffp1023,
                           INFINITY, -INFINITY, 3.4028235677973366e38, 3.4028234663852886e38, 1e-45, 1.4e-45,
                           0x1.000001p0, 0x1.0000018p0, 0x1.0000008p0, 65504.0, 65519.99, 65520.0, 1e300, -1e300};
  while (v.size() < n) {
    const uint64_t r = rng();
    const double x = value(r);
    if (!std::isnan(x)) v.push_back(x);
    v.push_back(std::uniform_real_distribution<double>(-1e6, 1e6)(rng));
  }
  return v;
}

TEST(Fp64Alu, ArithmeticIsTheHostsCorrectlyRoundedArithmeticWithCanonicalNaN) {
  const std::vector<double> xs = sample_doubles(1, 400);
  for (size_t i = 0; i + 2 < xs.size(); ++i) {
    const double x = xs[i], y = xs[i + 1], z = xs[i + 2];
    auto same = [](uint64_t got, double want) {
      if (std::isnan(want)) EXPECT_EQ(got, 0x7ff8000000000000ull);
      else EXPECT_EQ(got, bits(want));
    };
    same(alu::add_f64::apply(bits(x), bits(y)), x + y);
    same(alu::sub_f64::apply(bits(x), bits(y)), x - y);
    same(alu::mul_f64::apply(bits(x), bits(y)), x * y);
    same(alu::div_f64::apply(bits(x), bits(y)), x / y);
    same(alu::fma_f64::apply(bits(x), bits(y), bits(z)), std::fma(x, y, z));
    same(alu::sqrt_f64::apply(bits(x)), std::sqrt(x));
  }
  EXPECT_EQ(alu::min_f64::apply(bits(NAN), bits(2.0)), bits(2.0));
  EXPECT_EQ(alu::max_f64::apply(bits(-1.0), bits(NAN)), bits(-1.0));
  EXPECT_EQ(alu::max_f64::apply(bits(-1.0), bits(3.0)), bits(3.0));
  EXPECT_EQ(alu::add_f64::apply(0x7ff0000000000123ull, bits(1.0)), 0x7ff8000000000000ull);
}

TEST(Fp64Alu, ComparesFollowOrderedAndUnorderedRules) {
  const double values[] = {-1.0, 0.0, -0.0, 2.0, NAN, INFINITY};
  for (double x : values) {
    for (double y : values) {
      const bool unordered = std::isnan(x) || std::isnan(y);
      auto cmp = [&](FCmp c) { return alu::cmp_f64::apply(bits(x), bits(y), static_cast<uint32_t>(c)); };
      EXPECT_EQ(cmp(FCmp::kOeq), x == y);
      EXPECT_EQ(cmp(FCmp::kOne), !unordered && x != y);
      EXPECT_EQ(cmp(FCmp::kOlt), x < y);
      EXPECT_EQ(cmp(FCmp::kOge), x >= y);
      EXPECT_EQ(cmp(FCmp::kUeq), unordered || x == y);
      EXPECT_EQ(cmp(FCmp::kUne), x != y);
      EXPECT_EQ(cmp(FCmp::kUlt), unordered || x < y);
      EXPECT_EQ(cmp(FCmp::kUge), unordered || x >= y);
      EXPECT_EQ(cmp(FCmp::kOrd), !unordered);
      EXPECT_EQ(cmp(FCmp::kUno), unordered);
      EXPECT_EQ(cmp(FCmp::kIsNan), std::isnan(x) ? 1u : 0u);
      EXPECT_EQ(cmp(FCmp::kIsInf), std::isinf(x) ? 1u : 0u);
    }
  }
}

TEST(Fp64Alu, DoubleToFloatInEachRoundingModeMatchesTheHostUnderFesetround) {
  for (double x : sample_doubles(2, 2000)) {
    for (int m = 0; m < 4; ++m) {
      const float want = convert_in<float>(kHostModes[m], x);
      EXPECT_EQ(alu::cvt_f32_f64::apply(bits(x), mode(kModes[m])), std::bit_cast<uint32_t>(want)) << x << " mode " << m;
    }
  }
}

TEST(Fp64Alu, SixtyFourBitIntegersToDoubleAndFloatInEachRoundingMode) {
  std::mt19937_64 rng(3);
  std::vector<uint64_t> ints = {0, 1, ~0ull, 1ull << 63, (1ull << 63) - 1, (1ull << 53) + 1, (1ull << 54) + 3,
                                (1ull << 24) + 1, 0xffffffffffffff7full};
  for (int i = 0; i < 2000; ++i) ints.push_back(rng() >> (rng() % 64));
  for (uint64_t n : ints) {
    for (int m = 0; m < 4; ++m) {
      const auto s = static_cast<int64_t>(n);
      EXPECT_EQ(alu::cvt_f64_i64::apply(n, mode(kModes[m])), bits(convert_in<double>(kHostModes[m], s))) << s;
      EXPECT_EQ(alu::cvt_f64_u64::apply(n, mode(kModes[m])), bits(convert_in<double>(kHostModes[m], n))) << n;
      EXPECT_EQ(alu::cvt_f32_i64_rm::apply(n, mode(kModes[m])),
                std::bit_cast<uint32_t>(convert_in<float>(kHostModes[m], s))) << s;
      EXPECT_EQ(alu::cvt_f32_u64_rm::apply(n, mode(kModes[m])),
                std::bit_cast<uint32_t>(convert_in<float>(kHostModes[m], n))) << n;
    }
  }
}

TEST(Fp64Alu, DoubleToIntegersTruncateAndSaturate) {
  EXPECT_EQ(alu::cvt_i32_f64::apply(bits(-2147483648.9)), 0x80000000u);
  EXPECT_EQ(alu::cvt_i32_f64::apply(bits(2147483647.9)), 0x7fffffffu);
  EXPECT_EQ(alu::cvt_i32_f64::apply(bits(1e300)), 0x7fffffffu);
  EXPECT_EQ(alu::cvt_i32_f64::apply(bits(-7.9)), static_cast<uint32_t>(-7));
  EXPECT_EQ(alu::cvt_u32_f64::apply(bits(-0.9)), 0u);
  EXPECT_EQ(alu::cvt_u32_f64::apply(bits(4294967295.5)), 0xffffffffu);
  EXPECT_EQ(alu::cvt_i64_f64::apply(bits(0x1p63)), 0x7fffffffffffffffull);
  EXPECT_EQ(alu::cvt_i64_f64::apply(bits(-0x1p63)), 0x8000000000000000ull);
  EXPECT_EQ(alu::cvt_u64_f64::apply(bits(0x1p64)), ~0ull);
  EXPECT_EQ(alu::cvt_u64_f64::apply(bits(0x1.fffffffffffffp63)), 0xfffffffffffff800ull);
  EXPECT_EQ(alu::cvt_i64_f64::apply(bits(NAN)), 0u);
  EXPECT_EQ(alu::cvt_f64_f32::apply(std::bit_cast<uint32_t>(0x1p-149f)), bits(0x1p-149));
}

// Every finite binary16 value, as a double, with its bits: the half rounding reference.
struct HalfTable {
  std::vector<std::pair<double, uint32_t>> values;  // ascending; -0 and +0 both present
  HalfTable() {
    for (uint32_t h = 0; h < 0x10000; ++h) {
      const uint32_t exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
      if (exponent == 31) continue;
      const double magnitude = exponent == 0 ? std::ldexp(mantissa, -24) : std::ldexp(1024 + mantissa, int(exponent) - 25);
      values.emplace_back((h & 0x8000) ? -magnitude : magnitude, h);
    }
    std::sort(values.begin(), values.end());
  }
  // The expected binary16 bits of x rounded in `m` (x finite, non-zero).
  uint32_t round(double x, FpRound m) const {
    const uint32_t sign = x < 0 ? 0x8000u : 0u;
    const double largest = 65504.0;
    auto above = std::lower_bound(values.begin(), values.end(), std::make_pair(x, 0u),
                                  [](const auto& a, const auto& b) { return a.first < b.first; });
    if (above != values.end() && above->first == x) return above->second;
    const bool up_is_inf = x > largest, down_is_inf = x < -largest;
    const uint32_t up = up_is_inf ? 0x7c00u : above->second;
    const uint32_t down = down_is_inf ? 0xfc00u : std::prev(above)->second;
    const double up_value = up_is_inf ? 65536.0 : above->first;
    const double down_value = down_is_inf ? -65536.0 : std::prev(above)->first;
    auto fix_zero = [&](uint32_t h) { return (h & 0x7fffu) == 0 ? sign : h; };  // a zero result keeps x's sign
    switch (m) {
      case FpRound::kUp: return fix_zero(up);
      case FpRound::kDown: return fix_zero(down);
      case FpRound::kTowardZero: return fix_zero(x > 0 ? down : up);
      case FpRound::kNearestEven: {
        const double du = up_value - x, dd = x - down_value;
        if (du != dd) return fix_zero(du < dd ? up : down);
        const uint32_t even = (up & 1) == 0 ? up : down;  // ties: the even significand (inf counts as even)
        return fix_zero(even);
      }
    }
    return 0;
  }
};

TEST(Fp64Alu, HalfRoundingInEachModeTiesDenormalsOverflowInfAndNaN) {
  static const HalfTable table;
  std::vector<double> xs = sample_doubles(4, 0);
  std::mt19937_64 rng(5);
  for (int i = 0; i < 3000; ++i) {
    // Around half's range, ties and denormals included.
    const double h = table.values[rng() % table.values.size()].first;
    xs.push_back(h);
    xs.push_back(std::nextafter(h, INFINITY));
    xs.push_back(h + std::ldexp(1.0, std::max(std::ilogb(h == 0 ? 1e-8 : h) - 11, -25)));  // half-way
    xs.push_back(std::ldexp(std::uniform_real_distribution<double>(-1, 1)(rng), int(rng() % 48) - 30));
  }
  for (double x : xs) {
    for (FpRound m : kModes) {
      uint32_t want;
      if (x == 0) want = std::signbit(x) ? 0x8000u : 0u;
      else if (std::isinf(x)) want = x > 0 ? 0x7c00u : 0xfc00u;
      else want = table.round(x, m);
      EXPECT_EQ(alu::cvt_f16_f64::apply(bits(x), mode(m)), want) << x << " mode " << mode(m);
      const auto xf = static_cast<float>(x);
      if (static_cast<double>(xf) == x)
        EXPECT_EQ(alu::cvt_f16_f32_rm::apply(std::bit_cast<uint32_t>(xf), mode(m)), want) << x << " mode " << mode(m);
    }
  }
  // Rounding to nearest even agrees with the existing binary16 conversion.
  for (double x : xs) {
    const auto xf = static_cast<float>(x);
    EXPECT_EQ(alu::cvt_f16_f32_rm::apply(std::bit_cast<uint32_t>(xf), 0), alu::cvt_f16_f32::apply(std::bit_cast<uint32_t>(xf)));
  }
  EXPECT_EQ(alu::cvt_f16_f64::apply(bits(NAN), 0) & 0x7e00u, 0x7e00u);
  EXPECT_EQ(alu::cvt_f16_f64::apply(bits(1e10), mode(FpRound::kTowardZero)), 0x7bffu);
  EXPECT_EQ(alu::cvt_f16_f64::apply(bits(-1e10), mode(FpRound::kUp)), 0xfbffu);
  EXPECT_EQ(alu::cvt_f16_f64::apply(bits(-1e10), mode(FpRound::kDown)), 0xfc00u);
}

uint64_t math(MathF64 fn, double x, double y = 0) { return alu::evaluate_math_f64(bits(x), bits(y), static_cast<uint32_t>(fn)); }
uint64_t math_i(MathF64 fn, double x, int32_t n) {
  return alu::evaluate_math_f64(bits(x), static_cast<uint32_t>(n), static_cast<uint32_t>(fn));
}
double ulps(double got, double want) {
  if (std::isnan(want)) return std::isnan(got) ? 0 : 1e9;
  if (got == want) return 0;
  if (std::isinf(want) || std::isinf(got)) return 1e9;
  const int e = std::max(std::ilogb(want), -1022);
  return std::fabs(got - want) / std::ldexp(1.0, e - 52);
}

TEST(Fp64Alu, TranscendentalsAreWithinOneUlpOfGlibcDouble) {
  struct Case { MathF64 fn; double (*host)(double); double lo, hi; };
  const Case cases[] = {
      {MathF64::k_exp, [](double x) { return std::exp(x); }, -700, 700},
      {MathF64::k_exp2, [](double x) { return std::exp2(x); }, -1000, 1000},
      {MathF64::k_expm1, [](double x) { return std::expm1(x); }, -5, 5},
      {MathF64::k_log, [](double x) { return std::log(x); }, 1e-300, 1e300},
      {MathF64::k_log2, [](double x) { return std::log2(x); }, 1e-300, 1e300},
      {MathF64::k_log10, [](double x) { return std::log10(x); }, 1e-300, 1e300},
      {MathF64::k_log1p, [](double x) { return std::log1p(x); }, -0.9, 10},
      {MathF64::k_sin, [](double x) { return std::sin(x); }, -1e6, 1e6},
      {MathF64::k_cos, [](double x) { return std::cos(x); }, -1e6, 1e6},
      {MathF64::k_tan, [](double x) { return std::tan(x); }, -10, 10},
      {MathF64::k_atan, [](double x) { return std::atan(x); }, -1e3, 1e3},
      {MathF64::k_asin, [](double x) { return std::asin(x); }, -1, 1},
      // glibc's double cbrt is up to 3 ulp off; the reference is x^(1/3) in long double instead.
      {MathF64::k_cbrt, [](double x) { return static_cast<double>(std::copysign(std::pow(std::fabs(static_cast<long double>(x)),
                                                                                      1.0L / 3), x)); }, -1e10, 1e10},
      {MathF64::k_sinh, [](double x) { return std::sinh(x); }, -50, 50},
      {MathF64::k_tanh, [](double x) { return std::tanh(x); }, -20, 20},
      {MathF64::k_erf, [](double x) { return std::erf(x); }, -5, 5},
      {MathF64::k_tgamma, [](double x) { return std::tgamma(x); }, 0.01, 150},
  };
  std::mt19937_64 rng(6);
  for (const Case& c : cases) {
    double worst = 0;
    for (int i = 0; i < 300; ++i) {
      const double x = std::uniform_real_distribution<double>(c.lo, c.hi)(rng);
      // glibc's double functions are themselves within 1 ulp (tgamma: a few); ours are nearer.
      worst = std::max(worst, ulps(value(math(c.fn, x)), c.host(x)));
    }
    EXPECT_LE(worst, c.fn == MathF64::k_tgamma ? 8.0 : 1.5) << static_cast<int>(c.fn);
  }
  for (int i = 0; i < 300; ++i) {
    const double x = std::uniform_real_distribution<double>(0.01, 10)(rng);
    const double y = std::uniform_real_distribution<double>(-20, 20)(rng);
    EXPECT_LE(ulps(value(math(MathF64::k_pow, x, y)), std::pow(x, y)), 1.5);
    EXPECT_LE(ulps(value(math(MathF64::k_atan2, y, x)), std::atan2(y, x)), 1.5);
    EXPECT_LE(ulps(value(math(MathF64::k_hypot, y, x)), std::hypot(y, x)), 1.5);
    EXPECT_EQ(math(MathF64::k_fmod, y, x), bits(std::fmod(y, x)));
    EXPECT_EQ(math(MathF64::k_remainder, y, x), bits(std::remainder(y, x)));
  }
}

TEST(Fp64Alu, PiFormsAndSpecialValuesFollowOpenCL) {
  EXPECT_EQ(math(MathF64::k_sinpi, 1.0), bits(0.0));
  EXPECT_EQ(math(MathF64::k_sinpi, -3.0), bits(-0.0));
  EXPECT_EQ(math(MathF64::k_sinpi, 0.5), bits(1.0));
  EXPECT_EQ(math(MathF64::k_cospi, 0.5), bits(0.0));
  EXPECT_EQ(math(MathF64::k_cospi, 1.0), bits(-1.0));
  EXPECT_EQ(math(MathF64::k_tanpi, 0.25), bits(1.0));
  EXPECT_EQ(math(MathF64::k_tanpi, 1.0), bits(-0.0));
  EXPECT_EQ(math(MathF64::k_tanpi, 2.0), bits(0.0));
  EXPECT_EQ(value(math(MathF64::k_tanpi, 0.5)), INFINITY);
  EXPECT_EQ(value(math(MathF64::k_tanpi, 1.5)), -INFINITY);
  EXPECT_EQ(value(math(MathF64::k_tanpi, -0.5)), -INFINITY);  // n = -1, odd
  EXPECT_EQ(value(math(MathF64::k_tanpi, -1.5)), INFINITY);   // n = -2, even
  // Near an integer sinpi keeps relative accuracy: sin(pi * 2^-40) ~ pi * 2^-40.
  EXPECT_LE(ulps(value(math(MathF64::k_sinpi, 1.0 + 0x1p-40)), -std::sin(M_PI * 0x1p-40)), 1.0);
  EXPECT_LE(ulps(value(math(MathF64::k_atan2pi, 1.0, 1.0)), 0.25), 0.0);
  EXPECT_EQ(math(MathF64::k_pow, -INFINITY, -0x1p63), bits(0.0));  // x87 powl says inf (CTS test_bruteforce)
  EXPECT_EQ(math(MathF64::k_pow, -INFINITY, 3.0), bits(-INFINITY));
  EXPECT_EQ(math(MathF64::k_pow, -0.0, -3.0), bits(-INFINITY));
  EXPECT_TRUE(std::isnan(value(math(MathF64::k_powr, -2.0, 2.0))));
  EXPECT_TRUE(std::isnan(value(math(MathF64::k_powr, 0.0, 0.0))));
  EXPECT_TRUE(std::isnan(value(math(MathF64::k_powr, 1.0, INFINITY))));
  EXPECT_EQ(value(math(MathF64::k_powr, 0.0, -1.0)), INFINITY);
  EXPECT_EQ(value(math_i(MathF64::k_rootn, -8.0, 3)), -2.0);
  EXPECT_EQ(value(math_i(MathF64::k_rootn, 16.0, -4)), 0.5);
  EXPECT_TRUE(std::isnan(value(math_i(MathF64::k_rootn, -16.0, 4))));
  EXPECT_TRUE(std::isnan(value(math_i(MathF64::k_rootn, 2.0, 0))));
  EXPECT_EQ(value(math_i(MathF64::k_pown, -2.0, 3)), -8.0);
  EXPECT_EQ(value(math_i(MathF64::k_ldexp, 1.0, -1074)), 0x1p-1074);
  EXPECT_EQ(static_cast<int32_t>(math(MathF64::k_ilogb, 0x1p-1030)), -1030);
  EXPECT_EQ(static_cast<int32_t>(math(MathF64::k_frexp_exponent, 12.0)), 4);
  EXPECT_EQ(value(math(MathF64::k_frexp_mantissa, 12.0)), 0.75);
  EXPECT_EQ(value(math(MathF64::k_fract, -0.25)), 0.75);
  EXPECT_EQ(value(math(MathF64::k_fract, -0x1p-60)), 0x1.fffffffffffffp-1);
  EXPECT_EQ(value(math(MathF64::k_maxmag, -3.0, 2.0)), -3.0);
  EXPECT_EQ(value(math(MathF64::k_minmag, -3.0, 2.0)), 2.0);
  EXPECT_EQ(static_cast<int32_t>(math(MathF64::k_lgamma_sign, -0.5)), -1);
  // remquo: the quotient's sign and low 7 bits (OpenCL's n = 7), for quotients past 2^7.
  for (int64_t k : {1, 5, 127, 128, 300, 1000001}) {
    const double y = 0.75, x = static_cast<double>(k) * y + 0.125;
    EXPECT_EQ(static_cast<int32_t>(math(MathF64::k_remquo_quotient, x, y)), static_cast<int32_t>(k & 0x7f)) << k;
    EXPECT_EQ(static_cast<int32_t>(math(MathF64::k_remquo_quotient, -x, y)), -static_cast<int32_t>(k & 0x7f)) << k;
  }
}

}  // namespace
}  // namespace gsgpu::testing

namespace gsgpu::testing {
namespace {

// The code operands come from guest binaries: a code outside its list is not undefined behaviour
// but the list's first entry (docs/isa.md §8a), and only the low 2 bits of a mode count.
TEST(Fp64Alu, CodesOutsideTheirListsBehaveAsTheFirstEntry) {
  for (uint32_t fn : {static_cast<uint32_t>(MathF64::kCount), 0x12345u, 0xffffffffu})
    EXPECT_EQ(alu::math_f64::apply(bits(2.5), bits(1.0), fn), bits(2.0));  // floor
  for (uint32_t cond : {static_cast<uint32_t>(FCmp::kCount), 0xffffffffu}) {
    EXPECT_EQ(alu::cmp_f64::apply(bits(1.0), bits(1.0), cond), 1u);  // oeq
    EXPECT_EQ(alu::cmp_f64::apply(bits(1.0), bits(2.0), cond), 0u);
  }
  EXPECT_EQ(alu::cvt_f32_f64::apply(bits(1 + 0x1p-30), 4 + 2), alu::cvt_f32_f64::apply(bits(1 + 0x1p-30), 2));
}

}  // namespace
}  // namespace gsgpu::testing
