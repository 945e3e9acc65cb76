// The gsvirt platform: answered entirely in the guest.
//
// ocl-icd calls clIcdGetPlatformIDsKHR and clGetPlatformInfo while it initialises, and an
// in-process host executor may itself enumerate platforms through the loader; neither may touch
// the host connection, so nothing here does.
#include <cstring>
#include <string>

#include "guest/cl/api.h"
#include "guest/cl/objects.h"

#ifndef GSVIRT_VERSION
#define GSVIRT_VERSION "unknown"
#endif

namespace gsvirt::icd {
namespace {

constexpr char kPlatformName[] = "gsvirt";
constexpr char kPlatformVendor[] = "gsvirt project";
// The OpenCL API this ICD implements: every 3.0 entry point is there, those of optional features
// the protocol does not carry (SVM, pipes, device-side enqueue, sub-groups) refusing as a 3.0
// device without them does. Each device reports its own version, the host device's (a 1.2 device
// on a 3.0 platform is allowed).
constexpr char kPlatformVersion[] = "OpenCL 3.0 gsvirt " GSVIRT_VERSION;
constexpr char kPlatformProfile[] = "FULL_PROFILE";
constexpr char kPlatformExtensions[] = "cl_khr_icd";
constexpr char kIcdSuffix[] = "gsvirt";

}  // namespace
}  // namespace gsvirt::icd

using namespace gsvirt::icd;

cl_int gsvirt_clGetPlatformIDs(cl_uint num_entries, cl_platform_id* platforms, cl_uint* num_platforms) {
  trace_call("clGetPlatformIDs");
  if ((num_entries == 0 && platforms) || (!platforms && !num_platforms))
    return refuse("clGetPlatformIDs", "num_entries/platforms/num_platforms", CL_INVALID_VALUE);
  IcdLock lock(icd_mutex());
  if (platforms) platforms[0] = the_platform();
  if (num_platforms) *num_platforms = 1;
  return CL_SUCCESS;
}

cl_int gsvirt_clGetPlatformInfo(cl_platform_id platform, cl_platform_info param_name, size_t param_value_size,
                                void* param_value, size_t* param_value_size_ret) {
  IcdLock lock(icd_mutex());
  const char* api = "clGetPlatformInfo";
  trace_call(api);
  if (platform && platform != the_platform()) return refuse(api, "platform", CL_INVALID_PLATFORM);
  auto string = [&](const char* s) { return put_string(s, param_value_size, param_value, param_value_size_ret); };
  switch (param_name) {
    case CL_PLATFORM_PROFILE: return string(kPlatformProfile);
    case CL_PLATFORM_VERSION: return string(kPlatformVersion);
    case CL_PLATFORM_NAME: return string(kPlatformName);
    case CL_PLATFORM_VENDOR: return string(kPlatformVendor);
    case CL_PLATFORM_EXTENSIONS: return string(kPlatformExtensions);
    case CL_PLATFORM_ICD_SUFFIX_KHR: return string(kIcdSuffix);
    case CL_PLATFORM_HOST_TIMER_RESOLUTION:
      return put_value(cl_ulong(0), param_value_size, param_value, param_value_size_ret);
    case CL_PLATFORM_NUMERIC_VERSION:
      return put_value(cl_version(CL_MAKE_VERSION(3, 0, 0)), param_value_size, param_value, param_value_size_ret);
    case CL_PLATFORM_EXTENSIONS_WITH_VERSION: {
      cl_name_version icd{};
      icd.version = CL_MAKE_VERSION(1, 0, 0);
      std::strncpy(icd.name, "cl_khr_icd", sizeof icd.name - 1);
      return put_value(icd, param_value_size, param_value, param_value_size_ret);
    }
    default:
      return refuse(api, "param_name", CL_INVALID_VALUE);
  }
}

void* gsvirt_clGetExtensionFunctionAddress(const char* function_name) {
  trace_call("clGetExtensionFunctionAddress");
  if (!function_name) return nullptr;
  // ocl-icd fetches these two through this function (not the dispatch table) while it loads us.
  if (std::strcmp(function_name, "clIcdGetPlatformIDsKHR") == 0)
    return reinterpret_cast<void*>(&gsvirt_clGetPlatformIDs);
  if (std::strcmp(function_name, "clGetPlatformInfo") == 0)
    return reinterpret_cast<void*>(&gsvirt_clGetPlatformInfo);
  return nullptr;  // no vendor extension functions yet
}

void* gsvirt_clGetExtensionFunctionAddressForPlatform(cl_platform_id platform, const char* function_name) {
  if (platform != the_platform()) return nullptr;
  return gsvirt_clGetExtensionFunctionAddress(function_name);
}

cl_int gsvirt_clUnloadCompiler() { return CL_SUCCESS; }

cl_int gsvirt_clUnloadPlatformCompiler(cl_platform_id platform) {
  if (platform != the_platform()) return refuse("clUnloadPlatformCompiler", "platform", CL_INVALID_PLATFORM);
  return CL_SUCCESS;
}
