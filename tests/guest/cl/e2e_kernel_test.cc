// Programs and kernels: build, build failure with a log, binaries, arguments, NDRange.
#include <cmath>
#include <numeric>
#include <vector>

#include "e2e_fixture.h"

namespace gsvirt::icd::test {
namespace {

constexpr const char* kVectorAdd = R"(
__kernel void vadd(__global const float* a, __global const float* b, __global float* c, float scale) {
  size_t i = get_global_id(0);
  c[i] = (a[i] + b[i]) * scale;
}
__kernel void fill_local(__global int* out, __local int* scratch) {
  size_t l = get_local_id(0);
  scratch[l] = (int)l * 3;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = scratch[get_local_size(0) - 1 - l];
}
)";

TEST(IcdKernel, VectorAddOverStagingSizedBuffers) {
  // 200000 floats: 800 KB per buffer, well past the inline limit, so data goes through staging.
  const size_t n = 200000;
  std::vector<float> a(n), b(n), c(n, -1.0f);
  for (size_t i = 0; i < n; ++i) {
    a[i] = float(i);
    b[i] = float(2 * i) + 0.5f;
  }
  cl_int err = CL_SUCCESS;
  cl_context ctx = cl_env().context;
  cl_mem da = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * 4, a.data(), &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_mem db = clCreateBuffer(ctx, CL_MEM_READ_ONLY, n * 4, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_mem dc = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, n * 4, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  ASSERT_EQ(clEnqueueWriteBuffer(cl_env().queue, db, CL_FALSE, 0, n * 4, b.data(), 0, nullptr, nullptr), CL_SUCCESS);

  cl_program program = build_program(kVectorAdd);
  cl_kernel kernel = clCreateKernel(program, "vadd", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  float scale = 2.0f;
  ASSERT_EQ(clSetKernelArg(kernel, 0, sizeof(cl_mem), &da), CL_SUCCESS);
  ASSERT_EQ(clSetKernelArg(kernel, 1, sizeof(cl_mem), &db), CL_SUCCESS);
  ASSERT_EQ(clSetKernelArg(kernel, 2, sizeof(cl_mem), &dc), CL_SUCCESS);
  ASSERT_EQ(clSetKernelArg(kernel, 3, sizeof scale, &scale), CL_SUCCESS);
  size_t global = n;
  ASSERT_EQ(clEnqueueNDRangeKernel(cl_env().queue, kernel, 1, nullptr, &global, nullptr, 0, nullptr, nullptr), CL_SUCCESS);
  ASSERT_EQ(clEnqueueReadBuffer(cl_env().queue, dc, CL_TRUE, 0, n * 4, c.data(), 0, nullptr, nullptr), CL_SUCCESS);
  ASSERT_EQ(clFinish(cl_env().queue), CL_SUCCESS);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(c[i], (a[i] + b[i]) * scale) << "at " << i;

  clReleaseKernel(kernel);
  clReleaseProgram(program);
  clReleaseMemObject(da);
  clReleaseMemObject(db);
  clReleaseMemObject(dc);
}

TEST(IcdKernel, LocalMemoryArgumentAndTask) {
  cl_int err = CL_SUCCESS;
  cl_program program = build_program(kVectorAdd);
  cl_kernel kernel = clCreateKernel(program, "fill_local", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_mem out = clCreateBuffer(cl_env().context, CL_MEM_READ_WRITE, 16 * sizeof(int), nullptr, &err);
  ASSERT_EQ(clSetKernelArg(kernel, 0, sizeof out, &out), CL_SUCCESS);
  ASSERT_EQ(clSetKernelArg(kernel, 1, 8 * sizeof(int), nullptr), CL_SUCCESS);
  size_t global = 16, local = 8;
  ASSERT_EQ(clEnqueueNDRangeKernel(cl_env().queue, kernel, 1, nullptr, &global, &local, 0, nullptr, nullptr), CL_SUCCESS);
  int got[16];
  ASSERT_EQ(clEnqueueReadBuffer(cl_env().queue, out, CL_TRUE, 0, sizeof got, got, 0, nullptr, nullptr), CL_SUCCESS);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(got[i], (7 - i % 8) * 3);
  // clEnqueueTask runs one work-item (global = local = 1).
  ASSERT_EQ(clSetKernelArg(kernel, 1, sizeof(int), nullptr), CL_SUCCESS);
  ASSERT_EQ(clEnqueueTask(cl_env().queue, kernel, 0, nullptr, nullptr), CL_SUCCESS);
  ASSERT_EQ(clEnqueueReadBuffer(cl_env().queue, out, CL_TRUE, 0, sizeof(int), got, 0, nullptr, nullptr), CL_SUCCESS);
  EXPECT_EQ(got[0], 0);
  clReleaseMemObject(out);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
}

TEST(IcdKernel, BuildFailureReturnsTheLog) {
  const char* bad = "__kernel void broken(__global int* p) { p[0] = undeclared_thing; }";
  cl_int err = CL_SUCCESS;
  cl_program program = clCreateProgramWithSource(cl_env().context, 1, &bad, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  EXPECT_EQ(clBuildProgram(program, 0, nullptr, nullptr, nullptr, nullptr), CL_BUILD_PROGRAM_FAILURE);
  std::string log = build_log(program);
  EXPECT_NE(log.find("undeclared_thing"), std::string::npos) << log;
  cl_build_status status = CL_BUILD_SUCCESS;
  EXPECT_EQ(clGetProgramBuildInfo(program, cl_env().device, CL_PROGRAM_BUILD_STATUS, sizeof status, &status, nullptr),
            CL_SUCCESS);
  EXPECT_EQ(status, CL_BUILD_ERROR);
  clReleaseProgram(program);
}

void CL_CALLBACK note_build_done(cl_program, void* user_data) { *static_cast<int*>(user_data) += 1; }

TEST(IcdKernel, BuildCallbackSourceAndKernelInfo) {
  cl_int err = CL_SUCCESS;
  const char* parts[] = {"__kernel void a(__global int* p) { p[0] = 1; }\n", "__kernel void b(int x) { }\n"};
  size_t lengths[] = {0, 0};
  cl_program program = clCreateProgramWithSource(cl_env().context, 2, parts, lengths, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  int calls = 0;
  ASSERT_EQ(clBuildProgram(program, 1, &cl_env().device, "", note_build_done, &calls), CL_SUCCESS);
  EXPECT_EQ(calls, 1);
  char source[256] = {};
  ASSERT_EQ(clGetProgramInfo(program, CL_PROGRAM_SOURCE, sizeof source, source, nullptr), CL_SUCCESS);
  EXPECT_EQ(std::string(source), std::string(parts[0]) + parts[1]);
  size_t num_kernels = 0;
  ASSERT_EQ(clGetProgramInfo(program, CL_PROGRAM_NUM_KERNELS, sizeof num_kernels, &num_kernels, nullptr), CL_SUCCESS);
  EXPECT_EQ(num_kernels, 2u);
  cl_kernel kernels[2] = {};
  cl_uint created = 0;
  ASSERT_EQ(clCreateKernelsInProgram(program, 2, kernels, &created), CL_SUCCESS);
  ASSERT_EQ(created, 2u);
  for (cl_kernel k : kernels) {
    char name[16] = {};
    ASSERT_EQ(clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof name, name, nullptr), CL_SUCCESS);
    cl_uint args = 0;
    ASSERT_EQ(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof args, &args, nullptr), CL_SUCCESS);
    EXPECT_EQ(args, 1u);
    cl_program owner = nullptr;
    ASSERT_EQ(clGetKernelInfo(k, CL_KERNEL_PROGRAM, sizeof owner, &owner, nullptr), CL_SUCCESS);
    EXPECT_EQ(owner, program);
    size_t wg = 0;
    EXPECT_EQ(clGetKernelWorkGroupInfo(k, cl_env().device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, nullptr), CL_SUCCESS);
    EXPECT_GT(wg, 0u);
    clReleaseKernel(k);
  }
  clReleaseProgram(program);
}

TEST(IcdKernel, BinariesRoundTripIntoANewProgram) {
  cl_int err = CL_SUCCESS;
  cl_program program = build_program("__kernel void seven(__global int* p) { p[get_global_id(0)] = 7; }");
  size_t size = 0;
  ASSERT_EQ(clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr), CL_SUCCESS);
  ASSERT_GT(size, 0u);
  std::vector<unsigned char> binary(size);
  unsigned char* pointers[1] = {binary.data()};
  ASSERT_EQ(clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof pointers, pointers, nullptr), CL_SUCCESS);
  const unsigned char* in[1] = {binary.data()};
  cl_int status = -1;
  cl_program again = clCreateProgramWithBinary(cl_env().context, 1, &cl_env().device, &size, in, &status, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  EXPECT_EQ(status, CL_SUCCESS);
  ASSERT_EQ(clBuildProgram(again, 0, nullptr, nullptr, nullptr, nullptr), CL_SUCCESS);
  cl_kernel kernel = clCreateKernel(again, "seven", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_mem out = clCreateBuffer(cl_env().context, CL_MEM_READ_WRITE, 4 * sizeof(int), nullptr, &err);
  ASSERT_EQ(clSetKernelArg(kernel, 0, sizeof out, &out), CL_SUCCESS);
  size_t global = 4;
  ASSERT_EQ(clEnqueueNDRangeKernel(cl_env().queue, kernel, 1, nullptr, &global, nullptr, 0, nullptr, nullptr), CL_SUCCESS);
  int got[4] = {};
  ASSERT_EQ(clEnqueueReadBuffer(cl_env().queue, out, CL_TRUE, 0, sizeof got, got, 0, nullptr, nullptr), CL_SUCCESS);
  for (int v : got) EXPECT_EQ(v, 7);
  clReleaseMemObject(out);
  clReleaseKernel(kernel);
  clReleaseProgram(again);
  clReleaseProgram(program);
}

}  // namespace
}  // namespace gsvirt::icd::test
