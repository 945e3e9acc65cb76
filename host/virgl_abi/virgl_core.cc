// The drop-in's life cycle, capsets, contexts, submissions and fences (see shim_state.h).
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>
#include <string>

#include "common/log.h"
#include "gsvirt_renderer.h"
#include "host/capi/builtin_capsets.h"
#include "host/virgl_abi/capset_map.h"
#include "host/virgl_abi/shim_state.h"

using gsvirt::log_error;
using gsvirt::log_info;
using namespace gsvirt::virgl_abi;

namespace gsvirt::virgl_abi {

Shim& shim() {
  // Never destroyed: a VMM may call in while the process exits.
  static Shim* s = new Shim;
  return *s;
}

FenceQueue& fence_queue() {
  static FenceQueue* q = new FenceQueue;
  return *q;
}

int not_supported(const char* call, const char* why) {
  static std::mutex mutex;
  static std::set<std::string> reported;
  std::lock_guard<std::mutex> lock(mutex);
  if (reported.insert(call).second)
    log_error("virglrenderer: %s is not supported (%s); further calls fail quietly", call, why);
  return -ENOTSUP;
}

}  // namespace gsvirt::virgl_abi

namespace {

// The renderer's poll fd, kept here: the renderer's fence callback runs under the renderer's lock,
// where gsvirt_renderer_get_poll_fd cannot be called. Set by init and reset, -1 after cleanup.
std::atomic<int> g_poll_fd{-1};

// Wakes a VMM sleeping on the poll fd for a fence queued outside poll (the renderer's eventfd is
// drained by the renderer's poll, which runs first in virgl_renderer_poll).
void wake_poller() {
  int fd = g_poll_fd.load();
  if (fd < 0) return;
  uint64_t one = 1;
  (void)!write(fd, &one, sizeof one);
}

// The renderer retired a context fence: queued for the next virgl_renderer_poll.
void on_renderer_fence(void* cookie, uint32_t ctx_id, uint32_t ring_idx, uint64_t fence_id) {
  (void)cookie;
  FenceQueue& q = fence_queue();
  bool wake;
  {
    std::lock_guard<std::mutex> lock(q.mutex);
    q.context_fences.push_back({ctx_id, ring_idx, fence_id});
    wake = !q.in_poll;
  }
  if (wake) wake_poller();
}

const gsvirt_renderer_callbacks kRendererCallbacks = {GSVIRT_RENDERER_CALLBACKS_VERSION, on_renderer_fence};

void clear_fences() {
  shim().newest_fences.clear();  // Shim::mutex is held by the callers
  FenceQueue& q = fence_queue();
  std::lock_guard<std::mutex> lock(q.mutex);
  q.context_fences.clear();
  q.global_fence.reset();
}

// Init flags are the VMM's choice of GL winsys and renderers; gsvirt has no GL and one renderer,
// so none changes anything. Said once so that a user sees why venus=on gives no Venus.
void note_ignored_flags(int flags) {
  static bool noted = false;
  if (flags == 0 || noted) return;
  noted = true;
  log_info("virglrenderer: init flags 0x%x ignored (gsvirt serves vcomp and the gsgpu native "
           "context only; no virgl GL, no Venus)", unsigned(flags));
}

}  // namespace

extern "C" {

int virgl_renderer_init(void* cookie, int flags, virgl_renderer_callbacks* cb) {
  if (!cb || cb->version < 1) {
    log_error("virglrenderer: init: callbacks are missing or of version < 1");
    return -EINVAL;
  }
  Shim& s = shim();
  std::lock_guard<std::mutex> lock(s.mutex);
  // QEMU initialises again after each reset, with the same cookie and callbacks.
  if (s.initialised) {
    if (s.cookie == cookie && s.callbacks == cb) return 0;
    log_error("virglrenderer: init: already initialised for another cookie");
    return -EBUSY;
  }
  note_ignored_flags(flags);
  (void)capset_map();  // logs the capset ids once
  int ret = gsvirt_renderer_init(nullptr, 0, &kRendererCallbacks);
  if (ret < 0) return ret;
  g_poll_fd = gsvirt_renderer_get_poll_fd();
  s.initialised = true;
  s.cookie = cookie;
  s.callbacks = cb;
  return 0;
}

void virgl_renderer_cleanup(void* cookie) {
  (void)cookie;
  Shim& s = shim();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.initialised) return;
  g_poll_fd = -1;
  gsvirt_renderer_cleanup(nullptr);
  forget_resources(s);
  clear_fences();
  s.initialised = false;
  s.cookie = nullptr;
  s.callbacks = nullptr;
}

void virgl_renderer_reset(void) {
  Shim& s = shim();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.initialised) return;
  gsvirt_renderer_cleanup(nullptr);
  forget_resources(s);
  clear_fences();
  g_poll_fd = -1;
  if (gsvirt_renderer_init(nullptr, 0, &kRendererCallbacks) < 0) {
    log_error("virglrenderer: reset: the renderer did not come back; init again");
    s.initialised = false;
    return;
  }
  g_poll_fd = gsvirt_renderer_get_poll_fd();
}

void virgl_renderer_poll(void) {
  Shim& s = shim();
  FenceQueue& q = fence_queue();
  virgl_renderer_callbacks* cb;
  void* cookie;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (!s.initialised) return;
    cb = s.callbacks;
    cookie = s.cookie;
    {
      std::lock_guard<std::mutex> qlock(q.mutex);
      q.in_poll = true;
    }
    gsvirt_renderer_poll();
  }
  std::vector<ContextFence> fences;
  std::optional<uint32_t> global;
  {
    std::lock_guard<std::mutex> qlock(q.mutex);
    q.in_poll = false;
    fences.swap(q.context_fences);
    global.swap(q.global_fence);
  }
  // No lock held: the VMM's callbacks may call back in.
  if (global && cb->write_fence) cb->write_fence(cookie, *global);
  if (cb->version < 3 || !cb->write_context_fence) {
    if (!fences.empty())
      log_error("virglrenderer: poll: %zu context fences dropped: callbacks version %d has no "
                "write_context_fence", fences.size(), cb->version);
    return;
  }
  for (const ContextFence& f : fences) cb->write_context_fence(cookie, f.ctx_id, f.ring_idx, f.fence_id);
}

int virgl_renderer_get_poll_fd(void) { return g_poll_fd.load(); }

// QEMU calls this before every command to make virgl's GL context current; there is none.
void virgl_renderer_force_ctx_0(void) {}

void virgl_renderer_get_cap_set(uint32_t set, uint32_t* max_ver, uint32_t* max_size) {
  uint32_t ver = 0, size = 0;
  // QEMU asks at device realize, before init: the context types must already be registered.
  gsvirt::renderer::register_builtin_capsets();
  uint32_t gsvirt_set = capset_map().gsvirt_capset_for(set);
  if (gsvirt_set) gsvirt_renderer_get_cap_set(gsvirt_set, &ver, &size);
  if (max_ver) *max_ver = ver;
  if (max_size) *max_size = size;
}

void virgl_renderer_fill_caps(uint32_t set, uint32_t version, void* caps) {
  if (!caps) return;
  gsvirt::renderer::register_builtin_capsets();
  uint32_t gsvirt_set = capset_map().gsvirt_capset_for(set);
  if (!gsvirt_set) {
    log_error("virglrenderer: fill_caps: capset %u is not offered", set);
    return;
  }
  gsvirt_renderer_fill_caps(gsvirt_set, version, caps);
}

// A context without CONTEXT_INIT is a virgl GL context (a Linux guest's console makes one).
int virgl_renderer_context_create(uint32_t handle, uint32_t nlen, const char* name) {
  (void)nlen, (void)name;
  Shim& s = shim();
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.initialised) s.refused_gl_contexts.insert(handle);  // QEMU names it later: refused quietly
  }
  return not_supported("context_create", "virgl GL contexts; gsvirt needs CONTEXT_INIT with its capset");
}

int virgl_renderer_context_create_with_flags(uint32_t ctx_id, uint32_t ctx_flags, uint32_t nlen, const char* name) {
  if (ctx_flags & ~uint32_t{VIRGL_ABI_CONTEXT_FLAG_CAPSET_ID_MASK}) {
    log_error("virglrenderer: context_create_with_flags: ctx %u: ctx_flags 0x%x has unknown bits", ctx_id,
              ctx_flags);
    return -EINVAL;
  }
  uint32_t set = ctx_flags & VIRGL_ABI_CONTEXT_FLAG_CAPSET_ID_MASK;
  uint32_t gsvirt_set = capset_map().gsvirt_capset_for(set);
  if (!gsvirt_set) {
    log_error("virglrenderer: context_create_with_flags: ctx %u: capset %u is not offered (%s=%u, %s=%u)",
              ctx_id, set, kVcompCapsetEnv, capset_map().vcomp_id, kGsgpuCapsetEnv, capset_map().gsgpu_id);
    return -EINVAL;
  }
  std::lock_guard<std::mutex> lock(shim().mutex);
  return gsvirt_renderer_context_create_with_flags(ctx_id, gsvirt_set, nlen, name);
}

void virgl_renderer_context_destroy(uint32_t handle) {
  Shim& s = shim();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.refused_gl_contexts.erase(handle)) return;
  // The blobs the context owned are released by the renderer; this library's mappings of them
  // and its records of the VMM's iovecs stay until the VMM unmaps and unrefs (shim_state.h).
  if (gsvirt_renderer_context_destroy(handle) != 0) return;
  mark_released_with_context(s, handle);
  auto newest = s.newest_fences.find(handle);
  if (newest == s.newest_fences.end()) return;
  // Fences of the context that had retired are written back again: QEMU finds nothing to answer.
  {
    FenceQueue& q = fence_queue();
    std::lock_guard<std::mutex> qlock(q.mutex);
    for (const auto& [ring_idx, fence_id] : newest->second) q.context_fences.push_back({handle, ring_idx, fence_id});
  }
  s.newest_fences.erase(newest);
  wake_poller();
}

int virgl_renderer_submit_cmd(void* buffer, int ctx_id, int ndw) {
  std::lock_guard<std::mutex> lock(shim().mutex);
  return gsvirt_renderer_submit_cmd(buffer, ctx_id, ndw);
}

// The unstable submit with in-fences: without in-fences it is submit_cmd.
int virgl_renderer_submit_cmd2(void* buffer, int ctx_id, int ndw, uint64_t* in_fence_ids, uint32_t num_in_fences) {
  (void)in_fence_ids;
  if (num_in_fences) return not_supported("submit_cmd2 with in-fences", "gsvirt contexts order work by ring");
  return virgl_renderer_submit_cmd(buffer, ctx_id, ndw);
}

// A global fence: gsvirt has no ctx-0 work, so it retires at the next poll.
int virgl_renderer_create_fence(int client_fence_id, uint32_t ctx_id) {
  (void)ctx_id;  // QEMU passes the command type here
  {
    std::lock_guard<std::mutex> lock(shim().mutex);
    if (!shim().initialised) {
      log_error("virglrenderer: create_fence: called before init");
      return -EINVAL;
    }
  }
  FenceQueue& q = fence_queue();
  {
    std::lock_guard<std::mutex> lock(q.mutex);
    q.global_fence = uint32_t(client_fence_id);
  }
  wake_poller();
  return 0;
}

int virgl_renderer_context_create_fence(uint32_t ctx_id, uint32_t flags, uint32_t ring_idx, uint64_t fence_id) {
  if (flags & ~uint32_t{VIRGL_ABI_FENCE_FLAG_MERGEABLE}) {
    log_error("virglrenderer: context_create_fence: ctx %u: flags 0x%x has unknown bits", ctx_id, flags);
    return -EINVAL;
  }
  // Every fence is written back, mergeable or not; gsvirt's renderer takes no flags.
  Shim& s = shim();
  std::lock_guard<std::mutex> lock(s.mutex);
  int ret = gsvirt_renderer_context_create_fence(ctx_id, 0, ring_idx, fence_id);
  if (ret == 0) s.newest_fences[ctx_id][ring_idx] = fence_id;
  return ret;
}

// Per-context polling is for VMMs that asked for asynchronous fence callbacks; one poll serves all.
void virgl_renderer_context_poll(uint32_t ctx_id) {
  (void)ctx_id;
  virgl_renderer_poll();
}

int virgl_renderer_context_get_poll_fd(uint32_t ctx_id) {
  (void)ctx_id;
  return -1;  // no per-context fd: the VMM uses virgl_renderer_get_poll_fd
}

int virgl_renderer_export_fence(uint64_t client_fence_id, int* fd) {
  (void)client_fence_id, (void)fd;
  return not_supported("export_fence", "no sync_file for host fences");
}

int virgl_renderer_export_signalled_fence(void) {
  return not_supported("export_signalled_fence", "no sync_file for host fences");
}

int virgl_renderer_execute(void* execute_args, uint32_t execute_size) {
  (void)execute_args, (void)execute_size;
  return not_supported("execute", "no virgl extension queries");
}

}  // extern "C"
