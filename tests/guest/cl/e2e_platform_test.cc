// Platform, device, context and queue as an app sees them through the loader.
#include <cstring>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <CL/cl_ext.h>

#include "e2e_fixture.h"

namespace gsvirt::icd::test {
namespace {

std::string platform_string(cl_platform_info name) {
  size_t size = 0;
  EXPECT_EQ(clGetPlatformInfo(cl_env().platform, name, 0, nullptr, &size), CL_SUCCESS);
  std::string s(size, '\0');
  EXPECT_EQ(clGetPlatformInfo(cl_env().platform, name, size, s.data(), nullptr), CL_SUCCESS);
  if (!s.empty()) s.pop_back();  // terminator
  return s;
}

TEST(IcdPlatform, IsTheGsvirtPlatformWithLocalStrings) {
  EXPECT_EQ(platform_string(CL_PLATFORM_NAME), "gsvirt");
  EXPECT_EQ(platform_string(CL_PLATFORM_VERSION).rfind("OpenCL 3.0 gsvirt ", 0), 0u);
  EXPECT_EQ(platform_string(CL_PLATFORM_PROFILE), "FULL_PROFILE");
  EXPECT_EQ(platform_string(CL_PLATFORM_EXTENSIONS), "cl_khr_icd");
  EXPECT_EQ(platform_string(CL_PLATFORM_ICD_SUFFIX_KHR), "gsvirt");
}

TEST(IcdPlatform, TooSmallInfoBufferIsInvalidValue) {
  char small[3];
  EXPECT_EQ(clGetPlatformInfo(cl_env().platform, CL_PLATFORM_NAME, sizeof small, small, nullptr), CL_INVALID_VALUE);
}

TEST(IcdDevice, ReportsOurPlatformAndHostValues) {
  cl_platform_id platform = nullptr;
  ASSERT_EQ(clGetDeviceInfo(cl_env().device, CL_DEVICE_PLATFORM, sizeof platform, &platform, nullptr), CL_SUCCESS);
  EXPECT_EQ(platform, cl_env().platform);
  char name[256] = {};
  ASSERT_EQ(clGetDeviceInfo(cl_env().device, CL_DEVICE_NAME, sizeof name, name, nullptr), CL_SUCCESS);
  EXPECT_GT(std::strlen(name), 0u);
  cl_uint units = 0;
  ASSERT_EQ(clGetDeviceInfo(cl_env().device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, nullptr), CL_SUCCESS);
  EXPECT_GT(units, 0u);
  cl_device_id parent = reinterpret_cast<cl_device_id>(1);
  ASSERT_EQ(clGetDeviceInfo(cl_env().device, CL_DEVICE_PARENT_DEVICE, sizeof parent, &parent, nullptr), CL_SUCCESS);
  EXPECT_EQ(parent, nullptr);
}

// What the application sees of the device's extensions: only those gsvirt carries end to end (the
// host's allow-list, host/vcomp/extension_allow_list.cc), the string and the _WITH_VERSION array
// naming the same ones, each size query agreeing with its value.
TEST(IcdDevice, ExtensionsAreOnlyThoseGsvirtCarriesInBothQueries) {
  const std::set<std::string> carried = {
      "cl_khr_icd", "cl_khr_byte_addressable_store", "cl_khr_global_int32_base_atomics",
      "cl_khr_global_int32_extended_atomics", "cl_khr_local_int32_base_atomics", "cl_khr_local_int32_extended_atomics",
      "cl_khr_int64_base_atomics", "cl_khr_int64_extended_atomics", "cl_khr_fp64", "cl_khr_fp16",
      "cl_khr_3d_image_writes", "cl_khr_image2d_from_buffer", "cl_khr_device_uuid", "cl_khr_pci_bus_info",
      "cl_nv_device_attribute_query"};
  size_t size = 0;
  ASSERT_EQ(clGetDeviceInfo(cl_env().device, CL_DEVICE_EXTENSIONS, 0, nullptr, &size), CL_SUCCESS);
  std::string list(size, '\0');
  size_t written = 0;
  ASSERT_EQ(clGetDeviceInfo(cl_env().device, CL_DEVICE_EXTENSIONS, size, list.data(), &written), CL_SUCCESS);
  EXPECT_EQ(written, size);
  std::istringstream words(list.c_str());
  std::set<std::string> in_string;
  for (std::string w; words >> w;) {
    EXPECT_TRUE(carried.count(w)) << w << " is not carried by gsvirt";
    in_string.insert(w);
  }
  EXPECT_TRUE(in_string.count("cl_khr_icd") || in_string.count("cl_khr_fp64")) << list;
  ASSERT_EQ(clGetDeviceInfo(cl_env().device, CL_DEVICE_EXTENSIONS_WITH_VERSION, 0, nullptr, &size), CL_SUCCESS);
  ASSERT_EQ(size % sizeof(cl_name_version), 0u);
  std::vector<cl_name_version> versions(size / sizeof(cl_name_version));
  ASSERT_EQ(clGetDeviceInfo(cl_env().device, CL_DEVICE_EXTENSIONS_WITH_VERSION, size, versions.data(), &written),
            CL_SUCCESS);
  EXPECT_EQ(written, size);
  std::set<std::string> in_array;
  for (const auto& v : versions) in_array.emplace(v.name, strnlen(v.name, sizeof v.name));
  EXPECT_EQ(in_array, in_string) << list;
}

TEST(IcdDevice, FiltersByTypeLocally) {
  cl_device_type type = 0;
  ASSERT_EQ(clGetDeviceInfo(cl_env().device, CL_DEVICE_TYPE, sizeof type, &type, nullptr), CL_SUCCESS);
  cl_uint n = 0;
  EXPECT_EQ(clGetDeviceIDs(cl_env().platform, type, 0, nullptr, &n), CL_SUCCESS);
  EXPECT_GE(n, 1u);
  cl_device_type other = (type & CL_DEVICE_TYPE_GPU) ? CL_DEVICE_TYPE_ACCELERATOR : CL_DEVICE_TYPE_GPU;
  if (!(type & other)) {
    EXPECT_EQ(clGetDeviceIDs(cl_env().platform, other, 0, nullptr, &n), CL_DEVICE_NOT_FOUND);
  }
  EXPECT_EQ(clGetDeviceIDs(cl_env().platform, CL_DEVICE_TYPE_DEFAULT, 0, nullptr, &n), CL_SUCCESS);
  EXPECT_EQ(n, 1u);
}

TEST(IcdContext, InfoIsAnsweredLocally) {
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, cl_context_properties(cl_env().platform), 0};
  cl_int err = CL_SUCCESS;
  cl_context context = clCreateContextFromType(props, CL_DEVICE_TYPE_ALL, nullptr, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_uint refs = 0;
  EXPECT_EQ(clRetainContext(context), CL_SUCCESS);
  EXPECT_EQ(clGetContextInfo(context, CL_CONTEXT_REFERENCE_COUNT, sizeof refs, &refs, nullptr), CL_SUCCESS);
  EXPECT_EQ(refs, 2u);
  cl_context_properties got[3] = {};
  size_t size = 0;
  EXPECT_EQ(clGetContextInfo(context, CL_CONTEXT_PROPERTIES, sizeof got, got, &size), CL_SUCCESS);
  EXPECT_EQ(size, sizeof props);
  EXPECT_EQ(got[1], props[1]);  // the app's platform, not the host's
  cl_uint num_devices = 0;
  EXPECT_EQ(clGetContextInfo(context, CL_CONTEXT_NUM_DEVICES, sizeof num_devices, &num_devices, nullptr), CL_SUCCESS);
  EXPECT_GE(num_devices, 1u);
  EXPECT_EQ(clReleaseContext(context), CL_SUCCESS);
  EXPECT_EQ(clReleaseContext(context), CL_SUCCESS);
}

TEST(IcdContext, ForeignPlatformPropertyIsRefused) {
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, cl_context_properties(0x1234), 0};
  cl_int err = CL_SUCCESS;
  EXPECT_EQ(clCreateContext(props, 1, &cl_env().device, nullptr, nullptr, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_PLATFORM);
}

TEST(IcdQueue, InfoAndWithPropertiesSpelling) {
  cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  cl_int err = CL_SUCCESS;
  cl_command_queue queue = clCreateCommandQueueWithProperties(cl_env().context, cl_env().device, props, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_command_queue_properties got = 0;
  EXPECT_EQ(clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof got, &got, nullptr), CL_SUCCESS);
  EXPECT_EQ(got, cl_command_queue_properties(CL_QUEUE_PROFILING_ENABLE));
  cl_context context = nullptr;
  EXPECT_EQ(clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof context, &context, nullptr), CL_SUCCESS);
  EXPECT_EQ(context, cl_env().context);
  EXPECT_EQ(clFinish(queue), CL_SUCCESS);
  EXPECT_EQ(clReleaseCommandQueue(queue), CL_SUCCESS);
}

}  // namespace
}  // namespace gsvirt::icd::test
