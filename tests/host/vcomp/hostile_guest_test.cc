// Issue 12: a hostile guest against the vcomp decoder on the fake executor (the real executors'
// halves of these tests are in host_executor_test.cc and gsgpu_executor_test.cc, named Issue12*).
// Each test failed on d1cfa71.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/host/vcomp/fake_executor.h"
#include "tests/host/vcomp/vcomp_harness.h"

namespace gsvirt::vcomp::testing {
namespace {

class Issue12HostileGuest : public ::testing::Test {
 protected:
  FakeExecutor executor;
  void TearDown() override { EXPECT_EQ(FakeExecutor::live_objects(), live_at_start_); }
  int live_at_start_ = FakeExecutor::live_objects();
};

// Point 11: a buffer created without host data reads as zeros, never as what the executor's
// allocator left there (the fake executor hands out memory full of a stale pattern).
TEST_F(Issue12HostileGuest, NewBufferWithoutHostDataReadsAsZeros) {
  Harness h(&executor, 1, 1 << 16);
  uint64_t device = 0;
  uint64_t context = h.make_context(&device);
  uint64_t queue = h.next_id();
  h.send([&](WireWriter& w) { proto::encode_clCreateCommandQueue(w, true, queue, context, device, 0); });
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  uint64_t buffer = h.next_id();
  h.send([&](WireWriter& w) { proto::encode_clCreateBuffer(w, true, buffer, context, CL_MEM_READ_WRITE, 4096, {}); });
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  proto::DataOut dst{proto::kDataInline, 4096};
  h.send([&](WireWriter& w) { proto::encode_clEnqueueReadBuffer(w, true, queue, buffer, 0, 4096, nullptr, 0, 0, dst); });
  proto::Reply_clEnqueueReadBuffer reply;
  WireReader r = h.payload();
  ASSERT_TRUE(proto::decode_reply_clEnqueueReadBuffer(r, &reply));
  ASSERT_EQ(reply.result, CL_SUCCESS);
  ASSERT_EQ(reply.dst_size, 4096u);
  EXPECT_TRUE(std::all_of(reply.dst, reply.dst + reply.dst_size, [](uint8_t b) { return b == 0; }));
}

// Point 11: a size the host cannot back with zeros is refused with the executor's own error.
TEST_F(Issue12HostileGuest, ImpossibleBufferSizeKeepsTheExecutorsError) {
  Harness h(&executor);
  uint64_t context = h.make_context();
  uint64_t buffer = h.next_id();
  h.send([&](WireWriter& w) { proto::encode_clCreateBuffer(w, true, buffer, context, 0, ~uint64_t(0), {}); });
  EXPECT_EQ(h.last_result(), CL_INVALID_BUFFER_SIZE);
  EXPECT_FALSE(h.context().fatal());
}

// Point 16: info parameters not on the host's allow-list are refused, whatever they return:
// a vendor parameter answering with a host pointer, and CL_QUEUE_DEVICE_DEFAULT (a handle the old
// deny-list did not know).
TEST_F(Issue12HostileGuest, InfoParametersOffTheAllowListAreRefused) {
  Harness h(&executor);
  uint64_t device = 0;
  uint64_t context = h.make_context(&device);
  uint64_t queue = h.next_id();
  h.send([&](WireWriter& w) { proto::encode_clCreateCommandQueue(w, true, queue, context, device, 0); });
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  proto::DataOut out{proto::kDataInline, 64};

  h.send([&](WireWriter& w) {
    proto::encode_clGetDeviceInfo(w, true, device, FakeExecutor::kVendorHandleParam, out);
  });
  proto::Reply_clGetDeviceInfo device_reply;
  WireReader r = h.payload();
  ASSERT_TRUE(proto::decode_reply_clGetDeviceInfo(r, &device_reply));
  EXPECT_EQ(device_reply.result, CL_INVALID_VALUE);
  EXPECT_EQ(device_reply.value_size, 0u);
  EXPECT_EQ(device_reply.size_ret, 0u);

  h.send([&](WireWriter& w) { proto::encode_clGetCommandQueueInfo(w, true, queue, CL_QUEUE_DEVICE_DEFAULT, out); });
  proto::Reply_clGetCommandQueueInfo queue_reply;
  WireReader q = h.payload();
  ASSERT_TRUE(proto::decode_reply_clGetCommandQueueInfo(q, &queue_reply));
  EXPECT_EQ(queue_reply.result, CL_INVALID_VALUE);
  EXPECT_EQ(queue_reply.value_size, 0u);

  // A parameter of another object kind is not allowed either (CL_DEVICE_NAME's value asked of a
  // queue), while the queue's own plain parameters still are.
  h.send([&](WireWriter& w) { proto::encode_clGetCommandQueueInfo(w, true, queue, CL_DEVICE_NAME, out); });
  EXPECT_EQ(h.last_result(), CL_INVALID_VALUE);
  h.send([&](WireWriter& w) { proto::encode_clGetCommandQueueInfo(w, true, queue, CL_QUEUE_REFERENCE_COUNT, out); });
  EXPECT_EQ(h.last_result(), CL_SUCCESS);
  h.send([&](WireWriter& w) { proto::encode_clGetDeviceInfo(w, true, device, CL_DEVICE_NAME, out); });
  EXPECT_EQ(h.last_result(), CL_SUCCESS);
  EXPECT_FALSE(h.context().fatal());
}

// cl_nv_device_attribute_query's parameters (cl_uint and cl_bool values) are on the allow-list:
// NVIDIA's driver reports the extension through the host executor, and without them every query
// an application makes after seeing it failed with CL_INVALID_VALUE (on an H100, 2026-11-28). The
// parameter after the extension's last one is still refused.
TEST_F(Issue12HostileGuest, NvidiaDeviceAttributeQueriesAreForwarded) {
  Harness h(&executor);
  uint64_t device = 0;
  h.make_context(&device);
  proto::DataOut out{proto::kDataInline, 64};
  for (uint32_t param = 0x4000; param <= 0x400A; ++param) {
    h.send([&](WireWriter& w) { proto::encode_clGetDeviceInfo(w, true, device, param, out); });
    proto::Reply_clGetDeviceInfo reply;
    WireReader r = h.payload();
    ASSERT_TRUE(proto::decode_reply_clGetDeviceInfo(r, &reply));
    EXPECT_EQ(reply.result, CL_SUCCESS) << std::hex << param;
    EXPECT_EQ(reply.size_ret, sizeof(cl_uint)) << std::hex << param;
  }
  h.send([&](WireWriter& w) { proto::encode_clGetDeviceInfo(w, true, device, 0x400B, out); });
  EXPECT_EQ(h.last_result(), CL_INVALID_VALUE);
  EXPECT_FALSE(h.context().fatal());
}

// Point 2: the guest's argument kind is checked against the kernel's metadata; guest bytes never
// reach the executor where it reads a handle, and a host handle never becomes a by-value argument.
TEST_F(Issue12HostileGuest, KernelArgumentKindsComeFromTheKernelNotTheGuest) {
  Harness h(&executor);
  uint64_t device = 0;
  uint64_t context = h.make_context(&device);
  uint64_t program = h.next_id();
  h.send([&](WireWriter& w) {
    proto::encode_clCreateProgramWithSource(w, true, program, context, FakeExecutor::kKernelSource);
  });
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  h.send([&](WireWriter& w) { proto::encode_clBuildProgram(w, true, program, &device, 1, ""); });
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  uint64_t kernel = h.next_id();
  h.send([&](WireWriter& w) { proto::encode_clCreateKernel(w, true, kernel, program, "k"); });
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  uint64_t buffer = h.next_id();
  h.send([&](WireWriter& w) { proto::encode_clCreateBuffer(w, true, buffer, context, 0, 64, {}); });
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  const int bogus_before = FakeExecutor::bogus_handles();
  const int leaks_before = FakeExecutor::handles_as_values();

  auto set_arg = [&](uint32_t index, uint32_t kind, uint64_t size, uint64_t object, const void* bytes,
                     uint64_t byte_count) {
    h.send([&](WireWriter& w) {
      proto::encode_clSetKernelArg(w, true, kernel, index, kind, size, object,
                                   static_cast<const uint8_t*>(bytes), byte_count);
    });
    return h.last_result();
  };
  const uint64_t forged = 0x4141414141414141ull;  // a pointer of the guest's choosing
  // Value bytes where the kernel takes a buffer (0) or a sampler (3).
  EXPECT_EQ(set_arg(0, 0, 8, 0, &forged, 8), CL_INVALID_MEM_OBJECT);
  EXPECT_EQ(set_arg(3, 0, 8, 0, &forged, 8), CL_INVALID_SAMPLER);
  // A buffer id where the kernel takes a value (1), a sampler (3) or a __local size (2).
  EXPECT_EQ(set_arg(1, 1, 8, buffer, nullptr, 0), CL_INVALID_ARG_VALUE);
  EXPECT_EQ(set_arg(3, 1, 8, buffer, nullptr, 0), CL_INVALID_SAMPLER);
  EXPECT_EQ(set_arg(2, 1, 8, buffer, nullptr, 0), CL_INVALID_ARG_VALUE);
  // Wrong sizes and indices.
  EXPECT_EQ(set_arg(0, 1, 4, buffer, nullptr, 0), CL_INVALID_ARG_SIZE);
  EXPECT_EQ(set_arg(2, 3, 0, 0, nullptr, 0), CL_INVALID_ARG_SIZE);
  EXPECT_EQ(set_arg(4, 0, 8, 0, &forged, 8), CL_INVALID_ARG_INDEX);
  EXPECT_EQ(FakeExecutor::bogus_handles(), bogus_before);
  EXPECT_EQ(FakeExecutor::handles_as_values(), leaks_before);

  // What the kernel takes still works: a buffer, a NULL buffer, a value (eight zero bytes arrive as
  // a NULL memory object), a __local size.
  EXPECT_EQ(set_arg(0, 1, 8, buffer, nullptr, 0), CL_SUCCESS);
  EXPECT_EQ(set_arg(0, 1, 8, 0, nullptr, 0), CL_SUCCESS);
  EXPECT_EQ(set_arg(1, 0, 8, 0, &forged, 8), CL_SUCCESS);
  EXPECT_EQ(set_arg(1, 1, 8, 0, nullptr, 0), CL_SUCCESS);
  EXPECT_EQ(set_arg(2, 3, 256, 0, nullptr, 0), CL_SUCCESS);
  EXPECT_FALSE(h.context().fatal());
}

// Point 10: a user event the guest never sets does not keep the commands behind it (and their
// memory) alive after the guest lets go: destroying it unset, or ending the context, fails it.
TEST_F(Issue12HostileGuest, UnsetUserEventsFailWhenTheGuestLetsGo) {
  const int released_before = FakeExecutor::unset_user_events_released();
  {
    Harness h(&executor);
    uint64_t context = h.make_context();
    uint64_t destroyed = h.next_id(), kept = h.next_id(), set = h.next_id();
    for (uint64_t id : {destroyed, kept, set}) {
      h.send([&](WireWriter& w) { proto::encode_clCreateUserEvent(w, true, id, context); });
      ASSERT_EQ(h.last_result(), CL_SUCCESS);
    }
    h.send([&](WireWriter& w) { proto::encode_clSetUserEventStatus(w, true, set, CL_COMPLETE); });
    ASSERT_EQ(h.last_result(), CL_SUCCESS);
    h.send([&](WireWriter& w) { proto::encode_vcDestroyObject(w, true, destroyed); });
    ASSERT_EQ(h.last_result(), CL_SUCCESS);
    EXPECT_EQ(FakeExecutor::unset_user_events_released(), released_before);
  }  // the context ends with `kept` unset
  EXPECT_EQ(FakeExecutor::unset_user_events_released(), released_before);
}

// Points 5 and 10: unset user events are bounded per context (each queue and event records
// which ones it may wait for); setting one frees its slot.
TEST_F(Issue12HostileGuest, UnsetUserEventsHaveAQuota) {
  Harness h(&executor);
  uint64_t context = h.make_context();
  std::vector<uint64_t> events;
  for (size_t i = 0; i < kMaxUnsetUserEvents; ++i) {
    events.push_back(h.next_id());
    h.send([&](WireWriter& w) { proto::encode_clCreateUserEvent(w, true, events.back(), context); });
    ASSERT_EQ(h.last_result(), CL_SUCCESS);
  }
  uint64_t one_more = h.next_id();
  h.send([&](WireWriter& w) { proto::encode_clCreateUserEvent(w, true, one_more, context); });
  EXPECT_EQ(h.last_result(), CL_OUT_OF_RESOURCES);
  h.send([&](WireWriter& w) { proto::encode_clSetUserEventStatus(w, true, events[0], CL_COMPLETE); });
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  h.send([&](WireWriter& w) { proto::encode_clCreateUserEvent(w, true, one_more, context); });
  EXPECT_EQ(h.last_result(), CL_SUCCESS);
}

// Point 5: the host never makes a blocking call that waits for a user event the guest has not set
// (the server would hang until a command it cannot read any more); such a call is refused, and
// works once the guest has set the event.
TEST_F(Issue12HostileGuest, BlockingWaitsOnUnsetUserEventsAreRefused) {
  Harness h(&executor, 1, 1 << 16);
  uint64_t device = 0;
  uint64_t context = h.make_context(&device);
  uint64_t queue = h.next_id();
  h.send([&](WireWriter& w) { proto::encode_clCreateCommandQueue(w, true, queue, context, device, 0); });
  uint64_t buffer = h.next_id();
  h.send([&](WireWriter& w) { proto::encode_clCreateBuffer(w, true, buffer, context, 0, 64, {}); });
  uint64_t user = h.next_id();
  h.send([&](WireWriter& w) { proto::encode_clCreateUserEvent(w, true, user, context); });
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  const int blocked_before = FakeExecutor::blocking_waits_on_user();

  h.send([&](WireWriter& w) { proto::encode_clWaitForEvents(w, true, &user, 1); });
  EXPECT_EQ(h.last_result(), CL_INVALID_OPERATION);
  proto::DataOut dst{proto::kDataInline, 64};
  h.send([&](WireWriter& w) { proto::encode_clEnqueueReadBuffer(w, true, queue, buffer, 0, 64, &user, 1, 0, dst); });
  EXPECT_EQ(h.last_result(), CL_INVALID_OPERATION);
  EXPECT_EQ(FakeExecutor::blocking_waits_on_user(), blocked_before);

  h.send([&](WireWriter& w) { proto::encode_clSetUserEventStatus(w, true, user, CL_COMPLETE); });
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  h.send([&](WireWriter& w) { proto::encode_clWaitForEvents(w, true, &user, 1); });
  EXPECT_EQ(h.last_result(), CL_SUCCESS);
  h.send([&](WireWriter& w) { proto::encode_clEnqueueReadBuffer(w, true, queue, buffer, 0, 64, &user, 1, 0, dst); });
  EXPECT_EQ(h.last_result(), CL_SUCCESS);
  EXPECT_FALSE(h.context().fatal());
}

}  // namespace
}  // namespace gsvirt::vcomp::testing
