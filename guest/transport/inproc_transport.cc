// In-process transport: the host renderer is linked into this process and called through its C
// API. Blobs are the host's own mappings (zero copy); a wait is a fence on ring 0.
#include <sys/mman.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "common/log.h"
#include "guest/transport/transport.h"
#include "gsvirt_renderer.h"

namespace gsvirt::guest {
namespace {

// Fences retired by the in-process renderer, per context: the newest fence id seen.
struct RetiredFences {
  std::mutex mutex;
  std::map<uint32_t, uint64_t> last_by_ctx;
};
RetiredFences g_retired;
// True when this transport initialised the renderer and so receives its fence callbacks; false
// when the embedding program did (then contexts are treated as synchronous).
bool g_owns_fence_callback = false;
std::once_flag g_init_once;
std::atomic<uint32_t> g_next_ctx_id{1};
std::atomic<uint32_t> g_next_res_id{1};

void on_fence_retired(void*, uint32_t ctx_id, uint32_t ring_idx, uint64_t fence_id) {
  (void)ring_idx;
  std::lock_guard<std::mutex> lock(g_retired.mutex);
  g_retired.last_by_ctx[ctx_id] = fence_id;
}

void init_renderer_once() {
  std::call_once(g_init_once, [] {
    static const gsvirt_renderer_callbacks callbacks{GSVIRT_RENDERER_CALLBACKS_VERSION,
                                                     on_fence_retired};
    g_owns_fence_callback = gsvirt_renderer_init(nullptr, 0, &callbacks) == 0;
  });
}

class InprocTransport final : public Transport {
 public:
  InprocTransport() { init_renderer_once(); }
  ~InprocTransport() override {
    if (ctx_id_) gsvirt_renderer_context_destroy(ctx_id_);
    std::lock_guard<std::mutex> lock(g_retired.mutex);
    g_retired.last_by_ctx.erase(ctx_id_);
  }

  const char* name() const override { return "inproc"; }
  const std::string& error() const override { return error_; }

  bool get_capset(uint32_t capset_id, std::vector<uint8_t>& out) override {
    uint32_t max_ver = 0, max_size = 0;
    gsvirt_renderer_get_cap_set(capset_id, &max_ver, &max_size);
    if (max_size == 0) return fail("inproc: capset " + std::to_string(capset_id) +
                                   " is not registered in this process");
    out.assign(max_size, 0);
    if (gsvirt_renderer_fill_caps(capset_id, max_ver, out.data()) < 0)
      return fail("inproc: fill_caps failed");
    return true;
  }

  bool init_context(uint32_t capset_id) override {
    if (ctx_id_) return fail("inproc: init_context called twice");
    uint32_t id = g_next_ctx_id++;
    int r = gsvirt_renderer_context_create_with_flags(id, capset_id, 6, "inproc");
    if (r < 0) return fail_errno("inproc: cannot create a context for capset " +
                                 std::to_string(capset_id), r);
    ctx_id_ = id;
    return true;
  }

  bool create_blob(uint64_t size, Blob* out) override {
    if (!ctx_id_) return fail("inproc: create_blob before init_context");
    gsvirt_renderer_resource_create_blob_args args{};
    args.res_handle = g_next_res_id++;
    args.ctx_id = ctx_id_;
    args.blob_mem = GSVIRT_RENDERER_BLOB_MEM_HOST3D;
    args.blob_flags = GSVIRT_RENDERER_BLOB_FLAG_USE_MAPPABLE;
    args.size = size;
    if (int r = gsvirt_renderer_resource_create_blob(&args); r < 0)
      return fail_errno("inproc: cannot create a blob of " + std::to_string(size) + " bytes", r);
    void* map = nullptr;
    uint64_t mapped = 0;
    int r = gsvirt_renderer_ctx_attach_resource(int(ctx_id_), int(args.res_handle));
    if (r == 0) r = gsvirt_renderer_resource_get_map(args.res_handle, &map, &mapped);
    if (r < 0) {
      gsvirt_renderer_resource_unref(args.res_handle);
      return fail_errno("inproc: cannot attach or map the blob", r);
    }
    *out = Blob{args.res_handle, map, mapped};
    return true;
  }

  void destroy_blob(const Blob& blob) override { gsvirt_renderer_resource_unref(blob.resource_id); }

  bool submit(const void* cmds, size_t size, bool wait) override {
    if (!ctx_id_) return fail("inproc: submit before init_context");
    if (size % 4 || size / 4 > size_t(INT32_MAX))
      return fail("inproc: submit size " + std::to_string(size) + " is not a dword count");
    int r = gsvirt_renderer_submit_cmd(const_cast<void*>(cmds), int(ctx_id_), int(size / 4));
    if (r < 0) return fail_errno("inproc: the host rejected the command stream", r);
    return !wait || wait_idle();
  }

 private:
  bool wait_idle() {
    uint64_t fence_id = ++fence_seqno_;
    int r = gsvirt_renderer_context_create_fence(ctx_id_, 0, 0, fence_id);
    if (r < 0) return fail_errno("inproc: cannot create a fence", r);
    if (!g_owns_fence_callback) return true;
    for (;;) {
      {
        std::lock_guard<std::mutex> lock(g_retired.mutex);
        auto it = g_retired.last_by_ctx.find(ctx_id_);
        if (it != g_retired.last_by_ctx.end() && it->second >= fence_id) return true;
      }
      gsvirt_renderer_poll();
      std::this_thread::yield();
    }
  }

  bool fail(std::string message) {
    error_ = std::move(message);
    log_debug(kDebugTransport, "%s", error_.c_str());
    return false;
  }
  bool fail_errno(const std::string& message, int err) {
    return fail(message + ": " + std::strerror(-err));
  }

  uint32_t ctx_id_ = 0;
  uint64_t fence_seqno_ = 0;
  std::string error_;
};

}  // namespace

std::unique_ptr<Transport> create_inproc_transport(std::string* error) {
  (void)error;
  return std::make_unique<InprocTransport>();
}

}  // namespace gsvirt::guest
