// The drop-in library's own state: what a VMM expects of libvirglrenderer beyond gsvirt's
// renderer C API (include/gsvirt_renderer.h), which does the real work.
//
// - Fences are delivered to the VMM from virgl_renderer_poll() only, never from inside
//   virgl_renderer_context_create_fence(): QEMU 10.0 queues a fenced command on its fence list
//   only after create_fence has returned, so a fence written back from inside it would be lost.
//   Global (ctx 0) fences, which have no work of gsvirt's to wait for, retire at the next poll.
// - The iovec array a VMM hands over (create_blob of a GUEST blob, attach_iov) is handed back by
//   detach_iov as the same pointer: QEMU frees that array and unmaps its guest pages.
// - A context destroyed with work in flight (the native context) has its pending fences dropped by
//   the renderer; the library writes back the newest fence of each of its rings at the next poll,
//   so that QEMU answers the fenced commands instead of keeping them (and polling) until a reset.
// - A mapped HOST3D blob is mapped by this library itself (a MAP_SHARED mapping of the blob's
//   memfd: the same pages the context writes, so zero-copy) and stays mapped until
//   virgl_renderer_resource_unmap, whatever happens to the blob in gsvirt: the renderer frees a
//   context's blobs when the context is destroyed, while QEMU keeps the guest's mapping of them
//   (a memory region pointing here) until the guest unmaps. Mappings that QEMU still holds at a
//   reset or cleanup are kept until the process exits (QEMU 10.0's reset leaves its regions).
//
// Lock order: Shim::mutex, then the renderer's own lock, then FenceQueue::mutex (a leaf). No lock
// is held while the VMM's callbacks run.
#pragma once

#include <sys/uio.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <vector>

#include "host/virgl_abi/virgl_abi.h"

namespace gsvirt::virgl_abi {

struct Mapping {
  void* addr = nullptr;
  uint64_t size = 0;
};

// A resource as the VMM knows it: from create until unref, even when gsvirt has released it.
struct ShimResource {
  // A classic (virgl GL) resource: refused at creation, but QEMU keeps it and names it in later
  // calls, which are then refused quietly.
  bool classic = false;
  uint32_t blob_mem = 0;
  uint32_t owner_ctx = 0;             // the context the blob was created for (0: none)
  bool released_by_renderer = false;  // its context was destroyed, which released it in gsvirt
  iovec* iov = nullptr;  // the VMM's array, returned as is by detach_iov
  int num_iovs = 0;
  std::optional<Mapping> mapping;
  void* priv = nullptr;
};

struct Shim {
  std::mutex mutex;
  bool initialised = false;
  void* cookie = nullptr;
  virgl_renderer_callbacks* callbacks = nullptr;
  std::map<uint32_t, ShimResource> resources;
  std::set<uint32_t> refused_gl_contexts;  // virgl GL contexts QEMU believes in (a guest console's)
  // The newest fence created on each (context, ring): written back when the context is destroyed,
  // since the renderer drops the fences still pending then and QEMU would keep waiting for them.
  std::map<uint32_t, std::map<uint32_t, uint64_t>> newest_fences;
  std::vector<Mapping> kept_mappings;  // mapped at a reset or cleanup; see above
};

struct ContextFence {
  uint32_t ctx_id, ring_idx;
  uint64_t fence_id;
};

struct FenceQueue {
  std::mutex mutex;
  std::vector<ContextFence> context_fences;
  std::optional<uint32_t> global_fence;  // the latest; QEMU retires every id up to it
  bool in_poll = false;                  // retirements inside poll need no wake-up
};

Shim& shim();
FenceQueue& fence_queue();

// Forgets every resource (after the renderer dropped them); mappings move to kept_mappings.
// Called with Shim::mutex held.
void forget_resources(Shim& s);

// The renderer released the blobs of a destroyed context; the VMM still holds their ids.
// Called with Shim::mutex held.
void mark_released_with_context(Shim& s, uint32_t ctx_id);

// Records a refused classic resource so that QEMU's later calls on it are refused quietly;
// returns -ENOTSUP. Called with Shim::mutex held.
int note_classic_resource(Shim& s, uint32_t res_handle);

// True when QEMU names a refused GL context or classic resource: the call is refused quietly.
// Called with Shim::mutex held.
bool names_refused_gl_object(const Shim& s, uint32_t ctx_id, uint32_t res_handle);

// Logs "`call` is not supported" the first time `call` is made, then stays quiet; returns
// -ENOTSUP for the caller to pass on.
int not_supported(const char* call, const char* why);

}  // namespace gsvirt::virgl_abi
