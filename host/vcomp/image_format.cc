#include "host/vcomp/image_format.h"

#include "common/checked_math.h"

namespace gsvirt::vcomp {
namespace {

std::optional<uint64_t> channel_count(cl_channel_order order) {
  switch (order) {
    case CL_R: case CL_A: case CL_INTENSITY: case CL_LUMINANCE: case CL_Rx: case CL_DEPTH:
      return 1;
    case CL_RG: case CL_RA: case CL_RGx:
      return 2;
    case CL_RGB: case CL_RGBx: case CL_sRGB: case CL_sRGBx:
      return 3;
    case CL_RGBA: case CL_BGRA: case CL_ARGB: case CL_ABGR: case CL_sRGBA: case CL_sBGRA:
      return 4;
    default:
      return std::nullopt;
  }
}

std::optional<uint64_t> channel_size(cl_channel_type type) {
  switch (type) {
    case CL_SNORM_INT8: case CL_UNORM_INT8: case CL_SIGNED_INT8: case CL_UNSIGNED_INT8:
      return 1;
    case CL_SNORM_INT16: case CL_UNORM_INT16: case CL_SIGNED_INT16: case CL_UNSIGNED_INT16:
    case CL_HALF_FLOAT:
      return 2;
    case CL_SIGNED_INT32: case CL_UNSIGNED_INT32: case CL_FLOAT:
      return 4;
    default:
      return std::nullopt;
  }
}

}  // namespace

std::optional<uint64_t> image_element_size(const cl_image_format& f) {
  // Packed formats hold the whole pixel in one unit.
  switch (f.image_channel_data_type) {
    case CL_UNORM_SHORT_565: case CL_UNORM_SHORT_555:
      return 2;
    case CL_UNORM_INT_101010: case CL_UNORM_INT_101010_2:
      return 4;
    default:
      break;
  }
  auto n = channel_count(f.image_channel_order);
  auto s = channel_size(f.image_channel_data_type);
  if (!n || !s) return std::nullopt;
  return *n * *s;
}

std::optional<uint64_t> packed_region_size(const cl_image_format& format, const uint64_t region[3]) {
  auto elem = image_element_size(format);
  if (!elem) return std::nullopt;
  auto a = checked_mul<uint64_t>(*elem, region[0]);
  if (!a) return std::nullopt;
  auto b = checked_mul<uint64_t>(*a, region[1]);
  if (!b) return std::nullopt;
  return checked_mul<uint64_t>(*b, region[2]);
}

std::optional<uint64_t> packed_image_size(const cl_image_format& format, const cl_image_desc& d) {
  uint64_t region[3] = {d.image_width, 1, 1};
  switch (d.image_type) {
    case CL_MEM_OBJECT_IMAGE1D:
    case CL_MEM_OBJECT_IMAGE1D_BUFFER:
      break;
    case CL_MEM_OBJECT_IMAGE1D_ARRAY:
      region[1] = d.image_array_size;
      break;
    case CL_MEM_OBJECT_IMAGE2D:
      region[1] = d.image_height;
      break;
    case CL_MEM_OBJECT_IMAGE2D_ARRAY:
      region[1] = d.image_height;
      region[2] = d.image_array_size;
      break;
    case CL_MEM_OBJECT_IMAGE3D:
      region[1] = d.image_height;
      region[2] = d.image_depth;
      break;
    default:
      return std::nullopt;
  }
  return packed_region_size(format, region);
}

}  // namespace gsvirt::vcomp
