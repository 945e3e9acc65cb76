// OpenCL 3.0 through the gsvirt ICD (issue 13 points 5 and 6): the platform's version, the host
// device's 3.0 queries forwarded, optional features the protocol cannot carry reported absent with
// their entry points refusing as the spec says, and clCloneKernel / property lists / zero-sized
// NDRanges carried to the host. Runs against the gsgpu and the host (PoCL) executor.
#include <cstring>
#include <string>
#include <vector>

#include "e2e_fixture.h"

namespace gsvirt::icd::test {
namespace {

std::string device_string(cl_device_info param) {
  size_t size = 0;
  EXPECT_EQ(clGetDeviceInfo(cl_env().device, param, 0, nullptr, &size), CL_SUCCESS) << param;
  std::string s(size, '\0');
  EXPECT_EQ(clGetDeviceInfo(cl_env().device, param, size, s.data(), nullptr), CL_SUCCESS) << param;
  s.resize(std::strlen(s.c_str()));
  return s;
}

template <typename T>
T device_value(cl_device_info param) {
  T v{};
  size_t size = 0;
  EXPECT_EQ(clGetDeviceInfo(cl_env().device, param, sizeof v, &v, &size), CL_SUCCESS) << param;
  EXPECT_EQ(size, sizeof v) << param;
  return v;
}

std::vector<cl_name_version> name_versions(cl_device_info param) {
  size_t size = 0;
  EXPECT_EQ(clGetDeviceInfo(cl_env().device, param, 0, nullptr, &size), CL_SUCCESS) << param;
  std::vector<cl_name_version> list(size / sizeof(cl_name_version));
  if (!list.empty()) {
    EXPECT_EQ(clGetDeviceInfo(cl_env().device, param, size, list.data(), nullptr), CL_SUCCESS) << param;
  }
  return list;
}

bool on_gsgpu() { return device_string(CL_DEVICE_NAME) == "gsgpu"; }

TEST(IcdOpenCL3, PlatformIsOpenCL30) {
  char version[128] = {};
  ASSERT_EQ(clGetPlatformInfo(cl_env().platform, CL_PLATFORM_VERSION, sizeof version, version, nullptr), CL_SUCCESS);
  EXPECT_EQ(std::string(version).rfind("OpenCL 3.0 gsvirt ", 0), 0u) << version;
  cl_version numeric = 0;
  ASSERT_EQ(clGetPlatformInfo(cl_env().platform, CL_PLATFORM_NUMERIC_VERSION, sizeof numeric, &numeric, nullptr),
            CL_SUCCESS);
  EXPECT_EQ(numeric, CL_MAKE_VERSION(3, 0, 0));
  cl_ulong resolution = 1;
  ASSERT_EQ(clGetPlatformInfo(cl_env().platform, CL_PLATFORM_HOST_TIMER_RESOLUTION, sizeof resolution, &resolution,
                              nullptr),
            CL_SUCCESS);
  EXPECT_EQ(resolution, 0u);
  cl_ulong device_time = 0, host_time = 0;
  EXPECT_EQ(clGetDeviceAndHostTimer(cl_env().device, &device_time, &host_time), CL_INVALID_OPERATION);
  EXPECT_EQ(clGetHostTimer(cl_env().device, &host_time), CL_INVALID_OPERATION);
}

TEST(IcdOpenCL3, DeviceQueriesComeFromTheHostDevice) {
  // Both executors' devices (gsgpu, PoCL 3.x) are OpenCL 3.0 devices.
  EXPECT_EQ(device_string(CL_DEVICE_VERSION).rfind("OpenCL 3.0 ", 0), 0u) << device_string(CL_DEVICE_VERSION);
  EXPECT_EQ(device_value<cl_version>(CL_DEVICE_NUMERIC_VERSION), CL_MAKE_VERSION(3, 0, 0));
  bool has_c12 = false;
  for (const auto& v : name_versions(CL_DEVICE_OPENCL_C_ALL_VERSIONS))
    has_c12 |= std::strcmp(v.name, "OpenCL C") == 0 && v.version == CL_MAKE_VERSION(1, 2, 0);
  EXPECT_TRUE(has_c12);
  EXPECT_FALSE(name_versions(CL_DEVICE_EXTENSIONS_WITH_VERSION).empty());
  EXPECT_FALSE(device_string(CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED).empty());
  if (!on_gsgpu()) return;
  EXPECT_EQ(device_string(CL_DEVICE_VERSION), "OpenCL 3.0 gsgpu");
  EXPECT_EQ(device_string(CL_DEVICE_OPENCL_C_VERSION), "OpenCL C 1.2 gsgpu");
  const auto features = name_versions(CL_DEVICE_OPENCL_C_FEATURES);
  // Images (on by default; GSGPU_IMAGES=0 switches them off) add their three features.
  const bool images = device_value<cl_bool>(CL_DEVICE_IMAGE_SUPPORT) == CL_TRUE;
  ASSERT_EQ(features.size(), images ? 5u : 2u);
  EXPECT_STREQ(features[0].name, "__opencl_c_int64");
  EXPECT_STREQ(features[1].name, "__opencl_c_fp64");
  if (images) {
    EXPECT_STREQ(features[2].name, "__opencl_c_images");
    EXPECT_STREQ(features[3].name, "__opencl_c_3d_image_writes");
    EXPECT_STREQ(features[4].name, "__opencl_c_read_write_images");
  }
  EXPECT_EQ(device_string(CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED), "v0000-01-01-00");
  EXPECT_EQ(name_versions(CL_DEVICE_OPENCL_C_ALL_VERSIONS).size(), 4u);
  EXPECT_EQ(device_value<cl_device_atomic_capabilities>(CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES),
            cl_device_atomic_capabilities(CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP));
  EXPECT_EQ(device_value<cl_bool>(CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT), cl_bool(CL_FALSE));
  EXPECT_EQ(device_value<size_t>(CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE), 0u);
}

TEST(IcdOpenCL3, FeaturesTheProtocolDoesNotCarryAreAbsent) {
  // PoCL has SVM; the ICD refuses SVM entry points, so it reports none, whatever the host has.
  EXPECT_EQ(device_value<cl_device_svm_capabilities>(CL_DEVICE_SVM_CAPABILITIES), 0u);
  EXPECT_EQ(device_value<cl_device_device_enqueue_capabilities>(CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES), 0u);
  EXPECT_EQ(device_value<cl_command_queue_properties>(CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES), 0u);
  EXPECT_EQ(device_value<cl_bool>(CL_DEVICE_PIPE_SUPPORT), cl_bool(CL_FALSE));
  for (cl_device_info param : {CL_DEVICE_MAX_PIPE_ARGS, CL_DEVICE_MAX_ON_DEVICE_QUEUES, CL_DEVICE_MAX_NUM_SUB_GROUPS,
                               CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE})
    EXPECT_EQ(device_value<cl_uint>(param), 0u) << param;
  // PoCL runs native kernels; through the protocol none runs (a function pointer of the guest),
  // so the capability is absent and clEnqueueNativeKernel refused.
  EXPECT_EQ(device_value<cl_device_exec_capabilities>(CL_DEVICE_EXECUTION_CAPABILITIES),
            cl_device_exec_capabilities(CL_EXEC_KERNEL));
  EXPECT_EQ(clEnqueueNativeKernel(cl_env().queue, [](void*) {}, nullptr, 0, 0, nullptr, nullptr, 0, nullptr, nullptr),
            CL_INVALID_OPERATION);

  cl_int err = CL_SUCCESS;
  EXPECT_EQ(clSVMAlloc(cl_env().context, CL_MEM_READ_WRITE, 64, 0), nullptr);
  int word = 0;
  EXPECT_EQ(clEnqueueSVMMemFill(cl_env().queue, &word, &word, sizeof word, sizeof word, 0, nullptr, nullptr),
            CL_INVALID_OPERATION);
  EXPECT_EQ(clCreatePipe(cl_env().context, CL_MEM_READ_WRITE, 4, 4, nullptr, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_OPERATION);
  cl_mem buffer = clCreateBuffer(cl_env().context, CL_MEM_READ_WRITE, 16, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_uint packet = 0;
  EXPECT_EQ(clGetPipeInfo(buffer, CL_PIPE_PACKET_SIZE, sizeof packet, &packet, nullptr), CL_INVALID_MEM_OBJECT);
  clReleaseMemObject(buffer);
  cl_queue_properties on_device[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
                                     0};
  EXPECT_EQ(clCreateCommandQueueWithProperties(cl_env().context, cl_env().device, on_device, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_QUEUE_PROPERTIES);
  cl_command_queue default_queue = cl_env().queue;
  ASSERT_EQ(clGetCommandQueueInfo(cl_env().queue, CL_QUEUE_DEVICE_DEFAULT, sizeof default_queue, &default_queue,
                                  nullptr),
            CL_SUCCESS);
  EXPECT_EQ(default_queue, nullptr);

  cl_program program = build_program("kernel void k(global int* out) { out[0] = 1; }");
  ASSERT_NE(program, nullptr);
  // Deprecated in 3.0, and refused (CL_INVALID_OPERATION) by a platform that does not support it.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  EXPECT_EQ(clSetProgramReleaseCallback(program, [](cl_program, void*) {}, nullptr), CL_INVALID_OPERATION);
#pragma GCC diagnostic pop
  cl_kernel kernel = clCreateKernel(program, "k", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  size_t sub_groups = 0;
  const size_t local = 1;
  EXPECT_EQ(clGetKernelSubGroupInfo(kernel, cl_env().device, CL_KERNEL_MAX_NUM_SUB_GROUPS, sizeof local, &local,
                                    sizeof sub_groups, &sub_groups, nullptr),
            CL_INVALID_OPERATION);
  EXPECT_EQ(clSetKernelArgSVMPointer(kernel, 0, nullptr), CL_INVALID_OPERATION);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
}

TEST(IcdOpenCL3, CloneKernelCopiesTheArgumentsOnTheHost) {
  cl_program program = build_program("kernel void k(global int* out, int v) { out[get_global_id(0)] = v; }");
  ASSERT_NE(program, nullptr);
  cl_int err = CL_SUCCESS;
  cl_kernel kernel = clCreateKernel(program, "k", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_mem first = clCreateBuffer(cl_env().context, CL_MEM_READ_WRITE, 4 * sizeof(int), nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_mem second = clCreateBuffer(cl_env().context, CL_MEM_READ_WRITE, 4 * sizeof(int), nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  int seven = 7, nine = 9;
  ASSERT_EQ(clSetKernelArg(kernel, 0, sizeof first, &first), CL_SUCCESS);
  ASSERT_EQ(clSetKernelArg(kernel, 1, sizeof seven, &seven), CL_SUCCESS);
  cl_kernel clone = clCloneKernel(kernel, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  ASSERT_NE(clone, nullptr);
  ASSERT_EQ(clSetKernelArg(kernel, 0, sizeof second, &second), CL_SUCCESS);
  ASSERT_EQ(clSetKernelArg(kernel, 1, sizeof nine, &nine), CL_SUCCESS);
  const size_t global = 4;
  ASSERT_EQ(clEnqueueNDRangeKernel(cl_env().queue, clone, 1, nullptr, &global, nullptr, 0, nullptr, nullptr),
            CL_SUCCESS);
  ASSERT_EQ(clEnqueueNDRangeKernel(cl_env().queue, kernel, 1, nullptr, &global, nullptr, 0, nullptr, nullptr),
            CL_SUCCESS);
  std::vector<int> a(4), b(4);
  ASSERT_EQ(clEnqueueReadBuffer(cl_env().queue, first, CL_TRUE, 0, 16, a.data(), 0, nullptr, nullptr), CL_SUCCESS);
  ASSERT_EQ(clEnqueueReadBuffer(cl_env().queue, second, CL_TRUE, 0, 16, b.data(), 0, nullptr, nullptr), CL_SUCCESS);
  EXPECT_EQ(a, (std::vector<int>{7, 7, 7, 7}));
  EXPECT_EQ(b, (std::vector<int>{9, 9, 9, 9}));
  cl_program of_clone = nullptr;
  ASSERT_EQ(clGetKernelInfo(clone, CL_KERNEL_PROGRAM, sizeof of_clone, &of_clone, nullptr), CL_SUCCESS);
  EXPECT_EQ(of_clone, program);
  EXPECT_EQ(clCloneKernel(nullptr, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_KERNEL);
  clReleaseKernel(clone);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
  clReleaseMemObject(first);
  clReleaseMemObject(second);
}

TEST(IcdOpenCL3, BufferPropertiesAreReportedAsGiven) {
  cl_int err = CL_SUCCESS;
  const cl_mem_properties empty[] = {0};
  cl_mem with_list = clCreateBufferWithProperties(cl_env().context, empty, CL_MEM_READ_WRITE, 64, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  size_t size = 0;
  cl_mem_properties got[2] = {1, 1};
  ASSERT_EQ(clGetMemObjectInfo(with_list, CL_MEM_PROPERTIES, sizeof got, got, &size), CL_SUCCESS);
  EXPECT_EQ(size, sizeof(cl_mem_properties));
  EXPECT_EQ(got[0], 0u);
  cl_mem without = clCreateBufferWithProperties(cl_env().context, nullptr, CL_MEM_READ_WRITE, 64, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  ASSERT_EQ(clGetMemObjectInfo(without, CL_MEM_PROPERTIES, 0, nullptr, &size), CL_SUCCESS);
  EXPECT_EQ(size, 0u);
  clReleaseMemObject(with_list);
  clReleaseMemObject(without);
}

TEST(IcdOpenCL3, ZeroSizedNDRangeCompletesWithoutRunning) {
  cl_program program = build_program("kernel void k(global int* out) { out[0] = 5; }");
  ASSERT_NE(program, nullptr);
  cl_int err = CL_SUCCESS;
  cl_kernel kernel = clCreateKernel(program, "k", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  int one = 1;
  cl_mem out = clCreateBuffer(cl_env().context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof one, &one, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  ASSERT_EQ(clSetKernelArg(kernel, 0, sizeof out, &out), CL_SUCCESS);
  const size_t global[2] = {0, 4};
  cl_event done = nullptr;
  ASSERT_EQ(clEnqueueNDRangeKernel(cl_env().queue, kernel, 2, nullptr, global, nullptr, 0, nullptr, &done),
            CL_SUCCESS);
  ASSERT_EQ(clFinish(cl_env().queue), CL_SUCCESS);
  cl_int status = 1;
  ASSERT_EQ(clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr), CL_SUCCESS);
  EXPECT_EQ(status, CL_COMPLETE);
  int got = 0;
  ASSERT_EQ(clEnqueueReadBuffer(cl_env().queue, out, CL_TRUE, 0, sizeof got, &got, 0, nullptr, nullptr), CL_SUCCESS);
  EXPECT_EQ(got, 1);
  clReleaseEvent(done);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
  clReleaseMemObject(out);
}

// A 2D image over a buffer goes to the host's device, which refuses it without the feature
// (CL_DEVICE_IMAGE_PITCH_ALIGNMENT 0); the ICD used to drop the buffer and make a plain image.
TEST(IcdOpenCL3, Image2DFromABufferIsTheHostDevicesDecision) {
  if (device_value<cl_uint>(CL_DEVICE_IMAGE_PITCH_ALIGNMENT) != 0) GTEST_SKIP() << "the device has the feature";
  cl_int err = CL_SUCCESS;
  cl_mem buffer = clCreateBuffer(cl_env().context, CL_MEM_READ_WRITE, 64 * 64 * 4, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_image_format format{CL_RGBA, CL_UNORM_INT8};
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = desc.image_height = 64;
  desc.mem_object = buffer;
  EXPECT_EQ(clCreateImage(cl_env().context, CL_MEM_READ_ONLY, &format, &desc, nullptr, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_OPERATION);
  clReleaseMemObject(buffer);
}

// Batched NDRanges: the work-group size errors the CTS expects from the call itself (not deferred to
// the next clFinish) are found in the guest from what it asks the host once.
TEST(IcdOpenCL3, WorkGroupSizeErrorsAreReportedByTheEnqueue) {
  cl_program program = build_program(
      "kernel void loose(global int* out) { out[get_global_id(0)] = 1; }\n"
      "__attribute__((reqd_work_group_size(4, 1, 1))) kernel void fixed(global int* out) { out[0] = 2; }");
  ASSERT_NE(program, nullptr);
  cl_int err = CL_SUCCESS;
  cl_kernel loose = clCreateKernel(program, "loose", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_kernel fixed = clCreateKernel(program, "fixed", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_mem out = clCreateBuffer(cl_env().context, CL_MEM_READ_WRITE, 64 * sizeof(int), nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  ASSERT_EQ(clSetKernelArg(loose, 0, sizeof out, &out), CL_SUCCESS);
  ASSERT_EQ(clSetKernelArg(fixed, 0, sizeof out, &out), CL_SUCCESS);
  ASSERT_EQ(device_value<cl_bool>(CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT), cl_bool(CL_FALSE));
  const size_t global = 6, local = 4, other_local = 2, even = 8;
  EXPECT_EQ(clEnqueueNDRangeKernel(cl_env().queue, loose, 1, nullptr, &global, &local, 0, nullptr, nullptr),
            CL_INVALID_WORK_GROUP_SIZE);
  EXPECT_EQ(clEnqueueNDRangeKernel(cl_env().queue, fixed, 1, nullptr, &even, &other_local, 0, nullptr, nullptr),
            CL_INVALID_WORK_GROUP_SIZE);
  EXPECT_EQ(clEnqueueNDRangeKernel(cl_env().queue, fixed, 1, nullptr, &even, &local, 0, nullptr, nullptr),
            CL_SUCCESS);
  EXPECT_EQ(clEnqueueNDRangeKernel(cl_env().queue, loose, 1, nullptr, &even, &local, 0, nullptr, nullptr), CL_SUCCESS);
  EXPECT_EQ(clFinish(cl_env().queue), CL_SUCCESS);  // nothing deferred
  clReleaseKernel(loose);
  clReleaseKernel(fixed);
  clReleaseProgram(program);
  clReleaseMemObject(out);
}

}  // namespace
}  // namespace gsvirt::icd::test
