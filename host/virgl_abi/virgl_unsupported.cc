// What gsvirt has nothing for: virgl GL resources, transfers, textures, cursors, EGL images.
// Each answers a clean refusal that QEMU 10.0 handles (it ignores most of these return values and
// answers the guest with an error where it checks one), logged once per call.
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <mutex>

#include "common/log.h"
#include "host/virgl_abi/shim_state.h"

using namespace gsvirt::virgl_abi;

namespace {

constexpr const char* kNoGl = "gsvirt offers no virgl GL; its contexts use blob resources";

struct LogForwarding {
  std::mutex mutex;
  virgl_debug_callback_type debug = nullptr;
  virgl_log_callback_type log = nullptr;
  void* user_data = nullptr;
  virgl_free_data_callback_type free_user_data = nullptr;
};

LogForwarding& forwarding() {
  static LogForwarding* f = new LogForwarding;
  return *f;
}

void call_debug(virgl_debug_callback_type cb, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  cb(fmt, ap);
  va_end(ap);
}

// gsvirt's log lines go to the VMM's callback once it installed one (virglrenderer does the same
// with its own lines); level 2 is VIRGL_LOG_LEVEL_WARNING.
void forward_line(const char* line, void* user) {
  (void)user;
  LogForwarding& f = forwarding();
  std::lock_guard<std::mutex> lock(f.mutex);
  if (f.log)
    f.log(2, line, f.user_data);
  else if (f.debug)
    call_debug(f.debug, "%s\n", line);
  else
    std::fprintf(stderr, "%s\n", line);
}

void update_sink() {
  LogForwarding& f = forwarding();
  bool any = f.log || f.debug;
  gsvirt::set_log_sink(any ? forward_line : nullptr, nullptr);
}

}  // namespace

extern "C" {

// QEMU keeps the resource whatever the answer (RESOURCE_CREATE_2D of a Linux guest's console).
int virgl_renderer_resource_create(virgl_renderer_resource_create_args* args, iovec* iov, uint32_t num_iovs) {
  (void)iov, (void)num_iovs;
  Shim& s = shim();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.initialised || !args) return not_supported("resource_create (RESOURCE_CREATE_2D/3D)", kNoGl);
  return note_classic_resource(s, args->handle);
}

int virgl_renderer_resource_import_eglimage(virgl_renderer_resource_create_args* args, void* image) {
  (void)args, (void)image;
  return not_supported("resource_import_eglimage", kNoGl);
}

int virgl_renderer_resource_import_blob(const virgl_renderer_resource_import_blob_args* args) {
  (void)args;
  return not_supported("resource_import_blob", "blobs are created by gsvirt, not imported");
}

int virgl_renderer_transfer_read_iov(uint32_t handle, uint32_t ctx_id, uint32_t level, uint32_t stride,
                                     uint32_t layer_stride, virgl_box* box, uint64_t offset, iovec* iov,
                                     int iovec_cnt) {
  (void)handle, (void)ctx_id, (void)level, (void)stride, (void)layer_stride, (void)box, (void)offset, (void)iov,
      (void)iovec_cnt;
  return not_supported("transfer_read_iov (TRANSFER_FROM_HOST_3D)", kNoGl);
}

int virgl_renderer_transfer_write_iov(uint32_t handle, uint32_t ctx_id, int level, uint32_t stride,
                                      uint32_t layer_stride, virgl_box* box, uint64_t offset, iovec* iovec,
                                      unsigned int iovec_cnt) {
  (void)handle, (void)ctx_id, (void)level, (void)stride, (void)layer_stride, (void)box, (void)offset, (void)iovec,
      (void)iovec_cnt;
  return not_supported("transfer_write_iov (TRANSFER_TO_HOST_2D/3D)", kNoGl);
}

// QEMU treats NULL as "no cursor image".
void* virgl_renderer_get_cursor_data(uint32_t resource_id, uint32_t* width, uint32_t* height) {
  (void)resource_id;
  if (width) *width = 0;
  if (height) *height = 0;
  not_supported("get_cursor_data", kNoGl);
  return nullptr;
}

void virgl_renderer_get_rect(int resource_id, iovec* iov, unsigned int num_iovs, uint32_t offset, int x, int y,
                             int width, int height) {
  (void)resource_id, (void)iov, (void)num_iovs, (void)offset, (void)x, (void)y, (void)width, (void)height;
  not_supported("get_rect", kNoGl);
}

int virgl_renderer_get_fd_for_texture(uint32_t tex_id, int* fd) {
  (void)tex_id, (void)fd;
  return not_supported("get_fd_for_texture", kNoGl);
}

int virgl_renderer_get_fd_for_texture2(uint32_t tex_id, int* fd, int* stride, int* offset) {
  (void)tex_id, (void)fd, (void)stride, (void)offset;
  return not_supported("get_fd_for_texture2", kNoGl);
}

virgl_debug_callback_type virgl_set_debug_callback(virgl_debug_callback_type cb) {
  LogForwarding& f = forwarding();
  virgl_debug_callback_type previous;
  {
    std::lock_guard<std::mutex> lock(f.mutex);
    previous = f.debug;
    f.debug = cb;
  }
  update_sink();
  return previous;
}

void virgl_set_log_callback(virgl_log_callback_type cb, void* user_data, virgl_free_data_callback_type free_user_data) {
  LogForwarding& f = forwarding();
  {
    std::lock_guard<std::mutex> lock(f.mutex);
    if (f.free_user_data) f.free_user_data(f.user_data);
    f.log = cb;
    f.user_data = user_data;
    f.free_user_data = free_user_data;
  }
  update_sink();
}

}  // extern "C"
