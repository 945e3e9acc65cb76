// Fixed-function spot lights through zink (piglit gl-1.0-spot-light) at the Vulkan level: Mesa's
// lighting computes a spot light's attenuation as (inside the cone ? 1 : 0) * exp2(exponent *
// log2(|spot|)), so a light of exponent 0 at a vertex where spot = 0 (outside its cone) asks for
// 0 * exp2(0 * log2(0)). With log2(0) = -inf that is a NaN and the colour was black; GLSL leaves
// log2(0) undefined, and gsgpu's compiler answers -FLT_MAX (docs/compiler.md "Graphics shaders"),
// so the attenuation is 0 as on lavapipe. Quads of spot 0, 0.5 and 1 for exponents 0, 1 and 5 and
// the cone of piglit's lights (cos 44 degrees), against lavapipe in the same test.
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <cmath>
#include <cstdint>
#include <cstdio>

#include "shader_spot_attenuation_frag.h"
#include "tests/gsgpu/vk/texture_fixture.h"

namespace gsgpu::vk::test {
namespace {

class VkSpotAttenuation : public BothDrivers {};

TEST_F(VkSpotAttenuation, ZeroExponentOutsideTheConeIsUnlitNotNaN) {
  DrawScene s;
  s.fragment_spirv = shader_spot_attenuation_frag;
  s.fragment_spirv_bytes = sizeof shader_spot_attenuation_frag;
  const float exponents[] = {0.0f, 1.0f, 5.0f};
  const uint8_t spots[] = {0, 128, 255};  // the colour's red: spot 0, about 0.5, 1
  const float cone = float(std::cos(44.0 * M_PI / 180));
  for (int e = 0; e < 3; ++e) {
    for (int k = 0; k < 3; ++k) {
      const uint8_t rgba[4] = {spots[k], 0, 0, 255};
      add_pixel_quad(&s, 4.0f + 20 * float(k), 4.0f + 20 * float(e), 20.0f + 20 * float(k), 20.0f + 20 * float(e), rgba);
      DrawCall& d = s.draws.back();
      d.tint[0] = exponents[e];
      d.tint[1] = cone;
    }
  }
  const DrawFrame gs = gsgpu_->render(s), ref = lavapipe_->render(s);
  ASSERT_EQ(gs.color.size(), ref.color.size());
  const uint32_t differing = differing_pixels(gs, ref);
  std::printf("[vkspot] %u of 4096 pixels differ from lavapipe\n", differing);
  EXPECT_EQ(differing, 0u);
  // Outside the cone (spot 0 and 0.5): the ambient 0.2 alone, for every exponent; inside (spot 1):
  // lit, 0.2 + 1 clamped to 1.
  for (int e = 0; e < 3; ++e) {
    for (int k = 0; k < 3; ++k) {
      const size_t p = (size_t(12 + 20 * e) * 64 + size_t(12 + 20 * k)) * 4;
      EXPECT_EQ(gs.color[p], k == 2 ? 255 : 51) << "exponent " << exponents[e] << " spot " << int(spots[k]);
      EXPECT_EQ(gs.color[p + 1], 51) << "exponent " << exponents[e] << " spot " << int(spots[k]);
    }
  }
}

}  // namespace
}  // namespace gsgpu::vk::test
