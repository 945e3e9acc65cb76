// vcomp on the gsgpu executor: whole OpenCL jobs through the raw protocol, as a guest sends them.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <thread>
#include <cstring>

#include "gsgpu/compiler/frontend.h"
#include "host/vcomp/gsgpu_executor.h"
#include "tests/host/vcomp/executor_checks.h"
#include "tests/host/vcomp/vcomp_harness.h"

namespace gsvirt::vcomp::testing {
namespace {

constexpr char kSource[] = R"(
__kernel void vadd(__global const float* a, __global const float* b, __global float* c) {
  size_t i = get_global_id(0);
  c[i] = a[i] + b[i];
}
__kernel void forever(__global volatile int* p) {
  while (p[0] == 0) p[1]++;
}
__kernel void args(__global float* b, ulong v, __local float* s) { b[0] = (float)v + s[0]; }
)";

class VcompOnGsgpuTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    GsgpuExecutorConfig config;
    config.shader_cores = 2;
    config.vram_mb = 32;
    config.watchdog_budget = 100000;
    std::string error;
    executor_ = make_gsgpu_executor(config, &error).release();
    ASSERT_NE(executor_, nullptr) << error;
  }
  static void TearDownTestSuite() {
    delete executor_;
    executor_ = nullptr;
  }
  void SetUp() override {
    const auto& t = gsgpu::compiler::toolchain();
    if (t.clang.empty() || t.llvm_spirv.empty()) GTEST_SKIP() << "clang-14 / llvm-spirv-14 not installed";
  }

  // Context, queue, the three vadd buffers and the built program; returns false on any failure.
  void set_up_job(Harness& h) {
    context_ = h.make_context(&device_);
    ASSERT_EQ(h.last_result(), CL_SUCCESS);
    queue_ = h.next_id();
    h.send([&](WireWriter& w) { proto::encode_clCreateCommandQueue(w, true, queue_, context_, device_, 0); });
    ASSERT_EQ(h.last_result(), CL_SUCCESS);
    program_ = h.next_id();
    h.send([&](WireWriter& w) { proto::encode_clCreateProgramWithSource(w, true, program_, context_, kSource); });
    ASSERT_EQ(h.last_result(), CL_SUCCESS);
    h.send([&](WireWriter& w) { proto::encode_clBuildProgram(w, true, program_, &device_, 1, ""); });
    ASSERT_EQ(h.last_result(), CL_SUCCESS);
  }
  uint64_t create_buffer(Harness& h, const void* init, size_t size) {
    uint64_t id = h.next_id();
    proto::DataIn data{};
    cl_mem_flags flags = CL_MEM_READ_WRITE;
    if (init) {
      data = {proto::kDataInline, init, size};
      flags |= CL_MEM_COPY_HOST_PTR;
    }
    h.send([&](WireWriter& w) { proto::encode_clCreateBuffer(w, true, id, context_, flags, size, data); });
    EXPECT_EQ(h.last_result(), CL_SUCCESS);
    return id;
  }
  uint64_t create_kernel(Harness& h, const char* name) {
    uint64_t id = h.next_id();
    h.send([&](WireWriter& w) { proto::encode_clCreateKernel(w, true, id, program_, name); });
    EXPECT_EQ(h.last_result(), CL_SUCCESS);
    return id;
  }

  static Executor* executor_;
  uint64_t device_ = 0, context_ = 0, queue_ = 0, program_ = 0;
};

Executor* VcompOnGsgpuTest::executor_ = nullptr;

TEST_F(VcompOnGsgpuTest, VectorAddThroughTheProtocol) {
  Harness h(executor_, 1, 1 << 16);
  ASSERT_NO_FATAL_FAILURE(set_up_job(h));
  constexpr size_t n = 1024;
  std::vector<float> a(n), b(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = float(i);
    b[i] = float(2 * i) + 0.5f;
  }
  const uint64_t buf[3] = {create_buffer(h, a.data(), n * 4), create_buffer(h, b.data(), n * 4),
                           create_buffer(h, nullptr, n * 4)};
  const uint64_t kernel = create_kernel(h, "vadd");
  // Arguments and the launch are batched; the read carries the reply.
  uint64_t event = h.next_id();
  std::vector<uint8_t> batch;
  WireWriter w(batch);
  for (uint32_t i = 0; i < 3; ++i) proto::encode_clSetKernelArg(w, false, kernel, i, 1, 8, buf[i], nullptr, 0);
  uint64_t global = n;
  proto::encode_clEnqueueNDRangeKernel(w, false, queue_, kernel, 1, nullptr, 0, &global, 1, nullptr, 0, nullptr, 0,
                                       event);
  proto::DataOut dst{proto::kDataResource, n * 4, Harness::kStagingResource, 128};
  proto::encode_clEnqueueReadBuffer(w, true, queue_, buf[2], 0, n * 4, &event, 1, 0, dst);
  ASSERT_EQ(h.submit(batch), 0);
  EXPECT_EQ(h.header().deferred_status, CL_SUCCESS);
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  std::vector<float> c(n);
  std::memcpy(c.data(), h.staging().data() + 128, n * 4);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << i;
}

TEST_F(VcompOnGsgpuTest, DeviceQueriesComeFromTheEmulatedDevice) {
  Harness h(executor_, 1, 1 << 16);
  uint64_t device = 0;
  h.make_context(&device);
  proto::DataOut out{proto::kDataInline, 256};
  h.send([&](WireWriter& w) { proto::encode_clGetDeviceInfo(w, true, device, CL_DEVICE_NAME, out); });
  proto::Reply_clGetDeviceInfo reply;
  WireReader r = h.payload();
  ASSERT_TRUE(proto::decode_reply_clGetDeviceInfo(r, &reply));
  ASSERT_EQ(reply.result, CL_SUCCESS);
  EXPECT_STREQ(reinterpret_cast<const char*>(reply.value), "gsgpu");
  h.send([&](WireWriter& w) { proto::encode_clGetDeviceInfo(w, true, device, CL_DEVICE_MAX_COMPUTE_UNITS, out); });
  WireReader r2 = h.payload();
  ASSERT_TRUE(proto::decode_reply_clGetDeviceInfo(r2, &reply));
  cl_uint units = 0;
  ASSERT_EQ(reply.value_size, sizeof units);
  std::memcpy(&units, reply.value, sizeof units);
  EXPECT_EQ(units, 2u);
}

TEST_F(VcompOnGsgpuTest, RunawayKernelIsAnErrorAndTheContextStaysUsable) {
  Harness h(executor_, 1, 1 << 16);
  ASSERT_NO_FATAL_FAILURE(set_up_job(h));
  const int zero[2] = {0, 0};
  const uint64_t flag = create_buffer(h, zero, sizeof zero);
  const uint64_t kernel = create_kernel(h, "forever");
  h.send([&](WireWriter& w) { proto::encode_clSetKernelArg(w, true, kernel, 0, 1, 8, flag, nullptr, 0); });
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  uint64_t global = 32;
  h.send([&](WireWriter& w) {
    proto::encode_clEnqueueNDRangeKernel(w, true, queue_, kernel, 1, nullptr, 0, &global, 1, nullptr, 0, nullptr, 0,
                                         0);
  });
  EXPECT_EQ(h.last_result(), CL_SUCCESS);
  h.send([&](WireWriter& w) { proto::encode_clFinish(w, true, queue_); });
  EXPECT_EQ(h.last_result(), CL_OUT_OF_RESOURCES);
  // Still usable: the vector add runs.
  std::vector<float> a(64, 1.0f), b(64, 2.0f);
  const uint64_t buf[3] = {create_buffer(h, a.data(), 256), create_buffer(h, b.data(), 256),
                           create_buffer(h, nullptr, 256)};
  const uint64_t vadd = create_kernel(h, "vadd");
  for (uint32_t i = 0; i < 3; ++i)
    h.send([&](WireWriter& w) { proto::encode_clSetKernelArg(w, true, vadd, i, 1, 8, buf[i], nullptr, 0); });
  global = 64;
  h.send([&](WireWriter& w) {
    proto::encode_clEnqueueNDRangeKernel(w, true, queue_, vadd, 1, nullptr, 0, &global, 1, nullptr, 0, nullptr, 0, 0);
  });
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  proto::DataOut dst{proto::kDataResource, 256, Harness::kStagingResource, 0};
  h.send([&](WireWriter& w) { proto::encode_clEnqueueReadBuffer(w, true, queue_, buf[2], 0, 256, nullptr, 0, 0, dst); });
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  std::vector<float> c(64);
  std::memcpy(c.data(), h.staging().data(), 256);
  EXPECT_EQ(c, std::vector<float>(64, 3.0f));
  h.send([&](WireWriter& w) { proto::encode_clFinish(w, true, queue_); });
  EXPECT_EQ(h.last_result(), CL_SUCCESS);
}

// Issue 12, point 2: what the guest sends for an argument is checked against the kernel; a host
// handle never becomes a by-value argument (before: the buffer's host address reached the kernel).
TEST_F(VcompOnGsgpuTest, Issue12KernelArgumentKindsAreChecked) {
  Harness h(executor_, 1, 1 << 16);
  ASSERT_NO_FATAL_FAILURE(set_up_job(h));
  const uint64_t buffer = create_buffer(h, nullptr, 64);
  const uint64_t kernel = create_kernel(h, "args");
  auto set_arg = [&](uint32_t index, uint32_t kind, uint64_t size, uint64_t object, const void* bytes,
                     uint64_t byte_count) {
    h.send([&](WireWriter& w) {
      proto::encode_clSetKernelArg(w, true, kernel, index, kind, size, object,
                                   static_cast<const uint8_t*>(bytes), byte_count);
    });
    return h.last_result();
  };
  const uint64_t forged = 0x4141414141414141ull;
  EXPECT_EQ(set_arg(1, 1, 8, buffer, nullptr, 0), CL_INVALID_ARG_VALUE);
  EXPECT_EQ(set_arg(0, 0, 8, 0, &forged, 8), CL_INVALID_MEM_OBJECT);
  EXPECT_EQ(set_arg(2, 0, 8, 0, &forged, 8), CL_INVALID_ARG_VALUE);
  EXPECT_EQ(set_arg(0, 1, 8, buffer, nullptr, 0), CL_SUCCESS);
  EXPECT_EQ(set_arg(1, 0, 8, 0, &forged, 8), CL_SUCCESS);
  EXPECT_EQ(set_arg(2, 3, 64, 0, nullptr, 0), CL_SUCCESS);
}

// The host builds with -cl-kernel-arg-info for its own checks; a guest that did not ask for the
// metadata is told it is not available, as without gsvirt (piglit api@clgetkernelarginfo), and one
// that asked gets it.
TEST_F(VcompOnGsgpuTest, KernelArgInfoOnlyWhenTheGuestAskedForIt) {
  Harness h(executor_, 1, 1 << 16);
  ASSERT_NO_FATAL_FAILURE(set_up_job(h));
  auto arg_name = [&](uint64_t kernel, uint32_t index) {
    proto::DataOut out;
    out.size = 64;
    h.send([&](WireWriter& w) { proto::encode_clGetKernelArgInfo(w, true, kernel, index, CL_KERNEL_ARG_NAME, out); });
    return h.last_result();
  };
  const uint64_t plain = create_kernel(h, "args");
  EXPECT_EQ(arg_name(plain, 0), CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
  EXPECT_EQ(arg_name(plain, 7), CL_INVALID_ARG_INDEX) << "a bad index keeps its own error";
  const uint64_t program = h.next_id();
  h.send([&](WireWriter& w) { proto::encode_clCreateProgramWithSource(w, true, program, context_, kSource); });
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  h.send([&](WireWriter& w) { proto::encode_clBuildProgram(w, true, program, &device_, 1, "-cl-kernel-arg-info"); });
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  const uint64_t described = h.next_id();
  h.send([&](WireWriter& w) { proto::encode_clCreateKernel(w, true, described, program, "args"); });
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  EXPECT_EQ(arg_name(described, 0), CL_SUCCESS);
}

TEST_F(VcompOnGsgpuTest, Issue12WaitsBehindUnsetUserEventsDoNotBlockTheServer) {
  Harness h(executor_, 1, 1 << 16);
  ASSERT_NO_FATAL_FAILURE(set_up_job(h));
  check_waits_behind_user_event(h, context_, queue_);
}

// Issue 12, point 10: commands queued behind a user event the guest never set do not keep their
// memory after the context ends (before: the VRAM stayed taken for every later client).
TEST_F(VcompOnGsgpuTest, Issue12EndedContextFreesWhatItQueuedBehindAUserEvent) {
  constexpr uint64_t kBig = 24ull << 20;  // of the suite's 32 MiB of VRAM
  const uint8_t pattern = 0x22;
  {
    Harness h(executor_, 1, 1 << 16);
    ASSERT_NO_FATAL_FAILURE(set_up_job(h));
    uint64_t buffer = h.next_id(), user = h.next_id();
    h.send([&](WireWriter& w) { proto::encode_clCreateBuffer(w, true, buffer, context_, 0, kBig, {}); });
    ASSERT_EQ(h.last_result(), CL_SUCCESS);
    h.send([&](WireWriter& w) { proto::encode_clCreateUserEvent(w, true, user, context_); });
    ASSERT_EQ(h.last_result(), CL_SUCCESS);
    h.send([&](WireWriter& w) {
      proto::encode_clEnqueueFillBuffer(w, true, queue_, buffer, &pattern, 1, 0, kBig, &user, 1, 0);
    });
    ASSERT_EQ(h.last_result(), CL_SUCCESS);
    h.send([&](WireWriter& w) { proto::encode_vcDestroyObject(w, true, buffer); });
    ASSERT_EQ(h.last_result(), CL_SUCCESS);
  }  // the guest leaves with the user event unset
  Harness next(executor_, 2, 1 << 16);
  ASSERT_NO_FATAL_FAILURE(set_up_job(next));
  uint64_t buffer = next.next_id();
  next.send([&](WireWriter& w) { proto::encode_clCreateBuffer(w, true, buffer, context_, 0, kBig, {}); });
  ASSERT_EQ(next.last_result(), CL_SUCCESS);
  next.send([&](WireWriter& w) {
    proto::encode_clEnqueueFillBuffer(w, true, queue_, buffer, &pattern, 1, 0, kBig, nullptr, 0, 0);
  });
  EXPECT_EQ(next.last_result(), CL_SUCCESS);
  next.send([&](WireWriter& w) { proto::encode_clFinish(w, true, queue_); });
  EXPECT_EQ(next.last_result(), CL_SUCCESS);
}

}  // namespace
}  // namespace gsvirt::vcomp::testing
