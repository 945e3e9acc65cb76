// The limits the runtime reports to OpenCL and enforces come from the device's capabilities
// (drv::Caps), not from constants: a local device opened with a non-default configuration, and a
// device whose caps are narrowed by a forwarding wrapper, each show their own values.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "gsgpu/cl/gsgpu_cl.h"
#include "gsgpu/compiler/frontend.h"
#include "gsgpu/drv/drv.h"
#include "tests/common/benchmark_kernels.h"
#include "tests/gsgpu/cl/forwarding_device.h"

namespace gsgpu::cl::testing {
namespace {

bool have_compiler() {
  const auto& t = gsgpu::compiler::toolchain();
  return !t.clang.empty() && !t.llvm_spirv.empty();
}

// A device that reports other caps than the real one it forwards to: what the runtime reports and
// enforces must follow them.
class NarrowedDevice final : public ForwardingDevice {
 public:
  NarrowedDevice(std::unique_ptr<drv::Device> inner, const drv::Caps& caps)
      : ForwardingDevice(std::move(inner)), caps_(caps) {}
  const char* backend_name() const override { return "narrowed"; }
  const drv::Caps& caps() const override { return caps_; }

 private:
  drv::Caps caps_;
};

template <typename T>
T device_value(const Instance& in, cl_device_id d, cl_device_info param) {
  T v{};
  size_t size = 0;
  EXPECT_EQ(in.api().clGetDeviceInfo(d, param, sizeof v, &v, &size), CL_SUCCESS) << param;
  EXPECT_EQ(size, sizeof v) << param;
  return v;
}

cl_device_id device_of(const Instance& in) {
  cl_device_id d = nullptr;
  EXPECT_EQ(in.api().clGetDeviceIDs(in.platform(), CL_DEVICE_TYPE_GPU, 1, &d, nullptr), CL_SUCCESS);
  return d;
}

TEST(RuntimeCaps, DeviceQueriesFollowANonDefaultLocalDevice) {
  RuntimeConfig config;
  config.shader_cores = 3;
  config.warp_width = 16;
  config.vram_mb = 48;
  std::string error;
  auto device = drv::open_local(local_config(config), &error);
  ASSERT_NE(device, nullptr) << error;
  const drv::Caps caps = device->caps();
  EXPECT_EQ(caps.shader_cores, 3u);
  EXPECT_EQ(caps.warp_width, 16u);
  EXPECT_EQ(caps.vram_size, uint64_t{48} << 20);
  auto in = create_instance(std::move(device), config, &error);
  ASSERT_NE(in, nullptr) << error;
  EXPECT_EQ(in->caps().shader_cores, caps.shader_cores);
  cl_device_id d = device_of(*in);
  EXPECT_EQ(device_value<cl_uint>(*in, d, CL_DEVICE_MAX_COMPUTE_UNITS), caps.shader_cores);
  EXPECT_EQ(device_value<cl_ulong>(*in, d, CL_DEVICE_GLOBAL_MEM_SIZE), caps.vram_size);
  EXPECT_EQ(device_value<size_t>(*in, d, CL_DEVICE_MAX_WORK_GROUP_SIZE), caps.max_work_group_size);
  EXPECT_EQ(device_value<cl_ulong>(*in, d, CL_DEVICE_LOCAL_MEM_SIZE),
            std::min<cl_ulong>(caps.max_local_mem_size, cl_ulong{1} << 20));
  EXPECT_EQ(device_value<cl_uint>(*in, d, CL_DEVICE_MAX_CLOCK_FREQUENCY), caps.clock_mhz);
  // The full profile's minimum (128 MiB) capped by the 48 MiB of VRAM and the largest object.
  EXPECT_EQ(device_value<cl_ulong>(*in, d, CL_DEVICE_MAX_MEM_ALLOC_SIZE), std::min(caps.vram_size, caps.max_bo_size));
  EXPECT_NE(in->description().find("3 cores, warp 16, 48 MiB"), std::string::npos) << in->description();
}

// A device whose caps say less than the emulator could do: the runtime reports and enforces the caps.
class NarrowedCaps : public ::testing::Test {
 protected:
  void SetUp() override {
    RuntimeConfig config;
    config.shader_cores = 2;
    config.vram_mb = 32;
    std::string error;
    auto local = drv::open_local(local_config(config), &error);
    ASSERT_NE(local, nullptr) << error;
    caps_ = local->caps();
    caps_.max_work_group_size = 64;
    caps_.max_local_mem_size = 4096;
    caps_.max_work_items_per_dispatch = 1 << 16;
    caps_.clock_mhz = 500;  // 2 ns per cycle
    caps_.warp_width = local->caps().warp_width;
    in_ = create_instance(std::make_unique<NarrowedDevice>(std::move(local), caps_), config, &error);
    ASSERT_NE(in_, nullptr) << error;
    d_ = device_of(*in_);
    context_ = api().clCreateContext(nullptr, 1, &d_, nullptr, nullptr, nullptr);
    queue_ = api().clCreateCommandQueue(context_, d_, CL_QUEUE_PROFILING_ENABLE, nullptr);
    ASSERT_NE(queue_, nullptr);
  }
  void TearDown() override {
    if (kernel_) api().clReleaseKernel(kernel_);
    if (program_) api().clReleaseProgram(program_);
    if (mem_) api().clReleaseMemObject(mem_);
    if (queue_) api().clReleaseCommandQueue(queue_);
    if (context_) api().clReleaseContext(context_);
  }
  const cl_icd_dispatch& api() const { return in_->api(); }
  // The benchmark's vector add over n items in `mem_`, built once.
  void build_vector_add(size_t n) {
    const char* text = gsvirt::kernel_sources::kVectorAdd;
    program_ = api().clCreateProgramWithSource(context_, 1, &text, nullptr, nullptr);
    ASSERT_EQ(api().clBuildProgram(program_, 1, &d_, "", nullptr, nullptr), CL_SUCCESS);
    kernel_ = api().clCreateKernel(program_, "vadd", nullptr);
    ASSERT_NE(kernel_, nullptr);
    mem_ = api().clCreateBuffer(context_, CL_MEM_READ_WRITE, n * 4, nullptr, nullptr);
    const cl_uint count = cl_uint(n);
    for (cl_uint i = 0; i < 3; ++i) ASSERT_EQ(api().clSetKernelArg(kernel_, i, sizeof mem_, &mem_), CL_SUCCESS);
    ASSERT_EQ(api().clSetKernelArg(kernel_, 3, sizeof count, &count), CL_SUCCESS);
  }

  drv::Caps caps_;
  std::unique_ptr<Instance> in_;
  cl_device_id d_ = nullptr;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_program program_ = nullptr;
  cl_kernel kernel_ = nullptr;
  cl_mem mem_ = nullptr;
};

TEST_F(NarrowedCaps, QueriesReportTheCaps) {
  EXPECT_EQ(device_value<size_t>(*in_, d_, CL_DEVICE_MAX_WORK_GROUP_SIZE), 64u);
  size_t sizes[3] = {};
  ASSERT_EQ(api().clGetDeviceInfo(d_, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof sizes, sizes, nullptr), CL_SUCCESS);
  EXPECT_EQ(sizes[0], 64u);
  EXPECT_EQ(sizes[2], 64u);
  EXPECT_EQ(device_value<cl_ulong>(*in_, d_, CL_DEVICE_LOCAL_MEM_SIZE), 4096u);
  EXPECT_EQ(device_value<cl_uint>(*in_, d_, CL_DEVICE_MAX_CLOCK_FREQUENCY), 500u);
  EXPECT_NE(in_->description().find("(narrowed)"), std::string::npos);
}

TEST_F(NarrowedCaps, EnqueueEnforcesTheCaps) {
  if (!have_compiler()) GTEST_SKIP() << "clang-14 / llvm-spirv-14 not installed";
  build_vector_add(1 << 12);
  const size_t global = 1 << 12, too_wide = 128, fits = 64;
  EXPECT_EQ(api().clEnqueueNDRangeKernel(queue_, kernel_, 1, nullptr, &global, &too_wide, 0, nullptr, nullptr),
            CL_INVALID_WORK_ITEM_SIZE);
  EXPECT_EQ(api().clEnqueueNDRangeKernel(queue_, kernel_, 1, nullptr, &global, &fits, 0, nullptr, nullptr),
            CL_SUCCESS);
  // No local size: the runtime's choice stays within the caps too.
  EXPECT_EQ(api().clEnqueueNDRangeKernel(queue_, kernel_, 1, nullptr, &global, nullptr, 0, nullptr, nullptr),
            CL_SUCCESS);
  // Over one dispatch's 2^16 work-items: two dispatches (vadd reads only its global id, so the
  // runtime may split it; ndrange_split_test.cc), each within the cap; past 64 dispatches, refused.
  const size_t two_dispatches = (1 << 16) + 64;
  EXPECT_EQ(api().clEnqueueNDRangeKernel(queue_, kernel_, 1, nullptr, &two_dispatches, &fits, 0, nullptr, nullptr),
            CL_SUCCESS);
  const size_t too_many = (size_t{64} << 16) + 64;
  EXPECT_EQ(api().clEnqueueNDRangeKernel(queue_, kernel_, 1, nullptr, &too_many, &fits, 0, nullptr, nullptr),
            CL_OUT_OF_RESOURCES);
  EXPECT_EQ(api().clFinish(queue_), CL_SUCCESS);
}

TEST_F(NarrowedCaps, ProfilingUsesTheDeviceClock) {
  if (!have_compiler()) GTEST_SKIP() << "clang-14 / llvm-spirv-14 not installed";
  build_vector_add(1 << 12);
  const size_t global = 1 << 12, local = 64;
  cl_event e = nullptr;
  ASSERT_EQ(api().clEnqueueNDRangeKernel(queue_, kernel_, 1, nullptr, &global, &local, 0, nullptr, &e), CL_SUCCESS);
  ASSERT_EQ(api().clWaitForEvents(1, &e), CL_SUCCESS);
  cl_ulong start = 0, end = 0;
  ASSERT_EQ(api().clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr), CL_SUCCESS);
  ASSERT_EQ(api().clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr), CL_SUCCESS);
  api().clReleaseEvent(e);
  // At 500 MHz a cycle is 2 ns: the modelled duration is even and not zero.
  EXPECT_GT(end, start);
  EXPECT_EQ((end - start) % 2, 0u);
}

}  // namespace
}  // namespace gsgpu::cl::testing
