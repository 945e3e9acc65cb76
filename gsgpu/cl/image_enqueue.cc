// Image transfers: read, write, copy (image to image, to and from buffers), fill and map. They are
// host-side commands like the buffer transfers (host_command.h): the pixels are reached through the
// CPU mapping of the image's buffer object, so they are ordered with kernels by the queue. Every
// origin, region and pitch is checked for its image type with overflow-safe arithmetic first.
#include "common/checked_math.h"
#include "gsgpu/cl/image.h"
#include "gsgpu/cl/image_format.h"

namespace gsgpu::cl {

cl_int image_box(const ImageLayout& image, const size_t* origin, const size_t* region, ImageBox* box) {
  if (!origin || !region) return CL_INVALID_VALUE;
  // Rows and slices of the layout (ImageLayout): 1 where the type has none, so a 1D image's
  // origin[1] and origin[2] must be 0 and its region[1] and region[2] 1, as the spec says.
  const size_t limits[3] = {image.width, image.rows, image.slices};
  for (int d = 0; d < 3; ++d)
    if (region[d] == 0 || !range_within(origin[d], region[d], limits[d])) return CL_INVALID_VALUE;
  // Within the image, so within its (checked) size: nothing below overflows.
  box->bytes[0] = region[0] * image.pixel_bytes;
  box->bytes[1] = region[1];
  box->bytes[2] = region[2];
  box->rect.row = image.row_pitch;
  box->rect.slice = image.slice_pitch ? image.slice_pitch : image.row_pitch * image.rows;
  box->rect.base = uint64_t(origin[0]) * image.pixel_bytes + uint64_t(origin[1]) * image.row_pitch +
                   uint64_t(origin[2]) * box->rect.slice;
  return CL_SUCCESS;
}

cl_int host_box(const ImageLayout& image, const ImageBox& box, size_t row_pitch, size_t slice_pitch, uint64_t base,
                uint64_t limit, Rect* rect) {
  const bool layered = image.type == CL_MEM_OBJECT_IMAGE1D_ARRAY || image.type == CL_MEM_OBJECT_IMAGE2D_ARRAY ||
                       image.type == CL_MEM_OBJECT_IMAGE3D;
  // The spec: 1D and 2D images have no slices, so no slice pitch.
  if (!layered && slice_pitch) return CL_INVALID_VALUE;
  const size_t row = row_pitch ? row_pitch : box.bytes[0];
  if (row < box.bytes[0]) return CL_INVALID_VALUE;
  const bool array_1d = image.type == CL_MEM_OBJECT_IMAGE1D_ARRAY;
  // A 1D array's slices are its layers, one row each; others' slices hold box.bytes[1] rows.
  auto packed_slice = checked_mul<uint64_t>(row, array_1d ? 1 : box.bytes[1]);
  if (!packed_slice || *packed_slice > SIZE_MAX) return CL_INVALID_VALUE;
  const size_t slice = slice_pitch ? slice_pitch : size_t(*packed_slice);
  if (slice < *packed_slice) return CL_INVALID_VALUE;
  // In the box, a 1D array's layers are rows.
  rect->row = array_1d ? slice : row;
  rect->slice = array_1d ? slice * box.bytes[1] : slice;  // unused (one slice); no overflow past the check below
  rect->base = base;
  auto slices = checked_mul<uint64_t>(box.bytes[2] - 1, rect->slice);
  auto rows = checked_mul<uint64_t>(box.bytes[1] - 1, rect->row);
  auto extent = slices && rows ? checked_add<uint64_t>(*slices, *rows) : std::nullopt;
  extent = extent ? checked_add<uint64_t>(*extent, box.bytes[0]) : extent;
  if (!extent || !range_within(base, *extent, limit)) return CL_INVALID_VALUE;
  return CL_SUCCESS;
}

namespace {

bool is_layered(cl_mem_object_type type) {
  return type == CL_MEM_OBJECT_IMAGE1D_ARRAY || type == CL_MEM_OBJECT_IMAGE2D_ARRAY || type == CL_MEM_OBJECT_IMAGE3D;
}

cl_int read_write_image(cl_command_queue queue, cl_mem image, bool blocking, const size_t* origin,
                        const size_t* region, size_t row_pitch, size_t slice_pitch, void* host, bool read, cl_uint n,
                        const cl_event* waits, cl_event* event) {
  HostCommand cmd(queue);
  if (cmd.error() != CL_SUCCESS) return cmd.error();
  Mem* m = nullptr;
  if (cl_int err = cmd.image(image, &m); err != CL_SUCCESS) return err;
  if (!host) return CL_INVALID_VALUE;
  ImageBox box;
  Rect h;
  cl_int err = image_box(*m->image, origin, region, &box);
  if (err == CL_SUCCESS) err = host_box(*m->image, box, row_pitch, slice_pitch, 0, UINT64_MAX, &h);
  if (err != CL_SUCCESS) return err;
  if (host_access_denied(m, read, !read)) return CL_INVALID_OPERATION;
  auto work = [=](uint64_t* cycles) {
    auto* hp = static_cast<uint8_t*>(host);
    if (read)
      copy_rect(hp, h, m->bytes(), box.rect, box.bytes);
    else
      copy_rect(m->bytes(), box.rect, hp, h, box.bytes);
    *cycles = transfer_cycles(box.total_bytes());
    return CL_COMPLETE;
  };
  // A non-blocking transfer uses the host memory until its event completes (the spec).
  return cmd.submit(read ? CL_COMMAND_READ_IMAGE : CL_COMMAND_WRITE_IMAGE, n, waits, blocking, {m}, work, event);
}

// Two boxes of one image share a pixel.
bool boxes_overlap(const size_t* a, const size_t* b, const size_t* region) {
  for (int d = 0; d < 3; ++d)
    if (a[d] >= b[d] + region[d] || b[d] >= a[d] + region[d]) return false;
  return true;
}

bool same_format(const ImageLayout& a, const ImageLayout& b) {
  return a.format.image_channel_order == b.format.image_channel_order &&
         a.format.image_channel_data_type == b.format.image_channel_data_type;
}

// An image region and a packed range of a buffer (clEnqueueCopyImageToBuffer and back).
cl_int image_buffer_copy(cl_command_queue queue, cl_mem image, cl_mem buffer, const size_t* origin,
                         const size_t* region, size_t offset, bool to_buffer, cl_uint n, const cl_event* waits,
                         cl_event* event) {
  HostCommand cmd(queue);
  if (cmd.error() != CL_SUCCESS) return cmd.error();
  Mem *img = nullptr, *buf = nullptr;
  cl_int err = cmd.image(image, &img);
  if (err == CL_SUCCESS) err = cmd.buffer(buffer, &buf);
  if (err != CL_SUCCESS) return err;
  ImageBox box;
  Rect b;
  err = image_box(*img->image, origin, region, &box);
  // The buffer side is packed: rows of the region, one after the other (a 1D array's layers too).
  if (err == CL_SUCCESS) err = host_box(*img->image, box, 0, 0, offset, buf->size, &b);
  if (err != CL_SUCCESS) return err;
  auto work = [=](uint64_t* cycles) {
    if (to_buffer)
      copy_rect(buf->bytes(), b, img->bytes(), box.rect, box.bytes);
    else
      copy_rect(img->bytes(), box.rect, buf->bytes(), b, box.bytes);
    *cycles = transfer_cycles(box.total_bytes());
    return CL_COMPLETE;
  };
  return cmd.submit(to_buffer ? CL_COMMAND_COPY_IMAGE_TO_BUFFER : CL_COMMAND_COPY_BUFFER_TO_IMAGE, n, waits, false,
                    {img, buf}, work, event);
}

}  // namespace

cl_int CL_API_CALL gsgpu_clEnqueueReadImage(cl_command_queue queue, cl_mem image, cl_bool blocking,
                                            const size_t* origin, const size_t* region, size_t row_pitch,
                                            size_t slice_pitch, void* dst, cl_uint n, const cl_event* waits,
                                            cl_event* event) {
  return read_write_image(queue, image, blocking, origin, region, row_pitch, slice_pitch, dst, true, n, waits,
                          event);
}

cl_int CL_API_CALL gsgpu_clEnqueueWriteImage(cl_command_queue queue, cl_mem image, cl_bool blocking,
                                             const size_t* origin, const size_t* region, size_t row_pitch,
                                             size_t slice_pitch, const void* src, cl_uint n, const cl_event* waits,
                                             cl_event* event) {
  return read_write_image(queue, image, blocking, origin, region, row_pitch, slice_pitch, const_cast<void*>(src),
                          false, n, waits, event);
}

cl_int CL_API_CALL gsgpu_clEnqueueCopyImage(cl_command_queue queue, cl_mem src, cl_mem dst, const size_t* src_origin,
                                            const size_t* dst_origin, const size_t* region, cl_uint n,
                                            const cl_event* waits, cl_event* event) {
  HostCommand cmd(queue);
  if (cmd.error() != CL_SUCCESS) return cmd.error();
  Mem *s = nullptr, *d = nullptr;
  cl_int err = cmd.image(src, &s);
  if (err == CL_SUCCESS) err = cmd.image(dst, &d);
  if (err != CL_SUCCESS) return err;
  if (!same_format(*s->image, *d->image)) return CL_IMAGE_FORMAT_MISMATCH;
  ImageBox sb, db;
  err = image_box(*s->image, src_origin, region, &sb);
  if (err == CL_SUCCESS) err = image_box(*d->image, dst_origin, region, &db);
  if (err != CL_SUCCESS) return err;
  if (s == d && boxes_overlap(src_origin, dst_origin, region)) return CL_MEM_COPY_OVERLAP;
  auto work = [=](uint64_t* cycles) {
    copy_rect(d->bytes(), db.rect, s->bytes(), sb.rect, sb.bytes);
    *cycles = transfer_cycles(sb.total_bytes());
    return CL_COMPLETE;
  };
  return cmd.submit(CL_COMMAND_COPY_IMAGE, n, waits, false, {s, d}, work, event);
}

cl_int CL_API_CALL gsgpu_clEnqueueCopyImageToBuffer(cl_command_queue queue, cl_mem src, cl_mem dst,
                                                    const size_t* src_origin, const size_t* region, size_t dst_offset,
                                                    cl_uint n, const cl_event* waits, cl_event* event) {
  return image_buffer_copy(queue, src, dst, src_origin, region, dst_offset, true, n, waits, event);
}

cl_int CL_API_CALL gsgpu_clEnqueueCopyBufferToImage(cl_command_queue queue, cl_mem src, cl_mem dst, size_t src_offset,
                                                    const size_t* dst_origin, const size_t* region, cl_uint n,
                                                    const cl_event* waits, cl_event* event) {
  return image_buffer_copy(queue, dst, src, dst_origin, region, src_offset, false, n, waits, event);
}

cl_int CL_API_CALL gsgpu_clEnqueueFillImage(cl_command_queue queue, cl_mem image, const void* fill_color,
                                            const size_t* origin, const size_t* region, cl_uint n,
                                            const cl_event* waits, cl_event* event) {
  HostCommand cmd(queue);
  if (cmd.error() != CL_SUCCESS) return cmd.error();
  Mem* m = nullptr;
  if (cl_int err = cmd.image(image, &m); err != CL_SUCCESS) return err;
  if (!fill_color) return CL_INVALID_VALUE;
  ImageBox box;
  if (cl_int err = image_box(*m->image, origin, region, &box); err != CL_SUCCESS) return err;
  // The colour is converted now: the caller may reuse its memory as soon as this returns. A depth
  // image's is one float (the spec), the others' four components.
  uint8_t color[16] = {};
  std::memcpy(color, fill_color, m->image->format.image_channel_order == CL_DEPTH ? 4 : sizeof color);
  std::array<uint8_t, 16> pixel{};
  color_to_pixel(m->image->format, color, pixel.data());
  const uint32_t pixel_bytes = m->image->pixel_bytes;
  auto work = [=](uint64_t* cycles) {
    uint8_t* base = m->bytes() + box.rect.base;
    for (size_t z = 0; z < box.bytes[2]; ++z)
      for (size_t y = 0; y < box.bytes[1]; ++y) {
        uint8_t* row = base + z * box.rect.slice + y * box.rect.row;
        for (size_t x = 0; x < box.bytes[0]; x += pixel_bytes) std::memcpy(row + x, pixel.data(), pixel_bytes);
      }
    *cycles = transfer_cycles(box.total_bytes());
    return CL_COMPLETE;
  };
  return cmd.submit(CL_COMMAND_FILL_IMAGE, n, waits, false, {m}, work, event);
}

void* CL_API_CALL gsgpu_clEnqueueMapImage(cl_command_queue queue, cl_mem image, cl_bool blocking, cl_map_flags flags,
                                          const size_t* origin, const size_t* region, size_t* row_pitch,
                                          size_t* slice_pitch, cl_uint n, const cl_event* waits, cl_event* event,
                                          cl_int* errcode_ret) {
  HostCommand cmd(queue);
  cl_int err = cmd.error();
  Mem* m = nullptr;
  if (err == CL_SUCCESS) err = cmd.image(image, &m);
  ImageBox box;
  if (err == CL_SUCCESS && (!valid_map_flags(flags) || !row_pitch)) err = CL_INVALID_VALUE;
  // The spec: layered images return a slice pitch, so they need somewhere to put it.
  if (err == CL_SUCCESS && is_layered(m->image->type) && !slice_pitch) err = CL_INVALID_VALUE;
  if (err == CL_SUCCESS) err = image_box(*m->image, origin, region, &box);
  if (err == CL_SUCCESS && map_access_denied(m, flags)) err = CL_INVALID_OPERATION;
  // The CPU view of the image is its object's mapping, at the image's own pitches: nothing to copy
  // in either direction. The pointer may be used once the command's event completes.
  if (err == CL_SUCCESS)
    err = cmd.submit(CL_COMMAND_MAP_IMAGE, n, waits, blocking, {m}, [](uint64_t*) { return CL_COMPLETE; }, event);
  set_error(errcode_ret, err);
  if (err != CL_SUCCESS) return nullptr;
  ++m->map_count;
  *row_pitch = m->image->row_pitch;
  if (slice_pitch) *slice_pitch = m->image->slice_pitch;
  return m->bytes() + box.rect.base;
}

}  // namespace gsgpu::cl
