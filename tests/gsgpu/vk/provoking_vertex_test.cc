// VK_EXT_provoking_vertex against lavapipe: flat colours
// (shaders/flat_color.frag) of triangle lists, strips and fans, line lists and
// strips, with the first and the last vertex provoking, on gsgpu and lavapipe
// in one instance (BothDrivers, both devices created with provokingVertexLast).
// Every vertex has its own colour, so each primitive shows which vertex
// provoked it; one triangle crosses the near plane, and each piece the clipper
// cuts it into must keep the original provoking vertex's colour. Flat colours
// of whole 1/255 steps: the frames must be equal bit for bit.
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "shader_flat_color_frag.h"
#include "tests/gsgpu/vk/texture_fixture.h"

namespace gsgpu::vk::test {
namespace {

class VkProvokingVertex : public BothDrivers {
 protected:
  VkProvokingVertex() {
    provoking_.provokingVertexLast = VK_TRUE;
    device_request_.extensions = {VK_EXT_PROVOKING_VERTEX_EXTENSION_NAME};
    device_request_.next = &provoking_;
  }
  VkPhysicalDeviceProvokingVertexFeaturesEXT provoking_{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROVOKING_VERTEX_FEATURES_EXT};
};

// Vertices in pixel coordinates of the 64 x 64 target (z 0.5 unless given),
// each its own colour.
void add_vertex(DrawScene* s, float x, float y, float z = 0.5f) {
  static const uint8_t palette[8][3] = {{255, 0, 0},   {0, 255, 0},   {0, 0, 255},   {255, 255, 0},
                                        {255, 0, 255}, {0, 255, 255}, {255, 128, 0}, {128, 0, 255}};
  const uint8_t* c = palette[s->vertices.size() % 8];
  s->vertices.push_back({x / 32 - 1, y / 32 - 1, z, {c[0], c[1], c[2], 255}});
}

// One scene per topology; the points lie off pixel centres and the rules' ties.
DrawScene scene(VkPrimitiveTopology topology) {
  DrawScene s;
  s.fragment_spirv = shader_flat_color_frag;
  s.fragment_spirv_bytes = sizeof shader_flat_color_frag;
  const float strip[6][2] = {{4.3f, 40.2f}, {10.1f, 8.6f},  {22.7f, 44.4f},
                             {30.2f, 6.3f}, {42.9f, 41.7f}, {55.4f, 9.1f}};
  switch (topology) {
    case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST:
      add_vertex(&s, 3.3f, 4.2f), add_vertex(&s, 9.1f, 30.6f), add_vertex(&s, 30.7f, 8.4f);
      add_vertex(&s, 36.3f, 4.7f), add_vertex(&s, 35.8f, 28.15f), add_vertex(&s, 60.4f, 30.3f);
      // Across the near plane (z < 0 at the last vertex): clipped into a
      // quadrilateral, two pieces.
      add_vertex(&s, 5.6f, 36.3f), add_vertex(&s, 20.9f, 61.2f), add_vertex(&s, 58.2f, 50.4f, -0.9f);
      break;
    case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP:
    case VK_PRIMITIVE_TOPOLOGY_LINE_STRIP:
      for (const auto& p : strip) add_vertex(&s, p[0], p[1]);
      break;
    case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_FAN:
      add_vertex(&s, 32.4f, 33.3f);
      for (const auto& p : strip) add_vertex(&s, p[0], p[1]);
      break;
    default:  // line list: four lines in different directions
      add_vertex(&s, 3.3f, 4.2f), add_vertex(&s, 60.1f, 12.6f), add_vertex(&s, 6.7f, 58.4f);
      add_vertex(&s, 12.3f, 5.7f), add_vertex(&s, 20.8f, 30.15f), add_vertex(&s, 58.4f, 50.3f);
      add_vertex(&s, 57.2f, 3.6f), add_vertex(&s, 30.4f, 61.3f);
      break;
  }
  s.draws = {{false, uint32_t(s.vertices.size()), 0, 0, {1, 1, 1, 1}}};
  return s;
}

TEST_F(VkProvokingVertex, FlatColoursOfEveryTopologyMatchLavapipeWithFirstAndLastVertex) {
  const VkPrimitiveTopology topologies[] = {VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP,
                                            VK_PRIMITIVE_TOPOLOGY_TRIANGLE_FAN, VK_PRIMITIVE_TOPOLOGY_LINE_LIST,
                                            VK_PRIMITIVE_TOPOLOGY_LINE_STRIP};
  const char* names[] = {"triangle list", "triangle strip", "triangle fan", "line list", "line strip"};
  for (int t = 0; t < 5; ++t) {
    DrawFrame frames[2];
    for (int last = 0; last < 2; ++last) {
      VkPipelineRasterizationProvokingVertexStateCreateInfoEXT pv{
          VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_PROVOKING_VERTEX_STATE_CREATE_INFO_EXT};
      pv.provokingVertexMode =
          last ? VK_PROVOKING_VERTEX_MODE_LAST_VERTEX_EXT : VK_PROVOKING_VERTEX_MODE_FIRST_VERTEX_EXT;
      VkPipelineRasterizationStateCreateInfo rs{};
      VkPipelineInputAssemblyStateCreateInfo ia{};
      DrawScene s = scene(topologies[t]);
      s.edit = [&](VkGraphicsPipelineCreateInfo& info) {
        rs = *info.pRasterizationState;
        rs.pNext = &pv;
        info.pRasterizationState = &rs;
        ia = *info.pInputAssemblyState;
        ia.topology = topologies[t];
        info.pInputAssemblyState = &ia;
      };
      frames[last] = gsgpu_->render(s);
      const DrawFrame ref = lavapipe_->render(s);
      ASSERT_EQ(frames[last].color.size(), ref.color.size());
      const uint32_t differing = differing_pixels(frames[last], ref);
      std::printf(
          "[vkprovoking] %s, %s vertex: %u of 4096 pixels differ from "
          "lavapipe\n",
          names[t], last ? "last" : "first", differing);
      EXPECT_EQ(differing, 0u) << names[t] << (last ? ", last" : ", first");
    }
    // The two conventions colour the same pixels differently (the test sees the
    // mode).
    const uint32_t changed = differing_pixels(frames[0], frames[1]);
    std::printf("[vkprovoking] %s: %u pixels change colour between first and last\n", names[t], changed);
    EXPECT_GT(changed, 40u) << names[t];
  }
}

}  // namespace
}  // namespace gsgpu::vk::test
