#include "gsgpu/emu/texture/addressing.h"

#include <algorithm>
#include <cmath>

#include "protocol/gsgpu/gsgpu_hw.h"

namespace gsgpu::texture {
namespace {

namespace smp = hw::blk::SAMPLER_STATE;

// floor, guarded against NaN (-1) and magnitudes past any size.
int64_t floor_int(float u) {
  if (std::isnan(u)) return -1;
  return static_cast<int64_t>(std::floor(std::clamp(u, -1.0e9f, 1.0e9f)));
}

// Vulkan's mirror clamp to edge of a texel index: mirror(i) = i for i >= 0, -(1 + i) below, then
// clamped to the last texel.
int64_t mirror_once(int64_t i, uint32_t size) { return std::min<int64_t>(i >= 0 ? i : -(1 + i), int64_t{size} - 1); }

// Vulkan's REPEAT of a texel index: i mod size, never negative.
int64_t repeat(int64_t i, uint32_t size) {
  const int64_t r = i % int64_t{size};
  return r < 0 ? r + size : r;
}

// Vulkan's MIRRORED_REPEAT of a texel index: (size - 1) - mirror((i mod 2 size) - size).
int64_t mirrored_repeat(int64_t i, uint32_t size) {
  const int64_t t = repeat(i, 2 * size);
  return t < int64_t{size} ? t : 2 * int64_t{size} - 1 - t;
}

// The texel-space coordinate of a wrapping mode with a texel offset: the coordinate reduced to one
// period first (REPEAT: [0, size), MIRRORED_REPEAT: the unmirrored [0, 2 size)), so that the integer
// index plus the offset wraps exactly as Vulkan's index would (i mod size is the same for i and the
// reduced index). Without an offset the OpenCL forms in nearest_index / linear_axis are used.
float period_coordinate(float s, uint32_t size, uint32_t mode) {
  const float n = static_cast<float>(size);
  if (mode == smp::STATE_ADDRESS_U_REPEAT) return (s - std::floor(s)) * n;
  return (s - 2.0f * std::floor(0.5f * s)) * n;  // MIRRORED_REPEAT
}

bool wraps(uint32_t mode) {
  return mode == smp::STATE_ADDRESS_U_REPEAT || mode == smp::STATE_ADDRESS_U_MIRRORED_REPEAT;
}

int64_t wrap_index(int64_t i, uint32_t size, uint32_t mode) {
  return mode == smp::STATE_ADDRESS_U_REPEAT ? repeat(i, size) : mirrored_repeat(i, size);
}

}  // namespace

int64_t nearest_index(float s, uint32_t size, uint32_t mode, bool normalized, int32_t offset, bool* border) {
  const float n = static_cast<float>(size);
  *border = false;
  if (offset != 0 && wraps(mode) && normalized) {
    const int64_t i = std::clamp<int64_t>(floor_int(period_coordinate(s, size, mode)), 0, 2 * int64_t{size} - 1);
    return wrap_index(i + offset, size, mode);
  }
  if (mode == smp::STATE_ADDRESS_U_REPEAT) {
    int64_t i = floor_int((s - std::floor(s)) * n);
    if (i > int64_t{size} - 1) i -= size;
    return std::clamp<int64_t>(i, 0, size - 1);  // NaN lands here as 0
  }
  if (mode == smp::STATE_ADDRESS_U_MIRRORED_REPEAT) {
    const float mirrored = std::fabs(s - 2.0f * std::rint(0.5f * s));
    return std::clamp<int64_t>(floor_int(mirrored * n), 0, size - 1);
  }
  const int64_t i = floor_int(normalized ? s * n : s) + offset;
  if (mode == smp::STATE_ADDRESS_U_MIRROR_CLAMP_TO_EDGE) return mirror_once(i, size);
  if (mode == smp::STATE_ADDRESS_U_CLAMP_TO_BORDER) {
    *border = i < 0 || i > int64_t{size} - 1;
    return std::clamp<int64_t>(i, -1, size);
  }
  return std::clamp<int64_t>(i, 0, size - 1);  // CLAMP_TO_EDGE and NONE
}

LinearAxis linear_axis(float s, uint32_t size, uint32_t mode, bool normalized, int32_t offset) {
  const float n = static_cast<float>(size);
  const auto frac = [](float x) { return std::isnan(x) ? 0.0f : x - std::floor(x); };
  LinearAxis r;
  const int64_t last = int64_t{size} - 1;
  if (offset != 0 && wraps(mode) && normalized) {
    const float u = period_coordinate(s, size, mode);
    r.i0 = floor_int(u - 0.5f) + offset;
    r.i1 = wrap_index(r.i0 + 1, size, mode);
    r.i0 = wrap_index(r.i0, size, mode);
    r.a = frac(u - 0.5f);
    return r;
  }
  float u;
  if (mode == smp::STATE_ADDRESS_U_REPEAT) u = (s - std::floor(s)) * n;
  else if (mode == smp::STATE_ADDRESS_U_MIRRORED_REPEAT) u = std::fabs(s - 2.0f * std::rint(0.5f * s)) * n;
  else u = normalized ? s * n : s;
  r.i0 = floor_int(u - 0.5f) + offset;
  r.i1 = r.i0 + 1;
  r.a = frac(u - 0.5f);
  if (mode == smp::STATE_ADDRESS_U_REPEAT) {
    if (r.i0 < 0) r.i0 += size;
    if (r.i1 > last) r.i1 -= size;
    r.i0 = std::clamp<int64_t>(r.i0, 0, last);  // only NaN coordinates need it
    r.i1 = std::clamp<int64_t>(r.i1, 0, last);
  } else if (mode == smp::STATE_ADDRESS_U_MIRROR_CLAMP_TO_EDGE) {
    r.i0 = mirror_once(r.i0, size);
    r.i1 = mirror_once(r.i1, size);
  } else if (mode == smp::STATE_ADDRESS_U_CLAMP_TO_BORDER) {
    r.i0 = std::clamp<int64_t>(r.i0, -1, size);
    r.i1 = std::clamp<int64_t>(r.i1, -1, size);
  } else {  // CLAMP_TO_EDGE, NONE, MIRRORED_REPEAT
    r.i0 = std::clamp<int64_t>(r.i0, 0, last);
    r.i1 = std::clamp<int64_t>(r.i1, 0, last);
  }
  return r;
}

}  // namespace gsgpu::texture
