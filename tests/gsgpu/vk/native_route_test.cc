// Issue 11 point 5: the gsgpu Vulkan driver gives the same output in both routes. meson sets
// VK_DRIVER_FILES to two manifests, libgsgpu_vk.so (the local device in this process) and
// libgsgpu_vk_native.so (the same driver over the gsgpu native context, here on the in-process
// transport: GSVIRT_TRANSPORT=inproc), so the loader shows two physical devices named "gsgpu", one
// per library. Each scene is rendered on both and the frames must be equal bit for bit, colour and
// depth: the host's native context runs the packets the guest-side driver built, on the same
// emulator, so nothing may differ.
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <cstring>
#include <memory>
#include <vector>

#include "tests/gsgpu/vk/draw_fixture.h"

namespace gsgpu::vk::test {
namespace {

class VkNativeRoute : public ::testing::Test {
 protected:
  void SetUp() override {
    TestDevices found;
    ASSERT_TRUE(create_test_instance(VK_API_VERSION_1_0, &instance_, &found));
    for (VkPhysicalDevice d : found.gsgpu) sides_.push_back(std::make_unique<DrawSide>(d));
    const uint32_t count = found.count;
    // Two libraries, two loader ICDs: which one the loader lists first does not matter, the
    // frames must be equal either way.
    ASSERT_EQ(sides_.size(), 2u) << count << " devices; the local and the native gsgpu driver are needed";
  }
  void TearDown() override {
    sides_.clear();
    if (instance_) vkDestroyInstance(instance_, nullptr);
  }

  void expect_equal_frames(const DrawScene& s) {
    const DrawFrame a = sides_[0]->render(s);
    const DrawFrame b = sides_[1]->render(s);
    ASSERT_EQ(a.color.size(), size_t{s.width} * s.height * 4);
    EXPECT_TRUE(a.color == b.color) << "colour differs between the routes";
    EXPECT_TRUE(a.depth == b.depth) << "depth differs between the routes";
    // Something was drawn: not every pixel is the clear colour.
    bool drawn = false;
    for (size_t i = 4; i < a.color.size(); i += 4) drawn |= std::memcmp(&a.color[i], &a.color[0], 4) != 0;
    EXPECT_TRUE(drawn);
  }

  VkInstance instance_ = VK_NULL_HANDLE;
  std::vector<std::unique_ptr<DrawSide>> sides_;
};

DrawVertex v(float x, float y, float z, uint8_t r, uint8_t g, uint8_t b) { return {x, y, z, {r, g, b, 255}}; }

TEST_F(VkNativeRoute, InterpolatedTriangleIsTheSame) {
  DrawScene s;
  s.vertices = {v(-0.8f, -0.7f, 0.5f, 255, 0, 0), v(0.9f, -0.5f, 0.5f, 0, 255, 0), v(-0.1f, 0.85f, 0.5f, 0, 0, 255)};
  s.draws = {{false, 3, 0, 0, {1, 1, 1, 1}}};
  expect_equal_frames(s);
}

// Indexed draws, push constants (the tint) and a depth buffer on sloped geometry.
TEST_F(VkNativeRoute, IndexedQuadsWithDepthAreTheSame) {
  DrawScene s;
  s.depth = true;
  s.vertices = {v(-0.7f, -0.7f, 0.25f, 255, 0, 0), v(0.3f, -0.7f, 0.25f, 255, 0, 0),
                v(-0.7f, 0.3f, 0.25f, 255, 0, 0),  v(0.3f, 0.3f, 0.25f, 255, 0, 0),
                v(-0.4f, -0.4f, 0.75f, 255, 255, 255), v(0.8f, -0.4f, 0.6f, 255, 255, 255),
                v(-0.4f, 0.8f, 0.9f, 255, 255, 255), v(0.8f, 0.8f, 0.75f, 255, 255, 255)};
  s.indices = {0, 1, 2, 2, 1, 3, 0, 1, 2, 2, 1, 3};
  s.draws = {{true, 6, 0, 0, {1, 1, 1, 1}}, {true, 6, 6, 4, {0, 1, 1, 1}}};
  expect_equal_frames(s);
}

// A uniform buffer read through a descriptor set, with culling of one of two triangles.
TEST_F(VkNativeRoute, UniformBufferAndCullingAreTheSame) {
  DrawScene s;
  s.uniform_offset = true;
  s.offset[0] = 0.25f;
  s.offset[1] = -0.125f;
  s.cull = VK_CULL_MODE_BACK_BIT;
  s.vertices = {v(-0.9f, -0.9f, 0.5f, 0, 255, 0), v(-0.1f, -0.9f, 0.5f, 0, 255, 0), v(-0.9f, -0.1f, 0.5f, 0, 255, 0),
                v(0.1f, 0.1f, 0.5f, 255, 255, 0), v(0.1f, 0.9f, 0.5f, 255, 255, 0), v(0.9f, 0.1f, 0.5f, 255, 255, 0)};
  s.draws = {{false, 6, 0, 0, {1, 1, 1, 1}}};
  expect_equal_frames(s);
}

}  // namespace
}  // namespace gsgpu::vk::test
