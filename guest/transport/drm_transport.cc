// drm transport: virtio-gpu ioctls on a render node inside a VM.
//
// CONTEXT_INIT with the capset (GSVIRT_CAPSET_ID overrides it for VMMs that offer gsvirt under
// another id) and NUM_RINGS; blobs are HOST3D + MAPPABLE, mapped through the DRM fd; a submit is
// an EXECBUFFER with RING_IDX. A timeline point is the out-fence fd (sync_file) of its EXECBUFFER:
// the kernel signals it when the host retires the fence on that ring. Kept per ring until it
// signals; poll and wait poll those fds. The Linux uAPI is declared in protocol/virtgpu/virtgpu_uapi.h.
// Exercised by the `vm` suite (tests/vm): a Debian 13 guest kernel under QEMU 10.0 with gsvirt's
// libvirglrenderer.so.1, where the capset id comes from GSVIRT_CAPSET_ID (docs/vm.md).
#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xf86drm.h>

#include <algorithm>
#include <cerrno>
#include <deque>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "common/log.h"
#include "guest/transport/transport.h"
#include "protocol/virtgpu/virtgpu_uapi.h"

namespace gsvirt::guest {
namespace {

namespace vg = gsvirt::virtgpu;

int drm_ioctl(int fd, unsigned long request, void* arg) {
  int r;
  do {
    r = ioctl(fd, request, arg);
  } while (r == -1 && (errno == EINTR || errno == EAGAIN));
  return r;
}

bool is_virtio_gpu(int fd) {
  drmVersionPtr version = drmGetVersion(fd);
  if (!version) return false;
  bool match = version->name && std::strcmp(version->name, "virtio_gpu") == 0;
  drmFreeVersion(version);
  return match;
}

// Finds the first virtio-gpu render node; "" when there is none.
std::string find_virtio_gpu_node() {
  for (int minor = 128; minor < 192; minor++) {
    std::string path = "/dev/dri/renderD" + std::to_string(minor);
    int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) continue;
    bool match = is_virtio_gpu(fd);
    close(fd);
    if (match) return path;
  }
  return "";
}

// GSVIRT_CAPSET_ID, when set to a valid id, replaces the id the driver asks for.
uint32_t effective_capset(uint32_t requested) {
  const char* env = std::getenv("GSVIRT_CAPSET_ID");
  if (!env || !*env) return requested;
  char* end = nullptr;
  unsigned long id = std::strtoul(env, &end, 10);
  if (*end || id == 0 || id > 31) {
    log_error("drm: GSVIRT_CAPSET_ID=\"%s\" is not a capset id 1..31; using %u", env, requested);
    return requested;
  }
  return uint32_t(id);
}

class DrmTransport final : public Transport {
 public:
  ~DrmTransport() override {
    for (auto& ring : rings_)
      for (auto& fence : ring.pending) close(fence.fd);
    if (fd_ >= 0) close(fd_);
  }

  bool open_device(const std::string& requested_path) {
    std::string path = requested_path.empty() ? find_virtio_gpu_node() : requested_path;
    if (path.empty())
      return fail("drm: no virtio-gpu render node under /dev/dri (the drm transport runs in a VM "
                  "with virtio-gpu; elsewhere use GSVIRT_TRANSPORT=vtest or inproc)");
    fd_ = open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd_ < 0) return fail_errno("drm: cannot open " + path, errno);
    if (!is_virtio_gpu(fd_)) return fail("drm: " + path + " is not a virtio-gpu device");
    if (!require_feature(path, vg::kParamContextInit, "CONTEXT_INIT (VIRTGPU_PARAM_CONTEXT_INIT)",
                         "a VMM with context types, e.g. QEMU 9.0+ built with virglrenderer 1.0+") ||
        !require_feature(path, vg::kParamResourceBlob, "blob resources (VIRTGPU_PARAM_RESOURCE_BLOB)",
                         "e.g. QEMU -device virtio-gpu-gl-pci,blob=on") ||
        !require_feature(path, vg::kParamHostVisible, "host-visible memory (VIRTGPU_PARAM_HOST_VISIBLE)",
                         "e.g. QEMU -device virtio-gpu-gl-pci,hostmem=256M"))
      return false;
    supported_capsets_ = uint64_t(get_param(vg::kParamSupportedCapsetIds));
    return true;
  }

  const char* name() const override { return "drm"; }

 protected:
  bool do_get_capset(uint32_t capset_id, std::vector<uint8_t>& out) override {
    uint32_t id = effective_capset(capset_id);
    if (!offers(id)) return false;
    // The capset size is not queryable here; the host's caps fit one page.
    out.assign(4096, 0);
    vg::GetCaps args{};
    args.cap_set_id = id;
    args.cap_set_ver = 0;
    args.addr = reinterpret_cast<uintptr_t>(out.data());
    args.size = uint32_t(out.size());
    if (drm_ioctl(fd_, vg::kIoctlGetCaps, &args) != 0)
      return fail_errno("drm: GET_CAPS for capset " + std::to_string(id), errno);
    return true;
  }

  bool do_init_context(uint32_t capset_id, uint32_t num_rings) override {
    uint32_t id = effective_capset(capset_id);
    if (!offers(id)) return false;
    vg::ContextSetParam params[2] = {{vg::kContextParamCapsetId, id},
                                     {vg::kContextParamNumRings, num_rings}};
    vg::ContextInit args{};
    args.num_params = 2;
    args.ctx_set_params = reinterpret_cast<uintptr_t>(params);
    if (drm_ioctl(fd_, vg::kIoctlContextInit, &args) != 0)
      return fail_errno("drm: CONTEXT_INIT for capset " + std::to_string(id), errno);
    rings_.assign(num_rings, RingFences{});
    return true;
  }

  bool do_create_blob(uint64_t size, Blob* out) override {
    vg::ResourceCreateBlob args{};
    args.blob_mem = vg::kBlobMemHost3d;
    args.blob_flags = vg::kBlobFlagUseMappable;
    args.size = size;
    if (drm_ioctl(fd_, vg::kIoctlResourceCreateBlob, &args) != 0)
      return fail_errno("drm: RESOURCE_CREATE_BLOB of " + std::to_string(size) + " bytes", errno);
    vg::Map map_args{};
    map_args.handle = args.bo_handle;
    void* map = MAP_FAILED;
    if (drm_ioctl(fd_, vg::kIoctlMap, &map_args) == 0)
      map = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, off_t(map_args.offset));
    if (map == MAP_FAILED) {
      int err = errno;
      close_bo(args.bo_handle);
      return fail_errno("drm: cannot map blob", err);
    }
    bo_of_resource_[args.res_handle] = args.bo_handle;
    *out = Blob{args.res_handle, map, size};
    return true;
  }

  void do_destroy_blob(const Blob& blob) override {
    if (blob.map) munmap(blob.map, blob.size);
    auto it = bo_of_resource_.find(blob.resource_id);
    if (it == bo_of_resource_.end()) return;
    close_bo(it->second);
    bo_of_resource_.erase(it);
  }

  // EXECBUFFER on the ring; a point asks for an out-fence fd, kept until the fence signals.
  bool do_submit(uint32_t ring, const void* cmds, size_t size, uint64_t point) override {
    if (size > UINT32_MAX) return fail("drm: submit size " + std::to_string(size) + " is too big");
    RingFences& fences = rings_[ring];
    retire_signalled(fences);
    if (point && fences.pending.size() >= kMaxPendingFences) wait_oldest(fences);
    vg::Execbuffer args{};
    args.flags = vg::kExecbufRingIdx | (point ? vg::kExecbufFenceFdOut : 0);
    args.size = uint32_t(size);
    args.command = reinterpret_cast<uintptr_t>(cmds);
    args.fence_fd = -1;
    args.ring_idx = ring;
    if (drm_ioctl(fd_, vg::kIoctlExecbuffer, &args) != 0)
      return fail_errno("drm: EXECBUFFER on ring " + std::to_string(ring), errno);
    if (point && args.fence_fd < 0) return fail("drm: EXECBUFFER returned no out-fence fd");
    if (point) fences.pending.push_back({point, args.fence_fd});
    return true;
  }

  uint64_t do_poll(uint32_t ring) override {
    retire_signalled(rings_[ring]);
    return rings_[ring].reached;
  }

  WaitResult do_wait(uint32_t ring, uint64_t point, uint64_t timeout_ns,
                     std::unique_lock<std::mutex>& lock) override {
    RingFences& fences = rings_[ring];
    retire_signalled(fences);
    if (fences.reached >= point) return WaitResult::kReached;
    // Fences of a ring signal in order: the first pending one at or past `point` covers it.
    auto it = std::find_if(fences.pending.begin(), fences.pending.end(),
                           [point](const PendingFence& f) { return f.point >= point; });
    if (it == fences.pending.end()) return WaitResult::kReached;
    int fd = fcntl(it->fd, F_DUPFD_CLOEXEC, 0);
    if (fd < 0) {
      fail_errno("drm: cannot duplicate a fence fd", errno);
      return WaitResult::kError;
    }
    lock.unlock();
    WaitResult result = poll_fence(fd, timeout_ns);
    close(fd);
    return result;
  }

 private:
  int get_param(uint64_t param) {
    int value = 0;
    vg::Getparam args{param, reinterpret_cast<uintptr_t>(&value)};
    if (drm_ioctl(fd_, vg::kIoctlGetparam, &args) != 0) return 0;
    return value;
  }

  // Fails naming the feature when the kernel (or the VMM behind it) does not report `param` as 1.
  bool require_feature(const std::string& path, uint64_t param, const char* feature, const char* hint) {
    if (get_param(param) == 1) return true;
    return fail("drm: " + path + " does not offer " + feature + "; gsvirt needs it (" + hint + ")");
  }

  bool offers(uint32_t capset_id) {
    if (capset_id < 64 && (supported_capsets_ >> capset_id) & 1) return true;
    return fail("drm: the VMM does not offer capset " + std::to_string(capset_id) +
                " (set GSVIRT_CAPSET_ID if it offers gsvirt under another id)");
  }

  void close_bo(uint32_t handle) {
    drm_gem_close args{};
    args.handle = handle;
    drm_ioctl(fd_, DRM_IOCTL_GEM_CLOSE, &args);
  }

  struct PendingFence {
    uint64_t point;
    int fd;  // sync_file of the EXECBUFFER, readable once its fence signalled
  };
  struct RingFences {
    std::deque<PendingFence> pending;  // oldest first
    uint64_t reached = 0;
  };
  // Out-fence fds kept per ring before a submit waits for the oldest (bounds open fds).
  static constexpr size_t kMaxPendingFences = 256;

  static WaitResult poll_fence(int fd, uint64_t timeout_ns) {
    timespec limit{time_t(std::min<uint64_t>(timeout_ns / 1000000000, INT32_MAX)),
                   long(timeout_ns % 1000000000)};
    pollfd p{fd, POLLIN, 0};
    for (;;) {
      int r = ppoll(&p, 1, timeout_ns == kWaitForever ? nullptr : &limit, nullptr);
      if (r < 0 && errno == EINTR) continue;
      if (r > 0) return WaitResult::kReached;
      return r == 0 ? WaitResult::kTimeout : WaitResult::kError;
    }
  }

  void retire_signalled(RingFences& fences) {
    while (!fences.pending.empty() && poll_fence(fences.pending.front().fd, 0) == WaitResult::kReached)
      pop_oldest(fences);
  }

  void wait_oldest(RingFences& fences) {
    (void)poll_fence(fences.pending.front().fd, kWaitForever);
    pop_oldest(fences);
  }

  static void pop_oldest(RingFences& fences) {
    fences.reached = fences.pending.front().point;
    close(fences.pending.front().fd);
    fences.pending.pop_front();
  }

  int fd_ = -1;
  uint64_t supported_capsets_ = 0;
  std::map<uint32_t, uint32_t> bo_of_resource_;
  std::vector<RingFences> rings_;
};

}  // namespace

std::unique_ptr<Transport> create_drm_transport(const std::string& device_path,
                                                std::string* error) {
  auto transport = std::make_unique<DrmTransport>();
  if (!transport->open_device(device_path)) {
    if (error) *error = transport->error();
    return nullptr;
  }
  return transport;
}

}  // namespace gsvirt::guest
