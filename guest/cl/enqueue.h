// Transfers shared by the enqueue entry points and the map/unmap emulation.
#pragma once

#include "guest/cl/event.h"

namespace gsvirt::icd {

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
