// What the gsgpu device reports about its OpenCL version and features, shared by the 1.x queries
// (platform_device.cc) and the 2.x / 3.0 ones (device_v3.cc).
#pragma once

#include "gsgpu/cl/runtime.h"
#include "gsgpu/compiler/opencl_c_support.h"

namespace gsgpu::cl {

// OpenCL 3.0 with only the optional features the device really has (docs/gsgpu-executor.md,
// "OpenCL 3.0"): no SVM, pipes, device-side enqueue, sub-groups, generic address space,
// program-scope global variables, non-uniform work-groups or images.
inline constexpr char kDeviceVersion[] = "OpenCL 3.0 gsgpu";
inline constexpr char kDeviceOpenCLCVersion[] = "OpenCL C 1.2 gsgpu";  // 3.0 devices report 1.2 here
// The OpenCL C extensions are the compiler's (gsgpu/compiler/opencl_c_support.h).
inline constexpr char kDeviceExtensions[] = "cl_khr_icd " GSGPU_OPENCL_C_EXTENSIONS;
inline constexpr char kPlatformExtensions[] = "cl_khr_icd";
// The device's extensions: kDeviceExtensions, and with image support cl_khr_image2d_from_buffer
// (2D images over buffers, which the runtime makes; OpenCL C is not involved) and the compiler's
// image extensions (cl_khr_3d_image_writes: write_only image3d_t).
inline std::string device_extensions(const Runtime* rt) {
  std::string list = kDeviceExtensions;
  if (rt->config().image_support)
    list += std::string(" cl_khr_image2d_from_buffer ") + gsgpu::compiler::kOpenCLCImageExtensions;
  return list;
}

// Whether kernels may write 3D images: the compiler's cl_khr_3d_image_writes (OpenCL C's write_only
// image3d_t), reported with image support. Without it clGetSupportedImageFormats lists no 3D
// formats for writing; creating a 3D image with a write flag stays allowed (copies, fills and host
// writes need no kernel).
inline bool device_has_3d_image_writes(const Runtime* rt) {
  return rt->config().image_support && device_extensions(rt).find("cl_khr_3d_image_writes") != std::string::npos;
}

// The OpenCL 2.x / 3.0 device queries; *known is false for any other `param`.
cl_int opencl3_device_info(Runtime* rt, cl_device_info param, size_t size, void* value, size_t* ret,
                           bool* known);
// The OpenCL 3.0 platform queries (numeric version, extensions with versions); *known as above.
cl_int opencl3_platform_info(cl_platform_info param, size_t size, void* value, size_t* ret, bool* known);

}  // namespace gsgpu::cl
