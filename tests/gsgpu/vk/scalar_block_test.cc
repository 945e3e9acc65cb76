// VK_EXT_scalar_block_layout against lavapipe: a vertex shader reads a uniform block in the scalar
// layout (shaders/scalar_ubo.vert: a vec3 at offset 4, a vec3 array of stride 12 at a run-time
// index, a float array of stride 4, a vec3 at 60) and moves and colours a triangle with what it
// read, on gsgpu and lavapipe in one instance (BothDrivers; both devices created with the extension
// and scalarBlockLayout). Any member read from a wrong offset moves or colours the triangle
// differently, so the frames must be equal bit for bit and equal to the expected colour.
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "shader_scalar_ubo_vert.h"
#include "tests/gsgpu/vk/texture_fixture.h"

namespace gsgpu::vk::test {
namespace {

class VkScalarBlockLayout : public BothDrivers {
 protected:
  VkScalarBlockLayout() {
    features_.scalarBlockLayout = VK_TRUE;
    device_request_.extensions = {VK_EXT_SCALAR_BLOCK_LAYOUT_EXTENSION_NAME};
    device_request_.next = &features_;
  }
  VkPhysicalDeviceScalarBlockLayoutFeaturesEXT features_{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SCALAR_BLOCK_LAYOUT_FEATURES_EXT};
};

// The block's bytes at the scalar layout's offsets; every slot a wrong layout would read instead
// holds a value that shows (9, 0.1, ...).
std::vector<uint8_t> scalar_block() {
  std::vector<uint8_t> bytes(76, 0);
  const auto put_f = [&](uint32_t at, float v) { std::memcpy(&bytes[at], &v, 4); };
  put_f(0, 0.25f);                                    // a: x offset, 8 pixels right
  put_f(4, 9), put_f(8, 9), put_f(12, -0.125f);       // b.z: y offset, 4 pixels up
  put_f(16, 9), put_f(20, 0.1f), put_f(24, 9);        // c[0]
  put_f(28, 9), put_f(32, 0.6f), put_f(36, 9);        // c[1].y: red 153
  put_f(40, 1.0f), put_f(44, 9);                      // d.x: alpha 255
  put_f(48, 0.1f), put_f(52, 0.3f), put_f(56, 0.4f);  // e[2]: green 102
  put_f(60, 9), put_f(64, 9), put_f(68, 0.8f);        // f.z: blue 204
  const int32_t g = 1;
  std::memcpy(&bytes[72], &g, 4);
  return bytes;
}

TEST_F(VkScalarBlockLayout, AScalarUniformBlockIsReadAtItsOffsetsAsLavapipeReadsIt) {
  DrawScene s;
  s.uniform_offset = true;
  s.uniform_bytes = scalar_block();
  s.vertex_spirv = shader_scalar_ubo_vert;
  s.vertex_spirv_bytes = sizeof shader_scalar_ubo_vert;
  const DrawVertex white[3] = {{-0.8f, -0.6f, 0.5f, {255, 255, 255, 255}},
                               {0.5f, -0.6f, 0.5f, {255, 255, 255, 255}},
                               {-0.8f, 0.6f, 0.5f, {255, 255, 255, 255}}};
  s.vertices.assign(white, white + 3);
  s.draws = {{false, 3, 0, 0, {1, 1, 1, 1}}};
  const DrawFrame gs = gsgpu_->render(s);
  const DrawFrame ref = lavapipe_->render(s);
  ASSERT_EQ(gs.color.size(), ref.color.size());
  uint32_t differing = 0;
  for (size_t i = 0; i + 4 <= gs.color.size(); i += 4) differing += std::memcmp(&gs.color[i], &ref.color[i], 4) != 0;
  EXPECT_EQ(differing, 0u);
  // Without the offset x = -0.8 is pixel 6.4; with it 14.4: pixel (16, 20) is inside, (10, 20) not.
  const auto at = [&](uint32_t x, uint32_t y) { return Texel{gs.color[(y * 64 + x) * 4], gs.color[(y * 64 + x) * 4 + 1],
                                                             gs.color[(y * 64 + x) * 4 + 2], gs.color[(y * 64 + x) * 4 + 3]}; };
  EXPECT_EQ(at(16, 20), (Texel{153, 102, 204, 255}));
  EXPECT_EQ(at(10, 20), (Texel{0, 0, 0, 255}));
}

}  // namespace
}  // namespace gsgpu::vk::test
