// OpenCL 3.0 on the gsgpu runtime (issue 13 point 5): the version and feature queries report what
// the device really has, the entry points of absent features refuse as the spec says, and the 2.x /
// 3.0 entry points it does have (clCloneKernel, context destructor callbacks, property arrays,
// zero-sized NDRanges) work.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "tests/gsgpu/cl/executor_fixture.h"

namespace gsvirt::vcomp::testing {
namespace {

using OpenCL3Test = GsgpuExecutorTest;

std::string device_string(const cl_icd_dispatch& api, cl_device_id d, cl_device_info param) {
  size_t size = 0;
  EXPECT_EQ(api.clGetDeviceInfo(d, param, 0, nullptr, &size), CL_SUCCESS) << param;
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

// "name major.minor.patch" for each entry of a cl_name_version list query.
std::vector<std::string> name_versions(const cl_icd_dispatch& api, cl_device_id d, cl_device_info param) {
  size_t size = 0;
  EXPECT_EQ(api.clGetDeviceInfo(d, param, 0, nullptr, &size), CL_SUCCESS) << param;
  EXPECT_EQ(size % sizeof(cl_name_version), 0u);
  std::vector<cl_name_version> list(size / sizeof(cl_name_version));
  if (size) {
    EXPECT_EQ(api.clGetDeviceInfo(d, param, size, list.data(), nullptr), CL_SUCCESS);
  }
  std::vector<std::string> out;
  for (const auto& nv : list)
    out.push_back(std::string(nv.name) + " " + std::to_string(CL_VERSION_MAJOR(nv.version)) + "." +
                  std::to_string(CL_VERSION_MINOR(nv.version)) + "." + std::to_string(CL_VERSION_PATCH(nv.version)));
  return out;
}

TEST_F(OpenCL3Test, DeviceReportsOpenCL30WithOpenCLC12) {
  EXPECT_EQ(device_string(api(), device_, CL_DEVICE_VERSION), "OpenCL 3.0 gsgpu");
  EXPECT_EQ(device_string(api(), device_, CL_DEVICE_OPENCL_C_VERSION), "OpenCL C 1.2 gsgpu");
  EXPECT_EQ(device_value<cl_version>(api(), device_, CL_DEVICE_NUMERIC_VERSION), CL_MAKE_VERSION(3, 0, 0));
  EXPECT_EQ(name_versions(api(), device_, CL_DEVICE_OPENCL_C_ALL_VERSIONS),
            (std::vector<std::string>{"OpenCL C 1.0.0", "OpenCL C 1.1.0", "OpenCL C 1.2.0", "OpenCL C 3.0.0"}));
  EXPECT_EQ(name_versions(api(), device_, CL_DEVICE_OPENCL_C_FEATURES), 
            (std::vector<std::string>{"__opencl_c_int64 3.0.0", "__opencl_c_fp64 3.0.0"}));
  EXPECT_EQ(name_versions(api(), device_, CL_DEVICE_ILS_WITH_VERSION), (std::vector<std::string>{"SPIR-V 1.0.0"}));
  EXPECT_TRUE(name_versions(api(), device_, CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION).empty());
  EXPECT_EQ(device_string(api(), device_, CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED), "v0000-01-01-00");
  // Every extension of the string, each at 1.0.0, and nothing else.
  const auto extensions = name_versions(api(), device_, CL_DEVICE_EXTENSIONS_WITH_VERSION);
  std::string joined;
  for (const auto& e : extensions) joined += (joined.empty() ? "" : " ") + e.substr(0, e.find(' '));
  EXPECT_EQ(joined, device_string(api(), device_, CL_DEVICE_EXTENSIONS));
  for (const auto& e : extensions) EXPECT_EQ(e.substr(e.find(' ')), " 1.0.0");
}

TEST_F(OpenCL3Test, PlatformReportsOpenCL30AndNoHostTimer) {
  const cl_platform_id platform = executor_->platform();
  char version[64] = {};
  ASSERT_EQ(api().clGetPlatformInfo(platform, CL_PLATFORM_VERSION, sizeof version, version, nullptr), CL_SUCCESS);
  EXPECT_STREQ(version, "OpenCL 3.0 gsgpu");
  cl_version numeric = 0;
  ASSERT_EQ(api().clGetPlatformInfo(platform, CL_PLATFORM_NUMERIC_VERSION, sizeof numeric, &numeric, nullptr),
            CL_SUCCESS);
  EXPECT_EQ(numeric, CL_MAKE_VERSION(3, 0, 0));
  cl_name_version extensions[2] = {};
  size_t size = 0;
  ASSERT_EQ(api().clGetPlatformInfo(platform, CL_PLATFORM_EXTENSIONS_WITH_VERSION, sizeof extensions, extensions,
                                    &size),
            CL_SUCCESS);
  ASSERT_EQ(size, sizeof(cl_name_version));
  EXPECT_STREQ(extensions[0].name, "cl_khr_icd");
  cl_ulong resolution = 1;
  ASSERT_EQ(api().clGetPlatformInfo(platform, CL_PLATFORM_HOST_TIMER_RESOLUTION, sizeof resolution, &resolution,
                                    nullptr),
            CL_SUCCESS);
  EXPECT_EQ(resolution, 0u);
  cl_ulong device_time = 0, host_time = 0;
  EXPECT_EQ(api().clGetDeviceAndHostTimer(device_, &device_time, &host_time), CL_INVALID_OPERATION);
  EXPECT_EQ(api().clGetHostTimer(device_, &host_time), CL_INVALID_OPERATION);
}

TEST_F(OpenCL3Test, OptionalFeaturesAreReportedAbsent) {
  EXPECT_EQ(device_value<cl_device_svm_capabilities>(api(), device_, CL_DEVICE_SVM_CAPABILITIES), 0u);
  EXPECT_EQ(device_value<cl_device_device_enqueue_capabilities>(api(), device_, CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES), 0u);
  EXPECT_EQ(device_value<cl_command_queue_properties>(api(), device_, CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES), 0u);
  for (cl_device_info param : {CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE, CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE,
                               CL_DEVICE_MAX_ON_DEVICE_QUEUES, CL_DEVICE_MAX_ON_DEVICE_EVENTS, CL_DEVICE_MAX_PIPE_ARGS,
                               CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS, CL_DEVICE_PIPE_MAX_PACKET_SIZE,
                               CL_DEVICE_MAX_NUM_SUB_GROUPS, CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS})
    EXPECT_EQ(device_value<cl_uint>(api(), device_, param), 0u) << param;
  for (cl_device_info param : {CL_DEVICE_PIPE_SUPPORT, CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT,
                               CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT,
                               CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT, CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS})
    EXPECT_EQ(device_value<cl_bool>(api(), device_, param), cl_bool(CL_FALSE)) << param;
  EXPECT_EQ(device_value<size_t>(api(), device_, CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE), 0u);
  EXPECT_EQ(device_value<size_t>(api(), device_, CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE), 0u);
  EXPECT_EQ(device_value<cl_device_atomic_capabilities>(api(), device_, CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES),
            cl_device_atomic_capabilities(CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP));
  EXPECT_EQ(device_value<cl_device_atomic_capabilities>(api(), device_, CL_DEVICE_ATOMIC_FENCE_CAPABILITIES),
            cl_device_atomic_capabilities(CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_ORDER_ACQ_REL |
                                          CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP));
  EXPECT_EQ(device_value<cl_command_queue_properties>(api(), device_, CL_DEVICE_QUEUE_ON_HOST_PROPERTIES),
            cl_command_queue_properties(CL_QUEUE_PROFILING_ENABLE));
  EXPECT_EQ(device_value<size_t>(api(), device_, CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE),
            size_t(executor_->caps().warp_width));
}

TEST_F(OpenCL3Test, EntryPointsOfAbsentFeaturesRefuseAsTheSpecSays) {
  cl_int err = CL_SUCCESS;
  EXPECT_EQ(api().clSVMAlloc(context_, CL_MEM_READ_WRITE, 64, 0), nullptr);
  int word = 0;
  EXPECT_EQ(api().clEnqueueSVMMemFill(queue_, &word, &word, sizeof word, sizeof word, 0, nullptr, nullptr),
            CL_INVALID_OPERATION);
  EXPECT_EQ(api().clCreatePipe(context_, CL_MEM_READ_WRITE, 4, 4, nullptr, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_OPERATION);
  cl_mem not_a_pipe = buffer(16);
  cl_uint packet = 0;
  EXPECT_EQ(api().clGetPipeInfo(not_a_pipe, CL_PIPE_PACKET_SIZE, sizeof packet, &packet, nullptr),
            CL_INVALID_MEM_OBJECT);
  cl_bool uses_svm = CL_TRUE;
  ASSERT_EQ(api().clGetMemObjectInfo(not_a_pipe, CL_MEM_USES_SVM_POINTER, sizeof uses_svm, &uses_svm, nullptr),
            CL_SUCCESS);
  EXPECT_EQ(uses_svm, cl_bool(CL_FALSE));
  cl_queue_properties on_device[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
                                     0};
  EXPECT_EQ(api().clCreateCommandQueueWithProperties(context_, device_, on_device, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_QUEUE_PROPERTIES);
  cl_uint queue_size = 0;
  EXPECT_EQ(api().clGetCommandQueueInfo(queue_, CL_QUEUE_SIZE, sizeof queue_size, &queue_size, nullptr),
            CL_INVALID_COMMAND_QUEUE);
  cl_command_queue default_queue = queue_;
  ASSERT_EQ(api().clGetCommandQueueInfo(queue_, CL_QUEUE_DEVICE_DEFAULT, sizeof default_queue, &default_queue,
                                        nullptr),
            CL_SUCCESS);
  EXPECT_EQ(default_queue, nullptr);
  EXPECT_EQ(api().clSetDefaultDeviceCommandQueue(context_, device_, queue_), CL_INVALID_OPERATION);
  cl_image_format format{CL_RGBA, CL_UNORM_INT8};
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = desc.image_height = 4;
  EXPECT_EQ(api().clCreateImageWithProperties(context_, nullptr, CL_MEM_READ_WRITE, &format, &desc, nullptr, &err),
            nullptr);
  EXPECT_EQ(err, CL_INVALID_OPERATION);
}

TEST_F(OpenCL3Test, ProgramAndKernelQueriesOfAbsentFeatures) {
  REQUIRE_COMPILER();
  cl_program p = build("kernel void k(global int* out) { out[0] = 1; }");
  ASSERT_NE(p, nullptr);
  for (cl_program_info param : {CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT, CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT}) {
    cl_bool present = CL_TRUE;
    ASSERT_EQ(api().clGetProgramInfo(p, param, sizeof present, &present, nullptr), CL_SUCCESS);
    EXPECT_EQ(present, cl_bool(CL_FALSE));
  }
  EXPECT_EQ(api().clSetProgramReleaseCallback(p, [](cl_program, void*) {}, nullptr), CL_INVALID_OPERATION);
  cl_kernel k = kernel(p, "k");
  size_t sub_groups = 0;
  const size_t local = 1;
  EXPECT_EQ(api().clGetKernelSubGroupInfo(k, device_, CL_KERNEL_MAX_NUM_SUB_GROUPS, sizeof local, &local,
                                          sizeof sub_groups, &sub_groups, nullptr),
            CL_INVALID_OPERATION);
  EXPECT_EQ(api().clSetKernelArgSVMPointer(k, 0, nullptr), CL_INVALID_OPERATION);
}

TEST_F(OpenCL3Test, PropertyArraysAreReportedAsGiven) {
  cl_int err = CL_SUCCESS;
  const cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  cl_command_queue q = api().clCreateCommandQueueWithProperties(context_, device_, props, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_queue_properties got[4] = {};
  size_t size = 0;
  ASSERT_EQ(api().clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES_ARRAY, sizeof got, got, &size), CL_SUCCESS);
  ASSERT_EQ(size, sizeof props);
  EXPECT_EQ(std::memcmp(got, props, sizeof props), 0);
  api().clReleaseCommandQueue(q);
  // A queue made without a list has none.
  ASSERT_EQ(api().clGetCommandQueueInfo(queue_, CL_QUEUE_PROPERTIES_ARRAY, 0, nullptr, &size), CL_SUCCESS);
  EXPECT_EQ(size, 0u);

  const cl_mem_properties empty[] = {0};
  cl_mem with_list = api().clCreateBufferWithProperties(context_, empty, CL_MEM_READ_WRITE, 64, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  mems_.push_back(with_list);
  ASSERT_EQ(api().clGetMemObjectInfo(with_list, CL_MEM_PROPERTIES, 0, nullptr, &size), CL_SUCCESS);
  EXPECT_EQ(size, sizeof(cl_mem_properties));
  cl_mem without = api().clCreateBufferWithProperties(context_, nullptr, CL_MEM_READ_WRITE, 64, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  mems_.push_back(without);
  ASSERT_EQ(api().clGetMemObjectInfo(without, CL_MEM_PROPERTIES, 0, nullptr, &size), CL_SUCCESS);
  EXPECT_EQ(size, 0u);
  ASSERT_EQ(api().clGetMemObjectInfo(buffer(64), CL_MEM_PROPERTIES, 0, nullptr, &size), CL_SUCCESS);
  EXPECT_EQ(size, 0u);
}

TEST_F(OpenCL3Test, ContextDestructorCallbacksRunInReverseOrderAfterTheLastObject) {
  cl_int err = CL_SUCCESS;
  cl_context c = api().clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_mem m = api().clCreateBuffer(c, CL_MEM_READ_WRITE, 16, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  std::vector<int> order;
  struct Call {
    std::vector<int>* order;
    int id;
  } first{&order, 1}, second{&order, 2};
  auto record = [](cl_context, void* data) {
    auto* call = static_cast<Call*>(data);
    call->order->push_back(call->id);
  };
  ASSERT_EQ(api().clSetContextDestructorCallback(c, record, &first), CL_SUCCESS);
  ASSERT_EQ(api().clSetContextDestructorCallback(c, record, &second), CL_SUCCESS);
  EXPECT_EQ(api().clSetContextDestructorCallback(c, nullptr, nullptr), CL_INVALID_VALUE);
  EXPECT_EQ(api().clSetContextDestructorCallback(nullptr, record, &first), CL_INVALID_CONTEXT);
  ASSERT_EQ(api().clReleaseContext(c), CL_SUCCESS);
  EXPECT_TRUE(order.empty());  // the buffer still holds the context
  ASSERT_EQ(api().clReleaseMemObject(m), CL_SUCCESS);
  EXPECT_EQ(order, (std::vector<int>{2, 1}));
}

TEST_F(OpenCL3Test, CloneKernelCopiesTheArgumentsAndRuns) {
  REQUIRE_COMPILER();
  cl_program p = build("kernel void k(global int* out, int v) { out[get_global_id(0)] = v; }");
  ASSERT_NE(p, nullptr);
  cl_kernel k = kernel(p, "k");
  cl_mem first = buffer(4 * sizeof(int)), second = buffer(4 * sizeof(int));
  arg(k, 0, first);
  arg(k, 1, 7);
  cl_int err = CL_SUCCESS;
  cl_kernel clone = api().clCloneKernel(k, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  ASSERT_NE(clone, nullptr);
  kernels_.push_back(clone);
  // Changing the original afterwards does not change the clone.
  arg(k, 0, second);
  arg(k, 1, 9);
  const size_t global = 4;
  ASSERT_EQ(run(clone, 1, &global, nullptr), CL_SUCCESS);
  ASSERT_EQ(run(k, 1, &global, nullptr), CL_SUCCESS);
  EXPECT_EQ(read<int>(first, 4), (std::vector<int>{7, 7, 7, 7}));
  EXPECT_EQ(read<int>(second, 4), (std::vector<int>{9, 9, 9, 9}));
  char name[8] = {};
  ASSERT_EQ(api().clGetKernelInfo(clone, CL_KERNEL_FUNCTION_NAME, sizeof name, name, nullptr), CL_SUCCESS);
  EXPECT_STREQ(name, "k");
  EXPECT_EQ(api().clCloneKernel(nullptr, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_KERNEL);
}

TEST_F(OpenCL3Test, ZeroSizedNDRangeIsANoOpThatWaitsForItsWaitList) {
  REQUIRE_COMPILER();
  cl_program p = build("kernel void k(global int* out) { out[0] = 5; }");
  ASSERT_NE(p, nullptr);
  cl_kernel k = kernel(p, "k");
  cl_mem out = buffer_of(std::vector<int>{1});
  arg(k, 0, out);
  const size_t zero[3] = {4, 0, 1};
  cl_int err = CL_SUCCESS;
  cl_event gate = api().clCreateUserEvent(context_, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_event done = nullptr;
  ASSERT_EQ(api().clEnqueueNDRangeKernel(queue_, k, 3, nullptr, zero, nullptr, 1, &gate, &done), CL_SUCCESS);
  EXPECT_GT(event_status(done), CL_COMPLETE);  // waits for the user event
  ASSERT_EQ(api().clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
  ASSERT_EQ(api().clFinish(queue_), CL_SUCCESS);
  EXPECT_EQ(event_status(done), CL_COMPLETE);
  cl_command_type type = 0;
  ASSERT_EQ(api().clGetEventInfo(done, CL_EVENT_COMMAND_TYPE, sizeof type, &type, nullptr), CL_SUCCESS);
  EXPECT_EQ(type, cl_command_type(CL_COMMAND_NDRANGE_KERNEL));
  EXPECT_EQ(read<int>(out, 1), (std::vector<int>{1}));  // the kernel did not run
  api().clReleaseEvent(done);
  api().clReleaseEvent(gate);
  // A NULL global size is still an error.
  EXPECT_EQ(api().clEnqueueNDRangeKernel(queue_, k, 1, nullptr, nullptr, nullptr, 0, nullptr, nullptr),
            CL_INVALID_GLOBAL_WORK_SIZE);
}

TEST_F(OpenCL3Test, KernelsBuildWithOpenCLC30) {
  REQUIRE_COMPILER();
  // What the OpenCL-CTS adds to every build for a device listing OpenCL C 3.0.
  cl_program p = build(R"(
    kernel void k(global int* out, global float* f) {
      float whole;
      f[0] = fract(f[1], &whole);  // a private pointer: the named-address-space built-ins
      atomic_inc(out);
    #ifdef __opencl_c_generic_address_space
      out[1] = -1;
    #endif
    })",
                       "-cl-std=CL3.0");
  ASSERT_NE(p, nullptr);
  cl_kernel k = kernel(p, "k");
  cl_mem out = buffer_of(std::vector<int>{0, 0});
  cl_mem f = buffer_of(std::vector<float>{0.f, 2.25f});
  arg(k, 0, out);
  arg(k, 1, f);
  const size_t global = 8;
  ASSERT_EQ(run(k, 1, &global, nullptr), CL_SUCCESS);
  EXPECT_EQ(read<int>(out, 2), (std::vector<int>{8, 0}));
  EXPECT_EQ(read<float>(f, 1)[0], 0.25f);
}

}  // namespace
}  // namespace gsvirt::vcomp::testing

namespace gsvirt::vcomp::testing {
namespace {

// cl_khr_fp64 (issue 13 point 3): the device reports doubles with the full-profile FP config the
// extension requires, and a double kernel built for OpenCL C 1.2 and 3.0 runs.
TEST_F(OpenCL3Test, DoublesAreReportedAndRun) {
  const std::string extensions = device_string(api(), device_, CL_DEVICE_EXTENSIONS);
  EXPECT_NE((" " + extensions + " ").find(" cl_khr_fp64 "), std::string::npos) << extensions;
  EXPECT_EQ(device_value<cl_device_fp_config>(api(), device_, CL_DEVICE_DOUBLE_FP_CONFIG),
            cl_device_fp_config(CL_FP_FMA | CL_FP_ROUND_TO_NEAREST | CL_FP_ROUND_TO_ZERO | CL_FP_ROUND_TO_INF |
                                CL_FP_INF_NAN | CL_FP_DENORM));
  EXPECT_EQ(device_value<cl_uint>(api(), device_, CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE), 1u);
  EXPECT_EQ(device_value<cl_uint>(api(), device_, CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE), 1u);
  EXPECT_EQ(device_value<cl_uint>(api(), device_, CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF), 0u);
  EXPECT_EQ(device_value<cl_device_fp_config>(api(), device_, CL_DEVICE_HALF_FP_CONFIG), 0u);
  REQUIRE_COMPILER();
  for (const char* options : {"", "-cl-std=CL3.0"}) {
    SCOPED_TRACE(options);
    cl_program p = build(R"(
      #pragma OPENCL EXTENSION cl_khr_fp64 : enable
      kernel void k(global double* d) {
        size_t i = get_global_id(0);
        d[i] = sqrt(d[i]) + convert_double_rtp(1ul << 60 | 1);
      })", options);
    ASSERT_NE(p, nullptr);
    cl_kernel k = kernel(p, "k");
    cl_mem d = buffer_of(std::vector<double>{2.0, 9.0});
    arg(k, 0, d);
    const size_t global = 2;
    ASSERT_EQ(run(k, 1, &global, nullptr), CL_SUCCESS);
    const double above = 0x1p60 + 0x1p8;  // 2^60 + 1 rounded up: the next double (ulp 2^8)
    EXPECT_EQ(read<double>(d, 2), (std::vector<double>{std::sqrt(2.0) + above, 3.0 + above}));
  }
}

}  // namespace
}  // namespace gsvirt::vcomp::testing
