// The interface between the renderer core and a context type (vcomp, gsgpu_ctx).
//
// Shaped like virglrenderer's `struct virgl_context`: the core owns resources and fences and routes
// submissions; a context type decodes the bytes. One Context per guest context, created by the
// factory registered for its capset id.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace gsvirt::renderer {

// A resource as the renderer core holds it. Blob resources created by the host (memfd) have a
// contiguous host mapping; iov-backed resources have only `iov`.
struct Resource {
  uint32_t id = 0;
  uint64_t size = 0;
  uint8_t* host_map = nullptr;  // contiguous mapping of the whole resource, or nullptr
  std::vector<iovec> iov;       // guest pages attached with attach_iov (may be empty)
  int fd = -1;                  // memfd backing host-allocated blobs, owned by the core
};

class Context {
 public:
  virtual ~Context() = default;

  // Decodes and executes one command buffer (a copy the core made of guest memory). Returns 0, or
  // a negative errno when the stream was rejected; after a fatal decode error every later submit
  // fails too (sticky), and `fatal()` reports it.
  virtual int submit_cmd(const void* data, size_t size) = 0;
  virtual bool fatal() const = 0;

  // The core attaches a resource before the guest may name it in commands; detach happens on
  // unref or when the guest detaches it. A context must drop every pointer into the resource in
  // detach_resource.
  virtual void attach_resource(std::shared_ptr<Resource> resource) = 0;
  // Asked before the first attach_resource of a resource: a negative errno refuses it (the
  // attach fails with that error). A context that runs in a worker process can take only
  // resources with a memfd (worker_context.h).
  virtual int check_attach(const Resource& resource) {
    (void)resource;
    return 0;
  }
  virtual void detach_resource(uint32_t resource_id) = 0;

  // The guest created fence `fence_id` on `ring_idx` (virglrenderer's submit_fence): it stands
  // behind everything submitted on that ring so far. Returns true when that work is already
  // complete (a synchronous context, or an idle ring); the core then retires the fence at once.
  // Otherwise the context keeps the id with the last submission on the ring and reports exactly
  // that id through ContextCreateInfo::retire_fence once the submission has retired, the fences of
  // a ring in the order they were created. Fence ids are the guest's (a VMM's fence context, the
  // vtest server's counter): a context never derives them from its own sequence numbers.
  virtual bool submit_fence(uint32_t ring_idx, uint64_t fence_id) {
    (void)ring_idx;
    (void)fence_id;
    return true;
  }
  // Called by the core's poll() while the context has fences pending: a context that can only
  // learn of completion when asked checks here and reports through the retire callback. Contexts
  // that report from their own thread need not implement it.
  virtual void retire_fences() {}
};

// Retire callback handed to a context at creation (ring_idx, fence_id).
using FenceRetireFn = void (*)(void* cookie, uint32_t ctx_id, uint32_t ring_idx, uint64_t fence_id);

struct ContextCreateInfo {
  uint32_t ctx_id = 0;
  uint32_t capset_id = 0;
  const char* debug_name = nullptr;
  // Contexts with asynchronous work report a fence handed to submit_fence() through this (from any
  // thread, or from retire_fences()); the core retires every fence of that ring up to and
  // including `fence_id`. May be null for contexts whose submit_fence() always returns true.
  FenceRetireFn retire_fence = nullptr;
  void* retire_cookie = nullptr;
};

// One registered context type.
struct CapsetInfo {
  uint32_t capset_id = 0;
  uint32_t max_version = 0;
  // Writes the capset (what GET_CAPSET returns) into `out`.
  void (*fill_caps)(uint32_t version, std::vector<uint8_t>& out) = nullptr;
  std::unique_ptr<Context> (*create)(const ContextCreateInfo& info) = nullptr;
};

// Adds a context type to the process-wide capset registry (host/renderer/capset_registry.cc).
// Registering the same capset id twice keeps the first registration and returns false.
bool register_capset(const CapsetInfo& info);

}  // namespace gsvirt::renderer
