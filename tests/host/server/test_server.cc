#include "tests/host/server/test_server.h"

#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "protocol/vtest/vtest_protocol.h"
#include "tests/host/renderer/echo_context.h"

namespace gsvirt::test {

server::ServerOptions server_options(const std::function<void(server::ServerOptions&)>& configure) {
  server::ServerOptions options;
  options.stall_timeout_ms = 2000;
  configure(options);
  return options;
}

TestServer::TestServer(bool fork_per_client, server::SessionLimits limits, size_t max_clients) {
  start(server_options([&](server::ServerOptions& options) {
    options.fork_per_client = fork_per_client;
    options.limits = limits;
    options.admission.max_clients = max_clients;
  }));
}

TestServer::TestServer(const server::ServerOptions& options) { start(options); }

void TestServer::start(server::ServerOptions options) {
  char templ[] = "/tmp/gsvirt-test-XXXXXX";
  dir_ = mkdtemp(templ);
  socket_path_ = dir_ + "/vtest.sock";
  int ready[2];
  if (pipe(ready) != 0) return;
  pid_ = fork();
  if (pid_ == 0) {
    close(ready[0]);
    register_echo_capset();
    options.socket_path = socket_path_;
    options.ready_fd = ready[1];
    _exit(server::run_server(options));
  }
  close(ready[1]);
  char byte;
  if (::read(ready[0], &byte, 1) != 1) pid_ = -1;
  // The server closes the fd right after the byte; wait for that so fd counts start settled.
  while (pid_ > 0 && ::read(ready[0], &byte, 1) > 0) {
  }
  close(ready[0]);
}

TestServer::~TestServer() {
  stop();
  rmdir(dir_.c_str());
}

bool TestServer::alive() const { return pid_ > 0 && kill(pid_, 0) == 0 &&
                                        waitpid(pid_, nullptr, WNOHANG) == 0; }

int TestServer::stop() {
  if (pid_ <= 0) return -1;
  kill(pid_, SIGTERM);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int TestServer::open_fd_count() const {
  std::string path = "/proc/" + std::to_string(pid_) + "/fd";
  DIR* dir = opendir(path.c_str());
  if (!dir) return -1;
  int count = 0;
  while (dirent* e = readdir(dir))
    if (e->d_name[0] != '.') count++;
  closedir(dir);
  return count;
}

int TestServer::child_count() const { return int(child_pids().size()); }

std::vector<pid_t> TestServer::child_pids() const {
  std::ifstream in("/proc/" + std::to_string(pid_) + "/task/" + std::to_string(pid_) +
                   "/children");
  std::vector<pid_t> pids;
  for (pid_t pid; in >> pid;) pids.push_back(pid);
  return pids;
}

int TestServer::blob_mapping_count() const {
  std::ifstream in("/proc/" + std::to_string(pid_) + "/maps");
  int count = 0;
  for (std::string line; std::getline(in, line);)
    if (line.find("gsvirt-blob") != std::string::npos) count++;
  return count;
}

RawClient::RawClient(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) close_now();
}

RawClient::~RawClient() { close_now(); }

void RawClient::close_now() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
}

bool RawClient::send(const void* data, size_t size, int pass_fd) {
  iovec iov{const_cast<void*>(data), size};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
  if (pass_fd >= 0) {
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &pass_fd, sizeof(int));
  }
  return sendmsg(fd_, &msg, MSG_NOSIGNAL) == ssize_t(size);
}

bool RawClient::send_words(std::initializer_list<uint32_t> words, int pass_fd) {
  std::vector<uint32_t> v(words);
  return send(v.data(), v.size() * 4, pass_fd);
}

bool RawClient::handshake() {
  using namespace vtest;
  uint32_t reply[3];
  return send_words({4, kCreateRenderer, 0x74736574}) &&  // "test", length in bytes
         send_words({0, kPingProtocolVersion}) && read(reply, 8) &&
         send_words({1, kProtocolVersionCmd, 3}) && read(reply, 12) && reply[2] == 3;
}

bool RawClient::ping() {
  uint32_t reply[2];
  return send_words({0, vtest::kPingProtocolVersion}) && read(reply, sizeof reply) &&
         reply[1] == vtest::kPingProtocolVersion;
}

bool RawClient::read(void* data, size_t size, int* fd) {
  auto* p = static_cast<uint8_t*>(data);
  while (size > 0) {
    pollfd pfd{fd_, POLLIN, 0};
    if (poll(&pfd, 1, 5000) <= 0) return false;
    iovec iov{p, size};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 4)];
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    ssize_t n = recvmsg(fd_, &msg, MSG_CMSG_CLOEXEC);
    if (n <= 0) return false;
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_type != SCM_RIGHTS) continue;
      int got;
      std::memcpy(&got, CMSG_DATA(c), sizeof got);
      if (fd && *fd < 0) *fd = got;
      else close(got);
    }
    p += n;
    size -= size_t(n);
  }
  return true;
}

bool RawClient::closed_by_server() {
  for (;;) {
    pollfd pfd{fd_, POLLIN, 0};
    if (poll(&pfd, 1, 5000) <= 0) return false;
    char buf[4096];
    ssize_t n = recv(fd_, buf, sizeof buf, 0);
    if (n == 0 || (n < 0 && errno == ECONNRESET)) return true;
    if (n < 0) return false;
  }
}

}  // namespace gsvirt::test
