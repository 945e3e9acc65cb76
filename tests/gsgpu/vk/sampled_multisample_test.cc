// Multisampled images read by shaders against lavapipe (docs/vulkan-driver.md "Multisampling"): a
// 4-sample scene is rendered into an image with SAMPLED usage, then a second scene reads one sample
// per pixel with texelFetch on a sampler2DMS (shaders/ms_fetch.frag) into a one-sample target. Both
// drivers use Vulkan's standard sample locations, so every sample's coverage is fixed by the spec
// and each sample's frame must equal lavapipe's byte for byte; the four frames' mean is the
// resolved frame.
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "shader_ms_fetch_frag.h"
#include "tests/gsgpu/vk/texture_fixture.h"

namespace gsgpu::vk::test {
namespace {

DrawVertex flat(float x, float y, const uint8_t rgb[3]) { return {x, y, 0.5f, {rgb[0], rgb[1], rgb[2], 255}}; }

// Two overlapping flat triangles with edges at several slopes (colours in multiples of 4).
DrawScene four_sample_scene() {
  DrawScene s;
  s.samples = 4;
  s.color_usage = VK_IMAGE_USAGE_SAMPLED_BIT;
  const uint8_t red[3] = {200, 0, 0}, blue[3] = {32, 64, 252};
  s.vertices = {flat(-0.9f, -0.8f, red), flat(0.7f, -0.55f, red), flat(-0.2f, 0.9f, red),
                flat(-0.97f, 0.3f, blue), flat(0.95f, 0.83f, blue), flat(0.1f, -0.9f, blue)};
  s.draws = {{false, 6, 0, 0, {1, 1, 1, 1}}};
  return s;
}

// Renders the 4-sample scene, then reads sample `index` of each pixel into a one-sample frame.
// *resolved: the first scene's resolved frame.
DrawFrame fetch_sample(DrawSide& side, uint32_t index, DrawFrame* resolved) {
  *resolved = side.render(four_sample_scene());
  SampledTextureObjects o;  // the multisampled image is the side's: only the set and sampler are owned
  o.device = side.device();
  o.texture.view = side.last_color_view();
  VkSamplerCreateInfo sampler{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  const VkDescriptorSet set = combined_sampler_set(sampler, &o);
  o.texture.view = VK_NULL_HANDLE;
  DrawScene scene;
  const DrawVertex corners[4] = {{-1, -1, 0.5f, {255, 255, 255, 255}}, {1, -1, 0.5f, {255, 255, 255, 255}},
                                 {1, 1, 0.5f, {255, 255, 255, 255}}, {-1, 1, 0.5f, {255, 255, 255, 255}}};
  scene.vertices = {corners[0], corners[1], corners[2], corners[0], corners[2], corners[3]};
  scene.draws = {{false, 6, 0, 0, {float(index), 0, 0, 0}}};
  scene.fragment_spirv = shader_ms_fetch_frag;
  scene.fragment_spirv_bytes = sizeof shader_ms_fetch_frag;
  scene.edit = [&](VkGraphicsPipelineCreateInfo& info) { info.layout = o.layout; };
  const VkImage ms = side.last_color_image();
  scene.before_pass = [ms](VkCommandBuffer cb) {  // the attachment's writes, then shader reads
    VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    b.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
    b.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
    b.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    b.newLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.image = ms;
    b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, 0, 0,
                         nullptr, 0, nullptr, 1, &b);
  };
  scene.before_draws = [&](VkCommandBuffer cb) {
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, o.layout, 0, 1, &set, 0, nullptr);
  };
  return side.render(scene);
}

using VkSampledMultisample = BothDrivers;

TEST_F(VkSampledMultisample, EachSampleFetchedMatchesLavapipeAndTheirMeanIsTheResolve) {
  DrawFrame gs_samples[4], resolved_gs, resolved_ref;
  for (uint32_t s = 0; s < 4; ++s) {
    SCOPED_TRACE(s);
    gs_samples[s] = fetch_sample(*gsgpu_, s, &resolved_gs);
    const DrawFrame ref = fetch_sample(*lavapipe_, s, &resolved_ref);
    ASSERT_EQ(gs_samples[s].color.size(), ref.color.size());
    std::printf("[msaa] sample %u fetched: %u of 4096 pixels differ from lavapipe\n", s,
                differing_pixels(gs_samples[s], ref));
    EXPECT_EQ(differing_pixels(gs_samples[s], ref), 0u);
  }
  // The samples really differ on edges, and their mean (rounded) is the resolve's pixel.
  uint32_t edge_pixels = 0, mean_differs = 0;
  for (size_t i = 0; i < resolved_gs.color.size(); ++i) {
    uint32_t sum = 0;
    bool differ = false;
    for (const DrawFrame& f : gs_samples) {
      sum += f.color[i];
      differ |= f.color[i] != gs_samples[0].color[i];
    }
    edge_pixels += differ && i % 4 == 0;
    mean_differs += (sum + 2) / 4 != resolved_gs.color[i];
  }
  std::printf("[msaa] %u pixels whose samples differ; %u channels whose mean is not the resolve\n", edge_pixels,
              mean_differs);
  EXPECT_GT(edge_pixels, 50u);
  EXPECT_EQ(mean_differs, 0u);
}

}  // namespace
}  // namespace gsgpu::vk::test
