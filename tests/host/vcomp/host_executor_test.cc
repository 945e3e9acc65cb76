// vcomp on the host executor (PoCL on CI machines): a whole OpenCL job through the raw protocol.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <sstream>
#include <string>
#include <vector>
#include <thread>
#include <cstring>

#include "gsgpu/compiler/frontend.h"
#include "host/vcomp/extension_allow_list.h"
#include "tests/host/vcomp/executor_checks.h"
#include "tests/host/vcomp/vcomp_harness.h"

namespace gsvirt::vcomp::testing {
namespace {

constexpr char kVectorAdd[] = R"(
__kernel void vadd(__global const float* a, __global const float* b, __global float* c) {
  size_t i = get_global_id(0);
  c[i] = a[i] + b[i];
}
__kernel void broken(__global float* a) { a[0] = undeclared_thing; }
)";

class HostExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    executor_ = host_executor(&error);
    if (!executor_) GTEST_SKIP() << "no host OpenCL platform: " << error;
  }
  Executor* executor_ = nullptr;
};

// clGetProgramBuildInfo of a string parameter through the protocol: its result and its bytes.
void build_info(Harness& h, uint64_t program, uint64_t device, cl_program_build_info param, uint32_t capacity,
                cl_int* result, std::string* value) {
  proto::DataOut out{proto::kDataInline, capacity};
  h.send([&](WireWriter& w) { proto::encode_clGetProgramBuildInfo(w, true, program, device, param, out); });
  proto::Reply_clGetProgramBuildInfo reply;
  WireReader r = h.payload();
  ASSERT_TRUE(proto::decode_reply_clGetProgramBuildInfo(r, &reply));
  *result = reply.result;
  value->assign(reinterpret_cast<const char*>(reply.value), reply.value_size);
}

TEST_F(HostExecutorTest, VectorAddThroughTheProtocol) {
  Harness h(executor_, 1, 1 << 16);
  uint64_t device = 0;
  uint64_t context = h.make_context(&device);
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  uint64_t queue = h.next_id();
  h.send([&](WireWriter& w) { proto::encode_clCreateCommandQueue(w, true, queue, context, device, 0); });
  ASSERT_EQ(h.last_result(), CL_SUCCESS);

  constexpr size_t n = 1024;
  std::vector<float> a(n), b(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = float(i);
    b[i] = float(2 * i) + 0.5f;
  }
  uint64_t buf[3];
  for (int i = 0; i < 3; ++i) {
    buf[i] = h.next_id();
    proto::DataIn init{};
    cl_mem_flags flags = CL_MEM_READ_WRITE;
    if (i < 2) {
      init = {proto::kDataInline, i == 0 ? a.data() : b.data(), n * sizeof(float)};
      flags |= CL_MEM_COPY_HOST_PTR;
    }
    h.send([&](WireWriter& w) { proto::encode_clCreateBuffer(w, true, buf[i], context, flags, n * 4, init); });
    ASSERT_EQ(h.last_result(), CL_SUCCESS);
  }
  uint64_t program = h.next_id();
  h.send([&](WireWriter& w) { proto::encode_clCreateProgramWithSource(w, true, program, context, kVectorAdd); });
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  h.send([&](WireWriter& w) { proto::encode_clBuildProgram(w, true, program, &device, 1, ""); });
  EXPECT_EQ(h.last_result(), CL_BUILD_PROGRAM_FAILURE);
  // The build log names the error.
  cl_int log_result = CL_SUCCESS;
  std::string text;
  ASSERT_NO_FATAL_FAILURE(build_info(h, program, device, CL_PROGRAM_BUILD_LOG, 60000, &log_result, &text));
  EXPECT_NE(text.find("undeclared_thing"), std::string::npos) << text;

  // Same source without the broken kernel.
  std::string good(kVectorAdd);
  good = good.substr(0, good.find("__kernel void broken"));
  uint64_t program2 = h.next_id();
  h.send([&](WireWriter& w) { proto::encode_clCreateProgramWithSource(w, true, program2, context, good); });
  h.send([&](WireWriter& w) { proto::encode_clBuildProgram(w, true, program2, &device, 1, ""); });
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  uint64_t kernel = h.next_id();
  h.send([&](WireWriter& w) { proto::encode_clCreateKernel(w, true, kernel, program2, "vadd"); });
  ASSERT_EQ(h.last_result(), CL_SUCCESS);

  // Arguments and the launch are batched; the read carries the reply.
  uint64_t event = h.next_id();
  std::vector<uint8_t> batch;
  WireWriter w(batch);
  for (uint32_t i = 0; i < 3; ++i) proto::encode_clSetKernelArg(w, false, kernel, i, 1, 8, buf[i], nullptr, 0);
  uint64_t global = n;
  proto::encode_clEnqueueNDRangeKernel(w, false, queue, kernel, 1, nullptr, 0, &global, 1, nullptr, 0,
                                       nullptr, 0, event);
  proto::DataOut dst{proto::kDataResource, n * 4, Harness::kStagingResource, 128};
  proto::encode_clEnqueueReadBuffer(w, true, queue, buf[2], 0, n * 4, &event, 1, 0, dst);
  ASSERT_EQ(h.submit(batch), 0);
  EXPECT_EQ(h.header().deferred_status, CL_SUCCESS);
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  std::vector<float> c(n);
  std::memcpy(c.data(), h.staging().data() + 128, n * 4);
  for (size_t i = 0; i < n; ++i) ASSERT_FLOAT_EQ(c[i], a[i] + b[i]) << i;

  // The event completed and has profiling-free status info.
  proto::DataOut status_out{proto::kDataInline, 4};
  h.send([&](WireWriter& w) {
    proto::encode_clGetEventInfo(w, true, event, CL_EVENT_COMMAND_EXECUTION_STATUS, status_out);
  });
  proto::Reply_clGetEventInfo status;
  WireReader sr = h.payload();
  ASSERT_TRUE(proto::decode_reply_clGetEventInfo(sr, &status));
  ASSERT_EQ(status.value_size, 4u);
  cl_int st;
  std::memcpy(&st, status.value, 4);
  EXPECT_EQ(st, CL_COMPLETE);
}

// The wire string has no terminator: the host must not hand OpenCL a length of 0 (which means
// "NUL-terminated") for an empty source.
TEST_F(HostExecutorTest, EmptySourceCompiles) {
  Harness h(executor_);
  uint64_t device = 0;
  uint64_t context = h.make_context(&device);
  uint64_t program = h.next_id();
  h.send([&](WireWriter& w) { proto::encode_clCreateProgramWithSource(w, true, program, context, ""); });
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  h.send([&](WireWriter& w) { proto::encode_clCompileProgram(w, true, program, &device, 1, "", nullptr, 0, nullptr, 0); });
  EXPECT_EQ(h.last_result(), CL_SUCCESS);
}

// OpenCL C 3.0 through the host's preprocessing: the device's extensions and its feature macros go
// to clang together, or it refuses cl_khr_fp64 without __opencl_c_fp64 (every CTS build under
// -cl-std=CL3.0 on PoCL failed so).
TEST_F(HostExecutorTest, OpenCLC30BuildsWithTheDevicesFeatures) {
  Harness h(executor_);
  uint64_t device = 0;
  uint64_t context = h.make_context(&device);
  uint64_t program = h.next_id();
  h.send([&](WireWriter& w) {
    proto::encode_clCreateProgramWithSource(w, true, program, context,
                                            "__kernel void k(__global float* p) { p[0] = 1.0f; }");
  });
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  h.send([&](WireWriter& w) { proto::encode_clBuildProgram(w, true, program, &device, 1, "-cl-std=CL3.0"); });
  EXPECT_EQ(h.last_result(), CL_SUCCESS);
}

// The host executor preprocesses every program with clang-14. Without it (the meson test
// vcomp_host_executor_without_clang points GSVIRT_CLANG at nothing) a build fails, and its log tells
// the application what is missing and how to install it, not only the vendor's "1 error generated".
TEST_F(HostExecutorTest, WithoutClangTheBuildLogSaysWhatIsMissing) {
  if (!gsgpu::compiler::find_clang().empty()) GTEST_SKIP() << "clang-14 is installed (GSVIRT_CLANG hides it)";
  Harness h(executor_);
  uint64_t device = 0;
  uint64_t context = h.make_context(&device);
  uint64_t program = h.next_id();
  h.send([&](WireWriter& w) {
    proto::encode_clCreateProgramWithSource(w, true, program, context,
                                            "__kernel void k(__global float* p) { p[0] = 1.0f; }");
  });
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  h.send([&](WireWriter& w) { proto::encode_clBuildProgram(w, true, program, &device, 1, ""); });
  EXPECT_EQ(h.last_result(), CL_BUILD_PROGRAM_FAILURE);
  cl_int result = CL_SUCCESS;
  std::string log;
  build_info(h, program, device, CL_PROGRAM_BUILD_LOG, 4096, &result, &log);
  ASSERT_EQ(result, CL_SUCCESS);
  EXPECT_NE(log.find("clang-14 is not installed on the host"), std::string::npos) << log;
  EXPECT_NE(log.find("apt-get install clang-14"), std::string::npos) << log;
  EXPECT_NE(log.find("GSVIRT_CLANG"), std::string::npos) << log;
  cl_int status = CL_BUILD_SUCCESS;
  std::string status_bytes;
  build_info(h, program, device, CL_PROGRAM_BUILD_STATUS, sizeof status, &result, &status_bytes);
  ASSERT_EQ(status_bytes.size(), sizeof status);
  std::memcpy(&status, status_bytes.data(), sizeof status);
  EXPECT_EQ(status, CL_BUILD_ERROR);
}

TEST_F(HostExecutorTest, HandleValuedQueriesAreNeverForwarded) {
  Harness h(executor_);
  uint64_t device = 0;
  h.make_context(&device);
  proto::DataOut out{proto::kDataInline, 8};
  h.send([&](WireWriter& w) { proto::encode_clGetDeviceInfo(w, true, device, CL_DEVICE_PLATFORM, out); });
  EXPECT_EQ(h.last_result(), CL_INVALID_VALUE);
}

// Issue 12, point 11: a new buffer never shows what the host allocator left in its memory. The
// guest fills a buffer, releases it and creates others of the same size (the allocator's first
// candidates for reuse); each reads back as zeros.
TEST_F(HostExecutorTest, Issue12NewBuffersReadAsZerosAfterAReleasedOne) {
  Harness h(executor_, 1, 1 << 16);
  uint64_t device = 0;
  uint64_t context = h.make_context(&device);
  uint64_t queue = h.next_id();
  h.send([&](WireWriter& w) { proto::encode_clCreateCommandQueue(w, true, queue, context, device, 0); });
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  constexpr size_t kSize = 16384;
  std::vector<uint8_t> secret(kSize, 0xab);
  for (int round = 0; round < 4; ++round) {
    uint64_t old_buffer = h.next_id();
    proto::DataIn init{proto::kDataInline, secret.data(), kSize};
    h.send([&](WireWriter& w) {
      proto::encode_clCreateBuffer(w, true, old_buffer, context, CL_MEM_COPY_HOST_PTR, kSize, init);
    });
    ASSERT_EQ(h.last_result(), CL_SUCCESS);
    h.send([&](WireWriter& w) { proto::encode_vcDestroyObject(w, true, old_buffer); });
    uint64_t buffer = h.next_id();
    h.send([&](WireWriter& w) { proto::encode_clCreateBuffer(w, true, buffer, context, 0, kSize, {}); });
    ASSERT_EQ(h.last_result(), CL_SUCCESS);
    proto::DataOut dst{proto::kDataResource, kSize, Harness::kStagingResource, 0};
    std::fill(h.staging().begin(), h.staging().begin() + kSize, 0x77);
    h.send([&](WireWriter& w) { proto::encode_clEnqueueReadBuffer(w, true, queue, buffer, 0, kSize, nullptr, 0, 0, dst); });
    ASSERT_EQ(h.last_result(), CL_SUCCESS);
    size_t nonzero = std::count_if(h.staging().begin(), h.staging().begin() + kSize, [](uint8_t b) { return b != 0; });
    EXPECT_EQ(nonzero, 0u) << "round " << round;
  }
}

// Issue 12, point 2: bytes of the guest's choosing never reach the host driver where it reads a
// handle (before: PoCL dereferenced 0x4141414141414141 and the server crashed), and a host handle
// never becomes a by-value argument.
TEST_F(HostExecutorTest, Issue12KernelArgumentKindsComeFromTheKernel) {
  Harness h(executor_, 1, 1 << 16);
  uint64_t device = 0;
  uint64_t context = h.make_context(&device);
  uint64_t program = h.next_id();
  const char* source = "__kernel void args(__global float* b, ulong v, __local float* s) { b[0] = (float)v + s[0]; }";
  h.send([&](WireWriter& w) { proto::encode_clCreateProgramWithSource(w, true, program, context, source); });
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  h.send([&](WireWriter& w) { proto::encode_clBuildProgram(w, true, program, &device, 1, ""); });
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  // The guest's options come back without the -cl-kernel-arg-info the host added.
  cl_int options_result = CL_SUCCESS;
  std::string options;
  ASSERT_NO_FATAL_FAILURE(build_info(h, program, device, CL_PROGRAM_BUILD_OPTIONS, 256, &options_result, &options));
  ASSERT_EQ(options_result, CL_SUCCESS);
  EXPECT_STREQ(options.c_str(), "");
  uint64_t kernel = h.next_id();
  h.send([&](WireWriter& w) { proto::encode_clCreateKernel(w, true, kernel, program, "args"); });
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  uint64_t buffer = h.next_id();
  h.send([&](WireWriter& w) { proto::encode_clCreateBuffer(w, true, buffer, context, 0, 64, {}); });
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  auto set_arg = [&](uint32_t index, uint32_t kind, uint64_t size, uint64_t object, const void* bytes,
                     uint64_t byte_count) {
    h.send([&](WireWriter& w) {
      proto::encode_clSetKernelArg(w, true, kernel, index, kind, size, object,
                                   static_cast<const uint8_t*>(bytes), byte_count);
    });
    return h.last_result();
  };
  const uint64_t forged = 0x4141414141414141ull;
  EXPECT_EQ(set_arg(0, 0, 8, 0, &forged, 8), CL_INVALID_MEM_OBJECT);
  EXPECT_EQ(set_arg(1, 1, 8, buffer, nullptr, 0), CL_INVALID_ARG_VALUE);
  EXPECT_EQ(set_arg(2, 0, 8, 0, &forged, 8), CL_INVALID_ARG_VALUE);
  EXPECT_EQ(set_arg(0, 1, 8, buffer, nullptr, 0), CL_SUCCESS);
  EXPECT_EQ(set_arg(1, 0, 8, 0, &forged, 8), CL_SUCCESS);
  EXPECT_EQ(set_arg(2, 3, 64, 0, nullptr, 0), CL_SUCCESS);
}

TEST_F(HostExecutorTest, DeviceQueriesMatchTheHostDevice) {
  Harness h(executor_, 1, 1 << 16);
  uint64_t device = 0;
  h.make_context(&device);
  cl_device_id host_device = nullptr;
  ASSERT_EQ(executor_->api().clGetDeviceIDs(executor_->platform(), CL_DEVICE_TYPE_ALL, 1, &host_device,
                                            nullptr), CL_SUCCESS);
  for (cl_device_info param : {CL_DEVICE_NAME, CL_DEVICE_VENDOR, CL_DEVICE_MAX_COMPUTE_UNITS,
                               CL_DEVICE_GLOBAL_MEM_SIZE}) {
    size_t size = 0;
    executor_->api().clGetDeviceInfo(host_device, param, 0, nullptr, &size);
    std::vector<uint8_t> expect(size);
    executor_->api().clGetDeviceInfo(host_device, param, size, expect.data(), nullptr);
    proto::DataOut out{proto::kDataInline, 4096};
    h.send([&](WireWriter& w) { proto::encode_clGetDeviceInfo(w, true, device, param, out); });
    proto::Reply_clGetDeviceInfo reply;
    WireReader r = h.payload();
    ASSERT_TRUE(proto::decode_reply_clGetDeviceInfo(r, &reply));
    ASSERT_EQ(reply.result, CL_SUCCESS);
    ASSERT_EQ(reply.size_ret, size);
    EXPECT_EQ(std::vector<uint8_t>(reply.value, reply.value + reply.value_size), expect) << param;
  }
}

// An info query through the protocol: its result, size_ret and bytes (capacity 0: the size only).
struct InfoReply {
  cl_int result = CL_SUCCESS;
  uint64_t size_ret = 0;
  std::vector<uint8_t> bytes;
};
InfoReply device_info(Harness& h, uint64_t device, cl_device_info param, uint32_t capacity) {
  proto::DataOut out{proto::kDataInline, capacity};
  h.send([&](WireWriter& w) { proto::encode_clGetDeviceInfo(w, true, device, param, out); });
  proto::Reply_clGetDeviceInfo reply;
  WireReader r = h.payload();
  EXPECT_TRUE(proto::decode_reply_clGetDeviceInfo(r, &reply));
  return {reply.result, reply.size_ret, std::vector<uint8_t>(reply.value, reply.value + reply.value_size)};
}

std::vector<std::string> split_words(const std::string& list) {
  std::vector<std::string> words;
  std::istringstream in(list);
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

// The guest sees the host device's extensions that gsvirt carries end to end and no other (PoCL
// reports cl_khr_command_buffer and cl_khr_spir, whose entry points and binaries the ICD does not
// provide), in both queries, which agree with each other and with their size queries.
TEST_F(HostExecutorTest, ExtensionsAreTheHostDevicesOnTheAllowList) {
  Harness h(executor_, 1, 1 << 16);
  uint64_t device = 0;
  h.make_context(&device);
  cl_device_id host_device = nullptr;
  ASSERT_EQ(executor_->api().clGetDeviceIDs(executor_->platform(), CL_DEVICE_TYPE_ALL, 1, &host_device, nullptr),
            CL_SUCCESS);
  size_t size = 0;
  executor_->api().clGetDeviceInfo(host_device, CL_DEVICE_EXTENSIONS, 0, nullptr, &size);
  std::string host_list(size, '\0');
  executor_->api().clGetDeviceInfo(host_device, CL_DEVICE_EXTENSIONS, size, host_list.data(), nullptr);
  std::vector<std::string> expected;
  for (const std::string& name : split_words(host_list.c_str()))
    if (extension_carried_by_gsvirt(name)) expected.push_back(name);
  ASSERT_FALSE(expected.empty()) << host_list;

  InfoReply names_size = device_info(h, device, CL_DEVICE_EXTENSIONS, 0);
  InfoReply names = device_info(h, device, CL_DEVICE_EXTENSIONS, 4096);
  ASSERT_EQ(names.result, CL_SUCCESS);
  ASSERT_EQ(names_size.size_ret, names.bytes.size());
  ASSERT_FALSE(names.bytes.empty());
  EXPECT_EQ(names.bytes.back(), 0) << "terminated";
  std::string guest_list(reinterpret_cast<const char*>(names.bytes.data()));
  EXPECT_EQ(split_words(guest_list), expected) << "host: " << host_list << "\nguest: " << guest_list;
  for (const char* absent : {"cl_khr_command_buffer", "cl_khr_spir", "cl_khr_il_program", "cl_khr_subgroups"})
    EXPECT_EQ(guest_list.find(absent), std::string::npos) << absent;

  InfoReply versions_size = device_info(h, device, CL_DEVICE_EXTENSIONS_WITH_VERSION, 0);
  InfoReply versions = device_info(h, device, CL_DEVICE_EXTENSIONS_WITH_VERSION, 1 << 15);
  ASSERT_EQ(versions.result, CL_SUCCESS);
  ASSERT_EQ(versions_size.size_ret, versions.bytes.size());
  ASSERT_EQ(versions.bytes.size() % sizeof(cl_name_version), 0u);
  std::vector<std::string> array_names;
  for (size_t at = 0; at < versions.bytes.size(); at += sizeof(cl_name_version)) {
    cl_name_version entry;
    std::memcpy(&entry, versions.bytes.data() + at, sizeof entry);
    array_names.emplace_back(entry.name, strnlen(entry.name, sizeof entry.name));
    EXPECT_NE(entry.version, 0u) << array_names.back();
  }
  std::vector<std::string> sorted_expected = expected;
  std::sort(sorted_expected.begin(), sorted_expected.end());
  std::sort(array_names.begin(), array_names.end());
  EXPECT_EQ(array_names, sorted_expected) << "the array names what the string names";
}

TEST_F(HostExecutorTest, Issue12WaitsBehindUnsetUserEventsDoNotBlockTheServer) {
  Harness h(executor_, 1, 1 << 16);
  uint64_t device = 0;
  uint64_t context = h.make_context(&device);
  uint64_t queue = h.next_id();
  h.send([&](WireWriter& w) { proto::encode_clCreateCommandQueue(w, true, queue, context, device, 0); });
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  check_waits_behind_user_event(h, context, queue);
}

// A guest that releases a queue while a command on it waits behind a user event, and then destroys
// that user event unset: the host fails the event (so the command and its buffer are let go), and
// the vendor must not see its queue gone before that. PoCL 3.1 aborted the whole server process in
// pocl_update_event_failed when the queue had been released first.
TEST_F(HostExecutorTest, Issue12QueueReleasedBeforeItsUserEventIsDestroyedUnset) {
  Harness h(executor_, 1, 1 << 16);
  uint64_t device = 0;
  uint64_t context = h.make_context(&device);
  // 0: the guest drops the command's event before the user event; 1: it keeps it; 2: it never
  // asked for one.
  for (int order : {2, 0, 1}) {
    uint64_t queue = h.next_id(), buffer = h.next_id(), user = h.next_id(), fill = h.next_id();
    h.send([&](WireWriter& w) { proto::encode_clCreateCommandQueue(w, true, queue, context, device, 0); });
    ASSERT_EQ(h.last_result(), CL_SUCCESS);
    h.send([&](WireWriter& w) { proto::encode_clCreateBuffer(w, true, buffer, context, 0, 4096, {}); });
    ASSERT_EQ(h.last_result(), CL_SUCCESS);
    h.send([&](WireWriter& w) { proto::encode_clCreateUserEvent(w, true, user, context); });
    ASSERT_EQ(h.last_result(), CL_SUCCESS);
    const uint8_t pattern = 0x5a;
    h.send([&](WireWriter& w) {
      proto::encode_clEnqueueFillBuffer(w, true, queue, buffer, &pattern, 1, 0, 4096, &user, 1, order == 2 ? 0 : fill);
    });
    ASSERT_EQ(h.last_result(), CL_SUCCESS);
    // The guest lets go of everything, the queue first; once with the command's event kept.
    h.send([&](WireWriter& w) { proto::encode_vcDestroyObject(w, true, queue); });
    ASSERT_EQ(h.last_result(), CL_SUCCESS);
    h.send([&](WireWriter& w) { proto::encode_vcDestroyObject(w, true, buffer); });
    ASSERT_EQ(h.last_result(), CL_SUCCESS);
    if (order == 0) {
      h.send([&](WireWriter& w) { proto::encode_vcDestroyObject(w, true, fill); });
      ASSERT_EQ(h.last_result(), CL_SUCCESS);
    }
    h.send([&](WireWriter& w) { proto::encode_vcDestroyObject(w, true, user); });
    ASSERT_EQ(h.last_result(), CL_SUCCESS);
    if (order == 1) {
      // The command failed with the event it waited for, and waiting for it ends.
      int32_t status = 0;
      within_deadline("the failed command's event", [&] {
        h.send([&](WireWriter& w) { proto::encode_clWaitForEvents(w, true, &fill, 1); });
        status = h.last_result();
      });
      EXPECT_EQ(status, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
      h.send([&](WireWriter& w) { proto::encode_vcDestroyObject(w, true, fill); });
      ASSERT_EQ(h.last_result(), CL_SUCCESS);
    }
  }
  // The context still serves, and ends with a command (no event asked for) behind a user event
  // it never set: ending the context fails that event too.
  uint64_t queue = h.next_id(), buffer = h.next_id(), user = h.next_id();
  h.send([&](WireWriter& w) { proto::encode_clCreateCommandQueue(w, true, queue, context, device, 0); });
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  h.send([&](WireWriter& w) { proto::encode_clFinish(w, true, queue); });
  EXPECT_EQ(h.last_result(), CL_SUCCESS);
  h.send([&](WireWriter& w) { proto::encode_clCreateBuffer(w, true, buffer, context, 0, 4096, {}); });
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  h.send([&](WireWriter& w) { proto::encode_clCreateUserEvent(w, true, user, context); });
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  const uint8_t pattern = 0x5b;
  h.send([&](WireWriter& w) {
    proto::encode_clEnqueueFillBuffer(w, true, queue, buffer, &pattern, 1, 0, 4096, &user, 1, 0);
  });
  EXPECT_EQ(h.last_result(), CL_SUCCESS);
}

}  // namespace
}  // namespace gsvirt::vcomp::testing
