// Buffers, sub-buffers and images: created on the host, described locally.
//
// CL_MEM_USE_HOST_PTR cannot share memory across the transport: such objects are created on the
// host with COPY semantics, the guest keeps host_ptr and keeps it in sync at map/unmap (docs).
#include <algorithm>
#include <cstring>
#include <vector>

#include "common/checked_math.h"

#include "guest/cl/api.h"
#include "guest/cl/deferred_reads.h"
#include "guest/cl/enqueue.h"
#include "guest/cl/forward.h"
#include "guest/cl/memory.h"
#include "guest/cl/objects.h"

namespace gsvirt::icd {
namespace {

constexpr cl_mem_flags kAccessFlags = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
constexpr cl_mem_flags kHostPtrFlags = CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR;
constexpr cl_mem_flags kHostAccessFlags = CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;

bool at_most_one(cl_mem_flags flags, cl_mem_flags group) {
  cl_mem_flags set = flags & group;
  return (set & (set - 1)) == 0;
}

cl_int check_mem_flags(const char* api, cl_mem_flags flags, const void* host_ptr) {
  if (flags & ~(kAccessFlags | kHostPtrFlags | kHostAccessFlags)) return refuse(api, "unknown flags", CL_INVALID_VALUE);
  if (!at_most_one(flags, kAccessFlags) || !at_most_one(flags, kHostAccessFlags))
    return refuse(api, "conflicting access flags", CL_INVALID_VALUE);
  if ((flags & CL_MEM_USE_HOST_PTR) && (flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)))
    return refuse(api, "CL_MEM_USE_HOST_PTR with ALLOC/COPY_HOST_PTR", CL_INVALID_VALUE);
  bool wants_ptr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR);
  if (wants_ptr != (host_ptr != nullptr)) return refuse(api, "host_ptr does not match the flags", CL_INVALID_HOST_PTR);
  return CL_SUCCESS;
}

// The host gets its own copy: USE_HOST_PTR becomes COPY_HOST_PTR on the wire.
cl_mem_flags wire_flags(cl_mem_flags flags) {
  if (flags & CL_MEM_USE_HOST_PTR) flags = (flags & ~CL_MEM_USE_HOST_PTR) | CL_MEM_COPY_HOST_PTR;
  return flags;
}

cl_mem new_mem(cl_context context, uint64_t id, cl_mem_object_type type, cl_mem_flags flags, size_t size,
               void* host_ptr) {
  auto* mem = new _cl_mem;
  mem->guest_id = id;
  mem->context = context;
  mem->type = type;
  mem->flags = flags;
  mem->size = size;
  mem->host_ptr = (flags & CL_MEM_USE_HOST_PTR) ? host_ptr : nullptr;
  retain_internal(context);
  registry().add(mem);
  return mem;
}

// Writes a new buffer's host data piece by piece (each piece is copied before this returns, so the
// app may reuse host_ptr at once). On failure the buffer is destroyed.
cl_int fill_in_pieces(const char* api, Connection* connection, cl_context context, uint64_t id, size_t size,
                      const void* host_ptr) {
  uint64_t queue_id = 0;
  cl_int err = transfer_queue(api, connection, context, context->devices.front(), &queue_id);
  if (err == CL_SUCCESS) err = write_buffer_in_pieces(api, connection, {queue_id, id, 0, size, nullptr, 0, 0}, host_ptr);
  if (err != CL_SUCCESS)
    connection->send_batched("vcDestroyObject", [id](WireWriter& w, bool want) { proto::encode_vcDestroyObject(w, want, id); });
  return err;
}

cl_mem create_buffer(const char* api, cl_context context, cl_mem_flags flags, size_t size, void* host_ptr,
                     cl_int* errcode_ret) {
  if (!live(context)) return refuse_null<cl_mem>(api, "context", CL_INVALID_CONTEXT, errcode_ret);
  cl_int err = check_mem_flags(api, flags, host_ptr);
  if (err != CL_SUCCESS) return refuse_null<cl_mem>(api, "flags", err, errcode_ret);
  if (size == 0) return refuse_null<cl_mem>(api, "size is 0", CL_INVALID_BUFFER_SIZE, errcode_ret);
  Connection* connection = connection_for(api);
  if (!connection) return refuse_null<cl_mem>(api, "no host connection", CL_OUT_OF_RESOURCES, errcode_ret);
  // Host data beyond one staging piece cannot travel with the creation: the buffer is created
  // without it and filled piece by piece on the context's transfer queue before this returns.
  bool in_pieces = host_ptr && size > connection->limits().transfer_chunk_bytes;
  proto::DataIn data;
  err = connection->data_in(in_pieces ? nullptr : host_ptr, host_ptr && !in_pieces ? size : 0, &data);
  if (err != CL_SUCCESS) return refuse_null<cl_mem>(api, "host_ptr staging", err, errcode_ret);
  uint64_t id = connection->allocate_id();
  cl_mem_flags flags_sent = in_pieces ? wire_flags(flags) & ~cl_mem_flags(CL_MEM_COPY_HOST_PTR) : wire_flags(flags);
  proto::Reply_clCreateBuffer reply;
  err = connection->call(
      api,
      [&](WireWriter& w, bool want) {
        proto::encode_clCreateBuffer(w, want, id, context->guest_id, flags_sent, size, data);
      },
      proto::decode_reply_clCreateBuffer, &reply);
  if (err == CL_SUCCESS && in_pieces) err = fill_in_pieces(api, connection, context, id, size, host_ptr);
  if (errcode_ret) *errcode_ret = err;
  if (err != CL_SUCCESS) return nullptr;
  return new_mem(context, id, CL_MEM_OBJECT_BUFFER, flags, size, host_ptr);
}

// The descriptor the host sees for host data: packed (pitches 0).
cl_image_desc wire_desc(const cl_image_desc& desc, const void* host_ptr) {
  cl_image_desc d = desc;
  if (host_ptr) d.image_row_pitch = d.image_slice_pitch = 0;
  return d;
}

// Host data at the application's pitches, checked as the spec says (a row pitch holds a row of whole
// pixels; a slice pitch holds a slice of whole rows) and packed into `out`. CL_INVALID_IMAGE_DESCRIPTOR
// for pitches that break a rule or whose extent overflows.
cl_int pack_image_data(const cl_image_desc& d, size_t element_size, const void* host_ptr, std::vector<uint8_t>* out) {
  const bool array_1d = d.image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY;
  const bool layered = array_1d || d.image_type == CL_MEM_OBJECT_IMAGE2D_ARRAY || d.image_type == CL_MEM_OBJECT_IMAGE3D;
  const bool has_rows = d.image_type == CL_MEM_OBJECT_IMAGE2D || d.image_type == CL_MEM_OBJECT_IMAGE2D_ARRAY ||
                        d.image_type == CL_MEM_OBJECT_IMAGE3D;
  const size_t rows = has_rows ? d.image_height : 1;
  const size_t slices = array_1d || d.image_type == CL_MEM_OBJECT_IMAGE2D_ARRAY ? d.image_array_size
                        : d.image_type == CL_MEM_OBJECT_IMAGE3D                   ? d.image_depth
                                                                                  : 1;
  auto packed_row = checked_mul<uint64_t>(d.image_width, element_size);
  if (!packed_row || rows == 0 || slices == 0 || d.image_width == 0) return CL_INVALID_IMAGE_DESCRIPTOR;
  const uint64_t row = d.image_row_pitch ? d.image_row_pitch : *packed_row;
  if (row < *packed_row || row % element_size) return CL_INVALID_IMAGE_DESCRIPTOR;
  auto packed_slice = checked_mul<uint64_t>(row, rows);
  if (!packed_slice) return CL_INVALID_IMAGE_DESCRIPTOR;
  const uint64_t slice = layered && d.image_slice_pitch ? d.image_slice_pitch : *packed_slice;
  if (slice < *packed_slice || slice % row) return CL_INVALID_IMAGE_DESCRIPTOR;
  auto total = checked_mul<uint64_t>(*packed_row, rows);
  total = total ? checked_mul<uint64_t>(*total, slices) : total;
  auto last = checked_mul<uint64_t>(slice, slices - 1);
  auto rows_end = checked_mul<uint64_t>(row, rows - 1);
  auto end = last && rows_end ? checked_add<uint64_t>(*last, *rows_end) : std::nullopt;
  if (!total || *total > (uint64_t{1} << 40) || !end || !checked_add<uint64_t>(*end, *packed_row))
    return CL_INVALID_IMAGE_DESCRIPTOR;
  out->resize(size_t(*total));
  const auto* src = static_cast<const uint8_t*>(host_ptr);
  uint8_t* dst = out->data();
  for (size_t z = 0; z < slices; ++z)
    for (size_t y = 0; y < rows; ++y, dst += *packed_row) std::memcpy(dst, src + z * slice + y * row, *packed_row);
  return CL_SUCCESS;
}

cl_mem create_image(const char* api, cl_context context, cl_mem_flags flags, const cl_image_format* format,
                    const cl_image_desc* desc, void* host_ptr, cl_int* errcode_ret) {
  if (!live(context)) return refuse_null<cl_mem>(api, "context", CL_INVALID_CONTEXT, errcode_ret);
  cl_int err = check_mem_flags(api, flags, host_ptr);
  if (err != CL_SUCCESS) return refuse_null<cl_mem>(api, "flags", err, errcode_ret);
  if (!format) return refuse_null<cl_mem>(api, "image_format is NULL", CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, errcode_ret);
  size_t element_size = image_element_size(*format);
  if (element_size == 0) return refuse_null<cl_mem>(api, "image_format", CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, errcode_ret);
  if (!desc) return refuse_null<cl_mem>(api, "image_desc is NULL", CL_INVALID_IMAGE_DESCRIPTOR, errcode_ret);
  switch (desc->image_type) {
    case CL_MEM_OBJECT_IMAGE1D: case CL_MEM_OBJECT_IMAGE1D_BUFFER: case CL_MEM_OBJECT_IMAGE1D_ARRAY:
    case CL_MEM_OBJECT_IMAGE2D: case CL_MEM_OBJECT_IMAGE2D_ARRAY: case CL_MEM_OBJECT_IMAGE3D:
      break;
    default:
      return refuse_null<cl_mem>(api, "image_desc->image_type", CL_INVALID_IMAGE_DESCRIPTOR, errcode_ret);
  }
  if (!host_ptr && (desc->image_row_pitch || desc->image_slice_pitch))
    return refuse_null<cl_mem>(api, "pitches without host_ptr", CL_INVALID_IMAGE_DESCRIPTOR, errcode_ret);
  cl_mem buffer = desc->buffer;  // cl_image_desc.mem_object in 2.0 headers
  if (desc->image_type == CL_MEM_OBJECT_IMAGE1D_BUFFER) {
    if (!live(buffer) || !is_buffer(buffer))
      return refuse_null<cl_mem>(api, "image_desc->buffer", CL_INVALID_IMAGE_DESCRIPTOR, errcode_ret);
  } else if (desc->image_type == CL_MEM_OBJECT_IMAGE2D && buffer) {
    // OpenCL 2.0+: a 2D image over a buffer (or another image); the host's device says whether it
    // can (CL_INVALID_OPERATION when it cannot, as without cl_khr_image2d_from_buffer).
    if (!live(buffer)) return refuse_null<cl_mem>(api, "image_desc->mem_object", CL_INVALID_IMAGE_DESCRIPTOR, errcode_ret);
  } else {
    buffer = nullptr;
  }
  // The host takes image data packed (pitches 0): pitched host data is checked and packed here.
  std::vector<uint8_t> packed;
  if (host_ptr && (desc->image_row_pitch || desc->image_slice_pitch)) {
    err = pack_image_data(*desc, element_size, host_ptr, &packed);
    if (err != CL_SUCCESS) return refuse_null<cl_mem>(api, "image_row_pitch / image_slice_pitch", err, errcode_ret);
  }
  const void* data_ptr = packed.empty() ? host_ptr : packed.data();
  Connection* connection = connection_for(api);
  if (!connection) return refuse_null<cl_mem>(api, "no host connection", CL_OUT_OF_RESOURCES, errcode_ret);
  proto::DataIn data;
  err = connection->data_in(data_ptr, host_ptr ? image_host_bytes(wire_desc(*desc, host_ptr), element_size) : 0,
                            &data);
  if (err != CL_SUCCESS) return refuse_null<cl_mem>(api, "host_ptr staging", err, errcode_ret);
  uint64_t id = connection->allocate_id();
  proto::Reply_clCreateImage reply;
  err = connection->call(
      api,
      [&](WireWriter& w, bool want) {
        proto::encode_clCreateImage(w, want, id, context->guest_id, wire_flags(flags), format->image_channel_order,
                                    format->image_channel_data_type, desc->image_type, desc->image_width,
                                    desc->image_height, desc->image_depth, desc->image_array_size,
                                    host_ptr ? 0 : desc->image_row_pitch, host_ptr ? 0 : desc->image_slice_pitch,
                                    desc->num_mip_levels,
                                    desc->num_samples, buffer ? buffer->guest_id : 0, data);
      },
      proto::decode_reply_clCreateImage, &reply);
  if (errcode_ret) *errcode_ret = err;
  if (err != CL_SUCCESS) return nullptr;
  cl_mem image = new_mem(context, id, desc->image_type, flags, 0, host_ptr);
  image->format = *format;
  image->desc = *desc;
  image->element_size = element_size;
  if (buffer) {
    image->parent = buffer;
    retain_internal(buffer);
  }
  return image;
}

}  // namespace

size_t image_element_size(const cl_image_format& format) {
  size_t channels = 0;
  switch (format.image_channel_order) {
    // The x orders store what their plain order stores (the x is the border's 0 / 1, not a stored
    // channel), as the CTS and the runtimes count them.
    case CL_R: case CL_A: case CL_Rx: case CL_INTENSITY: case CL_LUMINANCE: case CL_DEPTH: channels = 1; break;
    case CL_RG: case CL_RA: case CL_RGx: channels = 2; break;
    case CL_RGB: case CL_RGBx: case CL_sRGB: case CL_sRGBx: channels = 3; break;
    case CL_RGBA: case CL_BGRA: case CL_ARGB: case CL_ABGR: case CL_sRGBA: case CL_sBGRA: channels = 4; break;
    default: return 0;
  }
  switch (format.image_channel_data_type) {
    case CL_SNORM_INT8: case CL_UNORM_INT8: case CL_SIGNED_INT8: case CL_UNSIGNED_INT8: return channels;
    case CL_SNORM_INT16: case CL_UNORM_INT16: case CL_SIGNED_INT16: case CL_UNSIGNED_INT16: case CL_HALF_FLOAT:
      return channels * 2;
    case CL_SIGNED_INT32: case CL_UNSIGNED_INT32: case CL_FLOAT: return channels * 4;
    // Packed formats: one element whatever the channel count.
    case CL_UNORM_SHORT_565: case CL_UNORM_SHORT_555: return 2;
    case CL_UNORM_INT_101010: case CL_UNORM_INT_101010_2: case CL_UNORM_INT24: return 4;
    default: return 0;
  }
}

size_t image_host_bytes(const cl_image_desc& desc, size_t element_size) {
  size_t row = desc.image_row_pitch ? desc.image_row_pitch : desc.image_width * element_size;
  switch (desc.image_type) {
    case CL_MEM_OBJECT_IMAGE2D:
      return row * desc.image_height;
    case CL_MEM_OBJECT_IMAGE3D:
      return (desc.image_slice_pitch ? desc.image_slice_pitch : row * desc.image_height) * desc.image_depth;
    case CL_MEM_OBJECT_IMAGE2D_ARRAY:
      return (desc.image_slice_pitch ? desc.image_slice_pitch : row * desc.image_height) * desc.image_array_size;
    case CL_MEM_OBJECT_IMAGE1D_ARRAY:
      return (desc.image_slice_pitch ? desc.image_slice_pitch : row) * desc.image_array_size;
    default:
      return row;
  }
}

}  // namespace gsvirt::icd

using namespace gsvirt::icd;

cl_mem gsvirt_clCreateBuffer(cl_context context, cl_mem_flags flags, size_t size, void* host_ptr,
                             cl_int* errcode_ret) {
  IcdLock lock(icd_mutex());
  trace_call("clCreateBuffer");
  return create_buffer("clCreateBuffer", context, flags, size, host_ptr, errcode_ret);
}

cl_mem gsvirt_clCreateBufferWithProperties(cl_context context, const cl_mem_properties* properties,
                                           cl_mem_flags flags, size_t size, void* host_ptr, cl_int* errcode_ret) {
  IcdLock lock(icd_mutex());
  const char* api = "clCreateBufferWithProperties";
  trace_call(api);
  if (properties && properties[0] != 0) return refuse_null<cl_mem>(api, "properties", CL_INVALID_PROPERTY, errcode_ret);
  cl_mem mem = create_buffer(api, context, flags, size, host_ptr, errcode_ret);
  if (mem && properties) mem->properties = {0};
  return mem;
}

cl_mem gsvirt_clCreateSubBuffer(cl_mem buffer, cl_mem_flags flags, cl_buffer_create_type create_type,
                                const void* create_info, cl_int* errcode_ret) {
  IcdLock lock(icd_mutex());
  const char* api = "clCreateSubBuffer";
  trace_call(api);
  if (!live(buffer) || !is_buffer(buffer) || buffer->parent)
    return refuse_null<cl_mem>(api, "buffer is not a buffer (or is a sub-buffer)", CL_INVALID_MEM_OBJECT, errcode_ret);
  if (create_type != CL_BUFFER_CREATE_TYPE_REGION) return refuse_null<cl_mem>(api, "buffer_create_type", CL_INVALID_VALUE, errcode_ret);
  if (!create_info) return refuse_null<cl_mem>(api, "buffer_create_info is NULL", CL_INVALID_VALUE, errcode_ret);
  if (flags & (kHostPtrFlags | ~(kAccessFlags | kHostAccessFlags | kHostPtrFlags)))
    return refuse_null<cl_mem>(api, "flags", CL_INVALID_VALUE, errcode_ret);
  if (!at_most_one(flags, kAccessFlags) || !at_most_one(flags, kHostAccessFlags))
    return refuse_null<cl_mem>(api, "conflicting access flags", CL_INVALID_VALUE, errcode_ret);
  cl_mem_flags parent_access = buffer->flags & kAccessFlags;
  if (((parent_access & CL_MEM_WRITE_ONLY) && (flags & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY))) ||
      ((parent_access & CL_MEM_READ_ONLY) && (flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY))))
    return refuse_null<cl_mem>(api, "flags widen the parent's access", CL_INVALID_VALUE, errcode_ret);
  auto region = *static_cast<const cl_buffer_region*>(create_info);
  if (region.size == 0) return refuse_null<cl_mem>(api, "region size is 0", CL_INVALID_BUFFER_SIZE, errcode_ret);
  if (region.origin > buffer->size || region.size > buffer->size - region.origin)
    return refuse_null<cl_mem>(api, "region lies outside the buffer", CL_INVALID_VALUE, errcode_ret);
  Connection* connection = connection_for(api);
  if (!connection) return refuse_null<cl_mem>(api, "no host connection", CL_OUT_OF_RESOURCES, errcode_ret);
  uint64_t id = connection->allocate_id();
  proto::Reply_clCreateSubBuffer reply;
  cl_int err = connection->call(
      api,
      [&](WireWriter& w, bool want) {
        proto::encode_clCreateSubBuffer(w, want, id, buffer->guest_id, flags, create_type, region.origin, region.size);
      },
      proto::decode_reply_clCreateSubBuffer, &reply);
  if (errcode_ret) *errcode_ret = err;
  if (err != CL_SUCCESS) return nullptr;
  // Unspecified access and host-pointer flags are inherited from the parent.
  cl_mem_flags effective = flags;
  if (!(flags & kAccessFlags)) effective |= parent_access;
  if (!(flags & kHostAccessFlags)) effective |= buffer->flags & kHostAccessFlags;
  effective |= buffer->flags & kHostPtrFlags;
  cl_mem sub = new_mem(buffer->context, id, CL_MEM_OBJECT_BUFFER, effective, region.size, nullptr);
  if (buffer->host_ptr) sub->host_ptr = static_cast<uint8_t*>(buffer->host_ptr) + region.origin;
  sub->parent = buffer;
  sub->origin = region.origin;
  retain_internal(buffer);
  return sub;
}

cl_mem gsvirt_clCreateImage(cl_context context, cl_mem_flags flags, const cl_image_format* image_format,
                            const cl_image_desc* image_desc, void* host_ptr, cl_int* errcode_ret) {
  IcdLock lock(icd_mutex());
  trace_call("clCreateImage");
  return create_image("clCreateImage", context, flags, image_format, image_desc, host_ptr, errcode_ret);
}

cl_mem gsvirt_clCreateImageWithProperties(cl_context context, const cl_mem_properties* properties, cl_mem_flags flags,
                                          const cl_image_format* image_format, const cl_image_desc* image_desc,
                                          void* host_ptr, cl_int* errcode_ret) {
  IcdLock lock(icd_mutex());
  const char* api = "clCreateImageWithProperties";
  trace_call(api);
  if (properties && properties[0] != 0) return refuse_null<cl_mem>(api, "properties", CL_INVALID_PROPERTY, errcode_ret);
  cl_mem mem = create_image(api, context, flags, image_format, image_desc, host_ptr, errcode_ret);
  if (mem && properties) mem->properties = {0};
  return mem;
}

cl_mem gsvirt_clCreateImage2D(cl_context context, cl_mem_flags flags, const cl_image_format* image_format,
                              size_t image_width, size_t image_height, size_t image_row_pitch, void* host_ptr,
                              cl_int* errcode_ret) {
  IcdLock lock(icd_mutex());
  trace_call("clCreateImage2D");
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = image_width;
  desc.image_height = image_height;
  desc.image_row_pitch = image_row_pitch;
  return create_image("clCreateImage2D", context, flags, image_format, &desc, host_ptr, errcode_ret);
}

cl_mem gsvirt_clCreateImage3D(cl_context context, cl_mem_flags flags, const cl_image_format* image_format,
                              size_t image_width, size_t image_height, size_t image_depth, size_t image_row_pitch,
                              size_t image_slice_pitch, void* host_ptr, cl_int* errcode_ret) {
  IcdLock lock(icd_mutex());
  trace_call("clCreateImage3D");
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE3D;
  desc.image_width = image_width;
  desc.image_height = image_height;
  desc.image_depth = image_depth;
  desc.image_row_pitch = image_row_pitch;
  desc.image_slice_pitch = image_slice_pitch;
  return create_image("clCreateImage3D", context, flags, image_format, &desc, host_ptr, errcode_ret);
}

cl_int gsvirt_clRetainMemObject(cl_mem memobj) {
  IcdLock lock(icd_mutex());
  trace_call("clRetainMemObject");
  if (!live(memobj)) return refuse("clRetainMemObject", "memobj", CL_INVALID_MEM_OBJECT);
  retain_app(memobj);
  return CL_SUCCESS;
}

cl_int gsvirt_clReleaseMemObject(cl_mem memobj) {
  IcdLock lock(icd_mutex());
  trace_call("clReleaseMemObject");
  if (!live(memobj)) return refuse("clReleaseMemObject", "memobj", CL_INVALID_MEM_OBJECT);
  return release_app(memobj);
}

cl_int gsvirt_clGetSupportedImageFormats(cl_context context, cl_mem_flags flags, cl_mem_object_type image_type,
                                         cl_uint num_entries, cl_image_format* image_formats,
                                         cl_uint* num_image_formats) {
  IcdLock lock(icd_mutex());
  const char* api = "clGetSupportedImageFormats";
  trace_call(api);
  if (!live(context)) return refuse(api, "context", CL_INVALID_CONTEXT);
  if (num_entries == 0 && image_formats) return refuse(api, "num_entries is 0", CL_INVALID_VALUE);
  Connection* connection = connection_for(api);
  if (!connection) return CL_OUT_OF_RESOURCES;
  uint64_t capacity = image_formats ? uint64_t(num_entries) * 2 : 0;
  proto::Reply_clGetSupportedImageFormats reply;
  cl_int err = connection->call(
      api,
      [&](WireWriter& w, bool want) {
        proto::encode_clGetSupportedImageFormats(w, want, context->guest_id, flags, image_type, capacity);
      },
      proto::decode_reply_clGetSupportedImageFormats, &reply);
  if (err != CL_SUCCESS) return err;
  if (image_formats)
    for (size_t i = 0; i + 1 < reply.formats.size() && i / 2 < num_entries; i += 2)
      image_formats[i / 2] = {reply.formats[i], reply.formats[i + 1]};
  if (num_image_formats) *num_image_formats = reply.num_image_formats;
  return CL_SUCCESS;
}

cl_int gsvirt_clGetMemObjectInfo(cl_mem memobj, cl_mem_info param_name, size_t param_value_size, void* param_value,
                                 size_t* param_value_size_ret) {
  IcdLock lock(icd_mutex());
  const char* api = "clGetMemObjectInfo";
  trace_call(api);
  if (!live(memobj)) return refuse(api, "memobj", CL_INVALID_MEM_OBJECT);
  auto value = [&](const auto& v) { return put_value(v, param_value_size, param_value, param_value_size_ret); };
  switch (param_name) {
    case CL_MEM_TYPE: return value(memobj->type);
    case CL_MEM_FLAGS: return value(memobj->flags);
    case CL_MEM_HOST_PTR: return value(memobj->host_ptr);
    case CL_MEM_MAP_COUNT: return value(cl_uint(memobj->mappings.size()));
    case CL_MEM_REFERENCE_COUNT: return value(cl_uint(memobj->app_refs()));
    case CL_MEM_CONTEXT: return value(memobj->context);
    case CL_MEM_ASSOCIATED_MEMOBJECT: return value(memobj->parent);
    case CL_MEM_OFFSET: return value(memobj->origin);
    case CL_MEM_USES_SVM_POINTER: return value(cl_bool(CL_FALSE));
    case CL_MEM_PROPERTIES: return put_array(memobj->properties, param_value_size, param_value, param_value_size_ret);
    case CL_MEM_SIZE:
      if (is_buffer(memobj)) return value(memobj->size);
      [[fallthrough]];  // images: the host knows its allocation
    default:
      return forward_info(
          api, param_value_size, param_value, param_value_size_ret,
          [&](WireWriter& w, bool want, const proto::DataOut& out) {
            proto::encode_clGetMemObjectInfo(w, want, memobj->guest_id, param_name, out);
          },
          proto::decode_reply_clGetMemObjectInfo);
  }
}

cl_int gsvirt_clGetPipeInfo(cl_mem pipe, cl_pipe_info, size_t, void*, size_t*) {
  IcdLock lock(icd_mutex());
  trace_call("clGetPipeInfo");
  // clCreatePipe is refused (no pipe support through the protocol), so no object is a pipe.
  (void)pipe;
  return refuse("clGetPipeInfo", "pipe is not a pipe object", CL_INVALID_MEM_OBJECT);
}

cl_int gsvirt_clGetImageInfo(cl_mem image, cl_image_info param_name, size_t param_value_size, void* param_value,
                             size_t* param_value_size_ret) {
  IcdLock lock(icd_mutex());
  const char* api = "clGetImageInfo";
  trace_call(api);
  if (!live(image) || !is_image(image)) return refuse(api, "image", CL_INVALID_MEM_OBJECT);
  auto value = [&](const auto& v) { return put_value(v, param_value_size, param_value, param_value_size_ret); };
  switch (param_name) {
    case CL_IMAGE_FORMAT: return value(image->format);
    case CL_IMAGE_ELEMENT_SIZE: return value(image->element_size);
    case CL_IMAGE_BUFFER: return value(image->parent);
    case CL_IMAGE_NUM_MIP_LEVELS: return value(image->desc.num_mip_levels);
    case CL_IMAGE_NUM_SAMPLES: return value(image->desc.num_samples);
    default:
      return forward_info(
          api, param_value_size, param_value, param_value_size_ret,
          [&](WireWriter& w, bool want, const proto::DataOut& out) {
            proto::encode_clGetImageInfo(w, want, image->guest_id, param_name, out);
          },
          proto::decode_reply_clGetImageInfo);
  }
}

cl_int gsvirt_clSetMemObjectDestructorCallback(cl_mem memobj, void(CL_CALLBACK* pfn_notify)(cl_mem, void*),
                                               void* user_data) {
  IcdLock lock(icd_mutex());
  const char* api = "clSetMemObjectDestructorCallback";
  trace_call(api);
  if (!live(memobj)) return refuse(api, "memobj", CL_INVALID_MEM_OBJECT);
  if (!pfn_notify) return refuse(api, "pfn_notify is NULL", CL_INVALID_VALUE);
  memobj->destructor_callbacks.push_back({pfn_notify, user_data});
  return CL_SUCCESS;
}
