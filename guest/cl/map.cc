// clEnqueueMap*/clEnqueueUnmapMemObject, emulated in the guest: the host has no memory the guest
// can see, so a map reads the region into guest memory (unless the app will overwrite it all) and
// an unmap of a mapping made for writing writes it back. CL_MEM_USE_HOST_PTR buffers map onto
// the app's own host_ptr region, as OpenCL requires.
#include <cstdlib>
#include <cstring>

#include "guest/cl/api.h"
#include "guest/cl/deferred_reads.h"
#include "guest/cl/enqueue.h"
#include "guest/cl/memory.h"
#include "guest/cl/objects.h"

namespace gsvirt::icd {
namespace {

cl_int check_map_flags(const char* api, cl_mem mem, cl_map_flags flags) {
  constexpr cl_map_flags kKnown = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
  if (flags & ~kKnown) return refuse(api, "map_flags", CL_INVALID_VALUE);
  if ((flags & CL_MAP_WRITE_INVALIDATE_REGION) && (flags & (CL_MAP_READ | CL_MAP_WRITE)))
    return refuse(api, "CL_MAP_WRITE_INVALIDATE_REGION with READ or WRITE", CL_INVALID_VALUE);
  if ((flags & CL_MAP_READ) && (mem->flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS)))
    return refuse(api, "read mapping of a host-write-only object", CL_INVALID_OPERATION);
  if ((flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)) && (mem->flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)))
    return refuse(api, "write mapping of a host-read-only object", CL_INVALID_OPERATION);
  return CL_SUCCESS;
}

bool maps_for_writing(cl_map_flags flags) { return flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION); }
// A mapping with no flags is a read-write one (map_flags 0 is accepted by the spec).
bool maps_for_reading(cl_map_flags flags) { return !(flags & CL_MAP_WRITE_INVALIDATE_REGION); }

// An unmap of a mapping whose map has not delivered its bytes: the app has not seen them, so it
// wrote nothing; a writable mapping writes back what the map read (the staging buffer), a read-only
// one moves nothing.
cl_int write_back_undelivered(const char* api, const EnqueueCommon& common, cl_command_queue queue, cl_mem mem,
                              const Mapping& mapping, uint64_t staging) {
  const uint64_t* waits = common.wait_ids.empty() ? nullptr : common.wait_ids.data();
  cl_int err = CL_SUCCESS;
  if (!maps_for_writing(mapping.flags) && mapping.flags != 0)
    err = enqueue_marker(api, common, queue);
  else if (is_buffer(mem))
    err = common.connection->send_batched(api, [&](WireWriter& w, bool want) {
      proto::encode_clEnqueueCopyBuffer(w, want, queue->guest_id, staging, mem->guest_id, 0, mapping.offset,
                                        mapping.size, waits, common.wait_ids.size(), common.event_id);
    });
  else
    err = common.connection->send_batched(api, [&](WireWriter& w, bool want) {
      const uint64_t origin[3] = {mapping.origin[0], mapping.origin[1], mapping.origin[2]};
      const uint64_t region[3] = {mapping.region[0], mapping.region[1], mapping.region[2]};
      proto::encode_clEnqueueCopyBufferToImage(w, want, queue->guest_id, staging, mem->guest_id, 0, origin, 3, region,
                                               3, waits, common.wait_ids.size(), common.event_id);
    });
  destroy_staging(staging);
  return err;
}

template <class T>
T* fail_map(cl_int code, cl_int* errcode_ret) {
  if (errcode_ret) *errcode_ret = code;
  return nullptr;
}

}  // namespace
}  // namespace gsvirt::icd

using namespace gsvirt::icd;

void* gsvirt_clEnqueueMapBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking, cl_map_flags map_flags,
                                size_t offset, size_t size, cl_uint num_events, const cl_event* wait_list, cl_event* event,
                                cl_int* errcode_ret) {
  IcdLock lock(icd_mutex());
  const char* api = "clEnqueueMapBuffer";
  EnqueueCommon common;
  cl_int err = begin_enqueue(api, queue, num_events, wait_list, event, &common);
  if (err != CL_SUCCESS) return fail_map<void>(err, errcode_ret);
  if (!live(buffer) || !is_buffer(buffer)) return fail_map<void>(refuse(api, "buffer", CL_INVALID_MEM_OBJECT), errcode_ret);
  if (buffer->context != queue->context) return fail_map<void>(refuse(api, "buffer", CL_INVALID_CONTEXT), errcode_ret);
  if (size == 0 || offset > buffer->size || size > buffer->size - offset)
    return fail_map<void>(refuse(api, "offset/size outside the buffer", CL_INVALID_VALUE), errcode_ret);
  err = check_map_flags(api, buffer, map_flags);
  bool read = maps_for_reading(map_flags);
  bool deferred = read && must_defer_read(blocking, queue, common);
  if (err == CL_SUCCESS && read && !deferred) err = wait_before_host_blocks(api, blocking, queue, buffer, common);
  if (err != CL_SUCCESS) return fail_map<void>(err, errcode_ret);

  Mapping mapping;
  mapping.flags = map_flags;
  mapping.offset = offset;
  mapping.size = size;
  if (buffer->host_ptr) {
    mapping.pointer = static_cast<uint8_t*>(buffer->host_ptr) + offset;
  } else {
    mapping.pointer = std::malloc(size);
    mapping.owned = true;
    if (!mapping.pointer) return fail_map<void>(refuse(api, "out of memory", CL_OUT_OF_HOST_MEMORY), errcode_ret);
  }
  if (deferred)
    err = defer_read(
        api, common, queue, buffer, size,
        [&](WireWriter& w, bool want, uint64_t staging) {
          proto::encode_clEnqueueCopyBuffer(w, want, queue->guest_id, buffer->guest_id, staging, offset, 0, size,
                                            common.wait_ids.empty() ? nullptr : common.wait_ids.data(), common.wait_ids.size(),
                                            common.event_id);
        },
        [pointer = mapping.pointer, size](const uint8_t* bytes) { std::memcpy(pointer, bytes, size); },
        mapping.pointer);
  else
    err = read ? read_buffer_bytes(api, common, queue, buffer, offset, size, mapping.pointer)
               : enqueue_marker(api, common, queue);
  if (err != CL_SUCCESS) {
    if (mapping.owned) std::free(mapping.pointer);
    return fail_map<void>(err, errcode_ret);
  }
  buffer->mappings.push_back(mapping);
  finish_enqueue(common, queue, CL_COMMAND_MAP_BUFFER, event, read && !deferred);
  if (errcode_ret) *errcode_ret = CL_SUCCESS;
  return mapping.pointer;
}

void* gsvirt_clEnqueueMapImage(cl_command_queue queue, cl_mem image, cl_bool blocking, cl_map_flags map_flags,
                               const size_t* origin, const size_t* region, size_t* image_row_pitch,
                               size_t* image_slice_pitch, cl_uint num_events, const cl_event* wait_list,
                               cl_event* event, cl_int* errcode_ret) {
  IcdLock lock(icd_mutex());
  const char* api = "clEnqueueMapImage";
  EnqueueCommon common;
  cl_int err = begin_enqueue(api, queue, num_events, wait_list, event, &common);
  if (err != CL_SUCCESS) return fail_map<void>(err, errcode_ret);
  if (!live(image) || !is_image(image)) return fail_map<void>(refuse(api, "image", CL_INVALID_MEM_OBJECT), errcode_ret);
  if (image->context != queue->context) return fail_map<void>(refuse(api, "image", CL_INVALID_CONTEXT), errcode_ret);
  if (!origin || !region || !image_row_pitch)
    return fail_map<void>(refuse(api, "origin, region or image_row_pitch is NULL", CL_INVALID_VALUE), errcode_ret);
  if (region[0] == 0 || region[1] == 0 || region[2] == 0)
    return fail_map<void>(refuse(api, "region has a 0", CL_INVALID_VALUE), errcode_ret);
  bool layered = image->type == CL_MEM_OBJECT_IMAGE3D || image->type == CL_MEM_OBJECT_IMAGE2D_ARRAY ||
                 image->type == CL_MEM_OBJECT_IMAGE1D_ARRAY;
  if (layered && !image_slice_pitch)
    return fail_map<void>(refuse(api, "image_slice_pitch is NULL", CL_INVALID_VALUE), errcode_ret);
  err = check_map_flags(api, image, map_flags);
  bool read = maps_for_reading(map_flags);
  bool deferred = read && must_defer_read(blocking, queue, common);
  if (err == CL_SUCCESS && read && !deferred) err = wait_before_host_blocks(api, blocking, queue, image, common);
  if (err != CL_SUCCESS) return fail_map<void>(err, errcode_ret);

  // The mapping is the packed region, as the host returns it.
  Mapping mapping;
  mapping.flags = map_flags;
  std::memcpy(mapping.origin, origin, sizeof mapping.origin);
  std::memcpy(mapping.region, region, sizeof mapping.region);
  mapping.row_pitch = region[0] * image->element_size;
  mapping.slice_pitch = image->type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? mapping.row_pitch : mapping.row_pitch * region[1];
  mapping.pointer = std::malloc(mapping.row_pitch * region[1] * region[2]);
  mapping.owned = true;
  if (!mapping.pointer) return fail_map<void>(refuse(api, "out of memory", CL_OUT_OF_HOST_MEMORY), errcode_ret);
  size_t bytes = mapping.row_pitch * region[1] * region[2];
  if (deferred)
    err = defer_read(
        api, common, queue, image, bytes,
        [&](WireWriter& w, bool want, uint64_t staging) {
          encode_image_to_staging(w, want, common, queue, image, origin, region, staging);
        },
        [pointer = mapping.pointer, bytes](const uint8_t* packed) { std::memcpy(pointer, packed, bytes); },
        mapping.pointer);
  else
    err = read ? read_image_packed(api, common, queue, image, origin, region, mapping.pointer)
               : enqueue_marker(api, common, queue);
  if (err != CL_SUCCESS) {
    std::free(mapping.pointer);
    return fail_map<void>(err, errcode_ret);
  }
  image->mappings.push_back(mapping);
  *image_row_pitch = mapping.row_pitch;
  if (image_slice_pitch) *image_slice_pitch = layered ? mapping.slice_pitch : 0;
  finish_enqueue(common, queue, CL_COMMAND_MAP_IMAGE, event, read && !deferred);
  if (errcode_ret) *errcode_ret = CL_SUCCESS;
  return mapping.pointer;
}

cl_int gsvirt_clEnqueueUnmapMemObject(cl_command_queue queue, cl_mem memobj, void* mapped_ptr, cl_uint num_events,
                                      const cl_event* wait_list, cl_event* event) {
  IcdLock lock(icd_mutex());
  const char* api = "clEnqueueUnmapMemObject";
  EnqueueCommon common;
  cl_int err = begin_enqueue(api, queue, num_events, wait_list, event, &common);
  if (err != CL_SUCCESS) return err;
  if (!live(memobj)) return refuse(api, "memobj", CL_INVALID_MEM_OBJECT);
  if (memobj->context != queue->context) return refuse(api, "memobj", CL_INVALID_CONTEXT);
  auto it = std::find_if(memobj->mappings.begin(), memobj->mappings.end(),
                         [&](const Mapping& m) { return m.pointer == mapped_ptr; });
  if (it == memobj->mappings.end()) return refuse(api, "mapped_ptr is not a mapping of memobj", CL_INVALID_VALUE);
  Mapping mapping = *it;
  uint64_t undelivered = take_undelivered_map(mapped_ptr);
  if (undelivered)
    err = write_back_undelivered(api, common, queue, memobj, mapping, undelivered);
  else if (!maps_for_writing(mapping.flags) && mapping.flags != 0)
    err = enqueue_marker(api, common, queue);
  else if (is_buffer(memobj))
    err = write_buffer_bytes(api, common, queue, memobj, mapping.offset, mapping.size, mapping.pointer);
  else
    err = write_image_packed(api, common, queue, memobj, mapping.origin, mapping.region, mapping.pointer);
  if (err != CL_SUCCESS) return err;
  // The bytes were copied by the write above, so the guest memory can go now.
  memobj->mappings.erase(std::find_if(memobj->mappings.begin(), memobj->mappings.end(),
                                      [&](const Mapping& m) { return m.pointer == mapped_ptr; }));
  if (mapping.owned) std::free(mapping.pointer);
  finish_enqueue(common, queue, CL_COMMAND_UNMAP_MEM_OBJECT, event, false);
  return CL_SUCCESS;
}
