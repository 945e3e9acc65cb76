// Starts gsvirt-server's loop (with the echo test capset) in a child process on a temporary socket,
// for tests and benches; stops it with SIGTERM.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include "host/server/vtest_server.h"

namespace gsvirt::test {

class TestServer {
 public:
  // fork_per_client=false runs the --no-fork mode.
  explicit TestServer(bool fork_per_client = true, server::SessionLimits limits = {},
                      size_t max_clients = 256);
  // Any options (the socket and ready fd are the server's own).
  explicit TestServer(const server::ServerOptions& options);
  ~TestServer();

  const std::string& socket_path() const { return socket_path_; }
  pid_t pid() const { return pid_; }
  bool alive() const;
  // Sends SIGTERM and waits; returns the exit status (or -1).
  int stop();

  // Open fds of the server process, and its live children (from /proc).
  int open_fd_count() const;
  int child_count() const;
  std::vector<pid_t> child_pids() const;
  // Mappings of host blobs (memfd "gsvirt-blob") in the server process.
  int blob_mapping_count() const;

 private:
  void start(server::ServerOptions options);
  std::string dir_, socket_path_;
  pid_t pid_ = -1;
};

// Test defaults (fork mode, a 2 s stall timeout) edited by `configure`.
server::ServerOptions server_options(const std::function<void(server::ServerOptions&)>& configure);

// A raw vtest client for hostile-input tests: connect, send bytes, see whether the server hangs up.
class RawClient {
 public:
  explicit RawClient(const std::string& path);
  ~RawClient();
  bool connected() const { return fd_ >= 0; }
  bool send(const void* data, size_t size, int pass_fd = -1);
  bool send_words(std::initializer_list<uint32_t> words, int pass_fd = -1);
  // Standard CREATE_RENDERER + PING + PROTOCOL_VERSION, replies consumed.
  bool handshake();
  // PING_PROTOCOL_VERSION and its reply: the server still serves this client.
  bool ping();
  // Reads exactly `size` bytes (timeout 5 s); optionally takes one fd.
  bool read(void* data, size_t size, int* fd = nullptr);
  // True when the server closed the connection within 5 s (reading and discarding replies).
  bool closed_by_server();
  void close_now();

 private:
  int fd_ = -1;
};

}  // namespace gsvirt::test
