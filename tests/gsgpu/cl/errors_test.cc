// Argument errors as the OpenCL 1.2/3.0 spec names them. In native mode the application calls the
// gsgpu runtime directly, with no remoting ICD checking first, so its error codes are the ones
// piglit's api@ tests see; each case here is one the runtime once answered with another code.
#include <string>
#include <vector>

#include "tests/gsgpu/cl/executor_fixture.h"

namespace gsvirt::vcomp::testing {
namespace {

class ErrorsTest : public GsgpuExecutorTest {
 protected:
  void SetUp() override {
    GsgpuExecutorTest::SetUp();
    cl_int err = CL_SUCCESS;
    other_context_ = api().clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    other_buffer_ = api().clCreateBuffer(other_context_, CL_MEM_READ_WRITE, 256, nullptr, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    other_event_ = api().clCreateUserEvent(other_context_, &err);
    ASSERT_EQ(err, CL_SUCCESS);
  }
  void TearDown() override {
    if (other_event_) {
      api().clSetUserEventStatus(other_event_, CL_COMPLETE);
      api().clReleaseEvent(other_event_);
    }
    if (other_buffer_) api().clReleaseMemObject(other_buffer_);
    if (other_context_) api().clReleaseContext(other_context_);
    GsgpuExecutorTest::TearDown();
  }

  cl_mem buffer_with(cl_mem_flags flags) {
    cl_int err = CL_SUCCESS;
    cl_mem m = api().clCreateBuffer(context_, flags, 256, nullptr, &err);
    EXPECT_EQ(err, CL_SUCCESS);
    if (m) mems_.push_back(m);
    return m;
  }
  cl_int map(cl_mem m, cl_map_flags flags) {
    cl_int err = CL_SUCCESS;
    void* p = api().clEnqueueMapBuffer(queue_, m, CL_TRUE, flags, 0, 16, 0, nullptr, nullptr, &err);
    EXPECT_EQ(p == nullptr, err != CL_SUCCESS);
    if (p) {
      EXPECT_EQ(api().clEnqueueUnmapMemObject(queue_, m, p, 0, nullptr, nullptr), CL_SUCCESS);
    }
    return err;
  }

  cl_context other_context_ = nullptr;
  cl_mem other_buffer_ = nullptr;
  cl_event other_event_ = nullptr;
};

// Every enqueue: "CL_INVALID_CONTEXT if the context associated with command_queue and <buffer> are
// not the same"; CL_INVALID_MEM_OBJECT only for a handle that is no buffer.
TEST_F(ErrorsTest, ABufferOfAnotherContextIsInvalidContext) {
  cl_mem mine = buffer(256);
  cl_mem other = other_buffer_;
  uint8_t host[256] = {};
  const size_t origin[3] = {0, 0, 0}, region[3] = {16, 1, 1};
  EXPECT_EQ(api().clEnqueueReadBuffer(queue_, other, CL_TRUE, 0, 16, host, 0, nullptr, nullptr), CL_INVALID_CONTEXT);
  EXPECT_EQ(api().clEnqueueWriteBuffer(queue_, other, CL_TRUE, 0, 16, host, 0, nullptr, nullptr), CL_INVALID_CONTEXT);
  EXPECT_EQ(api().clEnqueueReadBufferRect(queue_, other, CL_TRUE, origin, origin, region, 0, 0, 0, 0, host, 0,
                                          nullptr, nullptr),
            CL_INVALID_CONTEXT);
  EXPECT_EQ(api().clEnqueueWriteBufferRect(queue_, other, CL_TRUE, origin, origin, region, 0, 0, 0, 0, host, 0,
                                           nullptr, nullptr),
            CL_INVALID_CONTEXT);
  EXPECT_EQ(api().clEnqueueCopyBuffer(queue_, other, mine, 0, 0, 16, 0, nullptr, nullptr), CL_INVALID_CONTEXT);
  EXPECT_EQ(api().clEnqueueCopyBuffer(queue_, mine, other, 0, 0, 16, 0, nullptr, nullptr), CL_INVALID_CONTEXT);
  EXPECT_EQ(api().clEnqueueCopyBufferRect(queue_, mine, other, origin, origin, region, 0, 0, 0, 0, 0, nullptr,
                                          nullptr),
            CL_INVALID_CONTEXT);
  const uint32_t pattern = 7;
  EXPECT_EQ(api().clEnqueueFillBuffer(queue_, other, &pattern, 4, 0, 16, 0, nullptr, nullptr), CL_INVALID_CONTEXT);
  cl_int err = CL_SUCCESS;
  EXPECT_EQ(api().clEnqueueMapBuffer(queue_, other, CL_TRUE, CL_MAP_READ, 0, 16, 0, nullptr, nullptr, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_CONTEXT);
  EXPECT_EQ(api().clEnqueueUnmapMemObject(queue_, other, host, 0, nullptr, nullptr), CL_INVALID_CONTEXT);
  const cl_mem both[2] = {mine, other};
  EXPECT_EQ(api().clEnqueueMigrateMemObjects(queue_, 2, both, 0, 0, nullptr, nullptr), CL_INVALID_CONTEXT);
  // A handle that is not a buffer at all stays CL_INVALID_MEM_OBJECT.
  cl_mem not_a_buffer = reinterpret_cast<cl_mem>(queue_);
  EXPECT_EQ(api().clEnqueueReadBuffer(queue_, not_a_buffer, CL_TRUE, 0, 16, host, 0, nullptr, nullptr),
            CL_INVALID_MEM_OBJECT);
  EXPECT_EQ(api().clEnqueueFillBuffer(queue_, nullptr, &pattern, 4, 0, 16, 0, nullptr, nullptr),
            CL_INVALID_MEM_OBJECT);
  const cl_mem with_null[2] = {mine, nullptr};
  EXPECT_EQ(api().clEnqueueMigrateMemObjects(queue_, 2, with_null, 0, 0, nullptr, nullptr), CL_INVALID_MEM_OBJECT);
}

// "CL_INVALID_CONTEXT if the context associated with command_queue and events in event_wait_list are
// not the same"; a handle that is no event is CL_INVALID_EVENT_WAIT_LIST.
TEST_F(ErrorsTest, AWaitListEventOfAnotherContextIsInvalidContext) {
  cl_mem mine = buffer(256);
  uint8_t host[16] = {};
  const uint32_t pattern = 7;
  cl_event other = other_event_;
  EXPECT_EQ(api().clEnqueueWriteBuffer(queue_, mine, CL_FALSE, 0, 16, host, 1, &other, nullptr), CL_INVALID_CONTEXT);
  EXPECT_EQ(api().clEnqueueFillBuffer(queue_, mine, &pattern, 4, 0, 16, 1, &other, nullptr), CL_INVALID_CONTEXT);
  EXPECT_EQ(api().clEnqueueMigrateMemObjects(queue_, 1, &mine, 0, 1, &other, nullptr), CL_INVALID_CONTEXT);
  EXPECT_EQ(api().clEnqueueMarkerWithWaitList(queue_, 1, &other, nullptr), CL_INVALID_CONTEXT);
  EXPECT_EQ(api().clEnqueueWaitForEvents(queue_, 1, &other), CL_INVALID_CONTEXT);
  cl_event not_an_event = reinterpret_cast<cl_event>(mine);
  EXPECT_EQ(api().clEnqueueFillBuffer(queue_, mine, &pattern, 4, 0, 16, 1, &not_an_event, nullptr),
            CL_INVALID_EVENT_WAIT_LIST);
  EXPECT_EQ(api().clEnqueueFillBuffer(queue_, mine, &pattern, 4, 0, 16, 1, nullptr, nullptr),
            CL_INVALID_EVENT_WAIT_LIST);
  EXPECT_EQ(api().clEnqueueWaitForEvents(queue_, 1, &not_an_event), CL_INVALID_EVENT);
  // Nothing was queued by the refused calls.
  EXPECT_EQ(api().clFinish(queue_), CL_SUCCESS);
}

// clEnqueueRead/Write(Rect): "CL_INVALID_OPERATION if called on buffer which has been created with"
// the CL_MEM_HOST_* flag that forbids the direction; device-side commands (fill, copy) are allowed.
TEST_F(ErrorsTest, HostAccessFlagsRefuseTheForbiddenTransfers) {
  cl_mem write_only = buffer_with(CL_MEM_HOST_WRITE_ONLY);
  cl_mem read_only = buffer_with(CL_MEM_HOST_READ_ONLY);
  cl_mem no_access = buffer_with(CL_MEM_HOST_NO_ACCESS);
  uint8_t host[256] = {};
  auto read = [&](cl_mem m) {
    return api().clEnqueueReadBuffer(queue_, m, CL_TRUE, 0, 16, host, 0, nullptr, nullptr);
  };
  auto write = [&](cl_mem m) {
    return api().clEnqueueWriteBuffer(queue_, m, CL_TRUE, 0, 16, host, 0, nullptr, nullptr);
  };
  const size_t origin[3] = {0, 0, 0}, region[3] = {16, 2, 1};
  auto read_rect = [&](cl_mem m) {
    return api().clEnqueueReadBufferRect(queue_, m, CL_TRUE, origin, origin, region, 0, 0, 0, 0, host, 0, nullptr,
                                         nullptr);
  };
  auto write_rect = [&](cl_mem m) {
    return api().clEnqueueWriteBufferRect(queue_, m, CL_TRUE, origin, origin, region, 0, 0, 0, 0, host, 0, nullptr,
                                          nullptr);
  };
  EXPECT_EQ(read(write_only), CL_INVALID_OPERATION);
  EXPECT_EQ(read_rect(write_only), CL_INVALID_OPERATION);
  EXPECT_EQ(write(write_only), CL_SUCCESS);
  EXPECT_EQ(write_rect(write_only), CL_SUCCESS);
  EXPECT_EQ(write(read_only), CL_INVALID_OPERATION);
  EXPECT_EQ(write_rect(read_only), CL_INVALID_OPERATION);
  EXPECT_EQ(read(read_only), CL_SUCCESS);
  EXPECT_EQ(read_rect(read_only), CL_SUCCESS);
  EXPECT_EQ(read(no_access), CL_INVALID_OPERATION);
  EXPECT_EQ(write(no_access), CL_INVALID_OPERATION);
  EXPECT_EQ(read_rect(no_access), CL_INVALID_OPERATION);
  EXPECT_EQ(write_rect(no_access), CL_INVALID_OPERATION);
  const uint32_t pattern = 3;
  EXPECT_EQ(api().clEnqueueFillBuffer(queue_, no_access, &pattern, 4, 0, 16, 0, nullptr, nullptr), CL_SUCCESS);
  EXPECT_EQ(api().clEnqueueCopyBuffer(queue_, no_access, write_only, 0, 0, 16, 0, nullptr, nullptr), CL_SUCCESS);
  EXPECT_EQ(api().clFinish(queue_), CL_SUCCESS);
}

// Rect transfers: "CL_INVALID_VALUE if <slice_pitch> is not 0 and is less than region[1] *
// <row_pitch> or not a multiple of <row_pitch>", for the buffer's and the host's pitches.
TEST_F(ErrorsTest, ARectSlicePitchIsAMultipleOfTheRowPitch) {
  cl_mem m = buffer(1024);
  cl_mem d = buffer(1024);
  uint8_t host[1024] = {};
  const size_t origin[3] = {0, 0, 0}, region[3] = {16, 2, 2};
  EXPECT_EQ(api().clEnqueueReadBufferRect(queue_, m, CL_TRUE, origin, origin, region, 16, 40, 0, 0, host, 0, nullptr,
                                          nullptr),
            CL_INVALID_VALUE);
  EXPECT_EQ(api().clEnqueueWriteBufferRect(queue_, m, CL_TRUE, origin, origin, region, 0, 0, 16, 33, host, 0,
                                           nullptr, nullptr),
            CL_INVALID_VALUE);
  EXPECT_EQ(api().clEnqueueCopyBufferRect(queue_, m, d, origin, origin, region, 16, 40, 16, 32, 0, nullptr, nullptr),
            CL_INVALID_VALUE);
  EXPECT_EQ(api().clEnqueueCopyBufferRect(queue_, m, d, origin, origin, region, 16, 48, 16, 32, 0, nullptr, nullptr),
            CL_SUCCESS);
  EXPECT_EQ(api().clEnqueueReadBufferRect(queue_, m, CL_TRUE, origin, origin, region, 16, 48, 32, 96, host, 0,
                                          nullptr, nullptr),
            CL_SUCCESS);
}

// clEnqueueMapBuffer: CL_MAP_READ needs host read access, CL_MAP_WRITE and
// CL_MAP_WRITE_INVALIDATE_REGION host write access (CL_INVALID_OPERATION); WRITE_INVALIDATE_REGION
// with READ or WRITE is CL_INVALID_VALUE.
TEST_F(ErrorsTest, MapFlagsFollowHostAccessAndExcludeEachOther) {
  cl_mem write_only = buffer_with(CL_MEM_HOST_WRITE_ONLY);
  cl_mem read_only = buffer_with(CL_MEM_HOST_READ_ONLY);
  cl_mem no_access = buffer_with(CL_MEM_HOST_NO_ACCESS);
  cl_mem plain = buffer(256);
  EXPECT_EQ(map(write_only, CL_MAP_READ), CL_INVALID_OPERATION);
  EXPECT_EQ(map(write_only, CL_MAP_WRITE), CL_SUCCESS);
  EXPECT_EQ(map(write_only, CL_MAP_WRITE_INVALIDATE_REGION), CL_SUCCESS);
  EXPECT_EQ(map(read_only, CL_MAP_WRITE), CL_INVALID_OPERATION);
  EXPECT_EQ(map(read_only, CL_MAP_WRITE_INVALIDATE_REGION), CL_INVALID_OPERATION);
  EXPECT_EQ(map(read_only, CL_MAP_READ), CL_SUCCESS);
  EXPECT_EQ(map(no_access, CL_MAP_READ), CL_INVALID_OPERATION);
  EXPECT_EQ(map(no_access, CL_MAP_WRITE), CL_INVALID_OPERATION);
  EXPECT_EQ(map(no_access, CL_MAP_WRITE_INVALIDATE_REGION), CL_INVALID_OPERATION);
  EXPECT_EQ(map(plain, CL_MAP_READ | CL_MAP_WRITE), CL_SUCCESS);
  EXPECT_EQ(map(plain, CL_MAP_WRITE_INVALIDATE_REGION | CL_MAP_READ), CL_INVALID_VALUE);
  EXPECT_EQ(map(plain, CL_MAP_WRITE_INVALIDATE_REGION | CL_MAP_WRITE), CL_INVALID_VALUE);
}

// clGetSupportedImageFormats: "CL_INVALID_VALUE if flags or image_type are not valid, or if
// num_entries is 0 and image_formats is not NULL"; otherwise no formats (no image support).
TEST_F(ErrorsTest, ImageFormatQueriesCheckTheirArguments) {
  cl_image_format formats[4];
  cl_uint count = 99;
  EXPECT_EQ(api().clGetSupportedImageFormats(context_, CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, 4, formats, &count),
            CL_SUCCESS);
  EXPECT_EQ(count, 0u);
  EXPECT_EQ(api().clGetSupportedImageFormats(context_, CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, 0, formats, &count),
            CL_INVALID_VALUE);
  EXPECT_EQ(api().clGetSupportedImageFormats(context_, CL_MEM_READ_ONLY, CL_MEM_OBJECT_BUFFER, 4, formats, &count),
            CL_INVALID_VALUE);
  EXPECT_EQ(api().clGetSupportedImageFormats(context_, cl_mem_flags(1) << 40, CL_MEM_OBJECT_IMAGE2D, 4, formats,
                                             &count),
            CL_INVALID_VALUE);
  EXPECT_EQ(api().clGetSupportedImageFormats(nullptr, CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, 4, formats, &count),
            CL_INVALID_CONTEXT);
}

// clBuildProgram, clCompileProgram, clLinkProgram: "CL_INVALID_VALUE if device_list is NULL and
// num_devices is greater than zero, or if device_list is not NULL and num_devices is zero";
// CL_INVALID_DEVICE only for a listed handle that is not a device of the program.
TEST_F(ErrorsTest, ADeviceCountThatDisagreesWithTheListIsInvalidValue) {
  const char* text = "__kernel void k(__global int* p) { p[0] = 1; }";
  cl_int err = CL_SUCCESS;
  cl_program p = api().clCreateProgramWithSource(context_, 1, &text, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  programs_.push_back(p);
  EXPECT_EQ(api().clBuildProgram(p, 0, &device_, "", nullptr, nullptr), CL_INVALID_VALUE);
  EXPECT_EQ(api().clBuildProgram(p, 1, nullptr, "", nullptr, nullptr), CL_INVALID_VALUE);
  EXPECT_EQ(api().clCompileProgram(p, 0, &device_, "", 0, nullptr, nullptr, nullptr, nullptr), CL_INVALID_VALUE);
  EXPECT_EQ(api().clCompileProgram(p, 1, nullptr, "", 0, nullptr, nullptr, nullptr, nullptr), CL_INVALID_VALUE);
  EXPECT_EQ(api().clLinkProgram(context_, 0, &device_, "", 1, &p, nullptr, nullptr, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_VALUE);
  EXPECT_EQ(api().clLinkProgram(context_, 1, nullptr, "", 1, &p, nullptr, nullptr, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_VALUE);
  cl_device_id not_a_device = reinterpret_cast<cl_device_id>(context_);
  EXPECT_EQ(api().clBuildProgram(p, 1, &not_a_device, "", nullptr, nullptr), CL_INVALID_DEVICE);
  EXPECT_EQ(api().clCompileProgram(p, 1, &not_a_device, "", 0, nullptr, nullptr, nullptr, nullptr),
            CL_INVALID_DEVICE);
  EXPECT_EQ(api().clLinkProgram(context_, 1, &not_a_device, "", 1, &p, nullptr, nullptr, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_DEVICE);
  // Embedded headers: the count and the two lists must agree.
  cl_program header = p;
  const char* name = "h.h";
  EXPECT_EQ(api().clCompileProgram(p, 1, &device_, "", 0, &header, nullptr, nullptr, nullptr), CL_INVALID_VALUE);
  EXPECT_EQ(api().clCompileProgram(p, 1, &device_, "", 0, nullptr, &name, nullptr, nullptr), CL_INVALID_VALUE);
  EXPECT_EQ(api().clCompileProgram(p, 1, &device_, "", 1, &header, nullptr, nullptr, nullptr), CL_INVALID_VALUE);
  EXPECT_EQ(api().clCompileProgram(p, 1, &device_, "", 1, nullptr, &name, nullptr, nullptr), CL_INVALID_VALUE);
}

// clBuildProgram: "CL_INVALID_OPERATION if there are kernel objects attached to program" means
// kernels the application holds. A kernel it released while a command still uses it is not
// attached: the program rebuilds, and the queued command still runs the kernel's own code.
TEST_F(ErrorsTest, AReleasedKernelStillQueuedDoesNotBlockARebuild) {
  REQUIRE_COMPILER();
  cl_program p = build("__kernel void put(__global uint* out) { out[get_global_id(0)] = 40 + get_global_id(0); }");
  ASSERT_NE(p, nullptr);
  cl_int err = CL_SUCCESS;
  cl_kernel k = api().clCreateKernel(p, "put", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_mem out = buffer(4 * sizeof(cl_uint));
  ASSERT_EQ(api().clSetKernelArg(k, 0, sizeof out, &out), CL_SUCCESS);
  // While the application holds the kernel, the program refuses to rebuild.
  EXPECT_EQ(api().clBuildProgram(p, 1, &device_, "", nullptr, nullptr), CL_INVALID_OPERATION);
  ASSERT_EQ(api().clRetainKernel(k), CL_SUCCESS);
  ASSERT_EQ(api().clReleaseKernel(k), CL_SUCCESS);
  EXPECT_EQ(api().clBuildProgram(p, 1, &device_, "", nullptr, nullptr), CL_INVALID_OPERATION);
  // Queue the kernel behind a user event, so the command holds it, then let it go.
  cl_event gate = api().clCreateUserEvent(context_, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  const size_t global = 4;
  ASSERT_EQ(api().clEnqueueNDRangeKernel(queue_, k, 1, nullptr, &global, nullptr, 1, &gate, nullptr), CL_SUCCESS);
  ASSERT_EQ(api().clReleaseKernel(k), CL_SUCCESS);
  EXPECT_EQ(api().clBuildProgram(p, 1, &device_, "", nullptr, nullptr), CL_SUCCESS) << build_log(p);
  ASSERT_EQ(api().clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
  ASSERT_EQ(api().clFinish(queue_), CL_SUCCESS);
  EXPECT_EQ(read<cl_uint>(out, 4), (std::vector<cl_uint>{40, 41, 42, 43}));
  EXPECT_EQ(api().clReleaseEvent(gate), CL_SUCCESS);
  // A kernel of the rebuilt program attaches again.
  kernel(p, "put");
  EXPECT_EQ(api().clBuildProgram(p, 1, &device_, "", nullptr, nullptr), CL_INVALID_OPERATION);
}

// A local size of 0 is CL_INVALID_WORK_GROUP_SIZE (no group of 0 items divides the range), as the
// remoting ICD answers in remote mode; CL_INVALID_WORK_ITEM_SIZE stays for sizes above the device's.
TEST_F(ErrorsTest, AZeroLocalSizeIsInvalidWorkGroupSize) {
  REQUIRE_COMPILER();
  cl_program p = build("__kernel void put(__global uint* out) { out[get_global_id(0)] = 1; }");
  ASSERT_NE(p, nullptr);
  cl_kernel k = kernel(p, "put");
  cl_mem out = buffer(64 * sizeof(cl_uint));
  arg(k, 0, out);
  const size_t global[2] = {8, 8}, zero_local[2] = {0, 8}, too_big[2] = {2048, 1};
  EXPECT_EQ(run(k, 2, global, zero_local), CL_INVALID_WORK_GROUP_SIZE);
  EXPECT_EQ(run(k, 2, too_big, too_big), CL_INVALID_WORK_ITEM_SIZE);
  EXPECT_EQ(api().clFinish(queue_), CL_SUCCESS);
}

}  // namespace
}  // namespace gsvirt::vcomp::testing
