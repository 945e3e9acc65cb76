// Image objects: clCreateImage (and its OpenCL 1.x and 3.0 forms), clGetImageInfo and
// clGetSupportedImageFormats. An image is a memory object whose pixels lie linearly in device
// memory (ImageLayout): in a zero-filled buffer object of its own, or in the bytes of the buffer
// (a 1D image buffer, a 2D image from a buffer) or 2D image it was made from. Every size, pitch and
// count from the application is checked with overflow-safe arithmetic before anything is placed.
#include "gsgpu/cl/image.h"

#include "common/checked_math.h"
#include "gsgpu/cl/device_info.h"
#include "gsgpu/cl/image_format.h"
#include "gsgpu/cl/memory.h"

namespace gsgpu::cl {
namespace {

bool is_image_type(cl_mem_object_type type) {
  switch (type) {
    case CL_MEM_OBJECT_IMAGE1D:
    case CL_MEM_OBJECT_IMAGE1D_BUFFER:
    case CL_MEM_OBJECT_IMAGE1D_ARRAY:
    case CL_MEM_OBJECT_IMAGE2D:
    case CL_MEM_OBJECT_IMAGE2D_ARRAY:
    case CL_MEM_OBJECT_IMAGE3D: return true;
    default: return false;
  }
}

// A dimension of the descriptor: 0 is not a valid image (CL_INVALID_IMAGE_DESCRIPTOR), more than
// the device's limit too large (CL_INVALID_IMAGE_SIZE).
cl_int check_extent(size_t v, size_t max) {
  if (v == 0) return CL_INVALID_IMAGE_DESCRIPTOR;
  return v > max ? CL_INVALID_IMAGE_SIZE : CL_SUCCESS;
}

// The image's shape from its descriptor, checked against the device's limits.
cl_int shape_of(const Runtime* rt, const cl_image_desc& d, ImageLayout* l) {
  l->type = d.image_type;
  cl_int err = CL_SUCCESS;
  const auto check = [&err](size_t v, size_t max) {
    if (err == CL_SUCCESS) err = check_extent(v, max);
    return v;
  };
  switch (d.image_type) {
    case CL_MEM_OBJECT_IMAGE1D: l->width = check(d.image_width, kImage2DMaxSize); break;
    case CL_MEM_OBJECT_IMAGE1D_BUFFER: l->width = check(d.image_width, image_max_buffer_pixels(rt)); break;
    case CL_MEM_OBJECT_IMAGE1D_ARRAY:
      l->width = check(d.image_width, kImage2DMaxSize);
      l->rows = l->array_size = check(d.image_array_size, kImageMaxArraySize);
      break;
    case CL_MEM_OBJECT_IMAGE2D:
      l->width = check(d.image_width, kImage2DMaxSize);
      l->rows = l->height = check(d.image_height, kImage2DMaxSize);
      break;
    case CL_MEM_OBJECT_IMAGE2D_ARRAY:
      l->width = check(d.image_width, kImage2DMaxSize);
      l->rows = l->height = check(d.image_height, kImage2DMaxSize);
      l->slices = l->array_size = check(d.image_array_size, kImageMaxArraySize);
      break;
    case CL_MEM_OBJECT_IMAGE3D:
      l->width = check(d.image_width, kImage3DMaxSize);
      l->rows = l->height = check(d.image_height, kImage3DMaxSize);
      l->slices = l->depth = check(d.image_depth, kImage3DMaxSize);
      break;
    default: return CL_INVALID_IMAGE_DESCRIPTOR;
  }
  // Mip-mapped and multi-sampled images are extensions the device does not have.
  if (err == CL_SUCCESS && (d.num_mip_levels != 0 || d.num_samples != 0)) err = CL_INVALID_IMAGE_DESCRIPTOR;
  return err;
}

// Row and slice pitch of a layout whose rows are `row` bytes apart (the spec: a 1D array's slice
// pitch is its row pitch; 1D and 2D images have none), and its size in bytes.
cl_int place_rows(ImageLayout* l, size_t row, uint64_t* bytes) {
  l->row_pitch = row;
  auto slice = checked_mul<uint64_t>(row, l->rows);
  auto total = slice ? checked_mul<uint64_t>(*slice, l->slices) : slice;
  if (!total || *total > SIZE_MAX) return CL_INVALID_IMAGE_SIZE;
  switch (l->type) {
    case CL_MEM_OBJECT_IMAGE1D_ARRAY: l->slice_pitch = row; break;
    case CL_MEM_OBJECT_IMAGE2D_ARRAY:
    case CL_MEM_OBJECT_IMAGE3D: l->slice_pitch = size_t(*slice); break;
    default: l->slice_pitch = 0; break;
  }
  // The texture unit's descriptor holds each pitch in 32 bits.
  if (row > UINT32_MAX || l->slice_pitch > UINT32_MAX) return CL_INVALID_IMAGE_SIZE;
  *bytes = *total;
  return CL_SUCCESS;
}

// The pitches of host_ptr's data: 0 means packed; a given row pitch holds a row and is a whole
// number of pixels, a given slice pitch holds a slice and is a whole number of rows.
cl_int host_pitches(const ImageLayout& l, const cl_image_desc& d, size_t* row, size_t* slice) {
  const uint64_t packed_row = uint64_t(l.width) * l.pixel_bytes;  // checked by place_rows before
  *row = d.image_row_pitch ? d.image_row_pitch : size_t(packed_row);
  if (*row < packed_row || *row % l.pixel_bytes) return CL_INVALID_IMAGE_DESCRIPTOR;
  const bool layered = l.type == CL_MEM_OBJECT_IMAGE1D_ARRAY || l.type == CL_MEM_OBJECT_IMAGE2D_ARRAY ||
                       l.type == CL_MEM_OBJECT_IMAGE3D;
  if (!layered) {
    *slice = 0;
    return CL_SUCCESS;
  }
  const size_t rows_per_slice = l.type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? 1 : l.height;
  auto packed_slice = checked_mul<uint64_t>(*row, rows_per_slice);
  if (!packed_slice || *packed_slice > SIZE_MAX) return CL_INVALID_IMAGE_DESCRIPTOR;
  *slice = d.image_slice_pitch ? d.image_slice_pitch : size_t(*packed_slice);
  if (*slice < *packed_slice || *slice % *row) return CL_INVALID_IMAGE_DESCRIPTOR;
  return CL_SUCCESS;
}

// Copies host_ptr's pixels, at the application's pitches, into the image's packed layout.
cl_int copy_host_pixels(const ImageLayout& l, size_t host_row, size_t host_slice, const void* host_ptr,
                        uint8_t* dst) {
  const size_t region[3] = {l.width * l.pixel_bytes, l.rows, l.slices};
  // A 1D array's layers are its rows: the application separates them by its slice pitch.
  Rect src{l.type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? host_slice : host_row, host_slice, 0};
  // Every byte the copy reads has an address (the application vouches for the memory itself).
  auto slices = checked_mul<uint64_t>(region[2] - 1, src.slice);
  auto rows = checked_mul<uint64_t>(region[1] - 1, src.row);
  auto end = slices && rows ? checked_add<uint64_t>(*slices, *rows) : std::nullopt;
  end = end ? checked_add<uint64_t>(*end, region[0]) : end;
  if (!end || *end > SIZE_MAX - reinterpret_cast<uintptr_t>(host_ptr)) return CL_INVALID_IMAGE_DESCRIPTOR;
  const Rect packed{l.row_pitch, l.slice_pitch ? l.slice_pitch : l.row_pitch * l.rows, 0};
  copy_rect(dst, packed, static_cast<const uint8_t*>(host_ptr), src, region);
  return CL_SUCCESS;
}

// Channel orders a 2D image made from another 2D image may take: its own, or the other member of
// one of the spec's pairs (the same bytes read with or without sRGB, or depth as red).
bool orders_compatible(cl_channel_order a, cl_channel_order b) {
  if (a == b) return true;
  const cl_channel_order pairs[][2] = {{CL_BGRA, CL_sBGRA}, {CL_RGBA, CL_sRGBA}, {CL_RGB, CL_sRGB},
                                       {CL_RGBx, CL_sRGBx}, {CL_R, CL_DEPTH}};
  for (const auto& p : pairs)
    if ((a == p[0] && b == p[1]) || (a == p[1] && b == p[0])) return true;
  return false;
}

// An image over another memory object: a 1D image buffer or 2D image over a buffer, or a 2D image
// over a 2D image. Its layout follows the object's bytes, which must hold it.
cl_int layout_over(const Mem* parent, const cl_image_desc& d, ImageLayout* l, uint64_t* bytes) {
  if (parent->is_image()) {
    const ImageLayout& p = *parent->image;
    if (l->type != CL_MEM_OBJECT_IMAGE2D || p.type != CL_MEM_OBJECT_IMAGE2D || d.image_row_pitch ||
        l->width != p.width || l->height != p.height)
      return CL_INVALID_IMAGE_DESCRIPTOR;
    if (l->format.image_channel_data_type != p.format.image_channel_data_type ||
        !orders_compatible(l->format.image_channel_order, p.format.image_channel_order))
      return CL_INVALID_IMAGE_FORMAT_DESCRIPTOR;
    return place_rows(l, p.row_pitch, bytes);
  }
  size_t row = size_t(uint64_t(l->width) * l->pixel_bytes);  // fits: width is within the device's limits
  if (l->type == CL_MEM_OBJECT_IMAGE2D && d.image_row_pitch) {
    // The spec's rule for a 2D image from a buffer: a whole number of aligned rows.
    if (d.image_row_pitch < row || d.image_row_pitch % (size_t(kImagePitchAlignment) * l->pixel_bytes))
      return CL_INVALID_IMAGE_FORMAT_DESCRIPTOR;
    row = d.image_row_pitch;
  } else if (d.image_row_pitch || d.image_slice_pitch) {
    return CL_INVALID_IMAGE_DESCRIPTOR;
  }
  cl_int err = place_rows(l, row, bytes);
  if (err == CL_SUCCESS && *bytes > parent->size) err = CL_INVALID_IMAGE_SIZE;
  return err;
}

// The object desc->mem_object names, for the image types that take one: a live buffer or image of
// the context (1D image buffers: a buffer, required). nullptr with CL_SUCCESS when there is none.
cl_int parent_of(const Context* c, const cl_image_desc& d, Mem** parent) {
  *parent = nullptr;
  const bool takes = d.image_type == CL_MEM_OBJECT_IMAGE1D_BUFFER || d.image_type == CL_MEM_OBJECT_IMAGE2D;
  if (!d.mem_object) return d.image_type == CL_MEM_OBJECT_IMAGE1D_BUFFER ? CL_INVALID_IMAGE_DESCRIPTOR : CL_SUCCESS;
  auto* m = as<Mem>(d.mem_object, Kind::kMem);
  if (!takes || !m || m->context != c) return CL_INVALID_IMAGE_DESCRIPTOR;
  if (d.image_type == CL_MEM_OBJECT_IMAGE1D_BUFFER && m->is_image()) return CL_INVALID_IMAGE_DESCRIPTOR;
  *parent = m;
  return CL_SUCCESS;
}

Mem* new_image_over(Mem* parent, cl_mem_flags flags, uint64_t bytes) {
  auto* m = make_object<Mem>(parent->rt, Kind::kMem);
  m->context = parent->context;
  retain_internal(parent);
  m->parent = parent;
  m->flags = flags;
  m->size = size_t(bytes);
  m->origin = parent->origin;
  m->va = parent->va;
  m->host_ptr = parent->host_ptr;
  return m;
}

// The checks and the layout of a new image, then the object. Called with the runtime mutex held.
Mem* create_image(Context* c, const char* entry, cl_mem_flags flags, const cl_image_format* format,
                  const cl_image_desc* desc, void* host_ptr, cl_int* err) {
  Runtime* rt = c->rt;
  if (!rt->config().image_support) {
    *err = CL_INVALID_OPERATION;
    log_once(entry, "images are not supported (CL_DEVICE_IMAGE_SUPPORT is false)");
    return nullptr;
  }
  Mem* parent = nullptr;
  *err = desc && desc->mem_object ? CL_SUCCESS : check_mem_flags(flags, host_ptr);
  auto layout = std::make_unique<ImageLayout>();
  if (*err == CL_SUCCESS && (!format || !(layout->pixel_bytes = image_pixel_bytes(*format))))
    *err = CL_INVALID_IMAGE_FORMAT_DESCRIPTOR;
  if (*err == CL_SUCCESS && !desc) *err = CL_INVALID_IMAGE_DESCRIPTOR;
  if (*err == CL_SUCCESS) *err = parent_of(c, *desc, &parent);
  if (*err == CL_SUCCESS && parent) {
    // Flags of an image over another object: the parent's rules, and no host memory of its own.
    *err = check_mem_flags(flags & ~kHostPtrFlags, nullptr);
    if (*err == CL_SUCCESS) *err = derived_mem_flags(parent, flags, &flags);
    if (*err == CL_SUCCESS && host_ptr) *err = CL_INVALID_HOST_PTR;
  }
  if (*err != CL_SUCCESS) return nullptr;
  layout->format = *format;
  *err = shape_of(rt, *desc, layout.get());
  uint64_t bytes = 0;
  size_t host_row = 0, host_slice = 0;
  if (*err == CL_SUCCESS && parent) {
    *err = layout_over(parent, *desc, layout.get(), &bytes);
  } else if (*err == CL_SUCCESS) {
    *err = place_rows(layout.get(), size_t(uint64_t(layout->width) * layout->pixel_bytes), &bytes);
    if (*err == CL_SUCCESS && host_ptr) *err = host_pitches(*layout, *desc, &host_row, &host_slice);
    // Pitches describe host_ptr's data: without it there is nothing they could describe.
    if (*err == CL_SUCCESS && !host_ptr && (desc->image_row_pitch || desc->image_slice_pitch))
      *err = CL_INVALID_IMAGE_DESCRIPTOR;
  }
  if (*err == CL_SUCCESS && bytes > rt->max_alloc()) *err = CL_INVALID_IMAGE_SIZE;
  if (*err == CL_SUCCESS && !image_format_supported(*format)) *err = CL_IMAGE_FORMAT_NOT_SUPPORTED;
  if (*err != CL_SUCCESS) return nullptr;
  Mem* m = nullptr;
  if (parent) {
    m = new_image_over(parent, flags, bytes);
  } else {
    m = new_root_mem(c, entry, flags, size_t(bytes), nullptr, err);
    if (!m) return nullptr;
    m->host_ptr = (flags & CL_MEM_USE_HOST_PTR) ? host_ptr : nullptr;
    if (host_ptr && (*err = copy_host_pixels(*layout, host_row, host_slice, host_ptr, m->bytes())) != CL_SUCCESS) {
      release_app(m);
      return nullptr;
    }
  }
  m->image = std::move(layout);
  *err = CL_SUCCESS;
  return m;
}

cl_mem create_image_entry(const char* entry, cl_context context, cl_mem_flags flags, const cl_image_format* format,
                          const cl_image_desc* desc, void* host_ptr, cl_int* errcode_ret) {
  auto* c = as<Context>(context, Kind::kContext);
  if (!c) {
    set_error(errcode_ret, CL_INVALID_CONTEXT);
    return nullptr;
  }
  std::lock_guard lock(c->rt->mutex);
  cl_int err = CL_SUCCESS;
  Mem* m = create_image(c, entry, flags, format, desc, host_ptr, &err);
  set_error(errcode_ret, err);
  return handle_of<cl_mem>(m);
}

// clCreateImage2D / 3D (OpenCL 1.1): their descriptor errors are all sizes (CL_INVALID_IMAGE_SIZE).
cl_mem create_image_1x(const char* entry, cl_context context, cl_mem_flags flags, const cl_image_format* format,
                       const cl_image_desc& desc, void* host_ptr, cl_int* errcode_ret) {
  cl_int err = CL_SUCCESS;
  cl_mem m = create_image_entry(entry, context, flags, format, &desc, host_ptr, &err);
  set_error(errcode_ret, err == CL_INVALID_IMAGE_DESCRIPTOR ? CL_INVALID_IMAGE_SIZE : err);
  return m;
}

}  // namespace

size_t image_max_buffer_pixels(const Runtime* rt) {
  // As many of the largest pixels (16 bytes) as one allocation holds, and at least the spec's 65536.
  return std::max<size_t>(65536, size_t(rt->max_alloc() / 16));
}

cl_mem CL_API_CALL gsgpu_clCreateImage(cl_context context, cl_mem_flags flags, const cl_image_format* format,
                                       const cl_image_desc* desc, void* host_ptr, cl_int* errcode_ret) {
  return create_image_entry("clCreateImage", context, flags, format, desc, host_ptr, errcode_ret);
}

cl_mem CL_API_CALL gsgpu_clCreateImageWithProperties(cl_context context, const cl_mem_properties* props,
                                                     cl_mem_flags flags, const cl_image_format* format,
                                                     const cl_image_desc* desc, void* host_ptr,
                                                     cl_int* errcode_ret) {
  if (props && props[0] != 0) {
    set_error(errcode_ret, as<Context>(context, Kind::kContext) ? CL_INVALID_PROPERTY : CL_INVALID_CONTEXT);
    return nullptr;  // OpenCL 3.0 defines no image property
  }
  cl_mem mem = create_image_entry("clCreateImageWithProperties", context, flags, format, desc, host_ptr, errcode_ret);
  if (mem && props) as<Mem>(mem, Kind::kMem)->properties = {0};  // CL_MEM_PROPERTIES: the list as given
  return mem;
}

cl_mem CL_API_CALL gsgpu_clCreateImage2D(cl_context context, cl_mem_flags flags, const cl_image_format* format,
                                         size_t width, size_t height, size_t row_pitch, void* host_ptr,
                                         cl_int* errcode_ret) {
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = width;
  desc.image_height = height;
  desc.image_row_pitch = row_pitch;
  return create_image_1x("clCreateImage2D", context, flags, format, desc, host_ptr, errcode_ret);
}

cl_mem CL_API_CALL gsgpu_clCreateImage3D(cl_context context, cl_mem_flags flags, const cl_image_format* format,
                                         size_t width, size_t height, size_t depth, size_t row_pitch,
                                         size_t slice_pitch, void* host_ptr, cl_int* errcode_ret) {
  // OpenCL 1.1: a 3D image has more than one slice.
  if (depth <= 1 && as<Context>(context, Kind::kContext)) {
    set_error(errcode_ret, CL_INVALID_IMAGE_SIZE);
    return nullptr;
  }
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE3D;
  desc.image_width = width;
  desc.image_height = height;
  desc.image_depth = depth;
  desc.image_row_pitch = row_pitch;
  desc.image_slice_pitch = slice_pitch;
  return create_image_1x("clCreateImage3D", context, flags, format, desc, host_ptr, errcode_ret);
}

cl_int CL_API_CALL gsgpu_clGetSupportedImageFormats(cl_context context, cl_mem_flags flags, cl_mem_object_type type,
                                                    cl_uint num_entries, cl_image_format* formats, cl_uint* count) {
  auto* c = as<Context>(context, Kind::kContext);
  if (!c) return CL_INVALID_CONTEXT;
  constexpr cl_mem_flags kKnown = kAccessFlags | kHostPtrFlags | kHostAccessFlags | CL_MEM_KERNEL_READ_AND_WRITE;
  if ((flags & ~kKnown) || !is_image_type(type) || (num_entries == 0 && formats)) return CL_INVALID_VALUE;
  // None without image support; none for 3D images a kernel may write unless the device reports
  // cl_khr_3d_image_writes (the CTS's consistency_3d_image_writes). Images a kernel both reads and
  // writes (CL_MEM_KERNEL_READ_AND_WRITE, read_write arguments) take every format: the texture unit
  // loads and stores each of them.
  static const std::vector<cl_image_format> kNone;
  const bool kernel_may_write = !(flags & CL_MEM_READ_ONLY);
  const bool any = c->rt->config().image_support &&
                   !(type == CL_MEM_OBJECT_IMAGE3D && kernel_may_write && !device_has_3d_image_writes(c->rt));
  const std::vector<cl_image_format>& list = any ? supported_image_formats() : kNone;
  if (count) *count = cl_uint(list.size());
  for (size_t i = 0; formats && i < list.size() && i < num_entries; ++i) formats[i] = list[i];
  return CL_SUCCESS;
}

cl_int CL_API_CALL gsgpu_clGetImageInfo(cl_mem image, cl_image_info param, size_t size, void* value, size_t* ret) {
  auto* m = as<Mem>(image, Kind::kMem);
  if (!m || !m->is_image()) return CL_INVALID_MEM_OBJECT;
  const ImageLayout& l = *m->image;
  switch (param) {
    case CL_IMAGE_FORMAT: return put_value(l.format, size, value, ret);
    case CL_IMAGE_ELEMENT_SIZE: return put_value(size_t(l.pixel_bytes), size, value, ret);
    case CL_IMAGE_ROW_PITCH: return put_value(l.row_pitch, size, value, ret);
    case CL_IMAGE_SLICE_PITCH: return put_value(l.slice_pitch, size, value, ret);
    case CL_IMAGE_WIDTH: return put_value(l.width, size, value, ret);
    case CL_IMAGE_HEIGHT: return put_value(l.height, size, value, ret);
    case CL_IMAGE_DEPTH: return put_value(l.depth, size, value, ret);
    case CL_IMAGE_ARRAY_SIZE: return put_value(l.array_size, size, value, ret);
    case CL_IMAGE_BUFFER: {
      Mem* buffer = m->parent && !m->parent->is_image() ? m->parent : nullptr;
      return put_value(handle_of<cl_mem>(buffer), size, value, ret);
    }
    case CL_IMAGE_NUM_MIP_LEVELS:
    case CL_IMAGE_NUM_SAMPLES: return put_value(cl_uint(0), size, value, ret);
  }
  return CL_INVALID_VALUE;
}

}  // namespace gsgpu::cl
