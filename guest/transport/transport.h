// How a guest driver reaches the host: one interface, three transports.
//
//   inproc  the host renderer linked into the same process (library mode)
//   vtest   a unix socket to gsvirt-server (vtest protocol v3, blobs as memfds via SCM_RIGHTS)
//   drm     virtio-gpu ioctls on /dev/dri/renderD* inside a VM
//
// Timelines (as Mesa's vn_renderer has them): a context has `num_rings` rings, each with a
// timeline of points the guest driver chooses (strictly increasing per ring). A command buffer is
// submitted on a ring, optionally with a point; the point is reached once the host has executed
// that buffer and the context has retired the work it started (asynchronous contexts retire later
// than the submit). Submits never wait; poll_point / wait_point observe the timeline.
// docs/transports.md says how each transport carries points (renderer fences, vtest syncs, DRM
// out-fences).
//
// Threading: every call may be made from any thread; calls are serialised per transport, except
// that a thread blocked in wait_point holds up nobody.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace gsvirt::guest {

// A host-visible shared-memory resource mapped into the guest.
struct Blob {
  uint32_t resource_id = 0;
  void* map = nullptr;
  uint64_t size = 0;
};

enum class WaitResult {
  kReached,  // the point has been reached
  kTimeout,  // the timeout ran out first
  kError,    // bad ring or point, or the transport failed (see error())
};

constexpr uint64_t kWaitForever = UINT64_MAX;

class Transport {
 public:
  // Rings a context gets when the driver does not ask for a number (what the vcomp ICD uses).
  static constexpr uint32_t kDefaultRings = 1;
  static constexpr uint32_t kMaxRings = 64;

  virtual ~Transport() = default;
  virtual const char* name() const = 0;

  // Fetches the capset the host reports for `capset_id` (wire version, XML hash, ...).
  bool get_capset(uint32_t capset_id, std::vector<uint8_t>& out);
  // Creates this connection's context for `capset_id` (CONTEXT_INIT) with rings
  // 0 .. num_rings - 1 (1..kMaxRings). Called once.
  bool init_context(uint32_t capset_id, uint32_t num_rings = kDefaultRings);
  uint32_t num_rings() const;

  // Creates a host-allocated blob of `size` bytes, attached to this connection's context and
  // mapped here. Resource ids are chosen by the transport.
  bool create_blob(uint64_t size, Blob* out);
  void destroy_blob(const Blob& blob);

  // Sends a command buffer to the context on `ring` and returns without waiting. `point` 0: no
  // timeline point; otherwise it must exceed every point submitted on that ring before.
  bool submit_on_ring(uint32_t ring, const void* cmds, size_t size, uint64_t point);
  // The highest point of `ring` known to be reached (0 = none yet, or a bad ring). Does not
  // block; it may lag behind the host by the time a notification takes to arrive.
  uint64_t poll_point(uint32_t ring);
  // Waits until `point` of `ring` is reached, at most timeout_ns (kWaitForever: no limit). A
  // point never submitted is kError (it could never be reached).
  WaitResult wait_point(uint32_t ring, uint64_t point, uint64_t timeout_ns);
  // The newest point submitted on `ring` (0 = none).
  uint64_t last_submitted_point(uint32_t ring);

  // Ring 0 in one call, for drivers that need no timeline of their own (the vcomp ICD): with
  // `wait`, returns only after the host has executed every command sent so far, so replies
  // written into the reply blob are visible.
  bool submit(const void* cmds, size_t size, bool wait);

  // Last error, for messages such as "vtest: cannot connect to /run/gsvirt.sock: ...".
  std::string error() const;

 protected:
  // What each transport implements. The public calls hold the transport's lock around these and
  // have checked the ring, the size (a dword multiple) and the point; do_wait is entered with
  // `lock` held and releases it while it blocks, so a wait never holds up other threads' calls.
  virtual bool do_get_capset(uint32_t capset_id, std::vector<uint8_t>& out) = 0;
  virtual bool do_init_context(uint32_t capset_id, uint32_t num_rings) = 0;
  virtual bool do_create_blob(uint64_t size, Blob* out) = 0;
  virtual void do_destroy_blob(const Blob& blob) = 0;
  virtual bool do_submit(uint32_t ring, const void* cmds, size_t size, uint64_t point) = 0;
  virtual uint64_t do_poll(uint32_t ring) = 0;
  virtual WaitResult do_wait(uint32_t ring, uint64_t point, uint64_t timeout_ns,
                             std::unique_lock<std::mutex>& lock) = 0;
  // Submit and wait for `point` on ring 0 in one exchange where the transport can (vtest: one
  // write); the default is do_submit then do_wait.
  virtual bool do_submit_and_wait(const void* cmds, size_t size, uint64_t point,
                                  std::unique_lock<std::mutex>& lock);

  // Records the error (any thread) and returns false.
  bool fail(std::string message);
  bool fail_errno(const std::string& message, int err);  // err: a positive errno

 private:
  bool check_ring(const char* call, uint32_t ring);

  mutable std::mutex mutex_;          // the connection: every call but the blocking part of a wait
  uint32_t num_rings_ = 0;            // 0 until init_context succeeded
  std::vector<uint64_t> submitted_;   // newest point submitted, per ring
  mutable std::mutex error_mutex_;
  std::string error_;
};

// Selects a transport from GSVIRT_TRANSPORT (inproc | vtest | drm; default vtest when
// GSVIRT_VTEST_SOCKET is set, else inproc). Returns nullptr and sets *error on failure.
std::unique_ptr<Transport> create_transport_from_env(std::string* error);

std::unique_ptr<Transport> create_inproc_transport(std::string* error);
std::unique_ptr<Transport> create_vtest_transport(const std::string& socket_path, std::string* error);
// `device_path` "" picks the first virtio-gpu render node. The capset is the one init_context is
// given, unless GSVIRT_CAPSET_ID names another (a VM may offer gsvirt under another id).
std::unique_ptr<Transport> create_drm_transport(const std::string& device_path, std::string* error);

}  // namespace gsvirt::guest
