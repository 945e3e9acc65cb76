#include "tests/host/vcomp/fake_executor.h"

#include <cstring>
#include <string>
#include <vector>

namespace gsvirt::vcomp::testing {
namespace {

std::atomic<int> g_live{0};
const cl_icd_dispatch* g_table = nullptr;

// Every ICD object starts with its dispatch pointer.
struct FakeObject {
  const cl_icd_dispatch* dispatch;
  int refs = 1;
  size_t size = 0;  // buffers: their size
  // Buffers up to kModelledBytes: their contents. A buffer created without host data holds a
  // stale-memory pattern, as an executor's allocator may hand out.
  std::vector<uint8_t> bytes;
};

constexpr size_t kModelledBytes = 1 << 20;
constexpr uint8_t kStaleByte = 0xa5;

FakeObject g_platform_object{nullptr};
FakeObject g_device_object{nullptr};

template <typename T>
T make(size_t size = 0) {
  ++g_live;
  auto* o = new FakeObject{g_table, 1, size, {}};
  return reinterpret_cast<T>(o);
}

template <typename T>
cl_int release(T handle) {
  auto* o = reinterpret_cast<FakeObject*>(handle);
  if (!o) return CL_INVALID_VALUE;
  if (--o->refs == 0) {
    --g_live;
    delete o;
  }
  return CL_SUCCESS;
}

cl_int put(const void* data, size_t n, size_t size, void* value, size_t* ret) {
  if (ret) *ret = n;
  if (value) {
    if (size < n) return CL_INVALID_VALUE;
    std::memcpy(value, data, n);
  }
  return CL_SUCCESS;
}

cl_int CL_API_CALL get_platform_info(cl_platform_id, cl_platform_info, size_t size, void* value,
                                     size_t* ret) {
  static const char kName[] = "fake platform";
  return put(kName, sizeof kName, size, value, ret);
}

cl_int CL_API_CALL get_device_ids(cl_platform_id, cl_device_type, cl_uint n, cl_device_id* out,
                                  cl_uint* count) {
  if (count) *count = 1;
  if (out && n) out[0] = reinterpret_cast<cl_device_id>(&g_device_object);
  return CL_SUCCESS;
}

cl_int CL_API_CALL get_device_info(cl_device_id device, cl_device_info param, size_t size, void* value,
                                   size_t* ret) {
  if (param == FakeExecutor::kVendorHandleParam) return put(&device, sizeof device, size, value, ret);
  if (param == CL_DEVICE_NAME) {
    static const char kName[] = "fake device";
    return put(kName, sizeof kName, size, value, ret);
  }
  cl_uint v = 1;
  return put(&v, sizeof v, size, value, ret);
}

cl_context CL_API_CALL create_context(const cl_context_properties*, cl_uint n, const cl_device_id*,
                                      void(CL_CALLBACK*)(const char*, const void*, size_t, void*),
                                      void*, cl_int* err) {
  if (err) *err = n ? CL_SUCCESS : CL_INVALID_VALUE;
  return n ? make<cl_context>() : nullptr;
}

cl_command_queue CL_API_CALL create_queue(cl_context, cl_device_id, cl_command_queue_properties,
                                          cl_int* err) {
  if (err) *err = CL_SUCCESS;
  return make<cl_command_queue>();
}

cl_mem CL_API_CALL create_buffer(cl_context, cl_mem_flags flags, size_t size, void* host_ptr, cl_int* err) {
  if (size == 0 || size > (1ull << 30)) {
    if (err) *err = CL_INVALID_BUFFER_SIZE;
    return nullptr;
  }
  if (bool(host_ptr) != bool(flags & (CL_MEM_COPY_HOST_PTR | CL_MEM_USE_HOST_PTR))) {
    if (err) *err = CL_INVALID_HOST_PTR;
    return nullptr;
  }
  if (err) *err = CL_SUCCESS;
  auto m = make<cl_mem>(size);
  auto* o = reinterpret_cast<FakeObject*>(m);
  if (size <= kModelledBytes) {
    if (host_ptr)
      o->bytes.assign(static_cast<const uint8_t*>(host_ptr), static_cast<const uint8_t*>(host_ptr) + size);
    else
      o->bytes.assign(size, kStaleByte);
  }
  return m;
}

cl_int CL_API_CALL read_buffer(cl_command_queue, cl_mem m, cl_bool, size_t offset, size_t size,
                               void* dst, cl_uint, const cl_event*, cl_event* ev) {
  auto* o = reinterpret_cast<FakeObject*>(m);
  if (offset > o->size || size > o->size - offset) return CL_INVALID_VALUE;
  if (o->bytes.empty())
    std::memset(dst, 0x5a, size);
  else
    std::memcpy(dst, o->bytes.data() + offset, size);
  if (ev) *ev = make<cl_event>();
  return CL_SUCCESS;
}

cl_int CL_API_CALL write_buffer(cl_command_queue, cl_mem m, cl_bool, size_t offset, size_t size,
                                const void* src, cl_uint, const cl_event*, cl_event* ev) {
  auto* o = reinterpret_cast<FakeObject*>(m);
  if (offset > o->size || size > o->size - offset) return CL_INVALID_VALUE;
  if (!o->bytes.empty()) std::memcpy(o->bytes.data() + offset, src, size);
  if (ev) *ev = make<cl_event>();
  return CL_SUCCESS;
}

// CL_QUEUE_DEVICE_DEFAULT names a handle, as in a real driver.
cl_int CL_API_CALL get_queue_info(cl_command_queue queue, cl_command_queue_info param, size_t size, void* value,
                                  size_t* ret) {
  if (param == CL_QUEUE_DEVICE_DEFAULT) return put(&queue, sizeof queue, size, value, ret);
  cl_uint v = 1;
  return put(&v, sizeof v, size, value, ret);
}

cl_event CL_API_CALL create_user_event(cl_context, cl_int* err) {
  if (err) *err = CL_SUCCESS;
  return make<cl_event>();
}

cl_int CL_API_CALL finish(cl_command_queue) { return CL_SUCCESS; }

// Creations that are not modelled fail cleanly (they return a pointer, so the generic
// int-returning stub below would not do).
template <typename T>
T refuse(cl_int* err) {
  if (err) *err = CL_INVALID_OPERATION;
  return nullptr;
}
cl_context CL_API_CALL create_context_from_type(const cl_context_properties*, cl_device_type,
    void(CL_CALLBACK*)(const char*, const void*, size_t, void*), void*, cl_int* err) {
  return refuse<cl_context>(err);
}
cl_mem CL_API_CALL create_sub_buffer(cl_mem, cl_mem_flags, cl_buffer_create_type, const void*,
                                     cl_int* err) {
  return refuse<cl_mem>(err);
}
cl_mem CL_API_CALL create_image(cl_context, cl_mem_flags, const cl_image_format*,
                                const cl_image_desc*, void*, cl_int* err) {
  return refuse<cl_mem>(err);
}
cl_sampler CL_API_CALL create_sampler(cl_context, cl_bool, cl_addressing_mode, cl_filter_mode,
                                      cl_int* err) {
  return refuse<cl_sampler>(err);
}
cl_program CL_API_CALL create_program_with_source(cl_context, cl_uint, const char**,
                                                  const size_t*, cl_int* err) {
  return refuse<cl_program>(err);
}
cl_program CL_API_CALL create_program_with_binary(cl_context, cl_uint, const cl_device_id*,
    const size_t*, const unsigned char**, cl_int*, cl_int* err) {
  return refuse<cl_program>(err);
}
cl_program CL_API_CALL create_program_with_il(cl_context, const void*, size_t, cl_int* err) {
  return refuse<cl_program>(err);
}
cl_program CL_API_CALL create_program_with_builtin(cl_context, cl_uint, const cl_device_id*,
                                                   const char*, cl_int* err) {
  return refuse<cl_program>(err);
}
cl_program CL_API_CALL link_program(cl_context, cl_uint, const cl_device_id*, const char*, cl_uint,
    const cl_program*, void(CL_CALLBACK*)(cl_program, void*), void*, cl_int* err) {
  return refuse<cl_program>(err);
}
cl_kernel CL_API_CALL create_kernel(cl_program, const char*, cl_int* err) {
  return refuse<cl_kernel>(err);
}

// Anything not modelled answers with an error rather than crashing on a null entry.
template <typename... A>
cl_int CL_API_CALL unsupported(A...) {
  return CL_INVALID_OPERATION;
}

}  // namespace

FakeExecutor::FakeExecutor() {
  // Fill every entry with a generic "unsupported" first: the table is an array of pointers.
  using Fn = cl_int(CL_API_CALL*)();
  Fn* slots = reinterpret_cast<Fn*>(&table_);
  for (size_t i = 0; i < sizeof(table_) / sizeof(Fn); ++i) slots[i] = reinterpret_cast<Fn>(&unsupported<>);
  table_.clGetPlatformInfo = get_platform_info;
  table_.clGetDeviceIDs = get_device_ids;
  table_.clGetDeviceInfo = get_device_info;
  table_.clCreateContext = create_context;
  table_.clReleaseContext = release<cl_context>;
  table_.clCreateCommandQueue = create_queue;
  table_.clReleaseCommandQueue = release<cl_command_queue>;
  table_.clGetCommandQueueInfo = get_queue_info;
  table_.clCreateBuffer = create_buffer;
  table_.clReleaseMemObject = release<cl_mem>;
  table_.clEnqueueReadBuffer = read_buffer;
  table_.clEnqueueWriteBuffer = write_buffer;
  table_.clCreateUserEvent = create_user_event;
  table_.clReleaseEvent = release<cl_event>;
  table_.clFinish = finish;
  table_.clCreateContextFromType = create_context_from_type;
  table_.clCreateSubBuffer = create_sub_buffer;
  table_.clCreateImage = create_image;
  table_.clCreateSampler = create_sampler;
  table_.clCreateProgramWithSource = create_program_with_source;
  table_.clCreateProgramWithBinary = create_program_with_binary;
  table_.clCreateProgramWithIL = create_program_with_il;
  table_.clCreateProgramWithBuiltInKernels = create_program_with_builtin;
  table_.clLinkProgram = link_program;
  table_.clCreateKernel = create_kernel;
  g_table = &table_;
  g_platform_object.dispatch = &table_;
  g_device_object.dispatch = &table_;
  platform_ = reinterpret_cast<cl_platform_id>(&g_platform_object);
}

int FakeExecutor::live_objects() { return g_live.load(); }

}  // namespace gsvirt::vcomp::testing
