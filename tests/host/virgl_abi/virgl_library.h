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

struct VirglLibrary {
  void* handle = nullptr;
  std::string error;

#define VIRGL_FN(name) decltype(&::virgl_renderer_##name) name = nullptr;
  VIRGL_FN(init)
  VIRGL_FN(cleanup)
  VIRGL_FN(reset)
  VIRGL_FN(poll)
  VIRGL_FN(get_poll_fd)
  VIRGL_FN(force_ctx_0)
  VIRGL_FN(get_cap_set)
  VIRGL_FN(fill_caps)
  VIRGL_FN(context_create)
  VIRGL_FN(context_create_with_flags)
  VIRGL_FN(context_destroy)
  VIRGL_FN(submit_cmd)
  VIRGL_FN(ctx_attach_resource)
  VIRGL_FN(ctx_detach_resource)
  VIRGL_FN(create_fence)
  VIRGL_FN(context_create_fence)
  VIRGL_FN(resource_create)
  VIRGL_FN(resource_create_blob)
  VIRGL_FN(resource_unref)
  VIRGL_FN(resource_attach_iov)
  VIRGL_FN(resource_detach_iov)
  VIRGL_FN(resource_get_info)
  VIRGL_FN(resource_get_info_ext)
  VIRGL_FN(resource_map)
  VIRGL_FN(resource_unmap)
  VIRGL_FN(resource_get_map_info)
  VIRGL_FN(resource_export_blob)
  VIRGL_FN(resource_import_blob)
  VIRGL_FN(transfer_read_iov)
  VIRGL_FN(transfer_write_iov)
  VIRGL_FN(get_cursor_data)
  VIRGL_FN(get_fd_for_texture)
  VIRGL_FN(execute)
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
    VIRGL_FN(init)
    VIRGL_FN(cleanup)
    VIRGL_FN(reset)
    VIRGL_FN(poll)
    VIRGL_FN(get_poll_fd)
    VIRGL_FN(force_ctx_0)
    VIRGL_FN(get_cap_set)
    VIRGL_FN(fill_caps)
    VIRGL_FN(context_create)
    VIRGL_FN(context_create_with_flags)
    VIRGL_FN(context_destroy)
    VIRGL_FN(submit_cmd)
    VIRGL_FN(ctx_attach_resource)
    VIRGL_FN(ctx_detach_resource)
    VIRGL_FN(create_fence)
    VIRGL_FN(context_create_fence)
    VIRGL_FN(resource_create)
    VIRGL_FN(resource_create_blob)
    VIRGL_FN(resource_unref)
    VIRGL_FN(resource_attach_iov)
    VIRGL_FN(resource_detach_iov)
    VIRGL_FN(resource_get_info)
    VIRGL_FN(resource_get_info_ext)
    VIRGL_FN(resource_map)
    VIRGL_FN(resource_unmap)
    VIRGL_FN(resource_get_map_info)
    VIRGL_FN(resource_export_blob)
    VIRGL_FN(resource_import_blob)
    VIRGL_FN(transfer_read_iov)
    VIRGL_FN(transfer_write_iov)
    VIRGL_FN(get_cursor_data)
    VIRGL_FN(get_fd_for_texture)
    VIRGL_FN(execute)
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
