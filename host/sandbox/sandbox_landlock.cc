// A sandboxed process's filesystem (Landlock): the system's libraries, tools and driver files
// read-only, its temporary and cache directories read-write, nothing else. The rules are
// inherited by everything the process starts (the compiler included) and cannot be lifted.
#include <dirent.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "host/sandbox/sandbox_steps.h"

namespace gsvirt::sandbox {
namespace {

// Rights newer than the installed kernel headers (values from the kernel's uAPI).
constexpr uint64_t kAccessTruncate = 1ull << 14;  // ABI 3
constexpr uint64_t kAccessNetBindTcp = 1ull << 0;  // ABI 4
constexpr uint64_t kAccessNetConnectTcp = 1ull << 1;
constexpr uint64_t kScopeAbstractUnixSocket = 1ull << 0;  // ABI 6
constexpr uint64_t kScopeSignal = 1ull << 1;

constexpr uint64_t kFileRights =
    LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE;
constexpr uint64_t kReadRights =
    LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;

// The ruleset attribute as the newest kernels read it; its size tells the kernel which fields
// the caller knows.
struct RulesetAttr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net;
  uint64_t scoped;
};

uint64_t handled_fs_rights(int abi) {
  uint64_t rights = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
                    LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR |
                    LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
                    LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR |
                    LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |
                    LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
                    LANDLOCK_ACCESS_FS_MAKE_SYM;
  if (abi >= 2) rights |= LANDLOCK_ACCESS_FS_REFER;
  if (abi >= 3) rights |= kAccessTruncate;
  // Device ioctls (ABI 5) stay unhandled: GPU drivers drive their devices through them.
  return rights;
}

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v && *v == '/' ? v : "";
}

void add_path_list(std::vector<std::string>& out, const char* env_name) {
  const char* v = std::getenv(env_name);
  if (!v) return;
  std::stringstream list(v);
  for (std::string item; std::getline(list, item, ':');)
    if (!item.empty() && item[0] == '/') out.push_back(item);
}

std::string parent_dir(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos || slash == 0 ? "/" : path.substr(0, slash);
}

// Directories of the vendor libraries named by absolute path in the ICD files of `dir`.
void add_icd_library_dirs(std::vector<std::string>& out, const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (!d) return;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name.size() < 5 || name.compare(name.size() - 4, 4, ".icd") != 0) continue;
    std::ifstream in(dir + "/" + name);
    std::string lib;
    std::getline(in, lib);
    if (!lib.empty() && lib[0] == '/') out.push_back(parent_dir(lib));
  }
  closedir(d);
}

void add_device_nodes(std::vector<std::string>& out) {
  for (const char* dev : {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
                          "/dev/shm", "/dev/dri", "/dev/kfd"})
    out.push_back(dev);
  DIR* d = opendir("/dev");
  if (!d) return;
  while (dirent* e = readdir(d))
    if (std::strncmp(e->d_name, "nvidia", 6) == 0) out.push_back(std::string("/dev/") + e->d_name);
  closedir(d);
}

bool add_rule(int ruleset_fd, const std::string& path, uint64_t rights, uint64_t handled,
              std::string* error) {
  int fd = open(path.c_str(), O_PATH | O_CLOEXEC);
  if (fd < 0) return true;  // absent on this host: nothing to allow
  struct stat st;
  if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode)) rights &= kFileRights | kAccessTruncate;
  landlock_path_beneath_attr rule{};
  rule.allowed_access = rights & handled;
  rule.parent_fd = fd;
  long r = syscall(SYS_landlock_add_rule, ruleset_fd, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
  int saved = errno;
  close(fd);
  if (r == 0) return true;
  *error = "landlock rule for " + path + ": " + strerror(saved);
  return false;
}

}  // namespace

int landlock_abi() {
  long abi = syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return abi > 0 ? int(abi) : 0;
}

FilesystemView sandbox_filesystem_view(const std::vector<std::string>& extra_read_paths) {
  FilesystemView view;
  auto& r = view.read_paths;
  r = {"/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/opt",
       // The dynamic loader's and the ICD loader's configuration, not the rest of /etc.
       "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/OpenCL",
       "/etc/alternatives", "/etc/localtime",
       // CPU and device discovery (LLVM, drivers); /proc/self is this process only.
       "/proc/self", "/proc/cpuinfo", "/proc/meminfo", "/proc/stat", "/sys/devices", "/sys/bus",
       "/sys/class", "/sys/dev", "/sys/fs/cgroup"};
  for (const char* name : {"GSVIRT_HOST_VENDORS", "OCL_ICD_VENDORS"}) {
    std::string dir = env_or_empty(name);
    if (dir.empty()) continue;
    r.push_back(dir);
    add_icd_library_dirs(r, dir);
  }
  add_icd_library_dirs(r, "/etc/OpenCL/vendors");
  for (const char* name : {"GSVIRT_CLANG", "GSVIRT_LLVM_SPIRV"})
    if (std::string tool = env_or_empty(name); !tool.empty()) r.push_back(parent_dir(tool));
  for (const char* name : {"PATH", "LD_LIBRARY_PATH", "OCL_ICD_FILENAMES", "GSVIRT_SANDBOX_READ"})
    add_path_list(r, name);
  r.insert(r.end(), extra_read_paths.begin(), extra_read_paths.end());

  auto& w = view.write_paths;
  for (const char* name : {"TMPDIR", "GSVIRT_CACHE_DIR", "POCL_CACHE_DIR", "GSGPU_DUMP_DIR"})
    if (std::string dir = env_or_empty(name); !dir.empty()) w.push_back(dir);
  add_path_list(w, "GSVIRT_SANDBOX_WRITE");
  if (std::string cache = env_or_empty("XDG_CACHE_HOME"); !cache.empty())
    w.push_back(cache);
  else if (std::string home = env_or_empty("HOME"); !home.empty())
    w.push_back(home + "/.cache");
  add_device_nodes(w);
  return view;
}

bool restrict_filesystem(int abi, const FilesystemView& view, std::string* error) {
  RulesetAttr attr{};
  attr.handled_access_fs = handled_fs_rights(abi);
  size_t attr_size = sizeof(uint64_t);
  if (abi >= 4) {
    // No TCP at all: a sandboxed process talks through its inherited connection only.
    attr.handled_access_net = kAccessNetBindTcp | kAccessNetConnectTcp;
    attr_size = 2 * sizeof(uint64_t);
  }
  if (abi >= 6) {
    attr.scoped = kScopeAbstractUnixSocket | kScopeSignal;
    attr_size = sizeof attr;
  }
  int ruleset = int(syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0));
  if (ruleset < 0) {
    *error = std::string("landlock ruleset: ") + strerror(errno);
    return false;
  }
  bool ok = true;
  uint64_t handled = attr.handled_access_fs;
  for (const auto& path : view.read_paths)
    ok = ok && add_rule(ruleset, path, kReadRights, handled, error);
  for (const auto& path : view.write_paths)
    ok = ok && add_rule(ruleset, path, handled, handled, error);
  if (ok && syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) {
    *error = std::string("landlock restrict_self: ") + strerror(errno);
    ok = false;
  }
  close(ruleset);
  return ok;
}

}  // namespace gsvirt::sandbox
