// Enqueue commands: kernels, buffer and image transfers, markers and barriers.
//
// Bulk data comes inline in the command or from a resource range; reads are always executed
// blocking on the host (the bytes must be in the reply or the resource before the guest looks),
// and writes too (the command's bytes are gone after this submission). A blocking command that
// would wait for a user event the guest has not set is refused (user_events.cc).
#include "common/checked_math.h"
#include "host/vcomp/handler_util.h"
#include "host/vcomp/image_format.h"

namespace gsvirt::vcomp {
namespace {

// Copies a 3-element origin or region; the guest must send exactly three values.
bool triple(const proto::WireArray<uint64_t>& in, size_t out[3]) {
  if (in.count != 3) return false;
  for (int i = 0; i < 3; ++i) out[i] = size_t(in[i]);
  return true;
}

std::optional<uint64_t> region_bytes(const size_t region[3]) {
  auto a = checked_mul<uint64_t>(region[0], region[1]);
  if (!a) return std::nullopt;
  return checked_mul<uint64_t>(*a, region[2]);
}

std::optional<uint64_t> image_region_bytes(const cl_icd_dispatch& api, cl_mem image,
                                           const size_t region[3]) {
  cl_image_format format{};
  if (api.clGetImageInfo(image, CL_IMAGE_FORMAT, sizeof format, &format, nullptr) != CL_SUCCESS)
    return std::nullopt;
  uint64_t r[3] = {region[0], region[1], region[2]};
  return packed_region_size(format, r);
}

}  // namespace

bool VcompContext::begin_enqueue(uint64_t queue_id, const proto::WireArray<uint64_t>& waits,
                                 uint64_t event_id, Enqueue* e, int32_t* result) {
  auto* q = lookup<QueueObject>(queue_id, "queue");
  if (!q) {
    *result = CL_INVALID_COMMAND_QUEUE;
    return false;
  }
  e->queue = q->handle;
  e->queue_object = q;
  // In order: a command may wait for whatever the queue's earlier commands wait for.
  e->waits_on_user = q->waits_on_user;
  if (!wait_list(waits, &e->waits, &e->waits_on_user)) {
    *result = CL_INVALID_EVENT_WAIT_LIST;
    return false;
  }
  e->waits_on_user = still_unset(std::move(e->waits_on_user));
  if (event_id && !check_new_id(event_id, "event")) {
    *result = CL_INVALID_VALUE;
    return false;
  }
  e->event_id = event_id;
  return true;
}

void VcompContext::end_enqueue(Enqueue& e, int32_t result) {
  if (result != CL_SUCCESS) return;
  e.queue_object->waits_on_user = e.waits_on_user;
  if (e.event_id) bind_event(e.event_id, e.event, std::move(e.waits_on_user));
  else if (e.hold_event() && e.event) hold_while_waiting(e.event, std::move(e.waits_on_user));
}

void VcompContext::dispatch_clEnqueueNDRangeKernel(const proto::Args_clEnqueueNDRangeKernel& args,
                                                   proto::Out_clEnqueueNDRangeKernel& out) {
  Enqueue e;
  if (!begin_enqueue(args.queue, args.wait_list, args.event, &e, &out.result)) return;
  auto* k = require<KernelObject>(args.kernel, "kernel", CL_INVALID_KERNEL, &out.result);
  if (!k) return;
  const uint32_t dim = args.work_dim;
  if (dim < 1 || dim > 3) {
    out.result = CL_INVALID_WORK_DIMENSION;
    return;
  }
  // Each array is either absent (NULL) or exactly work_dim long: never read past what came.
  size_t offset[3], global[3], local[3];
  const proto::WireArray<uint64_t>* arrays[3] = {&args.global_work_offset, &args.global_work_size,
                                                 &args.local_work_size};
  size_t* dst[3] = {offset, global, local};
  for (int a = 0; a < 3; ++a) {
    if (!arrays[a]->null() && arrays[a]->count != dim) {
      log_field_error(a == 0 ? "global_work_offset" : a == 1 ? "global_work_size" : "local_work_size",
                      "has " + std::to_string(arrays[a]->count) + " values, work_dim is " +
                          std::to_string(dim));
      out.result = CL_INVALID_VALUE;
      return;
    }
    for (uint32_t i = 0; i < dim && !arrays[a]->null(); ++i) dst[a][i] = size_t((*arrays[a])[i]);
  }
  if (args.global_work_size.null()) {
    out.result = CL_INVALID_GLOBAL_WORK_SIZE;
    return;
  }
  out.result = api().clEnqueueNDRangeKernel(
      e.queue, k->handle, dim, args.global_work_offset.null() ? nullptr : offset, global,
      args.local_work_size.null() ? nullptr : local, e.wait_count(), e.wait_events(), e.event_out());
  end_enqueue(e, out.result);
}

void VcompContext::dispatch_clEnqueueReadBuffer(const proto::Args_clEnqueueReadBuffer& args,
                                                proto::Out_clEnqueueReadBuffer& out) {
  Enqueue e;
  if (!begin_enqueue(args.queue, args.wait_list, args.event, &e, &out.result)) return;
  if (refuse_blocking_enqueue(e, &out.result)) return;  // executed blocking (user_events.cc)
  auto* m = require<MemObject>(args.buffer, "buffer", CL_INVALID_MEM_OBJECT, &out.result);
  if (!m) return;
  uint8_t* dst = data_out(args.dst, args.size, &out.dst, "dst");
  if (!dst) {
    out.result = CL_INVALID_VALUE;
    return;
  }
  out.result = api().clEnqueueReadBuffer(e.queue, m->handle, CL_TRUE, size_t(args.offset),
                                         size_t(args.size), dst, e.wait_count(), e.wait_events(),
                                         e.event_out());
  if (out.result != CL_SUCCESS) out.dst.clear();
  end_enqueue(e, out.result);
}

void VcompContext::dispatch_clEnqueueWriteBuffer(const proto::Args_clEnqueueWriteBuffer& args,
                                                 proto::Out_clEnqueueWriteBuffer& out) {
  Enqueue e;
  if (!begin_enqueue(args.queue, args.wait_list, args.event, &e, &out.result)) return;
  if (refuse_blocking_enqueue(e, &out.result)) return;  // executed blocking (user_events.cc)
  auto* m = require<MemObject>(args.buffer, "buffer", CL_INVALID_MEM_OBJECT, &out.result);
  if (!m) return;
  const uint8_t* src = data_in(args.src, args.size, "src");
  if (!src) {
    out.result = CL_INVALID_VALUE;
    return;
  }
  out.result = api().clEnqueueWriteBuffer(e.queue, m->handle, CL_TRUE, size_t(args.offset),
                                          size_t(args.size), src, e.wait_count(), e.wait_events(),
                                          e.event_out());
  end_enqueue(e, out.result);
}

void VcompContext::dispatch_clEnqueueReadBufferRect(const proto::Args_clEnqueueReadBufferRect& args,
                                                    proto::Out_clEnqueueReadBufferRect& out) {
  Enqueue e;
  if (!begin_enqueue(args.queue, args.wait_list, args.event, &e, &out.result)) return;
  if (refuse_blocking_enqueue(e, &out.result)) return;  // executed blocking (user_events.cc)
  auto* m = require<MemObject>(args.buffer, "buffer", CL_INVALID_MEM_OBJECT, &out.result);
  if (!m) return;
  size_t origin[3], region[3];
  if (!triple(args.buffer_origin, origin) || !triple(args.region, region)) {
    out.result = CL_INVALID_VALUE;
    return;
  }
  auto bytes = region_bytes(region);
  uint8_t* dst = bytes ? data_out(args.dst, *bytes, &out.dst, "dst") : nullptr;
  if (!dst) {
    out.result = CL_INVALID_VALUE;
    return;
  }
  size_t host_origin[3] = {0, 0, 0};
  out.result = api().clEnqueueReadBufferRect(
      e.queue, m->handle, CL_TRUE, origin, host_origin, region, size_t(args.buffer_row_pitch),
      size_t(args.buffer_slice_pitch), region[0], region[0] * region[1], dst, e.wait_count(),
      e.wait_events(), e.event_out());
  if (out.result != CL_SUCCESS) out.dst.clear();
  end_enqueue(e, out.result);
}

void VcompContext::dispatch_clEnqueueWriteBufferRect(const proto::Args_clEnqueueWriteBufferRect& args,
                                                     proto::Out_clEnqueueWriteBufferRect& out) {
  Enqueue e;
  if (!begin_enqueue(args.queue, args.wait_list, args.event, &e, &out.result)) return;
  if (refuse_blocking_enqueue(e, &out.result)) return;  // executed blocking (user_events.cc)
  auto* m = require<MemObject>(args.buffer, "buffer", CL_INVALID_MEM_OBJECT, &out.result);
  if (!m) return;
  size_t origin[3], region[3];
  if (!triple(args.buffer_origin, origin) || !triple(args.region, region)) {
    out.result = CL_INVALID_VALUE;
    return;
  }
  auto bytes = region_bytes(region);
  const uint8_t* src = bytes ? data_in(args.src, *bytes, "src") : nullptr;
  if (!src) {
    out.result = CL_INVALID_VALUE;
    return;
  }
  size_t host_origin[3] = {0, 0, 0};
  out.result = api().clEnqueueWriteBufferRect(
      e.queue, m->handle, CL_TRUE, origin, host_origin, region, size_t(args.buffer_row_pitch),
      size_t(args.buffer_slice_pitch), region[0], region[0] * region[1], src, e.wait_count(),
      e.wait_events(), e.event_out());
  end_enqueue(e, out.result);
}

void VcompContext::dispatch_clEnqueueCopyBuffer(const proto::Args_clEnqueueCopyBuffer& args,
                                                proto::Out_clEnqueueCopyBuffer& out) {
  Enqueue e;
  if (!begin_enqueue(args.queue, args.wait_list, args.event, &e, &out.result)) return;
  auto* src = lookup<MemObject>(args.src_buffer, "src_buffer");
  auto* dst = lookup<MemObject>(args.dst_buffer, "dst_buffer");
  if (!src || !dst) {
    out.result = CL_INVALID_MEM_OBJECT;
    return;
  }
  out.result = api().clEnqueueCopyBuffer(e.queue, src->handle, dst->handle, size_t(args.src_offset),
                                         size_t(args.dst_offset), size_t(args.size), e.wait_count(),
                                         e.wait_events(), e.event_out());
  end_enqueue(e, out.result);
}

void VcompContext::dispatch_clEnqueueCopyBufferRect(const proto::Args_clEnqueueCopyBufferRect& args,
                                                    proto::Out_clEnqueueCopyBufferRect& out) {
  Enqueue e;
  if (!begin_enqueue(args.queue, args.wait_list, args.event, &e, &out.result)) return;
  auto* src = lookup<MemObject>(args.src_buffer, "src_buffer");
  auto* dst = lookup<MemObject>(args.dst_buffer, "dst_buffer");
  if (!src || !dst) {
    out.result = CL_INVALID_MEM_OBJECT;
    return;
  }
  size_t so[3], dso[3], region[3];
  if (!triple(args.src_origin, so) || !triple(args.dst_origin, dso) || !triple(args.region, region)) {
    out.result = CL_INVALID_VALUE;
    return;
  }
  out.result = api().clEnqueueCopyBufferRect(
      e.queue, src->handle, dst->handle, so, dso, region, size_t(args.src_row_pitch),
      size_t(args.src_slice_pitch), size_t(args.dst_row_pitch), size_t(args.dst_slice_pitch),
      e.wait_count(), e.wait_events(), e.event_out());
  end_enqueue(e, out.result);
}

void VcompContext::dispatch_clEnqueueFillBuffer(const proto::Args_clEnqueueFillBuffer& args,
                                                proto::Out_clEnqueueFillBuffer& out) {
  Enqueue e;
  if (!begin_enqueue(args.queue, args.wait_list, args.event, &e, &out.result)) return;
  auto* m = require<MemObject>(args.buffer, "buffer", CL_INVALID_MEM_OBJECT, &out.result);
  if (!m) return;
  out.result = api().clEnqueueFillBuffer(e.queue, m->handle, args.pattern.data,
                                         size_t(args.pattern.size), size_t(args.offset),
                                         size_t(args.size), e.wait_count(), e.wait_events(),
                                         e.event_out());
  end_enqueue(e, out.result);
}

void VcompContext::dispatch_clEnqueueReadImage(const proto::Args_clEnqueueReadImage& args,
                                               proto::Out_clEnqueueReadImage& out) {
  Enqueue e;
  if (!begin_enqueue(args.queue, args.wait_list, args.event, &e, &out.result)) return;
  if (refuse_blocking_enqueue(e, &out.result)) return;  // executed blocking (user_events.cc)
  auto* m = require<MemObject>(args.image, "image", CL_INVALID_MEM_OBJECT, &out.result);
  if (!m) return;
  size_t origin[3], region[3];
  if (!triple(args.origin, origin) || !triple(args.region, region)) {
    out.result = CL_INVALID_VALUE;
    return;
  }
  auto bytes = image_region_bytes(api(), m->handle, region);
  uint8_t* dst = bytes ? data_out(args.dst, *bytes, &out.dst, "dst") : nullptr;
  if (!dst) {
    out.result = bytes ? CL_INVALID_VALUE : CL_INVALID_MEM_OBJECT;
    return;
  }
  out.result = api().clEnqueueReadImage(e.queue, m->handle, CL_TRUE, origin, region, 0, 0, dst,
                                        e.wait_count(), e.wait_events(), e.event_out());
  if (out.result != CL_SUCCESS) out.dst.clear();
  end_enqueue(e, out.result);
}

void VcompContext::dispatch_clEnqueueWriteImage(const proto::Args_clEnqueueWriteImage& args,
                                                proto::Out_clEnqueueWriteImage& out) {
  Enqueue e;
  if (!begin_enqueue(args.queue, args.wait_list, args.event, &e, &out.result)) return;
  if (refuse_blocking_enqueue(e, &out.result)) return;  // executed blocking (user_events.cc)
  auto* m = require<MemObject>(args.image, "image", CL_INVALID_MEM_OBJECT, &out.result);
  if (!m) return;
  size_t origin[3], region[3];
  if (!triple(args.origin, origin) || !triple(args.region, region)) {
    out.result = CL_INVALID_VALUE;
    return;
  }
  auto bytes = image_region_bytes(api(), m->handle, region);
  const uint8_t* src = bytes ? data_in(args.src, *bytes, "src") : nullptr;
  if (!src) {
    out.result = bytes ? CL_INVALID_VALUE : CL_INVALID_MEM_OBJECT;
    return;
  }
  out.result = api().clEnqueueWriteImage(e.queue, m->handle, CL_TRUE, origin, region, 0, 0, src,
                                         e.wait_count(), e.wait_events(), e.event_out());
  end_enqueue(e, out.result);
}

void VcompContext::dispatch_clEnqueueCopyImage(const proto::Args_clEnqueueCopyImage& args,
                                               proto::Out_clEnqueueCopyImage& out) {
  Enqueue e;
  if (!begin_enqueue(args.queue, args.wait_list, args.event, &e, &out.result)) return;
  auto* src = lookup<MemObject>(args.src_image, "src_image");
  auto* dst = lookup<MemObject>(args.dst_image, "dst_image");
  if (!src || !dst) {
    out.result = CL_INVALID_MEM_OBJECT;
    return;
  }
  size_t so[3], dso[3], region[3];
  if (!triple(args.src_origin, so) || !triple(args.dst_origin, dso) || !triple(args.region, region)) {
    out.result = CL_INVALID_VALUE;
    return;
  }
  out.result = api().clEnqueueCopyImage(e.queue, src->handle, dst->handle, so, dso, region,
                                        e.wait_count(), e.wait_events(), e.event_out());
  end_enqueue(e, out.result);
}

void VcompContext::dispatch_clEnqueueFillImage(const proto::Args_clEnqueueFillImage& args,
                                               proto::Out_clEnqueueFillImage& out) {
  Enqueue e;
  if (!begin_enqueue(args.queue, args.wait_list, args.event, &e, &out.result)) return;
  auto* m = require<MemObject>(args.image, "image", CL_INVALID_MEM_OBJECT, &out.result);
  if (!m) return;
  size_t origin[3], region[3];
  if (!triple(args.origin, origin) || !triple(args.region, region) || args.fill_color.size != 16) {
    out.result = CL_INVALID_VALUE;
    return;
  }
  out.result = api().clEnqueueFillImage(e.queue, m->handle, args.fill_color.data, origin, region,
                                        e.wait_count(), e.wait_events(), e.event_out());
  end_enqueue(e, out.result);
}

void VcompContext::dispatch_clEnqueueCopyImageToBuffer(
    const proto::Args_clEnqueueCopyImageToBuffer& args, proto::Out_clEnqueueCopyImageToBuffer& out) {
  Enqueue e;
  if (!begin_enqueue(args.queue, args.wait_list, args.event, &e, &out.result)) return;
  auto* src = lookup<MemObject>(args.src_image, "src_image");
  auto* dst = lookup<MemObject>(args.dst_buffer, "dst_buffer");
  if (!src || !dst) {
    out.result = CL_INVALID_MEM_OBJECT;
    return;
  }
  size_t so[3], region[3];
  if (!triple(args.src_origin, so) || !triple(args.region, region)) {
    out.result = CL_INVALID_VALUE;
    return;
  }
  out.result = api().clEnqueueCopyImageToBuffer(e.queue, src->handle, dst->handle, so, region,
                                                size_t(args.dst_offset), e.wait_count(),
                                                e.wait_events(), e.event_out());
  end_enqueue(e, out.result);
}

void VcompContext::dispatch_clEnqueueCopyBufferToImage(
    const proto::Args_clEnqueueCopyBufferToImage& args, proto::Out_clEnqueueCopyBufferToImage& out) {
  Enqueue e;
  if (!begin_enqueue(args.queue, args.wait_list, args.event, &e, &out.result)) return;
  auto* src = lookup<MemObject>(args.src_buffer, "src_buffer");
  auto* dst = lookup<MemObject>(args.dst_image, "dst_image");
  if (!src || !dst) {
    out.result = CL_INVALID_MEM_OBJECT;
    return;
  }
  size_t dso[3], region[3];
  if (!triple(args.dst_origin, dso) || !triple(args.region, region)) {
    out.result = CL_INVALID_VALUE;
    return;
  }
  out.result = api().clEnqueueCopyBufferToImage(e.queue, src->handle, dst->handle,
                                                size_t(args.src_offset), dso, region,
                                                e.wait_count(), e.wait_events(), e.event_out());
  end_enqueue(e, out.result);
}

void VcompContext::dispatch_clEnqueueMarkerWithWaitList(
    const proto::Args_clEnqueueMarkerWithWaitList& args, proto::Out_clEnqueueMarkerWithWaitList& out) {
  Enqueue e;
  if (!begin_enqueue(args.queue, args.wait_list, args.event, &e, &out.result)) return;
  out.result = api().clEnqueueMarkerWithWaitList(e.queue, e.wait_count(), e.wait_events(), e.event_out());
  end_enqueue(e, out.result);
}

void VcompContext::dispatch_clEnqueueBarrierWithWaitList(
    const proto::Args_clEnqueueBarrierWithWaitList& args,
    proto::Out_clEnqueueBarrierWithWaitList& out) {
  Enqueue e;
  if (!begin_enqueue(args.queue, args.wait_list, args.event, &e, &out.result)) return;
  out.result = api().clEnqueueBarrierWithWaitList(e.queue, e.wait_count(), e.wait_events(), e.event_out());
  end_enqueue(e, out.result);
}

void VcompContext::dispatch_clEnqueueMigrateMemObjects(
    const proto::Args_clEnqueueMigrateMemObjects& args, proto::Out_clEnqueueMigrateMemObjects& out) {
  Enqueue e;
  if (!begin_enqueue(args.queue, args.wait_list, args.event, &e, &out.result)) return;
  std::vector<cl_mem> mems;
  for (uint64_t i = 0; i < args.mem_objects.count; ++i) {
    auto* m = require<MemObject>(args.mem_objects[i], "mem_objects", CL_INVALID_MEM_OBJECT, &out.result);
    if (!m) return;
    mems.push_back(m->handle);
  }
  out.result = api().clEnqueueMigrateMemObjects(e.queue, cl_uint(mems.size()),
                                                mems.empty() ? nullptr : mems.data(), args.flags,
                                                e.wait_count(), e.wait_events(), e.event_out());
  end_enqueue(e, out.result);
}

}  // namespace gsvirt::vcomp
