// The OpenCL 2.x / 3.0 device and platform queries. OpenCL 3.0 makes everything beyond 1.2 optional;
// each answer here says what the device really has, and the "absent" answers are the ones the spec
// ties together (no device enqueue: on-device queue sizes 0; no pipes: pipe limits 0; ...), which
// the OpenCL-CTS consistency tests check.
#include <cstring>
#include <string_view>
#include <vector>

#include "gsgpu/cl/device_info.h"

namespace gsgpu::cl {
namespace {

constexpr cl_version kOpenCL30 = CL_MAKE_VERSION(3, 0, 0);
// The cl_khr_* extensions the device reports are all at their first version.
constexpr cl_version kExtensionVersion = CL_MAKE_VERSION(1, 0, 0);
// Not conformant: the CTS does not pass completely (docs/conformance.md). A date no real
// conformance submission carries, in the format the query requires.
constexpr char kNoConformanceVersion[] = "v0000-01-01-00";

cl_name_version name_version(std::string_view name, cl_version version) {
  cl_name_version nv{};
  std::memcpy(nv.name, name.data(), std::min(name.size(), sizeof nv.name - 1));
  nv.version = version;
  return nv;
}

// One entry per space-separated word of `list`.
std::vector<cl_name_version> name_versions(std::string_view list, cl_version version) {
  std::vector<cl_name_version> out;
  while (!list.empty()) {
    const size_t end = std::min(list.find(' '), list.size());
    if (end > 0) out.push_back(name_version(list.substr(0, end), version));
    list.remove_prefix(std::min(end + 1, list.size()));
  }
  return out;
}

cl_int version_lists(const Runtime* rt, cl_device_info param, size_t size, void* value, size_t* ret, bool* known) {
  *known = true;
  std::vector<cl_name_version> list;
  switch (param) {
    case CL_DEVICE_NUMERIC_VERSION: return put_value(kOpenCL30, size, value, ret);
    case CL_DEVICE_OPENCL_C_NUMERIC_VERSION_KHR: return put_value(CL_MAKE_VERSION(1, 2, 0), size, value, ret);
    case CL_DEVICE_EXTENSIONS_WITH_VERSION: list = name_versions(device_extensions(rt), kExtensionVersion); break;
    case CL_DEVICE_ILS_WITH_VERSION: list = {name_version("SPIR-V", CL_MAKE_VERSION(1, 0, 0))}; break;
    case CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION: break;  // none, as CL_DEVICE_BUILT_IN_KERNELS
    case CL_DEVICE_OPENCL_C_ALL_VERSIONS:
      // Every OpenCL C version the compiler accepts for this device: -cl-std=CL3.0 builds with
      // the device's feature macros only (gsgpu/compiler/frontend.cc).
      for (cl_version v : std::initializer_list<cl_version>{CL_MAKE_VERSION(1, 0, 0), CL_MAKE_VERSION(1, 1, 0),
                                                            CL_MAKE_VERSION(1, 2, 0), kOpenCL30})
        list.push_back(name_version("OpenCL C", v));
      break;
    case CL_DEVICE_OPENCL_C_FEATURES:
      // The compiler's (gsgpu/compiler/opencl_c_support.h).
      list = name_versions(gsgpu::compiler::kOpenCLCFeatures, kOpenCL30);
      if (rt->config().image_support) {
        const std::vector<cl_name_version> images = name_versions(gsgpu::compiler::kOpenCLCImageFeatures, kOpenCL30);
        list.insert(list.end(), images.begin(), images.end());
      }
      break;
    case CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED: return put_string(kNoConformanceVersion, size, value, ret);
    default: *known = false; return CL_INVALID_VALUE;
  }
  return put_array(list, size, value, ret);
}

cl_int absent_features(cl_device_info param, size_t size, void* value, size_t* ret, bool* known) {
  *known = true;
  switch (param) {
    // cl_uint limits of features the device does not have.
    case CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE:
    case CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE:
    case CL_DEVICE_MAX_ON_DEVICE_QUEUES:
    case CL_DEVICE_MAX_ON_DEVICE_EVENTS:
    case CL_DEVICE_MAX_PIPE_ARGS:
    case CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS:
    case CL_DEVICE_PIPE_MAX_PACKET_SIZE:
    case CL_DEVICE_MAX_NUM_SUB_GROUPS:
    // 0: atomics need only their natural alignment.
    case CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT:
    case CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT:
    case CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT: return put_value(cl_uint(0), size, value, ret);
    // Program-scope __global variables: the compiler does not place them.
    case CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE:
    case CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE: return put_value(size_t(0), size, value, ret);
    case CL_DEVICE_SVM_CAPABILITIES: return put_value(cl_device_svm_capabilities(0), size, value, ret);
    case CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES:
      return put_value(cl_command_queue_properties(0), size, value, ret);
    case CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES:
      return put_value(cl_device_device_enqueue_capabilities(0), size, value, ret);
    case CL_DEVICE_PIPE_SUPPORT:
    case CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT:
    case CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT:
    case CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS:
    // A global size must be a multiple of the local size (ndrange.cc): the last group of a
    // dimension cannot be smaller.
    case CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT: return put_value(cl_bool(CL_FALSE), size, value, ret);
  }
  *known = false;
  return CL_INVALID_VALUE;
}

}  // namespace

cl_int opencl3_device_info(Runtime* rt, cl_device_info param, size_t size, void* value, size_t* ret,
                           bool* known) {
  cl_int err = version_lists(rt, param, size, value, ret, known);
  if (*known) return err;
  err = absent_features(param, size, value, ret, known);
  if (*known) return err;
  *known = true;
  switch (param) {
    case CL_DEVICE_QUEUE_ON_HOST_PROPERTIES:  // CL_DEVICE_QUEUE_PROPERTIES's 2.0 name
      return put_value(cl_command_queue_properties(CL_QUEUE_PROFILING_ENABLE), size, value, ret);
    case CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES:
      // The minimum 3.0 allows, and what the OpenCL C 1.2 atomics give: relaxed atomics, visible
      // within a work-group. Nothing orders them further (no acquire/release on other memory).
      return put_value(cl_device_atomic_capabilities(CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP),
                       size, value, ret);
    case CL_DEVICE_ATOMIC_FENCE_CAPABILITIES:
      // barrier() orders a work-group's memory (acquire-release), the minimum 3.0 allows.
      return put_value(cl_device_atomic_capabilities(CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_ORDER_ACQ_REL |
                                                     CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP),
                       size, value, ret);
    case CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE:
      return put_value(size_t(rt->caps().warp_width), size, value, ret);
  }
  *known = false;
  return CL_INVALID_VALUE;
}

cl_int opencl3_platform_info(cl_platform_info param, size_t size, void* value, size_t* ret, bool* known) {
  *known = true;
  switch (param) {
    case CL_PLATFORM_NUMERIC_VERSION: return put_value(kOpenCL30, size, value, ret);
    case CL_PLATFORM_EXTENSIONS_WITH_VERSION:
      return put_array(name_versions(kPlatformExtensions, kExtensionVersion), size, value, ret);
    // 0: no host timer, so clGetDeviceAndHostTimer / clGetHostTimer are CL_INVALID_OPERATION.
    case CL_PLATFORM_HOST_TIMER_RESOLUTION: return put_value(cl_ulong(0), size, value, ret);
  }
  *known = false;
  return CL_INVALID_VALUE;
}

}  // namespace gsgpu::cl
