// Buffer transfer, marker and barrier commands (host_command.h says how they run). Buffer bytes are
// reached through the CPU mapping of the buffer's object (Mem::bytes), every offset checked against
// the buffer's size with overflow-safe arithmetic.
#include "common/checked_math.h"
#include "gsgpu/cl/entry_points.h"
#include "gsgpu/cl/host_command.h"

namespace gsgpu::cl {

cl_int make_rect(const size_t origin[3], const size_t region[3], size_t row, size_t slice, uint64_t limit,
                 Rect* r) {
  if (!origin || !region || region[0] == 0 || region[1] == 0 || region[2] == 0) return CL_INVALID_VALUE;
  r->row = row ? row : region[0];
  auto packed_slice = checked_mul<uint64_t>(region[1], r->row);
  if (!packed_slice) return CL_INVALID_VALUE;
  r->slice = slice ? slice : size_t(*packed_slice);
  if (r->row < region[0] || r->slice < *packed_slice) return CL_INVALID_VALUE;
  // The spec: a slice pitch that is given is a multiple of the row pitch.
  if (slice && slice % r->row) return CL_INVALID_VALUE;
  auto z = checked_mul<uint64_t>(origin[2], r->slice);
  auto y = checked_mul<uint64_t>(origin[1], r->row);
  auto zs = checked_mul<uint64_t>(region[2] - 1, r->slice);
  auto ys = checked_mul<uint64_t>(region[1] - 1, r->row);
  if (!z || !y || !zs || !ys) return CL_INVALID_VALUE;
  auto base = checked_add<uint64_t>(*z, *y);
  base = base ? checked_add<uint64_t>(*base, origin[0]) : base;
  auto extent = checked_add<uint64_t>(*zs, *ys);
  extent = extent ? checked_add<uint64_t>(*extent, region[0]) : extent;
  if (!base || !extent || !range_within(*base, *extent, limit)) return CL_INVALID_VALUE;
  r->base = *base;
  return CL_SUCCESS;
}

namespace {

uint8_t* bytes_of(const Mem* m) { return m->bytes(); }

bool valid_pattern_size(size_t n) {
  return n && n <= 128 && (n & (n - 1)) == 0;
}

cl_int read_write(cl_command_queue queue, cl_mem buffer, bool blocking, size_t offset, size_t size, void* host,
                  bool read, cl_uint n, const cl_event* waits, cl_event* event) {
  HostCommand cmd(queue);
  if (cmd.error() != CL_SUCCESS) return cmd.error();
  Mem* m = nullptr;
  if (cl_int err = cmd.buffer(buffer, &m); err != CL_SUCCESS) return err;
  if (!host || size == 0 || !range_within(offset, size, m->size)) return CL_INVALID_VALUE;
  if (host_access_denied(m, read, !read)) return CL_INVALID_OPERATION;
  auto work = [=](uint64_t* cycles) {
    uint8_t* bytes = bytes_of(m);
    if (!bytes) return CL_INVALID_MEM_OBJECT;
    if (read)
      std::memcpy(host, bytes + offset, size);
    else
      std::memcpy(bytes + offset, host, size);
    *cycles = transfer_cycles(size);
    return CL_COMPLETE;
  };
  // A non-blocking transfer uses the host memory until its event completes (the spec).
  return cmd.submit(read ? CL_COMMAND_READ_BUFFER : CL_COMMAND_WRITE_BUFFER, n, waits, blocking, {m}, work, event);
}

cl_int read_write_rect(cl_command_queue queue, cl_mem buffer, bool blocking, const size_t* buffer_origin,
                       const size_t* host_origin, const size_t* region, size_t buffer_row, size_t buffer_slice,
                       size_t host_row, size_t host_slice, void* host, bool read, cl_uint n, const cl_event* waits,
                       cl_event* event) {
  HostCommand cmd(queue);
  if (cmd.error() != CL_SUCCESS) return cmd.error();
  Mem* m = nullptr;
  if (cl_int err = cmd.buffer(buffer, &m); err != CL_SUCCESS) return err;
  if (!host) return CL_INVALID_VALUE;
  Rect b, h;
  cl_int err = make_rect(buffer_origin, region, buffer_row, buffer_slice, m->size, &b);
  if (err == CL_SUCCESS) err = make_rect(host_origin, region, host_row, host_slice, UINT64_MAX, &h);
  if (err != CL_SUCCESS) return err;
  if (host_access_denied(m, read, !read)) return CL_INVALID_OPERATION;
  const size_t r[3] = {region[0], region[1], region[2]};
  auto work = [=](uint64_t* cycles) {
    uint8_t* bytes = bytes_of(m);
    if (!bytes) return CL_INVALID_MEM_OBJECT;
    auto* hp = static_cast<uint8_t*>(host);
    if (read)
      copy_rect(hp, h, bytes, b, r);
    else
      copy_rect(bytes, b, hp, h, r);
    *cycles = transfer_cycles(uint64_t(r[0]) * r[1] * r[2]);
    return CL_COMPLETE;
  };
  return cmd.submit(read ? CL_COMMAND_READ_BUFFER_RECT : CL_COMMAND_WRITE_BUFFER_RECT, n, waits, blocking, {m}, work,
                    event);
}

// Two ranges of the same allocation that overlap (CL_MEM_COPY_OVERLAP).
bool overlaps(const Mem* a, uint64_t a_off, const Mem* b, uint64_t b_off, uint64_t size) {
  const uint64_t x = a->va + a_off, y = b->va + b_off;
  return x < y + size && y < x + size;
}

cl_int marker(cl_command_queue queue, cl_uint n, const cl_event* waits, cl_event* event, cl_command_type type) {
  HostCommand cmd(queue);
  if (cmd.error() != CL_SUCCESS) return cmd.error();
  return cmd.submit(type, n, waits, false, {}, [](uint64_t*) { return CL_COMPLETE; }, event);
}

}  // namespace

cl_int CL_API_CALL gsgpu_clEnqueueReadBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking, size_t offset,
                                             size_t size, void* dst, cl_uint n, const cl_event* waits,
                                             cl_event* event) {
  return read_write(queue, buffer, blocking, offset, size, dst, true, n, waits, event);
}

cl_int CL_API_CALL gsgpu_clEnqueueWriteBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking, size_t offset,
                                              size_t size, const void* src, cl_uint n, const cl_event* waits,
                                              cl_event* event) {
  return read_write(queue, buffer, blocking, offset, size, const_cast<void*>(src), false, n, waits, event);
}

cl_int CL_API_CALL gsgpu_clEnqueueReadBufferRect(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                                                 const size_t* buffer_origin, const size_t* host_origin,
                                                 const size_t* region, size_t buffer_row, size_t buffer_slice,
                                                 size_t host_row, size_t host_slice, void* dst, cl_uint n,
                                                 const cl_event* waits, cl_event* event) {
  return read_write_rect(queue, buffer, blocking, buffer_origin, host_origin, region, buffer_row, buffer_slice,
                         host_row, host_slice, dst, true, n, waits, event);
}

cl_int CL_API_CALL gsgpu_clEnqueueWriteBufferRect(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                                                  const size_t* buffer_origin, const size_t* host_origin,
                                                  const size_t* region, size_t buffer_row, size_t buffer_slice,
                                                  size_t host_row, size_t host_slice, const void* src, cl_uint n,
                                                  const cl_event* waits, cl_event* event) {
  return read_write_rect(queue, buffer, blocking, buffer_origin, host_origin, region, buffer_row, buffer_slice,
                         host_row, host_slice, const_cast<void*>(src), false, n, waits, event);
}

cl_int CL_API_CALL gsgpu_clEnqueueCopyBuffer(cl_command_queue queue, cl_mem src, cl_mem dst, size_t src_offset,
                                             size_t dst_offset, size_t size, cl_uint n, const cl_event* waits,
                                             cl_event* event) {
  HostCommand cmd(queue);
  if (cmd.error() != CL_SUCCESS) return cmd.error();
  Mem *s = nullptr, *d = nullptr;
  cl_int err = cmd.buffer(src, &s);
  if (err == CL_SUCCESS) err = cmd.buffer(dst, &d);
  if (err != CL_SUCCESS) return err;
  if (size == 0 || !range_within(src_offset, size, s->size) || !range_within(dst_offset, size, d->size))
    return CL_INVALID_VALUE;
  if (overlaps(s, src_offset, d, dst_offset, size)) return CL_MEM_COPY_OVERLAP;
  auto work = [=](uint64_t* cycles) {
    uint8_t* sb = bytes_of(s);
    uint8_t* db = bytes_of(d);
    if (!sb || !db) return CL_INVALID_MEM_OBJECT;
    std::memmove(db + dst_offset, sb + src_offset, size);
    *cycles = transfer_cycles(size);
    return CL_COMPLETE;
  };
  return cmd.submit(CL_COMMAND_COPY_BUFFER, n, waits, false, {s, d}, work, event);
}

cl_int CL_API_CALL gsgpu_clEnqueueCopyBufferRect(cl_command_queue queue, cl_mem src, cl_mem dst,
                                                 const size_t* src_origin, const size_t* dst_origin,
                                                 const size_t* region, size_t src_row, size_t src_slice,
                                                 size_t dst_row, size_t dst_slice, cl_uint n, const cl_event* waits,
                                                 cl_event* event) {
  HostCommand cmd(queue);
  if (cmd.error() != CL_SUCCESS) return cmd.error();
  Mem *s = nullptr, *d = nullptr;
  cl_int err = cmd.buffer(src, &s);
  if (err == CL_SUCCESS) err = cmd.buffer(dst, &d);
  if (err != CL_SUCCESS) return err;
  Rect sr, dr;
  err = make_rect(src_origin, region, src_row, src_slice, s->size, &sr);
  if (err == CL_SUCCESS) err = make_rect(dst_origin, region, dst_row, dst_slice, d->size, &dr);
  if (err != CL_SUCCESS) return err;
  // The spec: a copy within one buffer needs equal pitches (then rows move with memmove).
  if (s == d && (sr.row != dr.row || sr.slice != dr.slice)) return CL_INVALID_VALUE;
  const size_t r[3] = {region[0], region[1], region[2]};
  auto work = [=](uint64_t* cycles) {
    uint8_t* sb = bytes_of(s);
    uint8_t* db = bytes_of(d);
    if (!sb || !db) return CL_INVALID_MEM_OBJECT;
    copy_rect(db, dr, sb, sr, r);
    *cycles = transfer_cycles(uint64_t(r[0]) * r[1] * r[2]);
    return CL_COMPLETE;
  };
  return cmd.submit(CL_COMMAND_COPY_BUFFER_RECT, n, waits, false, {s, d}, work, event);
}

cl_int CL_API_CALL gsgpu_clEnqueueFillBuffer(cl_command_queue queue, cl_mem buffer, const void* pattern,
                                             size_t pattern_size, size_t offset, size_t size, cl_uint n,
                                             const cl_event* waits, cl_event* event) {
  HostCommand cmd(queue);
  if (cmd.error() != CL_SUCCESS) return cmd.error();
  Mem* m = nullptr;
  if (cl_int err = cmd.buffer(buffer, &m); err != CL_SUCCESS) return err;
  if (!pattern || !valid_pattern_size(pattern_size) || offset % pattern_size || size % pattern_size ||
      !range_within(offset, size, m->size))
    return CL_INVALID_VALUE;
  // The pattern is captured now: the caller may reuse its memory as soon as this returns.
  std::vector<uint8_t> bytes(static_cast<const uint8_t*>(pattern), static_cast<const uint8_t*>(pattern) + pattern_size);
  auto work = [=](uint64_t* cycles) {
    uint8_t* dst = bytes_of(m);
    if (!dst) return CL_INVALID_MEM_OBJECT;
    for (size_t at = offset; at < offset + size; at += bytes.size()) std::memcpy(dst + at, bytes.data(), bytes.size());
    *cycles = transfer_cycles(size);
    return CL_COMPLETE;
  };
  return cmd.submit(CL_COMMAND_FILL_BUFFER, n, waits, false, {m}, work, event);
}

void* CL_API_CALL gsgpu_clEnqueueMapBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking, cl_map_flags flags,
                                           size_t offset, size_t size, cl_uint n, const cl_event* waits,
                                           cl_event* event, cl_int* errcode_ret) {
  HostCommand cmd(queue);
  cl_int err = cmd.error();
  Mem* m = nullptr;
  if (err == CL_SUCCESS) err = cmd.buffer(buffer, &m);
  if (err == CL_SUCCESS && (!valid_map_flags(flags) || size == 0 || !range_within(offset, size, m->size)))
    err = CL_INVALID_VALUE;
  // The spec: a read mapping needs host read access, a write mapping host write access.
  if (err == CL_SUCCESS && map_access_denied(m, flags)) err = CL_INVALID_OPERATION;
  uint8_t* bytes = err == CL_SUCCESS ? bytes_of(m) : nullptr;
  if (err == CL_SUCCESS && !bytes) err = CL_MAP_FAILURE;
  // The CPU view of the buffer is its object's mapping: nothing to copy in either direction. The
  // pointer may be used once the command's event completes (at once when blocking).
  if (err == CL_SUCCESS)
    err = cmd.submit(CL_COMMAND_MAP_BUFFER, n, waits, blocking, {m}, [](uint64_t*) { return CL_COMPLETE; }, event);
  set_error(errcode_ret, err);
  if (err != CL_SUCCESS) return nullptr;
  ++m->map_count;
  return bytes + offset;
}

cl_int CL_API_CALL gsgpu_clEnqueueUnmapMemObject(cl_command_queue queue, cl_mem mem, void* ptr, cl_uint n,
                                                 const cl_event* waits, cl_event* event) {
  HostCommand cmd(queue);
  if (cmd.error() != CL_SUCCESS) return cmd.error();
  Mem* m = nullptr;
  if (cl_int err = cmd.mem_object(mem, &m); err != CL_SUCCESS) return err;
  uint8_t* bytes = bytes_of(m);
  auto* p = static_cast<uint8_t*>(ptr);
  if (!bytes || m->map_count == 0 || p < bytes || p >= bytes + m->size) return CL_INVALID_VALUE;
  auto work = [m](uint64_t*) {
    if (m->map_count) --m->map_count;
    return CL_COMPLETE;
  };
  return cmd.submit(CL_COMMAND_UNMAP_MEM_OBJECT, n, waits, false, {m}, work, event);
}

cl_int CL_API_CALL gsgpu_clEnqueueMigrateMemObjects(cl_command_queue queue, cl_uint num, const cl_mem* mems,
                                                    cl_mem_migration_flags flags, cl_uint n, const cl_event* waits,
                                                    cl_event* event) {
  HostCommand cmd(queue);
  if (cmd.error() != CL_SUCCESS) return cmd.error();
  if (num == 0 || !mems) return CL_INVALID_VALUE;
  if (flags & ~cl_mem_migration_flags(CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED))
    return CL_INVALID_VALUE;
  for (cl_uint i = 0; i < num; ++i) {
    Mem* m = nullptr;
    if (cl_int err = cmd.mem_object(mems[i], &m); err != CL_SUCCESS) return err;
  }
  // One device, memory always resident: nothing moves.
  return cmd.submit(CL_COMMAND_MIGRATE_MEM_OBJECTS, n, waits, false, {}, [](uint64_t*) { return CL_COMPLETE; },
                    event);
}

cl_int CL_API_CALL gsgpu_clEnqueueMarkerWithWaitList(cl_command_queue queue, cl_uint n, const cl_event* waits,
                                                     cl_event* event) {
  return marker(queue, n, waits, event, CL_COMMAND_MARKER);
}

cl_int CL_API_CALL gsgpu_clEnqueueBarrierWithWaitList(cl_command_queue queue, cl_uint n, const cl_event* waits,
                                                      cl_event* event) {
  return marker(queue, n, waits, event, CL_COMMAND_BARRIER);
}

cl_int CL_API_CALL gsgpu_clEnqueueMarker(cl_command_queue queue, cl_event* event) {
  if (!event) return CL_INVALID_VALUE;
  return marker(queue, 0, nullptr, event, CL_COMMAND_MARKER);
}

cl_int CL_API_CALL gsgpu_clEnqueueBarrier(cl_command_queue queue) {
  return marker(queue, 0, nullptr, nullptr, CL_COMMAND_BARRIER);
}

cl_int CL_API_CALL gsgpu_clEnqueueWaitForEvents(cl_command_queue queue, cl_uint n, const cl_event* events) {
  if (n == 0 || !events) return CL_INVALID_VALUE;
  const cl_int err = marker(queue, n, events, nullptr, CL_COMMAND_MARKER);
  return err == CL_INVALID_EVENT_WAIT_LIST ? CL_INVALID_EVENT : err;
}

}  // namespace gsgpu::cl
