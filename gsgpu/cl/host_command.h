// What the host-side enqueue entry points share (buffers in enqueue.cc, images in image_enqueue.cc):
// the queue and lock of one command, memory objects checked against the queue's context, boxes of
// bytes in linear memory, and the spec's host-access and map-flag rules.
//
// These commands touch memory through the CPU mapping of its buffer object (Mem::bytes); the
// device executes nothing for them. They run on the host once every command before them in the
// queue has finished (queue.cc), so they are ordered with kernels; blocking ones return after that.
#pragma once

#include "gsgpu/cl/entry_points.h"

namespace gsgpu::cl {

// Validates the queue, then holds the runtime lock for the command.
class HostCommand {
 public:
  explicit HostCommand(cl_command_queue queue) {
    q_ = as<Queue>(queue, Kind::kQueue);
    if (!q_) {
      err_ = CL_INVALID_COMMAND_QUEUE;
      return;
    }
    lock_ = std::unique_lock(q_->rt->mutex);
  }
  cl_int error() const { return err_; }
  Queue* queue() const { return q_; }
  // A memory object of this queue's context in *out; otherwise CL_INVALID_MEM_OBJECT (not a live
  // one) or CL_INVALID_CONTEXT (one of another context), as every enqueue entry point of the spec.
  cl_int mem_object(cl_mem mem, Mem** out) const {
    auto* m = as<Mem>(mem, Kind::kMem);
    if (!m) return CL_INVALID_MEM_OBJECT;
    if (m->context != q_->context) return CL_INVALID_CONTEXT;
    *out = m;
    return CL_SUCCESS;
  }
  // The same, and an image is CL_INVALID_MEM_OBJECT (not a buffer).
  cl_int buffer(cl_mem mem, Mem** out) const {
    cl_int err = mem_object(mem, out);
    if (err == CL_SUCCESS && (*out)->is_image()) return CL_INVALID_MEM_OBJECT;
    return err;
  }
  // The same, and a buffer is CL_INVALID_MEM_OBJECT (not an image).
  cl_int image(cl_mem mem, Mem** out) const {
    cl_int err = mem_object(mem, out);
    if (err == CL_SUCCESS && !(*out)->is_image()) return CL_INVALID_MEM_OBJECT;
    return err;
  }
  cl_int submit(cl_command_type type, cl_uint n, const cl_event* waits, bool blocking, std::vector<Object*> keep,
                Work work, cl_event* event) {
    CommandDesc desc;
    desc.type = type;
    desc.work = std::move(work);
    desc.blocking = blocking;
    desc.keep = std::move(keep);
    return enqueue(q_, std::move(desc), n, waits, event);
  }

 private:
  Queue* q_ = nullptr;
  std::unique_lock<std::recursive_mutex> lock_;
  cl_int err_ = CL_SUCCESS;
};

inline uint64_t transfer_cycles(uint64_t bytes) { return bytes / Runtime::kCopyBytesPerCycle; }

// A box inside a linear memory: where its first byte is, and the strides of its rows and slices.
struct Rect {
  size_t row = 0, slice = 0;
  uint64_t base = 0;  // byte offset of the origin
};

// Fills `r` for a buffer rectangle (origin and region in bytes, rows, slices; pitches 0 = packed,
// as the spec says) and checks that it lies within `limit` bytes (UINT64_MAX for host memory the
// caller owns). CL_INVALID_VALUE otherwise (enqueue.cc).
cl_int make_rect(const size_t origin[3], const size_t region[3], size_t row, size_t slice, uint64_t limit, Rect* r);

// Copies region[0] bytes x region[1] rows x region[2] slices between two boxes (rows may overlap:
// they move with memmove).
inline void copy_rect(uint8_t* dst, const Rect& d, const uint8_t* src, const Rect& s, const size_t region[3]) {
  for (size_t z = 0; z < region[2]; ++z)
    for (size_t y = 0; y < region[1]; ++y)
      std::memmove(dst + d.base + z * d.slice + y * d.row, src + s.base + z * s.slice + y * s.row, region[0]);
}

// The object's CL_MEM_HOST_* flags forbid the application this transfer: reads of HOST_WRITE_ONLY or
// HOST_NO_ACCESS objects, writes of HOST_READ_ONLY or HOST_NO_ACCESS ones (CL_INVALID_OPERATION).
inline bool host_access_denied(const Mem* m, bool reading, bool writing) {
  const bool no_read = m->flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS);
  const bool no_write = m->flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS);
  return (reading && no_read) || (writing && no_write);
}

// Known flags only; CL_MAP_WRITE_INVALIDATE_REGION excludes CL_MAP_READ and CL_MAP_WRITE (the spec).
inline bool valid_map_flags(cl_map_flags flags) {
  constexpr cl_map_flags kKnown = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
  if (flags & ~kKnown) return false;
  return !((flags & CL_MAP_WRITE_INVALIDATE_REGION) && (flags & (CL_MAP_READ | CL_MAP_WRITE)));
}

// A map in these directions is refused by the object's host-access flags (CL_INVALID_OPERATION).
inline bool map_access_denied(const Mem* m, cl_map_flags flags) {
  return host_access_denied(m, flags & CL_MAP_READ, flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION));
}

}  // namespace gsgpu::cl
