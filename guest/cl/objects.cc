// The ICD's registry and what happens when an object's last reference goes: the host is told and
// the objects it held are released.
#include "guest/cl/objects.h"

#include <cstdlib>

#include "common/log.h"
#include "guest/cl/connection.h"
#include "guest/cl/deferred_reads.h"
#include "guest/cl/event.h"
#include "guest/cl/user_waits.h"

namespace gsvirt::icd {
namespace {

// Tells the host to drop its object. Batched: nothing waits for a destroy.
void send_destroy(uint64_t guest_id) {
  if (guest_id == 0) return;
  Connection* connection = Connection::get();
  if (!connection) return;
  connection->send_batched("vcDestroyObject", [guest_id](WireWriter& w, bool want) {
    proto::encode_vcDestroyObject(w, want, guest_id);
  });
}

// The registry's destroy hook: the object has left the registry and nothing references it.
void destroy_object(gsvirt::cl::Object* base) {
  auto* object = static_cast<ObjectBase*>(base);
  // Our own queues of the context go first: the host's context must outlive them.
  if (object->kind == Kind::kContext)
    for (auto& transfer : static_cast<cl_context>(object)->transfer_queues) send_destroy(transfer.second);
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
      drop_reads_of_queue(queue);
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
      abandon_user_event(event);
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

}  // namespace

gsvirt::cl::Registry& registry() {
  static auto* r = new gsvirt::cl::Registry(&destroy_object);
  return *r;
}

std::recursive_mutex& icd_mutex() {
  static auto* m = new std::recursive_mutex;
  return *m;
}

cl_platform_id the_platform() {
  static auto* platform = [] {
    auto* p = new _cl_platform_id;
    registry().add(p);
    return p;
  }();
  return platform;
}

void trace_call(const char* api) { log_debug(kDebugGuest, "%s", api); }

cl_int refuse(const char* api, const char* what, cl_int code) {
  log_debug(kDebugGuest, "%s: %s: %s", api, what, cl_error_name(code));
  return code;
}

}  // namespace gsvirt::icd
