// The only symbols libgsvirt_icd.so exports (icd.map enforces it): what ocl-icd looks up with
// dlsym. Kept out of the internal library so that tests linking both it and libOpenCL do not
// replace the loader's own entry points.
#include "guest/cl/api.h"

// The only symbols the library exports (see icd.map): what ocl-icd looks up with dlsym.
extern "C" {

__attribute__((visibility("default"))) cl_int clIcdGetPlatformIDsKHR(cl_uint num_entries, cl_platform_id* platforms,
                                                                      cl_uint* num_platforms) {
  return gsvirt_clGetPlatformIDs(num_entries, platforms, num_platforms);
}

__attribute__((visibility("default"))) void* clGetExtensionFunctionAddress(const char* function_name) {
  return gsvirt_clGetExtensionFunctionAddress(function_name);
}

__attribute__((visibility("default"))) void* clGetExtensionFunctionAddressForPlatform(cl_platform_id platform,
                                                                                       const char* function_name) {
  return gsvirt_clGetExtensionFunctionAddressForPlatform(platform, function_name);
}

}  // extern "C"
