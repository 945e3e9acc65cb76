// Loads build/host/virgl_abi/libvirglrenderer.so.1 by path with dlopen, as QEMU's module loader
// does (the path comes from GSVIRT_VIRGL_ABI_LIB, set by meson), and resolves its functions.
// The test program links none of the library's code: it sees only what QEMU would see.
#pragma once

#include <dlfcn.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "host/virgl_abi/virgl_abi.h"

namespace gsvirt::virgl_abi::testing {

// Every virgl_renderer_* function the tests call, named once for the members and their lookup.
#define VIRGL_LIBRARY_FUNCTIONS(X) \
  X(init) \
  X(cleanup) \
  X(reset) \
  X(poll) \
  X(get_poll_fd) \
  X(force_ctx_0) \
  X(get_cap_set) \
  X(fill_caps) \
  X(context_create) \
  X(context_create_with_flags) \
  X(context_destroy) \
  X(submit_cmd) \
  X(ctx_attach_resource) \
  X(ctx_detach_resource) \
  X(create_fence) \
  X(context_create_fence) \
  X(resource_create) \
  X(resource_create_blob) \
  X(resource_unref) \
  X(resource_attach_iov) \
  X(resource_detach_iov) \
  X(resource_get_info) \
  X(resource_get_info_ext) \
  X(resource_map) \
  X(resource_unmap) \
  X(resource_get_map_info) \
  X(resource_export_blob) \
  X(resource_import_blob) \
  X(transfer_read_iov) \
  X(transfer_write_iov) \
  X(get_cursor_data) \
  X(get_fd_for_texture) \
  X(execute)

struct VirglLibrary {
  void* handle = nullptr;
  std::string error;

#define VIRGL_FN(name) decltype(&::virgl_renderer_##name) name = nullptr;
  VIRGL_LIBRARY_FUNCTIONS(VIRGL_FN)
#undef VIRGL_FN
  decltype(&::virgl_set_log_callback) set_log_callback = nullptr;

  // Loaded once per process: the library has process-wide state, as the real one has.
  static VirglLibrary& get() {
    static VirglLibrary* lib = [] {
      auto* l = new VirglLibrary;
      l->load();
      return l;
    }();
    return *lib;
  }

  static std::string path() {
    const char* p = std::getenv("GSVIRT_VIRGL_ABI_LIB");
    return p ? p : "";
  }

 private:
  void load() {
    if (path().empty()) {
      error = "GSVIRT_VIRGL_ABI_LIB is not set";
      return;
    }
    handle = dlopen(path().c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      error = dlerror();
      return;
    }
#define VIRGL_FN(name) resolve(name, "virgl_renderer_" #name);
    VIRGL_LIBRARY_FUNCTIONS(VIRGL_FN)
#undef VIRGL_FN
    resolve(set_log_callback, "virgl_set_log_callback");
  }

  template <typename Fn>
  void resolve(Fn& fn, const char* name) {
    fn = reinterpret_cast<Fn>(dlsym(handle, name));
    if (!fn && error.empty()) error = std::string("missing symbol ") + name;
  }
};

}  // namespace gsvirt::virgl_abi::testing
