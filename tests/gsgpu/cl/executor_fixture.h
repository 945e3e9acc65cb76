// Drives the gsgpu executor through its ICD dispatch table, the way vcomp does.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "gsgpu/compiler/frontend.h"
#include "gsgpu/cl/gsgpu_cl.h"

namespace gsvirt::vcomp::testing {

class GsgpuExecutorTest : public ::testing::Test {
 public:
  static bool have_compiler() {
    const auto& t = gsgpu::compiler::toolchain();
    return !t.clang.empty() && !t.llvm_spirv.empty();
  }

 protected:
  static gsgpu::cl::RuntimeConfig test_config() {
    gsgpu::cl::RuntimeConfig config;
    config.shader_cores = 2;
    config.vram_mb = 64;
    config.watchdog_budget = 200000;  // a runaway kernel ends quickly
    // The device without images (GSGPU_IMAGES=0; on by default): what these tests were written
    // for. ImageFixture switches them on.
    config.image_support = false;
    return config;
  }
  static void start_executor(const gsgpu::cl::RuntimeConfig& config) {
    std::string error;
    executor_ = gsgpu::cl::create_instance(config, &error).release();
    ASSERT_NE(executor_, nullptr) << error;
  }
  static void SetUpTestSuite() { start_executor(test_config()); }
  static void TearDownTestSuite() {
    delete executor_;
    executor_ = nullptr;
  }

  void SetUp() override {
    ASSERT_NE(executor_, nullptr);
    ASSERT_EQ(api().clGetDeviceIDs(executor_->platform(), CL_DEVICE_TYPE_ALL, 1, &device_, nullptr), CL_SUCCESS);
    cl_int err = CL_SUCCESS;
    context_ = api().clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    queue_ = api().clCreateCommandQueue(context_, device_, CL_QUEUE_PROFILING_ENABLE, &err);
    ASSERT_EQ(err, CL_SUCCESS);
  }
  void TearDown() override {
    for (cl_kernel k : kernels_) api().clReleaseKernel(k);
    for (cl_program p : programs_) api().clReleaseProgram(p);
    for (cl_mem m : mems_) api().clReleaseMemObject(m);
    if (queue_) api().clReleaseCommandQueue(queue_);
    if (context_) api().clReleaseContext(context_);
  }

  static const cl_icd_dispatch& api() { return executor_->api(); }

  cl_mem buffer(size_t size, const void* init = nullptr, cl_mem_flags flags = CL_MEM_READ_WRITE) {
    cl_int err = CL_SUCCESS;
    cl_mem m = api().clCreateBuffer(context_, flags | (init ? CL_MEM_COPY_HOST_PTR : 0), size,
                                    const_cast<void*>(init), &err);
    EXPECT_EQ(err, CL_SUCCESS);
    if (m) mems_.push_back(m);
    return m;
  }
  template <typename T>
  cl_mem buffer_of(const std::vector<T>& v) {
    return buffer(v.size() * sizeof(T), v.data());
  }
  template <typename T>
  std::vector<T> read(cl_mem m, size_t count) {
    std::vector<T> out(count);
    EXPECT_EQ(api().clEnqueueReadBuffer(queue_, m, CL_TRUE, 0, count * sizeof(T), out.data(), 0, nullptr, nullptr),
              CL_SUCCESS);
    return out;
  }

  // Builds `source`; the test fails with the build log when that fails.
  cl_program build(const std::string& source, const std::string& options = "") {
    const char* text = source.c_str();
    cl_int err = CL_SUCCESS;
    cl_program p = api().clCreateProgramWithSource(context_, 1, &text, nullptr, &err);
    EXPECT_EQ(err, CL_SUCCESS);
    if (!p) return nullptr;
    programs_.push_back(p);
    err = api().clBuildProgram(p, 1, &device_, options.c_str(), nullptr, nullptr);
    EXPECT_EQ(err, CL_SUCCESS) << build_log(p);
    return err == CL_SUCCESS ? p : nullptr;
  }
  std::string build_log(cl_program p) {
    size_t size = 0;
    api().clGetProgramBuildInfo(p, device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
    std::string log(size, '\0');
    api().clGetProgramBuildInfo(p, device_, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
    return log;
  }
  cl_kernel kernel(cl_program p, const char* name) {
    cl_int err = CL_SUCCESS;
    cl_kernel k = api().clCreateKernel(p, name, &err);
    EXPECT_EQ(err, CL_SUCCESS) << name;
    if (k) kernels_.push_back(k);
    return k;
  }
  template <typename T>
  void arg(cl_kernel k, cl_uint i, const T& v) {
    ASSERT_EQ(api().clSetKernelArg(k, i, sizeof v, &v), CL_SUCCESS) << "argument " << i;
  }
  cl_int run(cl_kernel k, cl_uint dim, const size_t* global, const size_t* local, cl_event* event = nullptr) {
    return api().clEnqueueNDRangeKernel(queue_, k, dim, nullptr, global, local, 0, nullptr, event);
  }
  cl_int event_status(cl_event e) {
    cl_int status = 1;
    EXPECT_EQ(api().clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr),
              CL_SUCCESS);
    return status;
  }

  static gsgpu::cl::Instance* executor_;
  cl_device_id device_ = nullptr;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  std::vector<cl_mem> mems_;
  std::vector<cl_program> programs_;
  std::vector<cl_kernel> kernels_;
};

#define REQUIRE_COMPILER()                                                    \
  do {                                                                        \
    if (!have_compiler()) GTEST_SKIP() << "clang-14 / llvm-spirv-14 not installed"; \
  } while (0)

}  // namespace gsvirt::vcomp::testing
