#include <dirent.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <vector>

#include "common/log.h"
#include "host/vcomp/executor.h"
#include "host/vcomp/gsgpu_executor.h"

namespace gsvirt::vcomp {
namespace {

using IcdGetPlatformIDs = cl_int (*)(cl_uint, cl_platform_id*, cl_uint*);

// The first member of every ICD object is its dispatch table (cl_khr_icd).
const cl_icd_dispatch* dispatch_of(cl_platform_id p) {
  return *reinterpret_cast<cl_icd_dispatch* const*>(p);
}

std::string platform_string(cl_platform_id p, cl_platform_info what) {
  size_t size = 0;
  if (dispatch_of(p)->clGetPlatformInfo(p, what, 0, nullptr, &size) != CL_SUCCESS || size == 0)
    return {};
  std::string s(size, '\0');
  if (dispatch_of(p)->clGetPlatformInfo(p, what, size, s.data(), nullptr) != CL_SUCCESS) return {};
  s.resize(std::strlen(s.c_str()));
  return s;
}

class HostExecutor final : public Executor {
 public:
  HostExecutor(cl_platform_id platform, std::string name)
      : platform_(platform), name_(std::move(name)) {}
  const std::string& name() const override { return name_; }
  cl_platform_id platform() const override { return platform_; }
  const cl_icd_dispatch& api() const override { return *dispatch_of(platform_); }

 private:
  cl_platform_id platform_;
  std::string name_;
};

std::vector<std::string> vendor_libraries(const std::string& dir) {
  std::vector<std::string> files;
  DIR* d = opendir(dir.c_str());
  if (!d) return {};
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n.size() > 4 && n.compare(n.size() - 4, 4, ".icd") == 0) files.push_back(dir + "/" + n);
  }
  closedir(d);
  std::sort(files.begin(), files.end());
  std::vector<std::string> libs;
  for (const auto& f : files) {
    std::ifstream in(f);
    std::string lib;
    std::getline(in, lib);
    while (!lib.empty() && (lib.back() == '\n' || lib.back() == '\r' || lib.back() == ' '))
      lib.pop_back();
    if (!lib.empty()) libs.push_back(lib);
  }
  return libs;
}

std::vector<cl_platform_id> platforms_of(const std::string& library) {
  // Vendor libraries stay loaded for the life of the process: their objects may outlive any
  // one context, and unloading an OpenCL runtime is rarely safe.
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    log_debug(kDebugCommands, "host executor: cannot load %s: %s", library.c_str(), dlerror());
    return {};
  }
  // The ICD extension says loaders find the entry point through clGetExtensionFunctionAddress
  // (PoCL exports it only under a prefixed name); a direct symbol is the fallback.
  using GetExtension = void* (*)(const char*);
  auto get_extension = reinterpret_cast<GetExtension>(dlsym(handle, "clGetExtensionFunctionAddress"));
  void* entry = get_extension ? get_extension("clIcdGetPlatformIDsKHR") : nullptr;
  if (!entry) entry = dlsym(handle, "clIcdGetPlatformIDsKHR");
  auto get_ids = reinterpret_cast<IcdGetPlatformIDs>(entry);
  cl_uint n = 0;
  if (!get_ids || get_ids(0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::vector<cl_platform_id> ids(n);
  if (get_ids(n, ids.data(), nullptr) != CL_SUCCESS) return {};
  return ids;
}

// A CPU OpenCL device (PoCL, say) runs a guest's kernels as native code in this process, where a
// __global pointer is a host address: the kernel reads and writes the server's memory. Such a
// platform is offered only when the operator declares the guests trusted.
bool guests_are_trusted() {
  const char* trusted = std::getenv("GSVIRT_TRUSTED_GUEST");
  return trusted && std::strcmp(trusted, "1") == 0;
}

bool offers_cpu_device(cl_platform_id p) {
  cl_uint count = 0;
  cl_int r = dispatch_of(p)->clGetDeviceIDs(p, CL_DEVICE_TYPE_CPU, 0, nullptr, &count);
  return r == CL_SUCCESS && count > 0;
}

std::unique_ptr<Executor> make_host_executor(std::string* error) {
  const char* env_dir = std::getenv("GSVIRT_HOST_VENDORS");
  std::string dir = env_dir && *env_dir ? env_dir : "/etc/OpenCL/vendors";
  const char* want = std::getenv("GSVIRT_HOST_PLATFORM");
  std::vector<std::string> seen, refused_cpu;
  for (const auto& lib : vendor_libraries(dir)) {
    for (cl_platform_id p : platforms_of(lib)) {
      std::string pname = platform_string(p, CL_PLATFORM_NAME);
      seen.push_back(pname);
      if (pname == "gsvirt") continue;  // never forward to ourselves
      if (want && *want && pname.find(want) == std::string::npos) continue;
      if (!guests_are_trusted() && offers_cpu_device(p)) {
        refused_cpu.push_back(pname);
        continue;
      }
      return std::make_unique<HostExecutor>(p, "host: " + pname);
    }
  }
  auto join = [](const std::vector<std::string>& names) {
    std::string list;
    for (const auto& s : names) list += (list.empty() ? "" : ", ") + s;
    return list;
  };
  *error = "host executor: no OpenCL platform" +
           std::string(want && *want ? std::string(" matching \"") + want + "\"" : "") + " in " +
           dir + (seen.empty() ? " (no platforms found)" : " (found: " + join(seen) + ")");
  if (!refused_cpu.empty())
    *error += "; " + join(refused_cpu) + " offers CPU devices, which run guest kernels as native "
              "code in the server: set GSVIRT_TRUSTED_GUEST=1 (gsvirt-server --trusted-guest) for "
              "trusted guests only";
  return nullptr;
}

}  // namespace

Executor* host_executor(std::string* error) {
  // Immortal on purpose: contexts owned by static objects (the in-process renderer) release
  // their host objects during exit, after function-local statics would have been destroyed.
  static std::once_flag once;
  static Executor* executor = nullptr;
  static std::string* init_error = new std::string;
  std::call_once(once, [] { executor = make_host_executor(init_error).release(); });
  if (!executor && error) *error = *init_error;
  return executor;
}

Executor* default_executor(std::string* error) {
  const char* which = std::getenv("GSVIRT_EXECUTOR");
  if (!which || !*which || std::strcmp(which, "gsgpu") == 0) return gsgpu_executor(error);
  if (std::strcmp(which, "host") == 0) return host_executor(error);
  if (error) *error = std::string("executor \"") + which + "\" is not supported (available: host, gsgpu)";
  return nullptr;
}

}  // namespace gsvirt::vcomp
