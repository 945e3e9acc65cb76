// The C API: a process-wide Renderer behind a mutex.
#include "gsvirt_renderer.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>

#include "common/log.h"
#include "host/capi/builtin_capsets.h"
#include "host/renderer/capset_registry.h"
#include "host/renderer/renderer.h"

using gsvirt::log_error;
using gsvirt::renderer::Renderer;

namespace {

std::mutex g_mutex;
// Destroyed by gsvirt_renderer_cleanup only, never by the process's exit: threads of the embedding
// program (a guest driver in the same process, as with the in-process transport) may still use
// the mappings of its blobs while exit runs static destructors; the OS takes everything back.
Renderer* g_renderer = nullptr;

// Runs `fn(renderer)` under the lock, or refuses when init has not been called.
template <typename Fn>
int with_renderer(const char* call, Fn fn) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_renderer) {
    log_error("renderer: %s: called before gsvirt_renderer_init", call);
    return -EINVAL;
  }
  return fn(*g_renderer);
}

bool valid_count(const char* call, const char* field, int n) {
  if (n >= 0) return true;
  log_error("renderer: %s: %s %d is negative", call, field, n);
  return false;
}

}  // namespace

extern "C" {

int gsvirt_renderer_init(void* cookie, int flags, const gsvirt_renderer_callbacks* cb) {
  // Registration is idempotent and happens even when init is refused: a program that initialised
  // the renderer itself still finds the built-in context types.
  gsvirt::renderer::register_builtin_capsets();
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_renderer) {
    log_error("renderer: init: already initialised");
    return -EBUSY;
  }
  if (flags != 0) {
    log_error("renderer: init: flags 0x%x has unknown bits", flags);
    return -EINVAL;
  }
  if (cb && cb->version != GSVIRT_RENDERER_CALLBACKS_VERSION) {
    log_error("renderer: init: callbacks version %d is not %d", cb->version,
              GSVIRT_RENDERER_CALLBACKS_VERSION);
    return -EINVAL;
  }
  auto write_fence = cb ? cb->write_context_fence : nullptr;
  g_renderer = new Renderer(
      [cookie, write_fence](uint32_t ctx_id, uint32_t ring_idx, uint64_t fence_id) {
        if (write_fence) write_fence(cookie, ctx_id, ring_idx, fence_id);
      });
  return 0;
}

void gsvirt_renderer_cleanup(void* cookie) {
  (void)cookie;
  std::lock_guard<std::mutex> lock(g_mutex);
  delete g_renderer;
  g_renderer = nullptr;
}

void gsvirt_renderer_get_cap_set(uint32_t set, uint32_t* max_ver, uint32_t* max_size) {
  *max_ver = 0;
  *max_size = 0;
  auto capset = gsvirt::renderer::find_capset(set);
  if (!capset) return;
  std::vector<uint8_t> caps;
  capset->fill_caps(capset->max_version, caps);
  *max_ver = capset->max_version;
  *max_size = uint32_t(caps.size());
}

int gsvirt_renderer_fill_caps(uint32_t set, uint32_t version, void* caps) {
  auto capset = gsvirt::renderer::find_capset(set);
  if (!capset) {
    log_error("renderer: fill_caps: set %u names no registered capset", set);
    return -EINVAL;
  }
  if (version > capset->max_version) {
    log_error("renderer: fill_caps: version %u exceeds max_version %u", version,
              capset->max_version);
    return -EINVAL;
  }
  // Callers size `caps` from get_cap_set, i.e. the latest version, which is the largest.
  std::vector<uint8_t> latest, out;
  capset->fill_caps(capset->max_version, latest);
  capset->fill_caps(version, out);
  if (out.size() > latest.size()) {
    log_error("renderer: fill_caps: version %u is larger than the size get_cap_set reported",
              version);
    return -EINVAL;
  }
  std::memcpy(caps, out.data(), out.size());
  return 0;
}

int gsvirt_renderer_context_create_with_flags(uint32_t ctx_id, uint32_t ctx_flags, uint32_t nlen,
                                              const char* name) {
  if (ctx_flags & ~uint32_t{GSVIRT_RENDERER_CONTEXT_FLAG_CAPSET_ID_MASK}) {
    log_error("renderer: context_create: ctx_flags 0x%x has unknown bits", ctx_flags);
    return -EINVAL;
  }
  std::string_view debug_name = name ? std::string_view(name, strnlen(name, nlen)) : "";
  return with_renderer("context_create", [&](Renderer& r) {
    return r.create_context(ctx_id, ctx_flags & GSVIRT_RENDERER_CONTEXT_FLAG_CAPSET_ID_MASK,
                            debug_name);
  });
}

int gsvirt_renderer_context_destroy(uint32_t ctx_id) {
  return with_renderer("context_destroy", [&](Renderer& r) { return r.destroy_context(ctx_id); });
}

int gsvirt_renderer_submit_cmd(void* buffer, int ctx_id, int ndw) {
  if (!valid_count("submit_cmd", "ndw", ndw)) return -EINVAL;
  return with_renderer("submit_cmd", [&](Renderer& r) {
    return r.submit(uint32_t(ctx_id), buffer, uint64_t(ndw) * 4);
  });
}

int gsvirt_renderer_resource_create_blob(const gsvirt_renderer_resource_create_blob_args* args) {
  if (!args || (args->num_iovs && !args->iovecs)) {
    log_error("renderer: resource_create_blob: args or iovecs is null");
    return -EINVAL;
  }
  gsvirt::renderer::BlobCreateInfo info;
  info.res_id = args->res_handle;
  info.ctx_id = args->ctx_id;
  info.blob_mem = args->blob_mem;
  info.blob_flags = args->blob_flags;
  info.blob_id = args->blob_id;
  info.size = args->size;
  if (args->num_iovs) info.iov = {args->iovecs, args->num_iovs};
  return with_renderer("resource_create_blob", [&](Renderer& r) { return r.create_blob(info); });
}

int gsvirt_renderer_resource_attach_iov(int res_handle, iovec* iov, int num_iovs) {
  if (!valid_count("resource_attach_iov", "num_iovs", num_iovs) || (num_iovs && !iov))
    return -EINVAL;
  return with_renderer("resource_attach_iov", [&](Renderer& r) {
    return r.attach_iov(uint32_t(res_handle), {iov, size_t(num_iovs)});
  });
}

int gsvirt_renderer_resource_detach_iov(int res_handle, iovec** iov, int* num_iovs) {
  return with_renderer("resource_detach_iov", [&](Renderer& r) {
    std::vector<iovec> detached;
    int ret = r.detach_iov(uint32_t(res_handle), &detached);
    if (ret < 0) return ret;
    if (iov && num_iovs) {
      *iov = nullptr;
      *num_iovs = int(detached.size());
      if (!detached.empty()) {
        *iov = static_cast<iovec*>(std::malloc(detached.size() * sizeof(iovec)));
        if (!*iov) return -ENOMEM;
        std::memcpy(*iov, detached.data(), detached.size() * sizeof(iovec));
      }
    }
    return 0;
  });
}

int gsvirt_renderer_resource_unref(uint32_t res_handle) {
  return with_renderer("resource_unref", [&](Renderer& r) { return r.unref_resource(res_handle); });
}

int gsvirt_renderer_ctx_attach_resource(int ctx_id, int res_handle) {
  return with_renderer("ctx_attach_resource", [&](Renderer& r) {
    return r.attach_resource(uint32_t(ctx_id), uint32_t(res_handle));
  });
}

int gsvirt_renderer_ctx_detach_resource(int ctx_id, int res_handle) {
  return with_renderer("ctx_detach_resource", [&](Renderer& r) {
    return r.detach_resource(uint32_t(ctx_id), uint32_t(res_handle));
  });
}

int gsvirt_renderer_resource_export_blob(uint32_t res_id, uint32_t* fd_type, int* fd) {
  return with_renderer("resource_export_blob", [&](Renderer& r) {
    int ret = r.export_blob(res_id, fd);
    if (ret == 0 && fd_type) *fd_type = GSVIRT_RENDERER_BLOB_FD_TYPE_SHM;
    return ret;
  });
}

int gsvirt_renderer_resource_get_map(uint32_t res_handle, void** map, uint64_t* out_size) {
  return with_renderer("resource_get_map",
                       [&](Renderer& r) { return r.get_map(res_handle, map, out_size); });
}

int gsvirt_renderer_context_create_fence(uint32_t ctx_id, uint32_t flags, uint32_t ring_idx,
                                         uint64_t fence_id) {
  if (flags != 0) {
    log_error("renderer: context_create_fence: flags 0x%x has unknown bits", flags);
    return -EINVAL;
  }
  return with_renderer("context_create_fence",
                       [&](Renderer& r) { return r.create_fence(ctx_id, ring_idx, fence_id); });
}

void gsvirt_renderer_poll(void) {
  with_renderer("poll", [](Renderer& r) {
    r.poll();
    return 0;
  });
}

int gsvirt_renderer_get_poll_fd(void) {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_renderer ? g_renderer->poll_fd() : -1;
}

}  // extern "C"
