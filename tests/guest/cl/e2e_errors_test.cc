// Errors an app can provoke: each reported by the call that caused it, with the OpenCL code.
#include <string>

#include "e2e_fixture.h"

namespace gsvirt::icd::test {
namespace {

constexpr const char* kTwoArgs = "__kernel void k(__global int* p, int v) { p[get_global_id(0)] = v; }";

TEST(IcdErrors, InvalidKernelName) {
  cl_program program = build_program(kTwoArgs);
  cl_int err = CL_SUCCESS;
  EXPECT_EQ(clCreateKernel(program, "no_such_kernel", &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_KERNEL_NAME);
  clReleaseProgram(program);
}

TEST(IcdErrors, BadArgIndexAndUnsetArguments) {
  cl_program program = build_program(kTwoArgs);
  cl_int err = CL_SUCCESS;
  cl_kernel kernel = clCreateKernel(program, "k", &err);
  int v = 1;
  EXPECT_EQ(clSetKernelArg(kernel, 2, sizeof v, &v), CL_INVALID_ARG_INDEX);
  EXPECT_EQ(clSetKernelArg(kernel, 1, sizeof v, &v), CL_SUCCESS);
  size_t global = 1;
  EXPECT_EQ(clEnqueueNDRangeKernel(cl_env().queue, kernel, 1, nullptr, &global, nullptr, 0, nullptr, nullptr),
            CL_INVALID_KERNEL_ARGS);
  EXPECT_EQ(clEnqueueNDRangeKernel(cl_env().queue, kernel, 0, nullptr, &global, nullptr, 0, nullptr, nullptr),
            CL_INVALID_WORK_DIMENSION);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
}

TEST(IcdErrors, WrongObjectTypesAreRefused) {
  cl_int err = CL_SUCCESS;
  // A queue where a context belongs, a context where a mem object belongs, and so on.
  auto* queue_as_context = reinterpret_cast<cl_context>(cl_env().queue);
  EXPECT_EQ(clCreateBuffer(queue_as_context, CL_MEM_READ_WRITE, 16, nullptr, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_CONTEXT);
  auto* context_as_mem = reinterpret_cast<cl_mem>(cl_env().context);
  int data = 0;
  EXPECT_EQ(clEnqueueWriteBuffer(cl_env().queue, context_as_mem, CL_TRUE, 0, 4, &data, 0, nullptr, nullptr),
            CL_INVALID_MEM_OBJECT);
  EXPECT_EQ(clReleaseKernel(reinterpret_cast<cl_kernel>(cl_env().queue)), CL_INVALID_KERNEL);
  EXPECT_EQ(clFinish(reinterpret_cast<cl_command_queue>(cl_env().context)), CL_INVALID_COMMAND_QUEUE);
  cl_event not_an_event = reinterpret_cast<cl_event>(cl_env().context);
  EXPECT_EQ(clWaitForEvents(1, &not_an_event), CL_INVALID_EVENT);
}

TEST(IcdErrors, OutOfRangeTransfersAndBadFlags) {
  cl_int err = CL_SUCCESS;
  cl_mem mem = clCreateBuffer(cl_env().context, CL_MEM_READ_WRITE, 64, nullptr, &err);
  int data[32] = {};
  EXPECT_EQ(clEnqueueReadBuffer(cl_env().queue, mem, CL_TRUE, 60, 8, data, 0, nullptr, nullptr), CL_INVALID_VALUE);
  EXPECT_EQ(clEnqueueWriteBuffer(cl_env().queue, mem, CL_TRUE, 0, 4, nullptr, 0, nullptr, nullptr), CL_INVALID_VALUE);
  EXPECT_EQ(clCreateBuffer(cl_env().context, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 64, nullptr, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_VALUE);
  EXPECT_EQ(clCreateBuffer(cl_env().context, CL_MEM_COPY_HOST_PTR, 64, nullptr, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_HOST_PTR);
  EXPECT_EQ(clCreateBuffer(cl_env().context, CL_MEM_READ_WRITE, 0, nullptr, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_BUFFER_SIZE);
  EXPECT_EQ(clEnqueueCopyBuffer(cl_env().queue, mem, mem, 0, 8, 16, 0, nullptr, nullptr), CL_MEM_COPY_OVERLAP);
  clReleaseMemObject(mem);
}

TEST(IcdErrors, HostFailureOfABatchedCommandIsReported) {
  cl_program program = build_program(kTwoArgs);
  cl_int err = CL_SUCCESS;
  cl_kernel kernel = clCreateKernel(program, "k", &err);
  cl_mem mem = clCreateBuffer(cl_env().context, CL_MEM_READ_WRITE, 1 << 20, nullptr, &err);
  int v = 1;
  clSetKernelArg(kernel, 0, sizeof mem, &mem);
  clSetKernelArg(kernel, 1, sizeof v, &v);
  // A work-group larger than any device allows: only the host can tell. The spec allows either
  // code (the group is too large, and so is dimension 0 alone); PoCL answers the first, gsgpu the
  // second.
  size_t global = 1 << 18, local = 1 << 18;
  cl_int enqueue = clEnqueueNDRangeKernel(cl_env().queue, kernel, 1, nullptr, &global, &local, 0, nullptr, nullptr);
  cl_int finish = clFinish(cl_env().queue);
  const auto too_large = [](cl_int e) { return e == CL_INVALID_WORK_GROUP_SIZE || e == CL_INVALID_WORK_ITEM_SIZE; };
  if (sync_mode()) {
    EXPECT_PRED1(too_large, enqueue);
    EXPECT_EQ(finish, CL_SUCCESS);
  } else {
    EXPECT_EQ(enqueue, CL_SUCCESS);  // batched: the host has not seen it yet
    EXPECT_PRED1(too_large, finish);
    EXPECT_EQ(clFinish(cl_env().queue), CL_SUCCESS);  // reported once
  }
  clReleaseMemObject(mem);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
}

// A kernel that never ends, on gsgpu (the default executor) with its default watchdog: the
// dispatch is stopped, the app gets an OpenCL error, and its context keeps working. (A host
// platform has no such watchdog: skipped there.)
TEST(IcdErrors, EndlessKernelIsStoppedAndTheContextStaysUsable) {
  char name[64] = {};
  clGetDeviceInfo(cl_env().device, CL_DEVICE_NAME, sizeof name - 1, name, nullptr);
  if (std::string(name) != "gsgpu") GTEST_SKIP() << "device " << name << " has no watchdog";
  const std::string source =
      "__kernel void forever(__global volatile int* p) { while (p[0] == 0) p[1]++; }\n" + std::string(kTwoArgs);
  cl_program program = build_program(source.c_str());
  cl_int err = CL_SUCCESS;
  cl_kernel endless = clCreateKernel(program, "forever", &err);
  cl_kernel k = clCreateKernel(program, "k", &err);
  cl_mem mem = clCreateBuffer(cl_env().context, CL_MEM_READ_WRITE, 256, nullptr, &err);
  int zero[64] = {};
  clEnqueueWriteBuffer(cl_env().queue, mem, CL_TRUE, 0, sizeof zero, zero, 0, nullptr, nullptr);
  clSetKernelArg(endless, 0, sizeof mem, &mem);
  size_t global = 64;
  cl_event event = nullptr;
  EXPECT_EQ(clEnqueueNDRangeKernel(cl_env().queue, endless, 1, nullptr, &global, nullptr, 0, nullptr, &event),
            CL_SUCCESS);
  EXPECT_EQ(clWaitForEvents(1, &event), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  cl_int status = CL_COMPLETE;
  clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr);
  EXPECT_LT(status, 0);  // the fault's error code
  clFinish(cl_env().queue);
  // Still usable: another kernel runs and its result reads back.
  int v = 42;
  clSetKernelArg(k, 0, sizeof mem, &mem);
  clSetKernelArg(k, 1, sizeof v, &v);
  EXPECT_EQ(clEnqueueNDRangeKernel(cl_env().queue, k, 1, nullptr, &global, nullptr, 0, nullptr, nullptr), CL_SUCCESS);
  int out[64] = {};
  EXPECT_EQ(clEnqueueReadBuffer(cl_env().queue, mem, CL_TRUE, 0, sizeof out, out, 0, nullptr, nullptr), CL_SUCCESS);
  EXPECT_EQ(out[63], 42);
  clReleaseEvent(event);
  clReleaseMemObject(mem);
  clReleaseKernel(k);
  clReleaseKernel(endless);
  clReleaseProgram(program);
}

TEST(IcdErrors, UnsupportedEntryPointsAnswerInvalidOperation) {
  cl_int err = CL_SUCCESS;
  EXPECT_EQ(clCreatePipe(cl_env().context, 0, 4, 4, nullptr, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_OPERATION);
  EXPECT_EQ(clSVMAlloc(cl_env().context, CL_MEM_READ_WRITE, 64, 0), nullptr);
}

}  // namespace
}  // namespace gsvirt::icd::test
