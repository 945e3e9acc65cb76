// File descriptors over a unix socket (SCM_RIGHTS), for every channel that passes them: the
// guest's vtest transport, the server's client socket and the renderer's worker channel. One
// place builds the control message and collects what arrives, so each receiver gets its
// descriptors close-on-exec and learns when the kernel cut some off (MSG_CTRUNC).
#pragma once

#include <sys/types.h>
#include <sys/uio.h>

#include <cstddef>
#include <span>
#include <vector>

namespace gsvirt {

// The most descriptors one message carries; a message with more arrives truncated.
inline constexpr size_t kMaxFdsPerMessage = 8;

struct FdReceive {
  ssize_t bytes = -1;          // what recvmsg returned (-1: see errno)
  bool fds_truncated = false;  // the sender passed more than kMaxFdsPerMessage: some were dropped
};

// One recvmsg into `data`; descriptors that came with the bytes are appended to *fds
// (close-on-exec). `flags` as recvmsg's (MSG_DONTWAIT, ...).
FdReceive receive_with_fds(int socket, void* data, size_t size, int flags, std::vector<int>* fds);

// One sendmsg of `iov`; `fds` (at most kMaxFdsPerMessage, else EINVAL) travel with its first byte.
// Returns what sendmsg returned (-1: see errno).
ssize_t send_with_fds(int socket, const iovec* iov, size_t iov_count, std::span<const int> fds, int flags);

}  // namespace gsvirt
