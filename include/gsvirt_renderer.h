/* gsvirt renderer C API.
 *
 * Shaped like virglrenderer's public virglrenderer.h (the calls a VMM such as QEMU makes for
 * CONTEXT_INIT contexts and blob resources), so that a thin shim can later be loaded in place of
 * libvirglrenderer. One renderer per process; calls are serialised by an internal mutex.
 *
 * Every call that can fail returns 0 or a negative errno; a refusal also logs one line naming the
 * call and the field at fault. Ids and sizes are untrusted guest values and are all checked.
 *
 * Contexts whose guest work runs through a vendor driver (vcomp on the host executor; every vcomp
 * context with GSVIRT_ISOLATION=vcomp) run in a sandboxed worker process of their own that the
 * renderer starts (gsvirt-context-worker, found through GSVIRT_CONTEXT_WORKER or the install's
 * libexec directory) and kills when the context is destroyed; such a context takes only HOST3D
 * blobs (attaching a GUEST blob fails with -ENOTSUP). docs/security.md, "Context workers".
 */
#ifndef GSVIRT_RENDERER_H
#define GSVIRT_RENDERER_H

#include <stdint.h>
#include <sys/uio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GSVIRT_RENDERER_CALLBACKS_VERSION 1

struct gsvirt_renderer_callbacks {
  int version; /* GSVIRT_RENDERER_CALLBACKS_VERSION */
  /* A fence created with gsvirt_renderer_context_create_fence has retired. Fences of one
   * (ctx_id, ring_idx) retire in creation order. Called from inside create_fence or poll, on the
   * caller's thread; it must not call back into the renderer. */
  void (*write_context_fence)(void *cookie, uint32_t ctx_id, uint32_t ring_idx, uint64_t fence_id);
};

/* virtio-gpu blob memory types and flags (VIRTIO_GPU_BLOB_MEM_*, VIRTIO_GPU_BLOB_FLAG_USE_*). */
#define GSVIRT_RENDERER_BLOB_MEM_GUEST 0x0001
#define GSVIRT_RENDERER_BLOB_MEM_HOST3D 0x0002
#define GSVIRT_RENDERER_BLOB_FLAG_USE_MAPPABLE 0x0001
#define GSVIRT_RENDERER_BLOB_FLAG_USE_SHAREABLE 0x0002
#define GSVIRT_RENDERER_BLOB_FLAG_USE_CROSS_DEVICE 0x0004

/* Low 8 bits of context_create_with_flags' ctx_flags: the capset id. */
#define GSVIRT_RENDERER_CONTEXT_FLAG_CAPSET_ID_MASK 0xff

/* What resource_export_blob returns. */
#define GSVIRT_RENDERER_BLOB_FD_TYPE_SHM 0x0003

int gsvirt_renderer_init(void *cookie, int flags, const struct gsvirt_renderer_callbacks *cb);
/* Destroys every context and resource. init may be called again afterwards. */
void gsvirt_renderer_cleanup(void *cookie);

/* Capsets: max_ver 0 and max_size 0 when `set` is not registered. */
void gsvirt_renderer_get_cap_set(uint32_t set, uint32_t *max_ver, uint32_t *max_size);
/* Writes the capset of `version` into `caps`, which holds max_size bytes from get_cap_set. */
int gsvirt_renderer_fill_caps(uint32_t set, uint32_t version, void *caps);

int gsvirt_renderer_context_create_with_flags(uint32_t ctx_id, uint32_t ctx_flags,
                                              uint32_t nlen, const char *name);
int gsvirt_renderer_context_destroy(uint32_t ctx_id);
/* ndw: command size in dwords. The bytes are copied before the context decodes them. */
int gsvirt_renderer_submit_cmd(void *buffer, int ctx_id, int ndw);

struct gsvirt_renderer_resource_create_blob_args {
  uint32_t res_handle;
  uint32_t ctx_id;
  uint32_t blob_mem;
  uint32_t blob_flags;
  uint64_t blob_id;
  uint64_t size;
  const struct iovec *iovecs; /* GUEST blobs */
  uint32_t num_iovs;
};
int gsvirt_renderer_resource_create_blob(const struct gsvirt_renderer_resource_create_blob_args *args);
int gsvirt_renderer_resource_attach_iov(int res_handle, struct iovec *iov, int num_iovs);
/* Returns the iovecs given to attach_iov (the caller frees *iov with free()). */
int gsvirt_renderer_resource_detach_iov(int res_handle, struct iovec **iov, int *num_iovs);
int gsvirt_renderer_resource_unref(uint32_t res_handle);
int gsvirt_renderer_ctx_attach_resource(int ctx_id, int res_handle);
int gsvirt_renderer_ctx_detach_resource(int ctx_id, int res_handle);
/* A new close-on-exec fd for a HOST3D blob's memory; the caller owns it. */
int gsvirt_renderer_resource_export_blob(uint32_t res_id, uint32_t *fd_type, int *fd);
/* The host mapping of a HOST3D blob, valid until the resource is unreferenced. */
int gsvirt_renderer_resource_get_map(uint32_t res_handle, void **map, uint64_t *out_size);

/* Context fences: per (ctx_id, ring_idx) timelines. fence_id is the caller's (any value; a VMM
 * passes its virtio-gpu fence id) and is handed to the context with the ring. The fence retires,
 * through the write_context_fence callback with that same id, once the context has finished the
 * work submitted before it on that ring; contexts with asynchronous work (a GPU) retire it later,
 * from gsvirt_renderer_poll. ring_idx < 64; flags: reserved, must be 0. */
int gsvirt_renderer_context_create_fence(uint32_t ctx_id, uint32_t flags, uint32_t ring_idx,
                                         uint64_t fence_id);
/* Delivers the fences retired since the last call (write_context_fence, on the caller's thread). */
void gsvirt_renderer_poll(void);
/* An fd that becomes readable when a context has retired work that gsvirt_renderer_poll would
 * deliver (virglrenderer's get_poll_fd): wait on it, then call poll. Owned by the renderer, valid
 * until cleanup; -1 before init. Contexts that learn of completion only when polled do not make
 * it readable, so a waiter also polls on a short timer. */
int gsvirt_renderer_get_poll_fd(void);

#ifdef __cplusplus
}
#endif

#endif /* GSVIRT_RENDERER_H */
