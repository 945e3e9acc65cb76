// The server parent's view of its client processes (one per vtest client): who may connect, and
// what happens to a process once its client is gone.
//
// The parent keeps each client's connection open beside the child. The connection hangs up when
// the client leaves, even while the child is blocked (in a host wait, say) and cannot notice; the
// child then has a grace period to finish on its own and is killed after it.
#pragma once

#include <poll.h>
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gsvirt::server {

struct AdmissionLimits {
  size_t max_clients = 256;          // client processes at once
  size_t max_clients_per_uid = 64;   // of those, connected by one user (SO_PEERCRED)
  // All client processes together; 0: no budget; ~0 (the default): the host's physical memory.
  uint64_t memory_budget_bytes = ~0ull;
  int client_grace_ms = 2000;        // a process outlives its client by at most this long
};

class ClientProcesses {
 public:
  explicit ClientProcesses(const AdmissionLimits& limits) : limits_(limits) {}
  ~ClientProcesses();
  ClientProcesses(const ClientProcesses&) = delete;
  ClientProcesses& operator=(const ClientProcesses&) = delete;

  // Why a new client of `uid` is refused now ("" when it may connect).
  std::string refusal(uid_t uid) const;
  // Takes ownership of `connection_fd`, the parent's copy of the client's connection, and of
  // `tmpdir`, the process's temporary directory (removed once the process is gone).
  void add(pid_t pid, uid_t uid, int connection_fd, const std::string& tmpdir);
  size_t size() const { return children_.size(); }
  bool empty() const { return children_.empty(); }

  // The connections to watch for a hang-up; poll them, then hand the result to on_polled().
  void watch(std::vector<pollfd>& fds);
  void on_polled(const pollfd* fds, size_t count);
  // Milliseconds until the next process is due to be killed; -1 when none is.
  int ms_to_next_kill() const;
  void kill_overdue();
  // Forgets children that exited (a SIGCHLD came).
  void reap();
  // SIGTERM to every child, then waits for each.
  void stop_all();

  // Memory the client processes hold beyond what they share with this process at fork time.
  uint64_t memory_bytes() const;

 private:
  struct Child {
    uid_t uid = 0;
    int connection_fd = -1;  // -1 once the client hung up (or the child was reaped)
    uint64_t baseline_bytes = 0;
    std::string tmpdir;
    bool kill_scheduled = false;
    std::chrono::steady_clock::time_point kill_at;
  };

  AdmissionLimits limits_;
  std::map<pid_t, Child> children_;
};

// Resident anonymous and shared-memory bytes of a process (from /proc), 0 when it is gone.
uint64_t resident_bytes(pid_t pid);

}  // namespace gsvirt::server
