// The drop-in's resources: blobs, the VMM's iovecs, host mappings (see shim_state.h).
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdlib>
#include <cstring>

#include "common/log.h"
#include "gsvirt_renderer.h"
#include "host/virgl_abi/shim_state.h"

using gsvirt::log_error;
using namespace gsvirt::virgl_abi;

namespace gsvirt::virgl_abi {

void mark_released_with_context(Shim& s, uint32_t ctx_id) {
  for (auto& [id, res] : s.resources)
    if (res.owner_ctx == ctx_id) res.released_by_renderer = true;
}

int note_classic_resource(Shim& s, uint32_t res_handle) {
  if (res_handle != 0 && !s.resources.count(res_handle)) s.resources[res_handle].classic = true;
  return not_supported("resource_create (RESOURCE_CREATE_2D/3D)",
                       "gsvirt offers no virgl GL; its contexts use blob resources");
}

bool names_refused_gl_object(const Shim& s, uint32_t ctx_id, uint32_t res_handle) {
  if (s.refused_gl_contexts.count(ctx_id)) return true;
  auto it = s.resources.find(res_handle);
  return it != s.resources.end() && it->second.classic;
}

void forget_resources(Shim& s) {
  for (auto& [id, res] : s.resources)
    if (res.mapping) s.kept_mappings.push_back(*res.mapping);
  s.resources.clear();
  s.refused_gl_contexts.clear();
}

}  // namespace gsvirt::virgl_abi

namespace {

// The VMM's record of `res_handle`, or null (logged) when it created none.
ShimResource* find(Shim& s, const char* call, int64_t res_handle) {
  auto it = s.resources.find(uint32_t(res_handle));
  if (res_handle <= 0 || res_handle > INT64_C(0xffffffff) || it == s.resources.end()) {
    log_error("virglrenderer: %s: res_handle %" PRId64 " names no resource", call, res_handle);
    return nullptr;
  }
  return &it->second;
}

// Maps the blob's memfd here, independently of the renderer's own mapping (shim_state.h).
int map_blob(uint32_t res_handle, Mapping* out) {
  uint32_t fd_type = 0;
  int fd = -1;
  int ret = gsvirt_renderer_resource_export_blob(res_handle, &fd_type, &fd);
  if (ret < 0) return ret;
  void* renderer_map = nullptr;
  uint64_t size = 0;
  ret = gsvirt_renderer_resource_get_map(res_handle, &renderer_map, &size);
  if (ret == 0) {
    void* addr = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (addr == MAP_FAILED) {
      ret = -errno;
      log_error("virglrenderer: resource_map: res_handle %u: mmap of %" PRIu64 " bytes failed (%s)",
                res_handle, size, std::strerror(errno));
    } else {
      *out = {addr, size};
    }
  }
  close(fd);
  return ret;
}

void fill_info(uint32_t res_handle, virgl_renderer_resource_info* info) {
  std::memset(info, 0, sizeof *info);
  info->handle = res_handle;
  info->fd = -1;  // no dma-buf: QEMU then refuses SET_SCANOUT_BLOB on it
}

}  // namespace

extern "C" {

int virgl_renderer_resource_create_blob(const virgl_renderer_resource_create_blob_args* args) {
  if (!args) return -EINVAL;
  Shim& s = shim();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.resources.count(args->res_handle)) {
    log_error("virglrenderer: resource_create_blob: res_handle %u is in use", args->res_handle);
    return -EEXIST;
  }
  gsvirt_renderer_resource_create_blob_args gargs{};
  gargs.res_handle = args->res_handle;
  gargs.ctx_id = args->ctx_id;
  gargs.blob_mem = args->blob_mem;
  gargs.blob_flags = args->blob_flags;
  gargs.blob_id = args->blob_id;
  gargs.size = args->size;
  gargs.iovecs = args->iovecs;
  gargs.num_iovs = args->num_iovs;
  int ret = gsvirt_renderer_resource_create_blob(&gargs);
  if (ret < 0) return ret;
  ShimResource& res = s.resources[args->res_handle];
  res.blob_mem = args->blob_mem;
  res.owner_ctx = args->ctx_id;
  if (args->num_iovs) {
    res.iov = const_cast<iovec*>(args->iovecs);
    res.num_iovs = int(args->num_iovs);
  }
  return 0;
}

void virgl_renderer_resource_unref(uint32_t res_handle) {
  Shim& s = shim();
  std::lock_guard<std::mutex> lock(s.mutex);
  ShimResource* res = find(s, "resource_unref", res_handle);
  if (!res) return;
  // QEMU unmaps first; a VMM that does not may still point a guest at the pages.
  if (res->mapping) s.kept_mappings.push_back(*res->mapping);
  bool in_renderer = !res->classic && !res->released_by_renderer;
  s.resources.erase(res_handle);
  if (in_renderer) gsvirt_renderer_resource_unref(res_handle);
}

int virgl_renderer_resource_attach_iov(int res_handle, iovec* iov, int num_iovs) {
  if (num_iovs <= 0 || !iov) {
    log_error("virglrenderer: resource_attach_iov: res_handle %d: %d iovecs", res_handle, num_iovs);
    return -EINVAL;
  }
  Shim& s = shim();
  std::lock_guard<std::mutex> lock(s.mutex);
  ShimResource* res = find(s, "resource_attach_iov", res_handle);
  if (!res || res->classic) return -EINVAL;
  if (res->released_by_renderer) {
    log_error("virglrenderer: resource_attach_iov: res_handle %d was released with its context", res_handle);
    return -EINVAL;
  }
  if (res->iov) {
    log_error("virglrenderer: resource_attach_iov: res_handle %d already has iovecs", res_handle);
    return -EBUSY;
  }
  int ret = gsvirt_renderer_resource_attach_iov(res_handle, iov, num_iovs);
  if (ret < 0) return ret;
  res->iov = iov;
  res->num_iovs = num_iovs;
  return 0;
}

void virgl_renderer_resource_detach_iov(int res_handle, iovec** iov, int* num_iovs) {
  if (iov) *iov = nullptr;
  if (num_iovs) *num_iovs = 0;
  Shim& s = shim();
  std::lock_guard<std::mutex> lock(s.mutex);
  auto it = s.resources.find(uint32_t(res_handle));
  if (res_handle <= 0 || it == s.resources.end() || !it->second.iov) return;  // nothing attached
  ShimResource& res = it->second;
  // The renderer lets go of the pages first (it hands back a copy, which is not the VMM's).
  iovec* copy = nullptr;
  int copy_count = 0;
  if (!res.released_by_renderer && gsvirt_renderer_resource_detach_iov(res_handle, &copy, &copy_count) == 0)
    std::free(copy);
  if (iov) *iov = res.iov;
  if (num_iovs) *num_iovs = res.num_iovs;
  res.iov = nullptr;
  res.num_iovs = 0;
}

int virgl_renderer_resource_get_info(int res_handle, virgl_renderer_resource_info* info) {
  if (!info) return -EINVAL;
  Shim& s = shim();
  std::lock_guard<std::mutex> lock(s.mutex);
  ShimResource* res = find(s, "resource_get_info", res_handle);
  if (!res || res->classic) return -EINVAL;
  fill_info(uint32_t(res_handle), info);
  return 0;
}

int virgl_renderer_resource_get_info_ext(int res_handle, virgl_renderer_resource_info_ext* info) {
  if (!info) return -EINVAL;
  Shim& s = shim();
  std::lock_guard<std::mutex> lock(s.mutex);
  ShimResource* res = find(s, "resource_get_info_ext", res_handle);
  if (!res || res->classic) return -EINVAL;
  std::memset(info, 0, sizeof *info);
  fill_info(uint32_t(res_handle), &info->base);
  return 0;
}

int virgl_renderer_resource_map(uint32_t res_handle, void** map, uint64_t* out_size) {
  if (!map || !out_size) return -EINVAL;
  Shim& s = shim();
  std::lock_guard<std::mutex> lock(s.mutex);
  ShimResource* res = find(s, "resource_map", res_handle);
  if (!res) return -EINVAL;
  if (res->mapping) {
    log_error("virglrenderer: resource_map: res_handle %u is already mapped", res_handle);
    return -EBUSY;
  }
  if (res->blob_mem != VIRGL_ABI_BLOB_MEM_HOST3D || res->released_by_renderer) {
    log_error("virglrenderer: resource_map: res_handle %u is not a HOST3D blob of a live context", res_handle);
    return -EINVAL;
  }
  Mapping mapping;
  if (int ret = map_blob(res_handle, &mapping); ret < 0) return ret;
  res->mapping = mapping;
  *map = mapping.addr;
  *out_size = mapping.size;
  return 0;
}

int virgl_renderer_resource_unmap(uint32_t res_handle) {
  Shim& s = shim();
  std::lock_guard<std::mutex> lock(s.mutex);
  ShimResource* res = find(s, "resource_unmap", res_handle);
  if (!res) return -EINVAL;
  if (!res->mapping) {
    log_error("virglrenderer: resource_unmap: res_handle %u is not mapped", res_handle);
    return -EINVAL;
  }
  munmap(res->mapping->addr, res->mapping->size);
  res->mapping.reset();
  return 0;
}

int virgl_renderer_resource_get_map_info(uint32_t res_handle, uint32_t* map_info) {
  if (!map_info) return -EINVAL;
  Shim& s = shim();
  std::lock_guard<std::mutex> lock(s.mutex);
  ShimResource* res = find(s, "resource_get_map_info", res_handle);
  if (!res || res->blob_mem != VIRGL_ABI_BLOB_MEM_HOST3D) return -EINVAL;
  *map_info = VIRGL_ABI_MAP_CACHE_CACHED;  // ordinary shared memory
  return 0;
}

int virgl_renderer_resource_export_blob(uint32_t res_id, uint32_t* fd_type, int* fd) {
  if (!fd_type || !fd) return -EINVAL;
  Shim& s = shim();
  std::lock_guard<std::mutex> lock(s.mutex);
  ShimResource* res = find(s, "resource_export_blob", res_id);
  if (!res || res->classic || res->released_by_renderer) return -EINVAL;
  int ret = gsvirt_renderer_resource_export_blob(res_id, fd_type, fd);
  if (ret == 0) *fd_type = VIRGL_ABI_BLOB_FD_TYPE_SHM;
  return ret;
}

void virgl_renderer_resource_set_priv(uint32_t res_handle, void* priv) {
  Shim& s = shim();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (ShimResource* res = find(s, "resource_set_priv", res_handle)) res->priv = priv;
}

void* virgl_renderer_resource_get_priv(uint32_t res_handle) {
  Shim& s = shim();
  std::lock_guard<std::mutex> lock(s.mutex);
  ShimResource* res = find(s, "resource_get_priv", res_handle);
  return res ? res->priv : nullptr;
}

void virgl_renderer_ctx_attach_resource(int ctx_id, int res_handle) {
  Shim& s = shim();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (names_refused_gl_object(s, uint32_t(ctx_id), uint32_t(res_handle))) return;
  gsvirt_renderer_ctx_attach_resource(ctx_id, res_handle);  // refusals are logged by the renderer
}

void virgl_renderer_ctx_detach_resource(int ctx_id, int res_handle) {
  Shim& s = shim();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (names_refused_gl_object(s, uint32_t(ctx_id), uint32_t(res_handle))) return;
  gsvirt_renderer_ctx_detach_resource(ctx_id, res_handle);
}

}  // extern "C"
