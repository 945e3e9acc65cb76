// The one dispatch table every object points to. Every slot is filled: entry points gsvirt does
// not offer (GL/D3D/EGL sharing, SVM, pipes, native kernels, ...) answer CL_INVALID_OPERATION and
// log once, because the loader calls whatever a slot holds and a NULL slot would crash the app.
#include <algorithm>
#include <atomic>
#include <tuple>
#include <type_traits>

#include "common/log.h"
#include "guest/cl/api.h"
#include "guest/cl/icd.h"

namespace gsvirt::icd {
namespace {

// A string usable as a template argument, so each stub knows the name it reports.
template <size_t N>
struct EntryName {
  constexpr EntryName(const char (&s)[N]) { std::copy_n(s, N, text); }
  char text[N];
};

template <EntryName Name>
void report_unsupported() {
  static std::atomic<bool> reported{false};
  if (!reported.exchange(true))
    log_info("gsvirt ICD: %s is not supported; it returns CL_INVALID_OPERATION", Name.text);
}

template <EntryName Name, typename Fn>
struct Unsupported;

template <EntryName Name, typename R, typename... Args>
struct Unsupported<Name, R(CL_API_CALL*)(Args...)> {
  static R CL_API_CALL call(Args... args) {
    report_unsupported<Name>();
    if constexpr (std::is_same_v<R, cl_int>) {
      return CL_INVALID_OPERATION;
    } else {
      // Creators report through their last parameter, cl_int* errcode_ret.
      if constexpr (sizeof...(Args) > 0) {
        auto last = std::get<sizeof...(Args) - 1>(std::forward_as_tuple(args...));
        if constexpr (std::is_same_v<decltype(last), cl_int*>)
          if (last) *last = CL_INVALID_OPERATION;
      }
      if constexpr (!std::is_void_v<R>) return R{};
    }
  }
};

// Slots whose type the headers leave opaque (void*) on this platform (D3D, DX9 media sharing).
template <EntryName Name>
cl_int CL_API_CALL opaque_unsupported() {
  report_unsupported<Name>();
  return CL_INVALID_OPERATION;
}

template <EntryName Name, typename Slot>
void install_unsupported(Slot& slot) {
  if constexpr (std::is_same_v<Slot, void*>)
    slot = reinterpret_cast<void*>(&opaque_unsupported<Name>);
  else
    slot = &Unsupported<Name, Slot>::call;
}

cl_icd_dispatch make_dispatch_table() {
  cl_icd_dispatch table{};
  table.clGetPlatformIDs = &gsvirt_clGetPlatformIDs;
  table.clGetPlatformInfo = &gsvirt_clGetPlatformInfo;
  table.clGetDeviceIDs = &gsvirt_clGetDeviceIDs;
  table.clGetDeviceInfo = &gsvirt_clGetDeviceInfo;
  table.clCreateContext = &gsvirt_clCreateContext;
  table.clCreateContextFromType = &gsvirt_clCreateContextFromType;
  table.clRetainContext = &gsvirt_clRetainContext;
  table.clReleaseContext = &gsvirt_clReleaseContext;
  table.clGetContextInfo = &gsvirt_clGetContextInfo;
  table.clCreateCommandQueue = &gsvirt_clCreateCommandQueue;
  table.clRetainCommandQueue = &gsvirt_clRetainCommandQueue;
  table.clReleaseCommandQueue = &gsvirt_clReleaseCommandQueue;
  table.clGetCommandQueueInfo = &gsvirt_clGetCommandQueueInfo;
  install_unsupported<"clSetCommandQueueProperty">(table.clSetCommandQueueProperty);
  table.clCreateBuffer = &gsvirt_clCreateBuffer;
  table.clCreateImage2D = &gsvirt_clCreateImage2D;
  table.clCreateImage3D = &gsvirt_clCreateImage3D;
  table.clRetainMemObject = &gsvirt_clRetainMemObject;
  table.clReleaseMemObject = &gsvirt_clReleaseMemObject;
  table.clGetSupportedImageFormats = &gsvirt_clGetSupportedImageFormats;
  table.clGetMemObjectInfo = &gsvirt_clGetMemObjectInfo;
  table.clGetImageInfo = &gsvirt_clGetImageInfo;
  table.clCreateSampler = &gsvirt_clCreateSampler;
  table.clRetainSampler = &gsvirt_clRetainSampler;
  table.clReleaseSampler = &gsvirt_clReleaseSampler;
  table.clGetSamplerInfo = &gsvirt_clGetSamplerInfo;
  table.clCreateProgramWithSource = &gsvirt_clCreateProgramWithSource;
  table.clCreateProgramWithBinary = &gsvirt_clCreateProgramWithBinary;
  table.clRetainProgram = &gsvirt_clRetainProgram;
  table.clReleaseProgram = &gsvirt_clReleaseProgram;
  table.clBuildProgram = &gsvirt_clBuildProgram;
  table.clUnloadCompiler = &gsvirt_clUnloadCompiler;
  table.clGetProgramInfo = &gsvirt_clGetProgramInfo;
  table.clGetProgramBuildInfo = &gsvirt_clGetProgramBuildInfo;
  table.clCreateKernel = &gsvirt_clCreateKernel;
  table.clCreateKernelsInProgram = &gsvirt_clCreateKernelsInProgram;
  table.clRetainKernel = &gsvirt_clRetainKernel;
  table.clReleaseKernel = &gsvirt_clReleaseKernel;
  table.clSetKernelArg = &gsvirt_clSetKernelArg;
  table.clGetKernelInfo = &gsvirt_clGetKernelInfo;
  table.clGetKernelWorkGroupInfo = &gsvirt_clGetKernelWorkGroupInfo;
  table.clWaitForEvents = &gsvirt_clWaitForEvents;
  table.clGetEventInfo = &gsvirt_clGetEventInfo;
  table.clRetainEvent = &gsvirt_clRetainEvent;
  table.clReleaseEvent = &gsvirt_clReleaseEvent;
  table.clGetEventProfilingInfo = &gsvirt_clGetEventProfilingInfo;
  table.clFlush = &gsvirt_clFlush;
  table.clFinish = &gsvirt_clFinish;
  table.clEnqueueReadBuffer = &gsvirt_clEnqueueReadBuffer;
  table.clEnqueueWriteBuffer = &gsvirt_clEnqueueWriteBuffer;
  table.clEnqueueCopyBuffer = &gsvirt_clEnqueueCopyBuffer;
  table.clEnqueueReadImage = &gsvirt_clEnqueueReadImage;
  table.clEnqueueWriteImage = &gsvirt_clEnqueueWriteImage;
  table.clEnqueueCopyImage = &gsvirt_clEnqueueCopyImage;
  table.clEnqueueCopyImageToBuffer = &gsvirt_clEnqueueCopyImageToBuffer;
  table.clEnqueueCopyBufferToImage = &gsvirt_clEnqueueCopyBufferToImage;
  table.clEnqueueMapBuffer = &gsvirt_clEnqueueMapBuffer;
  table.clEnqueueMapImage = &gsvirt_clEnqueueMapImage;
  table.clEnqueueUnmapMemObject = &gsvirt_clEnqueueUnmapMemObject;
  table.clEnqueueNDRangeKernel = &gsvirt_clEnqueueNDRangeKernel;
  table.clEnqueueTask = &gsvirt_clEnqueueTask;
  install_unsupported<"clEnqueueNativeKernel">(table.clEnqueueNativeKernel);
  table.clEnqueueMarker = &gsvirt_clEnqueueMarker;
  table.clEnqueueWaitForEvents = &gsvirt_clEnqueueWaitForEvents;
  table.clEnqueueBarrier = &gsvirt_clEnqueueBarrier;
  table.clGetExtensionFunctionAddress = &gsvirt_clGetExtensionFunctionAddress;
  install_unsupported<"clCreateFromGLBuffer">(table.clCreateFromGLBuffer);
  install_unsupported<"clCreateFromGLTexture2D">(table.clCreateFromGLTexture2D);
  install_unsupported<"clCreateFromGLTexture3D">(table.clCreateFromGLTexture3D);
  install_unsupported<"clCreateFromGLRenderbuffer">(table.clCreateFromGLRenderbuffer);
  install_unsupported<"clGetGLObjectInfo">(table.clGetGLObjectInfo);
  install_unsupported<"clGetGLTextureInfo">(table.clGetGLTextureInfo);
  install_unsupported<"clEnqueueAcquireGLObjects">(table.clEnqueueAcquireGLObjects);
  install_unsupported<"clEnqueueReleaseGLObjects">(table.clEnqueueReleaseGLObjects);
  install_unsupported<"clGetGLContextInfoKHR">(table.clGetGLContextInfoKHR);
  install_unsupported<"clGetDeviceIDsFromD3D10KHR">(table.clGetDeviceIDsFromD3D10KHR);
  install_unsupported<"clCreateFromD3D10BufferKHR">(table.clCreateFromD3D10BufferKHR);
  install_unsupported<"clCreateFromD3D10Texture2DKHR">(table.clCreateFromD3D10Texture2DKHR);
  install_unsupported<"clCreateFromD3D10Texture3DKHR">(table.clCreateFromD3D10Texture3DKHR);
  install_unsupported<"clEnqueueAcquireD3D10ObjectsKHR">(table.clEnqueueAcquireD3D10ObjectsKHR);
  install_unsupported<"clEnqueueReleaseD3D10ObjectsKHR">(table.clEnqueueReleaseD3D10ObjectsKHR);
  table.clSetEventCallback = &gsvirt_clSetEventCallback;
  table.clCreateSubBuffer = &gsvirt_clCreateSubBuffer;
  table.clSetMemObjectDestructorCallback = &gsvirt_clSetMemObjectDestructorCallback;
  table.clCreateUserEvent = &gsvirt_clCreateUserEvent;
  table.clSetUserEventStatus = &gsvirt_clSetUserEventStatus;
  table.clEnqueueReadBufferRect = &gsvirt_clEnqueueReadBufferRect;
  table.clEnqueueWriteBufferRect = &gsvirt_clEnqueueWriteBufferRect;
  table.clEnqueueCopyBufferRect = &gsvirt_clEnqueueCopyBufferRect;
  install_unsupported<"clCreateSubDevicesEXT">(table.clCreateSubDevicesEXT);
  install_unsupported<"clRetainDeviceEXT">(table.clRetainDeviceEXT);
  install_unsupported<"clReleaseDeviceEXT">(table.clReleaseDeviceEXT);
  install_unsupported<"clCreateEventFromGLsyncKHR">(table.clCreateEventFromGLsyncKHR);
  table.clCreateSubDevices = &gsvirt_clCreateSubDevices;
  table.clRetainDevice = &gsvirt_clRetainDevice;
  table.clReleaseDevice = &gsvirt_clReleaseDevice;
  table.clCreateImage = &gsvirt_clCreateImage;
  table.clCreateProgramWithBuiltInKernels = &gsvirt_clCreateProgramWithBuiltInKernels;
  table.clCompileProgram = &gsvirt_clCompileProgram;
  table.clLinkProgram = &gsvirt_clLinkProgram;
  table.clUnloadPlatformCompiler = &gsvirt_clUnloadPlatformCompiler;
  table.clGetKernelArgInfo = &gsvirt_clGetKernelArgInfo;
  table.clEnqueueFillBuffer = &gsvirt_clEnqueueFillBuffer;
  table.clEnqueueFillImage = &gsvirt_clEnqueueFillImage;
  table.clEnqueueMigrateMemObjects = &gsvirt_clEnqueueMigrateMemObjects;
  table.clEnqueueMarkerWithWaitList = &gsvirt_clEnqueueMarkerWithWaitList;
  table.clEnqueueBarrierWithWaitList = &gsvirt_clEnqueueBarrierWithWaitList;
  table.clGetExtensionFunctionAddressForPlatform = &gsvirt_clGetExtensionFunctionAddressForPlatform;
  install_unsupported<"clCreateFromGLTexture">(table.clCreateFromGLTexture);
  install_unsupported<"clGetDeviceIDsFromD3D11KHR">(table.clGetDeviceIDsFromD3D11KHR);
  install_unsupported<"clCreateFromD3D11BufferKHR">(table.clCreateFromD3D11BufferKHR);
  install_unsupported<"clCreateFromD3D11Texture2DKHR">(table.clCreateFromD3D11Texture2DKHR);
  install_unsupported<"clCreateFromD3D11Texture3DKHR">(table.clCreateFromD3D11Texture3DKHR);
  install_unsupported<"clCreateFromDX9MediaSurfaceKHR">(table.clCreateFromDX9MediaSurfaceKHR);
  install_unsupported<"clEnqueueAcquireD3D11ObjectsKHR">(table.clEnqueueAcquireD3D11ObjectsKHR);
  install_unsupported<"clEnqueueReleaseD3D11ObjectsKHR">(table.clEnqueueReleaseD3D11ObjectsKHR);
  install_unsupported<"clGetDeviceIDsFromDX9MediaAdapterKHR">(table.clGetDeviceIDsFromDX9MediaAdapterKHR);
  install_unsupported<"clEnqueueAcquireDX9MediaSurfacesKHR">(table.clEnqueueAcquireDX9MediaSurfacesKHR);
  install_unsupported<"clEnqueueReleaseDX9MediaSurfacesKHR">(table.clEnqueueReleaseDX9MediaSurfacesKHR);
  install_unsupported<"clCreateFromEGLImageKHR">(table.clCreateFromEGLImageKHR);
  install_unsupported<"clEnqueueAcquireEGLObjectsKHR">(table.clEnqueueAcquireEGLObjectsKHR);
  install_unsupported<"clEnqueueReleaseEGLObjectsKHR">(table.clEnqueueReleaseEGLObjectsKHR);
  install_unsupported<"clCreateEventFromEGLSyncKHR">(table.clCreateEventFromEGLSyncKHR);
  table.clCreateCommandQueueWithProperties = &gsvirt_clCreateCommandQueueWithProperties;
  install_unsupported<"clCreatePipe">(table.clCreatePipe);
  install_unsupported<"clGetPipeInfo">(table.clGetPipeInfo);
  install_unsupported<"clSVMAlloc">(table.clSVMAlloc);
  install_unsupported<"clSVMFree">(table.clSVMFree);
  install_unsupported<"clEnqueueSVMFree">(table.clEnqueueSVMFree);
  install_unsupported<"clEnqueueSVMMemcpy">(table.clEnqueueSVMMemcpy);
  install_unsupported<"clEnqueueSVMMemFill">(table.clEnqueueSVMMemFill);
  install_unsupported<"clEnqueueSVMMap">(table.clEnqueueSVMMap);
  install_unsupported<"clEnqueueSVMUnmap">(table.clEnqueueSVMUnmap);
  table.clCreateSamplerWithProperties = &gsvirt_clCreateSamplerWithProperties;
  install_unsupported<"clSetKernelArgSVMPointer">(table.clSetKernelArgSVMPointer);
  install_unsupported<"clSetKernelExecInfo">(table.clSetKernelExecInfo);
  install_unsupported<"clGetKernelSubGroupInfoKHR">(table.clGetKernelSubGroupInfoKHR);
  install_unsupported<"clCloneKernel">(table.clCloneKernel);
  table.clCreateProgramWithIL = &gsvirt_clCreateProgramWithIL;
  install_unsupported<"clEnqueueSVMMigrateMem">(table.clEnqueueSVMMigrateMem);
  install_unsupported<"clGetDeviceAndHostTimer">(table.clGetDeviceAndHostTimer);
  install_unsupported<"clGetHostTimer">(table.clGetHostTimer);
  install_unsupported<"clGetKernelSubGroupInfo">(table.clGetKernelSubGroupInfo);
  install_unsupported<"clSetDefaultDeviceCommandQueue">(table.clSetDefaultDeviceCommandQueue);
  table.clSetProgramReleaseCallback = &gsvirt_clSetProgramReleaseCallback;
  install_unsupported<"clSetProgramSpecializationConstant">(table.clSetProgramSpecializationConstant);
  table.clCreateBufferWithProperties = &gsvirt_clCreateBufferWithProperties;
  table.clCreateImageWithProperties = &gsvirt_clCreateImageWithProperties;
  table.clSetContextDestructorCallback = &gsvirt_clSetContextDestructorCallback;
  return table;
}

}  // namespace

cl_icd_dispatch* dispatch_table() {
  static cl_icd_dispatch table = make_dispatch_table();
  return &table;
}

}  // namespace gsvirt::icd
