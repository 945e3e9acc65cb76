// Programs and kernels on the gsgpu executor: builds through gsgpu/compiler, arguments, NDRange on
// the emulated shader cores, faults, profiling.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "tests/common/benchmark_kernels.h"
#include "tests/gsgpu/cl/executor_fixture.h"

namespace gsvirt::vcomp::testing {
namespace {

using KernelsTest = GsgpuExecutorTest;

using kernel_sources::kMandelbrot;
using kernel_sources::kSgemmNaive;
using kernel_sources::kSgemmTile;
using kernel_sources::kSgemmTiled;
using kernel_sources::kVectorAdd;

// A static __local array and a __local argument in one kernel: each group stages its slice of a
// and b, then every work-item multiplies its mirror's pair (so the barrier and both areas matter).
constexpr char kStaged[] = R"(
#define GROUP 64
__kernel void staged(int n, __global const float* a, __global const float* b, __global float* c,
                     __local float* bt) {
  __local float at[GROUP];
  int l = get_local_id(0), g = get_global_id(0);
  at[l] = g < n ? a[g] : 0.0f;
  bt[l] = g < n ? b[g] : 0.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  int m = get_local_size(0) - 1 - l;
  if (g < n) c[g] = at[m] * bt[m];
}
)";

constexpr char kForever[] = R"(
__kernel void forever(__global volatile int* p) {
  int i = 0;
  while (p[0] == 0) i++;
  p[1] = i;
}
)";

std::vector<float> random_floats(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

TEST_F(KernelsTest, BuildFailureGivesTheCompilerLog) {
  const char* text = "__kernel void broken(__global float* a) { a[0] = undeclared_thing; }";
  cl_int err = CL_SUCCESS;
  cl_program p = api().clCreateProgramWithSource(context_, 1, &text, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  programs_.push_back(p);
  const cl_int build = api().clBuildProgram(p, 1, &device_, "", nullptr, nullptr);
  const std::string log = build_log(p);
  if (have_compiler())
    EXPECT_EQ(build, CL_BUILD_PROGRAM_FAILURE);
  else
    EXPECT_EQ(build, CL_COMPILER_NOT_AVAILABLE);
  EXPECT_FALSE(log.empty());
  if (have_compiler()) {
    EXPECT_NE(log.find("undeclared_thing"), std::string::npos) << log;
  }
  cl_build_status status = CL_BUILD_NONE;
  ASSERT_EQ(api().clGetProgramBuildInfo(p, device_, CL_PROGRAM_BUILD_STATUS, sizeof status, &status, nullptr),
            CL_SUCCESS);
  EXPECT_EQ(status, CL_BUILD_ERROR);
  EXPECT_EQ(api().clCreateKernel(p, "broken", &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_PROGRAM_EXECUTABLE);
}

TEST_F(KernelsTest, UnknownBuildOptionsAreRefused) {
  REQUIRE_COMPILER();
  const char* text = kVectorAdd;
  cl_program p = api().clCreateProgramWithSource(context_, 1, &text, nullptr, nullptr);
  programs_.push_back(p);
  EXPECT_EQ(api().clBuildProgram(p, 1, &device_, "-fsanitize=address", nullptr, nullptr), CL_INVALID_BUILD_OPTIONS);
}

TEST_F(KernelsTest, VectorAddWithChosenLocalSize) {
  REQUIRE_COMPILER();
  cl_program p = build(kVectorAdd);
  ASSERT_NE(p, nullptr);
  cl_kernel k = kernel(p, "vadd");
  ASSERT_NE(k, nullptr);
  const uint32_t n = 1000;
  auto a = random_floats(n, 1), b = random_floats(n, 2);
  cl_mem ma = buffer_of(a), mb = buffer_of(b), mc = buffer(n * 4);
  arg(k, 0, ma);
  arg(k, 1, mb);
  arg(k, 2, mc);
  arg(k, 3, n);
  const size_t global = n;
  ASSERT_EQ(run(k, 1, &global, nullptr), CL_SUCCESS);
  auto c = read<float>(mc, n);
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << i;
  // And with an explicit local size whose groups overrun n (the kernel guards).
  const size_t global2 = 1024, local = 64;
  ASSERT_EQ(run(k, 1, &global2, &local), CL_SUCCESS);
  EXPECT_EQ(read<float>(mc, n), c);
}

// Integer types spelled with keywords in any order are named as clang's argument metadata names
// them (CTS test_api get_kernel_arg_info: "unsigned char" is "uchar", "signed" is "int").
TEST_F(KernelsTest, ArgumentTypeNamesUseOpenCLIntegerNames) {
  REQUIRE_COMPILER();
  cl_program p = build(R"(
__kernel void spelled(__global unsigned char* a, __global char unsigned* b, __global signed* c,
                      __global long unsigned int* d, short signed e, unsigned f, __global float4* g) {
  a[0] = b[0]; c[0] = (int)d[0] + e + (int)f + (int)g[0].x;
})",
                       "-cl-kernel-arg-info");
  ASSERT_NE(p, nullptr);
  cl_kernel k = kernel(p, "spelled");
  ASSERT_NE(k, nullptr);
  const char* expected[] = {"uchar*", "uchar*", "int*", "ulong*", "short", "uint", "float4*"};
  for (cl_uint i = 0; i < 7; ++i) {
    char type[32] = {};
    ASSERT_EQ(api().clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_NAME, sizeof type, type, nullptr), CL_SUCCESS);
    EXPECT_STREQ(type, expected[i]) << "argument " << i;
  }
}

// vec_type_hint's type is reported as the source wrote it (SPIR-V loses its signedness; CTS
// test_api kernel_attributes), beside the attributes SPIR-V keeps.
TEST_F(KernelsTest, KernelAttributesNameTheVecTypeHint) {
  REQUIRE_COMPILER();
  cl_program p = build(R"(
__kernel __attribute__((vec_type_hint(uchar2))) __attribute__((reqd_work_group_size(8, 1, 1)))
void hinted(__global int* a) { a[0] = 1; }
__kernel void plain(__global int* a) { a[0] = 2; }
__attribute__((vec_type_hint(float4)))
__kernel void hinted_before(__global int* a) { a[0] = 3; })");
  ASSERT_NE(p, nullptr);
  char attrs[128] = {};
  ASSERT_EQ(api().clGetKernelInfo(kernel(p, "hinted"), CL_KERNEL_ATTRIBUTES, sizeof attrs, attrs, nullptr),
            CL_SUCCESS);
  EXPECT_NE(std::string(attrs).find("vec_type_hint(uchar2)"), std::string::npos) << attrs;
  EXPECT_NE(std::string(attrs).find("reqd_work_group_size(8,1,1)"), std::string::npos) << attrs;
  ASSERT_EQ(api().clGetKernelInfo(kernel(p, "plain"), CL_KERNEL_ATTRIBUTES, sizeof attrs, attrs, nullptr),
            CL_SUCCESS);
  EXPECT_STREQ(attrs, "");
  ASSERT_EQ(api().clGetKernelInfo(kernel(p, "hinted_before"), CL_KERNEL_ATTRIBUTES, sizeof attrs, attrs, nullptr),
            CL_SUCCESS);
  EXPECT_STREQ(attrs, "vec_type_hint(float4)");
}

TEST_F(KernelsTest, KernelArgumentsAreChecked) {
  REQUIRE_COMPILER();
  cl_program p = build(kStaged, "-cl-kernel-arg-info");
  ASSERT_NE(p, nullptr);
  cl_kernel k = kernel(p, "staged");
  ASSERT_NE(k, nullptr);
  char type[32] = {};
  ASSERT_EQ(api().clGetKernelArgInfo(k, 1, CL_KERNEL_ARG_TYPE_NAME, sizeof type, type, nullptr), CL_SUCCESS);
  EXPECT_STREQ(type, "float*");
  ASSERT_EQ(api().clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_TYPE_NAME, sizeof type, type, nullptr), CL_SUCCESS);
  EXPECT_STREQ(type, "int");
  cl_kernel_arg_type_qualifier tq = 0;
  ASSERT_EQ(api().clGetKernelArgInfo(k, 1, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof tq, &tq, nullptr), CL_SUCCESS);
  EXPECT_EQ(tq, cl_kernel_arg_type_qualifier(CL_KERNEL_ARG_TYPE_CONST));
  char arg_name[32] = {};
  ASSERT_EQ(api().clGetKernelArgInfo(k, 4, CL_KERNEL_ARG_NAME, sizeof arg_name, arg_name, nullptr), CL_SUCCESS);
  EXPECT_STREQ(arg_name, "bt");
  // Without -cl-kernel-arg-info the spec says the information is not available.
  cl_program plain = build(kStaged);
  ASSERT_NE(plain, nullptr);
  cl_kernel pk = kernel(plain, "staged");
  EXPECT_EQ(api().clGetKernelArgInfo(pk, 0, CL_KERNEL_ARG_TYPE_NAME, sizeof type, type, nullptr),
            CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
  cl_uint num_args = 0;
  ASSERT_EQ(api().clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof num_args, &num_args, nullptr), CL_SUCCESS);
  EXPECT_EQ(num_args, 5u);
  cl_mem m = buffer(64);
  int n = 8;
  EXPECT_EQ(api().clSetKernelArg(k, 5, sizeof n, &n), CL_INVALID_ARG_INDEX);
  EXPECT_EQ(api().clSetKernelArg(k, 1, 4, &m), CL_INVALID_ARG_SIZE);
  EXPECT_EQ(api().clSetKernelArg(k, 0, 8, &n), CL_INVALID_ARG_SIZE);
  EXPECT_EQ(api().clSetKernelArg(k, 0, 4, nullptr), CL_INVALID_ARG_VALUE);
  EXPECT_EQ(api().clSetKernelArg(k, 4, 64, &n), CL_INVALID_ARG_VALUE);
  EXPECT_EQ(api().clSetKernelArg(k, 4, 0, nullptr), CL_INVALID_ARG_SIZE);
  cl_mem not_a_buffer = reinterpret_cast<cl_mem>(queue_);
  EXPECT_EQ(api().clSetKernelArg(k, 1, sizeof not_a_buffer, &not_a_buffer), CL_INVALID_MEM_OBJECT);
  cl_kernel_arg_address_qualifier q = 0;
  ASSERT_EQ(api().clGetKernelArgInfo(k, 4, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof q, &q, nullptr), CL_SUCCESS);
  EXPECT_EQ(q, cl_kernel_arg_address_qualifier(CL_KERNEL_ARG_ADDRESS_LOCAL));
  // Not every argument set yet.
  const size_t global[2] = {8, 8}, local[2] = {8, 8};
  EXPECT_EQ(run(k, 2, global, local), CL_INVALID_KERNEL_ARGS);
  arg(k, 0, n);
  arg(k, 1, m);
  arg(k, 2, m);
  arg(k, 3, m);
  ASSERT_EQ(api().clSetKernelArg(k, 4, 64 * 4, nullptr), CL_SUCCESS);
  const size_t bad_local[2] = {3, 8};
  EXPECT_EQ(run(k, 2, global, bad_local), CL_INVALID_WORK_GROUP_SIZE);
  const size_t too_big[2] = {2048, 1};
  EXPECT_EQ(run(k, 2, too_big, too_big), CL_INVALID_WORK_ITEM_SIZE);
  EXPECT_EQ(run(k, 0, global, local), CL_INVALID_WORK_DIMENSION);
  EXPECT_EQ(run(k, 2, nullptr, local), CL_INVALID_GLOBAL_WORK_SIZE);
  const size_t zero[2] = {0, 8};
  EXPECT_EQ(run(k, 2, zero, nullptr), CL_SUCCESS);  // OpenCL 2.1+: a no-op (opencl3_test.cc)
  size_t wg = 0;
  ASSERT_EQ(api().clGetKernelWorkGroupInfo(k, device_, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, nullptr), CL_SUCCESS);
  EXPECT_EQ(wg, 1024u);
  cl_ulong local_bytes = 0;
  ASSERT_EQ(api().clGetKernelWorkGroupInfo(k, device_, CL_KERNEL_LOCAL_MEM_SIZE, sizeof local_bytes, &local_bytes,
                                           nullptr),
            CL_SUCCESS);
  EXPECT_GE(local_bytes, 2u * 64 * 4);  // the static array and the __local argument
}

TEST_F(KernelsTest, LocalArgumentAndLocalArrayStageAGroup) {
  REQUIRE_COMPILER();
  cl_program p = build(kStaged);
  ASSERT_NE(p, nullptr);
  cl_kernel k = kernel(p, "staged");
  ASSERT_NE(k, nullptr);
  const int n = 1000, group = 64;  // the last group runs past n: its mirrors there read zeros
  auto a = random_floats(n, 5), b = random_floats(n, 6);
  cl_mem ma = buffer_of(a), mb = buffer_of(b), mc = buffer(n * 4);
  arg(k, 0, n);
  arg(k, 1, ma);
  arg(k, 2, mb);
  arg(k, 3, mc);
  ASSERT_EQ(api().clSetKernelArg(k, 4, group * 4, nullptr), CL_SUCCESS);
  const size_t global = 1024, local = group;
  ASSERT_EQ(run(k, 1, &global, &local), CL_SUCCESS);
  auto c = read<float>(mc, n);
  for (int i = 0; i < n; ++i) {
    const int mirror = i / group * group + group - 1 - i % group;
    ASSERT_EQ(c[i], mirror < n ? a[mirror] * b[mirror] : 0.0f) << i;
  }
}

// The benchmark's kernels (tests/common/benchmark_kernels.h) through the executor's API.
TEST_F(KernelsTest, SgemmNaiveAndTiledMatchTheReference) {
  REQUIRE_COMPILER();
  const cl_uint n = 2 * kSgemmTile;
  auto a = random_floats(n * n, 3), b = random_floats(n * n, 4);
  std::vector<float> ref(n * n);
  for (cl_uint r = 0; r < n; ++r)
    for (cl_uint c = 0; c < n; ++c) {
      float s = 0;
      for (cl_uint k = 0; k < n; ++k) s += a[r * n + k] * b[k * n + c];
      ref[r * n + c] = s;
    }
  cl_mem ma = buffer_of(a), mb = buffer_of(b);
  struct Variant {
    const char* source;
    const char* name;
    bool tiled;
  };
  for (const auto& [source, name, tiled] : {Variant{kSgemmNaive, "sgemm_naive", false},
                                            Variant{kSgemmTiled, "sgemm_tiled", true}}) {
    cl_program p = build(source);
    ASSERT_NE(p, nullptr);
    cl_kernel k = kernel(p, name);
    ASSERT_NE(k, nullptr);
    cl_mem mc = buffer(n * n * 4);
    arg(k, 0, ma);
    arg(k, 1, mb);
    arg(k, 2, mc);
    arg(k, 3, n);
    const size_t global[2] = {n, n}, local[2] = {kSgemmTile, kSgemmTile};
    ASSERT_EQ(run(k, 2, global, tiled ? local : nullptr), CL_SUCCESS) << name;
    auto c = read<float>(mc, n * n);
    for (cl_uint i = 0; i < n * n; ++i) ASSERT_NEAR(c[i], ref[i], 1e-4f) << name << " element " << i;
  }
}

TEST_F(KernelsTest, MandelbrotMatchesTheReference) {
  REQUIRE_COMPILER();
  cl_program p = build(kMandelbrot);
  ASSERT_NE(p, nullptr);
  cl_kernel k = kernel(p, "mandelbrot");
  ASSERT_NE(k, nullptr);
  const cl_uint w = 64, h = 48, max_iter = 64;
  cl_mem out = buffer(w * h * 4);
  arg(k, 0, out);
  arg(k, 1, w);
  arg(k, 2, h);
  arg(k, 3, max_iter);
  const size_t global[2] = {w, h};
  ASSERT_EQ(run(k, 2, global, nullptr), CL_SUCCESS);
  auto got = read<uint32_t>(out, w * h);
  cl_uint same = 0, inside = 0;
  for (cl_uint y = 0; y < h; ++y)
    for (cl_uint x = 0; x < w; ++x) {
      const uint32_t i = kernel_sources::mandelbrot_reference(x, y, w, h, max_iter);
      same += got[y * w + x] == i;
      inside += i == max_iter;
    }
  // Rounding differences (contraction into fma) may flip a few points on the set's edge.
  EXPECT_GE(same, w * h * 98 / 100);
  EXPECT_GT(inside, 0u);
}

TEST_F(KernelsTest, RunawayKernelFaultsAndTheContextStaysUsable) {
  REQUIRE_COMPILER();
  cl_program p = build(kForever);
  ASSERT_NE(p, nullptr);
  cl_kernel k = kernel(p, "forever");
  ASSERT_NE(k, nullptr);
  cl_mem flag = buffer(8);
  arg(k, 0, flag);
  const size_t global = 64;
  cl_event e = nullptr;
  ASSERT_EQ(run(k, 1, &global, nullptr, &e), CL_SUCCESS);
  EXPECT_EQ(api().clWaitForEvents(1, &e), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  EXPECT_LT(event_status(e), 0);
  cl_ulong t = 0;
  EXPECT_EQ(api().clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof t, &t, nullptr),
            CL_PROFILING_INFO_NOT_AVAILABLE);
  api().clReleaseEvent(e);
  EXPECT_EQ(api().clFinish(queue_), CL_OUT_OF_RESOURCES);
  EXPECT_EQ(api().clFinish(queue_), CL_SUCCESS);  // reported once
  // The device was recovered: a real kernel runs, and the runaway one ends when told to.
  const int stop[2] = {1, 0};
  ASSERT_EQ(api().clEnqueueWriteBuffer(queue_, flag, CL_TRUE, 0, 8, stop, 0, nullptr, nullptr), CL_SUCCESS);
  ASSERT_EQ(run(k, 1, &global, nullptr, &e), CL_SUCCESS);
  EXPECT_EQ(api().clWaitForEvents(1, &e), CL_SUCCESS);
  EXPECT_EQ(event_status(e), CL_COMPLETE);
  api().clReleaseEvent(e);
  cl_program vp = build(kVectorAdd);
  ASSERT_NE(vp, nullptr);
  cl_kernel vk = kernel(vp, "vadd");
  std::vector<float> a(64, 1.5f), b(64, 2.0f);
  cl_mem ma = buffer_of(a), mb = buffer_of(b), mc = buffer(64 * 4);
  arg(vk, 0, ma);
  arg(vk, 1, mb);
  arg(vk, 2, mc);
  arg(vk, 3, cl_uint(64));
  ASSERT_EQ(run(vk, 1, &global, nullptr), CL_SUCCESS);
  EXPECT_EQ(read<float>(mc, 64), std::vector<float>(64, 3.5f));
  EXPECT_EQ(api().clFinish(queue_), CL_SUCCESS);
}

TEST_F(KernelsTest, MemoryFaultIsReported) {
  REQUIRE_COMPILER();
  cl_program p = build("__kernel void wild(__global int* p) { p[get_global_id(0) * 1048576] = 1; }");
  ASSERT_NE(p, nullptr);
  cl_kernel k = kernel(p, "wild");
  cl_mem m = buffer(64);
  arg(k, 0, m);
  const size_t global = 32;
  cl_event e = nullptr;
  ASSERT_EQ(run(k, 1, &global, nullptr, &e), CL_SUCCESS);
  EXPECT_EQ(api().clWaitForEvents(1, &e), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  EXPECT_EQ(event_status(e), CL_OUT_OF_RESOURCES);
  api().clReleaseEvent(e);
  EXPECT_EQ(api().clFinish(queue_), CL_OUT_OF_RESOURCES);
}

// Local memory is granted per group in 256-byte granules: an access just past an 8-byte __local
// argument stays inside the granule (as on GPUs; piglit relies on it), one past the granule faults.
TEST_F(KernelsTest, LocalMemoryIsGrantedInGranules) {
  REQUIRE_COMPILER();
  cl_program p = build(
      "__kernel void poke(__global int* out, __local int* mem, int index) {\n"
      "  mem[index] = 7; out[0] = mem[index];\n"
      "}");
  ASSERT_NE(p, nullptr);
  cl_kernel k = kernel(p, "poke");
  cl_mem out = buffer(4);
  arg(k, 0, out);
  ASSERT_EQ(api().clSetKernelArg(k, 1, 8, nullptr), CL_SUCCESS);
  const size_t one = 1;
  arg(k, 2, cl_int{3});  // bytes 12..15: past the argument, inside the granule
  ASSERT_EQ(run(k, 1, &one, &one), CL_SUCCESS);
  EXPECT_EQ(api().clFinish(queue_), CL_SUCCESS);
  EXPECT_EQ(read<cl_int>(out, 1)[0], 7);
  arg(k, 2, cl_int{64});  // byte 256: the first byte past the granule
  ASSERT_EQ(run(k, 1, &one, &one), CL_SUCCESS);
  EXPECT_EQ(api().clFinish(queue_), CL_OUT_OF_RESOURCES);
}

// The ABI widens values narrower than 4 bytes to a 4-byte slot; clSetKernelArg takes them at their
// OpenCL size (structs too) and the kernel reads them zero-extended. Wider slots take only their size.
TEST_F(KernelsTest, NarrowValuesFillTheirFourByteSlot) {
  REQUIRE_COMPILER();
  cl_program p = build(R"(
    typedef struct { uchar lo, hi; } pair_t;
    typedef struct { uchar r, g, b; } rgb_t;
    __kernel void narrow(__global int* out, char c, short s, uchar2 v, pair_t p, rgb_t rgb, long l) {
      out[0] = c; out[1] = s; out[2] = v.x | v.y << 8; out[3] = p.lo | p.hi << 8;
      out[4] = rgb.r | rgb.g << 8 | rgb.b << 16; out[5] = (int)(l >> 32);
    })");
  ASSERT_NE(p, nullptr);
  cl_kernel k = kernel(p, "narrow");
  ASSERT_NE(k, nullptr);
  cl_mem out = buffer(6 * 4);
  arg(k, 0, out);
  arg(k, 1, cl_char(-3));
  arg(k, 2, cl_short(-300));
  arg(k, 3, cl_uchar2{{0x12, 0x34}});
  const uint8_t pair[2] = {0x56, 0x78}, rgb[3] = {1, 2, 3};
  ASSERT_EQ(api().clSetKernelArg(k, 4, sizeof pair, pair), CL_SUCCESS);
  ASSERT_EQ(api().clSetKernelArg(k, 5, sizeof rgb, rgb), CL_SUCCESS);
  arg(k, 6, cl_long(7) << 32);
  const size_t one = 1;
  ASSERT_EQ(run(k, 1, &one, &one), CL_SUCCESS);
  EXPECT_EQ(read<cl_int>(out, 6), (std::vector<cl_int>{-3, -300, 0x3412, 0x7856, 0x030201, 7}));
  // A narrow value where the slot is wider than 4 bytes, or no bytes at all, is a size error.
  const cl_int four = 1;
  EXPECT_EQ(api().clSetKernelArg(k, 6, sizeof four, &four), CL_INVALID_ARG_SIZE);
  EXPECT_EQ(api().clSetKernelArg(k, 1, 0, &four), CL_INVALID_ARG_SIZE);
  EXPECT_EQ(api().clSetKernelArg(k, 4, 5, pair), CL_INVALID_ARG_SIZE);
}

// Local memory beyond the device's (static __local variables + __local arguments > 1 MiB) cannot
// be granted: CL_OUT_OF_RESOURCES at enqueue, not an argument error; exactly 1 MiB runs.
TEST_F(KernelsTest, LocalMemoryBeyondTheDeviceIsOutOfResources) {
  REQUIRE_COMPILER();
  cl_program p = build(R"(
    __kernel void two(__global int* out, __local int* a, __local int* b) {
      __local int fixed[16];
      fixed[get_local_id(0)] = 1;
      a[0] = 2;
      b[0] = 3;
      barrier(CLK_LOCAL_MEM_FENCE);
      out[0] = fixed[0] + a[0] + b[0];
    })");
  ASSERT_NE(p, nullptr);
  cl_kernel k = kernel(p, "two");
  cl_mem out = buffer(4);
  arg(k, 0, out);
  const size_t one = 1;
  const size_t mib = size_t(1) << 20;
  ASSERT_EQ(api().clSetKernelArg(k, 1, mib - 64 - 256, nullptr), CL_SUCCESS);
  ASSERT_EQ(api().clSetKernelArg(k, 2, 256, nullptr), CL_SUCCESS);
  ASSERT_EQ(run(k, 1, &one, &one), CL_SUCCESS);
  EXPECT_EQ(api().clFinish(queue_), CL_SUCCESS);
  EXPECT_EQ(read<cl_int>(out, 1)[0], 6);
  ASSERT_EQ(api().clSetKernelArg(k, 2, 260, nullptr), CL_SUCCESS);
  EXPECT_EQ(run(k, 1, &one, &one), CL_OUT_OF_RESOURCES);
  ASSERT_EQ(api().clSetKernelArg(k, 1, mib, nullptr), CL_SUCCESS);
  ASSERT_EQ(api().clSetKernelArg(k, 2, mib, nullptr), CL_SUCCESS);
  EXPECT_EQ(run(k, 1, &one, &one), CL_OUT_OF_RESOURCES);
  EXPECT_EQ(api().clFinish(queue_), CL_SUCCESS);  // refused at enqueue: nothing ran, nothing pending
}

TEST_F(KernelsTest, ProfilingTimesAreOrdered) {
  REQUIRE_COMPILER();
  cl_program p = build(kMandelbrot);
  ASSERT_NE(p, nullptr);
  cl_kernel k = kernel(p, "mandelbrot");
  cl_mem out = buffer(32 * 32 * 4);
  arg(k, 0, out);
  arg(k, 1, 32);
  arg(k, 2, 32);
  arg(k, 3, 32);
  const size_t global[2] = {32, 32};
  cl_event events[2] = {};
  ASSERT_EQ(run(k, 2, global, nullptr, &events[0]), CL_SUCCESS);
  ASSERT_EQ(run(k, 2, global, nullptr, &events[1]), CL_SUCCESS);
  ASSERT_EQ(api().clWaitForEvents(2, events), CL_SUCCESS);
  cl_ulong t[2][4] = {};
  const cl_profiling_info params[4] = {CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT,
                                       CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END};
  for (int e = 0; e < 2; ++e) {
    for (int i = 0; i < 4; ++i)
      ASSERT_EQ(api().clGetEventProfilingInfo(events[e], params[i], sizeof(cl_ulong), &t[e][i], nullptr),
                CL_SUCCESS);
    EXPECT_LE(t[e][0], t[e][1]);
    EXPECT_LE(t[e][1], t[e][2]);
    EXPECT_LT(t[e][2], t[e][3]);  // the kernel took cycles
    api().clReleaseEvent(events[e]);
  }
  EXPECT_LE(t[0][3], t[1][2]);  // in order: the second starts after the first ends
}

TEST_F(KernelsTest, ProgramBinariesRoundTrip) {
  REQUIRE_COMPILER();
  cl_program p = build(kVectorAdd);
  ASSERT_NE(p, nullptr);
  size_t size = 0;
  ASSERT_EQ(api().clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr), CL_SUCCESS);
  ASSERT_GT(size, 0u);
  std::vector<unsigned char> binary(size);
  unsigned char* ptr = binary.data();
  ASSERT_EQ(api().clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof ptr, &ptr, nullptr), CL_SUCCESS);
  const unsigned char* bin = binary.data();
  cl_int status = 1, err = 1;
  cl_program again = api().clCreateProgramWithBinary(context_, 1, &device_, &size, &bin, &status, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  programs_.push_back(again);
  EXPECT_EQ(status, CL_SUCCESS);
  // Loaded binaries are executables: kernels can be created before clBuildProgram.
  cl_kernel early = api().clCreateKernel(again, "vadd", &err);
  EXPECT_EQ(err, CL_SUCCESS);
  if (early) api().clReleaseKernel(early);
  ASSERT_EQ(api().clBuildProgram(again, 1, &device_, "", nullptr, nullptr), CL_SUCCESS);
  char names[64] = {};
  ASSERT_EQ(api().clGetProgramInfo(again, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, nullptr), CL_SUCCESS);
  EXPECT_STREQ(names, "vadd");
  const unsigned char junk[32] = {1, 2, 3};
  const unsigned char* junk_ptr = junk;
  size_t junk_size = sizeof junk;
  EXPECT_EQ(api().clCreateProgramWithBinary(context_, 1, &device_, &junk_size, &junk_ptr, &status, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_BINARY);
}

TEST_F(KernelsTest, ReqdWorkGroupSizeIsReportedAndEnforced) {
  REQUIRE_COMPILER();
  cl_program p = build(
      "__kernel __attribute__((reqd_work_group_size(4, 1, 1))) void ids(__global uint* out) {\n"
      "  out[get_global_id(0)] = get_local_size(0);\n"
      "}\n");
  ASSERT_NE(p, nullptr);
  cl_kernel k = kernel(p, "ids");
  size_t wg[3] = {};
  ASSERT_EQ(api().clGetKernelWorkGroupInfo(k, device_, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof wg, wg, nullptr),
            CL_SUCCESS);
  EXPECT_EQ(wg[0], 4u);
  EXPECT_EQ(wg[1], 1u);
  char attrs[64] = {};
  ASSERT_EQ(api().clGetKernelInfo(k, CL_KERNEL_ATTRIBUTES, sizeof attrs, attrs, nullptr), CL_SUCCESS);
  EXPECT_STREQ(attrs, "reqd_work_group_size(4,1,1)");
  cl_mem out = buffer(64 * 4);
  arg(k, 0, out);
  const size_t global = 64, wrong = 8;
  EXPECT_EQ(run(k, 1, &global, &wrong), CL_INVALID_WORK_GROUP_SIZE);
  ASSERT_EQ(run(k, 1, &global, nullptr), CL_SUCCESS);
  EXPECT_EQ(read<uint32_t>(out, 64), std::vector<uint32_t>(64, 4));
}

// Both size attributes SPIR-V keeps come back in CL_KERNEL_ATTRIBUTES, in the spec's spelling
// (piglit's api@clgetkernelinfo checks work_group_size_hint); the hint does not constrain launches.
TEST_F(KernelsTest, KernelAttributesListTheSizeHint) {
  REQUIRE_COMPILER();
  cl_program p = build(
      "__kernel __attribute__((work_group_size_hint(8, 2, 1))) void hinted(__global int* o) { o[0] = 1; }\n"
      "__kernel __attribute__((reqd_work_group_size(2, 1, 1))) __attribute__((work_group_size_hint(2, 1, 1)))\n"
      "void both(__global int* o) { o[0] = 2; }\n"
      "__kernel void plain(__global int* o) { o[0] = 3; }\n");
  ASSERT_NE(p, nullptr);
  const auto attributes = [&](const char* name) {
    char text[128] = {};
    EXPECT_EQ(api().clGetKernelInfo(kernel(p, name), CL_KERNEL_ATTRIBUTES, sizeof text - 1, text, nullptr),
              CL_SUCCESS);
    return std::string(text);
  };
  EXPECT_EQ(attributes("hinted"), "work_group_size_hint(8,2,1)");
  EXPECT_EQ(attributes("both"), "reqd_work_group_size(2,1,1) work_group_size_hint(2,1,1)");
  EXPECT_EQ(attributes("plain"), "");
  cl_kernel k = kernel(p, "hinted");
  cl_mem out = buffer(4);
  arg(k, 0, out);
  const size_t one = 1;
  EXPECT_EQ(run(k, 1, &one, &one), CL_SUCCESS);
  EXPECT_EQ(read<cl_int>(out, 1)[0], 1);
}

TEST_F(KernelsTest, CompileWithHeadersThenLinkTwoUnits) {
  REQUIRE_COMPILER();
  const char* header_text = "#define SCALE 3\nint scale(int x);\n";
  const char* lib_text = "#include \"inc/scale.h\"\nint scale(int x) { return x * SCALE; }\n";
  const char* main_text =
      "#include \"inc/scale.h\"\n"
      "__kernel void k(__global int* p) { p[get_global_id(0)] = scale((int)get_global_id(0)); }\n";
  cl_int err = CL_SUCCESS;
  cl_program header = api().clCreateProgramWithSource(context_, 1, &header_text, nullptr, &err);
  cl_program lib = api().clCreateProgramWithSource(context_, 1, &lib_text, nullptr, &err);
  cl_program main = api().clCreateProgramWithSource(context_, 1, &main_text, nullptr, &err);
  programs_.insert(programs_.end(), {header, lib, main});
  const char* name = "inc/scale.h";
  ASSERT_EQ(api().clCompileProgram(lib, 1, &device_, "", 1, &header, &name, nullptr, nullptr), CL_SUCCESS)
      << build_log(lib);
  ASSERT_EQ(api().clCompileProgram(main, 1, &device_, "", 1, &header, &name, nullptr, nullptr), CL_SUCCESS)
      << build_log(main);
  EXPECT_EQ(api().clCompileProgram(main, 1, &device_, "-no-such-option", 0, nullptr, nullptr, nullptr, nullptr),
            CL_INVALID_COMPILER_OPTIONS);
  ASSERT_EQ(api().clCompileProgram(main, 1, &device_, "", 1, &header, &name, nullptr, nullptr), CL_SUCCESS);
  const char* escaping = "../x.h";
  EXPECT_EQ(api().clCompileProgram(lib, 1, &device_, "", 1, &header, &escaping, nullptr, nullptr),
            CL_COMPILE_PROGRAM_FAILURE);
  ASSERT_EQ(api().clCompileProgram(lib, 1, &device_, "", 1, &header, &name, nullptr, nullptr), CL_SUCCESS);
  // A library, then an executable from the library and the main unit.
  cl_program library = api().clLinkProgram(context_, 1, &device_, "-create-library", 1, &lib, nullptr, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  programs_.push_back(library);
  cl_program_binary_type type = 0;
  ASSERT_EQ(api().clGetProgramBuildInfo(library, device_, CL_PROGRAM_BINARY_TYPE, sizeof type, &type, nullptr),
            CL_SUCCESS);
  EXPECT_EQ(type, cl_program_binary_type(CL_PROGRAM_BINARY_TYPE_LIBRARY));
  const cl_program units[2] = {main, library};
  cl_program exe = api().clLinkProgram(context_, 1, &device_, "", 2, units, nullptr, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS) << (exe ? build_log(exe) : "");
  programs_.push_back(exe);
  EXPECT_EQ(api().clLinkProgram(context_, 1, &device_, "-bogus", 2, units, nullptr, nullptr, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_LINKER_OPTIONS);
  EXPECT_EQ(api().clLinkProgram(context_, 1, &device_, "", 1, &exe, nullptr, nullptr, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_OPERATION);  // an executable is not a link input
  cl_kernel k = kernel(exe, "k");
  ASSERT_NE(k, nullptr);
  cl_mem out = buffer(16 * 4);
  arg(k, 0, out);
  const size_t global = 16;
  ASSERT_EQ(run(k, 1, &global, nullptr), CL_SUCCESS);
  auto v = read<int>(out, 16);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(v[i], 3 * i);
}

TEST_F(KernelsTest, HostileLaunchesAreRefused) {
  REQUIRE_COMPILER();
  cl_program p = build(kVectorAdd);
  ASSERT_NE(p, nullptr);
  cl_kernel k = kernel(p, "vadd");
  cl_mem m = buffer(64);
  arg(k, 0, m);
  arg(k, 1, m);
  arg(k, 2, m);
  arg(k, 3, cl_uint(16));
  const size_t huge[3] = {size_t(1) << 20, size_t(1) << 20, 1};
  EXPECT_EQ(run(k, 3, huge, nullptr), CL_OUT_OF_RESOURCES);  // 2^40 work-items
  const size_t overflow[3] = {SIZE_MAX, SIZE_MAX, SIZE_MAX};
  EXPECT_EQ(run(k, 3, overflow, nullptr), CL_INVALID_GLOBAL_WORK_SIZE);
  const size_t global = 16, offset = SIZE_MAX - 4;
  EXPECT_EQ(api().clEnqueueNDRangeKernel(queue_, k, 1, &offset, &global, nullptr, 0, nullptr, nullptr),
            CL_INVALID_GLOBAL_OFFSET);
  const size_t g2[2] = {64, 64}, l2[2] = {64, 32};
  EXPECT_EQ(run(k, 2, g2, l2), CL_INVALID_WORK_GROUP_SIZE);  // 2048 items in a group
  // A buffer released after clSetKernelArg is not used.
  cl_mem gone = api().clCreateBuffer(context_, CL_MEM_READ_WRITE, 64, nullptr, nullptr);
  arg(k, 2, gone);
  api().clReleaseMemObject(gone);
  EXPECT_EQ(run(k, 1, &global, nullptr), CL_INVALID_KERNEL_ARGS);
  // A kernel from another context on this queue.
  cl_context other = api().clCreateContext(nullptr, 1, &device_, nullptr, nullptr, nullptr);
  const char* text = kVectorAdd;
  cl_program op = api().clCreateProgramWithSource(other, 1, &text, nullptr, nullptr);
  ASSERT_EQ(api().clBuildProgram(op, 0, nullptr, "", nullptr, nullptr), CL_SUCCESS);
  cl_kernel ok = api().clCreateKernel(op, "vadd", nullptr);
  EXPECT_EQ(run(ok, 1, &global, nullptr), CL_INVALID_CONTEXT);
  EXPECT_EQ(api().clSetKernelArg(ok, 0, sizeof m, &m), CL_INVALID_MEM_OBJECT);  // m is not of its context
  api().clReleaseKernel(ok);
  api().clReleaseProgram(op);
  api().clReleaseContext(other);
  EXPECT_EQ(api().clFinish(queue_), CL_SUCCESS);
}

// GSGPU_DUMP_DIR: every dispatch leaves the device's readable dump (counters, disassembly).
TEST(GsgpuExecutorDumps, EveryDispatchIsDumped) {
  if (!GsgpuExecutorTest::have_compiler()) GTEST_SKIP() << "clang-14 / llvm-spirv-14 not installed";
  char dir_template[] = "/tmp/gsgpu-executor-dumps-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  gsgpu::cl::RuntimeConfig config;
  config.vram_mb = 16;
  config.dump_dir = dir_template;
  std::string error;
  auto ex = gsgpu::cl::create_instance(config, &error);
  ASSERT_NE(ex, nullptr) << error;
  const cl_icd_dispatch& api = ex->api();
  cl_device_id device = nullptr;
  ASSERT_EQ(api.clGetDeviceIDs(ex->platform(), CL_DEVICE_TYPE_GPU, 1, &device, nullptr), CL_SUCCESS);
  cl_context context = api.clCreateContext(nullptr, 1, &device, nullptr, nullptr, nullptr);
  cl_command_queue queue = api.clCreateCommandQueue(context, device, 0, nullptr);
  const char* text = "__kernel void twice(__global int* p) { p[get_global_id(0)] *= 2; }";
  cl_program program = api.clCreateProgramWithSource(context, 1, &text, nullptr, nullptr);
  ASSERT_EQ(api.clBuildProgram(program, 0, nullptr, "", nullptr, nullptr), CL_SUCCESS);
  cl_kernel k = api.clCreateKernel(program, "twice", nullptr);
  cl_mem m = api.clCreateBuffer(context, CL_MEM_READ_WRITE, 256, nullptr, nullptr);
  ASSERT_EQ(api.clSetKernelArg(k, 0, sizeof m, &m), CL_SUCCESS);
  const size_t global = 64;
  ASSERT_EQ(api.clEnqueueNDRangeKernel(queue, k, 1, nullptr, &global, nullptr, 0, nullptr, nullptr), CL_SUCCESS);
  ASSERT_EQ(api.clFinish(queue), CL_SUCCESS);  // the dump is written when the dispatch retires
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir_template)) files.push_back(e.path());
  ASSERT_EQ(files.size(), 1u);
  std::ifstream in(files[0]);
  std::stringstream dump;
  dump << in.rdbuf();
  EXPECT_NE(dump.str().find("gsgpu dispatch dump"), std::string::npos) << dump.str();
  EXPECT_NE(dump.str().find("instructions_issued"), std::string::npos) << dump.str();
  EXPECT_NE(files[0].filename().string().find("twice"), std::string::npos);
  api.clReleaseMemObject(m);
  api.clReleaseKernel(k);
  api.clReleaseProgram(program);
  api.clReleaseCommandQueue(queue);
  api.clReleaseContext(context);
  std::filesystem::remove_all(dir_template);
}

}  // namespace
}  // namespace gsvirt::vcomp::testing
