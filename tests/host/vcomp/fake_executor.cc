#include "tests/host/vcomp/fake_executor.h"

#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace gsvirt::vcomp::testing {
namespace {

std::atomic<int> g_live{0};
std::atomic<int> g_bogus_handles{0};
std::atomic<int> g_handles_as_values{0};
const cl_icd_dispatch* g_table = nullptr;

// Every ICD object starts with its dispatch pointer.
struct FakeObject {
  const cl_icd_dispatch* dispatch;
  int refs = 1;
  size_t size = 0;  // buffers: their size
  // Buffers up to kModelledBytes: their contents. A buffer created without host data holds a
  // stale-memory pattern, as an executor's allocator may hand out.
  std::vector<uint8_t> bytes;
  // User events: whether one is, and whether its status was set.
  bool user = false;
  bool status_set = false;
};

std::atomic<int> g_blocking_waits_on_user{0};
std::atomic<int> g_unset_user_events_released{0};

// Whether a wait for these events would block until the application sets a user event: a real
// driver would block the calling thread (the server) until then. The fake counts it instead.
bool waits_on_unset_user_event(cl_uint count, const cl_event* events) {
  for (cl_uint i = 0; events && i < count; ++i) {
    auto* o = reinterpret_cast<const FakeObject*>(events[i]);
    if (o->user && !o->status_set) return true;
  }
  return false;
}

constexpr size_t kModelledBytes = 1 << 20;
constexpr uint8_t kStaleByte = 0xa5;

FakeObject g_platform_object{nullptr};
FakeObject g_device_object{nullptr};

// Every live object, so that the fake driver can tell a handle from arbitrary bytes.
std::mutex g_objects_mutex;
std::set<const void*> g_objects;

bool is_live_object(const void* p) {
  std::lock_guard lock(g_objects_mutex);
  return g_objects.count(p) != 0;
}

template <typename T>
T make(size_t size = 0) {
  ++g_live;
  auto* o = new FakeObject{g_table, 1, size, {}};
  {
    std::lock_guard lock(g_objects_mutex);
    g_objects.insert(o);
  }
  return reinterpret_cast<T>(o);
}

template <typename T>
cl_int release(T handle) {
  auto* o = reinterpret_cast<FakeObject*>(handle);
  if (!o) return CL_INVALID_VALUE;
  if (--o->refs == 0) {
    --g_live;
    // A real driver keeps the commands behind an unset user event, and what they hold, forever.
    if (o->user && !o->status_set) ++g_unset_user_events_released;
    std::lock_guard lock(g_objects_mutex);
    g_objects.erase(o);
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

cl_int CL_API_CALL read_buffer(cl_command_queue, cl_mem m, cl_bool blocking, size_t offset, size_t size,
                               void* dst, cl_uint wait_count, const cl_event* waits, cl_event* ev) {
  if (blocking && waits_on_unset_user_event(wait_count, waits)) ++g_blocking_waits_on_user;
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

cl_int CL_API_CALL get_mem_info(cl_mem m, cl_mem_info param, size_t size, void* value, size_t* ret) {
  if (param == CL_MEM_TYPE) {
    cl_mem_object_type type = CL_MEM_OBJECT_BUFFER;  // the fake has buffers only
    return put(&type, sizeof type, size, value, ret);
  }
  if (param == CL_MEM_SIZE) return put(&reinterpret_cast<FakeObject*>(m)->size, sizeof(size_t), size, value, ret);
  return CL_INVALID_VALUE;
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
  cl_event e = make<cl_event>();
  reinterpret_cast<FakeObject*>(e)->user = true;
  return e;
}

cl_int CL_API_CALL set_user_event_status(cl_event e, cl_int status) {
  auto* o = reinterpret_cast<FakeObject*>(e);
  if (!o->user) return CL_INVALID_EVENT;
  if (status > 0) return CL_INVALID_VALUE;
  if (o->status_set) return CL_INVALID_OPERATION;
  o->status_set = true;
  return CL_SUCCESS;
}

cl_int CL_API_CALL wait_for_events(cl_uint count, const cl_event* events) {
  if (waits_on_unset_user_event(count, events)) ++g_blocking_waits_on_user;
  return CL_SUCCESS;
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
  if (err) *err = CL_SUCCESS;
  return make<cl_program>();
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
  if (err) *err = CL_SUCCESS;
  return make<cl_kernel>();
}

cl_kernel CL_API_CALL clone_kernel(cl_kernel, cl_int* err) {
  if (err) *err = CL_SUCCESS;
  return make<cl_kernel>();
}

cl_int CL_API_CALL build_program(cl_program, cl_uint, const cl_device_id*, const char*,
                                 void(CL_CALLBACK*)(cl_program, void*), void*) {
  return CL_SUCCESS;
}

// Programs keep no source (the fake compiles nothing, so vcomp does not preprocess for it).
cl_int CL_API_CALL get_program_info(cl_program program, cl_program_info param, size_t size, void* value,
                                    size_t* ret) {
  if (param == CL_PROGRAM_REFERENCE_COUNT) {
    cl_uint refs = cl_uint(reinterpret_cast<FakeObject*>(program)->refs);
    return put(&refs, sizeof refs, size, value, ret);
  }
  if (param == CL_PROGRAM_SOURCE) return put("", 1, size, value, ret);
  return CL_INVALID_VALUE;
}

// Every kernel has the signature of FakeExecutor::kKernelSource.
struct FakeArg {
  cl_kernel_arg_address_qualifier address;
  const char* type;
};
constexpr FakeArg kFakeArgs[] = {{CL_KERNEL_ARG_ADDRESS_GLOBAL, "float*"},
                                 {CL_KERNEL_ARG_ADDRESS_PRIVATE, "ulong"},
                                 {CL_KERNEL_ARG_ADDRESS_LOCAL, "float*"},
                                 {CL_KERNEL_ARG_ADDRESS_PRIVATE, "sampler_t"}};
constexpr cl_uint kFakeArgCount = sizeof kFakeArgs / sizeof kFakeArgs[0];

cl_int CL_API_CALL get_kernel_info(cl_kernel, cl_kernel_info param, size_t size, void* value, size_t* ret) {
  if (param != CL_KERNEL_NUM_ARGS) return CL_INVALID_VALUE;
  return put(&kFakeArgCount, sizeof kFakeArgCount, size, value, ret);
}

cl_int CL_API_CALL get_kernel_arg_info(cl_kernel, cl_uint index, cl_kernel_arg_info param, size_t size,
                                       void* value, size_t* ret) {
  if (index >= kFakeArgCount) return CL_INVALID_ARG_INDEX;
  const FakeArg& arg = kFakeArgs[index];
  switch (param) {
    case CL_KERNEL_ARG_ADDRESS_QUALIFIER: return put(&arg.address, sizeof arg.address, size, value, ret);
    case CL_KERNEL_ARG_TYPE_NAME: return put(arg.type, std::strlen(arg.type) + 1, size, value, ret);
    case CL_KERNEL_ARG_TYPE_QUALIFIER: {
      cl_kernel_arg_type_qualifier none = CL_KERNEL_ARG_TYPE_NONE;
      return put(&none, sizeof none, size, value, ret);
    }
  }
  return CL_INVALID_VALUE;
}

// A driver that trusts its caller, as real ones do: object arguments are read as handles and
// would be dereferenced. Instead of crashing, it counts the bytes that are not a live handle, and
// a by-value argument whose bytes are a live handle (a host address given to a kernel).
cl_int CL_API_CALL set_kernel_arg(cl_kernel, cl_uint index, size_t size, const void* value) {
  if (index >= kFakeArgCount) return CL_INVALID_ARG_INDEX;
  const FakeArg& arg = kFakeArgs[index];
  if (arg.address == CL_KERNEL_ARG_ADDRESS_LOCAL) return value ? CL_INVALID_ARG_VALUE : CL_SUCCESS;
  const bool object = arg.address == CL_KERNEL_ARG_ADDRESS_GLOBAL || std::strcmp(arg.type, "sampler_t") == 0;
  if (size != sizeof(void*)) return CL_INVALID_ARG_SIZE;
  void* handle = nullptr;
  if (value) std::memcpy(&handle, value, sizeof handle);
  if (object) {
    if (handle && !is_live_object(handle)) {
      ++g_bogus_handles;
      return CL_INVALID_MEM_OBJECT;
    }
    return CL_SUCCESS;
  }
  if (!value) return CL_INVALID_ARG_VALUE;
  if (handle && is_live_object(handle)) ++g_handles_as_values;
  return CL_SUCCESS;
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
  table_.clGetMemObjectInfo = get_mem_info;
  table_.clEnqueueReadBuffer = read_buffer;
  table_.clEnqueueWriteBuffer = write_buffer;
  table_.clCreateUserEvent = create_user_event;
  table_.clSetUserEventStatus = set_user_event_status;
  table_.clWaitForEvents = wait_for_events;
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
  table_.clCloneKernel = clone_kernel;
  table_.clReleaseKernel = release<cl_kernel>;
  table_.clReleaseProgram = release<cl_program>;
  table_.clBuildProgram = build_program;
  table_.clGetProgramInfo = get_program_info;
  table_.clGetKernelInfo = get_kernel_info;
  table_.clGetKernelArgInfo = get_kernel_arg_info;
  table_.clSetKernelArg = set_kernel_arg;
  g_table = &table_;
  g_platform_object.dispatch = &table_;
  g_device_object.dispatch = &table_;
  platform_ = reinterpret_cast<cl_platform_id>(&g_platform_object);
}

int FakeExecutor::live_objects() { return g_live.load(); }
int FakeExecutor::blocking_waits_on_user() { return g_blocking_waits_on_user.load(); }
int FakeExecutor::unset_user_events_released() { return g_unset_user_events_released.load(); }
int FakeExecutor::bogus_handles() { return g_bogus_handles.load(); }
int FakeExecutor::handles_as_values() { return g_handles_as_values.load(); }

}  // namespace gsvirt::vcomp::testing
