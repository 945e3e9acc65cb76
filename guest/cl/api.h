// Every OpenCL entry point the ICD implements (one X(name) per cl_icd_dispatch member it fills),
// declared from the loader's own function-pointer types (CL/cl_icd.h), so a definition whose
// signature drifts from the dispatch slot does not link. These are internal: the dispatch table is
// the only way in.
#pragma once

#include <CL/cl_icd.h>

#include <type_traits>

#define GSVIRT_ICD_IMPLEMENTED_ENTRY_POINTS(X) \
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
  X(clGetExtensionFunctionAddress) \
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
  X(clSetProgramReleaseCallback) \
  X(clSetUserEventStatus) \
  X(clUnloadCompiler) \
  X(clUnloadPlatformCompiler) \
  X(clWaitForEvents)

// Deprecated entry points (clCreateImage2D, clEnqueueMarker, ...) are implemented on purpose.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#define GSVIRT_DECLARE_ENTRY(name) std::remove_pointer_t<cl_api_##name> gsvirt_##name;
GSVIRT_ICD_IMPLEMENTED_ENTRY_POINTS(GSVIRT_DECLARE_ENTRY)
#undef GSVIRT_DECLARE_ENTRY

#pragma GCC diagnostic pop
