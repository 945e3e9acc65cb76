#include "host/renderer/renderer.h"

#include <fcntl.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstring>

#include "common/checked_math.h"
#include "common/log.h"
#include "host/renderer/capset_registry.h"
#include "host/renderer/resource.h"

namespace gsvirt::renderer {
namespace {

// Every refusal goes through here so the log line always names the call and the field.
int refuse(const char* call, const char* field, int err, const char* why) {
  log_error("renderer: %s: %s %s (%s)", call, field, why, std::strerror(-err));
  return err;
}

}  // namespace

Renderer::Renderer(FenceRetiredFn on_fence_retired, RendererLimits limits)
    : on_fence_retired_(std::move(on_fence_retired)), limits_(limits),
      poll_fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
  if (poll_fd_ < 0) log_error("renderer: eventfd failed (%s); waiters fall back to polling",
                              std::strerror(errno));
}

Renderer::~Renderer() {
  while (!contexts_.empty()) destroy_context(contexts_.begin()->first);
  while (!resources_.empty()) release_resource(resources_.begin()->first);
  if (poll_fd_ >= 0) close(poll_fd_);
}

Renderer::ContextEntry* Renderer::find_context(const char* call, uint32_t ctx_id) {
  auto it = contexts_.find(ctx_id);
  if (it == contexts_.end()) {
    log_error("renderer: %s: ctx_id %u names no context", call, ctx_id);
    return nullptr;
  }
  return &it->second;
}

Renderer::ResourceEntry* Renderer::find_resource(const char* call, uint32_t res_id) {
  auto it = resources_.find(res_id);
  if (it == resources_.end()) {
    log_error("renderer: %s: res_id %u names no resource", call, res_id);
    return nullptr;
  }
  return &it->second;
}

void Renderer::on_context_retired(void* cookie, uint32_t ctx_id, uint32_t ring_idx,
                                  uint64_t fence_id) {
  auto* self = static_cast<Renderer*>(cookie);
  {
    std::lock_guard<std::mutex> lock(self->retired_mutex_);
    self->retired_by_contexts_.push_back({ctx_id, ring_idx, fence_id});
  }
  if (self->poll_fd_ >= 0) {
    uint64_t one = 1;
    (void)!write(self->poll_fd_, &one, sizeof one);
  }
}

int Renderer::create_context(uint32_t ctx_id, uint32_t capset_id, std::string_view debug_name) {
  const char* call = "context_create";
  if (ctx_id == 0) return refuse(call, "ctx_id", -EINVAL, "0 is reserved");
  if (contexts_.count(ctx_id)) return refuse(call, "ctx_id", -EEXIST, "is already in use");
  if (contexts_.size() >= limits_.max_contexts)
    return refuse(call, "ctx_id", -ENOSPC, "exceeds the context limit");
  auto capset = find_capset(capset_id);
  if (!capset) return refuse(call, "capset_id", -EINVAL, "names no registered capset");

  ContextEntry entry;
  entry.capset_id = capset_id;
  entry.name = std::string(debug_name.substr(0, 64));
  ContextCreateInfo info;
  info.ctx_id = ctx_id;
  info.capset_id = capset_id;
  info.debug_name = entry.name.c_str();
  info.retire_fence = &Renderer::on_context_retired;
  info.retire_cookie = this;
  entry.context = capset->create(info);
  if (!entry.context) return refuse(call, "capset_id", -ENOMEM, "factory created no context");
  contexts_.emplace(ctx_id, std::move(entry));
  log_debug(kDebugResources, "renderer: context %u created (capset %u)", ctx_id, capset_id);
  return 0;
}

int Renderer::destroy_context(uint32_t ctx_id) {
  ContextEntry* ctx = find_context("context_destroy", ctx_id);
  if (!ctx) return -ENOENT;
  for (uint32_t res_id : ctx->attached) {
    ctx->context->detach_resource(res_id);
    resources_[res_id].attached_to.erase(ctx_id);
  }
  ctx->attached.clear();
  std::vector<uint32_t> owned;
  for (const auto& [res_id, res] : resources_)
    if (res.owner_ctx == ctx_id) owned.push_back(res_id);
  for (uint32_t res_id : owned) release_resource(res_id);
  contexts_.erase(ctx_id);
  std::lock_guard<std::mutex> lock(retired_mutex_);
  std::erase_if(retired_by_contexts_, [&](const RetiredByContext& r) { return r.ctx_id == ctx_id; });
  log_debug(kDebugResources, "renderer: context %u destroyed", ctx_id);
  return 0;
}

int Renderer::submit(uint32_t ctx_id, const void* cmds, uint64_t size) {
  const char* call = "submit_cmd";
  ContextEntry* ctx = find_context(call, ctx_id);
  if (!ctx) return -ENOENT;
  if (size > limits_.max_submit_bytes) return refuse(call, "size", -E2BIG, "exceeds the limit");
  if (size && !cmds) return refuse(call, "buffer", -EINVAL, "is null");
  if (ctx->context->fatal()) return refuse(call, "ctx_id", -EIO, "context is in a fatal state");
  // The guest can rewrite shared memory while we decode: work on a private copy.
  submit_copy_.resize(size);
  if (size) std::memcpy(submit_copy_.data(), cmds, size);
  int r = ctx->context->submit_cmd(submit_copy_.data(), size);
  if (r < 0) log_error("renderer: submit_cmd: ctx_id %u rejected the stream (%s)", ctx_id,
                       std::strerror(-r));
  return r;
}

int Renderer::check_new_blob(const BlobCreateInfo& info, ContextEntry** owner) {
  const char* call = "resource_create_blob";
  if (info.res_id == 0) return refuse(call, "res_handle", -EINVAL, "0 is reserved");
  if (resources_.count(info.res_id)) return refuse(call, "res_handle", -EEXIST, "is in use");
  if (info.size == 0) return refuse(call, "size", -EINVAL, "is 0");
  if (info.size > limits_.max_blob_size) return refuse(call, "size", -E2BIG, "exceeds the limit");
  if (info.blob_flags & ~kBlobFlagsKnown) return refuse(call, "blob_flags", -EINVAL, "unknown bit");
  if (info.blob_id != 0) return refuse(call, "blob_id", -EINVAL, "named blobs are not offered");
  *owner = nullptr;
  if (info.ctx_id != 0) {
    *owner = find_context(call, info.ctx_id);
    if (!*owner) return -ENOENT;
  }
  switch (info.blob_mem) {
    case kBlobMemHost3d:
      if (!*owner) return refuse(call, "ctx_id", -EINVAL, "HOST3D blobs need a context");
      if (!info.iov.empty()) return refuse(call, "num_iovs", -EINVAL, "HOST3D takes no iovecs");
      break;
    case kBlobMemGuest: {
      uint64_t total = 0;
      if (!iov_total_size(info.iov, &total) || total != info.size)
        return refuse(call, "iovecs", -EINVAL, "do not add up to size");
      break;
    }
    default:
      return refuse(call, "blob_mem", -EINVAL, "is not GUEST (1) or HOST3D (2)");
  }
  if (*owner) {
    ContextEntry& ctx = **owner;
    if (ctx.owned_resources >= limits_.max_resources_per_context)
      return refuse(call, "res_handle", -ENOSPC, "exceeds the context's resource quota");
    auto bytes = checked_add(ctx.owned_bytes, info.size);
    if (!bytes || *bytes > limits_.max_blob_bytes_per_context)
      return refuse(call, "size", -ENOSPC, "exceeds the context's blob byte quota");
  }
  return 0;
}

int Renderer::create_blob(const BlobCreateInfo& info) {
  ContextEntry* owner = nullptr;
  if (int r = check_new_blob(info, &owner); r < 0) return r;
  int err = 0;
  std::shared_ptr<Resource> res = info.blob_mem == kBlobMemHost3d
                                      ? create_host_blob(info.res_id, info.size, &err)
                                      : create_iov_resource(info.res_id, info.iov, &err);
  if (!res) return refuse("resource_create_blob", "size", err, "could not be allocated");
  ResourceEntry entry;
  entry.resource = std::move(res);
  entry.owner_ctx = info.ctx_id;
  entry.blob_mem = info.blob_mem;
  resources_.emplace(info.res_id, std::move(entry));
  if (owner) {
    owner->owned_resources++;
    owner->owned_bytes += info.size;
  }
  log_debug(kDebugResources, "renderer: resource %u created (blob_mem %u, %" PRIu64 " bytes)",
            info.res_id, info.blob_mem, info.size);
  return 0;
}

int Renderer::attach_iov(uint32_t res_id, std::span<const iovec> iov) {
  const char* call = "resource_attach_iov";
  ResourceEntry* res = find_resource(call, res_id);
  if (!res) return -ENOENT;
  if (res->blob_mem != kBlobMemGuest) return refuse(call, "res_handle", -EINVAL, "is not GUEST");
  if (!res->resource->iov.empty()) return refuse(call, "res_handle", -EBUSY, "has iovecs");
  uint64_t total = 0;
  if (iov.empty() || !iov_total_size(iov, &total) || total != res->resource->size)
    return refuse(call, "iovecs", -EINVAL, "do not add up to the resource size");
  // Contexts only ever see a complete Resource: re-attach so they pick up the new backing.
  for (uint32_t ctx_id : res->attached_to) contexts_[ctx_id].context->detach_resource(res_id);
  res->resource->iov.assign(iov.begin(), iov.end());
  for (uint32_t ctx_id : res->attached_to) contexts_[ctx_id].context->attach_resource(res->resource);
  return 0;
}

int Renderer::detach_iov(uint32_t res_id, std::vector<iovec>* detached) {
  const char* call = "resource_detach_iov";
  ResourceEntry* res = find_resource(call, res_id);
  if (!res) return -ENOENT;
  if (res->blob_mem != kBlobMemGuest) return refuse(call, "res_handle", -EINVAL, "is not GUEST");
  // Pages go back to the VMM: no context may keep pointers into them.
  for (uint32_t ctx_id : res->attached_to) contexts_[ctx_id].context->detach_resource(res_id);
  if (detached) *detached = std::move(res->resource->iov);
  res->resource->iov.clear();
  for (uint32_t ctx_id : res->attached_to) contexts_[ctx_id].context->attach_resource(res->resource);
  return 0;
}

void Renderer::release_resource(uint32_t res_id) {
  auto it = resources_.find(res_id);
  if (it == resources_.end()) return;
  ResourceEntry& res = it->second;
  for (uint32_t ctx_id : res.attached_to) {
    ContextEntry& ctx = contexts_[ctx_id];
    ctx.context->detach_resource(res_id);
    ctx.attached.erase(res_id);
  }
  if (res.owner_ctx) {
    auto owner = contexts_.find(res.owner_ctx);
    if (owner != contexts_.end()) {
      owner->second.owned_resources--;
      owner->second.owned_bytes -= res.resource->size;
    }
  }
  resources_.erase(it);
}

int Renderer::unref_resource(uint32_t res_id) {
  if (!find_resource("resource_unref", res_id)) return -ENOENT;
  release_resource(res_id);
  return 0;
}

int Renderer::attach_resource(uint32_t ctx_id, uint32_t res_id) {
  const char* call = "ctx_attach_resource";
  ContextEntry* ctx = find_context(call, ctx_id);
  ResourceEntry* res = find_resource(call, res_id);
  if (!ctx || !res) return -ENOENT;
  if (ctx->attached.count(res_id)) return 0;
  // A resource charged to one context must not be handed to another: that would let one guest
  // context read another's memory.
  if (res->owner_ctx != 0 && res->owner_ctx != ctx_id)
    return refuse(call, "res_handle", -EPERM, "belongs to another context");
  if (int r = ctx->context->check_attach(*res->resource); r < 0)
    return refuse(call, "res_handle", r, "is refused by the context");
  ctx->attached.insert(res_id);
  res->attached_to.insert(ctx_id);
  ctx->context->attach_resource(res->resource);
  return 0;
}

int Renderer::detach_resource(uint32_t ctx_id, uint32_t res_id) {
  const char* call = "ctx_detach_resource";
  ContextEntry* ctx = find_context(call, ctx_id);
  if (!ctx) return -ENOENT;
  if (!ctx->attached.count(res_id)) return refuse(call, "res_handle", -ENOENT, "is not attached");
  ctx->context->detach_resource(res_id);
  ctx->attached.erase(res_id);
  resources_[res_id].attached_to.erase(ctx_id);
  return 0;
}

int Renderer::export_blob(uint32_t res_id, int* fd) {
  const char* call = "resource_export_blob";
  ResourceEntry* res = find_resource(call, res_id);
  if (!res) return -ENOENT;
  if (res->resource->fd < 0) return refuse(call, "res_handle", -EINVAL, "has no memfd");
  int dup_fd = fcntl(res->resource->fd, F_DUPFD_CLOEXEC, 0);
  if (dup_fd < 0) return refuse(call, "res_handle", -errno, "could not be duplicated");
  *fd = dup_fd;
  return 0;
}

int Renderer::get_map(uint32_t res_id, void** map, uint64_t* size) {
  const char* call = "resource_get_map";
  ResourceEntry* res = find_resource(call, res_id);
  if (!res) return -ENOENT;
  if (!res->resource->host_map) return refuse(call, "res_handle", -EINVAL, "has no host mapping");
  *map = res->resource->host_map;
  *size = res->resource->size;
  return 0;
}

bool Renderer::is_attached(uint32_t ctx_id, uint32_t res_id) const {
  auto it = contexts_.find(ctx_id);
  return it != contexts_.end() && it->second.attached.count(res_id) != 0;
}

uint32_t Renderer::resource_owner(uint32_t res_id) const {
  auto it = resources_.find(res_id);
  return it == resources_.end() ? 0 : it->second.owner_ctx;
}

uint64_t Renderer::owned_blob_bytes(uint32_t ctx_id) const {
  auto it = contexts_.find(ctx_id);
  return it == contexts_.end() ? 0 : it->second.owned_bytes;
}

bool Renderer::has_pending_fences() const {
  for (const auto& [id, ctx] : contexts_)
    for (const auto& [ring, fences] : ctx.rings)
      if (!fences.empty()) return true;
  return false;
}

// Fences of a ring retire in submission order: a signalled fence waits for the ones before it.
void Renderer::retire_signalled(uint32_t ctx_id, ContextEntry& ctx, uint32_t ring_idx) {
  auto& fences = ctx.rings[ring_idx];
  while (!fences.empty() && fences.front().signalled) {
    uint64_t fence_id = fences.front().fence_id;
    fences.pop_front();
    if (on_fence_retired_) on_fence_retired_(ctx_id, ring_idx, fence_id);
  }
}

// A context reporting fence N implies that everything before N on that ring is complete. An id
// that names no pending fence of the ring (a context that reports twice) changes nothing.
void Renderer::signal_through(uint32_t ctx_id, uint32_t ring_idx, uint64_t fence_id) {
  auto it = contexts_.find(ctx_id);
  if (it == contexts_.end()) return;
  auto ring = it->second.rings.find(ring_idx);
  if (ring == it->second.rings.end()) return;
  auto& fences = ring->second;
  auto reported = std::find_if(fences.begin(), fences.end(),
                               [&](const PendingFence& f) { return f.fence_id == fence_id; });
  if (reported == fences.end()) {
    log_debug(kDebugCommands, "renderer: ctx %u ring %u reported fence %" PRIu64 ", which is not pending",
              ctx_id, ring_idx, fence_id);
    return;
  }
  for (auto f = fences.begin(); f != std::next(reported); ++f) f->signalled = true;
  retire_signalled(ctx_id, it->second, ring_idx);
}

int Renderer::create_fence(uint32_t ctx_id, uint32_t ring_idx, uint64_t fence_id) {
  const char* call = "context_create_fence";
  ContextEntry* ctx = find_context(call, ctx_id);
  if (!ctx) return -ENOENT;
  if (ring_idx >= limits_.max_rings) return refuse(call, "ring_idx", -EINVAL, "is out of range");
  auto& fences = ctx->rings[ring_idx];
  if (fences.size() >= limits_.max_pending_fences_per_ring)
    return refuse(call, "fence_id", -ENOSPC, "exceeds the pending fence limit of the ring");
  // A report from the context's own thread is queued for poll(), so it always finds this record.
  fences.push_back({fence_id, false});
  if (ctx->context->submit_fence(ring_idx, fence_id)) fences.back().signalled = true;
  retire_signalled(ctx_id, *ctx, ring_idx);
  return 0;
}

void Renderer::poll() {
  // Contexts that only learn of completion when asked report now, into the same queue as the
  // contexts' own threads; the eventfd is drained after them so it is not left readable.
  for (auto& [ctx_id, ctx] : contexts_) {
    bool pending = false;
    for (const auto& [ring_idx, fences] : ctx.rings) pending = pending || !fences.empty();
    if (pending) ctx.context->retire_fences();
  }
  if (poll_fd_ >= 0) {
    uint64_t count;
    (void)!read(poll_fd_, &count, sizeof count);  // non-blocking; drained before the queue is read
  }
  std::vector<RetiredByContext> retired;
  {
    std::lock_guard<std::mutex> lock(retired_mutex_);
    retired.swap(retired_by_contexts_);
  }
  for (const auto& r : retired) signal_through(r.ctx_id, r.ring_idx, r.fence_id);
}

}  // namespace gsvirt::renderer
