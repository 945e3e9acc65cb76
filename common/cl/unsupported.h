// The cl_icd_dispatch slots an implementation does not offer. The loader calls whatever a slot holds,
// so an empty slot would crash the application: each one gets a function that logs the entry point
// once and refuses with CL_INVALID_OPERATION. Entries returning cl_int return it; entries returning a
// handle or pointer return NULL and store it in errcode_ret, which OpenCL always passes last; void
// entries just return.
//
//   cl_icd_dispatch table{};
//   table.clGetPlatformIDs = &my_clGetPlatformIDs;   // ... every entry point implemented
//   gsvirt::cl::fill_unsupported<"my implementation">(table);
#pragma once

#include <CL/cl_icd.h>

#include <algorithm>
#include <cstddef>
#include <tuple>
#include <type_traits>

#include "common/cl/errors.h"

// Every member of cl_icd_dispatch, in the header's order (OpenCL 1.0 through 3.0 and the sharing
// extensions). An X-macro, so a table can be walked by name.
#define GSVIRT_CL_ICD_DISPATCH_ENTRIES(X) \
  X(clGetPlatformIDs) \
  X(clGetPlatformInfo) \
  X(clGetDeviceIDs) \
  X(clGetDeviceInfo) \
  X(clCreateContext) \
  X(clCreateContextFromType) \
  X(clRetainContext) \
  X(clReleaseContext) \
  X(clGetContextInfo) \
  X(clCreateCommandQueue) \
  X(clRetainCommandQueue) \
  X(clReleaseCommandQueue) \
  X(clGetCommandQueueInfo) \
  X(clSetCommandQueueProperty) \
  X(clCreateBuffer) \
  X(clCreateImage2D) \
  X(clCreateImage3D) \
  X(clRetainMemObject) \
  X(clReleaseMemObject) \
  X(clGetSupportedImageFormats) \
  X(clGetMemObjectInfo) \
  X(clGetImageInfo) \
  X(clCreateSampler) \
  X(clRetainSampler) \
  X(clReleaseSampler) \
  X(clGetSamplerInfo) \
  X(clCreateProgramWithSource) \
  X(clCreateProgramWithBinary) \
  X(clRetainProgram) \
  X(clReleaseProgram) \
  X(clBuildProgram) \
  X(clUnloadCompiler) \
  X(clGetProgramInfo) \
  X(clGetProgramBuildInfo) \
  X(clCreateKernel) \
  X(clCreateKernelsInProgram) \
  X(clRetainKernel) \
  X(clReleaseKernel) \
  X(clSetKernelArg) \
  X(clGetKernelInfo) \
  X(clGetKernelWorkGroupInfo) \
  X(clWaitForEvents) \
  X(clGetEventInfo) \
  X(clRetainEvent) \
  X(clReleaseEvent) \
  X(clGetEventProfilingInfo) \
  X(clFlush) \
  X(clFinish) \
  X(clEnqueueReadBuffer) \
  X(clEnqueueWriteBuffer) \
  X(clEnqueueCopyBuffer) \
  X(clEnqueueReadImage) \
  X(clEnqueueWriteImage) \
  X(clEnqueueCopyImage) \
  X(clEnqueueCopyImageToBuffer) \
  X(clEnqueueCopyBufferToImage) \
  X(clEnqueueMapBuffer) \
  X(clEnqueueMapImage) \
  X(clEnqueueUnmapMemObject) \
  X(clEnqueueNDRangeKernel) \
  X(clEnqueueTask) \
  X(clEnqueueNativeKernel) \
  X(clEnqueueMarker) \
  X(clEnqueueWaitForEvents) \
  X(clEnqueueBarrier) \
  X(clGetExtensionFunctionAddress) \
  X(clCreateFromGLBuffer) \
  X(clCreateFromGLTexture2D) \
  X(clCreateFromGLTexture3D) \
  X(clCreateFromGLRenderbuffer) \
  X(clGetGLObjectInfo) \
  X(clGetGLTextureInfo) \
  X(clEnqueueAcquireGLObjects) \
  X(clEnqueueReleaseGLObjects) \
  X(clGetGLContextInfoKHR) \
  X(clGetDeviceIDsFromD3D10KHR) \
  X(clCreateFromD3D10BufferKHR) \
  X(clCreateFromD3D10Texture2DKHR) \
  X(clCreateFromD3D10Texture3DKHR) \
  X(clEnqueueAcquireD3D10ObjectsKHR) \
  X(clEnqueueReleaseD3D10ObjectsKHR) \
  X(clSetEventCallback) \
  X(clCreateSubBuffer) \
  X(clSetMemObjectDestructorCallback) \
  X(clCreateUserEvent) \
  X(clSetUserEventStatus) \
  X(clEnqueueReadBufferRect) \
  X(clEnqueueWriteBufferRect) \
  X(clEnqueueCopyBufferRect) \
  X(clCreateSubDevicesEXT) \
  X(clRetainDeviceEXT) \
  X(clReleaseDeviceEXT) \
  X(clCreateEventFromGLsyncKHR) \
  X(clCreateSubDevices) \
  X(clRetainDevice) \
  X(clReleaseDevice) \
  X(clCreateImage) \
  X(clCreateProgramWithBuiltInKernels) \
  X(clCompileProgram) \
  X(clLinkProgram) \
  X(clUnloadPlatformCompiler) \
  X(clGetKernelArgInfo) \
  X(clEnqueueFillBuffer) \
  X(clEnqueueFillImage) \
  X(clEnqueueMigrateMemObjects) \
  X(clEnqueueMarkerWithWaitList) \
  X(clEnqueueBarrierWithWaitList) \
  X(clGetExtensionFunctionAddressForPlatform) \
  X(clCreateFromGLTexture) \
  X(clGetDeviceIDsFromD3D11KHR) \
  X(clCreateFromD3D11BufferKHR) \
  X(clCreateFromD3D11Texture2DKHR) \
  X(clCreateFromD3D11Texture3DKHR) \
  X(clCreateFromDX9MediaSurfaceKHR) \
  X(clEnqueueAcquireD3D11ObjectsKHR) \
  X(clEnqueueReleaseD3D11ObjectsKHR) \
  X(clGetDeviceIDsFromDX9MediaAdapterKHR) \
  X(clEnqueueAcquireDX9MediaSurfacesKHR) \
  X(clEnqueueReleaseDX9MediaSurfacesKHR) \
  X(clCreateFromEGLImageKHR) \
  X(clEnqueueAcquireEGLObjectsKHR) \
  X(clEnqueueReleaseEGLObjectsKHR) \
  X(clCreateEventFromEGLSyncKHR) \
  X(clCreateCommandQueueWithProperties) \
  X(clCreatePipe) \
  X(clGetPipeInfo) \
  X(clSVMAlloc) \
  X(clSVMFree) \
  X(clEnqueueSVMFree) \
  X(clEnqueueSVMMemcpy) \
  X(clEnqueueSVMMemFill) \
  X(clEnqueueSVMMap) \
  X(clEnqueueSVMUnmap) \
  X(clCreateSamplerWithProperties) \
  X(clSetKernelArgSVMPointer) \
  X(clSetKernelExecInfo) \
  X(clGetKernelSubGroupInfoKHR) \
  X(clCloneKernel) \
  X(clCreateProgramWithIL) \
  X(clEnqueueSVMMigrateMem) \
  X(clGetDeviceAndHostTimer) \
  X(clGetHostTimer) \
  X(clGetKernelSubGroupInfo) \
  X(clSetDefaultDeviceCommandQueue) \
  X(clSetProgramReleaseCallback) \
  X(clSetProgramSpecializationConstant) \
  X(clCreateBufferWithProperties) \
  X(clCreateImageWithProperties) \
  X(clSetContextDestructorCallback)

namespace gsvirt::cl {

// A string usable as a template argument, so each refusing function knows the names it reports.
template <size_t N>
struct FixedName {
  constexpr FixedName(const char (&s)[N]) { std::copy_n(s, N, text); }
  char text[N];
};

inline constexpr cl_int kUnsupportedError = CL_INVALID_OPERATION;

namespace unsupported_detail {

template <FixedName Implementation, FixedName Entry>
void report() {
  log_once(Implementation.text, Entry.text, "not supported; it returns CL_INVALID_OPERATION");
}

template <FixedName Implementation, FixedName Entry, typename Slot>
struct Refuse;

template <FixedName Implementation, FixedName Entry, typename R, typename... Args>
struct Refuse<Implementation, Entry, R(CL_API_CALL*)(Args...)> {
  static R CL_API_CALL call(Args... args) {
    report<Implementation, Entry>();
    if constexpr (sizeof...(Args) > 0) {
      using Last = std::tuple_element_t<sizeof...(Args) - 1, std::tuple<Args...>>;
      if constexpr (std::is_same_v<Last, cl_int*>)
        set_error(std::get<sizeof...(Args) - 1>(std::forward_as_tuple(args...)), kUnsupportedError);
    }
    if constexpr (std::is_same_v<R, cl_int>)
      return kUnsupportedError;
    else if constexpr (!std::is_void_v<R>)
      return R{};
  }
};

// Slots the headers type as void* on this platform (D3D and DX9 media sharing): a function that is
// never meant to be called through a real prototype; it only keeps the slot from being NULL.
template <FixedName Implementation, FixedName Entry>
cl_int CL_API_CALL refuse_opaque() {
  report<Implementation, Entry>();
  return kUnsupportedError;
}

template <FixedName Implementation, FixedName Entry, typename Slot>
void fill_slot(Slot& slot) {
  if (slot) return;
  if constexpr (std::is_same_v<Slot, void*>)
    slot = reinterpret_cast<void*>(&refuse_opaque<Implementation, Entry>);
  else
    slot = &Refuse<Implementation, Entry, Slot>::call;
}

}  // namespace unsupported_detail

// Fills every empty slot of `table`; log lines name `Implementation` and the entry point.
template <FixedName Implementation>
void fill_unsupported(cl_icd_dispatch& table) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#define GSVIRT_CL_FILL_SLOT(name) unsupported_detail::fill_slot<Implementation, #name>(table.name);
  GSVIRT_CL_ICD_DISPATCH_ENTRIES(GSVIRT_CL_FILL_SLOT)
#undef GSVIRT_CL_FILL_SLOT
#pragma GCC diagnostic pop
}

}  // namespace gsvirt::cl
