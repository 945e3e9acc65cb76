// The gsgpu executor without kernels: its dispatch table, device queries, buffers and transfers.
#include <cstring>
#include <numeric>

#include "tests/gsgpu/cl/executor_fixture.h"

namespace gsvirt::vcomp::testing {

gsgpu::cl::Instance* GsgpuExecutorTest::executor_ = nullptr;

namespace {

using ObjectsTest = GsgpuExecutorTest;

std::string device_string(const cl_icd_dispatch& api, cl_device_id d, cl_device_info param) {
  size_t size = 0;
  EXPECT_EQ(api.clGetDeviceInfo(d, param, 0, nullptr, &size), CL_SUCCESS);
  std::string s(size, '\0');
  EXPECT_EQ(api.clGetDeviceInfo(d, param, size, s.data(), nullptr), CL_SUCCESS);
  s.resize(std::strlen(s.c_str()));
  return s;
}

template <typename T>
T device_value(const cl_icd_dispatch& api, cl_device_id d, cl_device_info param) {
  T v{};
  size_t size = 0;
  EXPECT_EQ(api.clGetDeviceInfo(d, param, sizeof v, &v, &size), CL_SUCCESS) << param;
  EXPECT_EQ(size, sizeof v) << param;
  return v;
}

TEST_F(ObjectsTest, EveryDispatchEntryIsFilled) {
  const auto* entries = reinterpret_cast<void* const*>(&api());
  for (size_t i = 0; i < sizeof(cl_icd_dispatch) / sizeof(void*); ++i) EXPECT_NE(entries[i], nullptr) << i;
}

TEST_F(ObjectsTest, UnsupportedEntryPointsRefuseCleanly) {
  cl_int err = CL_SUCCESS;
  EXPECT_EQ(api().clCreateSampler(context_, CL_FALSE, CL_ADDRESS_NONE, CL_FILTER_NEAREST, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_OPERATION);
  EXPECT_EQ(api().clEnqueueNativeKernel(queue_, nullptr, nullptr, 0, 0, nullptr, nullptr, 0, nullptr, nullptr),
            CL_INVALID_OPERATION);
  EXPECT_EQ(api().clSVMAlloc(context_, 0, 64, 0), nullptr);
  cl_image_format format{CL_RGBA, CL_UNORM_INT8};
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = desc.image_height = 4;
  EXPECT_EQ(api().clCreateImage(context_, CL_MEM_READ_WRITE, &format, &desc, nullptr, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_OPERATION);
}

TEST_F(ObjectsTest, PlatformAndDeviceReportTheEmulatedGpu) {
  char name[64] = {};
  ASSERT_EQ(api().clGetPlatformInfo(executor_->platform(), CL_PLATFORM_NAME, sizeof name, name, nullptr), CL_SUCCESS);
  EXPECT_STREQ(name, "gsgpu");
  EXPECT_EQ(device_value<cl_device_type>(api(), device_, CL_DEVICE_TYPE), cl_device_type(CL_DEVICE_TYPE_GPU));
  EXPECT_EQ(device_string(api(), device_, CL_DEVICE_VERSION).rfind("OpenCL 3.0", 0), 0u);
  EXPECT_EQ(device_string(api(), device_, CL_DEVICE_OPENCL_C_VERSION).rfind("OpenCL C 1.2", 0), 0u);
  EXPECT_EQ(device_value<cl_uint>(api(), device_, CL_DEVICE_MAX_COMPUTE_UNITS), 2u);
  EXPECT_EQ(device_value<size_t>(api(), device_, CL_DEVICE_MAX_WORK_GROUP_SIZE), 1024u);
  EXPECT_EQ(device_value<cl_ulong>(api(), device_, CL_DEVICE_GLOBAL_MEM_SIZE), cl_ulong(64) << 20);
  EXPECT_EQ(device_value<cl_uint>(api(), device_, CL_DEVICE_ADDRESS_BITS), 64u);
  EXPECT_EQ(device_value<cl_bool>(api(), device_, CL_DEVICE_IMAGE_SUPPORT), cl_bool(CL_FALSE));
  EXPECT_GT(device_value<size_t>(api(), device_, CL_DEVICE_PROFILING_TIMER_RESOLUTION), 0u);
  size_t sizes[3] = {};
  ASSERT_EQ(api().clGetDeviceInfo(device_, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof sizes, sizes, nullptr), CL_SUCCESS);
  EXPECT_EQ(sizes[0], 1024u);
  EXPECT_NE(device_string(api(), device_, CL_DEVICE_EXTENSIONS).find("cl_khr_icd"), std::string::npos);
}

TEST_F(ObjectsTest, UnknownOrUndersizedQueriesAreInvalidValue) {
  cl_uint v = 0;
  EXPECT_EQ(api().clGetDeviceInfo(device_, 0x7fff, sizeof v, &v, nullptr), CL_INVALID_VALUE);
  char tiny[2];
  EXPECT_EQ(api().clGetDeviceInfo(device_, CL_DEVICE_NAME, sizeof tiny, tiny, nullptr), CL_INVALID_VALUE);
  EXPECT_EQ(api().clGetDeviceInfo(nullptr, CL_DEVICE_NAME, 0, nullptr, nullptr), CL_INVALID_DEVICE);
  // A handle that is not one of ours (here: a queue passed as a device) is refused, not followed.
  EXPECT_EQ(api().clGetDeviceInfo(reinterpret_cast<cl_device_id>(queue_), CL_DEVICE_NAME, 0, nullptr, nullptr),
            CL_INVALID_DEVICE);
}

TEST_F(ObjectsTest, BufferRoundTripWithCopyHostPtrAndOffsets) {
  std::vector<uint32_t> init(1000);
  std::iota(init.begin(), init.end(), 7);
  cl_mem m = buffer_of(init);
  EXPECT_EQ(read<uint32_t>(m, init.size()), init);
  const uint32_t patch[2] = {0xdeadbeef, 0xfeedface};
  ASSERT_EQ(api().clEnqueueWriteBuffer(queue_, m, CL_TRUE, 40, 8, patch, 0, nullptr, nullptr), CL_SUCCESS);
  auto back = read<uint32_t>(m, init.size());
  EXPECT_EQ(back[10], 0xdeadbeefu);
  EXPECT_EQ(back[11], 0xfeedfaceu);
  EXPECT_EQ(back[12], init[12]);
  uint32_t out[4];
  EXPECT_EQ(api().clEnqueueReadBuffer(queue_, m, CL_TRUE, 3996, 8, out, 0, nullptr, nullptr), CL_INVALID_VALUE);
  EXPECT_EQ(api().clEnqueueReadBuffer(queue_, m, CL_TRUE, SIZE_MAX - 2, 8, out, 0, nullptr, nullptr),
            CL_INVALID_VALUE);
}

TEST_F(ObjectsTest, BufferSizesAndFlagsAreChecked) {
  cl_int err = CL_SUCCESS;
  EXPECT_EQ(api().clCreateBuffer(context_, CL_MEM_READ_WRITE, 0, nullptr, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_BUFFER_SIZE);
  EXPECT_EQ(api().clCreateBuffer(context_, CL_MEM_READ_WRITE, size_t(1) << 40, nullptr, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_BUFFER_SIZE);
  EXPECT_EQ(api().clCreateBuffer(context_, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 16, nullptr, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_VALUE);
  EXPECT_EQ(api().clCreateBuffer(context_, CL_MEM_COPY_HOST_PTR, 16, nullptr, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_HOST_PTR);
  // The full profile's minimum max alloc (128 MiB) is capped by the 64 MiB of VRAM and by the
  // device's largest buffer object.
  EXPECT_EQ(device_value<cl_ulong>(api(), device_, CL_DEVICE_MAX_MEM_ALLOC_SIZE),
            std::min<cl_ulong>(cl_ulong(64) << 20, executor_->caps().max_bo_size));
  // VRAM runs out cleanly: allocations of 16 MiB until refused.
  std::vector<cl_mem> all;
  for (int i = 0; i < 8; ++i) {
    cl_mem m = api().clCreateBuffer(context_, CL_MEM_READ_WRITE, 16 << 20, nullptr, &err);
    if (!m) break;
    all.push_back(m);
  }
  EXPECT_LT(all.size(), 8u);
  EXPECT_EQ(err, CL_MEM_OBJECT_ALLOCATION_FAILURE);
  for (cl_mem m : all) api().clReleaseMemObject(m);
}

TEST_F(ObjectsTest, NewBuffersAreZeroedEvenWhenVramIsReused) {
  std::vector<uint8_t> ones(4096, 0xff);
  cl_mem a = api().clCreateBuffer(context_, CL_MEM_COPY_HOST_PTR, ones.size(), ones.data(), nullptr);
  ASSERT_NE(a, nullptr);
  api().clReleaseMemObject(a);
  cl_mem b = buffer(4096);
  EXPECT_EQ(read<uint8_t>(b, 4096), std::vector<uint8_t>(4096, 0));
}

TEST_F(ObjectsTest, SubBuffersViewTheirParent) {
  std::vector<uint8_t> init(1024);
  std::iota(init.begin(), init.end(), 0);
  cl_mem parent = buffer_of(init);
  cl_buffer_region region{256, 128};
  cl_int err = CL_SUCCESS;
  cl_mem sub = api().clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  mems_.push_back(sub);
  auto view = read<uint8_t>(sub, 128);
  EXPECT_EQ(view[0], 0u);  // 256 % 256
  EXPECT_EQ(view[5], 5u);
  const uint8_t x = 0xab;
  ASSERT_EQ(api().clEnqueueWriteBuffer(queue_, sub, CL_TRUE, 1, 1, &x, 0, nullptr, nullptr), CL_SUCCESS);
  EXPECT_EQ(read<uint8_t>(parent, 1024)[257], 0xab);
  size_t offset = 0;
  ASSERT_EQ(api().clGetMemObjectInfo(sub, CL_MEM_OFFSET, sizeof offset, &offset, nullptr), CL_SUCCESS);
  EXPECT_EQ(offset, 256u);
  cl_buffer_region misaligned{4, 16}, outside{1000, 128};
  EXPECT_EQ(api().clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &misaligned, &err), nullptr);
  EXPECT_EQ(err, CL_MISALIGNED_SUB_BUFFER_OFFSET);
  EXPECT_EQ(api().clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &outside, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_VALUE);
}

// The spec lets a sub-buffer narrow the host's access (to none, or to what the parent allows) and
// refuses only a widening; the runtime refused any host flag other than the parent's (CTS
// test_api get_buffer_info).
TEST_F(ObjectsTest, SubBuffersMayNarrowHostAccess) {
  cl_int err = CL_SUCCESS;
  const cl_buffer_region region{0, 128};
  struct Case {
    cl_mem_flags parent, sub;
    bool allowed;
  };
  const Case cases[] = {
      {CL_MEM_READ_WRITE, CL_MEM_HOST_NO_ACCESS, true},
      {CL_MEM_HOST_READ_ONLY, CL_MEM_HOST_NO_ACCESS, true},
      {CL_MEM_HOST_WRITE_ONLY, CL_MEM_HOST_NO_ACCESS, true},
      {CL_MEM_HOST_READ_ONLY, CL_MEM_HOST_READ_ONLY, true},
      {CL_MEM_READ_WRITE, CL_MEM_HOST_WRITE_ONLY, true},
      {CL_MEM_HOST_READ_ONLY, CL_MEM_HOST_WRITE_ONLY, false},
      {CL_MEM_HOST_WRITE_ONLY, CL_MEM_HOST_READ_ONLY, false},
      {CL_MEM_HOST_NO_ACCESS, CL_MEM_HOST_READ_ONLY, false},
  };
  for (const Case& c : cases) {
    cl_mem parent = api().clCreateBuffer(context_, c.parent, 1024, nullptr, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    mems_.push_back(parent);
    cl_mem sub = api().clCreateSubBuffer(parent, c.sub, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
    EXPECT_EQ(err, c.allowed ? CL_SUCCESS : CL_INVALID_VALUE) << std::hex << c.parent << " -> " << c.sub;
    if (!sub) continue;
    mems_.push_back(sub);
    cl_mem_flags flags = 0;
    ASSERT_EQ(api().clGetMemObjectInfo(sub, CL_MEM_FLAGS, sizeof flags, &flags, nullptr), CL_SUCCESS);
    EXPECT_TRUE(flags & c.sub);
  }
}

TEST_F(ObjectsTest, FillAndCopy) {
  cl_mem a = buffer(256), b = buffer(256);
  const uint32_t pattern = 0x11223344;
  ASSERT_EQ(api().clEnqueueFillBuffer(queue_, a, &pattern, 4, 16, 64, 0, nullptr, nullptr), CL_SUCCESS);
  EXPECT_EQ(api().clEnqueueFillBuffer(queue_, a, &pattern, 3, 0, 6, 0, nullptr, nullptr), CL_INVALID_VALUE);
  EXPECT_EQ(api().clEnqueueFillBuffer(queue_, a, &pattern, 4, 2, 8, 0, nullptr, nullptr), CL_INVALID_VALUE);
  auto words = read<uint32_t>(a, 64);
  EXPECT_EQ(words[3], 0u);
  for (int i = 4; i < 20; ++i) EXPECT_EQ(words[i], pattern) << i;
  EXPECT_EQ(words[20], 0u);
  ASSERT_EQ(api().clEnqueueCopyBuffer(queue_, a, b, 16, 0, 64, 0, nullptr, nullptr), CL_SUCCESS);
  EXPECT_EQ(read<uint32_t>(b, 16), std::vector<uint32_t>(16, pattern));
  EXPECT_EQ(api().clEnqueueCopyBuffer(queue_, a, a, 0, 8, 16, 0, nullptr, nullptr), CL_MEM_COPY_OVERLAP);
  EXPECT_EQ(api().clEnqueueCopyBuffer(queue_, a, b, 200, 0, 64, 0, nullptr, nullptr), CL_INVALID_VALUE);
}

TEST_F(ObjectsTest, RectTransfers) {
  // A 16 x 8 byte image in a buffer with a 32-byte row pitch; a 4 x 3 box at (2, 1).
  cl_mem m = buffer(32 * 8);
  std::vector<uint8_t> box(12);
  std::iota(box.begin(), box.end(), 1);
  const size_t origin[3] = {2, 1, 0}, host_origin[3] = {0, 0, 0}, region[3] = {4, 3, 1};
  ASSERT_EQ(api().clEnqueueWriteBufferRect(queue_, m, CL_TRUE, origin, host_origin, region, 32, 0, 4, 12,
                                           box.data(), 0, nullptr, nullptr),
            CL_SUCCESS);
  auto bytes = read<uint8_t>(m, 256);
  EXPECT_EQ(bytes[32 + 2], 1);
  EXPECT_EQ(bytes[32 + 5], 4);
  EXPECT_EQ(bytes[64 + 2], 5);
  EXPECT_EQ(bytes[96 + 5], 12);
  EXPECT_EQ(bytes[32 + 6], 0);
  std::vector<uint8_t> back(12);
  ASSERT_EQ(api().clEnqueueReadBufferRect(queue_, m, CL_TRUE, origin, host_origin, region, 32, 0, 4, 12,
                                          back.data(), 0, nullptr, nullptr),
            CL_SUCCESS);
  EXPECT_EQ(back, box);
  const size_t past[3] = {30, 7, 0};
  EXPECT_EQ(api().clEnqueueReadBufferRect(queue_, m, CL_TRUE, past, host_origin, region, 32, 0, 4, 12,
                                          back.data(), 0, nullptr, nullptr),
            CL_INVALID_VALUE);
  const size_t huge[3] = {1, SIZE_MAX / 2, 1};
  EXPECT_EQ(api().clEnqueueReadBufferRect(queue_, m, CL_TRUE, host_origin, host_origin, huge, 32, 0, 0, 0,
                                          back.data(), 0, nullptr, nullptr),
            CL_INVALID_VALUE);
}

TEST_F(ObjectsTest, CommandsWaitBehindUserEvents) {
  cl_int err = CL_SUCCESS;
  cl_event user = api().clCreateUserEvent(context_, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_mem m = buffer(16);
  const uint8_t seven = 7;
  cl_event fill = nullptr, marker = nullptr;
  // Non-blocking commands are deferred until the user event completes, in order.
  ASSERT_EQ(api().clEnqueueFillBuffer(queue_, m, &seven, 1, 0, 16, 1, &user, &fill), CL_SUCCESS);
  ASSERT_EQ(api().clEnqueueMarkerWithWaitList(queue_, 0, nullptr, &marker), CL_SUCCESS);
  EXPECT_EQ(event_status(fill), CL_QUEUED);
  EXPECT_EQ(event_status(marker), CL_QUEUED);
  // A blocking read behind them would wait forever on this thread: refused.
  uint8_t out[16] = {};
  EXPECT_EQ(api().clEnqueueReadBuffer(queue_, m, CL_TRUE, 0, 16, out, 0, nullptr, nullptr), CL_INVALID_OPERATION);
  EXPECT_EQ(api().clFinish(queue_), CL_INVALID_OPERATION);
  ASSERT_EQ(api().clSetUserEventStatus(user, CL_COMPLETE), CL_SUCCESS);
  EXPECT_EQ(api().clSetUserEventStatus(user, CL_COMPLETE), CL_INVALID_OPERATION);
  EXPECT_EQ(event_status(fill), CL_COMPLETE);
  EXPECT_EQ(event_status(marker), CL_COMPLETE);
  EXPECT_EQ(api().clWaitForEvents(1, &marker), CL_SUCCESS);
  EXPECT_EQ(read<uint8_t>(m, 16), std::vector<uint8_t>(16, 7));
  cl_ulong queued = 0, end = 0;
  ASSERT_EQ(api().clGetEventProfilingInfo(fill, CL_PROFILING_COMMAND_QUEUED, sizeof queued, &queued, nullptr),
            CL_SUCCESS);
  ASSERT_EQ(api().clGetEventProfilingInfo(fill, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr), CL_SUCCESS);
  EXPECT_LE(queued, end);
  for (cl_event e : {fill, marker, user}) api().clReleaseEvent(e);
  EXPECT_EQ(api().clFinish(queue_), CL_SUCCESS);
  EXPECT_EQ(api().clEnqueueReadBuffer(queue_, m, CL_TRUE, 0, 16, out, 1, nullptr, nullptr),
            CL_INVALID_EVENT_WAIT_LIST);
}

TEST_F(ObjectsTest, AReleasedQueueStillRunsItsDeferredCommands) {
  cl_event user = api().clCreateUserEvent(context_, nullptr);
  cl_command_queue q2 = api().clCreateCommandQueue(context_, device_, 0, nullptr);
  ASSERT_NE(q2, nullptr);
  cl_mem m = buffer(16);
  const uint8_t seven = 7;
  ASSERT_EQ(api().clEnqueueFillBuffer(q2, m, &seven, 1, 0, 16, 1, &user, nullptr), CL_SUCCESS);
  ASSERT_EQ(api().clEnqueueMarkerWithWaitList(q2, 0, nullptr, nullptr), CL_SUCCESS);
  ASSERT_EQ(api().clReleaseCommandQueue(q2), CL_SUCCESS);
  ASSERT_EQ(api().clSetUserEventStatus(user, CL_COMPLETE), CL_SUCCESS);
  EXPECT_EQ(read<uint8_t>(m, 16), std::vector<uint8_t>(16, 7));
  api().clReleaseEvent(user);
}

TEST_F(ObjectsTest, AFailedUserEventFailsWhatWaitsForIt) {
  cl_event user = api().clCreateUserEvent(context_, nullptr);
  cl_mem m = buffer(16);
  const uint8_t seven = 7;
  cl_event fill = nullptr;
  ASSERT_EQ(api().clEnqueueFillBuffer(queue_, m, &seven, 1, 0, 16, 1, &user, &fill), CL_SUCCESS);
  // The buffer may be released by the application: the deferred fill keeps it alive.
  api().clReleaseMemObject(m);
  mems_.clear();
  ASSERT_EQ(api().clSetUserEventStatus(user, -1234), CL_SUCCESS);
  EXPECT_EQ(event_status(fill), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  uint8_t out[16];
  cl_mem other = buffer(16);
  EXPECT_EQ(api().clEnqueueReadBuffer(queue_, other, CL_TRUE, 0, 16, out, 1, &user, nullptr),
            CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  api().clReleaseEvent(fill);
  api().clReleaseEvent(user);
}

}  // namespace
}  // namespace gsvirt::vcomp::testing
