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

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <set>
#include <vector>

#include "common/log.h"

namespace gsvirt::server {
namespace {

constexpr size_t kMaxFdsPerRead = 8;
constexpr size_t kInputBufferBytes = 64 * 1024;

// The client socket, read through a buffer: one recvmsg usually brings several small messages
// (a submit and the SYNC_READ behind it), which keeps the round trip to few system calls. I/O is
// tried first and polled only when it would block. The first byte of a message may take forever
// (an idle client is fine); every later piece, and every reply, must move within the stall timeout.
class ClientSocket {
 public:
  ClientSocket(int fd, int stall_timeout_ms)
      : fd_(fd), stall_timeout_ms_(stall_timeout_ms), input_(kInputBufferBytes) {}
  ~ClientSocket() { drop_fds(); }

  bool has_buffered_input() const { return input_begin_ < input_end_; }

  // Reads exactly `n` bytes, collecting any fds the client attached. `starts_message`: the first
  // bytes may be waited for without limit (blocking in recvmsg itself: one system call).
  bool read_exact(void* buf, size_t n, bool starts_message = false) {
    auto* p = static_cast<uint8_t*>(buf);
    bool block = starts_message;
    while (n > 0) {
      if (has_buffered_input()) {
        size_t take = std::min(n, input_end_ - input_begin_);
        std::memcpy(p, input_.data() + input_begin_, take);
        input_begin_ += take;
        p += take;
        n -= take;
        continue;
      }
      // Large payloads go straight to their destination; small reads refill the buffer.
      bool direct = n >= input_.size();
      ssize_t got = receive(direct ? p : input_.data(), direct ? n : input_.size(), block);
      if (got <= 0) return false;
      block = false;
      if (direct) {
        p += got;
        n -= size_t(got);
      } else {
        input_begin_ = 0;
        input_end_ = size_t(got);
      }
    }
    return true;
  }

  bool send_reply(VtestReply& reply) {
    size_t sent = 0;
    bool fds_sent = reply.fds.empty();
    while (sent < reply.bytes.size() || !fds_sent) {
      iovec iov{reply.bytes.data() + sent, reply.bytes.size() - sent};
      msghdr msg{};
      msg.msg_iov = &iov;
      msg.msg_iovlen = 1;
      alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFdsPerRead)];
      if (!fds_sent) {
        size_t fd_bytes = sizeof(int) * reply.fds.size();
        msg.msg_control = control;
        msg.msg_controllen = CMSG_SPACE(fd_bytes);
        cmsghdr* c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(fd_bytes);
        std::memcpy(CMSG_DATA(c), reply.fds.data(), fd_bytes);
      }
      ssize_t n = sendmsg(fd_, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EAGAIN) {
        if (!wait_for(POLLOUT)) return false;
        continue;
      }
      if (n <= 0) return false;
      sent += size_t(n);
      fds_sent = true;
    }
    return true;
  }

  std::vector<int>& fds() { return fds_; }
  bool truncated_fds() const { return truncated_fds_; }
  void drop_fds() {
    for (int fd : fds_) close(fd);
    fds_.clear();
    truncated_fds_ = false;
  }

 private:
  ssize_t receive(uint8_t* dst, size_t n, bool block) {
    for (;;) {
      iovec iov{dst, n};
      alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFdsPerRead)];
      msghdr msg{};
      msg.msg_iov = &iov;
      msg.msg_iovlen = 1;
      msg.msg_control = control;
      msg.msg_controllen = sizeof control;
      ssize_t got = recvmsg(fd_, &msg, MSG_CMSG_CLOEXEC | (block ? 0 : MSG_DONTWAIT));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0 && errno == EAGAIN) {
        if (!wait_for(POLLIN)) return -1;
        continue;
      }
      if (got > 0) {
        collect_fds(msg);
        if (msg.msg_flags & MSG_CTRUNC) truncated_fds_ = true;
      }
      return got;
    }
  }

  bool wait_for(short events) {
    pollfd p{fd_, events, 0};
    for (;;) {
      int r = ::poll(&p, 1, stall_timeout_ms_);
      if (r < 0 && errno == EINTR) continue;
      if (r == 0) log_error("vtest: client stalled for %d ms; dropping it", stall_timeout_ms_);
      return r > 0 && (p.revents & (events | POLLHUP | POLLERR));
    }
  }

  void collect_fds(msghdr& msg) {
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
      size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (size_t i = 0; i < count; i++) {
        int fd;
        std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
        fds_.push_back(fd);
      }
    }
  }

  int fd_;
  int stall_timeout_ms_;
  std::vector<uint8_t> input_;
  size_t input_begin_ = 0, input_end_ = 0;
  std::vector<int> fds_;
  bool truncated_fds_ = false;
};

// Waits for the client's next message (or the stop fd). While fences or sync waits are pending it
// also wakes for the renderer's poll fd (a context retired work) and, while fences are pending, on
// a timer for contexts that report only when polled: 1 ms, doubling to 16 ms while nothing
// retires. Returns false when the client should be left.
bool wait_for_message(int client_fd, int stop_fd, VtestSession& session, ClientSocket& socket) {
  // Nothing else to watch: the header read blocks in recvmsg itself.
  if ((socket.has_buffered_input() || stop_fd < 0) && !session.wants_poll()) return true;
  int idle_ms = 1;
  for (;;) {
    pollfd p[3] = {{client_fd, POLLIN, 0}, {stop_fd, POLLIN, 0}, {session.poll_fd(), POLLIN, 0}};
    int timeout = socket.has_buffered_input() ? 0 : session.wants_timer() ? idle_ms : -1;
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
  }
}

bool serve_one_message(VtestSession& session, ClientSocket& socket,
                       std::vector<uint8_t>& payload, std::vector<uint8_t>& trailing) {
  uint32_t words[2];
  if (!socket.read_exact(words, sizeof words, true)) return false;
  VtestHeader header{words[0], words[1]};
  uint64_t payload_size = 0, trailing_size = 0;
  if (!session.payload_bytes(header, &payload_size)) return false;
  payload.resize(payload_size);
  if (!socket.read_exact(payload.data(), payload.size())) return false;
  if (!session.trailing_bytes(header.command, payload, &trailing_size)) return false;
  trailing.resize(trailing_size);
  if (!socket.read_exact(trailing.data(), trailing.size())) return false;
  if (socket.truncated_fds()) {
    log_error("vtest: %s: fds more than fit a message; dropping the client",
              vtest_command_name(header.command));
    return false;
  }
  VtestMessage message{header.command, payload, trailing, socket.fds()};
  bool ok = session.handle(message);
  socket.drop_fds();
  if (!ok) return false;
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

void reap_children(std::set<pid_t>& children) {
  for (;;) {
    pid_t pid = waitpid(-1, nullptr, WNOHANG);
    if (pid <= 0) return;
    children.erase(pid);
  }
}

// SIGCHLD reaps; SIGTERM and SIGINT ask the server to stop (returns true).
bool handle_signal(int signal_fd, std::set<pid_t>& children) {
  signalfd_siginfo info;
  if (read(signal_fd, &info, sizeof info) != sizeof info) return false;
  if (info.ssi_signo != SIGCHLD) return true;
  reap_children(children);
  return false;
}

void stop_children(std::set<pid_t>& children) {
  for (pid_t pid : children) kill(pid, SIGTERM);
  for (pid_t pid : children) waitpid(pid, nullptr, 0);
  children.clear();
}

void run_client_process(int client_fd, int listen_fd, int signal_fd, const ServerOptions& options,
                        const sigset_t& old_mask) {
  close(listen_fd);
  close(signal_fd);
  // A child must not outlive the server that was told to stop.
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  serve_client(client_fd, options);
  close(client_fd);
  _exit(0);
}

}  // namespace

std::string default_socket_path() {
  const char* env = std::getenv("GSVIRT_VTEST_SOCKET");
  return env && *env ? env : "/tmp/gsvirt-vtest.sock";
}

void serve_client(int client_fd, const ServerOptions& options, int stop_fd) {
  VtestSession session(options.limits);
  ClientSocket socket(client_fd, options.stall_timeout_ms);
  std::vector<uint8_t> payload, trailing;
  while (wait_for_message(client_fd, stop_fd, session, socket) &&
         serve_one_message(session, socket, payload, trailing)) {
  }
}

int run_server(const ServerOptions& options) {
  std::string path = options.socket_path.empty() ? default_socket_path() : options.socket_path;
  sigset_t mask, old_mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGINT);
  sigaddset(&mask, SIGCHLD);
  sigprocmask(SIG_BLOCK, &mask, &old_mask);
  int signal_fd = signalfd(-1, &mask, SFD_CLOEXEC);
  int listen_fd = make_listen_socket(path);
  if (listen_fd < 0 || signal_fd < 0) {
    if (signal_fd >= 0) close(signal_fd);
    sigprocmask(SIG_SETMASK, &old_mask, nullptr);
    return 1;
  }
  log_debug(kDebugTransport, "gsvirt-server: listening on %s (%s)", path.c_str(),
           options.fork_per_client ? "one process per client" : "no fork");
  if (options.ready_fd >= 0) {
    (void)!write(options.ready_fd, "R", 1);
    close(options.ready_fd);
  }

  std::set<pid_t> children;
  bool stopping = false, served_one = false;
  while (!stopping) {
    bool accepting = !(options.once && served_one);
    if (!accepting && children.empty()) break;
    pollfd p[2] = {{signal_fd, POLLIN, 0}, {listen_fd, short(accepting ? POLLIN : 0), 0}};
    if (::poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (p[0].revents & POLLIN) stopping = handle_signal(signal_fd, children);
    if (stopping || !(p[1].revents & POLLIN)) continue;
    int client_fd = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (client_fd < 0) continue;
    served_one = true;
    if (options.fork_per_client && children.size() >= options.max_clients) {
      log_error("gsvirt-server: %zu clients are connected (the limit); refusing another",
                children.size());
      close(client_fd);
      continue;
    }
    if (!options.fork_per_client) {
      serve_client(client_fd, options, signal_fd);
      close(client_fd);
      continue;
    }
    pid_t pid = fork();
    if (pid == 0) run_client_process(client_fd, listen_fd, signal_fd, options, old_mask);
    if (pid > 0) children.insert(pid);
    else log_error("gsvirt-server: fork failed: %s", std::strerror(errno));
    close(client_fd);
  }
  close(listen_fd);
  unlink(path.c_str());
  stop_children(children);
  close(signal_fd);
  sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  log_debug(kDebugTransport, "gsvirt-server: stopped");
  return 0;
}

}  // namespace gsvirt::server
