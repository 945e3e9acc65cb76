// Cube maps (CUBE_COMPATIBLE images, VK_IMAGE_VIEW_TYPE_CUBE, GLSL samplerCube) on gsgpu and on
// lavapipe in one instance (texture_fixture.h). Each scene looks along one face's axis
// (shaders/cube_sample.frag): a quad of directions (major ±1, the other two from -extent to
// extent). With extent 1 every pixel samples inside the face; with extent 1.25 the rim of the quad
// crosses into the four neighbouring faces, so face selection and (linear) seamless filtering
// across the edges and corners are compared. Nearest filtering is bit for bit; linear within the
// metric (docs/graphics.md).
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include "shader_cube_sample_frag.h"
#include "tests/gsgpu/vk/texture_fixture.h"

namespace gsgpu::vk::test {
namespace {

constexpr uint32_t kTargetSize = 64;

struct CubeScene {
  uint32_t face_size = 8;
  uint32_t levels = 1;
  VkFilter filter = VK_FILTER_NEAREST;
  float extent = 1.0f;
};

// Every texel its own colour: red and green from x and y, blue from the face, level in alpha.
Texel cube_texel(uint32_t level, uint32_t face, uint32_t x, uint32_t y) {
  return {uint8_t(x * 29 + 7), uint8_t(y * 29 + 7), uint8_t(face * 40 + 20), uint8_t(255 - 60 * level)};
}

using CubeObjects = SampledTextureObjects;

// Set 0 binding 0: the cube view and its sampler; the push range of draw_color.frag's.
VkDescriptorSet cube_set(const CubeScene& s, CubeObjects* o) {
  VkSamplerCreateInfo info{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  info.magFilter = info.minFilter = s.filter;
  info.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
  info.addressModeU = info.addressModeV = info.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
  info.maxLod = static_cast<float>(s.levels - 1);
  return combined_sampler_set(info, o);
}

// The quad looking along `face`: red / green 0 .. 1 across it, push.tint = (face, extent, 0, 0).
DrawFrame render_cube(DrawSide& side, const CubeScene& s, uint32_t face) {
  CubeObjects o;
  o.device = side.device();
  o.texture = make_texture(side, s.face_size, s.levels, cube_texel, 6, VK_FORMAT_R8G8B8A8_UNORM, true);
  const VkDescriptorSet set = cube_set(s, &o);
  DrawScene scene;
  scene.width = scene.height = kTargetSize;
  const DrawVertex corners[4] = {{-1, -1, 0.5f, {0, 0, 0, 255}},
                                 {1, -1, 0.5f, {255, 0, 0, 255}},
                                 {1, 1, 0.5f, {255, 255, 0, 255}},
                                 {-1, 1, 0.5f, {0, 255, 0, 255}}};
  scene.vertices = {corners[0], corners[1], corners[2], corners[0], corners[2], corners[3]};
  DrawCall draw;
  draw.count = 6;
  draw.tint[0] = static_cast<float>(face);
  draw.tint[1] = s.extent;
  scene.draws = {draw};
  scene.fragment_spirv = shader_cube_sample_frag;
  scene.fragment_spirv_bytes = sizeof shader_cube_sample_frag;
  use_sampled_texture(&scene, o, set);
  return side.render(scene);
}

class VkCubeTexture : public BothDrivers {
 protected:
  // The six faces' frames compared; the sums of the comparisons.
  FrameComparison all_faces(const CubeScene& s, const char* name) {
    FrameComparison total;
    for (uint32_t face = 0; face < 6; ++face) {
      const DrawFrame g = render_cube(*gsgpu_, s, face), l = render_cube(*lavapipe_, s, face);
      EXPECT_EQ(g.color.size(), size_t{kTargetSize} * kTargetSize * 4);
      const std::string label = std::string(name) + " face " + std::to_string(face);
      const FrameComparison c = compare_frames(kTargetSize, g, l, label.c_str());
      total.over_16 += c.over_16;
      total.differing += c.differing;
      total.max_diff = std::max(total.max_diff, c.max_diff);
      // The face's own colour (blue) fills the centre pixel on gsgpu.
      EXPECT_EQ(frame_pixel(g, kTargetSize, kTargetSize / 2, kTargetSize / 2)[2], face * 40 + 20) << label;
    }
    return total;
  }
};

// Nearest inside each face: every pixel one texel of the right face, bit for bit.
TEST_F(VkCubeTexture, NearestInsideEachFaceIsExact) {
  EXPECT_EQ(all_faces(CubeScene{}, "cube nearest").differing, 0u);
}

// Past the face edges (extent 1.25): nearest picks the neighbouring faces' texels as lavapipe
// does; linear filters across the seams (edge texels from the neighbour, corners averaged).
TEST_F(VkCubeTexture, AcrossTheEdgesMatchesLavapipe) {
  CubeScene s;
  s.extent = 1.25f;
  const FrameComparison nearest = all_faces(s, "cube nearest edges");
  EXPECT_EQ(nearest.differing, 0u);
  s.filter = VK_FILTER_LINEAR;
  const FrameComparison linear = all_faces(s, "cube linear edges");
  EXPECT_EQ(linear.over_16, 0u);
  EXPECT_LE(linear.max_diff, 1u);  // measured: 1/255 on 280 of 24,576 pixels
}

// Minified 2 : 1 (a 128-texel face over 64 pixels): the implicit LOD from the projected
// derivatives is 1, and level 1 (its own alpha) is the one sampled, as on lavapipe.
TEST_F(VkCubeTexture, MipLevelFromTheFaceDerivatives) {
  CubeScene s;
  s.face_size = 128;
  s.levels = 3;
  s.extent = 1.0f;
  EXPECT_EQ(all_faces(s, "cube mip").differing, 0u);
}

}  // namespace
}  // namespace gsgpu::vk::test
