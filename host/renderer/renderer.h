// The renderer core: contexts by id, resources by id, attachments, per-ring fences, submit.
//
// One Renderer serves one guest (a VM, a vtest client, an in-process driver). Every id and size
// comes from the guest and is checked here; every refusal is a negative errno plus a log line that
// names the call and the field. Not thread-safe: the owner serialises calls (the C API holds a
// mutex; a vtest session is single-threaded). Only fence retirement reported by contexts may arrive
// from other threads; it is queued and delivered by poll().
#pragma once

#include <sys/uio.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "host/renderer/context.h"

namespace gsvirt::renderer {

// virtio-gpu blob memory types (VIRTIO_GPU_BLOB_MEM_*).
enum BlobMem : uint32_t {
  kBlobMemGuest = 1,        // guest pages, given as iovecs
  kBlobMemHost3d = 2,       // host allocation: a memfd here
  kBlobMemHost3dGuest = 3,  // not offered
};
// virtio-gpu blob flags (VIRTIO_GPU_BLOB_FLAG_USE_*).
constexpr uint32_t kBlobFlagMappable = 1u << 0;
constexpr uint32_t kBlobFlagShareable = 1u << 1;
constexpr uint32_t kBlobFlagCrossDevice = 1u << 2;
constexpr uint32_t kBlobFlagsKnown = kBlobFlagMappable | kBlobFlagShareable | kBlobFlagCrossDevice;

struct RendererLimits {
  uint32_t max_contexts = 256;
  uint32_t max_rings = 64;                       // ring_idx < max_rings
  uint32_t max_resources_per_context = 4096;     // resources a context owns (created for it)
  uint64_t max_blob_bytes_per_context = 4ull << 30;
  uint64_t max_blob_size = 2ull << 30;
  uint32_t max_pending_fences_per_ring = 4096;
  uint64_t max_submit_bytes = 64ull << 20;
};

struct BlobCreateInfo {
  uint32_t res_id = 0;
  uint32_t ctx_id = 0;  // the context the blob is charged to (its owner); 0 only for GUEST blobs
  uint32_t blob_mem = 0;
  uint32_t blob_flags = 0;
  uint64_t blob_id = 0;
  uint64_t size = 0;
  std::span<const iovec> iov;  // GUEST blobs only
};

// Called for each retired fence, in order per (context, ring), from create_fence() or poll().
using FenceRetiredFn = std::function<void(uint32_t ctx_id, uint32_t ring_idx, uint64_t fence_id)>;

class Renderer {
 public:
  explicit Renderer(FenceRetiredFn on_fence_retired = {}, RendererLimits limits = {});
  ~Renderer();
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  int create_context(uint32_t ctx_id, uint32_t capset_id, std::string_view debug_name);
  // Detaches every attached resource, releases the resources the context owns, drops its fences.
  int destroy_context(uint32_t ctx_id);
  // Copies `size` bytes out of (possibly guest-shared) memory, then hands the copy to the context.
  int submit(uint32_t ctx_id, const void* cmds, uint64_t size);

  int create_blob(const BlobCreateInfo& info);
  int attach_iov(uint32_t res_id, std::span<const iovec> iov);
  int detach_iov(uint32_t res_id, std::vector<iovec>* detached);
  int unref_resource(uint32_t res_id);
  int attach_resource(uint32_t ctx_id, uint32_t res_id);
  int detach_resource(uint32_t ctx_id, uint32_t res_id);
  // A new descriptor for the blob's memfd (close-on-exec); the caller owns it.
  int export_blob(uint32_t res_id, int* fd);
  int get_map(uint32_t res_id, void** map, uint64_t* size);

  // Creates fence `fence_id` (the caller's id, any value) behind everything submitted on the ring
  // and hands it to the context (Context::submit_fence); it retires when the context says so.
  int create_fence(uint32_t ctx_id, uint32_t ring_idx, uint64_t fence_id);
  // Asks contexts with pending fences to report what completed (Context::retire_fences), then
  // delivers every fence contexts retired since the last call.
  void poll();
  // Readable (an eventfd) once a context has reported a retirement that poll() has not delivered
  // yet; poll() drains it. Lets a server loop or a waiting guest sleep instead of polling on a
  // timer. Contexts that report only from retire_fences() never make it readable.
  int poll_fd() const { return poll_fd_; }

  // Introspection for tests and the vtest session.
  size_t context_count() const { return contexts_.size(); }
  size_t resource_count() const { return resources_.size(); }
  bool has_context(uint32_t ctx_id) const { return contexts_.count(ctx_id) != 0; }
  bool has_pending_fences() const;
  bool is_attached(uint32_t ctx_id, uint32_t res_id) const;
  uint32_t resource_owner(uint32_t res_id) const;  // 0 when none or no such resource
  uint64_t owned_blob_bytes(uint32_t ctx_id) const;
  const RendererLimits& limits() const { return limits_; }

 private:
  struct PendingFence {
    uint64_t fence_id;
    bool signalled;
  };
  struct ContextEntry {
    std::unique_ptr<Context> context;
    uint32_t capset_id = 0;
    std::string name;
    std::set<uint32_t> attached;
    uint32_t owned_resources = 0;
    uint64_t owned_bytes = 0;
    std::map<uint32_t, std::deque<PendingFence>> rings;
  };
  struct ResourceEntry {
    std::shared_ptr<Resource> resource;
    uint32_t owner_ctx = 0;
    uint32_t blob_mem = 0;
    std::set<uint32_t> attached_to;
  };
  struct RetiredByContext {
    uint32_t ctx_id, ring_idx;
    uint64_t fence_id;
  };

  static void on_context_retired(void* cookie, uint32_t ctx_id, uint32_t ring_idx,
                                 uint64_t fence_id);
  ContextEntry* find_context(const char* call, uint32_t ctx_id);
  ResourceEntry* find_resource(const char* call, uint32_t res_id);
  int check_new_blob(const BlobCreateInfo& info, ContextEntry** owner);
  void release_resource(uint32_t res_id);
  void signal_through(uint32_t ctx_id, uint32_t ring_idx, uint64_t fence_id);
  void retire_signalled(uint32_t ctx_id, ContextEntry& ctx, uint32_t ring_idx);

  FenceRetiredFn on_fence_retired_;
  RendererLimits limits_;
  std::map<uint32_t, ContextEntry> contexts_;
  std::map<uint32_t, ResourceEntry> resources_;
  std::vector<uint8_t> submit_copy_;  // reused: no allocation on the submit hot path

  std::mutex retired_mutex_;
  std::vector<RetiredByContext> retired_by_contexts_;
  int poll_fd_ = -1;
};

}  // namespace gsvirt::renderer
