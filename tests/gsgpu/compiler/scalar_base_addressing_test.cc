// p[i] with p a pointer argument in a scalar register: a per-lane byte offset i * size, made once
// per block for each (index, size), and accesses that name p as their scalar base (docs/isa.md,
// "Scalar base"). Each kernel is checked against a C++ reference; the code shapes that matter
// (one offset for vadd's three arrays, the cheapest offset for each index type) are checked in the
// disassembly.
#include <cstdint>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/common/benchmark_kernels.h"
#include "tests/gsgpu/compiler/cl_harness.h"

namespace gsgpu::compiler::testing {
namespace {

using gsvirt::kernel_sources::kVectorAdd;

// Vector instructions: per-lane ALU, per-lane memory and per-lane branches.
size_t vector_instructions(const std::string& assembly) {
  return count_lines(assembly, "^\\s+(v_|global_|const_|local_|private_)");
}

TEST(ScalarBaseAddressing, VectorAddIsEightVectorInstructions) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  ASSERT_TRUE(cl.build(kVectorAdd));
  const std::string s = cl.assembly("vadd");
  // gid, compare, branch, one offset, two loads, add, store.
  EXPECT_EQ(vector_instructions(s), 8u) << s;
  EXPECT_EQ(count_lines(s, "v_shl_b64 v\\[\\d+:\\d+\\], v\\[\\d+:\\d+\\], 0x2"), 1u) << s;
  EXPECT_EQ(count_lines(s, "v_mad_u64|v_add_u64"), 0u) << s;
  EXPECT_EQ(count_lines(s, "global_load_b32 v\\d+, v\\[\\d+:\\d+\\], s\\[2:3\\], 0"), 1u) << s;
  EXPECT_EQ(count_lines(s, "global_load_b32 v\\d+, v\\[\\d+:\\d+\\], s\\[4:5\\], 0"), 1u) << s;
  EXPECT_EQ(count_lines(s, "global_store_b32 v\\[\\d+:\\d+\\], v\\d+, s\\[6:7\\], 0"), 1u) << s;

  const uint32_t n = 1000;
  std::vector<float> a(n), b(n);
  for (uint32_t i = 0; i < n; ++i) a[i] = 0.5f * i, b[i] = 7.0f - i;
  expect_vadd_adds(cl, a, b);
}

// Index types: a signed int index (negative values included: the pointer argument points into
// the middle of its buffer), an unsigned index, a byte array (stride 1), and a struct member (the
// member's offset goes to the offset field).
TEST(ScalarBaseAddressing, IndexTypesAndConstantParts) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl(16);
  ASSERT_TRUE(cl.build(R"(
    typedef struct { int x; int y; int z; } Triple;
    __kernel void signed_index(__global const int* in, __global int* out, int k) {
      int i = (int)get_global_id(0);
      out[i] = in[i - k] * 3;
    }
    __kernel void unsigned_index(__global const int* in, __global int* out) {
      uint i = (uint)get_global_id(0);
      out[i] = in[i] + 5;
    }
    __kernel void bytes(__global const uchar* in, __global uchar* out) {
      size_t i = get_global_id(0);
      out[i] = (uchar)(in[i] ^ 0x5a);
    }
    __kernel void members(__global const Triple* in, __global int* out) {
      size_t i = get_global_id(0);
      out[i] = in[i].y - in[i].z;
    })"));
  // int index: one signed widening multiply per offset, no separate sign extension.
  EXPECT_EQ(count_lines(cl.assembly("signed_index"), "v_mul_wide_i32 v\\[\\d+:\\d+\\], v\\d+, 0x4"), 2u)
      << cl.assembly("signed_index");
  EXPECT_EQ(count_lines(cl.assembly("signed_index"), "v_sext|v_shl_b64|v_mad"), 0u) << cl.assembly("signed_index");
  // uint index (clang: gid & 0xffffffff): one unsigned widening multiply, shared by both arrays.
  EXPECT_EQ(count_lines(cl.assembly("unsigned_index"), "v_mul_wide_u32 v\\[\\d+:\\d+\\], v\\d+, 0x4"), 1u)
      << cl.assembly("unsigned_index");
  EXPECT_EQ(count_lines(cl.assembly("unsigned_index"), "v_and_b64|v_shl_b64|v_mad"), 0u) << cl.assembly("unsigned_index");
  // bytes: the index is the offset.
  EXPECT_EQ(count_lines(cl.assembly("bytes"), "v_shl_b64|v_mul|v_mad|v_add_u64"), 0u) << cl.assembly("bytes");
  EXPECT_EQ(count_lines(cl.assembly("members"), "global_load_b32 v\\d+, v\\[\\d+:\\d+\\], s\\[\\d+:\\d+\\], (4|8) "), 2u)
      << cl.assembly("members");
  EXPECT_EQ(count_lines(cl.assembly("members"), "v_mad_u64|v_add_u64"), 0u) << cl.assembly("members");

  const uint32_t n = 96;
  const int32_t k = 7;
  std::vector<int32_t> in(n + k);
  for (uint32_t i = 0; i < in.size(); ++i) in[i] = static_cast<int32_t>(i * 13) - 400;
  const uint64_t vin = cl.memory.upload(in);
  uint64_t vout = cl.memory.upload(std::vector<int32_t>(n, 0));
  // in + k: lanes 0..k-1 read before the argument's address.
  cl.run_ok("signed_index", {Arg::buffer(vin + 4 * k), Arg::buffer(vout), Arg::value(k)}, NDRange::linear(n, 32));
  auto out = cl.memory.download<int32_t>(vout, n);
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(out[i], in[i] * 3) << i << "\n" << cl.assembly("signed_index");

  vout = cl.memory.upload(std::vector<int32_t>(n, 0));
  cl.run_ok("unsigned_index", {Arg::buffer(vin), Arg::buffer(vout)}, NDRange::linear(n, 32));
  out = cl.memory.download<int32_t>(vout, n);
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(out[i], in[i] + 5) << i << "\n" << cl.assembly("unsigned_index");

  std::vector<uint8_t> bytes(n);
  for (uint32_t i = 0; i < n; ++i) bytes[i] = static_cast<uint8_t>(i * 7 + 1);
  const uint64_t vbytes = cl.memory.upload(bytes);
  const uint64_t vbout = cl.memory.upload(std::vector<uint8_t>(n + 8, 0xee));
  cl.run_ok("bytes", {Arg::buffer(vbytes), Arg::buffer(vbout)}, NDRange::linear(n, 32));
  const auto bout = cl.memory.download<uint8_t>(vbout, n + 8);
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(bout[i], bytes[i] ^ 0x5a) << i;
  for (uint32_t i = n; i < n + 8; ++i) ASSERT_EQ(bout[i], 0xee) << i;

  std::vector<int32_t> triples(3 * n);
  for (uint32_t i = 0; i < triples.size(); ++i) triples[i] = static_cast<int32_t>(i * i) - 50;
  const uint64_t vt = cl.memory.upload(triples);
  vout = cl.memory.upload(std::vector<int32_t>(n, 0));
  cl.run_ok("members", {Arg::buffer(vt), Arg::buffer(vout)}, NDRange::linear(n, 32));
  out = cl.memory.download<int32_t>(vout, n);
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(out[i], triples[3 * i + 1] - triples[3 * i + 2]) << i;
}

// x & 0xffffffff on 64 bits is lowered as a zero extension of the low word: values with high bits.
TEST(ScalarBaseAddressing, LowWordMaskIsAZeroExtension) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  ASSERT_TRUE(cl.build(R"(
    __kernel void mask(__global ulong* io) {
      size_t i = get_global_id(0);
      io[i] = (io[i] & 0xffffffffUL) + (0xffffffffUL & (io[i] >> 7));
    })"));
  EXPECT_EQ(count_lines(cl.assembly("mask"), "v_and_b64"), 0u) << cl.assembly("mask");
  const uint32_t n = 64;
  std::vector<uint64_t> io(n);
  for (uint32_t i = 0; i < n; ++i) io[i] = 0x9e3779b97f4a7c15ull * (i + 1);
  const uint64_t vio = cl.memory.upload(io);
  cl.run_ok("mask", {Arg::buffer(vio)}, NDRange::linear(n, 32));
  const auto got = cl.memory.download<uint64_t>(vio, n);
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(got[i], (io[i] & 0xffffffffull) + ((io[i] >> 7) & 0xffffffffull)) << i;
}

// The address itself is still a value: stored, compared and indexed again, it must be the full
// 64-bit pointer, and accesses in different blocks (both sides of a branch) each make their own
// offset.
TEST(ScalarBaseAddressing, AddressesUsedAsValuesAndAcrossBlocks) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl(16);
  ASSERT_TRUE(cl.build(R"(
    __kernel void escape(__global int* p, __global ulong* where, __global int* out) {
      size_t i = get_global_id(0);
      __global int* q = &p[i];
      where[i] = (ulong)q;
      q[1] = (int)i;
      out[i] = (q == p + 5) ? 1 : 0;
    }
    __kernel void sides(__global const int* a, __global const int* b, __global int* c) {
      size_t i = get_global_id(0);
      if (i & 1) c[i] = a[i] * 2;
      else c[i] = b[i] - 1;
    })"));
  const uint32_t n = 64;
  const uint64_t vp = cl.memory.upload(std::vector<int32_t>(n + 1, -9));
  const uint64_t vwhere = cl.memory.upload(std::vector<uint64_t>(n, 0));
  const uint64_t vout = cl.memory.upload(std::vector<int32_t>(n, 7));
  cl.run_ok("escape", {Arg::buffer(vp), Arg::buffer(vwhere), Arg::buffer(vout)}, NDRange::linear(n, 16));
  const auto where = cl.memory.download<uint64_t>(vwhere, n);
  const auto out = cl.memory.download<int32_t>(vout, n);
  const auto p = cl.memory.download<int32_t>(vp, n + 1);
  for (uint32_t i = 0; i < n; ++i) {
    ASSERT_EQ(where[i], vp + 4 * i) << i;
    ASSERT_EQ(out[i], i == 5 ? 1 : 0) << i;
    ASSERT_EQ(p[i + 1], static_cast<int32_t>(i)) << i;
  }

  std::vector<int32_t> a(n), b(n);
  for (uint32_t i = 0; i < n; ++i) a[i] = static_cast<int32_t>(i) * 5, b[i] = 100 - static_cast<int32_t>(i);
  const uint64_t va = cl.memory.upload(a), vb = cl.memory.upload(b);
  const uint64_t vc = cl.memory.upload(std::vector<int32_t>(n, 0));
  cl.run_ok("sides", {Arg::buffer(va), Arg::buffer(vb), Arg::buffer(vc)}, NDRange::linear(n, 32));
  const auto c = cl.memory.download<int32_t>(vc, n);
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(c[i], i & 1 ? a[i] * 2 : b[i] - 1) << i << "\n" << cl.assembly("sides");
}

// Atomics through a scalar base (add), and cmpxchg, which has none, on the same array.
TEST(ScalarBaseAddressing, AtomicsWithAndWithoutABase) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  ASSERT_TRUE(cl.build(R"(
    __kernel void histogram(__global const uint* in, __global int* bins, __global int* swaps) {
      size_t i = get_global_id(0);
      atomic_add(&bins[in[i] % 8], 1);
      atomic_cmpxchg(&swaps[i % 4], 0, (int)i + 1);
    })"));
  const std::string s = cl.assembly("histogram");
  EXPECT_EQ(count_lines(s, "global_atomic_add_u32 v\\d+, v\\[\\d+:\\d+\\], 0x1, s\\[\\d+:\\d+\\], 0"), 1u) << s;
  const uint32_t n = 512;
  std::vector<uint32_t> in(n);
  std::vector<int32_t> want(8, 0);
  for (uint32_t i = 0; i < n; ++i) in[i] = i * 2654435761u, ++want[in[i] % 8];
  const uint64_t vin = cl.memory.upload(in);
  const uint64_t vbins = cl.memory.upload(std::vector<int32_t>(8, 0));
  const uint64_t vswaps = cl.memory.upload(std::vector<int32_t>(4, 0));
  cl.run_ok("histogram", {Arg::buffer(vin), Arg::buffer(vbins), Arg::buffer(vswaps)}, NDRange::linear(n, 64));
  EXPECT_EQ(cl.memory.download<int32_t>(vbins, 8), want);
  for (int32_t v : cl.memory.download<int32_t>(vswaps, 4)) EXPECT_NE(v, 0);
}

// An out-of-bounds p[i] still faults at the full address (pointer + offset), like before.
TEST(ScalarBaseAddressing, OutOfBoundsAccessFaultsAtTheFullAddress) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl(32, 1 << 20);
  ASSERT_TRUE(cl.build(R"(
    __kernel void far(__global int* p, ulong i) { p[i] = 1; })"));
  const uint64_t vp = cl.memory.upload(std::vector<int32_t>(4, 0));
  const uint64_t index = 1 << 24;
  const DispatchResult r = cl.run("far", {Arg::buffer(vp), Arg::value(index)}, NDRange::linear(1, 1));
  ASSERT_TRUE(r.fault.has_value());
  EXPECT_EQ(r.fault->kind, ShaderFaultKind::kMemory);
  EXPECT_EQ(r.fault->memory.address, vp + 4 * index);
}

}  // namespace
}  // namespace gsgpu::compiler::testing
