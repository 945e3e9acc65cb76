// The gsgpu runtime as the application's own (the native ICD sets
// RuntimeConfig::resolve_includes_locally): a program's -I directories and #includes, computed
// ones too, are read in the application's process, since the compiler's sandbox sees only the
// OpenCL headers. Serving a guest (the default) it resolves none of them: the host never opens a
// path a guest named. hashcat's kernels failed to build in native mode before.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "gsgpu/cl/gsgpu_cl.h"

namespace gsgpu::cl::testing {
namespace {

class LocalIncludesTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    std::string templ = std::filesystem::temp_directory_path().string() + "/gsgpu-local-includes-XXXXXX";
    ASSERT_NE(mkdtemp(templ.data()), nullptr);
    dir_ = templ;
    std::ofstream(dir_ + "/inc_value.h") << "#define VALUE 42\n";
    RuntimeConfig config;
    config.shader_cores = 1;
    config.vram_mb = 16;
    config.resolve_includes_locally = GetParam();
    std::string error;
    in_ = create_instance(config, &error);
    ASSERT_NE(in_, nullptr) << error;
    ASSERT_EQ(api().clGetDeviceIDs(in_->platform(), CL_DEVICE_TYPE_GPU, 1, &device_, nullptr), CL_SUCCESS);
    context_ = api().clCreateContext(nullptr, 1, &device_, nullptr, nullptr, nullptr);
    queue_ = api().clCreateCommandQueue(context_, device_, 0, nullptr);
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
    if (!in_) return;
    api().clReleaseCommandQueue(queue_);
    api().clReleaseContext(context_);
  }
  const cl_icd_dispatch& api() const { return in_->api(); }

  // Builds `source` with `options`; the kernel's value, or -1 when the build failed.
  int build_and_run(const std::string& source, const std::string& options) {
    const char* text = source.c_str();
    cl_program p = api().clCreateProgramWithSource(context_, 1, &text, nullptr, nullptr);
    int value = -1;
    if (api().clBuildProgram(p, 1, &device_, options.c_str(), nullptr, nullptr) == CL_SUCCESS) {
      cl_kernel k = api().clCreateKernel(p, "value", nullptr);
      cl_mem out = api().clCreateBuffer(context_, CL_MEM_WRITE_ONLY, sizeof(int), nullptr, nullptr);
      api().clSetKernelArg(k, 0, sizeof out, &out);
      const size_t one = 1;
      EXPECT_EQ(api().clEnqueueNDRangeKernel(queue_, k, 1, nullptr, &one, nullptr, 0, nullptr, nullptr), CL_SUCCESS);
      EXPECT_EQ(api().clEnqueueReadBuffer(queue_, out, CL_TRUE, 0, sizeof value, &value, 0, nullptr, nullptr),
                CL_SUCCESS);
      api().clReleaseMemObject(out);
      api().clReleaseKernel(k);
    }
    // The options the application gave are what it reads back, whatever the compiler got.
    size_t size = 0;
    api().clGetProgramBuildInfo(p, device_, CL_PROGRAM_BUILD_OPTIONS, 0, nullptr, &size);
    std::string got(size, '\0');
    api().clGetProgramBuildInfo(p, device_, CL_PROGRAM_BUILD_OPTIONS, size, got.data(), nullptr);
    EXPECT_STREQ(got.c_str(), options.c_str());
    api().clReleaseProgram(p);
    return value;
  }

  std::string dir_;
  std::unique_ptr<Instance> in_;
  cl_device_id device_ = nullptr;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
};

TEST_P(LocalIncludesTest, IncludeDirectoriesAndComputedIncludes) {
  const bool local = GetParam();
  const std::string kernel = "__kernel void value(__global int* out) { out[0] = VALUE; }\n";
  // (Serving a guest, -I never gets here: vcomp refuses it, tests/host/vcomp/program_isolation_test.cc.)
  if (local) EXPECT_EQ(build_and_run("#include \"inc_value.h\"\n" + kernel, "-I " + dir_), 42);
  EXPECT_EQ(build_and_run("#include M2S(INCLUDE_PATH/inc_value.h)\n" + kernel,
                          "-D \"XM2S(x)=#x\" -D \"M2S(x)=XM2S(x)\" -D INCLUDE_PATH=" + dir_),
            local ? 42 : -1);
}

INSTANTIATE_TEST_SUITE_P(ApplicationsOwnOrServingAGuest, LocalIncludesTest, ::testing::Bool());

}  // namespace
}  // namespace gsgpu::cl::testing
