// The client hang-up watcher of no-fork sessions (client_hangup.h).
#include "host/server/client_hangup.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <system_error>

#include "common/log.h"

namespace gsvirt::server {

ClientHangupWatcher::ClientHangupWatcher(int client_fd, std::shared_ptr<CancelToken> token)
    : token_(std::move(token)) {
  stop_fd_ = eventfd(0, EFD_CLOEXEC);
  if (stop_fd_ < 0) {
    log_error("gsvirt-server: no eventfd for the client hang-up watcher (%s); a build of a client that "
              "leaves runs to its deadline", std::strerror(errno));
    return;
  }
  try {
    thread_ = std::thread([this, client_fd] { watch(client_fd); });
  } catch (const std::system_error& e) {
    log_error("gsvirt-server: no client hang-up watcher thread (%s); a build of a client that leaves runs to "
              "its deadline", e.what());
  }
}

ClientHangupWatcher::~ClientHangupWatcher() {
  if (thread_.joinable()) {
    const uint64_t one = 1;
    (void)!write(stop_fd_, &one, sizeof one);
    thread_.join();
  }
  if (stop_fd_ >= 0) close(stop_fd_);
}

void ClientHangupWatcher::watch(int client_fd) {
  // POLLIN is not asked for: pending messages are the session's to read, not a reason to wake.
  // POLLHUP and POLLERR are always reported.
  pollfd fds[2] = {{client_fd, POLLRDHUP, 0}, {stop_fd_, POLLIN, 0}};
  for (;;) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents) return;
    if (fds[0].revents & (POLLRDHUP | POLLHUP | POLLERR)) {
      log_debug(kDebugTransport, "gsvirt-server: the client hung up; cancelling its builds");
      token_->cancel();
      return;
    }
  }
}

}  // namespace gsvirt::server
