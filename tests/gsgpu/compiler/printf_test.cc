// printf in the compiler: the format table, the argument-buffer fields and the records the kernel
// writes into the printf buffer (layout in gsgpu/compiler/arg_buffer.h); build errors for
// arguments that are not literals.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>

#include "tests/gsgpu/compiler/cl_harness.h"

namespace gsgpu::compiler::testing {
namespace {

// Runs `name` with a printf buffer of `capacity` record bytes; returns the buffer (header first).
std::vector<uint8_t> run_with_printf(ClRunner& cl, const std::string& name, const std::vector<Arg>& args,
                                     const NDRange& range, uint32_t capacity) {
  const CompiledKernel* kernel = cl.program.find(name);
  EXPECT_NE(kernel, nullptr);
  if (!kernel) return {};
  EXPECT_TRUE(kernel->uses_printf());
  std::vector<KernelArgValue> values;
  for (const Arg& a : args) values.push_back(KernelArgValue{a.bytes, a.kind == Arg::Kind::kLocal ? a.local_size : 0});
  ArgumentBuffer buffer;
  std::string error;
  EXPECT_TRUE(build_argument_buffer(*kernel, values, range.dims, &buffer, &error)) << error;
  const uint64_t printf_va = cl.memory.upload(std::vector<uint8_t>(capacity + kPrintfHeaderBytes, 0xee));
  std::memset(cl.memory.host(printf_va), 0, kPrintfHeaderBytes);
  EXPECT_TRUE(set_printf_buffer(*kernel, printf_va, capacity, buffer.bytes));
  DispatchParams p;
  p.code_va = cl.memory.upload(kernel->code);
  p.code_size = static_cast<uint32_t>(kernel->code.size() * 4);
  p.arg_va = cl.memory.upload(buffer.bytes);
  p.arg_size = static_cast<uint32_t>(buffer.bytes.size());
  for (int d = 0; d < 3; ++d) {
    p.group_size[d] = range.local[d];
    p.grid_size[d] = range.global[d] / range.local[d];
  }
  p.local_mem_size = buffer.local_mem_size;
  p.private_mem_size = kernel->private_bytes;
  const DispatchResult r = cl.cores.run(p, cl.memory);
  EXPECT_FALSE(r.fault.has_value()) << (r.fault ? r.fault->message : "") << "\n" << kernel->assembly;
  return cl.memory.download<uint8_t>(printf_va, capacity + kPrintfHeaderBytes);
}

uint32_t word(const std::vector<uint8_t>& b, size_t at) {
  uint32_t v;
  std::memcpy(&v, &b.at(at + 3) - 3, 4);
  return v;
}

TEST(Printf, TableAndRecords) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  ASSERT_TRUE(cl.build(R"(
    __kernel void k(__global int* ret, float f, long l, int4 v) {
      int i = get_global_id(0);
      ret[i] = printf("i=%d f=%.2f s=%s l=%ld c=%c v=%v4d\n", i, f, "lit", l, (char)'A', v);
    })"));
  const CompiledKernel* k = cl.program.find("k");
  ASSERT_NE(k, nullptr);
  ASSERT_EQ(k->printf_formats.size(), 1u);
  const PrintfFormat& f = k->printf_formats[0];
  EXPECT_EQ(f.format, "i=%d f=%.2f s=%s l=%ld c=%c v=%v4d\n");
  ASSERT_EQ(f.args.size(), 6u);
  EXPECT_EQ(f.args[0].kind, PrintfArg::Kind::kInt);
  EXPECT_EQ(f.args[0].element_bytes, 4);
  EXPECT_EQ(f.args[1].kind, PrintfArg::Kind::kFloat);  // promoted to double by clang, recorded as the float
  EXPECT_EQ(f.args[1].element_bytes, 4);
  EXPECT_EQ(f.args[2].kind, PrintfArg::Kind::kString);
  EXPECT_EQ(f.args[3].element_bytes, 8);
  EXPECT_EQ(f.args[4].kind, PrintfArg::Kind::kInt);
  EXPECT_EQ(f.args[5].vector_size, 4);
  EXPECT_EQ(f.record_bytes, 8u + 4 + 4 + 4 + 8 + 4 + 16);
  ASSERT_EQ(k->printf_strings.size(), 1u);
  EXPECT_EQ(k->printf_strings[0], "lit");
  EXPECT_GE(k->printf_buffer_offset, k->work_dim_offset + 4);
  EXPECT_LE(k->printf_buffer_offset + kPrintfArgFieldBytes, k->arg_buffer_size);

  const int n = 40;
  const uint64_t ret = cl.memory.upload(std::vector<int32_t>(n, 7));
  const float fv = 2.5f;
  const int64_t lv = -5000000000LL;
  const std::vector<Arg> args = {Arg::buffer(ret), Arg::value(fv), Arg::value(lv), Arg::value(std::array<int32_t, 4>{1, -2, 3, -4})};
  const uint32_t size = f.record_bytes;
  const auto buf = run_with_printf(cl, "k", args, NDRange::linear(n, 8), 1 << 16);
  uint64_t cursor;
  std::memcpy(&cursor, buf.data(), 8);
  EXPECT_EQ(cursor, uint64_t{n} * size);
  std::vector<bool> seen(n);
  for (int r = 0; r < n; ++r) {
    const size_t at = kPrintfHeaderBytes + size_t(r) * size;
    EXPECT_EQ(word(buf, at), 0u);
    EXPECT_EQ(word(buf, at + 4), size);
    const uint32_t i = word(buf, at + 8);
    ASSERT_LT(i, uint32_t(n));
    seen[i] = true;
    float got;
    const uint32_t fbits = word(buf, at + 12);
    std::memcpy(&got, &fbits, 4);
    EXPECT_EQ(got, fv);
    EXPECT_EQ(word(buf, at + 16), 0u);  // string index
    EXPECT_EQ(uint64_t(word(buf, at + 20)) | uint64_t(word(buf, at + 24)) << 32, uint64_t(lv));
    EXPECT_EQ(word(buf, at + 28), uint32_t('A'));
    EXPECT_EQ(int32_t(word(buf, at + 32)), 1);
    EXPECT_EQ(int32_t(word(buf, at + 44)), -4);
  }
  for (int i = 0; i < n; ++i) EXPECT_TRUE(seen[i]) << i;
  EXPECT_EQ(cl.memory.download<int32_t>(ret, n), std::vector<int32_t>(n, 0));
}

TEST(Printf, FullBufferReturnsMinusOneAndWritesNothing) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  ASSERT_TRUE(cl.build(R"(
    __kernel void k(__global int* ret) {
      int i = get_global_id(0);
      ret[i] = printf("%d\n", i);
    })"));
  const int n = 64;
  const uint64_t ret = cl.memory.upload(std::vector<int32_t>(n, 7));
  const uint32_t size = cl.program.find("k")->printf_formats.at(0).record_bytes;  // 12
  const uint32_t capacity = 10 * size + 4;  // room for 10 records
  const auto buf = run_with_printf(cl, "k", {Arg::buffer(ret)}, NDRange::linear(n, 32), capacity);
  const auto results = cl.memory.download<int32_t>(ret, n);
  EXPECT_EQ(std::count(results.begin(), results.end(), 0), 10);
  EXPECT_EQ(std::count(results.begin(), results.end(), -1), n - 10);
  // Nothing written past the ten records (the slack is still the fill pattern).
  for (size_t at = kPrintfHeaderBytes + 10 * size; at < buf.size(); ++at) ASSERT_EQ(buf[at], 0xee) << at;
}

// A computed double (cl_khr_fp64) is recorded as its 8 bytes, low word first.
TEST(Printf, ComputedDoublesAreRecordedWhole) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  ASSERT_TRUE(cl.build(R"(
    __kernel void k(__global const double* d) { printf("%.17g\n", d[0] * 3.0); })"));
  const double in = 0.1;
  const uint64_t vd = cl.memory.upload(std::vector<double>{in});
  const auto buf = run_with_printf(cl, "k", {Arg::buffer(vd)}, NDRange::linear(1, 1), 1 << 12);
  ASSERT_GE(buf.size(), kPrintfHeaderBytes + 16);
  EXPECT_EQ(word(buf, kPrintfHeaderBytes + 4), 16u);  // header + one 8-byte slot
  const uint64_t bits = uint64_t(word(buf, kPrintfHeaderBytes + 8)) | uint64_t(word(buf, kPrintfHeaderBytes + 12)) << 32;
  EXPECT_EQ(bits, std::bit_cast<uint64_t>(in * 3.0));
  const PrintfFormat& f = cl.program.find("k")->printf_formats.at(0);
  EXPECT_EQ(f.args.at(0).kind, PrintfArg::Kind::kFloat);
  EXPECT_EQ(f.args.at(0).element_bytes, 8);
}

TEST(Printf, NonLiteralStringsFailTheBuild) {
  GSGPU_REQUIRE_FRONT_END();
  CompiledProgram program;
  std::string log;
  EXPECT_EQ(build_opencl_c(R"(
    __kernel void k(__constant char* s) { printf("%s\n", s); })", "", &program, &log),
            BuildStatus::kCompileError);
  EXPECT_NE(log.find("argument 1"), std::string::npos) << log;
  EXPECT_NE(log.find("not a string literal"), std::string::npos) << log;
  log.clear();
  EXPECT_EQ(build_opencl_c(R"(
    __kernel void k(__constant char* fmt) { printf(fmt); })", "", &program, &log),
            BuildStatus::kCompileError);
  EXPECT_NE(log.find("format string is not a string literal"), std::string::npos) << log;
}

TEST(Printf, KernelsWithoutPrintfKeepTheirLayout) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  ASSERT_TRUE(cl.build("__kernel void k(__global int* p) { p[0] = 1; }"));
  EXPECT_FALSE(cl.program.find("k")->uses_printf());
}

}  // namespace
}  // namespace gsgpu::compiler::testing
