#include "gsgpu/emu/texture/cube_map.h"

#include <cmath>

namespace gsgpu::texture {
namespace {

enum Face : uint32_t { kPosX, kNegX, kPosY, kNegY, kPosZ, kNegZ };

// The face's (sc, tc, ma) from the direction, Vulkan's table.
void face_axes(const float r[3], uint32_t face, float* sc, float* tc, float* ma) {
  switch (face) {
    case kPosX: *sc = -r[2]; *tc = -r[1]; *ma = r[0]; break;
    case kNegX: *sc = r[2]; *tc = -r[1]; *ma = r[0]; break;
    case kPosY: *sc = r[0]; *tc = r[2]; *ma = r[1]; break;
    case kNegY: *sc = r[0]; *tc = -r[2]; *ma = r[1]; break;
    case kPosZ: *sc = r[0]; *tc = -r[1]; *ma = r[2]; break;
    default: *sc = -r[0]; *tc = -r[1]; *ma = r[2]; break;  // kNegZ
  }
}

// The inverse: the direction of (sc, tc) on `face` at unit distance.
void face_direction(uint32_t face, float sc, float tc, float r[3]) {
  switch (face) {
    case kPosX: r[0] = 1; r[1] = -tc; r[2] = -sc; break;
    case kNegX: r[0] = -1; r[1] = -tc; r[2] = sc; break;
    case kPosY: r[0] = sc; r[1] = 1; r[2] = tc; break;
    case kNegY: r[0] = sc; r[1] = -1; r[2] = -tc; break;
    case kPosZ: r[0] = sc; r[1] = -tc; r[2] = 1; break;
    default: r[0] = -sc; r[1] = -tc; r[2] = -1; break;  // kNegZ
  }
}

uint32_t select_face(const float r[3]) {
  const float ax = std::fabs(r[0]), ay = std::fabs(r[1]), az = std::fabs(r[2]);
  if (az >= ax && az >= ay) return r[2] < 0 ? kNegZ : kPosZ;
  if (ax > ay) return r[0] < 0 ? kNegX : kPosX;
  return r[1] < 0 ? kNegY : kPosY;
}

}  // namespace

void project_onto_face(const float dir[3], uint32_t face, float* s, float* t) {
  float sc, tc, ma;
  face_axes(dir, face, &sc, &tc, &ma);
  const float m = std::fabs(ma);
  *s = 0.5f * (sc / m + 1.0f);
  *t = 0.5f * (tc / m + 1.0f);
}

CubeFaceCoord cube_face_coord(const float dir[3]) {
  CubeFaceCoord c;
  c.face = select_face(dir);
  project_onto_face(dir, c.face, &c.s, &c.t);
  return c;
}

bool cube_neighbour_texel(uint32_t face, int64_t i, int64_t j, uint32_t size, uint32_t* out_face, int64_t* out_i,
                          int64_t* out_j) {
  const int64_t n = size;
  const bool i_out = i < 0 || i >= n, j_out = j < 0 || j >= n;
  if (i_out == j_out || i < -1 || i > n || j < -1 || j > n) return false;
  // The texel centre as a direction beyond the edge (|sc| or |tc| = 1 + 1/size): its major axis
  // is the neighbouring face, and projecting it lands in that face's edge texel, less than half a
  // texel from the centre along the edge.
  const float sc = 2.0f * (static_cast<float>(i) + 0.5f) / static_cast<float>(n) - 1.0f;
  const float tc = 2.0f * (static_cast<float>(j) + 0.5f) / static_cast<float>(n) - 1.0f;
  float r[3];
  face_direction(face, sc, tc, r);
  const CubeFaceCoord c = cube_face_coord(r);
  const auto index = [n](float u) {
    const int64_t k = static_cast<int64_t>(std::floor(u * static_cast<float>(n)));
    return k < 0 ? 0 : (k >= n ? n - 1 : k);
  };
  *out_face = c.face;
  *out_i = index(c.s);
  *out_j = index(c.t);
  return true;
}

}  // namespace gsgpu::texture
