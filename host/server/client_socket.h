// One vtest client's socket, read through a buffer, with the time limits the server puts on a
// client: a message that started must keep arriving (the stall timeout), and until the handshake
// is done every wait is bounded by the handshake deadline.
#pragma once

#include <sys/socket.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "host/server/vtest_session.h"

namespace gsvirt::server {

class ClientSocket {
 public:
  ClientSocket(int fd, int stall_timeout_ms);
  ~ClientSocket() { drop_fds(); }
  ClientSocket(const ClientSocket&) = delete;
  ClientSocket& operator=(const ClientSocket&) = delete;

  int fd() const { return fd_; }
  bool has_buffered_input() const { return input_begin_ < input_end_; }

  // Until clear_deadline(), every wait (even for the first byte of a message) ends at `deadline`.
  void set_deadline(std::chrono::steady_clock::time_point deadline);
  void clear_deadline() { has_deadline_ = false; }
  bool has_deadline() const { return has_deadline_; }
  // Milliseconds left before the deadline (0 when passed); -1 without a deadline.
  int deadline_ms_left() const;

  // Reads exactly `n` bytes, collecting any fds the client attached. `starts_message`: without a
  // deadline, the first bytes may be waited for without limit (blocking in recvmsg itself).
  bool read_exact(void* buf, size_t n, bool starts_message = false);
  // Reads `n` bytes into `out`, growing it only as bytes arrive: a header that announces a large
  // payload costs memory in proportion to what the client actually sent.
  bool read_growing(std::vector<uint8_t>& out, size_t n);

  bool send_reply(VtestReply& reply);

  std::vector<int>& fds() { return fds_; }
  bool truncated_fds() const { return truncated_fds_; }
  void drop_fds();

 private:
  ssize_t receive(uint8_t* dst, size_t n, bool block);
  bool wait_for(short events);

  int fd_;
  int stall_timeout_ms_;
  bool has_deadline_ = false;
  std::chrono::steady_clock::time_point deadline_;
  std::vector<uint8_t> input_;
  size_t input_begin_ = 0, input_end_ = 0;
  std::vector<int> fds_;
  bool truncated_fds_ = false;
};

}  // namespace gsvirt::server
