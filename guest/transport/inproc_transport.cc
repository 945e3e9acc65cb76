// In-process transport: the host renderer is linked into this process and called through its C
// API. Blobs are the host's own mappings (zero copy). A timeline point is a context fence whose
// id is the point (gsvirt_renderer_context_create_fence on the ring); the renderer's
// write_context_fence callback records the newest retired fence per (context, ring), and a wait
// sleeps on the renderer's poll fd between gsvirt_renderer_poll calls.
#include <poll.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>

#include "common/log.h"
#include "guest/transport/transport.h"
#include "gsvirt_renderer.h"

namespace gsvirt::guest {
namespace {

// Fences retired by the in-process renderer: the newest fence id per (context, ring). Fence ids
// are the transport's timeline points, so "newest retired" is the ring's reached point.
struct RetiredFences {
  std::mutex mutex;
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> last;
};
RetiredFences g_retired;
// True when this transport initialised the renderer and so receives its fence callbacks; false
// when the embedding program did (then contexts are treated as synchronous).
bool g_owns_fence_callback = false;
std::once_flag g_init_once;
std::atomic<uint32_t> g_next_ctx_id{1};
std::atomic<uint32_t> g_next_res_id{1};
// Contexts that finish without notifying are asked again this often while someone waits.
constexpr uint64_t kPollIntervalNs = 1000000;

void on_fence_retired(void*, uint32_t ctx_id, uint32_t ring_idx, uint64_t fence_id) {
  std::lock_guard<std::mutex> lock(g_retired.mutex);
  uint64_t& last = g_retired.last[{ctx_id, ring_idx}];
  if (fence_id > last) last = fence_id;
}

void init_renderer_once() {
  std::call_once(g_init_once, [] {
    static const gsvirt_renderer_callbacks callbacks{GSVIRT_RENDERER_CALLBACKS_VERSION,
                                                     on_fence_retired};
    g_owns_fence_callback = gsvirt_renderer_init(nullptr, 0, &callbacks) == 0;
  });
}

uint64_t retired_point(uint32_t ctx_id, uint32_t ring) {
  std::lock_guard<std::mutex> lock(g_retired.mutex);
  auto it = g_retired.last.find({ctx_id, ring});
  return it == g_retired.last.end() ? 0 : it->second;
}

class InprocTransport final : public Transport {
 public:
  InprocTransport() { init_renderer_once(); }
  ~InprocTransport() override {
    if (ctx_id_) gsvirt_renderer_context_destroy(ctx_id_);
    std::lock_guard<std::mutex> lock(g_retired.mutex);
    std::erase_if(g_retired.last, [this](const auto& entry) { return entry.first.first == ctx_id_; });
  }

  const char* name() const override { return "inproc"; }

 protected:
  bool do_get_capset(uint32_t capset_id, std::vector<uint8_t>& out) override {
    uint32_t max_ver = 0, max_size = 0;
    gsvirt_renderer_get_cap_set(capset_id, &max_ver, &max_size);
    if (max_size == 0) return fail("inproc: capset " + std::to_string(capset_id) +
                                   " is not registered in this process");
    out.assign(max_size, 0);
    if (gsvirt_renderer_fill_caps(capset_id, max_ver, out.data()) < 0)
      return fail("inproc: fill_caps failed");
    return true;
  }

  bool do_init_context(uint32_t capset_id, uint32_t num_rings) override {
    (void)num_rings;  // the renderer offers every ring below 64 to every context
    uint32_t id = g_next_ctx_id++;
    int r = gsvirt_renderer_context_create_with_flags(id, capset_id, 6, "inproc");
    if (r < 0) return fail_errno("inproc: cannot create a context for capset " +
                                 std::to_string(capset_id), -r);
    ctx_id_ = id;
    return true;
  }

  bool do_create_blob(uint64_t size, Blob* out) override {
    gsvirt_renderer_resource_create_blob_args args{};
    args.res_handle = g_next_res_id++;
    args.ctx_id = ctx_id_;
    args.blob_mem = GSVIRT_RENDERER_BLOB_MEM_HOST3D;
    args.blob_flags = GSVIRT_RENDERER_BLOB_FLAG_USE_MAPPABLE;
    args.size = size;
    if (int r = gsvirt_renderer_resource_create_blob(&args); r < 0)
      return fail_errno("inproc: cannot create a blob of " + std::to_string(size) + " bytes", -r);
    void* map = nullptr;
    uint64_t mapped = 0;
    int r = gsvirt_renderer_ctx_attach_resource(int(ctx_id_), int(args.res_handle));
    if (r == 0) r = gsvirt_renderer_resource_get_map(args.res_handle, &map, &mapped);
    if (r < 0) {
      gsvirt_renderer_resource_unref(args.res_handle);
      return fail_errno("inproc: cannot attach or map the blob", -r);
    }
    *out = Blob{args.res_handle, map, mapped};
    return true;
  }

  void do_destroy_blob(const Blob& blob) override {
    gsvirt_renderer_resource_unref(blob.resource_id);
  }

  bool do_submit(uint32_t ring, const void* cmds, size_t size, uint64_t point) override {
    if (size / 4 > size_t(INT32_MAX))
      return fail("inproc: submit size " + std::to_string(size) + " is too big");
    int r = gsvirt_renderer_submit_cmd(const_cast<void*>(cmds), int(ctx_id_), int(size / 4));
    if (r < 0) return fail_errno("inproc: the host rejected the command stream", -r);
    if (point == 0) return true;
    r = gsvirt_renderer_context_create_fence(ctx_id_, 0, ring, point);
    if (r < 0) return fail_errno("inproc: cannot create fence " + std::to_string(point) +
                                 " on ring " + std::to_string(ring), -r);
    return true;
  }

  uint64_t do_poll(uint32_t ring) override {
    gsvirt_renderer_poll();
    return reached(ring);
  }

  WaitResult do_wait(uint32_t ring, uint64_t point, uint64_t timeout_ns,
                     std::unique_lock<std::mutex>& lock) override {
    lock.unlock();  // the renderer serialises itself; nothing here needs the connection
    auto start = std::chrono::steady_clock::now();
    int poll_fd = gsvirt_renderer_get_poll_fd();
    for (;;) {
      gsvirt_renderer_poll();
      if (reached(ring) >= point) return WaitResult::kReached;
      uint64_t elapsed = uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                      std::chrono::steady_clock::now() - start).count());
      if (elapsed >= timeout_ns) return WaitResult::kTimeout;
      // Sleep until the poll fd says something retired, the fallback interval passes, or the
      // caller's time is up. (timeout_ns - elapsed, not a rounded sum: kWaitForever is UINT64_MAX,
      // and an overflow here once turned every wait's first millisecond into a busy loop.)
      const uint64_t sleep_ns = std::min<uint64_t>(timeout_ns - elapsed, kPollIntervalNs);
      const timespec sleep{0, long(sleep_ns)};
      pollfd p{poll_fd, POLLIN, 0};
      ::ppoll(&p, poll_fd >= 0 ? 1 : 0, &sleep, nullptr);
    }
  }

 private:
  uint64_t reached(uint32_t ring) {
    // Without the fence callback nothing can be observed: contexts count as synchronous.
    if (!g_owns_fence_callback) return UINT64_MAX;
    return retired_point(ctx_id_, ring);
  }

  uint32_t ctx_id_ = 0;
};

}  // namespace

std::unique_ptr<Transport> create_inproc_transport(std::string* error) {
  (void)error;
  return std::make_unique<InprocTransport>();
}

}  // namespace gsvirt::guest
