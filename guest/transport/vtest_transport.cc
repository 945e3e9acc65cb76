// vtest transport: a unix socket to gsvirt-server (docs/transports.md).
//
// submit() sends SUBMIT_CMD2 in a single writev. With `wait`, the batch also sets this
// connection's timeline sync to the next value, and a SYNC_READ follows in the same write: the
// server executes messages in order, so its answer arrives after the batch ran. Contexts that
// complete asynchronously may answer with an older value; then a SYNC_WAIT fd is polled.
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

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
  const std::string& error() const override { return error_; }

  bool get_capset(uint32_t capset_id, std::vector<uint8_t>& out) override {
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

  bool init_context(uint32_t capset_id) override {
    if (context_ready_) return fail("vtest: init_context called twice");
    uint32_t init[] = {kContextInitDwords, kContextInit, capset_id};
    uint32_t create_sync[] = {kSyncCreateDwords, kSyncCreate, 0, 0};
    uint32_t header[2], sync_id = 0;
    if (!send_all(init, sizeof init) || !send_all(create_sync, sizeof create_sync) ||
        !read_header(kSyncCreate, header) || header[0] != 1 ||
        !read_all(&sync_id, sizeof sync_id, nullptr))
      return fail("vtest: CONTEXT_INIT for capset " + std::to_string(capset_id) +
                  " failed (the server dropped the connection: see its log)");
    timeline_sync_ = sync_id;
    context_ready_ = true;
    return true;
  }

  bool create_blob(uint64_t size, Blob* out) override {
    uint32_t msg[] = {kCreateBlobDwords, kResourceCreateBlob, kBlobTypeHost3d,
                      kBlobFlagMappable | kBlobFlagShareable, uint32_t(size), uint32_t(size >> 32),
                      0, 0};
    uint32_t reply[3];
    int fd = -1;
    if (!send_all(msg, sizeof msg) || !read_all(reply, sizeof reply, &fd)) return false;
    if (reply[0] != 1 || reply[1] != kResourceCreateBlob || fd < 0) {
      if (fd >= 0) close(fd);
      return fail("vtest: RESOURCE_CREATE_BLOB reply is malformed or carries no fd");
    }
    void* map = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (map == MAP_FAILED) return fail_errno("vtest: cannot map blob " + std::to_string(reply[2]));
    *out = Blob{reply[2], map, size};
    return true;
  }

  void destroy_blob(const Blob& blob) override {
    if (blob.map) munmap(blob.map, blob.size);
    uint32_t msg[] = {kResourceUnrefDwords, kResourceUnref, blob.resource_id};
    (void)send_all(msg, sizeof msg);
  }

  bool submit(const void* cmds, size_t size, bool wait) override {
    if (!context_ready_) return fail("vtest: submit before init_context");
    if (size % 4 || size / 4 > kMaxCmdDwords)
      return fail("vtest: submit size " + std::to_string(size) + " is not a dword count or too big");
    uint32_t cmd_dwords = uint32_t(size / 4);
    uint32_t head[2 + 1 + kSubmitBatchDwords];
    uint32_t sync_point = wait ? 1 : 0;
    head[0] = 1 + kSubmitBatchDwords + cmd_dwords + sync_point * kSyncWaitEntryDwords;
    head[1] = kSubmitCmd2;
    head[2] = 1;  // batch count
    SubmitBatch batch{};
    batch.cmd_offset = 1 + kSubmitBatchDwords;
    batch.cmd_size = cmd_dwords;
    batch.sync_offset = batch.cmd_offset + cmd_dwords;
    batch.sync_count = sync_point;
    std::memcpy(head + 3, &batch, sizeof batch);
    uint64_t target = timeline_value_ + 1;
    uint32_t tail[3 + 3] = {timeline_sync_, uint32_t(target), uint32_t(target >> 32),
                            kSyncReadDwords, kSyncRead, timeline_sync_};
    iovec iov[3] = {{head, sizeof head}, {const_cast<void*>(cmds), size}, {tail, sizeof tail}};
    if (!writev_all(iov, wait ? 3 : 2)) return false;
    if (!wait) return true;
    timeline_value_ = target;
    return wait_for_timeline(target);
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
      return fail("vtest: handshake failed: " + error_);
    if (agreed != kProtocolVersion)
      return fail("vtest: server speaks protocol " + std::to_string(agreed) + ", gsvirt needs 3");
    return true;
  }

  bool wait_for_timeline(uint64_t target) {
    uint32_t reply[4];
    if (!read_all(reply, sizeof reply, nullptr)) return false;
    if (reply[0] != 2 || reply[1] != kSyncRead) return fail("vtest: SYNC_READ reply is malformed");
    uint64_t value = uint64_t(reply[3]) << 32 | reply[2];
    if (value >= target) return true;
    // Asynchronous context: wait on an eventfd the server signals when the sync is reached.
    uint32_t wait_msg[] = {kSyncWaitFixedDwords + kSyncWaitEntryDwords, kSyncWait, 0, 0,
                           timeline_sync_, uint32_t(target), uint32_t(target >> 32)};
    uint32_t header[2];
    int fd = -1;
    if (!send_all(wait_msg, sizeof wait_msg) || !read_all(header, sizeof header, &fd)) return false;
    if (fd < 0) return fail("vtest: SYNC_WAIT reply carries no fd");
    pollfd p{fd, POLLIN, 0};
    while (::poll(&p, 1, -1) < 0 && errno == EINTR) {
    }
    close(fd);
    return true;
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
      iovec iov{p, size};
      alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 4)];
      msghdr msg{};
      msg.msg_iov = &iov;
      msg.msg_iovlen = 1;
      msg.msg_control = control;
      msg.msg_controllen = sizeof control;
      ssize_t n = recvmsg(fd_, &msg, MSG_CMSG_CLOEXEC);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return fail_errno("vtest: read from the server failed");
      if (n == 0) return fail("vtest: the server closed the connection (see its log)");
      take_fds(msg, fd);
      p += n;
      size -= size_t(n);
    }
    return true;
  }

  static void take_fds(msghdr& msg, int* fd) {
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
      size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (size_t i = 0; i < count; i++) {
        int received;
        std::memcpy(&received, CMSG_DATA(c) + i * sizeof(int), sizeof received);
        if (fd && *fd < 0) *fd = received;
        else close(received);
      }
    }
  }

  bool fail(std::string message) {
    error_ = std::move(message);
    log_debug(kDebugTransport, "%s", error_.c_str());
    return false;
  }
  bool fail_errno(const std::string& message) { return fail(message + ": " + std::strerror(errno)); }

  int fd_ = -1;
  bool context_ready_ = false;
  uint32_t timeline_sync_ = 0;
  uint64_t timeline_value_ = 0;
  std::string error_;
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
