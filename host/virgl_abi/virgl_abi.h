/* The virglrenderer 1.x ABI as gsvirt's drop-in library (libvirglrenderer.so.1) exports it.
 *
 * Written for gsvirt from facts, not copied: the struct layouts, constant values and prototypes
 * are those of Debian 13's libvirglrenderer-dev 1.1.0-2 (virgl/virglrenderer.h, version 1.1.0,
 * VIRGL_RENDERER_CALLBACKS_VERSION 4), and the way each call is used is that of Debian 13's QEMU
 * 1:10.0.13+ds-0+deb13u1 (hw/display/virtio-gpu-virgl.c, hw/display/virtio-gpu-gl.c). The symbols
 * that QEMU's hw-display-virtio-gpu-gl.so module imports (nm -D --undefined-only; the module is
 * linked with BIND_NOW, so a missing one fails the module load) are listed in
 * tests/host/virgl_abi/qemu_10_0_imports.txt. The library exports all 45 symbols the real
 * libvirglrenderer.so.1 1.1.0 exports; none is versioned there, none is here.
 *
 * Only this header's names are gsvirt's; every layout must stay bit-identical to the real one.
 */
#ifndef GSVIRT_VIRGL_ABI_H
#define GSVIRT_VIRGL_ABI_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VIRGL_ABI_EXPORT __attribute__((visibility("default")))

/* ---- init ------------------------------------------------------------------------------------ */

typedef void *virgl_renderer_gl_context;

struct virgl_renderer_gl_ctx_param {
  int version;
  bool shared;
  int major_ver;
  int minor_ver;
  int compat_ctx;
};

/* The callbacks a VMM hands to init. `version` says how many members are valid: write_fence and
 * the three GL members from 1, get_drm_fd from 2, write_context_fence and get_server_fd from 3,
 * get_egl_display from 4. QEMU 10.0 passes 3, or 4 when it has an EGL display. */
struct virgl_renderer_callbacks {
  int version;
  void (*write_fence)(void *cookie, uint32_t fence);
  virgl_renderer_gl_context (*create_gl_context)(void *cookie, int scanout_idx,
                                                 struct virgl_renderer_gl_ctx_param *param);
  void (*destroy_gl_context)(void *cookie, virgl_renderer_gl_context ctx);
  int (*make_current)(void *cookie, int scanout_idx, virgl_renderer_gl_context ctx);
  int (*get_drm_fd)(void *cookie);
  void (*write_context_fence)(void *cookie, uint32_t ctx_id, uint32_t ring_idx, uint64_t fence_id);
  int (*get_server_fd)(void *cookie, uint32_t version);
  void *(*get_egl_display)(void *cookie);
};

/* init flags (QEMU 10.0 passes 0, or VENUS | RENDER_SERVER with the device's venus=on). */
#define VIRGL_ABI_INIT_USE_EGL (1 << 0)
#define VIRGL_ABI_INIT_THREAD_SYNC (1 << 1)
#define VIRGL_ABI_INIT_USE_GLX (1 << 2)
#define VIRGL_ABI_INIT_USE_SURFACELESS (1 << 3)
#define VIRGL_ABI_INIT_USE_GLES (1 << 4)
#define VIRGL_ABI_INIT_USE_EXTERNAL_BLOB (1 << 5)
#define VIRGL_ABI_INIT_VENUS (1 << 6)
#define VIRGL_ABI_INIT_NO_VIRGL (1 << 7)
#define VIRGL_ABI_INIT_ASYNC_FENCE_CB (1 << 8)
#define VIRGL_ABI_INIT_RENDER_SERVER (1 << 9)
#define VIRGL_ABI_INIT_DRM (1 << 10)
#define VIRGL_ABI_INIT_USE_VIDEO (1 << 11)
#define VIRGL_ABI_INIT_D3D11_SHARE_TEXTURE (1 << 12)
#define VIRGL_ABI_INIT_COMPAT_PROFILE (1 << 13)
#define VIRGL_ABI_INIT_USE_GUEST_VRAM (1 << 14)

/* ---- resources ------------------------------------------------------------------------------- */

/* Classic (virgl GL) resources: RESOURCE_CREATE_2D / _3D. */
struct virgl_renderer_resource_create_args {
  uint32_t handle;
  uint32_t target;
  uint32_t format;
  uint32_t bind;
  uint32_t width;
  uint32_t height;
  uint32_t depth;
  uint32_t array_size;
  uint32_t last_level;
  uint32_t nr_samples;
  uint32_t flags;
};

/* Filled by resource_get_info; QEMU takes `fd` as the resource's dma-buf (-1: none). */
struct virgl_renderer_resource_info {
  uint32_t handle;
  uint32_t virgl_format;
  uint32_t width;
  uint32_t height;
  uint32_t depth;
  uint32_t flags;
  uint32_t tex_id;
  uint32_t stride;
  int drm_fourcc;
  int fd;
};

struct virgl_renderer_resource_info_ext {
  int version; /* 0 */
  struct virgl_renderer_resource_info base;
  bool has_dmabuf_export;
  int planes;
  uint64_t modifiers;
  void *d3d_tex2d;
};

/* blob_mem and blob_flags are virtio-gpu's VIRTIO_GPU_BLOB_MEM_* and VIRTIO_GPU_BLOB_FLAG_*. */
#define VIRGL_ABI_BLOB_MEM_GUEST 0x0001
#define VIRGL_ABI_BLOB_MEM_HOST3D 0x0002
#define VIRGL_ABI_BLOB_MEM_HOST3D_GUEST 0x0003
#define VIRGL_ABI_BLOB_MEM_GUEST_VRAM 0x0004

struct virgl_renderer_resource_create_blob_args {
  uint32_t res_handle;
  uint32_t ctx_id;
  uint32_t blob_mem;
  uint32_t blob_flags;
  uint64_t blob_id;
  uint64_t size;
  const struct iovec *iovecs;
  uint32_t num_iovs;
};

struct virgl_renderer_resource_import_blob_args {
  uint32_t res_handle;
  uint32_t blob_mem;
  uint32_t fd_type;
  int fd;
  uint64_t size;
};

/* resource_get_map_info: the caching of a mapped blob (virtio-gpu's VIRTIO_GPU_MAP_CACHE_*). */
#define VIRGL_ABI_MAP_CACHE_CACHED 0x01

/* resource_export_blob's fd_type. */
#define VIRGL_ABI_BLOB_FD_TYPE_DMABUF 0x0001
#define VIRGL_ABI_BLOB_FD_TYPE_OPAQUE 0x0002
#define VIRGL_ABI_BLOB_FD_TYPE_SHM 0x0003

/* The 3D box of transfer_read_iov / transfer_write_iov (virtio_gpu_box). */
struct virgl_box {
  uint32_t x, y, z;
  uint32_t w, h, d;
};

/* Low 8 bits of context_create_with_flags' ctx_flags: the capset id. */
#define VIRGL_ABI_CONTEXT_FLAG_CAPSET_ID_MASK 0xff

/* context_create_fence flags: the fence's callback may be skipped when a later one covers it. */
#define VIRGL_ABI_FENCE_FLAG_MERGEABLE (1 << 0)

/* Capsets QEMU 10.0 knows (include/standard-headers/linux/virtio_gpu.h). */
#define VIRGL_ABI_CAPSET_VIRGL 1
#define VIRGL_ABI_CAPSET_VIRGL2 2
#define VIRGL_ABI_CAPSET_VENUS 4

typedef void (*virgl_debug_callback_type)(const char *fmt, va_list ap);
typedef void (*virgl_free_data_callback_type)(void *user_data);
/* log_level: 0 debug, 1 info, 2 warning, 3 error (an enum in the real header: int-sized). */
typedef void (*virgl_log_callback_type)(int log_level, const char *message, void *user_data);

/* ---- the exported functions (all 45 of libvirglrenderer.so.1 1.1.0) -------------------------- */

VIRGL_ABI_EXPORT int virgl_renderer_init(void *cookie, int flags, struct virgl_renderer_callbacks *cb);
VIRGL_ABI_EXPORT void virgl_renderer_cleanup(void *cookie);
VIRGL_ABI_EXPORT void virgl_renderer_reset(void);
VIRGL_ABI_EXPORT void virgl_renderer_poll(void);
VIRGL_ABI_EXPORT int virgl_renderer_get_poll_fd(void);
VIRGL_ABI_EXPORT void virgl_renderer_force_ctx_0(void);

VIRGL_ABI_EXPORT void virgl_renderer_get_cap_set(uint32_t set, uint32_t *max_ver, uint32_t *max_size);
VIRGL_ABI_EXPORT void virgl_renderer_fill_caps(uint32_t set, uint32_t version, void *caps);

VIRGL_ABI_EXPORT int virgl_renderer_context_create(uint32_t handle, uint32_t nlen, const char *name);
VIRGL_ABI_EXPORT int virgl_renderer_context_create_with_flags(uint32_t ctx_id, uint32_t ctx_flags,
                                                              uint32_t nlen, const char *name);
VIRGL_ABI_EXPORT void virgl_renderer_context_destroy(uint32_t handle);
VIRGL_ABI_EXPORT int virgl_renderer_submit_cmd(void *buffer, int ctx_id, int ndw);
VIRGL_ABI_EXPORT int virgl_renderer_submit_cmd2(void *buffer, int ctx_id, int ndw, uint64_t *in_fence_ids,
                                                uint32_t num_in_fences);
VIRGL_ABI_EXPORT void virgl_renderer_ctx_attach_resource(int ctx_id, int res_handle);
VIRGL_ABI_EXPORT void virgl_renderer_ctx_detach_resource(int ctx_id, int res_handle);

VIRGL_ABI_EXPORT int virgl_renderer_create_fence(int client_fence_id, uint32_t ctx_id);
VIRGL_ABI_EXPORT int virgl_renderer_context_create_fence(uint32_t ctx_id, uint32_t flags, uint32_t ring_idx,
                                                         uint64_t fence_id);
VIRGL_ABI_EXPORT void virgl_renderer_context_poll(uint32_t ctx_id);
VIRGL_ABI_EXPORT int virgl_renderer_context_get_poll_fd(uint32_t ctx_id);
VIRGL_ABI_EXPORT int virgl_renderer_export_fence(uint64_t client_fence_id, int *fd);
VIRGL_ABI_EXPORT int virgl_renderer_export_signalled_fence(void);

VIRGL_ABI_EXPORT int virgl_renderer_resource_create(struct virgl_renderer_resource_create_args *args,
                                                    struct iovec *iov, uint32_t num_iovs);
VIRGL_ABI_EXPORT int virgl_renderer_resource_create_blob(const struct virgl_renderer_resource_create_blob_args *args);
VIRGL_ABI_EXPORT int virgl_renderer_resource_import_blob(const struct virgl_renderer_resource_import_blob_args *args);
VIRGL_ABI_EXPORT int virgl_renderer_resource_import_eglimage(struct virgl_renderer_resource_create_args *args,
                                                             void *image);
VIRGL_ABI_EXPORT void virgl_renderer_resource_unref(uint32_t res_handle);
VIRGL_ABI_EXPORT int virgl_renderer_resource_attach_iov(int res_handle, struct iovec *iov, int num_iovs);
VIRGL_ABI_EXPORT void virgl_renderer_resource_detach_iov(int res_handle, struct iovec **iov, int *num_iovs);
VIRGL_ABI_EXPORT int virgl_renderer_resource_get_info(int res_handle, struct virgl_renderer_resource_info *info);
VIRGL_ABI_EXPORT int virgl_renderer_resource_get_info_ext(int res_handle,
                                                          struct virgl_renderer_resource_info_ext *info);
VIRGL_ABI_EXPORT int virgl_renderer_resource_map(uint32_t res_handle, void **map, uint64_t *out_size);
VIRGL_ABI_EXPORT int virgl_renderer_resource_unmap(uint32_t res_handle);
VIRGL_ABI_EXPORT int virgl_renderer_resource_get_map_info(uint32_t res_handle, uint32_t *map_info);
VIRGL_ABI_EXPORT int virgl_renderer_resource_export_blob(uint32_t res_id, uint32_t *fd_type, int *fd);
VIRGL_ABI_EXPORT void virgl_renderer_resource_set_priv(uint32_t res_handle, void *priv);
VIRGL_ABI_EXPORT void *virgl_renderer_resource_get_priv(uint32_t res_handle);

VIRGL_ABI_EXPORT int virgl_renderer_transfer_read_iov(uint32_t handle, uint32_t ctx_id, uint32_t level,
                                                      uint32_t stride, uint32_t layer_stride,
                                                      struct virgl_box *box, uint64_t offset,
                                                      struct iovec *iov, int iovec_cnt);
VIRGL_ABI_EXPORT int virgl_renderer_transfer_write_iov(uint32_t handle, uint32_t ctx_id, int level,
                                                       uint32_t stride, uint32_t layer_stride,
                                                       struct virgl_box *box, uint64_t offset,
                                                       struct iovec *iovec, unsigned int iovec_cnt);
VIRGL_ABI_EXPORT void *virgl_renderer_get_cursor_data(uint32_t resource_id, uint32_t *width, uint32_t *height);
VIRGL_ABI_EXPORT void virgl_renderer_get_rect(int resource_id, struct iovec *iov, unsigned int num_iovs,
                                              uint32_t offset, int x, int y, int width, int height);
VIRGL_ABI_EXPORT int virgl_renderer_get_fd_for_texture(uint32_t tex_id, int *fd);
VIRGL_ABI_EXPORT int virgl_renderer_get_fd_for_texture2(uint32_t tex_id, int *fd, int *stride, int *offset);
VIRGL_ABI_EXPORT int virgl_renderer_execute(void *execute_args, uint32_t execute_size);

VIRGL_ABI_EXPORT virgl_debug_callback_type virgl_set_debug_callback(virgl_debug_callback_type cb);
VIRGL_ABI_EXPORT void virgl_set_log_callback(virgl_log_callback_type cb, void *user_data,
                                             virgl_free_data_callback_type free_user_data_cb);

#ifdef __cplusplus
}
#endif

#endif /* GSVIRT_VIRGL_ABI_H */
