// Framed messages (worker_protocol.h) over a unix stream socket, with descriptors passed as
// SCM_RIGHTS and, on the proxy's side, a deadline on every send and receive: the proxy never
// blocks forever on a worker. Used by both ends.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "host/renderer/worker_protocol.h"

namespace gsvirt::renderer::worker {

using Clock = std::chrono::steady_clock;
// No value: wait as long as it takes (the worker waiting for its next request).
using Deadline = std::optional<Clock::time_point>;

// A received message. Owns the descriptors that came with it.
struct Message {
  uint32_t op = 0;
  std::vector<uint8_t> body;
  std::vector<int> fds;

  Message() = default;
  Message(const Message&) = delete;
  Message& operator=(const Message&) = delete;
  ~Message() { close_fds(); }
  void close_fds();
  // Takes the only descriptor; -1 unless exactly one came.
  int take_fd();
};

enum class IoStatus { kOk, kClosed, kTimedOut, kTooLarge, kError };
const char* io_status_name(IoStatus status);

class Channel {
 public:
  // Takes ownership of `fd` (a connected stream socket) and makes it non-blocking.
  explicit Channel(int fd);
  ~Channel();
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  // Sends one message: the header, `body`, then `tail` (SUBMIT's command bytes), and `pass_fd`
  // (when >= 0) with the first byte.
  IoStatus send(uint32_t op, const void* body, size_t body_size, Deadline deadline,
                const void* tail = nullptr, size_t tail_size = 0, int pass_fd = -1);
  // Receives one message with a body of at most `max_body` bytes (kTooLarge otherwise, before
  // reading the body). `out` is reused: its body keeps its capacity.
  IoStatus receive(Message* out, uint32_t max_body, Deadline deadline);
  // True when a message (or the end of the stream) is waiting.
  bool readable_now() const;
  int fd() const { return fd_; }
  // Closes the socket; the peer sees the end of the stream.
  void close_now();

 private:
  IoStatus wait(short events, Deadline deadline) const;
  IoStatus read_exact(void* data, size_t size, std::vector<int>* fds, Deadline deadline);

  int fd_ = -1;
};

}  // namespace gsvirt::renderer::worker
