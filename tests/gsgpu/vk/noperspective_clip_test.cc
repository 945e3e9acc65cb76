// Clipping noperspective varyings against lavapipe: shaders/noperspective_w.vert gives each vertex
// its own w and a noperspective colour (GLSL 1.30's `noperspective`, piglit's
// interpolation-noperspective-* tests through zink), and cuts with gl_ClipDistance[0]. One triangle
// crosses the near plane (z < 0 at one vertex) and the clip distance's zero, so both the fixed
// planes and the user clip distances make new vertices. Their noperspective colour must be the one
// linear in screen space, not in clip space (which is right only for perspective varyings): the two
// differ by up to a third of the colour range here. Interpolated colours are not fixed by Vulkan to
// the bit, so the frames are compared within 2/255 per channel, and the pixels each draws must be
// the same (no cut edge passes near a pixel centre).
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "shader_noperspective_color_frag.h"
#include "shader_noperspective_w_vert.h"
#include "tests/gsgpu/vk/texture_fixture.h"

namespace gsgpu::vk::test {
namespace {

class VkNoPerspectiveClip : public BothDrivers {
 protected:
  VkNoPerspectiveClip() { device_request_.features.shaderClipDistance = VK_TRUE; }
};

// Alpha is w's source (w = 0.5 + 3 a): 0.5, 3.5 and about 2.
DrawScene noperspective_scene() {
  DrawScene s;
  s.vertex_spirv = shader_noperspective_w_vert;
  s.vertex_spirv_bytes = sizeof shader_noperspective_w_vert;
  s.fragment_spirv = shader_noperspective_color_frag;
  s.fragment_spirv_bytes = sizeof shader_noperspective_color_frag;
  s.vertices = {{-0.93f, -0.91f, 0.5f, {255, 0, 0, 0}},
                {0.92f, -0.63f, -0.6f, {0, 255, 0, 255}},
                {-0.21f, 0.94f, 0.7f, {0, 0, 255, 128}}};
  s.draws = {{false, 3, 0, 0, {1, 1, 1, 1}}};
  return s;
}

TEST_F(VkNoPerspectiveClip, ClippedNoPerspectiveColoursMatchLavapipe) {
  const DrawScene s = noperspective_scene();
  const DrawFrame gs = gsgpu_->render(s);
  const DrawFrame ref = lavapipe_->render(s);
  ASSERT_EQ(gs.color.size(), ref.color.size());
  uint32_t drawn = 0, coverage_differs = 0, over = 0;
  int worst = 0;
  for (size_t i = 0; i + 4 <= gs.color.size(); i += 4) {
    const bool gs_drawn = gs.color[i + 3] != 255 || gs.color[i] + gs.color[i + 1] + gs.color[i + 2] != 0;
    const bool ref_drawn = ref.color[i + 3] != 255 || ref.color[i] + ref.color[i + 1] + ref.color[i + 2] != 0;
    drawn += gs_drawn;
    if (gs_drawn != ref_drawn) {
      ++coverage_differs;
      continue;
    }
    int d = 0;
    for (int c = 0; c < 4; ++c) d = std::max(d, std::abs(int(gs.color[i + c]) - int(ref.color[i + c])));
    worst = std::max(worst, d);
    over += d > 2;
  }
  std::printf("[vknoperspective] %u pixels drawn, %u drawn by one driver only, %u over 2/255, max %d/255\n", drawn,
              coverage_differs, over, worst);
  EXPECT_GT(drawn, 600u);  // the piece left of both cuts is drawn
  EXPECT_EQ(coverage_differs, 0u);
  EXPECT_EQ(over, 0u);
  EXPECT_LE(worst, 2);
}

}  // namespace
}  // namespace gsgpu::vk::test
