#include "host/sandbox/sandbox.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdlib>
#include <cstring>

#include "common/log.h"
#include "host/sandbox/sandbox_steps.h"

extern char** environ;

namespace gsvirt::sandbox {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

// Variables read by gsvirt, OpenCL loaders and drivers, the compiler and the sanitizers.
const char* const kKeptPrefixes[] = {"GSVIRT_", "GSGPU_", "POCL_", "OCL_", "OPENCL_", "CUDA_",
                                     "NVIDIA_", "__GL_", "HSA_", "ROCR_", "AMD_", "GPU_",
                                     "RUSTICL_", "MESA_", "LLVM_", "ASAN_", "UBSAN_", "LSAN_",
                                     "LC_"};
const char* const kKeptNames[] = {"PATH", "HOME", "TMPDIR", "LANG", "LANGUAGE", "TZ",
                                  "LD_LIBRARY_PATH", "XDG_CACHE_HOME"};

bool set_limit(int resource, const char* name, uint64_t soft, uint64_t hard, std::string* error) {
  rlimit limit{rlim_t(soft), rlim_t(hard)};
  if (setrlimit(resource, &limit) == 0) return true;
  *error = std::string("setrlimit ") + name + ": " + strerror(errno);
  return false;
}

bool apply_limits(const SandboxOptions& o, std::string* error) {
  // No core files: a sandboxed process's memory holds guest data.
  if (!set_limit(RLIMIT_CORE, "RLIMIT_CORE", 0, 0, error)) return false;
  // SIGXCPU at the soft limit, SIGKILL a few seconds later at the hard one.
  if (o.cpu_seconds &&
      !set_limit(RLIMIT_CPU, "RLIMIT_CPU", o.cpu_seconds, o.cpu_seconds + 5, error))
    return false;
  // AddressSanitizer reserves terabytes of shadow memory up front; a data limit would fail it.
  uint64_t memory = o.memory_bytes;
  if (memory == kMemoryOfTheHost)
    memory = uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGESIZE));
  if (memory && !kAddressSanitizer &&
      !set_limit(RLIMIT_DATA, "RLIMIT_DATA", memory, memory, error))
    return false;
  if (o.file_bytes) {
    // A write past the limit fails with EFBIG instead of killing the writer.
    signal(SIGXFSZ, SIG_IGN);
    if (!set_limit(RLIMIT_FSIZE, "RLIMIT_FSIZE", o.file_bytes, o.file_bytes, error)) return false;
  }
  return true;
}

}  // namespace

bool environment_variable_kept(const std::string& name) {
  for (const char* prefix : kKeptPrefixes)
    if (name.rfind(prefix, 0) == 0) return true;
  for (const char* kept : kKeptNames)
    if (name == kept) return true;
  return false;
}

void scrub_environment() {
  std::vector<std::string> dropped;
  for (char** e = environ; e && *e; e++) {
    std::string entry = *e;
    std::string name = entry.substr(0, entry.find('='));
    if (!environment_variable_kept(name)) dropped.push_back(name);
  }
  for (const auto& name : dropped) unsetenv(name.c_str());
}

bool enter_sandbox(const SandboxOptions& options, SandboxReport* report) {
  SandboxReport local;
  SandboxReport& r = report ? *report : local;
  r = {};
  if (!options.enabled) return true;
  scrub_environment();
  // Not dumpable: other processes of this user cannot ptrace it or read its memory; no_new_privs:
  // nothing it runs gains privileges, and unprivileged Landlock and seccomp become possible.
  if (prctl(PR_SET_DUMPABLE, 0) != 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    r.error = std::string("prctl: ") + strerror(errno);
    return false;
  }
  if (!apply_limits(options, &r.error)) return false;
  r.landlock_abi = landlock_abi();
  if (options.landlock && r.landlock_abi > 0) {
    if (!restrict_filesystem(r.landlock_abi, sandbox_filesystem_view(options.extra_read_paths),
                             &r.error))
      return false;
    r.landlock_applied = true;
  } else if (options.landlock) {
    log_debug(kDebugTransport, "sandbox: no Landlock in this kernel; the sandboxed process's "
              "filesystem is not restricted");
  }
  if (!install_syscall_filter(&r.error)) return false;
  r.seccomp_applied = true;
  return true;
}

}  // namespace gsvirt::sandbox
