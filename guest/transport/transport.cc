// The checks and locking every transport shares, and transport selection from the environment.
#include "guest/transport/transport.h"

#include <cstdlib>
#include <cstring>

#include "common/log.h"

namespace gsvirt::guest {

bool Transport::fail(std::string message) {
  log_debug(kDebugTransport, "%s", message.c_str());
  std::lock_guard<std::mutex> lock(error_mutex_);
  error_ = std::move(message);
  return false;
}

bool Transport::fail_errno(const std::string& message, int err) {
  return fail(message + ": " + std::strerror(err));
}

std::string Transport::error() const {
  std::lock_guard<std::mutex> lock(error_mutex_);
  return error_;
}

uint32_t Transport::num_rings() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return num_rings_;
}

bool Transport::check_ring(const char* call, uint32_t ring) {
  if (num_rings_ == 0) return fail(std::string(name()) + ": " + call + " before init_context");
  if (ring < num_rings_) return true;
  return fail(std::string(name()) + ": " + call + ": ring " + std::to_string(ring) +
              " is not below the context's " + std::to_string(num_rings_) + " rings");
}

bool Transport::get_capset(uint32_t capset_id, std::vector<uint8_t>& out) {
  std::lock_guard<std::mutex> lock(mutex_);
  return do_get_capset(capset_id, out);
}

bool Transport::init_context(uint32_t capset_id, uint32_t num_rings) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (num_rings_ != 0) return fail(std::string(name()) + ": init_context called twice");
  if (num_rings == 0 || num_rings > kMaxRings)
    return fail(std::string(name()) + ": init_context: " + std::to_string(num_rings) +
                " rings is not 1.." + std::to_string(kMaxRings));
  if (!do_init_context(capset_id, num_rings)) return false;
  num_rings_ = num_rings;
  submitted_.assign(num_rings, 0);
  return true;
}

bool Transport::create_blob(uint64_t size, Blob* out) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (num_rings_ == 0) return fail(std::string(name()) + ": create_blob before init_context");
  if (size == 0) return fail(std::string(name()) + ": create_blob of 0 bytes");
  return do_create_blob(size, out);
}

void Transport::destroy_blob(const Blob& blob) {
  std::lock_guard<std::mutex> lock(mutex_);
  do_destroy_blob(blob);
}

bool Transport::submit_on_ring(uint32_t ring, const void* cmds, size_t size, uint64_t point) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!check_ring("submit", ring)) return false;
  if (size % 4 || (size && !cmds))
    return fail(std::string(name()) + ": submit size " + std::to_string(size) +
                " is not a dword count");
  if (point != 0 && point <= submitted_[ring])
    return fail(std::string(name()) + ": submit: point " + std::to_string(point) + " of ring " +
                std::to_string(ring) + " does not exceed the last one, " +
                std::to_string(submitted_[ring]));
  if (!do_submit(ring, cmds, size, point)) return false;
  if (point) submitted_[ring] = point;
  return true;
}

uint64_t Transport::poll_point(uint32_t ring) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!check_ring("poll", ring)) return 0;
  return do_poll(ring);
}

WaitResult Transport::wait_point(uint32_t ring, uint64_t point, uint64_t timeout_ns) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!check_ring("wait", ring)) return WaitResult::kError;
  if (point > submitted_[ring]) {
    fail(std::string(name()) + ": wait: point " + std::to_string(point) + " of ring " +
         std::to_string(ring) + " was never submitted (last: " + std::to_string(submitted_[ring]) +
         ")");
    return WaitResult::kError;
  }
  if (point == 0) return WaitResult::kReached;
  return do_wait(ring, point, timeout_ns, lock);
}

uint64_t Transport::last_submitted_point(uint32_t ring) {
  std::lock_guard<std::mutex> lock(mutex_);
  return ring < submitted_.size() ? submitted_[ring] : 0;
}

bool Transport::submit(const void* cmds, size_t size, bool wait) {
  if (!wait) return submit_on_ring(0, cmds, size, 0);
  std::unique_lock<std::mutex> lock(mutex_);
  if (!check_ring("submit", 0)) return false;
  if (size % 4 || (size && !cmds))
    return fail(std::string(name()) + ": submit size " + std::to_string(size) +
                " is not a dword count");
  uint64_t point = submitted_[0] + 1;
  submitted_[0] = point;  // taken even on failure: the host may have seen it
  return do_submit_and_wait(cmds, size, point, lock);
}

bool Transport::do_submit_and_wait(const void* cmds, size_t size, uint64_t point,
                                   std::unique_lock<std::mutex>& lock) {
  if (!do_submit(0, cmds, size, point)) return false;
  return do_wait(0, point, kWaitForever, lock) == WaitResult::kReached;
}

std::unique_ptr<Transport> create_transport_from_env(std::string* error) {
  const char* kind = std::getenv("GSVIRT_TRANSPORT");
  const char* socket = std::getenv("GSVIRT_VTEST_SOCKET");
  bool has_socket = socket && *socket;
  if (!kind || !*kind) kind = has_socket ? "vtest" : "inproc";
  if (std::strcmp(kind, "inproc") == 0) return create_inproc_transport(error);
  if (std::strcmp(kind, "vtest") == 0)
    return create_vtest_transport(has_socket ? socket : "/tmp/gsvirt-vtest.sock", error);
  if (std::strcmp(kind, "drm") == 0) {
    const char* device = std::getenv("GSVIRT_DRM_DEVICE");
    return create_drm_transport(device ? device : "", error);
  }
  if (error)
    *error = std::string("GSVIRT_TRANSPORT=\"") + kind + "\" is not inproc, vtest or drm";
  return nullptr;
}

}  // namespace gsvirt::guest
