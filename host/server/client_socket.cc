#include "host/server/client_socket.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/fd_passing.h"
#include "common/log.h"

namespace gsvirt::server {
namespace {

constexpr size_t kInputBufferBytes = 64 * 1024;
// read_growing's first step; each later step doubles what has arrived.
constexpr size_t kFirstGrowthBytes = 64 * 1024;

}  // namespace

// One recvmsg usually brings several small messages (a submit and the SYNC_READ behind it), which
// keeps the round trip to few system calls. I/O is tried first and polled only when it would block.
ClientSocket::ClientSocket(int fd, int stall_timeout_ms)
    : fd_(fd), stall_timeout_ms_(stall_timeout_ms), input_(kInputBufferBytes) {}

void ClientSocket::set_deadline(std::chrono::steady_clock::time_point deadline) {
  deadline_ = deadline;
  has_deadline_ = true;
}

int ClientSocket::deadline_ms_left() const {
  if (!has_deadline_) return -1;
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline_ - std::chrono::steady_clock::now());
  return int(std::max<int64_t>(0, left.count()));
}

bool ClientSocket::read_exact(void* buf, size_t n, bool starts_message) {
  auto* p = static_cast<uint8_t*>(buf);
  bool block = starts_message && !has_deadline_;
  while (n > 0) {
    if (has_buffered_input()) {
      size_t take = std::min(n, input_end_ - input_begin_);
      std::memcpy(p, input_.data() + input_begin_, take);
      input_begin_ += take;
      p += take;
      n -= take;
      continue;
    }
    // Large payloads go straight to their destination; small reads refill the buffer.
    bool direct = n >= input_.size();
    ssize_t got = receive(direct ? p : input_.data(), direct ? n : input_.size(), block);
    if (got <= 0) return false;
    block = false;
    if (direct) {
      p += got;
      n -= size_t(got);
    } else {
      input_begin_ = 0;
      input_end_ = size_t(got);
    }
  }
  return true;
}

bool ClientSocket::read_growing(std::vector<uint8_t>& out, size_t n) {
  out.clear();
  size_t filled = 0;
  while (filled < n) {
    size_t target = std::min(n, std::max(kFirstGrowthBytes, filled * 2));
    out.resize(target);
    if (!read_exact(out.data() + filled, target - filled)) return false;
    filled = target;
  }
  return true;
}

bool ClientSocket::send_reply(VtestReply& reply) {
  size_t sent = 0;
  bool fds_sent = reply.fds.empty();
  while (sent < reply.bytes.size() || !fds_sent) {
    iovec iov{reply.bytes.data() + sent, reply.bytes.size() - sent};
    const std::span<const int> fds = fds_sent ? std::span<const int>() : std::span<const int>(reply.fds);
    ssize_t n = send_with_fds(fd_, &iov, 1, fds, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) {
      if (!wait_for(POLLOUT)) return false;
      continue;
    }
    if (n <= 0) return false;
    sent += size_t(n);
    fds_sent = true;
  }
  return true;
}

void ClientSocket::drop_fds() {
  for (int fd : fds_) close(fd);
  fds_.clear();
  truncated_fds_ = false;
}

ssize_t ClientSocket::receive(uint8_t* dst, size_t n, bool block) {
  for (;;) {
    const FdReceive received = receive_with_fds(fd_, dst, n, block ? 0 : MSG_DONTWAIT, &fds_);
    const ssize_t got = received.bytes;
    if (got < 0 && errno == EINTR) continue;
    if (got < 0 && errno == EAGAIN) {
      if (!wait_for(POLLIN)) return -1;
      continue;
    }
    if (received.fds_truncated) truncated_fds_ = true;
    return got;
  }
}

bool ClientSocket::wait_for(short events) {
  pollfd p{fd_, events, 0};
  for (;;) {
    int left = deadline_ms_left();
    bool deadline_first = left >= 0 && left < stall_timeout_ms_;
    int r = ::poll(&p, 1, deadline_first ? left : stall_timeout_ms_);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0 && deadline_first)
      log_error("vtest: client did not finish the handshake in time; dropping it");
    else if (r == 0)
      log_error("vtest: client stalled for %d ms; dropping it", stall_timeout_ms_);
    return r > 0 && (p.revents & (events | POLLHUP | POLLERR));
  }
}

}  // namespace gsvirt::server
