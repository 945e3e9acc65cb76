// The OpenCL C language extensions and OpenCL C 3.0 optional features that gsgpu's compiler
// implements: one list, used both by the front end, which offers clang exactly these and nothing
// else (so a program's `#ifdef cl_khr_fp16` sees what the device really has), and by the runtime,
// which reports them (CL_DEVICE_EXTENSIONS, CL_DEVICE_OPENCL_C_FEATURES). A new extension is added
// here once it works end to end.
#pragma once

// Space-separated, as CL_DEVICE_EXTENSIONS reports them (a macro so the runtime can put
// "cl_khr_icd " in front of it at compile time).
#define GSGPU_OPENCL_C_EXTENSIONS                                                               \
  "cl_khr_byte_addressable_store cl_khr_global_int32_base_atomics "                             \
  "cl_khr_global_int32_extended_atomics cl_khr_local_int32_base_atomics "                       \
  "cl_khr_local_int32_extended_atomics cl_khr_int64_base_atomics cl_khr_int64_extended_atomics "       \
  "cl_khr_fp64"

namespace gsgpu::compiler {

// OpenCL C 3.0 optional features, space-separated: 64-bit integers (which the full profile requires
// anyway) and doubles (cl_khr_fp64, lower_fp64.cc).
inline constexpr char kOpenCLCFeatures[] = "__opencl_c_int64 __opencl_c_fp64";
// Images (lower_image.cc), 3D image writes included: offered to a program, and reported by the
// runtime (CL_DEVICE_IMAGE_SUPPORT, these features and extensions), only when the device has image
// support (FrontendDevice::images, RuntimeConfig::image_support).
inline constexpr char kOpenCLCImageFeatures[] = "__opencl_c_images __opencl_c_3d_image_writes __opencl_c_read_write_images";
inline constexpr char kOpenCLCImageExtensions[] = "cl_khr_3d_image_writes";

}  // namespace gsgpu::compiler
