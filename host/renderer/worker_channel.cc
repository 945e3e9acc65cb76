#include "host/renderer/worker_channel.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include "common/fd_passing.h"

namespace gsvirt::renderer::worker {
namespace {

int ms_until(const Deadline& deadline) {
  if (!deadline) return -1;
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - Clock::now()).count();
  if (left <= 0) return 0;
  return left > INT_MAX ? INT_MAX : int(left);
}

}  // namespace

void Message::close_fds() {
  for (int fd : fds) close(fd);
  fds.clear();
}

int Message::take_fd() {
  if (fds.size() != 1) return -1;
  int fd = fds[0];
  fds.clear();
  return fd;
}

const char* io_status_name(IoStatus status) {
  switch (status) {
    case IoStatus::kOk: return "ok";
    case IoStatus::kClosed: return "the peer closed the connection";
    case IoStatus::kTimedOut: return "no answer within the time limit";
    case IoStatus::kTooLarge: return "a message larger than allowed";
    case IoStatus::kError: return "a socket error";
  }
  return "?";
}

Channel::Channel(int fd) : fd_(fd) {
  int flags = fcntl(fd_, F_GETFL);
  if (flags >= 0) fcntl(fd_, F_SETFL, flags | O_NONBLOCK);
}

Channel::~Channel() { close_now(); }

void Channel::close_now() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
}

IoStatus Channel::wait(short events, Deadline deadline) const {
  for (;;) {
    pollfd p{fd_, events, 0};
    int n = ::poll(&p, 1, ms_until(deadline));
    if (n > 0) return (p.revents & POLLNVAL) ? IoStatus::kError : IoStatus::kOk;
    if (n == 0) return IoStatus::kTimedOut;
    if (errno != EINTR) return IoStatus::kError;
  }
}

bool Channel::readable_now() const {
  pollfd p{fd_, POLLIN, 0};
  return fd_ >= 0 && ::poll(&p, 1, 0) > 0;
}

IoStatus Channel::send(uint32_t op, const void* body, size_t body_size, Deadline deadline,
                       const void* tail, size_t tail_size, int pass_fd) {
  if (fd_ < 0) return IoStatus::kClosed;
  if (body_size + tail_size > kMaxBodyBytes) return IoStatus::kTooLarge;
  Header header{op, uint32_t(body_size + tail_size)};
  iovec parts[3] = {{&header, sizeof header},
                    {const_cast<void*>(body), body_size},
                    {const_cast<void*>(tail), tail_size}};
  size_t part = 0;
  bool fd_sent = pass_fd < 0;
  while (part < 3) {
    if (parts[part].iov_len == 0) {
      part++;
      continue;
    }
    const std::span<const int> fds = fd_sent ? std::span<const int>() : std::span<const int>(&pass_fd, 1);
    const ssize_t n = send_with_fds(fd_, parts + part, 3 - part, fds, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN) return errno == EPIPE || errno == ECONNRESET ? IoStatus::kClosed : IoStatus::kError;
      if (IoStatus s = wait(POLLOUT, deadline); s != IoStatus::kOk) return s;
      continue;
    }
    fd_sent = true;
    for (size_t sent = size_t(n); sent > 0 && part < 3;) {
      size_t step = std::min(sent, parts[part].iov_len);
      parts[part].iov_base = static_cast<char*>(parts[part].iov_base) + step;
      parts[part].iov_len -= step;
      sent -= step;
      if (parts[part].iov_len == 0) part++;
    }
  }
  return IoStatus::kOk;
}

IoStatus Channel::read_exact(void* data, size_t size, std::vector<int>* fds, Deadline deadline) {
  auto* p = static_cast<uint8_t*>(data);
  while (size > 0) {
    const FdReceive got = receive_with_fds(fd_, p, size, 0, fds);
    const ssize_t n = got.bytes;
    if (got.fds_truncated) return IoStatus::kError;
    if (n == 0) return IoStatus::kClosed;
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN) return errno == ECONNRESET ? IoStatus::kClosed : IoStatus::kError;
      if (IoStatus s = wait(POLLIN, deadline); s != IoStatus::kOk) return s;
      continue;
    }
    p += n;
    size -= size_t(n);
  }
  return IoStatus::kOk;
}

IoStatus Channel::receive(Message* out, uint32_t max_body, Deadline deadline) {
  if (fd_ < 0) return IoStatus::kClosed;
  out->close_fds();
  Header header{};
  if (IoStatus s = read_exact(&header, sizeof header, &out->fds, deadline); s != IoStatus::kOk)
    return s;
  if (header.size > max_body) return IoStatus::kTooLarge;
  out->op = header.op;
  out->body.resize(header.size);
  return read_exact(out->body.data(), header.size, &out->fds, deadline);
}

}  // namespace gsvirt::renderer::worker
