// vtest transport: a unix socket to gsvirt-server (docs/transports.md).
//
// Each ring's timeline is a vtest sync created with the context. A submit is SUBMIT_CMD2 with the
// RING_IDX flag in a single writev; a point rides along as a sync entry (the ring's sync, the
// point), which the server sets when the context retires the fence behind the batch. poll is a
// SYNC_READ; wait reads the sync and, when the point is still ahead (an asynchronous context),
// asks SYNC_WAIT for an fd and polls it with the caller's timeout, without holding the socket.
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "common/fd_passing.h"
#include "common/log.h"
#include "guest/transport/transport.h"
#include "protocol/vtest/vtest_protocol.h"

namespace gsvirt::guest {
namespace {

using namespace gsvirt::vtest;

class VtestTransport final : public Transport {
 public:
  ~VtestTransport() override {
    if (fd_ >= 0) close(fd_);
  }

  bool connect_to(const std::string& path) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path.empty() || path.size() >= sizeof addr.sun_path)
      return fail("vtest: socket path \"" + path + "\" is empty or too long");
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0 || connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
      return fail_errno("vtest: cannot connect to " + path);
    return handshake();
  }

  const char* name() const override { return "vtest"; }

 protected:
  bool do_get_capset(uint32_t capset_id, std::vector<uint8_t>& out) override {
    // Version 0 asks gsvirt-server for the newest version it has.
    uint32_t msg[] = {kGetCapsetDwords, kGetCapset, capset_id, 0};
    uint32_t header[2];
    if (!send_all(msg, sizeof msg) || !read_header(kGetCapset, header)) return false;
    if (header[0] == 0) return fail("vtest: GET_CAPSET reply has no validity word");
    std::vector<uint32_t> words(header[0]);
    if (!read_all(words.data(), words.size() * 4, nullptr)) return false;
    if (words[0] == 0) return fail("vtest: the server has no capset " + std::to_string(capset_id));
    out.assign(reinterpret_cast<uint8_t*>(words.data() + 1),
               reinterpret_cast<uint8_t*>(words.data() + words.size()));
    return true;
  }

  // CONTEXT_INIT, then one timeline sync per ring, all in one write.
  bool do_init_context(uint32_t capset_id, uint32_t num_rings) override {
    std::vector<uint32_t> msg = {kContextInitDwords, kContextInit, capset_id};
    for (uint32_t i = 0; i < num_rings; i++) msg.insert(msg.end(), {kSyncCreateDwords, kSyncCreate, 0, 0});
    if (!send_all(msg.data(), msg.size() * 4))
      return fail("vtest: CONTEXT_INIT for capset " + std::to_string(capset_id) + " failed: " + error());
    std::vector<uint32_t> syncs(num_rings);
    for (uint32_t& sync_id : syncs) {
      uint32_t header[2];
      if (!read_header(kSyncCreate, header) || header[0] != 1 ||
          !read_all(&sync_id, sizeof sync_id, nullptr))
        return fail("vtest: CONTEXT_INIT for capset " + std::to_string(capset_id) +
                    " failed (the server dropped the connection: see its log)");
    }
    ring_syncs_ = std::move(syncs);
    reached_.assign(num_rings, 0);
    return true;
  }

  bool do_create_blob(uint64_t size, Blob* out) override {
    uint32_t msg[] = {kCreateBlobDwords, kResourceCreateBlob, kBlobTypeHost3d,
                      kBlobFlagMappable | kBlobFlagShareable, uint32_t(size), uint32_t(size >> 32),
                      0, 0};
    uint32_t reply[3];
    int fd = -1;
    if (!send_all(msg, sizeof msg) || !read_all(reply, sizeof reply, &fd)) return false;
    if (reply[0] == 1 && reply[1] == kResourceCreateBlob && reply[2] == 0 && fd < 0)
      return fail("vtest: the host refused a blob of " + std::to_string(size) +
                  " bytes (a quota or its file-size limit; its log says which)");
    if (reply[0] != 1 || reply[1] != kResourceCreateBlob || fd < 0) {
      if (fd >= 0) close(fd);
      return fail("vtest: RESOURCE_CREATE_BLOB reply is malformed or carries no fd");
    }
    void* map = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int err = errno;
    close(fd);
    if (map == MAP_FAILED) return fail_errno("vtest: cannot map blob " + std::to_string(reply[2]), err);
    *out = Blob{reply[2], map, size};
    return true;
  }

  void do_destroy_blob(const Blob& blob) override {
    if (blob.map) munmap(blob.map, blob.size);
    uint32_t msg[] = {kResourceUnrefDwords, kResourceUnref, blob.resource_id};
    (void)send_all(msg, sizeof msg);
  }

  bool do_submit(uint32_t ring, const void* cmds, size_t size, uint64_t point) override {
    return send_submit(ring, cmds, size, point, false);
  }

  uint64_t do_poll(uint32_t ring) override {
    uint64_t value = 0;
    if (!read_sync(ring, false, &value)) return reached_[ring];
    return value;
  }

  // Straight to SYNC_WAIT: a caller that expects the point to be reached already polls first
  // (poll_point, one SYNC_READ); one that waits has usually seen it is not (the gsgpu driver reads
  // its fence page), and a SYNC_READ first would cost it a round trip and two wake-ups for nothing.
  WaitResult do_wait(uint32_t ring, uint64_t point, uint64_t timeout_ns,
                     std::unique_lock<std::mutex>& lock) override {
    if (reached_[ring] >= point) return WaitResult::kReached;
    if (timeout_ns == 0) {
      uint64_t value = 0;
      if (!read_sync(ring, false, &value)) return WaitResult::kError;
      return value >= point ? WaitResult::kReached : WaitResult::kTimeout;
    }
    return wait_after_read(ring, point, 0, timeout_ns, lock);
  }

  // The submit and the SYNC_READ behind it go out in one write: the server executes messages in
  // order, so its answer comes after the batch ran, and a synchronous context has reached the
  // point already.
  bool do_submit_and_wait(const void* cmds, size_t size, uint64_t point,
                          std::unique_lock<std::mutex>& lock) override {
    if (!send_submit(0, cmds, size, point, true)) return false;
    uint64_t value = 0;
    if (!read_sync(0, true, &value)) return false;
    return wait_after_read(0, point, value, kWaitForever, lock) == WaitResult::kReached;
  }

 private:
  static constexpr uint32_t kMaxCmdDwords = 16u << 20;

  bool handshake() {
    static const char kName[] = "gsvirt-guest";
    // CREATE_RENDERER's length counts bytes (a quirk of the protocol).
    uint32_t create[2] = {sizeof kName, kCreateRenderer};
    uint32_t ping[2] = {0, kPingProtocolVersion};
    uint32_t version[3] = {kProtocolVersionDwords, kProtocolVersionCmd, kProtocolVersion};
    uint32_t header[2], agreed = 0;
    if (!send_all(create, sizeof create) || !send_all(kName, sizeof kName) ||
        !send_all(ping, sizeof ping) || !read_header(kPingProtocolVersion, header) ||
        !send_all(version, sizeof version) || !read_header(kProtocolVersionCmd, header) ||
        header[0] != 1 || !read_all(&agreed, sizeof agreed, nullptr))
      return fail("vtest: handshake failed: " + error());
    if (agreed != kProtocolVersion)
      return fail("vtest: server speaks protocol " + std::to_string(agreed) + ", gsvirt needs 3");
    return true;
  }

  // SUBMIT_CMD2 with one batch on `ring`, setting the ring's sync to `point` (when not 0) once the
  // batch retires; `then_read` appends a SYNC_READ of that sync to the same write.
  bool send_submit(uint32_t ring, const void* cmds, size_t size, uint64_t point, bool then_read) {
    if (size / 4 > kMaxCmdDwords)
      return fail("vtest: submit size " + std::to_string(size) + " is too big");
    uint32_t cmd_dwords = uint32_t(size / 4);
    uint32_t sync_count = point ? 1 : 0;
    uint32_t head[2 + 1 + kSubmitBatchDwords];
    head[0] = 1 + kSubmitBatchDwords + cmd_dwords + sync_count * kSyncWaitEntryDwords;
    head[1] = kSubmitCmd2;
    head[2] = 1;  // batch count
    SubmitBatch batch{};
    batch.flags = kSubmitFlagRingIdx;
    batch.ring_idx = ring;
    batch.cmd_offset = 1 + kSubmitBatchDwords;
    batch.cmd_size = cmd_dwords;
    batch.sync_offset = batch.cmd_offset + cmd_dwords;
    batch.sync_count = sync_count;
    std::memcpy(head + 3, &batch, sizeof batch);
    uint32_t sync[3] = {ring_syncs_[ring], uint32_t(point), uint32_t(point >> 32)};
    uint32_t read[3] = {kSyncReadDwords, kSyncRead, ring_syncs_[ring]};
    iovec iov[4] = {{head, sizeof head}, {const_cast<void*>(cmds), size}, {sync, sizeof sync},
                    {read, sizeof read}};
    int count = 2;
    if (point) iov[count++] = {sync, sizeof sync};
    if (then_read) iov[count++] = {read, sizeof read};
    return writev_all(iov, count);
  }

  // SYNC_READ of the ring's sync (`already_sent`: the request went out with a submit).
  bool read_sync(uint32_t ring, bool already_sent, uint64_t* value) {
    uint32_t msg[] = {kSyncReadDwords, kSyncRead, ring_syncs_[ring]};
    if (!already_sent && !send_all(msg, sizeof msg)) return false;
    uint32_t reply[4];
    if (!read_all(reply, sizeof reply, nullptr)) return false;
    if (reply[0] != 2 || reply[1] != kSyncRead) return fail("vtest: SYNC_READ reply is malformed");
    *value = uint64_t(reply[3]) << 32 | reply[2];
    if (*value > reached_[ring]) reached_[ring] = *value;
    return true;
  }

  // The point was not reached when the sync was read (asynchronous context): SYNC_WAIT gives an
  // fd the server signals once it is, polled here without holding the connection.
  WaitResult wait_after_read(uint32_t ring, uint64_t point, uint64_t value, uint64_t timeout_ns,
                             std::unique_lock<std::mutex>& lock) {
    if (value >= point) return WaitResult::kReached;
    if (timeout_ns == 0) return WaitResult::kTimeout;
    uint32_t timeout_ms = uint32_t(std::min<uint64_t>(timeout_ns / 1000000, UINT32_MAX));
    uint32_t wait_msg[] = {kSyncWaitFixedDwords + kSyncWaitEntryDwords, kSyncWait, 0, timeout_ms,
                           ring_syncs_[ring], uint32_t(point), uint32_t(point >> 32)};
    uint32_t header[2];
    int fd = -1;
    if (!send_all(wait_msg, sizeof wait_msg) || !read_all(header, sizeof header, &fd))
      return WaitResult::kError;
    if (fd < 0) {
      fail("vtest: SYNC_WAIT reply carries no fd");
      return WaitResult::kError;
    }
    lock.unlock();
    WaitResult result = poll_fd(fd, timeout_ns);
    close(fd);  // the server notices a wait nobody listens to any more and drops it
    return result;
  }

  static WaitResult poll_fd(int fd, uint64_t timeout_ns) {
    timespec limit{time_t(std::min<uint64_t>(timeout_ns / 1000000000, INT32_MAX)),
                   long(timeout_ns % 1000000000)};
    pollfd p{fd, POLLIN, 0};
    for (;;) {
      int r = ppoll(&p, 1, timeout_ns == kWaitForever ? nullptr : &limit, nullptr);
      if (r < 0 && errno == EINTR) continue;  // restarts the full timeout: good enough here
      if (r > 0) return WaitResult::kReached;
      return r == 0 ? WaitResult::kTimeout : WaitResult::kError;
    }
  }

  bool read_header(uint32_t command, uint32_t header[2]) {
    if (!read_all(header, 8, nullptr)) return false;
    if (header[1] != command)
      return fail("vtest: expected a reply to command " + std::to_string(command) + ", got " +
                  std::to_string(header[1]));
    return true;
  }

  bool send_all(const void* data, size_t size) {
    iovec iov{const_cast<void*>(data), size};
    return writev_all(&iov, 1);
  }

  bool writev_all(iovec* iov, int count) {
    while (count > 0) {
      msghdr msg{};
      msg.msg_iov = iov;
      msg.msg_iovlen = size_t(count);
      ssize_t n = sendmsg(fd_, &msg, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return fail_errno("vtest: write to the server failed");
      size_t left = size_t(n);
      while (count > 0 && left >= iov->iov_len) {
        left -= iov->iov_len;
        iov++;
        count--;
      }
      if (count > 0) {
        iov->iov_base = static_cast<uint8_t*>(iov->iov_base) + left;
        iov->iov_len -= left;
      }
    }
    return true;
  }

  // Reads exactly `size` bytes; an fd passed with them lands in *fd (others are closed).
  bool read_all(void* data, size_t size, int* fd) {
    auto* p = static_cast<uint8_t*>(data);
    while (size > 0) {
      std::vector<int> fds;
      const ssize_t n = receive_with_fds(fd_, p, size, 0, &fds).bytes;
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return fail_errno("vtest: read from the server failed");
      if (n == 0) return fail("vtest: the server closed the connection (see its log)");
      keep_first_fd(fds, fd);
      p += n;
      size -= size_t(n);
    }
    return true;
  }

  // The first descriptor lands in *fd when one is wanted and none came yet; the others are closed.
  static void keep_first_fd(const std::vector<int>& fds, int* fd) {
    for (int received : fds) {
      if (fd && *fd < 0) *fd = received;
      else close(received);
    }
  }

  using Transport::fail_errno;
  bool fail_errno(const std::string& message) { return Transport::fail_errno(message, errno); }

  int fd_ = -1;
  std::vector<uint32_t> ring_syncs_;  // the timeline sync of each ring
  std::vector<uint64_t> reached_;     // newest value read from each ring's sync
};

}  // namespace

std::unique_ptr<Transport> create_vtest_transport(const std::string& socket_path,
                                                  std::string* error) {
  auto transport = std::make_unique<VtestTransport>();
  if (!transport->connect_to(socket_path)) {
    if (error) *error = transport->error();
    return nullptr;
  }
  return transport;
}

}  // namespace gsvirt::guest
