// The executor's cl_icd_dispatch: every entry filled. Entry points this executor implements go to
// their gsgpu_cl* function (entry_points.h); every other one answers CL_INVALID_OPERATION (or a
// NULL handle with that error) and logs its name once, so an application sees a clean refusal
// rather than a NULL call.
#include <tuple>

#include "gsgpu/cl/entry_points.h"

namespace gsgpu::cl {
namespace {

template <typename T>
struct Unsupported;

// One stub per entry-point type: cl_int results are CL_INVALID_OPERATION; handle results are NULL
// with CL_INVALID_OPERATION in errcode_ret, which OpenCL always passes last.
template <typename R, typename... Args>
struct Unsupported<R (*)(Args...)> {
  template <const char* const* kName>
  static R CL_API_CALL call(Args... args) {
    log_once(*kName, "not supported by the gsgpu executor");
    if constexpr (sizeof...(Args) > 0) {
      using Last = std::tuple_element_t<sizeof...(Args) - 1, std::tuple<Args...>>;
      if constexpr (std::is_same_v<Last, cl_int*>) {
        cl_int* err = std::get<sizeof...(Args) - 1>(std::forward_as_tuple(args...));
        if (err) *err = CL_INVALID_OPERATION;
      }
    }
    if constexpr (std::is_same_v<R, cl_int>)
      return CL_INVALID_OPERATION;
    else if constexpr (!std::is_void_v<R>)
      return R{};
  }
};

// Members typed void* (sharing extensions whose headers are not included) get a function that is
// never meant to be called through that type; it only makes the entry non-null.
cl_int CL_API_CALL unsupported_opaque() {
  log_once("extension entry point", "not supported by the gsgpu executor");
  return CL_INVALID_OPERATION;
}

template <typename T, const char* const* kName>
void fill(T& entry) {
  if (entry) return;
  if constexpr (std::is_pointer_v<T> && std::is_function_v<std::remove_pointer_t<T>>)
    entry = &Unsupported<T>::template call<kName>;
  else
    entry = reinterpret_cast<T>(&unsupported_opaque);
}

#define GSGPU_NAME(name) constexpr const char* kName_##name = #name;
#define GSGPU_ALL_ENTRY_POINTS(X) \
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

GSGPU_ALL_ENTRY_POINTS(GSGPU_NAME)
#undef GSGPU_NAME

cl_icd_dispatch make_table() {
  cl_icd_dispatch t{};
#define GSGPU_SET(name) t.name = &gsgpu_##name;
  GSGPU_IMPLEMENTED_ENTRY_POINTS(GSGPU_SET)
#undef GSGPU_SET
#define GSGPU_FILL(name) fill<decltype(t.name), &kName_##name>(t.name);
  GSGPU_ALL_ENTRY_POINTS(GSGPU_FILL)
#undef GSGPU_FILL
  return t;
}

}  // namespace

const cl_icd_dispatch* gsgpu_dispatch_table() {
  static const cl_icd_dispatch table = make_table();
  return &table;
}

}  // namespace gsgpu::cl
