// printf on the gsgpu executor: kernels print through the per-dispatch printf buffer; the text goes
// to the output printf.cc writes to (a temporary file here instead of stdout); a corrupt buffer is
// parsed safely.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <set>
#include <sstream>

#include "gsgpu/cl/printf.h"
#include "tests/gsgpu/cl/executor_fixture.h"

namespace gsvirt::vcomp::testing {
namespace {

using gsgpu::cl::format_printf_records;
using gsgpu::cl::parse_printf_formats;
using gsgpu::cl::set_printf_output;

class PrintfTest : public GsgpuExecutorTest {
 protected:
  void SetUp() override {
    GsgpuExecutorTest::SetUp();
    out_ = std::tmpfile();
    ASSERT_NE(out_, nullptr);
    set_printf_output(out_);
  }
  void TearDown() override {
    set_printf_output(nullptr);
    if (out_) std::fclose(out_);
    GsgpuExecutorTest::TearDown();
  }
  // Everything printed so far.
  std::string printed() {
    std::fflush(out_);
    std::string text;
    std::rewind(out_);
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, out_)) > 0) text.append(buf, n);
    return text;
  }
  FILE* out_ = nullptr;
};

TEST_F(PrintfTest, DeviceReportsTheBufferSize) {
  size_t size = 0;
  ASSERT_EQ(api().clGetDeviceInfo(device_, CL_DEVICE_PRINTF_BUFFER_SIZE, sizeof size, &size, nullptr), CL_SUCCESS);
  EXPECT_EQ(size, gsgpu::cl::kPrintfBufferSize);
}

TEST_F(PrintfTest, IntsFloatsStringsAndVectors) {
  REQUIRE_COMPILER();
  cl_program p = build(R"(
    __kernel void hello(__global int* ret, float f, int4 v, long l, uint u) {
      ret[0] = printf("int %d neg %i hex %#x u %u long %ld char %c\n", 42, -7, 255, u, l, 'Z');
      ret[1] = printf("float %.3f %e %g|%8.2f|%-6.1f|\n", f, f, f, f, -f);
      ret[2] = printf("str %s and %s, 100%%\n", "literal", "other");
      ret[3] = printf("vec %v4d hex %#v4hlx\n", v, v);
      ret[4] = printf("fvec %v2f short %hd\n", (float2)(0.5f, -1.25f), (short)-3);
    })");
  ASSERT_NE(p, nullptr);
  cl_kernel k = kernel(p, "hello");
  cl_mem ret = buffer(5 * sizeof(int));
  arg(k, 0, ret);
  arg(k, 1, 3.14159f);
  const cl_int4 v = {{1, -2, 3, 16}};
  arg(k, 2, v);
  arg(k, 3, cl_long(-5000000000LL));
  arg(k, 4, cl_uint(4000000000u));
  const size_t one = 1;
  ASSERT_EQ(run(k, 1, &one, &one), CL_SUCCESS);
  ASSERT_EQ(api().clFinish(queue_), CL_SUCCESS);
  EXPECT_EQ(read<int>(ret, 5), (std::vector<int>{0, 0, 0, 0, 0}));
  EXPECT_EQ(printed(),
            "int 42 neg -7 hex 0xff u 4000000000 long -5000000000 char Z\n"
            "float 3.142 3.141590e+00 3.14159|    3.14|-3.1  |\n"
            "str literal and other, 100%\n"
            "vec 1,-2,3,16 hex 0x1,0xfffffffe,0x3,0x10\n"
            "fvec 0.500000,-1.250000 short -3\n");
}

TEST_F(PrintfTest, ManyWorkItemsPrintOneLineEach) {
  REQUIRE_COMPILER();
  cl_program p = build(R"(
    __kernel void each(void) { printf("item %d of group %d\n", (int)get_global_id(0), (int)get_group_id(0)); })");
  ASSERT_NE(p, nullptr);
  cl_kernel k = kernel(p, "each");
  const size_t global = 1000, local = 50;
  ASSERT_EQ(run(k, 1, &global, &local), CL_SUCCESS);
  ASSERT_EQ(api().clFinish(queue_), CL_SUCCESS);
  std::istringstream lines(printed());
  std::set<int> items;
  std::string line;
  while (std::getline(lines, line)) {
    int item = -1, group = -1;
    ASSERT_EQ(std::sscanf(line.c_str(), "item %d of group %d", &item, &group), 2) << line;
    EXPECT_EQ(group, item / 50) << line;
    EXPECT_TRUE(items.insert(item).second) << "twice: " << line;
  }
  EXPECT_EQ(items.size(), 1000u);
}

TEST_F(PrintfTest, FullBufferMakesPrintfReturnMinusOne) {
  REQUIRE_COMPILER();
  // Each record: 8 bytes of header + 4 words = 24 bytes; 1 MiB holds 43690 of them.
  cl_program p = build(R"(
    __kernel void flood(__global int* ret) {
      int i = get_global_id(0);
      ret[i] = printf("%d %d %d %d\n", i, i, i, i);
    })");
  ASSERT_NE(p, nullptr);
  cl_kernel k = kernel(p, "flood");
  const size_t n = 50000, local = 250;
  cl_mem ret = buffer(n * sizeof(int));
  arg(k, 0, ret);
  ASSERT_EQ(run(k, 1, &n, &local), CL_SUCCESS);
  ASSERT_EQ(api().clFinish(queue_), CL_SUCCESS);
  const auto results = read<int>(ret, n);
  const size_t fits = gsgpu::cl::kPrintfBufferSize / 24;
  EXPECT_EQ(size_t(std::count(results.begin(), results.end(), 0)), fits);
  EXPECT_EQ(size_t(std::count(results.begin(), results.end(), -1)), n - fits);
  const std::string text = printed();
  EXPECT_EQ(size_t(std::count(text.begin(), text.end(), '\n')), fits);
}

TEST_F(PrintfTest, KernelWithoutPrintfPrintsNothing) {
  REQUIRE_COMPILER();
  cl_program p = build("__kernel void quiet(__global int* x) { x[0] = 1; }");
  ASSERT_NE(p, nullptr);
  cl_kernel k = kernel(p, "quiet");
  cl_mem x = buffer(4);
  arg(k, 0, x);
  const size_t one = 1;
  ASSERT_EQ(run(k, 1, &one, &one), CL_SUCCESS);
  ASSERT_EQ(api().clFinish(queue_), CL_SUCCESS);
  EXPECT_EQ(printed(), "");
}

TEST_F(PrintfTest, NonLiteralStringArgumentFailsTheBuild) {
  REQUIRE_COMPILER();
  const char* text = "__kernel void k(__constant char* s) { printf(\"%s\", s); }";
  cl_int err = CL_SUCCESS;
  cl_program p = api().clCreateProgramWithSource(context_, 1, &text, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  programs_.push_back(p);
  EXPECT_EQ(api().clBuildProgram(p, 1, &device_, "", nullptr, nullptr), CL_BUILD_PROGRAM_FAILURE);
  EXPECT_NE(build_log(p).find("not a string literal"), std::string::npos) << build_log(p);
}

// The parser on its own, with hand-made (and hostile) buffers.
gsgpu::compiler::CompiledKernel table() {
  using gsgpu::compiler::PrintfArg;
  gsgpu::compiler::CompiledKernel k;
  k.name = "t";
  gsgpu::compiler::PrintfFormat f;
  f.format = "a=%d s=%s\n";
  f.args = {PrintfArg{PrintfArg::Kind::kInt, 4, 1}, PrintfArg{PrintfArg::Kind::kString, 4, 1}};
  f.record_bytes = 16;
  k.printf_formats.push_back(f);
  gsgpu::compiler::PrintfFormat g;
  g.format = "%s %n %f %d %*d %999999d %lld\n";  // mismatches and conversions OpenCL does not have
  g.args = {PrintfArg{PrintfArg::Kind::kInt, 4, 1}};
  g.record_bytes = 12;
  k.printf_formats.push_back(g);
  k.printf_strings = {"x"};
  return k;
}

std::vector<uint8_t> words(std::initializer_list<uint32_t> w) {
  std::vector<uint8_t> b(w.size() * 4);
  std::memcpy(b.data(), std::data(w), b.size());
  return b;
}

TEST(PrintfParser, WellFormedRecords) {
  const auto k = parse_printf_formats(table());
  std::string out, problem;
  EXPECT_EQ(format_printf_records(*k, words({0, 16, 5, 0, 0, 16, uint32_t(-1), 0}), &out, &problem), 2u);
  EXPECT_EQ(out, "a=5 s=x\na=-1 s=x\n");
  EXPECT_EQ(problem, "");
  // The unused, still-zero tail of a full buffer ends the records quietly.
  out.clear();
  EXPECT_EQ(format_printf_records(*k, words({0, 16, 5, 0, 0, 0, 0, 0}), &out, &problem), 1u);
  EXPECT_EQ(problem, "");
}

TEST(PrintfParser, CorruptRecordsStopTheParseSafely) {
  const auto k = parse_printf_formats(table());
  struct Case {
    std::vector<uint8_t> bytes;
    size_t records;
    const char* problem;
  };
  const std::vector<Case> cases = {
      {words({0, 16, 1, 0, 7, 16, 0, 0}), 1, "unknown format id 7"},
      {words({0, 16, 1, 0, 0, 1000, 0, 0}), 1, "size 1000"},
      {words({0, 0xfffffff8u, 1, 0}), 0, "size 4294967288"},
      {words({0, 16, 1, 5}), 0, "string index 5"},
      {words({0, 16, 1}), 0, "size 16"},
      {{0, 0, 0}, 0, "truncated header"},
      {words({0, 8, 1, 0}), 0, "size 8"},
      {words({0, 16, 1, 0, 0, 0, 0, 1}), 1, "size 0"},  // a zero header followed by data is corrupt
  };
  for (const Case& c : cases) {
    std::string out, problem;
    EXPECT_EQ(format_printf_records(*k, c.bytes, &out, &problem), c.records) << c.problem;
    EXPECT_NE(problem.find(c.problem), std::string::npos) << problem;
  }
  // Random garbage never crashes (ASan/UBSan builds check the reads).
  uint32_t seed = 12345;
  for (int round = 0; round < 2000; ++round) {
    std::vector<uint8_t> junk(1 + round % 97);
    for (auto& b : junk) b = uint8_t((seed = seed * 1103515245 + 12345) >> 16);
    if (round % 3 == 0 && junk.size() >= 8) {  // plausible headers
      junk[0] = uint8_t(round % 2), junk[1] = junk[2] = junk[3] = 0;
      junk[4] = round % 2 ? 12 : 16, junk[5] = junk[6] = junk[7] = 0;
    }
    std::string out, problem;
    format_printf_records(*k, junk, &out, &problem);
  }
}

// The table comes from the compiler; one whose record size is too small for its arguments is
// still not trusted: each record's reads are bounds-checked and the parse stops there.
TEST(PrintfParser, TableWhoseSizesDoNotAddUpStopsAtTheRecord) {
  using gsgpu::compiler::PrintfArg;
  gsgpu::compiler::CompiledKernel bad;
  gsgpu::compiler::PrintfFormat f;
  f.format = "%d %d\n";
  f.args = {PrintfArg{PrintfArg::Kind::kInt, 4, 1}, PrintfArg{PrintfArg::Kind::kInt, 4, 1}};
  f.record_bytes = 12;  // 16 needed
  bad.printf_formats.push_back(f);
  const auto k = parse_printf_formats(bad);
  std::string out, problem;
  EXPECT_EQ(format_printf_records(*k, words({0, 12, 5}), &out, &problem), 0u);
  EXPECT_NE(problem.find("inconsistent"), std::string::npos) << problem;
}

TEST(PrintfParser, MismatchedConversionsArePrintedAsText) {
  const auto k = parse_printf_formats(table());
  std::string out, problem;
  EXPECT_EQ(format_printf_records(*k, words({1, 12, 9}), &out, &problem), 1u);
  // %s with an int, %n and %*d are not conversions it accepts: printed as text, nothing read.
  EXPECT_EQ(out.find("%s"), 0u) << out;
  EXPECT_NE(out.find("%n"), std::string::npos) << out;
  EXPECT_FALSE(problem.empty());
}

}  // namespace
}  // namespace gsvirt::vcomp::testing
