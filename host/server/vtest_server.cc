#include "host/server/vtest_server.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "common/cancel.h"
#include "common/log.h"
#include "host/server/client_hangup.h"
#include "host/server/client_socket.h"
#include "host/renderer/isolation.h"
#include "host/sandbox/private_tmpdir.h"
#include "host/sandbox/sandbox_steps.h"

namespace gsvirt::server {
namespace {

// Waits for the client's next message (or the stop fd). While fences or sync waits are pending it
// also wakes for the renderer's poll fd (a context retired work) and, while fences are pending, on
// a timer for contexts that report only when polled: 1 ms, doubling to 16 ms while nothing
// retires. Before the handshake the wait ends at the socket's deadline. Returns false when the
// client should be left.
bool wait_for_message(int stop_fd, VtestSession& session, ClientSocket& socket) {
  // Nothing else to watch: the header read blocks in recvmsg itself (or polls to the deadline).
  if ((socket.has_buffered_input() || stop_fd < 0) && !session.wants_poll()) return true;
  int idle_ms = 1;
  for (;;) {
    pollfd p[3] = {{socket.fd(), POLLIN, 0}, {stop_fd, POLLIN, 0}, {session.poll_fd(), POLLIN, 0}};
    int timeout = socket.has_buffered_input() ? 0 : session.wants_timer() ? idle_ms : -1;
    int deadline_left = socket.deadline_ms_left();
    if (deadline_left >= 0 && (timeout < 0 || deadline_left < timeout)) timeout = deadline_left;
    bool watch_renderer = session.wants_poll() && session.poll_fd() >= 0;
    // Unused slots get fd -1, which poll() skips.
    if (stop_fd < 0) p[1].fd = -1;
    if (!watch_renderer) p[2].fd = -1;
    int r = ::poll(p, 3, timeout);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return false;
    if (stop_fd >= 0 && p[1].revents) return false;
    if (session.wants_poll()) {
      size_t pending_before = session.pending_work();
      session.poll();
      for (auto& reply : session.replies())
        if (!socket.send_reply(reply)) return false;
      session.clear_replies();
      bool progress = session.pending_work() != pending_before || p[2].revents;
      idle_ms = progress ? 1 : std::min(idle_ms * 2, 16);
    }
    if (socket.has_buffered_input() || (p[0].revents & (POLLIN | POLLHUP | POLLERR))) return true;
    if (socket.has_deadline() && socket.deadline_ms_left() == 0) {
      log_error("vtest: client did not finish the handshake in time; dropping it");
      return false;
    }
  }
}

bool serve_one_message(VtestSession& session, ClientSocket& socket,
                       std::vector<uint8_t>& payload, std::vector<uint8_t>& trailing) {
  uint32_t words[2];
  if (!socket.read_exact(words, sizeof words, true)) return false;
  VtestHeader header{words[0], words[1]};
  uint64_t payload_size = 0, trailing_size = 0;
  if (!session.payload_bytes(header, &payload_size)) return false;
  if (!socket.read_growing(payload, payload_size)) return false;
  if (!session.trailing_bytes(header.command, payload, &trailing_size)) return false;
  if (!socket.read_growing(trailing, trailing_size)) return false;
  if (socket.truncated_fds()) {
    log_error("vtest: %s: fds more than fit a message; dropping the client",
              vtest_command_name(header.command));
    return false;
  }
  VtestMessage message{header.command, payload, trailing, socket.fds()};
  bool ok = session.handle(message);
  socket.drop_fds();
  if (!ok) return false;
  if (session.handshake_done()) socket.clear_deadline();
  for (auto& reply : session.replies())
    if (!socket.send_reply(reply)) return false;
  session.clear_replies();
  return true;
}

int make_listen_socket(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof addr.sun_path) {
    log_error("gsvirt-server: socket path \"%s\" is empty or longer than %zu bytes", path.c_str(),
              sizeof addr.sun_path - 1);
    return -1;
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  // Replace a stale socket from an earlier run, but never delete anything that is not a socket.
  struct stat st;
  if (lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) {
      log_error("gsvirt-server: %s exists and is not a socket", path.c_str());
      return -1;
    }
    unlink(path.c_str());
  }
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(fd, 64) != 0) {
    log_error("gsvirt-server: cannot listen on %s: %s", path.c_str(), std::strerror(errno));
    close(fd);
    return -1;
  }
  return fd;
}

// The server's signals, each on its own fd: SIGTERM and SIGINT ask it to stop; SIGCHLD (fork
// mode only) reaps client processes. In no-fork mode SIGCHLD is left alone: the processes the
// compiler starts and waits for are none of the server's business.
struct ServerSignals {
  sigset_t old_mask;
  int stop_fd = -1;
  int child_fd = -1;

  bool open(bool watch_children) {
    sigset_t stop, child, all;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    sigemptyset(&child);
    sigaddset(&child, SIGCHLD);
    all = stop;
    if (watch_children) sigaddset(&all, SIGCHLD);
    sigprocmask(SIG_BLOCK, &all, &old_mask);
    stop_fd = signalfd(-1, &stop, SFD_CLOEXEC);
    if (watch_children) child_fd = signalfd(-1, &child, SFD_CLOEXEC | SFD_NONBLOCK);
    return stop_fd >= 0 && (!watch_children || child_fd >= 0);
  }
  void close_all() {
    if (stop_fd >= 0) close(stop_fd);
    if (child_fd >= 0) close(child_fd);
    stop_fd = child_fd = -1;
    sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  }
  void drain_child_fd() {
    signalfd_siginfo info;
    while (read(child_fd, &info, sizeof info) == sizeof info) {
    }
  }
};

[[noreturn]] void run_client_process(int client_fd, const ServerOptions& options,
                                     ServerSignals& signals, pid_t server_pid,
                                     const std::string& tmpdir) {
  // A client process must not outlive the server, nor hold anything of it: its listening
  // socket, its signals, other clients' connections.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != server_pid) _exit(1);
  constexpr int kClientFd = 3;
  if (client_fd != kClientFd && dup2(client_fd, kClientFd) < 0) _exit(1);
  close_range(kClientFd + 1, UINT_MAX, 0);
  sigprocmask(SIG_SETMASK, &signals.old_mask, nullptr);
  if (!tmpdir.empty()) setenv("TMPDIR", tmpdir.c_str(), 1);
  sandbox::SandboxReport report;
  if (!sandbox::enter_sandbox(options.sandbox, &report)) {
    log_error("gsvirt-server: client process sandbox failed (%s); dropping the client",
              report.error.c_str());
    _exit(1);
  }
  // This process serves one client in the sandbox: its contexts need no worker of their own.
  renderer::mark_process_sandboxed();
  serve_client(kClientFd, options);
  // The server keeps a copy of the connection (to notice the client leaving): shut it down so the
  // client sees the end now rather than when the server reaps this process.
  shutdown(kClientFd, SHUT_RDWR);
  _exit(0);
}

uid_t peer_uid(int fd) {
  ucred cred{};
  socklen_t size = sizeof cred;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &size) != 0) return uid_t(-1);
  return cred.uid;
}

// Forks a sandboxed process for the client, or refuses it when admission says so.
void start_client_process(int client_fd, const ServerOptions& options, ServerSignals& signals,
                          ClientProcesses& children) {
  uid_t uid = peer_uid(client_fd);
  std::string refusal = children.refusal(uid);
  if (!refusal.empty()) {
    log_error("gsvirt-server: %s; refusing a client", refusal.c_str());
    close(client_fd);
    return;
  }
  std::string tmpdir = sandbox::make_private_tmpdir("gsvirt-client");
  pid_t server_pid = getpid();
  pid_t pid = fork();
  if (pid == 0) run_client_process(client_fd, options, signals, server_pid, tmpdir);
  if (pid < 0) {
    log_error("gsvirt-server: fork failed: %s", std::strerror(errno));
    sandbox::remove_tree(tmpdir);
    close(client_fd);
    return;
  }
  children.add(pid, uid, client_fd, tmpdir);
}

}  // namespace

std::string default_socket_path() {
  const char* env = std::getenv("GSVIRT_VTEST_SOCKET");
  return env && *env ? env : "/tmp/gsvirt-vtest.sock";
}

void serve_client(int client_fd, const ServerOptions& options, int stop_fd) {
  // No-fork mode: nobody kills this process when the client leaves, so a build still running for
  // it is cancelled instead (the token is checked by the compiler's tool runs on this thread).
  auto cancel = std::make_shared<CancelToken>();
  CancelScope cancel_scope(cancel);
  std::unique_ptr<ClientHangupWatcher> watcher;
  if (!options.fork_per_client) watcher = std::make_unique<ClientHangupWatcher>(client_fd, cancel);
  VtestSession session(options.limits);
  ClientSocket socket(client_fd, options.stall_timeout_ms);
  socket.set_deadline(std::chrono::steady_clock::now() +
                      std::chrono::milliseconds(options.handshake_timeout_ms));
  std::vector<uint8_t> payload, trailing;
  while (wait_for_message(stop_fd, session, socket) &&
         serve_one_message(session, socket, payload, trailing)) {
  }
}

int run_server(const ServerOptions& options) {
  std::string path = options.socket_path.empty() ? default_socket_path() : options.socket_path;
  ServerSignals signals;
  bool signals_ok = signals.open(options.fork_per_client);
  int listen_fd = signals_ok ? make_listen_socket(path) : -1;
  if (listen_fd < 0) {
    signals.close_all();
    return 1;
  }
  log_debug(kDebugTransport, "gsvirt-server: listening on %s (%s)", path.c_str(),
            options.fork_per_client ? "one process per client" : "no fork");
  if (options.fork_per_client && options.sandbox.enabled && options.sandbox.landlock &&
      sandbox::landlock_abi() == 0)
    log_info("gsvirt-server: this kernel has no Landlock; client processes keep the filesystem "
             "view of the server (seccomp and rlimits still apply)");
  if (options.ready_fd >= 0) {
    (void)!write(options.ready_fd, "R", 1);
    close(options.ready_fd);
  }

  ClientProcesses children(options.admission);
  bool stopping = false, served_one = false;
  std::vector<pollfd> fds;
  while (!stopping) {
    bool accepting = !(options.once && served_one);
    if (!accepting && children.empty()) break;
    fds = {{signals.stop_fd, POLLIN, 0}, {signals.child_fd, POLLIN, 0},
           {listen_fd, short(accepting ? POLLIN : 0), 0}};
    children.watch(fds);
    if (::poll(fds.data(), fds.size(), children.ms_to_next_kill()) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[0].revents & POLLIN) {
      // Consumed here: a signal left pending would be delivered (and kill) when the mask is
      // restored on the way out.
      signalfd_siginfo info;
      stopping = read(signals.stop_fd, &info, sizeof info) == sizeof info;
    }
    if (fds[1].revents & POLLIN) {
      signals.drain_child_fd();
      children.reap();
    }
    children.on_polled(fds.data() + 3, fds.size() - 3);
    children.kill_overdue();
    if (stopping || !(fds[2].revents & POLLIN)) continue;
    int client_fd = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (client_fd < 0) continue;
    served_one = true;
    if (options.fork_per_client) {
      start_client_process(client_fd, options, signals, children);
      continue;
    }
    serve_client(client_fd, options, signals.stop_fd);
    close(client_fd);
  }
  close(listen_fd);
  unlink(path.c_str());
  children.stop_all();
  signals.close_all();
  log_debug(kDebugTransport, "gsvirt-server: stopped");
  return 0;
}

}  // namespace gsvirt::server
