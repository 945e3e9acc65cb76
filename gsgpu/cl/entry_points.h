// The entry points the gsgpu executor implements (one X(name) per cl_icd_dispatch member), declared
// with the ICD's own function types so a signature mismatch is a compile error.
#pragma once

#include <type_traits>

#include "gsgpu/cl/runtime.h"

#define GSGPU_IMPLEMENTED_ENTRY_POINTS(X) \
  X(clBuildProgram) \
  X(clCloneKernel) \
  X(clCompileProgram) \
  X(clCreateBuffer) \
  X(clCreateBufferWithProperties) \
  X(clCreateCommandQueue) \
  X(clCreateCommandQueueWithProperties) \
  X(clCreateContext) \
  X(clCreateContextFromType) \
  X(clCreateImage) \
  X(clCreateImage2D) \
  X(clCreateImage3D) \
  X(clCreateImageWithProperties) \
  X(clCreateKernel) \
  X(clCreateKernelsInProgram) \
  X(clCreateProgramWithBinary) \
  X(clCreateProgramWithBuiltInKernels) \
  X(clCreateProgramWithIL) \
  X(clCreateProgramWithSource) \
  X(clCreateSampler) \
  X(clCreateSamplerWithProperties) \
  X(clCreateSubBuffer) \
  X(clCreateSubDevices) \
  X(clCreateUserEvent) \
  X(clEnqueueBarrier) \
  X(clEnqueueBarrierWithWaitList) \
  X(clEnqueueCopyBuffer) \
  X(clEnqueueCopyBufferRect) \
  X(clEnqueueCopyBufferToImage) \
  X(clEnqueueCopyImage) \
  X(clEnqueueCopyImageToBuffer) \
  X(clEnqueueFillBuffer) \
  X(clEnqueueFillImage) \
  X(clEnqueueMapBuffer) \
  X(clEnqueueMapImage) \
  X(clEnqueueMarker) \
  X(clEnqueueMarkerWithWaitList) \
  X(clEnqueueMigrateMemObjects) \
  X(clEnqueueNDRangeKernel) \
  X(clEnqueueReadBuffer) \
  X(clEnqueueReadBufferRect) \
  X(clEnqueueReadImage) \
  X(clEnqueueTask) \
  X(clEnqueueUnmapMemObject) \
  X(clEnqueueWaitForEvents) \
  X(clEnqueueWriteBuffer) \
  X(clEnqueueWriteBufferRect) \
  X(clEnqueueWriteImage) \
  X(clFinish) \
  X(clFlush) \
  X(clGetCommandQueueInfo) \
  X(clGetContextInfo) \
  X(clGetDeviceIDs) \
  X(clGetDeviceInfo) \
  X(clGetEventInfo) \
  X(clGetEventProfilingInfo) \
  X(clGetExtensionFunctionAddressForPlatform) \
  X(clGetImageInfo) \
  X(clGetKernelArgInfo) \
  X(clGetKernelInfo) \
  X(clGetKernelWorkGroupInfo) \
  X(clGetMemObjectInfo) \
  X(clGetPipeInfo) \
  X(clGetPlatformIDs) \
  X(clGetPlatformInfo) \
  X(clGetProgramBuildInfo) \
  X(clGetProgramInfo) \
  X(clGetSamplerInfo) \
  X(clGetSupportedImageFormats) \
  X(clLinkProgram) \
  X(clReleaseCommandQueue) \
  X(clReleaseContext) \
  X(clReleaseDevice) \
  X(clReleaseEvent) \
  X(clReleaseKernel) \
  X(clReleaseMemObject) \
  X(clReleaseProgram) \
  X(clReleaseSampler) \
  X(clRetainCommandQueue) \
  X(clRetainContext) \
  X(clRetainDevice) \
  X(clRetainEvent) \
  X(clRetainKernel) \
  X(clRetainMemObject) \
  X(clRetainProgram) \
  X(clRetainSampler) \
  X(clSetContextDestructorCallback) \
  X(clSetEventCallback) \
  X(clSetKernelArg) \
  X(clSetMemObjectDestructorCallback) \
  X(clSetUserEventStatus) \
  X(clUnloadCompiler) \
  X(clUnloadPlatformCompiler) \
  X(clWaitForEvents)

namespace gsgpu::cl {

#define GSGPU_DECLARE_ENTRY(name) std::remove_pointer_t<cl_api_##name> gsgpu_##name;
GSGPU_IMPLEMENTED_ENTRY_POINTS(GSGPU_DECLARE_ENTRY)
#undef GSGPU_DECLARE_ENTRY

// __local bytes a kernel's group needs: its own variables plus the __local arguments set so far.
uint64_t kernel_local_bytes(const Kernel* k);

}  // namespace gsgpu::cl
