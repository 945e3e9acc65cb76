#include "gsgpu/compiler/subprocess.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/cancel.h"
#include "gsgpu/compiler/tool_sandbox.h"

namespace gsgpu::compiler {
namespace {

constexpr rlim_t kToolMemoryLimit = rlim_t{4} << 30;
constexpr rlim_t kToolFileSizeLimit = rlim_t{256} << 20;

// GSVIRT_COMPILER_TIMEOUT seconds (default 60) per build.
std::chrono::seconds build_timeout() {
  if (const char* env = std::getenv("GSVIRT_COMPILER_TIMEOUT"); env && *env) {
    const long seconds = std::strtol(env, nullptr, 10);
    if (seconds > 0) return std::chrono::seconds(seconds);
  }
  return std::chrono::seconds(60);
}

// Everything the child needs, built before fork: after it only system calls are safe.
struct ChildSetup {
  std::vector<char*> argv;
  std::vector<std::string> env_storage;
  std::vector<char*> envp;
  std::string work_dir;
  bool sandboxed = false;
  SandboxPlan plan;
  int output_fd = -1;  // the pipe's write end
  int status_fd = -1;  // close-on-exec: a failed setup writes its errno and step here
  pid_t parent = 0;
  rlim_t cpu_seconds = 1;
};

[[noreturn]] void child_fail(int status_fd, int error, const char* step) {
  const int words[1] = {error};
  (void)!write(status_fd, words, sizeof words);
  (void)!write(status_fd, step, std::strlen(step));
  _exit(127);
}

[[noreturn]] void run_child(const ChildSetup& c) {
  setpgid(0, 0);  // the tool and anything it starts are killed as one group
  // A tool outlives neither the process that waits for it (a client process the server kills when
  // its client has gone) nor the build's time limit, whoever is left to enforce it.
  prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  if (getppid() != c.parent) _exit(127);
  const rlimit cpu{c.cpu_seconds, c.cpu_seconds};
  setrlimit(RLIMIT_CPU, &cpu);
  const rlimit memory{kToolMemoryLimit, kToolMemoryLimit};
  const rlimit file_size{kToolFileSizeLimit, kToolFileSizeLimit};
  const rlimit no_core{0, 0};
  setrlimit(RLIMIT_AS, &memory);
  setrlimit(RLIMIT_FSIZE, &file_size);
  setrlimit(RLIMIT_CORE, &no_core);
  const int null_fd = open("/dev/null", O_RDONLY);
  if (null_fd < 0 || dup2(null_fd, STDIN_FILENO) < 0 || dup2(c.output_fd, STDOUT_FILENO) < 0 ||
      dup2(c.output_fd, STDERR_FILENO) < 0)
    child_fail(c.status_fd, errno, "redirect");
  if (c.sandboxed) {
    const char* step = "sandbox";
    if (const int error = enter_tool_sandbox(c.plan, &step); error != 0) child_fail(c.status_fd, error, step);
  } else if (chdir(c.work_dir.c_str()) != 0) {
    child_fail(c.status_fd, errno, "chdir");
  }
  // The server's other descriptors (client sockets, shared memory) are none of the tool's business.
  if (c.status_fd > STDERR_FILENO + 1) syscall(SYS_close_range, STDERR_FILENO + 1, c.status_fd - 1, 0);
  syscall(SYS_close_range, c.status_fd + 1, ~0u, 0);
  execve(c.argv[0], c.argv.data(), c.envp.data());
  child_fail(c.status_fd, errno, "exec");
}

// Reads the child's output until it closes the pipe, the deadline passes, the cap is reached or
// the build is cancelled.
void collect_output(int fd, const ToolOptions& options, ToolRun* result) {
  char buffer[16384];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(options.deadline -
                                                                           std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result->timed_out = true;
      return;
    }
    if (gsvirt::work_cancelled()) {
      result->cancelled = true;
      return;
    }
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), kCancelCheckMs)));
    if (ready < 0 && errno != EINTR) return;
    if (ready <= 0) continue;
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    const size_t room = options.max_output - result->output.size();
    result->output.append(buffer, std::min(room, static_cast<size_t>(n)));
    if (static_cast<size_t>(n) > room) {
      result->output_cut = true;
      return;
    }
  }
}

// Reaps the child; it is killed first when it ran out of time or output, or its build was
// cancelled. Only a stopped tool is waited for without a deadline of its own: one that closed its
// output may still be exiting.
int reap(pid_t pid, const ToolOptions& options, ToolRun* result) {
  int status = 0;
  for (;;) {
    if (!result->output_cut && gsvirt::work_cancelled()) result->cancelled = true;
    const bool stop = result->timed_out || result->output_cut || result->cancelled ||
                      std::chrono::steady_clock::now() > options.deadline;
    if (stop) {
      result->timed_out = !result->output_cut && !result->cancelled;
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      return status;
    }
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) return status;
    usleep(1000);
  }
}

}  // namespace

std::chrono::steady_clock::time_point build_deadline() { return std::chrono::steady_clock::now() + build_timeout(); }

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/gsgpu-cl-XXXXXX";
  if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
}

TempDir::~TempDir() {
  if (path_.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

ToolRun run_tool(const std::vector<std::string>& argv, const ToolOptions& options) {
  ToolRun result;
  if (gsvirt::work_cancelled()) {
    result.cancelled = true;
    result.output = "the build was cancelled (its client is gone); " + argv[0] + " was not started\n";
    return result;
  }
  ChildSetup c;
  // Symbolic links such as /usr/bin/clang-14 are not in the sandbox: the tool runs as its real path.
  std::error_code ec;
  const std::string tool = std::filesystem::canonical(argv[0], ec).string();
  c.argv.push_back(const_cast<char*>(ec ? argv[0].c_str() : tool.c_str()));
  for (size_t i = 1; i < argv.size(); ++i) c.argv.push_back(const_cast<char*>(argv[i].c_str()));
  c.argv.push_back(nullptr);
  // A minimal environment: the server's own (paths, credentials in variables) stays with it.
  c.env_storage = {"PATH=/usr/bin:/bin", "LANG=C", "LC_ALL=C", "TMPDIR=" + options.work_dir, "HOME=" + options.work_dir};
  for (std::string& e : c.env_storage) c.envp.push_back(e.data());
  c.envp.push_back(nullptr);
  c.work_dir = options.work_dir;
  c.sandboxed = tool_sandbox_available();
  if (c.sandboxed) {
    std::string error;
    if (!plan_tool_sandbox(argv[0], options.work_dir, options.read_only_dirs, &c.plan, &error) ||
        (mkdir(c.plan.root.c_str(), 0700) != 0 && errno != EEXIST)) {
      result.output = "cannot prepare the compiler sandbox for " + argv[0] + ": " + (error.empty() ? std::strerror(errno) : error) + "\n";
      return result;
    }
  }
  int output_pipe[2], status_pipe[2];
  if (pipe2(output_pipe, O_CLOEXEC) != 0) {
    result.output = std::string("cannot create a pipe: ") + std::strerror(errno) + "\n";
    return result;
  }
  if (pipe2(status_pipe, O_CLOEXEC) != 0) {
    result.output = std::string("cannot create a pipe: ") + std::strerror(errno) + "\n";
    close(output_pipe[0]);
    close(output_pipe[1]);
    return result;
  }
  c.parent = getpid();
  const auto left = std::chrono::duration_cast<std::chrono::seconds>(options.deadline - std::chrono::steady_clock::now());
  c.cpu_seconds = static_cast<rlim_t>(std::max<int64_t>(left.count(), 0)) + 1;
  c.output_fd = output_pipe[1];
  c.status_fd = status_pipe[1];
  const pid_t pid = fork();
  if (pid == 0) run_child(c);
  close(output_pipe[1]);
  close(status_pipe[1]);
  if (pid < 0) {
    result.output = std::string("cannot start ") + argv[0] + ": " + std::strerror(errno) + "\n";
    close(output_pipe[0]);
    close(status_pipe[0]);
    return result;
  }
  collect_output(output_pipe[0], options, &result);
  close(output_pipe[0]);
  const int status = reap(pid, options, &result);
  char report[256] = {};
  const ssize_t n = read(status_pipe[0], report, sizeof report - 1);
  close(status_pipe[0]);
  if (n >= static_cast<ssize_t>(sizeof(int))) {
    int error = 0;
    std::memcpy(&error, report, sizeof error);
    const std::string step(report + sizeof(int));
    if (c.sandboxed && (step == "unshare" || step == "setgroups" || step == "uid_map" || step == "gid_map")) {
      // Namespaces refused in this process only (the probe ran before a seccomp filter): clang's
      // file-system overlay remains.
      tool_sandbox_refused(step.c_str(), error);
      return run_tool(argv, options);
    }
    result.output = "cannot run " + argv[0] + " (" + std::string(report + sizeof(int)) + "): " + std::strerror(error) + "\n";
    return result;
  }
  result.started = true;
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (result.output_cut)
    result.output += "\n" + argv[0] + " printed more than " + std::to_string(options.max_output) + " bytes and was stopped\n";
  else if (result.cancelled)
    result.output += argv[0] + " was stopped: the build was cancelled (its client is gone)\n";
  else if (result.timed_out)
    result.output += argv[0] + " did not finish within " + std::to_string(build_timeout().count()) +
                     " s (the build's time limit) and was stopped\n";
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
