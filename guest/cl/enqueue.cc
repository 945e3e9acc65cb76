// Enqueued commands: validated locally, batched unless they return data, events by guest id.
//
// Reads are executed blocking on the host even when the app asked for a non-blocking read (the
// data must come back in the reply); writes copy the app's bytes before returning, so both may
// complete earlier than the app required, which OpenCL allows.
#include "guest/cl/enqueue.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "guest/cl/api.h"
#include "guest/cl/deferred_reads.h"
#include "guest/cl/forward.h"
#include "guest/cl/kernel_args.h"
#include "guest/cl/memory.h"
#include "guest/cl/objects.h"
#include "guest/cl/rect.h"

namespace gsvirt::icd {
namespace {

static_assert(sizeof(size_t) == sizeof(uint64_t), "size_t arrays travel as u64s");

using Triple = std::array<uint64_t, 3>;
Triple triple(const size_t v[3]) { return {v[0], v[1], v[2]}; }

const uint64_t* wait_ids(const EnqueueCommon& c) { return c.wait_ids.empty() ? nullptr : c.wait_ids.data(); }

cl_int check_mem(const char* api, cl_command_queue queue, cl_mem mem, bool want_buffer, const char* what) {
  if (!live(mem) || is_buffer(mem) != want_buffer) return refuse(api, what, CL_INVALID_MEM_OBJECT);
  if (mem->context != queue->context) return refuse(api, what, CL_INVALID_CONTEXT);
  return CL_SUCCESS;
}

// CL_MEM_HOST_* flags forbid the host (the app) from reading or writing an object.
cl_int check_host_access(const char* api, cl_mem mem, bool writing) {
  cl_mem_flags forbidden = writing ? (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)
                                   : (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS);
  if (mem->flags & forbidden) return refuse(api, "the object's CL_MEM_HOST_* flags forbid this access", CL_INVALID_OPERATION);
  return CL_SUCCESS;
}

// The image's extent in each dimension of origin/region (width; height or array size; depth or
// array size), and the rule that unused dimensions have origin 0 and region 1.
cl_int check_image_bounds(const char* api, cl_mem image, const size_t origin[3], const size_t region[3]) {
  const cl_image_desc& d = image->desc;
  size_t extent[3] = {d.image_width, 1, 1};
  switch (image->type) {
    case CL_MEM_OBJECT_IMAGE1D_ARRAY: extent[1] = d.image_array_size; break;
    case CL_MEM_OBJECT_IMAGE2D: extent[1] = d.image_height; break;
    case CL_MEM_OBJECT_IMAGE2D_ARRAY: extent[1] = d.image_height; extent[2] = d.image_array_size; break;
    case CL_MEM_OBJECT_IMAGE3D: extent[1] = d.image_height; extent[2] = d.image_depth; break;
    default: break;
  }
  for (int i = 0; i < 3; ++i) {
    if (region[i] == 0) return refuse(api, "region has a 0", CL_INVALID_VALUE);
    if (origin[i] > extent[i] || region[i] > extent[i] - origin[i])
      return refuse(api, "origin/region outside the image", CL_INVALID_VALUE);
  }
  return CL_SUCCESS;
}

cl_int check_buffer_range(const char* api, cl_mem buffer, size_t offset, size_t size) {
  if (size == 0 || offset > buffer->size || size > buffer->size - offset)
    return refuse(api, "offset/size outside the buffer", CL_INVALID_VALUE);
  return CL_SUCCESS;
}

// USE_HOST_PTR objects keep the app's memory coherent with what transfers moved.
void mirror_to_host_ptr(cl_mem buffer, size_t offset, size_t size, const void* bytes) {
  if (!buffer->host_ptr) return;
  auto* mirror = static_cast<uint8_t*>(buffer->host_ptr) + offset;
  if (mirror != bytes) std::memmove(mirror, bytes, size);
}

// Buffer rectangles: validates the pitches and that the rectangle lies inside the buffer.
cl_int check_buffer_rect(const char* api, cl_mem buffer, const size_t origin[3], const size_t region[3],
                         size_t row_pitch, size_t slice_pitch) {
  if (!origin || !region) return refuse(api, "origin or region is NULL", CL_INVALID_VALUE);
  if (region[0] == 0 || region[1] == 0 || region[2] == 0) return refuse(api, "region has a 0", CL_INVALID_VALUE);
  if (row_pitch && row_pitch < region[0]) return refuse(api, "row pitch smaller than region[0]", CL_INVALID_VALUE);
  size_t rp = row_pitch ? row_pitch : region[0];
  if (slice_pitch && (slice_pitch < region[1] * rp || slice_pitch % rp))
    return refuse(api, "slice pitch", CL_INVALID_VALUE);
  RectLayout layout;
  std::memcpy(layout.origin, origin, sizeof layout.origin);
  layout.row_pitch = row_pitch;
  layout.slice_pitch = slice_pitch;
  if (rect_end_offset(resolve_pitches(layout, region), region) > buffer->size)
    return refuse(api, "rectangle outside the buffer", CL_INVALID_VALUE);
  return CL_SUCCESS;
}

// How an app's image rows are laid out in its memory; 1D arrays step by slice pitch per layer.
RectLayout app_image_layout(cl_mem image, const size_t region[3], size_t row_pitch, size_t slice_pitch) {
  size_t row_bytes = region[0] * image->element_size;
  RectLayout layout;
  layout.row_pitch = row_pitch ? row_pitch : row_bytes;
  layout.slice_pitch = slice_pitch ? slice_pitch : layout.row_pitch * region[1];
  if (image->type == CL_MEM_OBJECT_IMAGE1D_ARRAY) {
    layout.row_pitch = slice_pitch ? slice_pitch : layout.row_pitch;
    layout.slice_pitch = layout.row_pitch * region[1];
  }
  return layout;
}

cl_int check_image_region(const char* api, cl_mem image, const size_t origin[3], const size_t region[3],
                          const void* ptr) {
  if (!origin || !region || !ptr) return refuse(api, "origin, region or ptr is NULL", CL_INVALID_VALUE);
  return check_image_bounds(api, image, origin, region);
}

// Uploads `size` bytes into a new host buffer of the queue's context; returns its guest id (0 on
// failure, with *err set). The caller copies from it and then destroys it: the host's OpenCL keeps
// it alive until the copy has run.
cl_int destroy_temporary(const EnqueueCommon& common, uint64_t id) {
  return common.connection->send_batched("vcDestroyObject", [id](WireWriter& w, bool want) {
    proto::encode_vcDestroyObject(w, want, id);
  });
}

uint64_t upload_temporary(const char* api, const EnqueueCommon& common, cl_command_queue queue, const void* src,
                          size_t size, cl_int* err) {
  // Bytes beyond one staging piece cannot travel with the creation: the buffer is created empty and
  // filled piece by piece on the context's transfer queue, which waits for no user event.
  bool in_pieces = size > common.connection->limits().transfer_chunk_bytes;
  proto::DataIn in;
  *err = common.connection->data_in(in_pieces ? nullptr : src, in_pieces ? 0 : size, &in);
  if (*err != CL_SUCCESS) return 0;
  uint64_t id = common.connection->allocate_id();
  cl_mem_flags flags = CL_MEM_READ_ONLY | (in_pieces ? 0 : CL_MEM_COPY_HOST_PTR);
  proto::Reply_clCreateBuffer reply;
  *err = common.connection->call(
      api,
      [&](WireWriter& w, bool want) {
        proto::encode_clCreateBuffer(w, want, id, queue->context->guest_id, flags, size, in);
      },
      proto::decode_reply_clCreateBuffer, &reply);
  if (*err != CL_SUCCESS) return 0;
  if (!in_pieces) return id;
  uint64_t transfer_queue_id = 0;
  *err = transfer_queue(api, common.connection, queue->context, queue->device, &transfer_queue_id);
  if (*err == CL_SUCCESS)
    *err = write_buffer_in_pieces(api, common.connection, {transfer_queue_id, id, 0, size, nullptr, 0, 0}, src);
  if (*err == CL_SUCCESS) return id;
  destroy_temporary(common, id);
  return 0;
}

cl_int send_barrier(const char* api, const EnqueueCommon& common, cl_command_queue queue) {
  return common.connection->send_batched(api, [&](WireWriter& w, bool want) {
    proto::encode_clEnqueueBarrierWithWaitList(w, want, queue->guest_id, wait_ids(common), common.wait_ids.size(),
                                               common.event_id);
  });
}

cl_int enqueue_ndrange(const char* api, cl_command_queue queue, cl_kernel kernel, cl_uint work_dim,
                       const size_t* global_work_offset, const size_t* global_work_size,
                       const size_t* local_work_size, cl_uint num_events, const cl_event* wait_list, cl_event* event,
                       cl_command_type type) {
  EnqueueCommon common;
  cl_int err = begin_enqueue(api, queue, num_events, wait_list, event, &common);
  if (err != CL_SUCCESS) return err;
  if (!live(kernel)) return refuse(api, "kernel", CL_INVALID_KERNEL);
  if (kernel->program->context != queue->context) return refuse(api, "kernel of another context", CL_INVALID_CONTEXT);
  if (work_dim < 1 || work_dim > 3) return refuse(api, "work_dim", CL_INVALID_WORK_DIMENSION);
  if (!global_work_size) return refuse(api, "global_work_size is NULL", CL_INVALID_GLOBAL_WORK_SIZE);
  std::vector<uint64_t> offset, global, local;
  for (cl_uint d = 0; d < work_dim; ++d) {
    // A global size of 0 is allowed (OpenCL 2.1+: the command runs nothing and completes after its
    // wait list); the host's device judges it.
    if (local_work_size && local_work_size[d] == 0) return refuse(api, "local_work_size has a 0", CL_INVALID_WORK_GROUP_SIZE);
    global.push_back(global_work_size[d]);
    if (global_work_offset) offset.push_back(global_work_offset[d]);
    if (local_work_size) local.push_back(local_work_size[d]);
  }
  err = ensure_kernel_arg_count(api, kernel);
  if (err != CL_SUCCESS) return err;
  if (!kernel_args_complete(kernel)) return refuse(api, "not every kernel argument is set", CL_INVALID_KERNEL_ARGS);
  err = check_local_size(api, kernel, queue->device, work_dim, global_work_size, local_work_size);
  if (err != CL_SUCCESS) return err;
  err = common.connection->send_batched(api, [&](WireWriter& w, bool want) {
    proto::encode_clEnqueueNDRangeKernel(w, want, queue->guest_id, kernel->guest_id, work_dim,
                                         offset.empty() ? nullptr : offset.data(), offset.size(), global.data(),
                                         global.size(), local.empty() ? nullptr : local.data(), local.size(),
                                         wait_ids(common), common.wait_ids.size(), common.event_id);
  });
  if (err != CL_SUCCESS) return err;
  finish_enqueue(common, queue, type, event, false);
  return CL_SUCCESS;
}

}  // namespace

cl_int read_buffer_in_pieces(const char* api, Connection* connection, const BufferRange& range, void* dst) {
  const size_t piece_limit = connection->limits().transfer_chunk_bytes;
  auto* out_bytes = static_cast<uint8_t*>(dst);
  for (uint64_t done = 0; done < range.size;) {
    uint64_t piece = std::min<uint64_t>(piece_limit, range.size - done);
    bool last = done + piece == range.size;
    proto::DataOut out;
    cl_int err = connection->data_out(piece, &out);
    if (err != CL_SUCCESS) return err;
    proto::Reply_clEnqueueReadBuffer reply;
    err = connection->call(
        api,
        [&](WireWriter& w, bool want) {
          proto::encode_clEnqueueReadBuffer(w, want, range.queue_id, range.buffer_id, range.offset + done, piece,
                                            range.wait_ids, range.wait_count, last ? range.event_id : 0, out);
        },
        proto::decode_reply_clEnqueueReadBuffer, &reply);
    if (err != CL_SUCCESS) return err;
    connection->copy_data_out(out, reply.dst, reply.dst_size, out_bytes + done, piece);
    done += piece;
  }
  return CL_SUCCESS;
}

cl_int write_buffer_in_pieces(const char* api, Connection* connection, const BufferRange& range, const void* src) {
  const size_t piece_limit = connection->limits().transfer_chunk_bytes;
  const auto* in_bytes = static_cast<const uint8_t*>(src);
  for (uint64_t done = 0; done < range.size;) {
    uint64_t piece = std::min<uint64_t>(piece_limit, range.size - done);
    bool last = done + piece == range.size;
    proto::DataIn in;
    cl_int err = connection->data_in(in_bytes + done, piece, &in);
    if (err != CL_SUCCESS) return err;
    err = connection->send_batched(api, [&](WireWriter& w, bool want) {
      proto::encode_clEnqueueWriteBuffer(w, want, range.queue_id, range.buffer_id, 1, range.offset + done, piece, in,
                                         range.wait_ids, range.wait_count, last ? range.event_id : 0);
    });
    if (err != CL_SUCCESS) return err;
    done += piece;
  }
  return CL_SUCCESS;
}

cl_int read_buffer_bytes(const char* api, const EnqueueCommon& common, cl_command_queue queue, cl_mem buffer,
                         size_t offset, size_t size, void* dst) {
  BufferRange range{queue->guest_id, buffer->guest_id, offset,          size,
                    wait_ids(common), common.wait_ids.size(), common.event_id};
  cl_int err = read_buffer_in_pieces(api, common.connection, range, dst);
  if (err != CL_SUCCESS) return err;
  mirror_to_host_ptr(buffer, offset, size, dst);
  return CL_SUCCESS;
}

cl_int write_buffer_bytes(const char* api, const EnqueueCommon& common, cl_command_queue queue, cl_mem buffer,
                          size_t offset, size_t size, const void* src) {
  if (user_events_pending()) {
    cl_int err = CL_SUCCESS;
    uint64_t temporary = upload_temporary(api, common, queue, src, size, &err);
    if (!temporary) return err;
    err = common.connection->send_batched(api, [&](WireWriter& w, bool want) {
      proto::encode_clEnqueueCopyBuffer(w, want, queue->guest_id, temporary, buffer->guest_id, 0, offset, size,
                                        wait_ids(common), common.wait_ids.size(), common.event_id);
    });
    destroy_temporary(common, temporary);
    if (err == CL_SUCCESS) mirror_to_host_ptr(buffer, offset, size, src);
    return err;
  }
  BufferRange range{queue->guest_id, buffer->guest_id, offset,          size,
                    wait_ids(common), common.wait_ids.size(), common.event_id};
  cl_int err = write_buffer_in_pieces(api, common.connection, range, src);
  if (err == CL_SUCCESS) mirror_to_host_ptr(buffer, offset, size, src);
  return err;
}

cl_int read_image_packed(const char* api, const EnqueueCommon& common, cl_command_queue queue, cl_mem image,
                         const size_t origin[3], const size_t region[3], void* packed) {
  Connection* connection = common.connection;
  size_t bytes = region[0] * image->element_size * region[1] * region[2];
  proto::DataOut out;
  cl_int err = connection->data_out(bytes, &out);
  if (err != CL_SUCCESS) return err;
  Triple o = triple(origin), r = triple(region);
  proto::Reply_clEnqueueReadImage reply;
  err = connection->call(
      api,
      [&](WireWriter& w, bool want) {
        proto::encode_clEnqueueReadImage(w, want, queue->guest_id, image->guest_id, o.data(), 3, r.data(), 3,
                                         wait_ids(common), common.wait_ids.size(), common.event_id, out);
      },
      proto::decode_reply_clEnqueueReadImage, &reply);
  if (err != CL_SUCCESS) return err;
  connection->copy_data_out(out, reply.dst, reply.dst_size, packed, bytes);
  return CL_SUCCESS;
}

void encode_image_to_staging(WireWriter& w, bool want, const EnqueueCommon& common, cl_command_queue queue,
                             cl_mem image, const size_t origin[3], const size_t region[3], uint64_t staging) {
  Triple o = triple(origin), r = triple(region);
  proto::encode_clEnqueueCopyImageToBuffer(w, want, queue->guest_id, image->guest_id, staging, o.data(), 3, r.data(),
                                           3, 0, wait_ids(common), common.wait_ids.size(), common.event_id);
}

cl_int write_image_packed(const char* api, const EnqueueCommon& common, cl_command_queue queue, cl_mem image,
                          const size_t origin[3], const size_t region[3], const void* packed) {
  size_t bytes = region[0] * image->element_size * region[1] * region[2];
  Triple o = triple(origin), r = triple(region);
  if (user_events_pending()) {
    cl_int err = CL_SUCCESS;
    uint64_t temporary = upload_temporary(api, common, queue, packed, bytes, &err);
    if (!temporary) return err;
    err = common.connection->send_batched(api, [&](WireWriter& w, bool want) {
      proto::encode_clEnqueueCopyBufferToImage(w, want, queue->guest_id, temporary, image->guest_id, 0, o.data(), 3,
                                               r.data(), 3, wait_ids(common), common.wait_ids.size(), common.event_id);
    });
    destroy_temporary(common, temporary);
    return err;
  }
  proto::DataIn in;
  cl_int err = common.connection->data_in(packed, bytes, &in);
  if (err != CL_SUCCESS) return err;
  return common.connection->send_batched(api, [&](WireWriter& w, bool want) {
    proto::encode_clEnqueueWriteImage(w, want, queue->guest_id, image->guest_id, 1, o.data(), 3, r.data(), 3, in,
                                      wait_ids(common), common.wait_ids.size(), common.event_id);
  });
}

cl_int enqueue_marker(const char* api, const EnqueueCommon& common, cl_command_queue queue) {
  return common.connection->send_batched(api, [&](WireWriter& w, bool want) {
    proto::encode_clEnqueueMarkerWithWaitList(w, want, queue->guest_id, wait_ids(common), common.wait_ids.size(),
                                              common.event_id);
  });
}

}  // namespace gsvirt::icd

using namespace gsvirt::icd;

cl_int gsvirt_clEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel, cl_uint work_dim,
                                     const size_t* global_work_offset, const size_t* global_work_size,
                                     const size_t* local_work_size, cl_uint num_events, const cl_event* wait_list,
                                     cl_event* event) {
  IcdLock lock(icd_mutex());
  return enqueue_ndrange("clEnqueueNDRangeKernel", queue, kernel, work_dim, global_work_offset, global_work_size,
                         local_work_size, num_events, wait_list, event, CL_COMMAND_NDRANGE_KERNEL);
}

cl_int gsvirt_clEnqueueTask(cl_command_queue queue, cl_kernel kernel, cl_uint num_events, const cl_event* wait_list,
                            cl_event* event) {
  IcdLock lock(icd_mutex());
  const size_t one[1] = {1};
  return enqueue_ndrange("clEnqueueTask", queue, kernel, 1, nullptr, one, one, num_events, wait_list, event,
                         CL_COMMAND_TASK);
}

cl_int gsvirt_clEnqueueReadBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking, size_t offset, size_t size,
                                  void* ptr, cl_uint num_events, const cl_event* wait_list, cl_event* event) {
  IcdLock lock(icd_mutex());
  const char* api = "clEnqueueReadBuffer";
  EnqueueCommon common;
  cl_int err = begin_enqueue(api, queue, num_events, wait_list, event, &common);
  if (err == CL_SUCCESS) err = check_mem(api, queue, buffer, true, "buffer");
  if (err == CL_SUCCESS) err = check_buffer_range(api, buffer, offset, size);
  if (err == CL_SUCCESS) err = check_host_access(api, buffer, false);
  if (err != CL_SUCCESS) return err;
  if (!ptr) return refuse(api, "ptr is NULL", CL_INVALID_VALUE);
  if (must_defer_read(blocking, queue, common)) {
    err = defer_read(
        api, common, queue, buffer, size,
        [&](WireWriter& w, bool want, uint64_t staging) {
          proto::encode_clEnqueueCopyBuffer(w, want, queue->guest_id, buffer->guest_id, staging, offset, 0, size,
                                            wait_ids(common), common.wait_ids.size(), common.event_id);
        },
        [buffer, offset, size, ptr](const uint8_t* bytes) {
          std::memcpy(ptr, bytes, size);
          mirror_to_host_ptr(buffer, offset, size, ptr);
        });
    if (err != CL_SUCCESS) return err;
    finish_enqueue(common, queue, CL_COMMAND_READ_BUFFER, event, false);
    return CL_SUCCESS;
  }
  err = wait_before_host_blocks(api, blocking, queue, buffer, common);
  if (err != CL_SUCCESS) return err;
  err = read_buffer_bytes(api, common, queue, buffer, offset, size, ptr);
  if (err != CL_SUCCESS) return err;
  finish_enqueue(common, queue, CL_COMMAND_READ_BUFFER, event, true);
  return CL_SUCCESS;
}

cl_int gsvirt_clEnqueueWriteBuffer(cl_command_queue queue, cl_mem buffer, cl_bool, size_t offset, size_t size,
                                   const void* ptr, cl_uint num_events, const cl_event* wait_list, cl_event* event) {
  IcdLock lock(icd_mutex());
  const char* api = "clEnqueueWriteBuffer";
  EnqueueCommon common;
  cl_int err = begin_enqueue(api, queue, num_events, wait_list, event, &common);
  if (err == CL_SUCCESS) err = check_mem(api, queue, buffer, true, "buffer");
  if (err == CL_SUCCESS) err = check_buffer_range(api, buffer, offset, size);
  if (err == CL_SUCCESS) err = check_host_access(api, buffer, true);
  if (err != CL_SUCCESS) return err;
  if (!ptr) return refuse(api, "ptr is NULL", CL_INVALID_VALUE);
  err = write_buffer_bytes(api, common, queue, buffer, offset, size, ptr);
  if (err != CL_SUCCESS) return err;
  finish_enqueue(common, queue, CL_COMMAND_WRITE_BUFFER, event, false);
  return CL_SUCCESS;
}

cl_int gsvirt_clEnqueueReadBufferRect(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                                      const size_t* buffer_origin,
                                      const size_t* host_origin, const size_t* region, size_t buffer_row_pitch,
                                      size_t buffer_slice_pitch, size_t host_row_pitch, size_t host_slice_pitch,
                                      void* ptr, cl_uint num_events, const cl_event* wait_list, cl_event* event) {
  IcdLock lock(icd_mutex());
  const char* api = "clEnqueueReadBufferRect";
  EnqueueCommon common;
  cl_int err = begin_enqueue(api, queue, num_events, wait_list, event, &common);
  if (err == CL_SUCCESS) err = check_mem(api, queue, buffer, true, "buffer");
  if (err == CL_SUCCESS) err = check_buffer_rect(api, buffer, buffer_origin, region, buffer_row_pitch, buffer_slice_pitch);
  if (err == CL_SUCCESS) err = check_host_access(api, buffer, false);
  if (err != CL_SUCCESS) return err;
  if (!ptr || !host_origin) return refuse(api, "ptr or host_origin is NULL", CL_INVALID_VALUE);
  if (host_row_pitch && host_row_pitch < region[0]) return refuse(api, "host_row_pitch", CL_INVALID_VALUE);
  RectLayout host;
  std::memcpy(host.origin, host_origin, sizeof host.origin);
  host.row_pitch = host_row_pitch;
  host.slice_pitch = host_slice_pitch;
  host = resolve_pitches(host, region);
  Triple o = triple(buffer_origin), r = triple(region);
  if (must_defer_read(blocking, queue, common)) {
    const Triple zero = {0, 0, 0};
    err = defer_read(
        api, common, queue, buffer, packed_size(region),
        [&](WireWriter& w, bool want, uint64_t staging) {
          proto::encode_clEnqueueCopyBufferRect(w, want, queue->guest_id, buffer->guest_id, staging, o.data(), 3,
                                                zero.data(), 3, r.data(), 3, buffer_row_pitch, buffer_slice_pitch,
                                                r[0], r[0] * r[1], wait_ids(common), common.wait_ids.size(),
                                                common.event_id);
        },
        [r, host, ptr](const uint8_t* bytes) {
          const size_t rect[3] = {r[0], r[1], r[2]};
          scatter_rect(bytes, rect, static_cast<uint8_t*>(ptr), host);
        });
    if (err != CL_SUCCESS) return err;
    finish_enqueue(common, queue, CL_COMMAND_READ_BUFFER_RECT, event, false);
    return CL_SUCCESS;
  }
  err = wait_before_host_blocks(api, blocking, queue, buffer, common);
  if (err != CL_SUCCESS) return err;
  std::vector<uint8_t> packed(packed_size(region));
  proto::DataOut out;
  err = common.connection->data_out(packed.size(), &out);
  if (err != CL_SUCCESS) return err;
  proto::Reply_clEnqueueReadBufferRect reply;
  err = common.connection->call(
      api,
      [&](WireWriter& w, bool want) {
        proto::encode_clEnqueueReadBufferRect(w, want, queue->guest_id, buffer->guest_id, o.data(), 3, r.data(), 3,
                                              buffer_row_pitch, buffer_slice_pitch, wait_ids(common),
                                              common.wait_ids.size(), common.event_id, out);
      },
      proto::decode_reply_clEnqueueReadBufferRect, &reply);
  if (err != CL_SUCCESS) return err;
  common.connection->copy_data_out(out, reply.dst, reply.dst_size, packed.data(), packed.size());
  scatter_rect(packed.data(), region, static_cast<uint8_t*>(ptr), host);
  finish_enqueue(common, queue, CL_COMMAND_READ_BUFFER_RECT, event, true);
  return CL_SUCCESS;
}

cl_int gsvirt_clEnqueueWriteBufferRect(cl_command_queue queue, cl_mem buffer, cl_bool, const size_t* buffer_origin,
                                       const size_t* host_origin, const size_t* region, size_t buffer_row_pitch,
                                       size_t buffer_slice_pitch, size_t host_row_pitch, size_t host_slice_pitch,
                                       const void* ptr, cl_uint num_events, const cl_event* wait_list,
                                       cl_event* event) {
  IcdLock lock(icd_mutex());
  const char* api = "clEnqueueWriteBufferRect";
  EnqueueCommon common;
  cl_int err = begin_enqueue(api, queue, num_events, wait_list, event, &common);
  if (err == CL_SUCCESS) err = check_mem(api, queue, buffer, true, "buffer");
  if (err == CL_SUCCESS) err = check_buffer_rect(api, buffer, buffer_origin, region, buffer_row_pitch, buffer_slice_pitch);
  if (err == CL_SUCCESS) err = check_host_access(api, buffer, true);
  if (err != CL_SUCCESS) return err;
  if (!ptr || !host_origin) return refuse(api, "ptr or host_origin is NULL", CL_INVALID_VALUE);
  if (host_row_pitch && host_row_pitch < region[0]) return refuse(api, "host_row_pitch", CL_INVALID_VALUE);
  RectLayout host;
  std::memcpy(host.origin, host_origin, sizeof host.origin);
  host.row_pitch = host_row_pitch;
  host.slice_pitch = host_slice_pitch;
  std::vector<uint8_t> packed(packed_size(region));
  gather_rect(static_cast<const uint8_t*>(ptr), resolve_pitches(host, region), region, packed.data());
  Triple o = triple(buffer_origin), r = triple(region);
  if (user_events_pending()) {
    uint64_t temporary = upload_temporary(api, common, queue, packed.data(), packed.size(), &err);
    if (!temporary) return err;
    Triple zero = {0, 0, 0};
    err = common.connection->send_batched(api, [&](WireWriter& w, bool want) {
      proto::encode_clEnqueueCopyBufferRect(w, want, queue->guest_id, temporary, buffer->guest_id, zero.data(), 3,
                                            o.data(), 3, r.data(), 3, region[0], region[0] * region[1],
                                            buffer_row_pitch, buffer_slice_pitch, wait_ids(common),
                                            common.wait_ids.size(), common.event_id);
    });
    destroy_temporary(common, temporary);
    if (err != CL_SUCCESS) return err;
    finish_enqueue(common, queue, CL_COMMAND_WRITE_BUFFER_RECT, event, false);
    return CL_SUCCESS;
  }
  proto::DataIn in;
  err = common.connection->data_in(packed.data(), packed.size(), &in);
  if (err != CL_SUCCESS) return err;
  err = common.connection->send_batched(api, [&](WireWriter& w, bool want) {
    proto::encode_clEnqueueWriteBufferRect(w, want, queue->guest_id, buffer->guest_id, 1, o.data(), 3, r.data(), 3,
                                           buffer_row_pitch, buffer_slice_pitch, in, wait_ids(common),
                                           common.wait_ids.size(), common.event_id);
  });
  if (err != CL_SUCCESS) return err;
  finish_enqueue(common, queue, CL_COMMAND_WRITE_BUFFER_RECT, event, false);
  return CL_SUCCESS;
}

cl_int gsvirt_clEnqueueCopyBuffer(cl_command_queue queue, cl_mem src_buffer, cl_mem dst_buffer, size_t src_offset,
                                  size_t dst_offset, size_t size, cl_uint num_events, const cl_event* wait_list,
                                  cl_event* event) {
  IcdLock lock(icd_mutex());
  const char* api = "clEnqueueCopyBuffer";
  EnqueueCommon common;
  cl_int err = begin_enqueue(api, queue, num_events, wait_list, event, &common);
  if (err == CL_SUCCESS) err = check_mem(api, queue, src_buffer, true, "src_buffer");
  if (err == CL_SUCCESS) err = check_mem(api, queue, dst_buffer, true, "dst_buffer");
  if (err == CL_SUCCESS) err = check_buffer_range(api, src_buffer, src_offset, size);
  if (err == CL_SUCCESS) err = check_buffer_range(api, dst_buffer, dst_offset, size);
  if (err != CL_SUCCESS) return err;
  if (src_buffer == dst_buffer && src_offset < dst_offset + size && dst_offset < src_offset + size)
    return refuse(api, "source and destination overlap", CL_MEM_COPY_OVERLAP);
  err = common.connection->send_batched(api, [&](WireWriter& w, bool want) {
    proto::encode_clEnqueueCopyBuffer(w, want, queue->guest_id, src_buffer->guest_id, dst_buffer->guest_id, src_offset,
                                      dst_offset, size, wait_ids(common), common.wait_ids.size(), common.event_id);
  });
  if (err != CL_SUCCESS) return err;
  finish_enqueue(common, queue, CL_COMMAND_COPY_BUFFER, event, false);
  return CL_SUCCESS;
}

cl_int gsvirt_clEnqueueCopyBufferRect(cl_command_queue queue, cl_mem src_buffer, cl_mem dst_buffer,
                                      const size_t* src_origin, const size_t* dst_origin, const size_t* region,
                                      size_t src_row_pitch, size_t src_slice_pitch, size_t dst_row_pitch,
                                      size_t dst_slice_pitch, cl_uint num_events, const cl_event* wait_list,
                                      cl_event* event) {
  IcdLock lock(icd_mutex());
  const char* api = "clEnqueueCopyBufferRect";
  EnqueueCommon common;
  cl_int err = begin_enqueue(api, queue, num_events, wait_list, event, &common);
  if (err == CL_SUCCESS) err = check_mem(api, queue, src_buffer, true, "src_buffer");
  if (err == CL_SUCCESS) err = check_mem(api, queue, dst_buffer, true, "dst_buffer");
  if (err == CL_SUCCESS) err = check_buffer_rect(api, src_buffer, src_origin, region, src_row_pitch, src_slice_pitch);
  if (err == CL_SUCCESS) err = check_buffer_rect(api, dst_buffer, dst_origin, region, dst_row_pitch, dst_slice_pitch);
  if (err != CL_SUCCESS) return err;
  Triple so = triple(src_origin), dso = triple(dst_origin), r = triple(region);
  err = common.connection->send_batched(api, [&](WireWriter& w, bool want) {
    proto::encode_clEnqueueCopyBufferRect(w, want, queue->guest_id, src_buffer->guest_id, dst_buffer->guest_id,
                                          so.data(), 3, dso.data(), 3, r.data(), 3, src_row_pitch, src_slice_pitch,
                                          dst_row_pitch, dst_slice_pitch, wait_ids(common), common.wait_ids.size(),
                                          common.event_id);
  });
  if (err != CL_SUCCESS) return err;
  finish_enqueue(common, queue, CL_COMMAND_COPY_BUFFER_RECT, event, false);
  return CL_SUCCESS;
}

cl_int gsvirt_clEnqueueFillBuffer(cl_command_queue queue, cl_mem buffer, const void* pattern, size_t pattern_size,
                                  size_t offset, size_t size, cl_uint num_events, const cl_event* wait_list,
                                  cl_event* event) {
  IcdLock lock(icd_mutex());
  const char* api = "clEnqueueFillBuffer";
  EnqueueCommon common;
  cl_int err = begin_enqueue(api, queue, num_events, wait_list, event, &common);
  if (err == CL_SUCCESS) err = check_mem(api, queue, buffer, true, "buffer");
  if (err == CL_SUCCESS) err = check_buffer_range(api, buffer, offset, size);
  if (err != CL_SUCCESS) return err;
  bool power_of_two = pattern_size && (pattern_size & (pattern_size - 1)) == 0;
  if (!pattern || !power_of_two || pattern_size > 128) return refuse(api, "pattern/pattern_size", CL_INVALID_VALUE);
  if (offset % pattern_size || size % pattern_size) return refuse(api, "offset/size not multiples of pattern_size", CL_INVALID_VALUE);
  err = common.connection->send_batched(api, [&](WireWriter& w, bool want) {
    proto::encode_clEnqueueFillBuffer(w, want, queue->guest_id, buffer->guest_id, pattern, pattern_size, offset, size,
                                      wait_ids(common), common.wait_ids.size(), common.event_id);
  });
  if (err != CL_SUCCESS) return err;
  finish_enqueue(common, queue, CL_COMMAND_FILL_BUFFER, event, false);
  return CL_SUCCESS;
}

cl_int gsvirt_clEnqueueReadImage(cl_command_queue queue, cl_mem image, cl_bool blocking, const size_t* origin,
                                 const size_t* region, size_t row_pitch, size_t slice_pitch, void* ptr,
                                 cl_uint num_events, const cl_event* wait_list, cl_event* event) {
  IcdLock lock(icd_mutex());
  const char* api = "clEnqueueReadImage";
  EnqueueCommon common;
  cl_int err = begin_enqueue(api, queue, num_events, wait_list, event, &common);
  if (err == CL_SUCCESS) err = check_mem(api, queue, image, false, "image");
  if (err == CL_SUCCESS) err = check_image_region(api, image, origin, region, ptr);
  if (err == CL_SUCCESS) err = check_host_access(api, image, false);
  if (err != CL_SUCCESS) return err;
  size_t row_bytes = region[0] * image->element_size;
  const Triple byte_region = {row_bytes, region[1], region[2]};
  RectLayout app = app_image_layout(image, region, row_pitch, slice_pitch);
  auto scatter = [byte_region, app, ptr](const uint8_t* bytes) {
    const size_t rect[3] = {byte_region[0], byte_region[1], byte_region[2]};
    scatter_rect(bytes, rect, static_cast<uint8_t*>(ptr), app);
  };
  bool deferred = must_defer_read(blocking, queue, common);
  if (deferred) {
    err = defer_read(api, common, queue, image, row_bytes * region[1] * region[2],
                     [&](WireWriter& w, bool want, uint64_t staging) {
                       encode_image_to_staging(w, want, common, queue, image, origin, region, staging);
                     },
                     scatter);
  } else {
    err = wait_before_host_blocks(api, blocking, queue, image, common);
    std::vector<uint8_t> packed(row_bytes * region[1] * region[2]);
    if (err == CL_SUCCESS) err = read_image_packed(api, common, queue, image, origin, region, packed.data());
    if (err == CL_SUCCESS) scatter(packed.data());
  }
  if (err != CL_SUCCESS) return err;
  finish_enqueue(common, queue, CL_COMMAND_READ_IMAGE, event, !deferred);
  return CL_SUCCESS;
}

cl_int gsvirt_clEnqueueWriteImage(cl_command_queue queue, cl_mem image, cl_bool, const size_t* origin,
                                  const size_t* region, size_t input_row_pitch, size_t input_slice_pitch,
                                  const void* ptr, cl_uint num_events, const cl_event* wait_list, cl_event* event) {
  IcdLock lock(icd_mutex());
  const char* api = "clEnqueueWriteImage";
  EnqueueCommon common;
  cl_int err = begin_enqueue(api, queue, num_events, wait_list, event, &common);
  if (err == CL_SUCCESS) err = check_mem(api, queue, image, false, "image");
  if (err == CL_SUCCESS) err = check_image_region(api, image, origin, region, ptr);
  if (err == CL_SUCCESS) err = check_host_access(api, image, true);
  if (err != CL_SUCCESS) return err;
  size_t row_bytes = region[0] * image->element_size;
  std::vector<uint8_t> packed(row_bytes * region[1] * region[2]);
  const size_t byte_region[3] = {row_bytes, region[1], region[2]};
  gather_rect(static_cast<const uint8_t*>(ptr), app_image_layout(image, region, input_row_pitch, input_slice_pitch),
              byte_region, packed.data());
  err = write_image_packed(api, common, queue, image, origin, region, packed.data());
  if (err != CL_SUCCESS) return err;
  finish_enqueue(common, queue, CL_COMMAND_WRITE_IMAGE, event, false);
  return CL_SUCCESS;
}

cl_int gsvirt_clEnqueueCopyImage(cl_command_queue queue, cl_mem src_image, cl_mem dst_image, const size_t* src_origin,
                                 const size_t* dst_origin, const size_t* region, cl_uint num_events,
                                 const cl_event* wait_list, cl_event* event) {
  IcdLock lock(icd_mutex());
  const char* api = "clEnqueueCopyImage";
  EnqueueCommon common;
  cl_int err = begin_enqueue(api, queue, num_events, wait_list, event, &common);
  if (err == CL_SUCCESS) err = check_mem(api, queue, src_image, false, "src_image");
  if (err == CL_SUCCESS) err = check_mem(api, queue, dst_image, false, "dst_image");
  if (err != CL_SUCCESS) return err;
  if (!src_origin || !dst_origin || !region) return refuse(api, "origin or region is NULL", CL_INVALID_VALUE);
  err = check_image_bounds(api, src_image, src_origin, region);
  if (err == CL_SUCCESS) err = check_image_bounds(api, dst_image, dst_origin, region);
  if (err != CL_SUCCESS) return err;
  if (std::memcmp(&src_image->format, &dst_image->format, sizeof(cl_image_format)) != 0)
    return refuse(api, "formats differ", CL_IMAGE_FORMAT_MISMATCH);
  Triple so = triple(src_origin), dso = triple(dst_origin), r = triple(region);
  err = common.connection->send_batched(api, [&](WireWriter& w, bool want) {
    proto::encode_clEnqueueCopyImage(w, want, queue->guest_id, src_image->guest_id, dst_image->guest_id, so.data(), 3,
                                     dso.data(), 3, r.data(), 3, wait_ids(common), common.wait_ids.size(),
                                     common.event_id);
  });
  if (err != CL_SUCCESS) return err;
  finish_enqueue(common, queue, CL_COMMAND_COPY_IMAGE, event, false);
  return CL_SUCCESS;
}

cl_int gsvirt_clEnqueueFillImage(cl_command_queue queue, cl_mem image, const void* fill_color, const size_t* origin,
                                 const size_t* region, cl_uint num_events, const cl_event* wait_list,
                                 cl_event* event) {
  IcdLock lock(icd_mutex());
  const char* api = "clEnqueueFillImage";
  EnqueueCommon common;
  cl_int err = begin_enqueue(api, queue, num_events, wait_list, event, &common);
  if (err == CL_SUCCESS) err = check_mem(api, queue, image, false, "image");
  if (err == CL_SUCCESS) err = check_image_region(api, image, origin, region, fill_color);
  if (err != CL_SUCCESS) return err;
  Triple o = triple(origin), r = triple(region);
  err = common.connection->send_batched(api, [&](WireWriter& w, bool want) {
    // fill_color is always four 32-bit components (float4, int4 or uint4).
    proto::encode_clEnqueueFillImage(w, want, queue->guest_id, image->guest_id, fill_color, 16, o.data(), 3, r.data(),
                                     3, wait_ids(common), common.wait_ids.size(), common.event_id);
  });
  if (err != CL_SUCCESS) return err;
  finish_enqueue(common, queue, CL_COMMAND_FILL_IMAGE, event, false);
  return CL_SUCCESS;
}

cl_int gsvirt_clEnqueueCopyImageToBuffer(cl_command_queue queue, cl_mem src_image, cl_mem dst_buffer,
                                         const size_t* src_origin, const size_t* region, size_t dst_offset,
                                         cl_uint num_events, const cl_event* wait_list, cl_event* event) {
  IcdLock lock(icd_mutex());
  const char* api = "clEnqueueCopyImageToBuffer";
  EnqueueCommon common;
  cl_int err = begin_enqueue(api, queue, num_events, wait_list, event, &common);
  if (err == CL_SUCCESS) err = check_mem(api, queue, src_image, false, "src_image");
  if (err == CL_SUCCESS) err = check_mem(api, queue, dst_buffer, true, "dst_buffer");
  if (err != CL_SUCCESS) return err;
  if (!src_origin || !region) return refuse(api, "src_origin or region is NULL", CL_INVALID_VALUE);
  err = check_image_bounds(api, src_image, src_origin, region);
  if (err != CL_SUCCESS) return err;
  size_t bytes = region[0] * region[1] * region[2] * src_image->element_size;
  err = check_buffer_range(api, dst_buffer, dst_offset, bytes);
  if (err != CL_SUCCESS) return err;
  Triple o = triple(src_origin), r = triple(region);
  err = common.connection->send_batched(api, [&](WireWriter& w, bool want) {
    proto::encode_clEnqueueCopyImageToBuffer(w, want, queue->guest_id, src_image->guest_id, dst_buffer->guest_id,
                                             o.data(), 3, r.data(), 3, dst_offset, wait_ids(common),
                                             common.wait_ids.size(), common.event_id);
  });
  if (err != CL_SUCCESS) return err;
  finish_enqueue(common, queue, CL_COMMAND_COPY_IMAGE_TO_BUFFER, event, false);
  return CL_SUCCESS;
}

cl_int gsvirt_clEnqueueCopyBufferToImage(cl_command_queue queue, cl_mem src_buffer, cl_mem dst_image,
                                         size_t src_offset, const size_t* dst_origin, const size_t* region,
                                         cl_uint num_events, const cl_event* wait_list, cl_event* event) {
  IcdLock lock(icd_mutex());
  const char* api = "clEnqueueCopyBufferToImage";
  EnqueueCommon common;
  cl_int err = begin_enqueue(api, queue, num_events, wait_list, event, &common);
  if (err == CL_SUCCESS) err = check_mem(api, queue, src_buffer, true, "src_buffer");
  if (err == CL_SUCCESS) err = check_mem(api, queue, dst_image, false, "dst_image");
  if (err != CL_SUCCESS) return err;
  if (!dst_origin || !region) return refuse(api, "dst_origin or region is NULL", CL_INVALID_VALUE);
  err = check_image_bounds(api, dst_image, dst_origin, region);
  if (err != CL_SUCCESS) return err;
  size_t bytes = region[0] * region[1] * region[2] * dst_image->element_size;
  err = check_buffer_range(api, src_buffer, src_offset, bytes);
  if (err != CL_SUCCESS) return err;
  Triple o = triple(dst_origin), r = triple(region);
  err = common.connection->send_batched(api, [&](WireWriter& w, bool want) {
    proto::encode_clEnqueueCopyBufferToImage(w, want, queue->guest_id, src_buffer->guest_id, dst_image->guest_id,
                                             src_offset, o.data(), 3, r.data(), 3, wait_ids(common),
                                             common.wait_ids.size(), common.event_id);
  });
  if (err != CL_SUCCESS) return err;
  finish_enqueue(common, queue, CL_COMMAND_COPY_BUFFER_TO_IMAGE, event, false);
  return CL_SUCCESS;
}

cl_int gsvirt_clEnqueueMarkerWithWaitList(cl_command_queue queue, cl_uint num_events, const cl_event* wait_list,
                                          cl_event* event) {
  IcdLock lock(icd_mutex());
  const char* api = "clEnqueueMarkerWithWaitList";
  EnqueueCommon common;
  cl_int err = begin_enqueue(api, queue, num_events, wait_list, event, &common);
  if (err == CL_SUCCESS) err = enqueue_marker(api, common, queue);
  if (err != CL_SUCCESS) return err;
  finish_enqueue(common, queue, CL_COMMAND_MARKER, event, false);
  return CL_SUCCESS;
}

cl_int gsvirt_clEnqueueBarrierWithWaitList(cl_command_queue queue, cl_uint num_events, const cl_event* wait_list,
                                           cl_event* event) {
  IcdLock lock(icd_mutex());
  const char* api = "clEnqueueBarrierWithWaitList";
  EnqueueCommon common;
  cl_int err = begin_enqueue(api, queue, num_events, wait_list, event, &common);
  if (err == CL_SUCCESS) err = send_barrier(api, common, queue);
  if (err != CL_SUCCESS) return err;
  finish_enqueue(common, queue, CL_COMMAND_BARRIER, event, false);
  return CL_SUCCESS;
}

cl_int gsvirt_clEnqueueMarker(cl_command_queue queue, cl_event* event) {
  IcdLock lock(icd_mutex());
  const char* api = "clEnqueueMarker";
  if (!event) return refuse(api, "event is NULL", CL_INVALID_VALUE);
  EnqueueCommon common;
  cl_int err = begin_enqueue(api, queue, 0, nullptr, event, &common);
  if (err == CL_SUCCESS) err = enqueue_marker(api, common, queue);
  if (err != CL_SUCCESS) return err;
  finish_enqueue(common, queue, CL_COMMAND_MARKER, event, false);
  return CL_SUCCESS;
}

cl_int gsvirt_clEnqueueBarrier(cl_command_queue queue) {
  IcdLock lock(icd_mutex());
  EnqueueCommon common;
  cl_int err = begin_enqueue("clEnqueueBarrier", queue, 0, nullptr, nullptr, &common);
  if (err == CL_SUCCESS) err = send_barrier("clEnqueueBarrier", common, queue);
  if (err == CL_SUCCESS) note_enqueued(common, queue);
  return err;
}

cl_int gsvirt_clEnqueueWaitForEvents(cl_command_queue queue, cl_uint num_events, const cl_event* event_list) {
  IcdLock lock(icd_mutex());
  const char* api = "clEnqueueWaitForEvents";
  if (num_events == 0 || !event_list) return refuse(api, "num_events is 0 or event_list is NULL", CL_INVALID_VALUE);
  EnqueueCommon common;
  cl_int err = begin_enqueue(api, queue, num_events, event_list, nullptr, &common);
  if (err == CL_INVALID_EVENT_WAIT_LIST) err = CL_INVALID_EVENT;
  if (err == CL_SUCCESS) err = send_barrier(api, common, queue);
  if (err == CL_SUCCESS) note_enqueued(common, queue);
  return err;
}

cl_int gsvirt_clEnqueueMigrateMemObjects(cl_command_queue queue, cl_uint num_mem_objects, const cl_mem* mem_objects,
                                         cl_mem_migration_flags flags, cl_uint num_events, const cl_event* wait_list,
                                         cl_event* event) {
  IcdLock lock(icd_mutex());
  const char* api = "clEnqueueMigrateMemObjects";
  EnqueueCommon common;
  cl_int err = begin_enqueue(api, queue, num_events, wait_list, event, &common);
  if (err != CL_SUCCESS) return err;
  if (num_mem_objects == 0 || !mem_objects) return refuse(api, "no mem objects", CL_INVALID_VALUE);
  if (flags & ~cl_mem_migration_flags(CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED))
    return refuse(api, "flags", CL_INVALID_VALUE);
  std::vector<uint64_t> ids;
  for (cl_uint i = 0; i < num_mem_objects; ++i) {
    if (!live(mem_objects[i])) return refuse(api, "mem_objects holds an invalid object", CL_INVALID_MEM_OBJECT);
    if (mem_objects[i]->context != queue->context) return refuse(api, "mem object of another context", CL_INVALID_CONTEXT);
    ids.push_back(mem_objects[i]->guest_id);
  }
  err = common.connection->send_batched(api, [&](WireWriter& w, bool want) {
    proto::encode_clEnqueueMigrateMemObjects(w, want, queue->guest_id, ids.data(), ids.size(), flags, wait_ids(common),
                                             common.wait_ids.size(), common.event_id);
  });
  if (err != CL_SUCCESS) return err;
  finish_enqueue(common, queue, CL_COMMAND_MIGRATE_MEM_OBJECTS, event, false);
  return CL_SUCCESS;
}
