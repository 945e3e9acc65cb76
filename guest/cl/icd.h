// The gsvirt OpenCL ICD: guest-side object model shared by every object family.
//
// Every OpenCL handle we hand out points at one of the structs below, each built on the object base
// every OpenCL implementation in the tree shares (common/cl/object.h: the dispatch pointer the
// loader reads first, the kind, the application's and the internal reference counts). ObjectBase
// adds what API remoting needs: the id the host bound to its copy of the object.
//
// All state is protected by one process-wide recursive mutex (IcdLock): OpenCL is thread-safe,
// every call may reach the single host connection, and callbacks invoked while it is held may call
// back into the API on the same thread.
#pragma once

#include <CL/cl.h>
#include <CL/cl_icd.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "common/cl/object.h"

namespace gsvirt::icd {

using gsvirt::cl::Kind;

cl_icd_dispatch* dispatch_table();

struct ObjectBase : gsvirt::cl::Object {
  explicit ObjectBase(Kind k) : Object(dispatch_table(), k) {}
  uint64_t guest_id = 0;  // id the host bound to its object (0: the platform)
};

// The process-wide lock. Recursive: callbacks run under it may re-enter the API.
std::recursive_mutex& icd_mutex();

// Holds icd_mutex() for one API call and counts how often this thread holds it, so that a wait for
// another thread (user_waits.cc) can release it, and can tell when it cannot (a nested call from a
// callback run under the lock).
class IcdLock {
 public:
  explicit IcdLock(std::recursive_mutex& mutex) : mutex_(mutex) { lock(); }
  ~IcdLock() { unlock(); }
  IcdLock(const IcdLock&) = delete;
  IcdLock& operator=(const IcdLock&) = delete;
  // BasicLockable, for std::condition_variable_any.
  void lock() {
    mutex_.lock();
    ++depth();
  }
  void unlock() {
    --depth();
    mutex_.unlock();
  }
  // How many IcdLocks this thread holds now.
  static int& depth() {
    thread_local int held = 0;
    return held;
  }

 private:
  std::recursive_mutex& mutex_;
};

// What the guest knows of one user event's status. Shared by the event and by every command and
// queue that may wait for it, so a wait can see it set even after the app released the event.
struct UserEventState {
  cl_int status = CL_SUBMITTED;  // CL_COMPLETE or an error once set (or abandoned)
  bool set() const { return status <= 0; }
};
// The user events a command (or a queue's next command) may wait for, directly or through wait
// lists and queue order; set ones are dropped as they are met (user_waits.cc).
using UserWaits = std::vector<std::shared_ptr<UserEventState>>;

}  // namespace gsvirt::icd

struct _cl_platform_id : gsvirt::icd::ObjectBase {
  _cl_platform_id() : ObjectBase(gsvirt::icd::Kind::kPlatform) {}
};

struct _cl_device_id : gsvirt::icd::ObjectBase {
  _cl_device_id() : ObjectBase(gsvirt::icd::Kind::kDevice) {}
  cl_device_type type = 0;  // queried once from the host; clGetDeviceIDs filters on it locally
  // CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT, asked once (-1 until then): lets a batched NDRange
  // report a local size that does not divide the global size itself.
  int non_uniform_work_groups = -1;
};

struct ContextCallback {
  void(CL_CALLBACK* fn)(cl_context, void*);
  void* user_data;
};

struct _cl_context : gsvirt::icd::ObjectBase {
  _cl_context() : ObjectBase(gsvirt::icd::Kind::kContext) {}
  std::vector<cl_device_id> devices;
  std::vector<cl_context_properties> properties;  // as the app gave them (terminated), or empty
  void(CL_CALLBACK* pfn_notify)(const char*, const void*, size_t, void*) = nullptr;
  void* notify_user_data = nullptr;
  std::vector<ContextCallback> destructor_callbacks;
  // Host queues of our own, one per device, that deferred reads fetch their bytes on
  // (deferred_reads.h); destroyed with the context.
  std::vector<std::pair<cl_device_id, uint64_t>> transfer_queues;
};

struct _cl_command_queue : gsvirt::icd::ObjectBase {
  _cl_command_queue() : ObjectBase(gsvirt::icd::Kind::kQueue) {}
  cl_context context = nullptr;
  cl_device_id device = nullptr;
  cl_command_queue_properties properties = 0;
  std::vector<cl_queue_properties> properties_array;  // clCreateCommandQueueWithProperties input
  std::vector<cl_event> events_with_callbacks;         // completed locally at clFinish
  gsvirt::icd::UserWaits waits_on_user;  // of its commands so far: the next command waits for them too
  uint64_t commands_enqueued = 0;        // its commands so far, counted by note_enqueued
};

// A region of a mem object handed to the app by clEnqueueMap*.
struct Mapping {
  void* pointer = nullptr;
  bool owned = false;  // allocated by us (freed at unmap); false for USE_HOST_PTR regions
  cl_map_flags flags = 0;
  size_t offset = 0, size = 0;               // buffers
  size_t origin[3] = {}, region[3] = {};     // images
  size_t row_pitch = 0, slice_pitch = 0;     // images: packed layout of `pointer`
};

struct MemCallback {
  void(CL_CALLBACK* fn)(cl_mem, void*);
  void* user_data;
};

struct _cl_mem : gsvirt::icd::ObjectBase {
  _cl_mem() : ObjectBase(gsvirt::icd::Kind::kMem) {}
  cl_context context = nullptr;
  cl_mem_object_type type = CL_MEM_OBJECT_BUFFER;
  cl_mem_flags flags = 0;  // as the app gave them (USE_HOST_PTR is kept here, sent as COPY)
  size_t size = 0;         // buffers; images: 0 (asked from the host)
  void* host_ptr = nullptr;
  cl_mem parent = nullptr;  // sub-buffers: the buffer; 1D buffer images: the buffer
  size_t origin = 0;        // sub-buffers
  cl_image_format format = {};
  cl_image_desc desc = {};
  size_t element_size = 0;  // images
  std::vector<Mapping> mappings;
  std::vector<MemCallback> destructor_callbacks;
  // clCreate*WithProperties's list as given, 0-terminated (empty otherwise): CL_MEM_PROPERTIES.
  std::vector<cl_mem_properties> properties;
};

struct _cl_sampler : gsvirt::icd::ObjectBase {
  _cl_sampler() : ObjectBase(gsvirt::icd::Kind::kSampler) {}
  cl_context context = nullptr;
  cl_bool normalized_coords = CL_TRUE;
  cl_addressing_mode addressing_mode = CL_ADDRESS_CLAMP;
  cl_filter_mode filter_mode = CL_FILTER_NEAREST;
  std::vector<cl_sampler_properties> properties;
};

struct _cl_program : gsvirt::icd::ObjectBase {
  _cl_program() : ObjectBase(gsvirt::icd::Kind::kProgram) {}
  cl_context context = nullptr;
  std::vector<cl_device_id> devices;
  bool has_source = false;
  std::string source;  // answered locally for CL_PROGRAM_SOURCE
};

// What clGetKernelArgInfo told about one argument (when the host had the information).
struct KernelArgInfo {
  bool known = false;
  cl_kernel_arg_address_qualifier address = CL_KERNEL_ARG_ADDRESS_PRIVATE;
  std::string type_name;
};

struct _cl_kernel : gsvirt::icd::ObjectBase {
  _cl_kernel() : ObjectBase(gsvirt::icd::Kind::kKernel) {}
  cl_program program = nullptr;
  cl_uint num_args = 0;
  bool num_args_known = false;
  std::vector<bool> args_set;  // lets clEnqueueNDRangeKernel report CL_INVALID_KERNEL_ARGS itself
  std::vector<KernelArgInfo> arg_info;  // lets clSetKernelArg report argument errors itself
  // Per argument, the (arg_size, wire kind) of the last set the host accepted; a set that repeats
  // it is batched, any other waits for the host's verdict when arg_info is unknown.
  std::vector<std::pair<size_t, uint32_t>> accepted_shape;
  // CL_KERNEL_COMPILE_WORK_GROUP_SIZE (0s: none), asked once: a batched NDRange with another local
  // size is refused here rather than deferred.
  bool required_local_known = false;
  size_t required_local[3] = {};
};

struct EventCallback {
  cl_int trigger_status;
  void(CL_CALLBACK* fn)(cl_event, cl_int, void*);
  void* user_data;
};

struct _cl_event : gsvirt::icd::ObjectBase {
  _cl_event() : ObjectBase(gsvirt::icd::Kind::kEvent) {}
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;  // nullptr for user events
  cl_command_type command_type = 0;
  cl_int observed_status = CL_QUEUED;  // the most advanced status the guest has seen
  bool user_status_set = false;
  std::vector<EventCallback> callbacks;
  std::shared_ptr<gsvirt::icd::UserEventState> user_state;  // user events only
  gsvirt::icd::UserWaits waits_on_user;        // commands: user events their command may wait for
  uint64_t queue_seq = 0;                      // commands: its place in its queue (commands_enqueued)
};
