// libgsgpu_native_icd.so: the gsgpu OpenCL runtime (gsgpu/cl, unchanged) as a guest ICD over the
// virtio backend of gsgpu/drv. The guest compiles kernels and builds packets; the host's gsgpu
// native context only checks and runs them.
//
// The runtime and its device are created at the first platform query (as a driver opens its
// DRM device when the loader enumerates platforms) and live until the process ends: they are
// never destroyed, because application threads and the loader may still call in while static
// destructors run.
#include <CL/cl.h>
#include <CL/cl_icd.h>

#include <cstring>
#include <memory>
#include <mutex>
#include <string>

#include "common/log.h"
#include "gsgpu/cl/gsgpu_cl.h"
#include "guest/gsgpu/virtio_device.h"
#include "guest/transport/transport.h"

#ifndef CL_PLATFORM_NOT_FOUND_KHR
#define CL_PLATFORM_NOT_FOUND_KHR -1001
#endif

namespace {

gsgpu::cl::Instance* open_instance() {
  std::string error;
  auto transport = gsvirt::guest::create_transport_from_env(&error);
  std::unique_ptr<gsgpu::drv::Device> device;
  if (transport) device = gsgpu::drv::open_virtio(std::move(transport), &error);
  std::unique_ptr<gsgpu::cl::Instance> instance;
  // The application's own runtime: another of its threads may set a user event a wait is behind.
  gsgpu::cl::RuntimeConfig config = gsgpu::cl::config_from_env();
  config.wait_for_user_events = true;
  config.resolve_includes_locally = true;
  if (device) instance = gsgpu::cl::create_instance(std::move(device), config, &error);
  if (!instance) {
    gsvirt::log_error("gsgpu native ICD: no platform: %s", error.c_str());
    return nullptr;
  }
  gsvirt::log_debug(gsvirt::kDebugGuest, "gsgpu native ICD: %s", instance->description().c_str());
  return instance.release();  // process lifetime, see above
}

// The one instance; nullptr when it could not be opened (tried once).
gsgpu::cl::Instance* instance() {
  static std::once_flag once;
  static gsgpu::cl::Instance* the_instance = nullptr;
  std::call_once(once, [] { the_instance = open_instance(); });
  return the_instance;
}

}  // namespace

extern "C" cl_int clIcdGetPlatformIDsKHR(cl_uint, cl_platform_id*, cl_uint*);

namespace {

void* lookup(const char* function_name) {
  if (!function_name) return nullptr;
  // ocl-icd fetches these two by name (not from the dispatch table) while it loads the ICD.
  if (std::strcmp(function_name, "clIcdGetPlatformIDsKHR") == 0)
    return reinterpret_cast<void*>(&clIcdGetPlatformIDsKHR);
  gsgpu::cl::Instance* inst = instance();
  if (inst && std::strcmp(function_name, "clGetPlatformInfo") == 0)
    return reinterpret_cast<void*>(inst->api().clGetPlatformInfo);
  return nullptr;  // the runtime has no vendor extension functions
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) cl_int clIcdGetPlatformIDsKHR(cl_uint num_entries, cl_platform_id* platforms,
                                                                      cl_uint* num_platforms) {
  if ((num_entries == 0 && platforms) || (!platforms && !num_platforms)) return CL_INVALID_VALUE;
  gsgpu::cl::Instance* inst = instance();
  if (num_platforms) *num_platforms = inst ? 1 : 0;
  if (!inst) return CL_PLATFORM_NOT_FOUND_KHR;
  if (platforms) platforms[0] = inst->platform();
  return CL_SUCCESS;
}

__attribute__((visibility("default"))) void* clGetExtensionFunctionAddress(const char* function_name) {
  return lookup(function_name);
}

__attribute__((visibility("default"))) void* clGetExtensionFunctionAddressForPlatform(cl_platform_id platform,
                                                                                       const char* function_name) {
  gsgpu::cl::Instance* inst = instance();
  if (!inst || platform != inst->platform()) return nullptr;
  return lookup(function_name);
}

}  // extern "C"
