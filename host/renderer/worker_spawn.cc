// Starting a context worker: finding the executable, its scrubbed environment, posix_spawn.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/log.h"
#include "host/renderer/worker_context.h"
#include "host/sandbox/private_tmpdir.h"
#include "host/sandbox/sandbox.h"

extern char** environ;

// Set by the build (host/renderer/meson.build); empty where these sources are compiled elsewhere.
#ifndef GSVIRT_WORKER_INSTALLED
#define GSVIRT_WORKER_INSTALLED ""
#endif
#ifndef GSVIRT_WORKER_BUILT
#define GSVIRT_WORKER_BUILT ""
#endif

namespace gsvirt::renderer {
namespace {

uint64_t env_number(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  errno = 0;
  unsigned long long n = std::strtoull(v, &end, 10);
  if (errno || *end || v[0] == '-') {
    log_error("renderer: %s=\"%s\" is not a number; using %" PRIu64, name, v, fallback);
    return fallback;
  }
  return n;
}

// The worker's environment: what drivers, the compiler and gsvirt read (the sandbox's own list),
// never the rest of the renderer process's (a VMM's tokens, sockets, display), and a private TMPDIR.
std::vector<std::string> worker_environment(const std::string& tmpdir) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; e++) {
    std::string entry = *e;
    std::string name = entry.substr(0, entry.find('='));
    if (name == "TMPDIR" || !sandbox::environment_variable_kept(name)) continue;
    env.push_back(entry);
  }
  if (!tmpdir.empty()) env.push_back("TMPDIR=" + tmpdir);
  return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> p;
  for (auto& s : strings) p.push_back(s.data());
  p.push_back(nullptr);
  return p;
}

// posix_spawn: safe in a multi-threaded process (no code of ours runs between fork and exec).
// The child gets `child_fd` as fd 3 and no other descriptor, default signal dispositions and an
// empty signal mask.
pid_t spawn_worker(const std::string& path, int child_fd, std::vector<std::string> args,
                   std::vector<std::string> env) {
  // dup2 onto itself would keep close-on-exec: the socket must come from another number.
  int moved = -1;
  if (child_fd == worker::kWorkerSocketFd) {
    moved = fcntl(child_fd, F_DUPFD_CLOEXEC, worker::kWorkerSocketFd + 1);
    if (moved < 0) {
      log_error("renderer: cannot move the worker's socket: %s", std::strerror(errno));
      return -1;
    }
    child_fd = moved;
  }
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_adddup2(&actions, child_fd, worker::kWorkerSocketFd);
  posix_spawn_file_actions_addclosefrom_np(&actions, worker::kWorkerSocketFd + 1);
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  auto argv = pointers(args);
  auto envp = pointers(env);
  pid_t pid = -1;
  int err = posix_spawn(&pid, path.c_str(), &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (moved >= 0) close(moved);
  if (err != 0) {
    log_error("renderer: cannot start the context worker %s: %s", path.c_str(), std::strerror(err));
    return -1;
  }
  return pid;
}

}  // namespace

WorkerOptions worker_options_from_environment() {
  WorkerOptions o;
  uint64_t timeout_s = env_number("GSVIRT_WORKER_TIMEOUT_S", uint64_t(o.timeout_ms / 1000));
  o.timeout_ms = timeout_s == 0 || timeout_s > 86400 ? 86400 * 1000 : int(timeout_s * 1000);
  o.cpu_seconds = env_number("GSVIRT_WORKER_CPU_SECONDS", o.cpu_seconds);
  o.memory_mib = env_number("GSVIRT_WORKER_MEMORY_MIB", o.memory_mib);
  const char* sandbox = std::getenv("GSVIRT_WORKER_SANDBOX");
  o.sandbox = !(sandbox && std::strcmp(sandbox, "0") == 0);
  return o;
}

std::string find_worker_binary(const WorkerOptions& options) {
  if (!options.worker_path.empty()) return options.worker_path;
  const char* env = std::getenv("GSVIRT_CONTEXT_WORKER");
  if (env && *env) return env;
  for (const char* candidate : {GSVIRT_WORKER_INSTALLED, GSVIRT_WORKER_BUILT})
    if (*candidate && access(candidate, X_OK) == 0) return candidate;
  return {};
}

std::unique_ptr<Context> start_worker_context(const ContextCreateInfo& info,
                                              const WorkerOptions& options) {
  std::string path = find_worker_binary(options);
  if (path.empty()) {
    log_error("renderer: ctx %u: no context worker executable (set GSVIRT_CONTEXT_WORKER)", info.ctx_id);
    return nullptr;
  }
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    log_error("renderer: ctx %u: socketpair: %s", info.ctx_id, std::strerror(errno));
    return nullptr;
  }
  std::string tmpdir = sandbox::make_private_tmpdir("gsvirt-worker");
  std::vector<std::string> args = {path,
                                   "--cpu-seconds", std::to_string(options.cpu_seconds),
                                   "--memory-mib", std::to_string(options.memory_mib)};
  if (!options.sandbox) args.push_back("--no-sandbox");
  pid_t pid = spawn_worker(path, fds[1], std::move(args), worker_environment(tmpdir));
  close(fds[1]);
  if (pid < 0) {
    close(fds[0]);
    sandbox::remove_tree(tmpdir);
    return nullptr;
  }
  auto context = std::make_unique<WorkerContext>(info, fds[0], pid, options.timeout_ms, tmpdir);
  uint32_t capset_id = options.capset_id ? options.capset_id : info.capset_id;
  if (context->create(capset_id, info.debug_name) < 0) return nullptr;
  log_debug(kDebugTransport, "renderer: ctx %u runs in context worker %d", info.ctx_id, context->pid());
  return context;
}

}  // namespace gsvirt::renderer
