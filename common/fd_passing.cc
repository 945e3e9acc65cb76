#include "common/fd_passing.h"

#include <sys/socket.h>

#include <cerrno>
#include <cstring>

namespace gsvirt {

FdReceive receive_with_fds(int socket, void* data, size_t size, int flags, std::vector<int>* fds) {
  iovec iov{data, size};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFdsPerMessage)];
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  FdReceive result;
  result.bytes = recvmsg(socket, &msg, flags | MSG_CMSG_CLOEXEC);
  if (result.bytes <= 0) return result;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    const size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < count; i++) {
      int fd;
      std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
      fds->push_back(fd);
    }
  }
  result.fds_truncated = (msg.msg_flags & MSG_CTRUNC) != 0;
  return result;
}

ssize_t send_with_fds(int socket, const iovec* iov, size_t iov_count, std::span<const int> fds, int flags) {
  if (fds.size() > kMaxFdsPerMessage) {
    errno = EINVAL;
    return -1;
  }
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFdsPerMessage)] = {};
  msghdr msg{};
  msg.msg_iov = const_cast<iovec*>(iov);
  msg.msg_iovlen = iov_count;
  if (!fds.empty()) {
    msg.msg_control = control;
    msg.msg_controllen = CMSG_SPACE(fds.size_bytes());
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(fds.size_bytes());
    std::memcpy(CMSG_DATA(c), fds.data(), fds.size_bytes());
  }
  return sendmsg(socket, &msg, flags);
}

}  // namespace gsvirt
