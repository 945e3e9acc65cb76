#include "host/server/client_processes.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "common/log.h"
#include "host/sandbox/private_tmpdir.h"

namespace gsvirt::server {

using Clock = std::chrono::steady_clock;

uint64_t resident_bytes(pid_t pid) {
  // /proc/PID/status stays readable when the child is not dumpable (smaps would need ptrace
  // access); RssAnon counts pages still shared copy-on-write with the parent, hence the baseline.
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  uint64_t total = 0;
  for (std::string line; std::getline(in, line);) {
    unsigned long long kib = 0;
    if (std::sscanf(line.c_str(), "RssAnon: %llu kB", &kib) == 1 ||
        std::sscanf(line.c_str(), "RssShmem: %llu kB", &kib) == 1)
      total += uint64_t(kib) * 1024;
  }
  return total;
}

ClientProcesses::~ClientProcesses() {
  for (auto& [pid, child] : children_)
    if (child.connection_fd >= 0) close(child.connection_fd);
}

std::string ClientProcesses::refusal(uid_t uid) const {
  char why[160];
  if (children_.size() >= limits_.max_clients) {
    std::snprintf(why, sizeof why, "%zu clients are connected (the limit)", children_.size());
    return why;
  }
  size_t of_uid = size_t(std::count_if(children_.begin(), children_.end(),
                                       [&](const auto& c) { return c.second.uid == uid; }));
  if (of_uid >= limits_.max_clients_per_uid) {
    std::snprintf(why, sizeof why, "uid %u has %zu clients connected (the per-user limit)",
                  unsigned(uid), of_uid);
    return why;
  }
  uint64_t budget = limits_.memory_budget_bytes;
  if (budget == ~0ull) budget = uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGESIZE));
  if (budget) {
    uint64_t used = memory_bytes();
    if (used >= budget) {
      std::snprintf(why, sizeof why,
                    "client processes hold %" PRIu64 " MiB, the memory budget is %" PRIu64 " MiB",
                    used >> 20, budget >> 20);
      return why;
    }
  }
  return {};
}

void ClientProcesses::add(pid_t pid, uid_t uid, int connection_fd, const std::string& tmpdir) {
  Child child;
  child.tmpdir = tmpdir;
  child.uid = uid;
  child.connection_fd = connection_fd;
  child.baseline_bytes = resident_bytes(getpid());
  children_[pid] = child;
}

void ClientProcesses::watch(std::vector<pollfd>& fds) {
  // No events asked: poll still reports POLLHUP and POLLERR, and the child's input never wakes
  // the parent.
  for (auto& [pid, child] : children_)
    if (child.connection_fd >= 0) fds.push_back({child.connection_fd, 0, 0});
}

void ClientProcesses::on_polled(const pollfd* fds, size_t count) {
  for (size_t i = 0; i < count; i++) {
    if (!(fds[i].revents & (POLLHUP | POLLERR | POLLNVAL))) continue;
    for (auto& [pid, child] : children_) {
      if (child.connection_fd != fds[i].fd) continue;
      close(child.connection_fd);
      child.connection_fd = -1;
      child.kill_scheduled = true;
      child.kill_at = Clock::now() + std::chrono::milliseconds(limits_.client_grace_ms);
    }
  }
}

int ClientProcesses::ms_to_next_kill() const {
  int next = -1;
  for (const auto& [pid, child] : children_) {
    if (!child.kill_scheduled) continue;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(child.kill_at - Clock::now());
    // Round up, so that the wake-up does not come a millisecond early and spin.
    int ms = int(std::max<int64_t>(0, left.count() + 1));
    next = next < 0 ? ms : std::min(next, ms);
  }
  return next;
}

void ClientProcesses::kill_overdue() {
  auto now = Clock::now();
  for (auto& [pid, child] : children_) {
    if (!child.kill_scheduled || now < child.kill_at) continue;
    log_error("gsvirt-server: client process %d still runs %d ms after its client left; killing it",
              int(pid), limits_.client_grace_ms);
    kill(pid, SIGKILL);
    child.kill_scheduled = false;  // reaped on its SIGCHLD
  }
}

void ClientProcesses::reap() {
  for (auto it = children_.begin(); it != children_.end();) {
    if (waitpid(it->first, nullptr, WNOHANG) != it->first) {
      ++it;
      continue;
    }
    if (it->second.connection_fd >= 0) close(it->second.connection_fd);
    sandbox::remove_tree(it->second.tmpdir);
    it = children_.erase(it);
  }
}

void ClientProcesses::stop_all() {
  for (auto& [pid, child] : children_) kill(pid, SIGTERM);
  for (auto& [pid, child] : children_) {
    waitpid(pid, nullptr, 0);
    if (child.connection_fd >= 0) close(child.connection_fd);
    sandbox::remove_tree(child.tmpdir);
  }
  children_.clear();
}

uint64_t ClientProcesses::memory_bytes() const {
  uint64_t total = 0;
  for (const auto& [pid, child] : children_) {
    uint64_t rss = resident_bytes(pid);
    total += rss > child.baseline_bytes ? rss - child.baseline_bytes : 0;
  }
  return total;
}

}  // namespace gsvirt::server
