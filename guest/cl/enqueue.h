// Transfers shared by the enqueue entry points and the map/unmap emulation.
#pragma once

#include "guest/cl/event.h"

namespace gsvirt::icd {

// A buffer range a transfer moves, with the command's queue, wait list and event (guest ids).
struct BufferRange {
  uint64_t queue_id = 0;
  uint64_t buffer_id = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  const uint64_t* wait_ids = nullptr;
  size_t wait_count = 0;
  uint64_t event_id = 0;  // 0: none
};

// Reads or writes a buffer range in pieces of at most ConnectionLimits::transfer_chunk_bytes, in
// order. Every piece carries the wait list; only the last carries the event. The host executes each
// piece blocking, one after another, so the event completes after every piece did, as one command's
// would (its profiling times are the last piece's). Writes are batched; reads wait for each piece.
cl_int read_buffer_in_pieces(const char* api, Connection* connection, const BufferRange& range, void* dst);
cl_int write_buffer_in_pieces(const char* api, Connection* connection, const BufferRange& range, const void* src);

// Reads [offset, offset + size) of `buffer` into `dst` (blocking on the host).
cl_int read_buffer_bytes(const char* api, const EnqueueCommon& common, cl_command_queue queue, cl_mem buffer,
                         size_t offset, size_t size, void* dst);
// Writes `size` bytes from `src` at `offset` (batched; the bytes are copied before returning).
cl_int write_buffer_bytes(const char* api, const EnqueueCommon& common, cl_command_queue queue, cl_mem buffer,
                          size_t offset, size_t size, const void* src);
// Image region, packed rows (row pitch region[0] * element size, slice pitch row * region[1]).
cl_int read_image_packed(const char* api, const EnqueueCommon& common, cl_command_queue queue, cl_mem image,
                         const size_t origin[3], const size_t region[3], void* packed);
// The copy of an image region into `staging` (packed, offset 0) with the wait list and event of
// `common`: a deferred image read or map (deferred_reads.h).
void encode_image_to_staging(WireWriter& w, bool want, const EnqueueCommon& common, cl_command_queue queue,
                             cl_mem image, const size_t origin[3], const size_t region[3], uint64_t staging);
cl_int write_image_packed(const char* api, const EnqueueCommon& common, cl_command_queue queue, cl_mem image,
                          const size_t origin[3], const size_t region[3], const void* packed);
// A marker carrying the wait list and event of `common` (map/unmap commands that move no data).
cl_int enqueue_marker(const char* api, const EnqueueCommon& common, cl_command_queue queue);

}  // namespace gsvirt::icd
