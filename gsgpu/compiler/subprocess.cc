#include "gsgpu/compiler/subprocess.h"

#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

extern char** environ;

namespace gsgpu::compiler {
namespace {

constexpr rlim_t kToolMemoryLimit = rlim_t{4} << 30;

// GSVIRT_COMPILER_TIMEOUT seconds (default 120) per tool run.
std::chrono::seconds tool_timeout() {
  if (const char* env = std::getenv("GSVIRT_COMPILER_TIMEOUT"); env && *env) {
    const long seconds = std::strtol(env, nullptr, 10);
    if (seconds > 0) return std::chrono::seconds(seconds);
  }
  return std::chrono::seconds(120);
}

}  // namespace

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/gsgpu-cl-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (mkdtemp(buffer.data()) != nullptr) path_ = buffer.data();
}

TempDir::~TempDir() {
  if (path_.empty()) return;
  // Only files are created inside (no subdirectories), so one level of unlink suffices.
  if (DIR* dir = opendir(path_.c_str())) {
    while (dirent* entry = readdir(dir)) {
      if (std::strcmp(entry->d_name, ".") == 0 || std::strcmp(entry->d_name, "..") == 0) continue;
      unlink(file(entry->d_name).c_str());
    }
    closedir(dir);
  }
  rmdir(path_.c_str());
}

ToolRun run_tool(const std::vector<std::string>& argv, const std::string& capture_path) {
  ToolRun result;
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, capture_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
  // The server's other descriptors (client sockets, shared memory) are none of the tool's business.
  posix_spawn_file_actions_addclosefrom_np(&actions, STDERR_FILENO + 1);
#endif
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    result.output = "cannot run " + argv[0] + ": " + std::strerror(rc);
    return result;
  }
  result.started = true;
  // The source comes from an untrusted guest: `#include "/dev/zero"` or a pathological program must
  // not hold the host forever or take all its memory. (Set right after the spawn: a tool cannot
  // allocate much before the limit lands.)
  const rlimit memory_limit{kToolMemoryLimit, kToolMemoryLimit};
  prlimit(pid, RLIMIT_AS, &memory_limit, nullptr);
  const auto deadline = std::chrono::steady_clock::now() + tool_timeout();
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) break;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      result.timed_out = true;
      break;
    }
    usleep(2000);
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  read_file(capture_path, &result.output);
  if (result.timed_out)
    result.output += argv[0] + " did not finish within " + std::to_string(tool_timeout().count()) + " s and was stopped\n";
  else if (WIFSIGNALED(status))
    result.output += argv[0] + " was killed by signal " + std::to_string(WTERMSIG(status)) + "\n";
  return result;
}

bool read_file(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  *out = s.str();
  return true;
}

bool write_file(const std::string& path, const void* data, size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return false;
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  return static_cast<bool>(out);
}

std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string dirs = path && *path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    const std::string candidate = dirs.substr(start, end - start) + "/" + name;
    if (end > start && access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return "";
}

}  // namespace gsgpu::compiler
