// shaderClipDistance / shaderCullDistance against lavapipe: shaders/clip_planes.vert writes two
// clip distances and one cull distance from planes in a uniform buffer; the same scenes on gsgpu
// and lavapipe in one instance (BothDrivers, both devices created with the two features). A solid
// triangle cut by one plane and by two; two triangles, one wholly behind the cull plane (dropped)
// and one across it (kept whole). The cut edges avoid pixel centres, so the frames must be equal bit
// for bit (each driver interpolates the new vertices in its own precision; here no pixel depends on it).
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "shader_clip_planes_vert.h"
#include "tests/gsgpu/vk/texture_fixture.h"

namespace gsgpu::vk::test {
namespace {

class VkClipDistance : public BothDrivers {
 protected:
  VkClipDistance() {
    device_request_.features.shaderClipDistance = VK_TRUE;
    device_request_.features.shaderCullDistance = VK_TRUE;
  }
};

struct Planes {
  float clip[2][4];
  float cull[4];
};

DrawScene planes_scene(const Planes& planes, const std::vector<DrawVertex>& vertices) {
  DrawScene s;
  s.uniform_offset = true;
  s.uniform_bytes.resize(sizeof planes);
  std::memcpy(s.uniform_bytes.data(), &planes, sizeof planes);
  s.vertex_spirv = shader_clip_planes_vert;
  s.vertex_spirv_bytes = sizeof shader_clip_planes_vert;
  s.vertices = vertices;
  s.draws = {{false, uint32_t(vertices.size()), 0, 0, {1, 1, 1, 1}}};
  return s;
}

struct Result {
  uint32_t drawn = 0, differing = 0;
};

Result compare(const DrawFrame& gs, const DrawFrame& ref, const char* name) {
  Result r;
  for (size_t i = 0; i + 4 <= gs.color.size(); i += 4) {
    r.differing += std::memcmp(&gs.color[i], &ref.color[i], 4) != 0;
    r.drawn += gs.color[i] != 0 || gs.color[i + 1] != 0 || gs.color[i + 2] != 0;
  }
  std::printf("[vkclip] %s: %u pixels drawn, %u of 4096 differ from lavapipe\n", name, r.drawn, r.differing);
  return r;
}

const std::vector<DrawVertex> kBigTriangle = {{-0.9f, -0.85f, 0.5f, {230, 120, 30, 255}},
                                              {0.95f, -0.7f, 0.5f, {230, 120, 30, 255}},
                                              {-0.6f, 0.9f, 0.5f, {230, 120, 30, 255}}};

TEST_F(VkClipDistance, ATriangleCutByOneAndByTwoPlanesMatchesLavapipe) {
  const Planes none{{{0, 0, 0, 1}, {0, 0, 0, 1}}, {0, 0, 0, 1}};
  const Result whole = compare(gsgpu_->render(planes_scene(none, kBigTriangle)),
                               lavapipe_->render(planes_scene(none, kBigTriangle)), "no plane");
  EXPECT_EQ(whole.differing, 0u);
  // x <= 0.137 (a vertical cut at pixel 36.4), then also y >= -0.3 + 0.41 x (a slanted one).
  const Planes one{{{-1, 0, 0, 0.137f}, {0, 0, 0, 1}}, {0, 0, 0, 1}};
  const DrawFrame g1 = gsgpu_->render(planes_scene(one, kBigTriangle));
  const Result cut1 = compare(g1, lavapipe_->render(planes_scene(one, kBigTriangle)), "one plane");
  EXPECT_EQ(cut1.differing, 0u);
  EXPECT_LT(cut1.drawn, whole.drawn);
  EXPECT_EQ(g1.color[(20 * 64 + 40) * 4], 0);    // right of the cut: clear colour
  EXPECT_EQ(g1.color[(20 * 64 + 30) * 4], 230);  // left of it: the triangle
  const Planes two{{{-1, 0, 0, 0.137f}, {-0.41f, 1, 0, 0.3f}}, {0, 0, 0, 1}};
  const Result cut2 = compare(gsgpu_->render(planes_scene(two, kBigTriangle)),
                              lavapipe_->render(planes_scene(two, kBigTriangle)), "two planes");
  EXPECT_EQ(cut2.differing, 0u);
  EXPECT_LT(cut2.drawn, cut1.drawn);
}

TEST_F(VkClipDistance, ATriangleWhollyBehindTheCullPlaneIsDroppedAndOneAcrossItIsKept) {
  const std::vector<DrawVertex> two = {{-0.9f, -0.9f, 0.5f, {40, 200, 90, 255}},  {-0.1f, -0.8f, 0.5f, {40, 200, 90, 255}},
                                       {-0.7f, -0.1f, 0.5f, {40, 200, 90, 255}},  {0.1f, 0.2f, 0.5f, {200, 40, 90, 255}},
                                       {0.9f, 0.3f, 0.5f, {200, 40, 90, 255}},    {0.3f, 0.95f, 0.5f, {200, 40, 90, 255}}};
  // Cull where x + y > 0.55... the second triangle's vertices give -0.25, 0.65, 0.7 for 0.55 - x - y:
  // not all negative, kept whole; the first's are all positive, kept.
  const Planes keep{{{0, 0, 0, 1}, {0, 0, 0, 1}}, {-1, -1, 0, 0.55f}};
  const Result kept = compare(gsgpu_->render(planes_scene(keep, two)), lavapipe_->render(planes_scene(keep, two)),
                              "cull plane across");
  EXPECT_EQ(kept.differing, 0u);
  // x + y < 0.25: the second triangle's distances are all negative: dropped.
  const Planes drop{{{0, 0, 0, 1}, {0, 0, 0, 1}}, {-1, -1, 0, 0.25f}};
  const DrawFrame g = gsgpu_->render(planes_scene(drop, two));
  const Result dropped = compare(g, lavapipe_->render(planes_scene(drop, two)), "cull plane behind");
  EXPECT_EQ(dropped.differing, 0u);
  EXPECT_LT(dropped.drawn, kept.drawn);
  EXPECT_EQ(g.color[(50 * 64 + 45) * 4], 0);  // inside the dropped triangle
}

}  // namespace
}  // namespace gsgpu::vk::test
