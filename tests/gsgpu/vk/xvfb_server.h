// An Xvfb server of the test's own, on a display number the server picks itself (-displayfd), so
// tests running at once never share or collide on a display. Stopped when the object goes.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace gsgpu::vk::test {

class XvfbServer {
 public:
  XvfbServer() = default;
  XvfbServer(const XvfbServer&) = delete;
  XvfbServer& operator=(const XvfbServer&) = delete;
  ~XvfbServer() { stop(); }

  // The Xvfb binary on PATH, or "" when it is not installed.
  static std::string find_binary() {
    const char* path = std::getenv("PATH");
    std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
    for (size_t start = 0; start <= dirs.size();) {
      size_t end = dirs.find(':', start);
      if (end == std::string::npos) end = dirs.size();
      const std::string candidate = dirs.substr(start, end - start) + "/Xvfb";
      if (access(candidate.c_str(), X_OK) == 0) return candidate;
      start = end + 1;
    }
    return "";
  }

  // Starts `binary` with one screen of `screen` ("WxHxDEPTH") and `extra` arguments; false (with
  // *error) when it does not report a display within 20 s.
  bool start(const std::string& binary, const std::string& screen, const std::vector<std::string>& extra,
             std::string* error) {
    int fds[2];
    if (pipe(fds) != 0) return fail("pipe", error);
    pid_ = fork();
    if (pid_ < 0) return fail("fork", error);
    if (pid_ == 0) {
      close(fds[0]);
      const int devnull = open("/dev/null", O_WRONLY);
      if (devnull >= 0 && std::getenv("GSGPU_VK_XVFB_LOG") == nullptr) dup2(devnull, 2);
      std::vector<std::string> args = {binary, "-displayfd", std::to_string(fds[1]), "-screen", "0", screen,
                                       "-nolisten", "tcp"};
      args.insert(args.end(), extra.begin(), extra.end());
      std::vector<char*> argv;
      for (std::string& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(binary.c_str(), argv.data());
      _exit(127);
    }
    close(fds[1]);
    std::string number;
    pollfd p{fds[0], POLLIN, 0};
    char c = 0;
    while (poll(&p, 1, 20000) == 1 && read(fds[0], &c, 1) == 1 && c != '\n') number += c;
    close(fds[0]);
    if (number.empty()) return fail("Xvfb reported no display", error);
    display_ = ":" + number;
    return true;
  }

  const std::string& display() const { return display_; }

  void stop() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

 private:
  bool fail(const char* what, std::string* error) {
    *error = what;
    stop();
    return false;
  }

  pid_t pid_ = -1;
  std::string display_;
};

}  // namespace gsgpu::vk::test
