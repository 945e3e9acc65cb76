// Cube maps in the texture unit (IMAGE_DESC FORMAT.TYPE IMAGE_CUBE: six square 2D faces stored as
// layers +x, -x, +y, -y, +z, -z): Vulkan's "Cube Map Face Selection" (the major axis of the
// direction picks the face, s and t are the other two components divided by it) and its seamless
// "Cube Map Edge Handling" (a texel one past a face's edge is the neighbouring face's edge texel).
#pragma once

#include <cstdint>

namespace gsgpu::texture {

// A face and the coordinates on it, s and t in [0, 1] for directions that select that face.
struct CubeFaceCoord {
  uint32_t face = 0;
  float s = 0, t = 0;
};

// Vulkan's face selection table. Ties of magnitude go to z, then to y, then to x (z wins when
// |rz| >= |rx|, |ry|; otherwise x when |rx| > |ry|). A zero direction divides by 0: s and t are
// NaN (or NaN directions), which the filter reads as texel 0.
CubeFaceCoord cube_face_coord(const float dir[3]);

// The direction projected onto `face` whatever its major axis (the quad's neighbours for the
// implicit LOD's derivatives: the spec differentiates the formulas of the lane's own face).
void project_onto_face(const float dir[3], uint32_t face, float* s, float* t);

// A texel (i, j) of `face` on a level of `size` x `size` with exactly one of i, j one step outside
// the face: the neighbouring face's texel across that edge. False (nothing written) when both are
// outside (a corner, which the filter replaces by the average of its three other texels) or when
// an index is further out.
bool cube_neighbour_texel(uint32_t face, int64_t i, int64_t j, uint32_t size, uint32_t* out_face, int64_t* out_i,
                          int64_t* out_j);

}  // namespace gsgpu::texture
