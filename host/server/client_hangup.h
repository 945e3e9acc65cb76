// Notices that a vtest client has hung up while the session is busy (issue 12, point 4).
//
// In fork-per-client mode the server kills a client's process shortly after its client has gone,
// and the compiler tool of a build dies with it. In no-fork mode the session runs in the server
// process, which must not be killed: a thread watches the client's socket for the peer's hang-up
// (POLLRDHUP/POLLHUP, without reading anything) and cancels the session's token, so that a build
// still running for that client kills its tool at once instead of running to its deadline.
#pragma once

#include <memory>
#include <thread>

#include "common/cancel.h"

namespace gsvirt::server {

class ClientHangupWatcher {
 public:
  // Starts watching `client_fd` (which must stay open until this is destroyed); cancels `token`
  // when the client hangs up. Without a thread or an eventfd it watches nothing (logged).
  ClientHangupWatcher(int client_fd, std::shared_ptr<CancelToken> token);
  ~ClientHangupWatcher();  // stops the thread
  ClientHangupWatcher(const ClientHangupWatcher&) = delete;
  ClientHangupWatcher& operator=(const ClientHangupWatcher&) = delete;

 private:
  void watch(int client_fd);

  std::shared_ptr<CancelToken> token_;
  int stop_fd_ = -1;  // an eventfd: written to end the thread
  std::thread thread_;
};

}  // namespace gsvirt::server
