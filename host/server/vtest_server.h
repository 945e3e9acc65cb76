// gsvirt-server's socket side: listen on a unix socket, one process per client by default, and
// run each client's messages through a VtestSession.
#pragma once

#include <string>

#include "host/server/client_processes.h"
#include "host/sandbox/sandbox.h"
#include "host/server/vtest_session.h"

namespace gsvirt::server {

struct ServerOptions {
  std::string socket_path;     // default_socket_path() when empty
  int ready_fd = -1;           // written one byte and closed once the socket accepts clients
  bool fork_per_client = true;  // false: serve clients one after another in this process
  bool once = false;           // exit after the first client is done
  int stall_timeout_ms = 10000;  // a client stuck mid-message (or not reading replies) is dropped
  int handshake_timeout_ms = 10000;  // from connect to PROTOCOL_VERSION, else the client is dropped
  AdmissionLimits admission;   // fork mode: clients at once, per user, memory; the grace period
  sandbox::SandboxOptions sandbox;      // fork mode: what each client process gives up before serving
  SessionLimits limits;
};

// GSVIRT_VTEST_SOCKET when set, else /tmp/gsvirt-vtest.sock.
std::string default_socket_path();

// Runs until SIGTERM/SIGINT (or after one client with `once`); returns the process exit status.
// Callers register their capsets first.
int run_server(const ServerOptions& options);

// Serves one connected client until it disconnects, misbehaves or `stop_fd` becomes readable.
// Closes nothing it was given.
void serve_client(int client_fd, const ServerOptions& options, int stop_fd = -1);

}  // namespace gsvirt::server
