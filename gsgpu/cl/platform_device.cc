// Platform and device: one "gsgpu" platform with one GPU device; queries report what the device
// (its capability registers, drv::Caps) and the compiler really support.
#include "gsgpu/cl/device_info.h"
#include "gsgpu/cl/entry_points.h"
#include "gsgpu/cl/image.h"
#include "gsgpu/cl/printf.h"

namespace gsgpu::cl {
namespace {

constexpr cl_uint kVendorId = 0x4753;  // "GS"
constexpr size_t kMaxParameterBytes = 1024;
constexpr cl_ulong kMaxConstantBuffer = 64 << 10;

bool images(const Runtime* rt) { return rt->config().image_support; }

bool compiler_available() {
  const auto& t = gsgpu::compiler::toolchain();
  return !t.clang.empty() && !t.llvm_spirv.empty();
}

cl_int string_info(const Runtime* rt, cl_device_info param, size_t size, void* value, size_t* ret, bool* known) {
  *known = true;
  switch (param) {
    case CL_DEVICE_NAME: return put_string("gsgpu", size, value, ret);
    case CL_DEVICE_VENDOR: return put_string("gsvirt", size, value, ret);
    case CL_DRIVER_VERSION: return put_string("1.0", size, value, ret);
    case CL_DEVICE_PROFILE: return put_string("FULL_PROFILE", size, value, ret);
    case CL_DEVICE_VERSION: return put_string(kDeviceVersion, size, value, ret);
    case CL_DEVICE_OPENCL_C_VERSION: return put_string(kDeviceOpenCLCVersion, size, value, ret);
    case CL_DEVICE_EXTENSIONS: return put_string(device_extensions(rt), size, value, ret);
    case CL_DEVICE_BUILT_IN_KERNELS: return put_string("", size, value, ret);
    case CL_DEVICE_IL_VERSION: return put_string("SPIR-V_1.0", size, value, ret);
  }
  *known = false;
  return CL_INVALID_VALUE;
}

cl_int uint_info(Runtime* rt, cl_device_info param, size_t size, void* value, size_t* ret, bool* known) {
  *known = true;
  cl_uint v = 0;
  switch (param) {
    case CL_DEVICE_VENDOR_ID: v = kVendorId; break;
    case CL_DEVICE_MAX_COMPUTE_UNITS: v = rt->caps().shader_cores; break;
    case CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS: v = 3; break;
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_INT:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE:  // cl_khr_fp64
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE:
      v = 1;  // every value is flattened to scalar lanes of a SIMT warp
      break;
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF:
      v = 0;  // no half arithmetic (no cl_khr_fp16; vload/vstore_half need none)
      break;
    case CL_DEVICE_MAX_CLOCK_FREQUENCY: v = rt->clock_mhz(); break;
    case CL_DEVICE_ADDRESS_BITS: v = 64; break;
    case CL_DEVICE_MAX_READ_IMAGE_ARGS: v = images(rt) ? kMaxReadImageArgs : 0; break;
    case CL_DEVICE_MAX_WRITE_IMAGE_ARGS: v = images(rt) ? kMaxWriteImageArgs : 0; break;
    case CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS: v = images(rt) ? kMaxReadWriteImageArgs : 0; break;
    case CL_DEVICE_MAX_SAMPLERS: v = images(rt) ? kMaxSamplers : 0; break;
    case CL_DEVICE_IMAGE_PITCH_ALIGNMENT: v = images(rt) ? kImagePitchAlignment : 0; break;
    case CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT: v = images(rt) ? kImageBaseAddressAlignment : 0; break;
    case CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE:
    case CL_DEVICE_PARTITION_MAX_SUB_DEVICES:
      v = 0;
      break;
    case CL_DEVICE_MEM_BASE_ADDR_ALIGN: v = 1024; break;  // bits: sub-buffer origins, 128 bytes
    case CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE: v = 128; break;
    case CL_DEVICE_MAX_CONSTANT_ARGS: v = 8; break;
    case CL_DEVICE_REFERENCE_COUNT: v = 1; break;
    default: *known = false; return CL_INVALID_VALUE;
  }
  return put_value(v, size, value, ret);
}

cl_int ulong_info(Runtime* rt, cl_device_info param, size_t size, void* value, size_t* ret, bool* known) {
  *known = true;
  cl_ulong v = 0;
  switch (param) {
    case CL_DEVICE_MAX_MEM_ALLOC_SIZE: v = rt->max_alloc(); break;
    case CL_DEVICE_GLOBAL_MEM_SIZE: v = rt->caps().vram_size; break;
    case CL_DEVICE_GLOBAL_MEM_CACHE_SIZE: v = 0; break;
    case CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE: v = kMaxConstantBuffer; break;
    case CL_DEVICE_LOCAL_MEM_SIZE: v = rt->max_local_mem(); break;
    case CL_DEVICE_SINGLE_FP_CONFIG: v = CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN | CL_FP_FMA; break;
    // cl_khr_fp64's required set: IEEE binary64 with denormals, every rounding mode of conversions,
    // correctly rounded fma (the ISA's fp64 block, docs/isa.md §8a).
    case CL_DEVICE_DOUBLE_FP_CONFIG:
      v = CL_FP_FMA | CL_FP_ROUND_TO_NEAREST | CL_FP_ROUND_TO_ZERO | CL_FP_ROUND_TO_INF | CL_FP_INF_NAN | CL_FP_DENORM;
      break;
    case CL_DEVICE_HALF_FP_CONFIG: v = 0; break;
    default: *known = false; return CL_INVALID_VALUE;
  }
  return put_value(v, size, value, ret);
}

cl_int size_info(Runtime* rt, cl_device_info param, size_t size, void* value, size_t* ret, bool* known) {
  *known = true;
  size_t v = 0;
  switch (param) {
    case CL_DEVICE_MAX_WORK_GROUP_SIZE: v = rt->max_work_group_size(); break;
    case CL_DEVICE_MAX_PARAMETER_SIZE: v = kMaxParameterBytes; break;
    case CL_DEVICE_PROFILING_TIMER_RESOLUTION: v = 1; break;  // ns: profiling times are whole ns
    case CL_DEVICE_PRINTF_BUFFER_SIZE: v = kPrintfBufferSize; break;  // per dispatch (printf.cc)
    case CL_DEVICE_IMAGE2D_MAX_WIDTH:
    case CL_DEVICE_IMAGE2D_MAX_HEIGHT: v = images(rt) ? kImage2DMaxSize : 0; break;
    case CL_DEVICE_IMAGE3D_MAX_WIDTH:
    case CL_DEVICE_IMAGE3D_MAX_HEIGHT:
    case CL_DEVICE_IMAGE3D_MAX_DEPTH: v = images(rt) ? kImage3DMaxSize : 0; break;
    case CL_DEVICE_IMAGE_MAX_BUFFER_SIZE: v = images(rt) ? image_max_buffer_pixels(rt) : 0; break;
    case CL_DEVICE_IMAGE_MAX_ARRAY_SIZE: v = images(rt) ? kImageMaxArraySize : 0; break;
    case CL_DEVICE_MAX_WORK_ITEM_SIZES: {
      const size_t group = rt->max_work_group_size();
      const size_t sizes[3] = {group, group, group};
      return put_info(sizes, sizeof sizes, size, value, ret);
    }
    default: *known = false; return CL_INVALID_VALUE;
  }
  return put_value(v, size, value, ret);
}

cl_int misc_info(Runtime* rt, cl_device_id self, cl_device_info param, size_t size, void* value, size_t* ret) {
  switch (param) {
    case CL_DEVICE_TYPE: return put_value(cl_device_type(CL_DEVICE_TYPE_GPU), size, value, ret);
    case CL_DEVICE_IMAGE_SUPPORT: return put_value(cl_bool(images(rt) ? CL_TRUE : CL_FALSE), size, value, ret);
    case CL_DEVICE_ERROR_CORRECTION_SUPPORT:
    case CL_DEVICE_HOST_UNIFIED_MEMORY: return put_value(cl_bool(CL_FALSE), size, value, ret);
    case CL_DEVICE_ENDIAN_LITTLE:
    case CL_DEVICE_AVAILABLE:
    case CL_DEVICE_PREFERRED_INTEROP_USER_SYNC: return put_value(cl_bool(CL_TRUE), size, value, ret);
    case CL_DEVICE_COMPILER_AVAILABLE:
    case CL_DEVICE_LINKER_AVAILABLE:
      return put_value(cl_bool(compiler_available() ? CL_TRUE : CL_FALSE), size, value, ret);
    case CL_DEVICE_GLOBAL_MEM_CACHE_TYPE:
      return put_value(cl_device_mem_cache_type(CL_NONE), size, value, ret);
    case CL_DEVICE_LOCAL_MEM_TYPE: return put_value(cl_device_local_mem_type(CL_LOCAL), size, value, ret);
    case CL_DEVICE_EXECUTION_CAPABILITIES:
      return put_value(cl_device_exec_capabilities(CL_EXEC_KERNEL), size, value, ret);
    case CL_DEVICE_QUEUE_PROPERTIES:
      return put_value(cl_command_queue_properties(CL_QUEUE_PROFILING_ENABLE), size, value, ret);
    case CL_DEVICE_PLATFORM: return put_value(handle_of<cl_platform_id>(rt->platform), size, value, ret);
    case CL_DEVICE_PARENT_DEVICE: return put_value(cl_device_id(nullptr), size, value, ret);
    case CL_DEVICE_PARTITION_PROPERTIES:
    case CL_DEVICE_PARTITION_TYPE: return put_value(cl_device_partition_property(0), size, value, ret);
    case CL_DEVICE_PARTITION_AFFINITY_DOMAIN:
      return put_value(cl_device_affinity_domain(0), size, value, ret);
  }
  (void)self;
  return CL_INVALID_VALUE;
}

std::string platform_string(cl_platform_info param, bool* known) {
  *known = true;
  switch (param) {
    case CL_PLATFORM_PROFILE: return "FULL_PROFILE";
    case CL_PLATFORM_VERSION: return kDeviceVersion;
    case CL_PLATFORM_NAME: return "gsgpu";
    case CL_PLATFORM_VENDOR: return "gsvirt";
    case CL_PLATFORM_EXTENSIONS: return kPlatformExtensions;
    case CL_PLATFORM_ICD_SUFFIX_KHR: return "GSGPU";
  }
  *known = false;
  return {};
}

}  // namespace

cl_int CL_API_CALL gsgpu_clGetPlatformIDs(cl_uint, cl_platform_id*, cl_uint*) {
  // Platforms are found through the executor (Executor::platform), never by a global query.
  log_once("clGetPlatformIDs", "not supported: use Executor::platform()");
  return CL_INVALID_OPERATION;
}

cl_int CL_API_CALL gsgpu_clGetPlatformInfo(cl_platform_id platform, cl_platform_info param, size_t size,
                                           void* value, size_t* ret) {
  auto* p = as<Platform>(platform, Kind::kPlatform);
  if (!p) return CL_INVALID_PLATFORM;
  bool known = false;
  std::string s = platform_string(param, &known);
  if (known) return put_string(s, size, value, ret);
  return opencl3_platform_info(param, size, value, ret, &known);
}

cl_int CL_API_CALL gsgpu_clGetDeviceIDs(cl_platform_id platform, cl_device_type type, cl_uint n,
                                        cl_device_id* devices, cl_uint* count) {
  auto* p = as<Platform>(platform, Kind::kPlatform);
  if (!p) return CL_INVALID_PLATFORM;
  constexpr cl_device_type kKnown = CL_DEVICE_TYPE_DEFAULT | CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU |
                                    CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_CUSTOM;
  if (type != CL_DEVICE_TYPE_ALL && (type == 0 || (type & ~kKnown))) return CL_INVALID_DEVICE_TYPE;
  if ((n == 0 && devices) || (!devices && !count)) return CL_INVALID_VALUE;
  const bool match = type == CL_DEVICE_TYPE_ALL || (type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_DEFAULT));
  if (!match) return CL_DEVICE_NOT_FOUND;
  if (count) *count = 1;
  if (devices) devices[0] = handle_of<cl_device_id>(p->rt->device_object);
  return CL_SUCCESS;
}

cl_int CL_API_CALL gsgpu_clGetDeviceInfo(cl_device_id device, cl_device_info param, size_t size, void* value,
                                         size_t* ret) {
  auto* d = as<Device>(device, Kind::kDevice);
  if (!d) return CL_INVALID_DEVICE;
  bool known = false;
  cl_int err = string_info(d->rt, param, size, value, ret, &known);
  if (!known) err = uint_info(d->rt, param, size, value, ret, &known);
  if (!known) err = ulong_info(d->rt, param, size, value, ret, &known);
  if (!known) err = size_info(d->rt, param, size, value, ret, &known);
  if (!known) err = opencl3_device_info(d->rt, param, size, value, ret, &known);
  if (!known) err = misc_info(d->rt, device, param, size, value, ret);
  return err;
}

cl_int CL_API_CALL gsgpu_clCreateSubDevices(cl_device_id device, const cl_device_partition_property*, cl_uint,
                                            cl_device_id*, cl_uint*) {
  if (!as<Device>(device, Kind::kDevice)) return CL_INVALID_DEVICE;
  return CL_INVALID_VALUE;  // the spec's answer for partition schemes a device does not support
}

cl_int CL_API_CALL gsgpu_clRetainDevice(cl_device_id device) {
  return as<Device>(device, Kind::kDevice) ? CL_SUCCESS : CL_INVALID_DEVICE;
}

cl_int CL_API_CALL gsgpu_clReleaseDevice(cl_device_id device) {
  return as<Device>(device, Kind::kDevice) ? CL_SUCCESS : CL_INVALID_DEVICE;
}

void* CL_API_CALL gsgpu_clGetExtensionFunctionAddressForPlatform(cl_platform_id, const char*) { return nullptr; }

cl_int CL_API_CALL gsgpu_clUnloadPlatformCompiler(cl_platform_id platform) {
  return as<Platform>(platform, Kind::kPlatform) ? CL_SUCCESS : CL_INVALID_PLATFORM;
}

}  // namespace gsgpu::cl
