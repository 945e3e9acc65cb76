// Events: status, profiling, callbacks, user events, markers and barriers.
#include <vector>

#include "e2e_fixture.h"

namespace gsvirt::icd::test {
namespace {

cl_mem make_buffer(size_t size) {
  cl_int err = CL_SUCCESS;
  cl_mem mem = clCreateBuffer(cl_env().context, CL_MEM_READ_WRITE, size, nullptr, &err);
  EXPECT_EQ(err, CL_SUCCESS);
  return mem;
}

void CL_CALLBACK count_callback(cl_event, cl_int status, void* user_data) {
  if (status == CL_COMPLETE) *static_cast<int*>(user_data) += 1;
}

TEST(IcdEvents, KernelEventCompletesWithProfilingTimes) {
  cl_int err = CL_SUCCESS;
  cl_program program = build_program("__kernel void inc(__global int* p) { p[get_global_id(0)] += 1; }");
  cl_kernel kernel = clCreateKernel(program, "inc", &err);
  cl_mem mem = make_buffer(1024 * sizeof(int));
  int zero = 0;
  ASSERT_EQ(clEnqueueFillBuffer(cl_env().queue, mem, &zero, sizeof zero, 0, 1024 * sizeof(int), 0, nullptr, nullptr), CL_SUCCESS);
  ASSERT_EQ(clSetKernelArg(kernel, 0, sizeof mem, &mem), CL_SUCCESS);
  size_t global = 1024;
  cl_event event = nullptr;
  ASSERT_EQ(clEnqueueNDRangeKernel(cl_env().queue, kernel, 1, nullptr, &global, nullptr, 0, nullptr, &event), CL_SUCCESS);
  ASSERT_NE(event, nullptr);
  int completed = 0;
  ASSERT_EQ(clSetEventCallback(event, CL_COMPLETE, count_callback, &completed), CL_SUCCESS);
  ASSERT_EQ(clWaitForEvents(1, &event), CL_SUCCESS);
  EXPECT_EQ(completed, 1);
  cl_int status = CL_QUEUED;
  ASSERT_EQ(clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr), CL_SUCCESS);
  EXPECT_EQ(status, CL_COMPLETE);
  cl_command_type type = 0;
  ASSERT_EQ(clGetEventInfo(event, CL_EVENT_COMMAND_TYPE, sizeof type, &type, nullptr), CL_SUCCESS);
  EXPECT_EQ(type, cl_command_type(CL_COMMAND_NDRANGE_KERNEL));
  cl_command_queue queue = nullptr;
  ASSERT_EQ(clGetEventInfo(event, CL_EVENT_COMMAND_QUEUE, sizeof queue, &queue, nullptr), CL_SUCCESS);
  EXPECT_EQ(queue, cl_env().queue);
  cl_ulong start = 0, end = 0;
  ASSERT_EQ(clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr), CL_SUCCESS);
  ASSERT_EQ(clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr), CL_SUCCESS);
  EXPECT_GT(start, 0u);
  EXPECT_LE(start, end);
  // A callback registered after completion runs at once.
  ASSERT_EQ(clSetEventCallback(event, CL_COMPLETE, count_callback, &completed), CL_SUCCESS);
  EXPECT_EQ(completed, 2);
  clReleaseEvent(event);
  clReleaseMemObject(mem);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
}

TEST(IcdEvents, CallbackRunsAtFinishEvenAfterTheAppReleasedTheEvent) {
  cl_mem mem = make_buffer(64);
  int value = 3, completed = 0;
  cl_event event = nullptr;
  ASSERT_EQ(clEnqueueWriteBuffer(cl_env().queue, mem, CL_FALSE, 0, sizeof value, &value, 0, nullptr, &event), CL_SUCCESS);
  ASSERT_EQ(clSetEventCallback(event, CL_COMPLETE, count_callback, &completed), CL_SUCCESS);
  ASSERT_EQ(clReleaseEvent(event), CL_SUCCESS);
  ASSERT_EQ(clFinish(cl_env().queue), CL_SUCCESS);
  EXPECT_EQ(completed, 1);
  clReleaseMemObject(mem);
}

TEST(IcdEvents, UserEventGatesACommand) {
  cl_int err = CL_SUCCESS;
  cl_event gate = clCreateUserEvent(cl_env().context, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_int status = 0;
  ASSERT_EQ(clGetEventInfo(gate, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr), CL_SUCCESS);
  EXPECT_EQ(status, CL_SUBMITTED);
  cl_mem mem = make_buffer(sizeof(int));
  int value = 42;
  cl_event write = nullptr;
  ASSERT_EQ(clEnqueueWriteBuffer(cl_env().queue, mem, CL_FALSE, 0, sizeof value, &value, 1, &gate, &write), CL_SUCCESS);
  ASSERT_EQ(clFlush(cl_env().queue), CL_SUCCESS);
  int completed = 0;
  ASSERT_EQ(clSetEventCallback(gate, CL_COMPLETE, count_callback, &completed), CL_SUCCESS);
  ASSERT_EQ(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
  EXPECT_EQ(completed, 1);
  EXPECT_EQ(clSetUserEventStatus(gate, CL_COMPLETE), CL_INVALID_OPERATION);
  ASSERT_EQ(clWaitForEvents(1, &write), CL_SUCCESS);
  int got = 0;
  ASSERT_EQ(clEnqueueReadBuffer(cl_env().queue, mem, CL_TRUE, 0, sizeof got, &got, 0, nullptr, nullptr), CL_SUCCESS);
  EXPECT_EQ(got, 42);
  cl_command_type type = 0;
  ASSERT_EQ(clGetEventInfo(gate, CL_EVENT_COMMAND_TYPE, sizeof type, &type, nullptr), CL_SUCCESS);
  EXPECT_EQ(type, cl_command_type(CL_COMMAND_USER));
  clReleaseEvent(write);
  clReleaseEvent(gate);
  clReleaseMemObject(mem);
}

// The OpenCL 1.0 spellings are deprecated but still used by apps, so they are tested too.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
TEST(IcdEvents, MarkersAndBarriers) {
  cl_event marker = nullptr, barrier = nullptr, old_marker = nullptr;
  ASSERT_EQ(clEnqueueMarkerWithWaitList(cl_env().queue, 0, nullptr, &marker), CL_SUCCESS);
  ASSERT_EQ(clEnqueueBarrierWithWaitList(cl_env().queue, 1, &marker, &barrier), CL_SUCCESS);
  ASSERT_EQ(clEnqueueMarker(cl_env().queue, &old_marker), CL_SUCCESS);
  ASSERT_EQ(clEnqueueBarrier(cl_env().queue), CL_SUCCESS);
  ASSERT_EQ(clEnqueueWaitForEvents(cl_env().queue, 1, &barrier), CL_SUCCESS);
  cl_event all[3] = {marker, barrier, old_marker};
  ASSERT_EQ(clWaitForEvents(3, all), CL_SUCCESS);
  for (cl_event e : all) clReleaseEvent(e);
}
#pragma GCC diagnostic pop

TEST(IcdEvents, ReferenceCountsAreLocal) {
  cl_int err = CL_SUCCESS;
  cl_event event = clCreateUserEvent(cl_env().context, &err);
  ASSERT_EQ(clRetainEvent(event), CL_SUCCESS);
  cl_uint refs = 0;
  ASSERT_EQ(clGetEventInfo(event, CL_EVENT_REFERENCE_COUNT, sizeof refs, &refs, nullptr), CL_SUCCESS);
  EXPECT_EQ(refs, 2u);
  clSetUserEventStatus(event, CL_COMPLETE);
  clReleaseEvent(event);
  clReleaseEvent(event);
}

}  // namespace
}  // namespace gsvirt::icd::test
