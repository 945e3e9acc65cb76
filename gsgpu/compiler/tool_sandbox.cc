#include "gsgpu/compiler/tool_sandbox.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace gsgpu::compiler {
namespace {

// Where the tools' code lives (the tools, their shared libraries, clang's resource directory with
// the OpenCL headers). Symbolic links among them (/lib -> usr/lib on merged-/usr systems) are
// recreated rather than bound.
constexpr const char* kSystemDirs[] = {"/usr/lib", "/usr/lib64", "/usr/lib32", "/usr/libx32",
                                       "/lib",     "/lib64",     "/lib32"};

// The uid the tool has inside its namespace: not 0, so that exec drops the capabilities the
// namespace's creator holds there.
constexpr unsigned kSandboxUid = 1000;

bool is_under(const std::string& path, const std::string& dir) {
  return dir == "/" || path == dir || (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
                                       path[dir.size()] == '/');
}

std::string real_path(const std::string& path) {
  char buffer[PATH_MAX];
  return realpath(path.c_str(), buffer) ? std::string(buffer) : std::string();
}

// Mount flags that a bind mount made inside a user namespace must keep when it is remounted.
unsigned long lock_flags(const std::string& path) {
  struct statvfs s {};
  if (statvfs(path.c_str(), &s) != 0) return 0;
  unsigned long flags = 0;
  if (s.f_flag & ST_NOSUID) flags |= MS_NOSUID;
  if (s.f_flag & ST_NODEV) flags |= MS_NODEV;
  if (s.f_flag & ST_NOEXEC) flags |= MS_NOEXEC;
  if (s.f_flag & ST_NOATIME) flags |= MS_NOATIME;
  if (s.f_flag & ST_NODIRATIME) flags |= MS_NODIRATIME;
  if (s.f_flag & ST_RELATIME) flags |= MS_RELATIME;
  return flags;
}

// Every directory from the root down to `path` (exclusive of "/"), under `root`.
void add_directory_chain(const std::string& root, const std::string& path, std::vector<std::string>* out) {
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    const std::string prefix = root + path.substr(0, slash);
    if (std::find(out->begin(), out->end(), prefix) == out->end()) out->push_back(prefix);
    if (slash == std::string::npos) break;
  }
}

bool write_all(const char* path, const std::string& text) {
  const int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  close(fd);
  return ok;
}

bool probe_sandbox() {
  const char* tmp = std::getenv("TMPDIR");
  std::string name = std::string(tmp && *tmp ? tmp : "/tmp") + "/gsgpu-sandbox-probe-XXXXXX";
  const char* dir = mkdtemp(name.data());
  if (!dir) return false;
  const std::string work = dir;
  SandboxPlan plan;
  std::string error;
  bool ok = plan_tool_sandbox("/bin/true", work, {}, &plan, &error) && mkdir(plan.root.c_str(), 0700) == 0;
  if (ok) {
    const pid_t pid = fork();
    if (pid == 0) {
      const char* step = nullptr;
      _exit(enter_tool_sandbox(plan, &step) == 0 ? 0 : 1);
    }
    int status = 0;
    ok = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  rmdir(plan.root.c_str());
  rmdir(work.c_str());
  return ok;
}

std::atomic<bool> g_refused{false};

}  // namespace

void tool_sandbox_refused(const char* step, int error) {
  if (!g_refused.exchange(true))
    std::fprintf(stderr, "gsgpu compiler: the tool sandbox could not be entered (%s: %s); tools run without it\n",
                 step, std::strerror(error));
}

bool tool_sandbox_available() {
  if (const char* env = std::getenv("GSVIRT_COMPILER_SANDBOX"); env && std::strcmp(env, "0") == 0) return false;
  if (g_refused) return false;
  static const bool available = [] {
    const bool ok = probe_sandbox();
    if (!ok)
      std::fprintf(stderr,
                   "gsgpu compiler: this kernel does not allow user and mount namespaces; the OpenCL C front end "
                   "runs without its filesystem sandbox (clang's file system is still limited to the OpenCL "
                   "headers and the build's files)\n");
    return ok;
  }();
  return available;
}

bool plan_tool_sandbox(const std::string& tool, const std::string& work_dir,
                       const std::vector<std::string>& read_only_dirs, SandboxPlan* plan, std::string* error) {
  *plan = SandboxPlan{};
  plan->work_dir = real_path(work_dir);
  if (plan->work_dir.empty() || plan->work_dir == "/") {
    *error = "the build directory " + work_dir + " cannot be resolved";
    return false;
  }
  plan->root = plan->work_dir + "/.root";
  std::vector<std::string> readable;  // host directories and files, bound read-only
  for (const char* dir : kSystemDirs) {
    struct stat s {};
    if (lstat(dir, &s) != 0) continue;
    if (S_ISLNK(s.st_mode)) {
      char target[PATH_MAX];
      const ssize_t n = readlink(dir, target, sizeof target - 1);
      if (n > 0) plan->symlinks.emplace_back(std::string(target, size_t(n)), plan->root + dir);
    } else if (S_ISDIR(s.st_mode)) {
      readable.push_back(dir);
    }
  }
  for (const std::string& dir : read_only_dirs)
    if (std::string resolved = real_path(dir); !resolved.empty() && !is_under(resolved, plan->work_dir))
      readable.push_back(resolved);
  const std::string tool_path = real_path(tool);
  if (tool_path.empty()) {
    *error = "cannot resolve the tool " + tool;
    return false;
  }
  readable.push_back(tool_path);
  // Parents before children; a path inside another one is visible through it already.
  std::sort(readable.begin(), readable.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  });
  std::vector<std::string> kept;
  for (const std::string& path : readable)
    if (std::none_of(kept.begin(), kept.end(), [&](const std::string& k) { return is_under(path, k); }))
      kept.push_back(path);
  for (const std::string& path : kept) {
    struct stat s {};
    if (stat(path.c_str(), &s) != 0) continue;
    // A single file (a tool outside the library directories) is bound onto an empty file.
    add_directory_chain(plan->root, S_ISDIR(s.st_mode) ? path : path.substr(0, path.rfind('/')), &plan->directories);
    plan->binds.push_back({path, plan->root + path, false, lock_flags(path)});
  }
  add_directory_chain(plan->root, plan->work_dir, &plan->directories);
  plan->binds.push_back({plan->work_dir, plan->root + plan->work_dir, true, 0});
  plan->uid_map = std::to_string(kSandboxUid) + " " + std::to_string(geteuid()) + " 1\n";
  plan->gid_map = std::to_string(kSandboxUid) + " " + std::to_string(getegid()) + " 1\n";
  return true;
}

int enter_tool_sandbox(const SandboxPlan& plan, const char** step) {
  auto failed = [&](const char* what) {
    *step = what;
    return errno ? errno : EINVAL;
  };
  if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) return failed("unshare");
  if (!write_all("/proc/self/setgroups", "deny")) return failed("setgroups");
  if (!write_all("/proc/self/uid_map", plan.uid_map)) return failed("uid_map");
  if (!write_all("/proc/self/gid_map", plan.gid_map)) return failed("gid_map");
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return failed("private mounts");
  if (mount("tmpfs", plan.root.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=0755") != 0)
    return failed("tmpfs root");
  for (const std::string& dir : plan.directories)
    if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return failed("mkdir");
  for (const auto& [target, link] : plan.symlinks)
    if (symlink(target.c_str(), link.c_str()) != 0) return failed("symlink");
  for (const SandboxPlan::Bind& b : plan.binds) {
    struct stat s {};
    if (stat(b.source.c_str(), &s) == 0 && !S_ISDIR(s.st_mode)) {
      const int fd = open(b.target.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
      if (fd < 0) return failed("bind target file");
      close(fd);
    }
    // The work directory holds the new root's own mount point: bound without its submounts.
    if (mount(b.source.c_str(), b.target.c_str(), nullptr, MS_BIND | (b.writable ? 0 : MS_REC), nullptr) != 0)
      return failed("bind");
    if (!b.writable) {
      // Read-only as well as unreadable elsewhere; the host's own permissions still apply.
      mount(nullptr, b.target.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_REC | b.lock_flags, nullptr);
    }
  }
  mount(nullptr, plan.root.c_str(), nullptr, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, nullptr);
  if (chdir(plan.root.c_str()) != 0) return failed("chdir root");
  if (syscall(SYS_pivot_root, ".", ".") != 0) return failed("pivot_root");
  if (umount2(".", MNT_DETACH) != 0) return failed("detach the host root");
  if (chdir(plan.work_dir.c_str()) != 0) return failed("chdir work");
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return failed("no_new_privs");
  return 0;
}

}  // namespace gsgpu::compiler
