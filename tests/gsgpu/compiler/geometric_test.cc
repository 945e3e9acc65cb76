// OpenCL.std geometric functions on float vectors (float_geometric_via_double, lower_fp64.cc): length,
// distance and normalize without overflow or underflow of the squares (the CTS's test_geometrics
// asks length(0x1p64) for 0x1p64), and normalize's special cases from the OpenCL C spec.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/gsgpu/compiler/cl_harness.h"

namespace gsgpu::compiler::testing {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

// Each input vector v gives 8 floats: length(v.x), length(v.xy), length(v.xyz), length(v),
// distance(v.xy, -v.zw), then normalize(v).xyz.
std::vector<float> run_geometric(const std::vector<float>& vectors) {
  ClRunner cl;
  const std::string source = R"(
kernel void k(global float* out, global const float4* in) {
  size_t i = get_global_id(0);
  float4 v = in[i];
  out[i * 8 + 0] = length(v.x);
  out[i * 8 + 1] = length(v.xy);
  out[i * 8 + 2] = length(v.xyz);
  out[i * 8 + 3] = length(v);
  out[i * 8 + 4] = distance(v.xy, -v.zw);
  float4 n = normalize(v);
  out[i * 8 + 5] = n.x;
  out[i * 8 + 6] = n.y;
  out[i * 8 + 7] = n.z;
})";
  if (!cl.build(source)) return {};
  std::vector<float> padded = vectors;
  while (padded.size() % (4 * 16)) padded.push_back(1.0f);
  const uint32_t count = static_cast<uint32_t>(padded.size() / 4);
  const uint64_t vin = cl.memory.upload(padded);
  const uint64_t vout = cl.memory.upload(std::vector<float>(size_t{count} * 8, -7.0f));
  cl.run_ok("k", {Arg::buffer(vout), Arg::buffer(vin)}, NDRange::linear(count, 16));
  return cl.memory.download<float>(vout, size_t{count} * 8);
}

long double norm(std::initializer_list<long double> c) {
  long double s = 0;
  for (long double x : c) s += x * x;
  return std::sqrt(s);
}

// Within one ulp of the float nearest the exact value (the infinity it rounds to past FLT_MAX).
void expect_close(float got, long double exact, const char* what, size_t vector) {
  const float nearest = static_cast<float>(exact);
  if (std::isinf(nearest)) {
    EXPECT_EQ(got, nearest) << what << " of vector " << vector << ", exact " << static_cast<double>(exact);
    return;
  }
  const float ulp = std::nextafter(nearest, kInf) - nearest;
  EXPECT_LE(std::fabs(static_cast<long double>(got) - nearest), ulp)
      << what << " of vector " << vector << ": " << got << ", exact " << static_cast<double>(exact);
}

TEST(Geometric, LengthAndDistanceNeitherOverflowNorUnderflow) {
  const std::vector<float> v = {0x1p64f, 0.0f,     0.0f,    0.0f,      // the CTS's failing sample
                                0x1p64f, 0x1p64f,  0x1p64f, 0x1p64f,  //
                                3e38f,   -3e38f,   -1e38f,  2e38f,    // squares far past FLT_MAX
                                1e-30f,  -2e-30f,  3e-30f,  0.0f,     // squares below the denormals
                                3.0f,    4.0f,     12.0f,   0.0f,     // exact: 3, 5, 13, 13
                                0x1p-149f, 0x1p-149f, 0.0f, 0.0f};
  const std::vector<float> out = run_geometric(v);
  ASSERT_EQ(out.size() % 8, 0u);
  for (size_t i = 0; i * 4 < v.size(); ++i) {
    const long double x = v[i * 4], y = v[i * 4 + 1], z = v[i * 4 + 2], w = v[i * 4 + 3];
    expect_close(out[i * 8 + 0], norm({x}), "length(x)", i);
    expect_close(out[i * 8 + 1], norm({x, y}), "length(xy)", i);
    expect_close(out[i * 8 + 2], norm({x, y, z}), "length(xyz)", i);
    expect_close(out[i * 8 + 3], norm({x, y, z, w}), "length(xyzw)", i);
    expect_close(out[i * 8 + 4], norm({x + z, y + w}), "distance", i);
    const long double n = norm({x, y, z, w});
    expect_close(out[i * 8 + 5], x / n, "normalize.x", i);
    expect_close(out[i * 8 + 6], y / n, "normalize.y", i);
    expect_close(out[i * 8 + 7], z / n, "normalize.z", i);
  }
  EXPECT_EQ(out[4 * 8 + 3], 13.0f);
}

TEST(Geometric, NormalizeSpecialCases) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> v = {0.0f, -0.0f, 0.0f, 0.0f,     // zero vector: returned as it is
                                kInf, 2.0f, -kInf, -1.0f,   // infinite: +-1 there, +-0 elsewhere
                                nan, 1.0f, 2.0f, 3.0f};     // NaN: NaN everywhere
  const std::vector<float> out = run_geometric(v);
  ASSERT_GE(out.size(), 24u);
  EXPECT_EQ(out[5], 0.0f);
  EXPECT_TRUE(std::signbit(out[6]) && out[6] == 0.0f);
  EXPECT_EQ(out[8 + 5], 1.0f);
  EXPECT_TRUE(out[8 + 6] == 0.0f && !std::signbit(out[8 + 6]));
  EXPECT_EQ(out[8 + 7], -1.0f);
  EXPECT_EQ(out[8 + 3], kInf);  // length of an infinite vector
  EXPECT_TRUE(std::isnan(out[16 + 5]) && std::isnan(out[16 + 6]) && std::isnan(out[16 + 7]));
}

}  // namespace
}  // namespace gsgpu::compiler::testing
