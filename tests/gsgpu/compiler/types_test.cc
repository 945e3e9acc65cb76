// Data types and memory: 64-bit integer math, char/short loads and stores (signed and unsigned),
// float4 arithmetic and vload/vstore, atomics from many work-groups on global and local memory,
// __constant tables, private arrays, by-value structs, integer and math built-ins.
#include <bit>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "tests/gsgpu/compiler/cl_harness.h"

namespace gsgpu::compiler::testing {
namespace {

TEST(Types, SixtyFourBitIntegerMath) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  ASSERT_TRUE(cl.build(R"(
    __kernel void wide(__global const ulong* in, __global ulong* out, __global long* sout) {
      size_t i = get_global_id(0);
      ulong x = in[i];
      ulong h = x * 0x9E3779B97F4A7C15UL;
      h ^= h >> 29;
      h += (x << 7) | (x >> 57);
      out[i * 4 + 0] = h;
      out[i * 4 + 1] = x / 7 + x % 13;
      out[i * 4 + 2] = mul_hi(x, 0x123456789ABCDEFUL);
      out[i * 4 + 3] = (ulong)clz(x) + popcount(x);
      long s = (long)x - (long)0x4000000000000000L;
      sout[i * 2 + 0] = s / -3;
      sout[i * 2 + 1] = s >> 5;
    })"));
  const int n = 64;
  std::vector<uint64_t> in(n);
  for (int i = 0; i < n; ++i) in[i] = 0x0123456789abcdefull * (i + 1) ^ (uint64_t(i) << 40);
  const uint64_t vi = cl.memory.upload(in), vo = cl.memory.upload(std::vector<uint64_t>(n * 4)),
                 vs = cl.memory.upload(std::vector<int64_t>(n * 2));
  cl.run_ok("wide", {Arg::buffer(vi), Arg::buffer(vo), Arg::buffer(vs)}, NDRange::linear(n, 32));
  const auto out = cl.memory.download<uint64_t>(vo, n * 4);
  const auto sout = cl.memory.download<int64_t>(vs, n * 2);
  for (int i = 0; i < n; ++i) {
    const uint64_t x = in[i];
    uint64_t h = x * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    h += (x << 7) | (x >> 57);
    EXPECT_EQ(out[i * 4 + 0], h) << i;
    EXPECT_EQ(out[i * 4 + 1], x / 7 + x % 13) << i;
    EXPECT_EQ(out[i * 4 + 2], static_cast<uint64_t>((static_cast<unsigned __int128>(x) * 0x123456789ABCDEFull) >> 64)) << i;
    EXPECT_EQ(out[i * 4 + 3], static_cast<uint64_t>(__builtin_clzll(x) + __builtin_popcountll(x))) << i;
    const int64_t s = static_cast<int64_t>(x) - 0x4000000000000000ll;
    EXPECT_EQ(sout[i * 2 + 0], s / -3) << i;
    EXPECT_EQ(sout[i * 2 + 1], s >> 5) << i;
  }
}

TEST(Types, CharAndShortLoadsAndStores) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  ASSERT_TRUE(cl.build(R"(
    __kernel void narrow(__global const char* c, __global const uchar* uc, __global const short* s,
                         __global short* out_s, __global char* out_c, __global int* out_i) {
      int i = get_global_id(0);
      char a = c[i];
      uchar b = uc[i];
      short d = s[i];
      out_s[i] = (short)(d * 3 - a);
      out_c[i] = (char)(a + b);           // wraps at 8 bits
      out_i[i] = (a >> 2) + (b >> 2) + (d / 5) + (a < 0 ? 1000 : 0);
    })"));
  const int n = 256;
  std::vector<int8_t> c(n);
  std::vector<uint8_t> uc(n);
  std::vector<int16_t> s(n);
  for (int i = 0; i < n; ++i) {
    c[i] = static_cast<int8_t>(i * 37);
    uc[i] = static_cast<uint8_t>(255 - i);
    s[i] = static_cast<int16_t>(i * 301 - 30000);
  }
  const uint64_t vc = cl.memory.upload(c), vuc = cl.memory.upload(uc), vs = cl.memory.upload(s);
  const uint64_t os = cl.memory.upload(std::vector<int16_t>(n + 8, 0x5555)), oc = cl.memory.upload(std::vector<int8_t>(n + 8, 0x55)),
                 oi = cl.memory.upload(std::vector<int32_t>(n));
  cl.run_ok("narrow", {Arg::buffer(vc), Arg::buffer(vuc), Arg::buffer(vs), Arg::buffer(os), Arg::buffer(oc), Arg::buffer(oi)},
            NDRange::linear(n, 64));
  const auto out_s = cl.memory.download<int16_t>(os, n + 8);
  const auto out_c = cl.memory.download<int8_t>(oc, n + 8);
  const auto out_i = cl.memory.download<int32_t>(oi, n);
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(out_s[i], static_cast<int16_t>(s[i] * 3 - c[i])) << i;
    EXPECT_EQ(out_c[i], static_cast<int8_t>(c[i] + uc[i])) << i;
    EXPECT_EQ(out_i[i], (c[i] >> 2) + (uc[i] >> 2) + (s[i] / 5) + (c[i] < 0 ? 1000 : 0)) << i;
  }
  EXPECT_EQ(out_s[n], 0x5555) << "a 16-bit store wrote past its element";
  EXPECT_EQ(out_c[n], 0x55) << "an 8-bit store wrote past its element";
}

TEST(Types, Float4ArithmeticAndVloadVstore) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  ASSERT_TRUE(cl.build(R"(
    __kernel void vec(__global const float4* a, __global const float* b, __global float4* out, __global float* dots) {
      int i = get_global_id(0);
      float4 x = a[i];
      float4 y = vload4(i, b);
      float4 r = x * y + (float4)(1.0f, 2.0f, 3.0f, 4.0f);
      r.xz = r.zx;
      out[i] = r;
      dots[i] = dot(x, y) + length(x.xy);
      vstore4(y.wzyx, i, dots + 1024);
    })"));
  const int n = 64;
  std::vector<float> a(n * 4), b(n * 4);
  for (int i = 0; i < n * 4; ++i) {
    a[i] = 0.25f * i - 3;
    b[i] = 1.5f - 0.125f * i;
  }
  const uint64_t va = cl.memory.upload(a), vb = cl.memory.upload(b), vo = cl.memory.upload(std::vector<float>(n * 4)),
                 vd = cl.memory.upload(std::vector<float>(1024 + n * 4));
  cl.run_ok("vec", {Arg::buffer(va), Arg::buffer(vb), Arg::buffer(vo), Arg::buffer(vd)}, NDRange::linear(n, 16));
  const auto out = cl.memory.download<float>(vo, n * 4);
  const auto dots = cl.memory.download<float>(vd, 1024 + n * 4);
  for (int i = 0; i < n; ++i) {
    float r[4];
    for (int c = 0; c < 4; ++c) r[c] = a[i * 4 + c] * b[i * 4 + c] + (c + 1);
    EXPECT_NEAR(out[i * 4 + 0], r[2], 1e-5f) << i;
    EXPECT_NEAR(out[i * 4 + 1], r[1], 1e-5f) << i;
    EXPECT_NEAR(out[i * 4 + 2], r[0], 1e-5f) << i;
    EXPECT_NEAR(out[i * 4 + 3], r[3], 1e-5f) << i;
    float dot = 0;
    for (int c = 0; c < 4; ++c) dot += a[i * 4 + c] * b[i * 4 + c];
    const float len = std::sqrt(a[i * 4] * a[i * 4] + a[i * 4 + 1] * a[i * 4 + 1]);
    EXPECT_NEAR(dots[i], dot + len, 1e-3f) << i;
    for (int c = 0; c < 4; ++c) EXPECT_EQ(dots[1024 + i * 4 + c], b[i * 4 + 3 - c]) << i;
  }
}

TEST(Types, AtomicsFromManyGroups) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl(16);
  ASSERT_TRUE(cl.build(R"(
    __kernel void histogram(__global const uint* in, __global uint* bins, __global uint* total,
                            __global int* extremes, __local uint* local_bins) {
      int lid = get_local_id(0);
      if (lid < 16) local_bins[lid] = 0;
      barrier(CLK_LOCAL_MEM_FENCE);
      uint v = in[get_global_id(0)];
      atomic_inc(&local_bins[v % 16]);
      atomic_add(total, v);
      atomic_min(&extremes[0], (int)v - 500);
      atomic_max(&extremes[1], (int)v - 500);
      barrier(CLK_LOCAL_MEM_FENCE);
      if (lid < 16) atomic_add(&bins[lid], local_bins[lid]);
    })"));
  const int groups = 20, group_size = 64;
  std::vector<uint32_t> in(groups * group_size);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint32_t>((i * 2654435761u) % 1000);
  const uint64_t vi = cl.memory.upload(in), vb = cl.memory.upload(std::vector<uint32_t>(16)),
                 vt = cl.memory.upload(std::vector<uint32_t>(1)), ve = cl.memory.upload(std::vector<int32_t>{INT32_MAX, INT32_MIN});
  cl.run_ok("histogram", {Arg::buffer(vi), Arg::buffer(vb), Arg::buffer(vt), Arg::buffer(ve), Arg::local(16 * 4)},
            NDRange::linear(groups * group_size, group_size));
  std::vector<uint32_t> bins(16);
  uint32_t total = 0;
  int lo = INT32_MAX, hi = INT32_MIN;
  for (uint32_t v : in) {
    ++bins[v % 16];
    total += v;
    lo = std::min(lo, static_cast<int>(v) - 500);
    hi = std::max(hi, static_cast<int>(v) - 500);
  }
  EXPECT_EQ(cl.memory.download<uint32_t>(vb, 16), bins);
  EXPECT_EQ(cl.memory.download<uint32_t>(vt, 1)[0], total);
  EXPECT_EQ(cl.memory.download<int32_t>(ve, 2), (std::vector<int32_t>{lo, hi}));
}

TEST(Types, CompareExchangeLoopCountsEveryWorkItem) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  ASSERT_TRUE(cl.build(R"(
    __kernel void cas(__global int* counter) {
      int old, seen;
      do {
        old = *counter;
        seen = atomic_cmpxchg(counter, old, old + 1);
      } while (seen != old);
    })"));
  const uint64_t vc = cl.memory.upload(std::vector<int32_t>(1));
  cl.run_ok("cas", {Arg::buffer(vc)}, NDRange::linear(512, 64));
  EXPECT_EQ(cl.memory.download<int32_t>(vc, 1)[0], 512);
}

TEST(Types, ConstantTablesPrivateArraysAndStructArguments) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  ASSERT_TRUE(cl.build(R"(
    __constant int kTable[8] = {3, 1, 4, 1, 5, 9, 2, 6};
    typedef struct { int scale; float offset; } Params;
    __kernel void tables(__global int* out, __global float* fout, Params p) {
      int i = get_global_id(0);
      int priv[16];
      for (int k = 0; k < 16; ++k) priv[k] = k * i;
      out[i] = kTable[i % 8] * p.scale + priv[(i * 7) % 16];
      fout[i] = (float)i + p.offset;
    })"));
  const CompiledKernel* k = cl.program.find("tables");
  ASSERT_NE(k, nullptr);
  ASSERT_EQ(k->args.size(), 3u);
  EXPECT_EQ(k->args[2].kind, ArgKind::kStruct);
  const int n = 40;
  const uint64_t vo = cl.memory.upload(std::vector<int32_t>(n)), vf = cl.memory.upload(std::vector<float>(n));
  struct Params {
    int32_t scale;
    float offset;
  } params{10, 0.5f};
  cl.run_ok("tables", {Arg::buffer(vo), Arg::buffer(vf), Arg::value(params)}, NDRange::linear(n, 8));
  const int table[8] = {3, 1, 4, 1, 5, 9, 2, 6};
  const auto out = cl.memory.download<int32_t>(vo, n);
  const auto fout = cl.memory.download<float>(vf, n);
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(out[i], table[i % 8] * 10 + ((i * 7) % 16) * i) << i;
    EXPECT_EQ(fout[i], i + 0.5f) << i;
  }
}

TEST(Types, IntegerAndMathBuiltins) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  ASSERT_TRUE(cl.build(R"(
    __kernel void builtins(__global const int* in, __global int* iout, __global float* fout) {
      int i = get_global_id(0);
      int x = in[i];
      uint u = (uint)x;
      iout[i * 8 + 0] = min(x, 7) + max(x, -3);
      iout[i * 8 + 1] = abs(x);
      iout[i * 8 + 2] = clz(u);
      iout[i * 8 + 3] = popcount(u);
      iout[i * 8 + 4] = mul_hi(x, 0x12345678);
      iout[i * 8 + 5] = rotate(u, 5u);
      iout[i * 8 + 6] = clamp(x, -100, 100);
      iout[i * 8 + 7] = (int)get_work_dim() * 1000 + (int)get_local_size(0) + (int)get_num_groups(0) + (int)get_global_size(0);
      float f = (float)x * 0.01f;
      fout[i * 6 + 0] = sqrt(fabs(f));
      fout[i * 6 + 1] = fmin(f, 0.5f) + fmax(f, -0.5f);
      fout[i * 6 + 2] = floor(f) + ceil(f);
      fout[i * 6 + 3] = exp2(f * 0.001f) + log2(fabs(f) + 1.0f);
      fout[i * 6 + 4] = sin(f) + cos(f);
      fout[i * 6 + 5] = fma(f, f, 1.0f) + native_rsqrt(fabs(f) + 1.0f);
    })"));
  const int n = 64;
  std::vector<int32_t> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i - 32) * 12345 + (i % 3 == 0 ? -7 : 7);
  const uint64_t vi = cl.memory.upload(in), vo = cl.memory.upload(std::vector<int32_t>(n * 8)),
                 vf = cl.memory.upload(std::vector<float>(n * 6));
  cl.run_ok("builtins", {Arg::buffer(vi), Arg::buffer(vo), Arg::buffer(vf)}, NDRange::linear(n, 16));
  const auto io = cl.memory.download<int32_t>(vo, n * 8);
  const auto fo = cl.memory.download<float>(vf, n * 6);
  for (int i = 0; i < n; ++i) {
    const int x = in[i];
    const uint32_t u = static_cast<uint32_t>(x);
    EXPECT_EQ(io[i * 8 + 0], std::min(x, 7) + std::max(x, -3)) << i;
    EXPECT_EQ(io[i * 8 + 1], std::abs(x)) << i;
    EXPECT_EQ(io[i * 8 + 2], u == 0 ? 32 : __builtin_clz(u)) << i;
    EXPECT_EQ(io[i * 8 + 3], __builtin_popcount(u)) << i;
    EXPECT_EQ(io[i * 8 + 4], static_cast<int32_t>((int64_t{x} * 0x12345678) >> 32)) << i;
    EXPECT_EQ(static_cast<uint32_t>(io[i * 8 + 5]), (u << 5) | (u >> 27)) << i;
    EXPECT_EQ(io[i * 8 + 6], std::clamp(x, -100, 100)) << i;
    EXPECT_EQ(io[i * 8 + 7], 1000 + 16 + 4 + 64) << i;
    const float f = static_cast<float>(x) * 0.01f;
    EXPECT_NEAR(fo[i * 6 + 0], std::sqrt(std::fabs(f)), 1e-4f * (1 + std::sqrt(std::fabs(f)))) << i;
    EXPECT_FLOAT_EQ(fo[i * 6 + 1], std::fmin(f, 0.5f) + std::fmax(f, -0.5f)) << i;
    EXPECT_FLOAT_EQ(fo[i * 6 + 2], std::floor(f) + std::ceil(f)) << i;
    EXPECT_NEAR(fo[i * 6 + 3], std::exp2(f * 0.001f) + std::log2(std::fabs(f) + 1.0f), 1e-3f * (1 + std::fabs(fo[i * 6 + 3]))) << i;
    EXPECT_NEAR(fo[i * 6 + 4], std::sin(f) + std::cos(f), 1e-4f) << i;
    EXPECT_NEAR(fo[i * 6 + 5], std::fma(f, f, 1.0f) + 1.0f / std::sqrt(std::fabs(f) + 1.0f), 1e-3f * (1 + std::fabs(fo[i * 6 + 5]))) << i;
  }
}

TEST(Types, PointerResultShuffleSaturationAndHyperbolicBuiltins) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  ASSERT_TRUE(cl.build(R"(
    __kernel void more(__global const float* in, __global float* fout, __global int* iout, __global char* cout) {
      int i = get_global_id(0);
      float x = in[i];
      float whole, c;
      fout[i * 8 + 0] = fract(x, &whole);
      fout[i * 8 + 1] = whole;
      fout[i * 8 + 2] = modf(x, &whole) + whole * 100.0f;
      fout[i * 8 + 3] = sincos(x, &c) + c * 10.0f;
      fout[i * 8 + 4] = sinh(x * 0.1f);
      fout[i * 8 + 5] = cosh(x * 0.1f);
      fout[i * 8 + 6] = tanh(x * 0.1f);
      fout[i * 8 + 7] = cbrt(x);
      int4 v = (int4)(i, i * 2, i * 3, i * 4);
      int8 w = shuffle2(v, v * 10, (uint8)(7, 0, 5, 2, 6, 1, 4, 3 + i * 8));
      iout[i * 4 + 0] = w.s0 + w.s1 + w.s2 * 3 + w.s7 * 7;
      iout[i * 4 + 1] = shuffle(v, (uint4)(3, 2, 1, 0)).x;
      iout[i * 4 + 2] = add_sat(i * 100000000, 2000000000);
      iout[i * 4 + 3] = (int)upsample((short)i, (ushort)(i * 3)) + hadd(i, 7 * i);
      cout[i * 2 + 0] = add_sat((char)(i * 5), (char)100);
      cout[i * 2 + 1] = sub_sat((char)(-i * 5), (char)100);
    })"));
  const int n = 32;
  std::vector<float> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i - 16) * 0.37f;
  const uint64_t vi = cl.memory.upload(in), vf = cl.memory.upload(std::vector<float>(n * 8)),
                 vo = cl.memory.upload(std::vector<int32_t>(n * 4)), vc = cl.memory.upload(std::vector<int8_t>(n * 2));
  cl.run_ok("more", {Arg::buffer(vi), Arg::buffer(vf), Arg::buffer(vo), Arg::buffer(vc)}, NDRange::linear(n, 32));
  const auto f = cl.memory.download<float>(vf, n * 8);
  const auto io = cl.memory.download<int32_t>(vo, n * 4);
  const auto co = cl.memory.download<int8_t>(vc, n * 2);
  for (int i = 0; i < n; ++i) {
    const float x = in[i];
    EXPECT_NEAR(f[i * 8 + 0], x - std::floor(x), 1e-6f) << i;
    EXPECT_EQ(f[i * 8 + 1], std::floor(x)) << i;
    float ip;
    const float frac = std::modf(x, &ip);
    EXPECT_NEAR(f[i * 8 + 2], frac + ip * 100.0f, 1e-4f) << i;
    EXPECT_NEAR(f[i * 8 + 3], std::sin(x) + std::cos(x) * 10.0f, 1e-4f) << i;
    EXPECT_NEAR(f[i * 8 + 4], std::sinh(x * 0.1f), 1e-6f * (1 + std::fabs(std::sinh(x * 0.1f)))) << i;
    EXPECT_NEAR(f[i * 8 + 5], std::cosh(x * 0.1f), 1e-6f * std::cosh(x * 0.1f)) << i;
    EXPECT_NEAR(f[i * 8 + 6], std::tanh(x * 0.1f), 1e-6f) << i;
    EXPECT_NEAR(f[i * 8 + 7], std::cbrt(x), 1e-5f * (1 + std::fabs(std::cbrt(x)))) << i;
    const int v[8] = {i, i * 2, i * 3, i * 4, i * 10, i * 20, i * 30, i * 40};
    const int mask7 = (3 + i * 8) & 7;
    EXPECT_EQ(io[i * 4 + 0], v[7] + v[0] + v[5] * 3 + v[mask7] * 7) << i;
    EXPECT_EQ(io[i * 4 + 1], i * 4) << i;
    const int32_t product = static_cast<int32_t>(static_cast<uint32_t>(i) * 100000000u);  // wraps, as in the kernel
    const int64_t sat = int64_t{product} + 2000000000;
    EXPECT_EQ(io[i * 4 + 2], static_cast<int32_t>(std::min<int64_t>(sat, INT32_MAX))) << i;
    EXPECT_EQ(io[i * 4 + 3], ((i << 16) | (i * 3)) + ((i + 7 * i) >> 1)) << i;
    EXPECT_EQ(co[i * 2 + 0], static_cast<int8_t>(std::clamp(static_cast<int8_t>(i * 5) + 100, -128, 127))) << i;
    EXPECT_EQ(co[i * 2 + 1], static_cast<int8_t>(std::clamp(static_cast<int8_t>(-i * 5) - 100, -128, 127))) << i;
  }
}

TEST(Types, AsyncWorkGroupCopies) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl(16);
  ASSERT_TRUE(cl.build(R"(
    __kernel void staged(__global const float4* in, __global float* out, __global float4* back, __local float4* tile) {
      event_t e = async_work_group_copy(tile, in + get_group_id(0) * 64, 64, 0);
      wait_group_events(1, &e);
      out[get_global_id(0)] = tile[63 - get_local_id(0)].y;
      barrier(CLK_LOCAL_MEM_FENCE);
      event_t e2 = async_work_group_strided_copy(back + get_group_id(0) * 128, tile, 64, 2, 0);
      wait_group_events(1, &e2);
    })"));
  const int groups = 3, group_size = 48;  // fewer work-items than elements: each copies several
  std::vector<float> in(groups * 64 * 4);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i);
  const uint64_t vi = cl.memory.upload(in), vo = cl.memory.upload(std::vector<float>(groups * group_size)),
                 vb = cl.memory.upload(std::vector<float>(groups * 128 * 4, -1.0f));
  cl.run_ok("staged", {Arg::buffer(vi), Arg::buffer(vo), Arg::buffer(vb), Arg::local(64 * 16)},
            NDRange::linear(groups * group_size, group_size));
  const auto out = cl.memory.download<float>(vo, groups * group_size);
  const auto back = cl.memory.download<float>(vb, groups * 128 * 4);
  for (int g = 0; g < groups; ++g) {
    for (int l = 0; l < group_size; ++l) EXPECT_EQ(out[g * group_size + l], in[(g * 64 + 63 - l) * 4 + 1]) << g << " " << l;
    for (int e = 0; e < 128; ++e)
      for (int c = 0; c < 4; ++c)
        EXPECT_EQ(back[(g * 128 + e) * 4 + c], e % 2 == 0 ? in[(g * 64 + e / 2) * 4 + c] : -1.0f) << g << " " << e;
  }
}

TEST(Types, SaturatingAndRoundingConversions) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  ASSERT_TRUE(cl.build(R"(
    __kernel void conv(__global const int* in, __global const float* fin, __global int* out) {
      int i = get_global_id(0);
      int x = in[i];
      float f = fin[i];
      out[i * 10 + 0] = convert_uchar_sat(x);
      out[i * 10 + 1] = convert_char_sat(x);
      out[i * 10 + 2] = convert_ushort_sat((uint)x);
      out[i * 10 + 3] = convert_short_sat((long)x * 100000);
      out[i * 10 + 4] = convert_uchar_sat(f);
      out[i * 10 + 5] = convert_int_rte(f);
      out[i * 10 + 6] = convert_int_sat_rtp(f);
      out[i * 10 + 7] = convert_int_rtn(f);
      out[i * 10 + 8] = (int)convert_uint_sat((long)x * 3);
      out[i * 10 + 9] = convert_char_sat((uchar)x);
    })"));
  const int n = 64;
  std::vector<int32_t> in(n);
  std::vector<float> fin(n);
  for (int i = 0; i < n; ++i) {
    in[i] = (i - 32) * (i % 2 ? 13 : 7919);
    fin[i] = (i - 32) * 9.75f + (i % 3) * 0.5f;
  }
  const uint64_t vi = cl.memory.upload(in), vf = cl.memory.upload(fin), vo = cl.memory.upload(std::vector<int32_t>(n * 10));
  cl.run_ok("conv", {Arg::buffer(vi), Arg::buffer(vf), Arg::buffer(vo)}, NDRange::linear(n, 32));
  const auto out = cl.memory.download<int32_t>(vo, n * 10);
  for (int i = 0; i < n; ++i) {
    const int64_t x = in[i];
    const float f = fin[i];
    EXPECT_EQ(out[i * 10 + 0], std::clamp<int64_t>(x, 0, 255)) << i;
    EXPECT_EQ(out[i * 10 + 1], std::clamp<int64_t>(x, -128, 127)) << i;
    EXPECT_EQ(out[i * 10 + 2], std::min<uint64_t>(static_cast<uint32_t>(x), 65535)) << i;
    EXPECT_EQ(out[i * 10 + 3], std::clamp<int64_t>(x * 100000, -32768, 32767)) << i;
    EXPECT_EQ(out[i * 10 + 4], static_cast<int>(std::clamp(std::trunc(f), 0.0f, 255.0f))) << i;
    EXPECT_EQ(out[i * 10 + 5], static_cast<int>(std::nearbyint(f))) << i;
    EXPECT_EQ(out[i * 10 + 6], static_cast<int>(std::ceil(f))) << i;
    EXPECT_EQ(out[i * 10 + 7], static_cast<int>(std::floor(f))) << i;
    EXPECT_EQ(static_cast<uint32_t>(out[i * 10 + 8]), static_cast<uint32_t>(std::clamp<int64_t>(x * 3, 0, UINT32_MAX))) << i;
    EXPECT_EQ(out[i * 10 + 9], std::min<int>(static_cast<uint8_t>(x), 127)) << i;
  }
}

TEST(Types, NarrowAndWideVectorsConstantArgumentsAndDumps) {
  GSGPU_REQUIRE_FRONT_END();
  char dir_template[] = "/tmp/gsgpu-dump-test-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  setenv("GSGPU_DUMP_DIR", dir_template, 1);
  ClRunner cl;
  const bool built = cl.build(R"(
    __kernel void vecs(__global const char4* c, __constant long2* weights, __global char4* out_c, __global long* out_l) {
      int i = get_global_id(0);
      char4 v = c[i];
      char4 w = v * (char4)(3, -2, 5, 7) + v.wzyx;   // wraps at 8 bits
      out_c[i] = w >> (char4)1;
      long2 p = convert_long2(v.xy) * weights[i % 4];
      out_l[i] = p.x + p.y + any(v < (char4)0) * 1000 + all(v != (char4)0) * 10000;
    })");
  unsetenv("GSGPU_DUMP_DIR");
  ASSERT_TRUE(built);
  const int n = 64;
  std::vector<int8_t> c(n * 4);
  for (int i = 0; i < n * 4; ++i) c[i] = static_cast<int8_t>(i * 29 - 100);
  const std::vector<int64_t> weights = {1, -3, 1000000000000ll, 7, -5, 11, 2, 13};
  const uint64_t vc = cl.memory.upload(c), vw = cl.memory.upload(weights), voc = cl.memory.upload(std::vector<int8_t>(n * 4)),
                 vol = cl.memory.upload(std::vector<int64_t>(n));
  cl.run_ok("vecs", {Arg::buffer(vc), Arg::buffer(vw), Arg::buffer(voc), Arg::buffer(vol)}, NDRange::linear(n, 16));
  const auto oc = cl.memory.download<int8_t>(voc, n * 4);
  const auto ol = cl.memory.download<int64_t>(vol, n);
  const int mul[4] = {3, -2, 5, 7};
  for (int i = 0; i < n; ++i) {
    const int8_t* v = &c[i * 4];
    bool any_negative = false, all_nonzero = true;
    for (int k = 0; k < 4; ++k) {
      const int8_t w = static_cast<int8_t>(v[k] * mul[k] + v[3 - k]);
      EXPECT_EQ(oc[i * 4 + k], static_cast<int8_t>(w >> 1)) << i << " " << k;
      any_negative |= v[k] < 0;
      all_nonzero &= v[k] != 0;
    }
    const int64_t expect = int64_t{v[0]} * weights[(i % 4) * 2] + int64_t{v[1]} * weights[(i % 4) * 2 + 1] +
                           (any_negative ? 1000 : 0) + (all_nonzero ? 10000 : 0);
    EXPECT_EQ(ol[i], expect) << i;
  }
  size_t spirv_files = 0, assembly_files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir_template)) {
    spirv_files += entry.path().extension() == ".spv";
    assembly_files += entry.path().string().find(".vecs.gsgpu.s") != std::string::npos;
  }
  EXPECT_EQ(spirv_files, 1u);
  EXPECT_EQ(assembly_files, 1u);
  std::filesystem::remove_all(dir_template);
}

TEST(Types, SaturatingAndHalvingBuiltinsOnEveryWidth) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  ASSERT_TRUE(cl.build(R"(
    __kernel void sat(__global const long* in, __global long* out) {
      int i = get_global_id(0);
      long x = in[i], y = in[63 - i];
      ulong ux = (ulong)x, uy = (ulong)y;
      out[i * 10 + 0] = add_sat(x, y);
      out[i * 10 + 1] = sub_sat(x, y);
      out[i * 10 + 2] = (long)add_sat(ux, uy);
      out[i * 10 + 3] = (long)sub_sat(ux, uy);
      out[i * 10 + 4] = hadd(x, y);
      out[i * 10 + 5] = (long)rhadd(ux, uy);
      out[i * 10 + 6] = mad_sat((int)x, (int)y, (int)(x >> 32));
      out[i * 10 + 7] = mad_sat((short)x, (short)y, (short)3);
      out[i * 10 + 8] = mad_hi(x, y, 5L);
      out[i * 10 + 9] = (long)mad_hi((uchar)x, (uchar)y, (uchar)250);
    })"));
  const int n = 64;
  std::vector<int64_t> in(n);
  for (int i = 0; i < n; ++i)
    in[i] = (i % 4 == 0) ? INT64_MAX - i : (i % 4 == 1) ? INT64_MIN + i : (int64_t{i} - 32) * 0x0123456789abll;
  const uint64_t vi = cl.memory.upload(in), vo = cl.memory.upload(std::vector<int64_t>(n * 10));
  cl.run_ok("sat", {Arg::buffer(vi), Arg::buffer(vo)}, NDRange::linear(n, 32));
  const auto out = cl.memory.download<int64_t>(vo, n * 10);
  for (int i = 0; i < n; ++i) {
    const int64_t x = in[i], y = in[63 - i];
    const uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
    __int128 wide = static_cast<__int128>(x) + y;
    EXPECT_EQ(out[i * 10 + 0], static_cast<int64_t>(std::clamp<__int128>(wide, INT64_MIN, INT64_MAX))) << i;
    wide = static_cast<__int128>(x) - y;
    EXPECT_EQ(out[i * 10 + 1], static_cast<int64_t>(std::clamp<__int128>(wide, INT64_MIN, INT64_MAX))) << i;
    EXPECT_EQ(static_cast<uint64_t>(out[i * 10 + 2]), ux + uy < ux ? UINT64_MAX : ux + uy) << i;
    EXPECT_EQ(static_cast<uint64_t>(out[i * 10 + 3]), uy > ux ? 0 : ux - uy) << i;
    EXPECT_EQ(out[i * 10 + 4], static_cast<int64_t>((static_cast<__int128>(x) + y) >> 1)) << i;
    EXPECT_EQ(static_cast<uint64_t>(out[i * 10 + 5]), static_cast<uint64_t>((static_cast<unsigned __int128>(ux) + uy + 1) >> 1)) << i;
    const int64_t mad32 = int64_t{static_cast<int32_t>(x)} * static_cast<int32_t>(y) + static_cast<int32_t>(x >> 32);
    EXPECT_EQ(out[i * 10 + 6], std::clamp<int64_t>(mad32, INT32_MIN, INT32_MAX)) << i;
    const int32_t mad16 = int32_t{static_cast<int16_t>(x)} * static_cast<int16_t>(y) + 3;
    EXPECT_EQ(out[i * 10 + 7], std::clamp<int32_t>(mad16, INT16_MIN, INT16_MAX)) << i;
    EXPECT_EQ(out[i * 10 + 8], static_cast<int64_t>((static_cast<__int128>(x) * y) >> 64) + 5) << i;
    EXPECT_EQ(out[i * 10 + 9], static_cast<uint8_t>(((static_cast<uint8_t>(x) * static_cast<uint8_t>(y)) >> 8) + 250)) << i;
  }
}

TEST(Types, MoreMathBuiltinsAgreeWithTheHostLibrary) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  ASSERT_TRUE(cl.build(R"(
    __kernel void m(__global const float* in, __global float* out, __global int* iout) {
      int i = get_global_id(0);
      float x = in[i];
      float t = x * 0.05f;             // within (-1, 1)
      out[i * 12 + 0] = sinpi(x);
      out[i * 12 + 1] = cospi(x);
      out[i * 12 + 2] = asinh(x);
      out[i * 12 + 3] = acosh(fabs(x) + 1.0f);
      out[i * 12 + 4] = atanh(t);
      out[i * 12 + 5] = expm1(t);
      out[i * 12 + 6] = log1p(t);
      out[i * 12 + 7] = logb(x);
      out[i * 12 + 8] = nextafter(x, 0.0f);
      int e;
      out[i * 12 + 9] = frexp(x, &e);
      iout[i * 2 + 0] = e;
      iout[i * 2 + 1] = ilogb(x);
      out[i * 12 + 10] = atanpi(x);
      out[i * 12 + 11] = asin(t);
    })"));
  const int n = 64;
  std::vector<float> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i - 31.5f) * 0.61f + (i == 7 ? 1e-3f : 0.0f);
  in[10] = 3.0f;   // an integer: sinpi is exactly 0
  in[11] = 2.5f;   // cospi is exactly 0
  in[12] = 1e-40f; // a denormal for frexp/logb
  const uint64_t vi = cl.memory.upload(in), vo = cl.memory.upload(std::vector<float>(n * 12)), vio = cl.memory.upload(std::vector<int32_t>(n * 2));
  cl.run_ok("m", {Arg::buffer(vi), Arg::buffer(vo), Arg::buffer(vio)}, NDRange::linear(n, 32));
  const auto out = cl.memory.download<float>(vo, n * 12);
  const auto iout = cl.memory.download<int32_t>(vio, n * 2);
  const double pi = 3.14159265358979323846;
  auto near = [](double got, double want) { return std::fabs(got - want) <= 2e-6 * std::max(1.0, std::fabs(want)); };
  for (int i = 0; i < n; ++i) {
    const double x = in[i], t = static_cast<float>(in[i] * 0.05f);
    EXPECT_PRED2(near, out[i * 12 + 0], std::sin(pi * x)) << i;
    EXPECT_PRED2(near, out[i * 12 + 1], std::cos(pi * x)) << i;
    EXPECT_PRED2(near, out[i * 12 + 2], std::asinh(x)) << i;
    EXPECT_PRED2(near, out[i * 12 + 3], std::acosh(static_cast<double>(std::fabs(in[i]) + 1.0f))) << i;
    EXPECT_PRED2(near, out[i * 12 + 4], std::atanh(t)) << i;
    EXPECT_PRED2(near, out[i * 12 + 5], std::expm1(t)) << i;
    EXPECT_PRED2(near, out[i * 12 + 6], std::log1p(t)) << i;
    EXPECT_EQ(out[i * 12 + 7], std::logb(in[i])) << i;
    EXPECT_EQ(out[i * 12 + 8], std::nextafter(in[i], 0.0f)) << i;
    int e = 0;
    EXPECT_EQ(out[i * 12 + 9], std::frexp(in[i], &e)) << i;
    EXPECT_EQ(iout[i * 2 + 0], e) << i;
    EXPECT_EQ(iout[i * 2 + 1], std::ilogb(in[i])) << i;
    EXPECT_PRED2(near, out[i * 12 + 10], std::atan(x) / pi) << i;
    EXPECT_PRED2(near, out[i * 12 + 11], std::asin(t)) << i;
  }
  EXPECT_EQ(out[10 * 12 + 0], 0.0f);
  EXPECT_EQ(out[11 * 12 + 1], 0.0f);
}

TEST(Types, FmodAndRemainderAreExact) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  ASSERT_TRUE(cl.build(R"(
    __kernel void m(__global const float* x, __global const float* y, __global float* out) {
      int i = get_global_id(0);
      out[i] = fmod(x[i], y[i]);
      out[i + get_global_size(0)] = remainder(x[i], y[i]);
    })"));
  std::vector<float> x, y;
  const float specials[] = {0.0f, -0.0f, 1.0f, -1.0f, 3.5f, 1e30f, -1e30f, 1e-40f, 7e-39f, 123456.789f,
                            INFINITY, -INFINITY, NAN, 3.4e38f, 1.17549435e-38f, 0.1f};
  for (float a : specials)
    for (float b : specials) {
      x.push_back(a);
      y.push_back(b);
    }
  for (int i = 0; i < 256; ++i) {
    x.push_back(std::ldexp(1.0f + i * 0.37f, (i * 7) % 200 - 100) * (i % 2 ? -1.0f : 1.0f));
    y.push_back(std::ldexp(1.0f + i * 0.11f, (i * 13) % 120 - 60));
  }
  const size_t n = x.size();
  const uint64_t vx = cl.memory.upload(x), vy = cl.memory.upload(y), vo = cl.memory.upload(std::vector<float>(2 * n));
  cl.run_ok("m", {Arg::buffer(vx), Arg::buffer(vy), Arg::buffer(vo)}, NDRange::linear(static_cast<uint32_t>(n), 8));
  const auto out = cl.memory.download<float>(vo, 2 * n);
  for (size_t i = 0; i < n; ++i) {
    for (int which = 0; which < 2; ++which) {
      const float want = which == 0 ? std::fmod(x[i], y[i]) : std::remainder(x[i], y[i]);
      const float got = out[i + which * n];
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got)) << x[i] << " " << y[i] << " " << which;
      } else {
        EXPECT_EQ(std::bit_cast<uint32_t>(got), std::bit_cast<uint32_t>(want))
            << x[i] << (which ? " remainder " : " fmod ") << y[i] << " = " << got << ", want " << want;
      }
    }
  }
}

}  // namespace
}  // namespace gsgpu::compiler::testing
