// Live-object registry, reference counts, object destruction, error names and info helpers.
#include "guest/cl/objects.h"

#include <algorithm>
#include <cstdlib>
#include <unordered_map>

#include "common/log.h"
#include "guest/cl/connection.h"
#include "guest/cl/event.h"

namespace gsvirt::icd {
namespace {

std::unordered_map<const void*, Kind>& registry() {
  static auto* r = new std::unordered_map<const void*, Kind>;
  return *r;
}

void unregister_object(ObjectBase* object) { registry().erase(object); }

// Tells the host to drop its object. Batched: nothing waits for a destroy.
void send_destroy(uint64_t guest_id) {
  if (guest_id == 0) return;
  Connection* connection = Connection::get();
  if (!connection) return;
  connection->send_batched("vcDestroyObject", [guest_id](WireWriter& w, bool want) {
    proto::encode_vcDestroyObject(w, want, guest_id);
  });
}

void destroy_object(ObjectBase* object) {
  unregister_object(object);
  send_destroy(object->guest_id);
  switch (object->kind) {
    case Kind::kContext: {
      auto* context = static_cast<cl_context>(object);
      // Destructor callbacks run in reverse order of registration (clSetContextDestructorCallback).
      for (auto it = context->destructor_callbacks.rbegin(); it != context->destructor_callbacks.rend(); ++it)
        it->fn(context, it->user_data);
      delete context;
      break;
    }
    case Kind::kQueue: {
      auto* queue = static_cast<cl_command_queue>(object);
      cl_context context = queue->context;
      delete queue;
      release_internal(context);
      break;
    }
    case Kind::kMem: {
      auto* mem = static_cast<cl_mem>(object);
      for (auto& mapping : mem->mappings)
        if (mapping.owned) std::free(mapping.pointer);
      for (auto it = mem->destructor_callbacks.rbegin(); it != mem->destructor_callbacks.rend(); ++it)
        it->fn(mem, it->user_data);
      cl_context context = mem->context;
      cl_mem parent = mem->parent;
      delete mem;
      if (parent) release_internal(parent);
      release_internal(context);
      break;
    }
    case Kind::kSampler: {
      auto* sampler = static_cast<cl_sampler>(object);
      cl_context context = sampler->context;
      delete sampler;
      release_internal(context);
      break;
    }
    case Kind::kProgram: {
      auto* program = static_cast<cl_program>(object);
      cl_context context = program->context;
      delete program;
      release_internal(context);
      break;
    }
    case Kind::kKernel: {
      auto* kernel = static_cast<cl_kernel>(object);
      cl_program program = kernel->program;
      delete kernel;
      release_internal(program);
      break;
    }
    case Kind::kEvent: {
      auto* event = static_cast<cl_event>(object);
      forget_user_event(event);
      cl_context context = event->context;
      cl_command_queue queue = event->queue;
      delete event;
      if (queue) release_internal(queue);
      release_internal(context);
      break;
    }
    case Kind::kPlatform:
    case Kind::kDevice:
      break;  // never destroyed: root devices live as long as the process
  }
}

void destroy_if_unreferenced(ObjectBase* object) {
  if (object->app_refs == 0 && object->internal_refs == 0) destroy_object(object);
}

bool refcounted(const ObjectBase* object) {
  return object->kind != Kind::kPlatform && object->kind != Kind::kDevice;
}

}  // namespace

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::kPlatform: return "platform";
    case Kind::kDevice: return "device";
    case Kind::kContext: return "context";
    case Kind::kQueue: return "command queue";
    case Kind::kMem: return "mem object";
    case Kind::kSampler: return "sampler";
    case Kind::kProgram: return "program";
    case Kind::kKernel: return "kernel";
    case Kind::kEvent: return "event";
  }
  return "object";
}

std::recursive_mutex& icd_mutex() {
  static auto* m = new std::recursive_mutex;
  return *m;
}

void register_object(ObjectBase* object) { registry()[object] = object->kind; }

bool is_live(const void* handle, Kind kind) {
  auto it = registry().find(handle);
  return it != registry().end() && it->second == kind;
}

size_t live_object_count(Kind kind) {
  return size_t(std::count_if(registry().begin(), registry().end(), [kind](auto& e) { return e.second == kind; }));
}

void retain_internal(ObjectBase* object) {
  if (refcounted(object)) ++object->internal_refs;
}

void release_internal(ObjectBase* object) {
  if (!refcounted(object) || object->internal_refs == 0) return;
  --object->internal_refs;
  destroy_if_unreferenced(object);
}

cl_int retain_app(ObjectBase* object) {
  if (refcounted(object)) ++object->app_refs;
  return CL_SUCCESS;
}

cl_int release_app(ObjectBase* object) {
  if (!refcounted(object)) return CL_SUCCESS;
  if (object->app_refs == 0) return CL_INVALID_OPERATION;
  --object->app_refs;
  destroy_if_unreferenced(object);
  return CL_SUCCESS;
}

cl_platform_id the_platform() {
  static auto* platform = [] {
    auto* p = new _cl_platform_id;
    register_object(p);
    return p;
  }();
  return platform;
}

void trace_call(const char* api) { log_debug(kDebugGuest, "%s", api); }

cl_int refuse(const char* api, const char* what, cl_int code) {
  log_debug(kDebugGuest, "%s: %s: %s", api, what, cl_error_name(code));
  return code;
}

cl_int write_info(size_t value_size, void* value, size_t* size_ret, const void* data, size_t size) {
  if (value) {
    if (value_size < size) return CL_INVALID_VALUE;
    if (size) std::memcpy(value, data, size);
  }
  if (size_ret) *size_ret = size;
  return CL_SUCCESS;
}

cl_int write_info_string(size_t value_size, void* value, size_t* size_ret, std::string_view s) {
  std::string terminated(s);
  return write_info(value_size, value, size_ret, terminated.c_str(), terminated.size() + 1);
}

const char* cl_error_name(cl_int code) {
  switch (code) {
#define NAME(c) case c: return #c;
    NAME(CL_SUCCESS) NAME(CL_DEVICE_NOT_FOUND) NAME(CL_DEVICE_NOT_AVAILABLE) NAME(CL_COMPILER_NOT_AVAILABLE)
    NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE) NAME(CL_OUT_OF_RESOURCES) NAME(CL_OUT_OF_HOST_MEMORY)
    NAME(CL_PROFILING_INFO_NOT_AVAILABLE) NAME(CL_MEM_COPY_OVERLAP) NAME(CL_IMAGE_FORMAT_MISMATCH)
    NAME(CL_IMAGE_FORMAT_NOT_SUPPORTED) NAME(CL_BUILD_PROGRAM_FAILURE) NAME(CL_MAP_FAILURE)
    NAME(CL_MISALIGNED_SUB_BUFFER_OFFSET) NAME(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    NAME(CL_COMPILE_PROGRAM_FAILURE) NAME(CL_LINKER_NOT_AVAILABLE) NAME(CL_LINK_PROGRAM_FAILURE)
    NAME(CL_DEVICE_PARTITION_FAILED) NAME(CL_KERNEL_ARG_INFO_NOT_AVAILABLE) NAME(CL_INVALID_VALUE)
    NAME(CL_INVALID_DEVICE_TYPE) NAME(CL_INVALID_PLATFORM) NAME(CL_INVALID_DEVICE) NAME(CL_INVALID_CONTEXT)
    NAME(CL_INVALID_QUEUE_PROPERTIES) NAME(CL_INVALID_COMMAND_QUEUE) NAME(CL_INVALID_HOST_PTR)
    NAME(CL_INVALID_MEM_OBJECT) NAME(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR) NAME(CL_INVALID_IMAGE_SIZE)
    NAME(CL_INVALID_SAMPLER) NAME(CL_INVALID_BINARY) NAME(CL_INVALID_BUILD_OPTIONS) NAME(CL_INVALID_PROGRAM)
    NAME(CL_INVALID_PROGRAM_EXECUTABLE) NAME(CL_INVALID_KERNEL_NAME) NAME(CL_INVALID_KERNEL_DEFINITION)
    NAME(CL_INVALID_KERNEL) NAME(CL_INVALID_ARG_INDEX) NAME(CL_INVALID_ARG_VALUE) NAME(CL_INVALID_ARG_SIZE)
    NAME(CL_INVALID_KERNEL_ARGS) NAME(CL_INVALID_WORK_DIMENSION) NAME(CL_INVALID_WORK_GROUP_SIZE)
    NAME(CL_INVALID_WORK_ITEM_SIZE) NAME(CL_INVALID_GLOBAL_OFFSET) NAME(CL_INVALID_EVENT_WAIT_LIST)
    NAME(CL_INVALID_EVENT) NAME(CL_INVALID_OPERATION) NAME(CL_INVALID_GL_OBJECT) NAME(CL_INVALID_BUFFER_SIZE)
    NAME(CL_INVALID_MIP_LEVEL) NAME(CL_INVALID_GLOBAL_WORK_SIZE) NAME(CL_INVALID_PROPERTY)
    NAME(CL_INVALID_IMAGE_DESCRIPTOR) NAME(CL_INVALID_COMPILER_OPTIONS) NAME(CL_INVALID_LINKER_OPTIONS)
    NAME(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef NAME
    default: return "CL_ERROR";
  }
}

}  // namespace gsvirt::icd
