// vkcube's frame without a window: its two shaders (tests/gsgpu/compiler/shaders/vkcube.*, the GLSL of
// vulkan-tools' cube.vert / cube.frag), its 36 vertices and texture coordinates in one uniform buffer
// read by gl_VertexIndex (no vertex input), its MVP (45° perspective, eye (0, 3, 5), the cube turned
// about y), a texture at binding 1 sampled with vkcube's nearest / clamp-to-edge sampler, a D16 depth
// buffer, back faces culled. Rendered on gsgpu and on lavapipe by the same code and compared with
// docs/graphics.md's metric; the face normals come from derivatives of the interpolated position and
// the texel choice of nearest filtering in perspective may differ along texel edges, so the bound is a
// small fraction of pixels over 16/255, not bit equality.
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "shader_vkcube_frag.h"
#include "shader_vkcube_vert.h"
#include "tests/gsgpu/vk/texture_fixture.h"

namespace gsgpu::vk::test {
namespace {

using Mat4 = std::array<float, 16>;  // column-major, as GLSL's mat4

Mat4 multiply(const Mat4& a, const Mat4& b) {
  Mat4 r{};
  for (int c = 0; c < 4; ++c)
    for (int row = 0; row < 4; ++row)
      for (int k = 0; k < 4; ++k) r[c * 4 + row] += a[k * 4 + row] * b[c * 4 + k];
  return r;
}

// vkcube's camera: perspective(45°, 1, 0.1, 100) with Vulkan's y flipped, lookAt((0, 3, 5), 0, +y).
Mat4 view_projection() {
  const float f = 1.0f / std::tan(0.5f * 45.0f * 3.14159265f / 180.0f), n = 0.1f, far = 100.0f;
  Mat4 p{};
  p[0] = f;
  p[5] = -f;  // Vulkan's clip space has y down
  p[10] = far / (n - far);
  p[11] = -1;
  p[14] = far * n / (n - far);
  const float eye[3] = {0, 3, 5};
  float z[3] = {eye[0], eye[1], eye[2]};  // from the origin to the eye
  const float zl = std::sqrt(z[0] * z[0] + z[1] * z[1] + z[2] * z[2]);
  for (float& c : z) c /= zl;
  const float x[3] = {z[2], 0, -z[0]};  // up (0, 1, 0) x z, normalised below
  const float xl = std::sqrt(x[0] * x[0] + x[2] * x[2]);
  const float xn[3] = {x[0] / xl, 0, x[2] / xl};
  const float y[3] = {z[1] * xn[2] - z[2] * xn[1], z[2] * xn[0] - z[0] * xn[2], z[0] * xn[1] - z[1] * xn[0]};
  Mat4 v{};
  for (int i = 0; i < 3; ++i) {
    v[i * 4 + 0] = xn[i];
    v[i * 4 + 1] = y[i];
    v[i * 4 + 2] = z[i];
  }
  v[12] = -(xn[0] * eye[0] + xn[1] * eye[1] + xn[2] * eye[2]);
  v[13] = -(y[0] * eye[0] + y[1] * eye[1] + y[2] * eye[2]);
  v[14] = -(z[0] * eye[0] + z[1] * eye[1] + z[2] * eye[2]);
  v[15] = 1;
  return multiply(p, v);
}

Mat4 rotation_y(float degrees) {
  const float a = degrees * 3.14159265f / 180.0f;
  return Mat4{std::cos(a), 0, -std::sin(a), 0, 0, 1, 0, 0, std::sin(a), 0, std::cos(a), 0, 0, 0, 0, 1};
}

// The cube of vulkan-tools' cube.c: 6 faces of two triangles, counter-clockwise seen from outside.
constexpr float kPositions[36][3] = {
    {-1, -1, -1}, {-1, -1, 1}, {-1, 1, 1},  {-1, 1, 1},  {-1, 1, -1}, {-1, -1, -1},  // -X
    {-1, -1, -1}, {1, 1, -1},  {1, -1, -1}, {-1, -1, -1}, {-1, 1, -1}, {1, 1, -1},   // -Z
    {-1, -1, -1}, {1, -1, -1}, {1, -1, 1},  {-1, -1, -1}, {1, -1, 1},  {-1, -1, 1},  // -Y
    {-1, 1, -1},  {-1, 1, 1},  {1, 1, 1},   {-1, 1, -1},  {1, 1, 1},   {1, 1, -1},   // +Y
    {1, 1, -1},   {1, 1, 1},   {1, -1, 1},  {1, -1, 1},   {1, -1, -1}, {1, 1, -1},   // +X
    {-1, 1, 1},   {-1, -1, 1}, {1, 1, 1},   {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},    // +Z
};
constexpr float kUvs[36][2] = {
    {0, 1}, {1, 1}, {1, 0}, {1, 0}, {0, 0}, {0, 1},  // -X
    {1, 1}, {0, 0}, {0, 1}, {1, 1}, {1, 0}, {0, 0},  // -Z
    {1, 0}, {1, 1}, {0, 1}, {1, 0}, {0, 1}, {0, 0},  // -Y
    {1, 0}, {0, 0}, {0, 1}, {1, 0}, {0, 1}, {1, 1},  // +Y
    {1, 0}, {0, 0}, {0, 1}, {0, 1}, {1, 1}, {1, 0},  // +X
    {0, 0}, {0, 1}, {1, 0}, {0, 1}, {1, 1}, {1, 0},  // +Z
};

// The uniform buffer of cube.vert (std140): mat4 MVP, vec4 position[36], vec4 attr[36].
struct CubeUniforms {
  Mat4 mvp;
  float position[36][4];
  float attr[36][4];
};
static_assert(sizeof(CubeUniforms) == 64 + 2 * 576);

CubeUniforms cube_uniforms(float degrees) {
  CubeUniforms u{};
  u.mvp = multiply(view_projection(), rotation_y(degrees));
  for (int i = 0; i < 36; ++i) {
    std::memcpy(u.position[i], kPositions[i], sizeof kPositions[i]);
    u.position[i][3] = 1;
    u.attr[i][0] = kUvs[i][0];
    u.attr[i][1] = kUvs[i][1];
  }
  return u;
}

// A 64 x 64 stand-in for LunarG's logo: soft gradients with a ring, so that a texel chosen one
// step apart differs by a few 1/255 steps, not by the whole range.
Texel logo(uint32_t, uint32_t, uint32_t x, uint32_t y) {
  const float dx = float(x) - 31.5f, dy = float(y) - 31.5f, r = std::sqrt(dx * dx + dy * dy);
  const bool ring = r > 18 && r < 24;
  return {uint8_t(ring ? 230 : 40 + 2 * x), uint8_t(ring ? 230 : 60 + y), uint8_t(ring ? 240 : 150), 255};
}

struct CubeObjects {
  VkDevice device = VK_NULL_HANDLE;
  Texture texture;
  VkSampler sampler = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  VkShaderModule modules[2] = {};
  ~CubeObjects() {
    vkDeviceWaitIdle(device);
    for (VkShaderModule m : modules) vkDestroyShaderModule(device, m, nullptr);
    vkDestroyDescriptorPool(device, pool, nullptr);
    vkDestroyPipelineLayout(device, layout, nullptr);
    vkDestroyDescriptorSetLayout(device, set_layout, nullptr);
    vkDestroySampler(device, sampler, nullptr);
    vkDestroyImageView(device, texture.view, nullptr);
    vkDestroyImage(device, texture.image, nullptr);
    vkFreeMemory(device, texture.memory, nullptr);
  }
};

// vkcube's descriptor set: the uniform buffer at binding 0 (vertex), the texture at binding 1.
VkDescriptorSet cube_set(DrawSide& side, float degrees, CubeObjects* o) {
  const VkDescriptorSetLayoutBinding bindings[2] = {
      {0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1, VK_SHADER_STAGE_VERTEX_BIT, nullptr},
      {1, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, nullptr}};
  VkDescriptorSetLayoutCreateInfo set_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  set_info.bindingCount = 2;
  set_info.pBindings = bindings;
  EXPECT_EQ(vkCreateDescriptorSetLayout(o->device, &set_info, nullptr, &o->set_layout), VK_SUCCESS);
  VkPipelineLayoutCreateInfo layout_info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layout_info.setLayoutCount = 1;
  layout_info.pSetLayouts = &o->set_layout;
  EXPECT_EQ(vkCreatePipelineLayout(o->device, &layout_info, nullptr, &o->layout), VK_SUCCESS);
  const VkDescriptorPoolSize sizes[2] = {{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1},
                                         {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1}};
  VkDescriptorPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  pool_info.maxSets = 1;
  pool_info.poolSizeCount = 2;
  pool_info.pPoolSizes = sizes;
  EXPECT_EQ(vkCreateDescriptorPool(o->device, &pool_info, nullptr, &o->pool), VK_SUCCESS);
  VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  alloc.descriptorPool = o->pool;
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = &o->set_layout;
  VkDescriptorSet set = VK_NULL_HANDLE;
  EXPECT_EQ(vkAllocateDescriptorSets(o->device, &alloc, &set), VK_SUCCESS);
  // cube.c's sampler: nearest, clamp to edge, LOD 0.
  VkSamplerCreateInfo s{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  s.magFilter = s.minFilter = VK_FILTER_NEAREST;
  s.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
  s.addressModeU = s.addressModeV = s.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
  s.borderColor = VK_BORDER_COLOR_FLOAT_OPAQUE_WHITE;
  EXPECT_EQ(vkCreateSampler(o->device, &s, nullptr, &o->sampler), VK_SUCCESS);
  uint8_t* bytes = nullptr;
  const CubeUniforms uniforms = cube_uniforms(degrees);
  VkBuffer ubo = side.buffer(sizeof uniforms, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, &bytes);
  std::memcpy(bytes, &uniforms, sizeof uniforms);
  const VkDescriptorBufferInfo buffer_info{ubo, 0, VK_WHOLE_SIZE};
  const VkDescriptorImageInfo image_info{o->sampler, o->texture.view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
  VkWriteDescriptorSet writes[2] = {{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET}, {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET}};
  writes[0].dstSet = writes[1].dstSet = set;
  writes[0].descriptorCount = writes[1].descriptorCount = 1;
  writes[0].descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
  writes[0].pBufferInfo = &buffer_info;
  writes[1].dstBinding = 1;
  writes[1].descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
  writes[1].pImageInfo = &image_info;
  vkUpdateDescriptorSets(o->device, 2, writes, 0, nullptr);
  return set;
}

// One frame of the cube turned by `degrees`, size x size, on one side.
DrawFrame render_cube(DrawSide& side, uint32_t size, float degrees) {
  CubeObjects o;
  o.device = side.device();
  o.texture = make_texture(side, 64, 1, logo);
  const VkDescriptorSet set = cube_set(side, degrees, &o);
  o.modules[0] = shader_module(o.device, shader_vkcube_vert, sizeof shader_vkcube_vert);
  o.modules[1] = shader_module(o.device, shader_vkcube_frag, sizeof shader_vkcube_frag);
  DrawScene scene;
  scene.width = scene.height = size;
  scene.depth = true;
  scene.depth_format = VK_FORMAT_D16_UNORM;
  scene.clear[0] = scene.clear[1] = scene.clear[2] = 0.2f;
  DrawSide::Targets t = side.targets(scene);
  VkPipelineShaderStageCreateInfo stages[2] = {{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO},
                                               {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO}};
  stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
  stages[0].module = o.modules[0];
  stages[0].pName = "main";
  stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
  stages[1].module = o.modules[1];
  stages[1].pName = "main";
  VkPipelineVertexInputStateCreateInfo vi{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  VkPipelineDepthStencilStateCreateInfo ds{VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO};
  ds.depthTestEnable = ds.depthWriteEnable = VK_TRUE;
  ds.depthCompareOp = VK_COMPARE_OP_LESS_OR_EQUAL;
  VkPipeline pipeline = VK_NULL_HANDLE;
  EXPECT_EQ(side.pipeline(t.pass, true, VK_CULL_MODE_BACK_BIT,
                          [&](VkGraphicsPipelineCreateInfo& info) {
                            info.pStages = stages;
                            info.pVertexInputState = &vi;
                            info.pDepthStencilState = &ds;
                            info.layout = o.layout;
                          },
                          &pipeline),
            VK_SUCCESS);
  side.begin_pass(scene, t);
  VkCommandBuffer cb = side.cb();
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
  vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, o.layout, 0, 1, &set, 0, nullptr);
  vkCmdDraw(cb, 36, 1, 0, 0);
  return side.finish(scene, t);
}

class VkcubeScene : public BothDrivers {};

// Three turns of the cube, 128 x 128: the lit, textured faces where lavapipe draws them.
TEST_F(VkcubeScene, VkcubesFrameMatchesLavapipe) {
  constexpr uint32_t kSize = 128;
  for (float degrees : {0.0f, 30.0f, 75.0f}) {
    const DrawFrame gs = render_cube(*gsgpu_, kSize, degrees), ref = render_cube(*lavapipe_, kSize, degrees);
    char name[32];
    std::snprintf(name, sizeof name, "vkcube at %g degrees", double(degrees));
    const FrameComparison c = compare_frames(kSize, gs, ref, name);
    EXPECT_LE(c.over_16, kSize * kSize / 100) << name;  // under 1% of the pixels
    // The cube covers the middle (not the clear colour) and its edges agree.
    EXPECT_NE(frame_pixel(gs, kSize, kSize / 2, kSize / 2), (Texel{51, 51, 51, 255})) << name;
    EXPECT_EQ(frame_pixel(gs, kSize, 2, 2), (Texel{51, 51, 51, 255})) << name;
    uint32_t covered = 0;
    for (uint32_t y = 0; y < kSize; ++y)
      for (uint32_t x = 0; x < kSize; ++x) covered += frame_pixel(gs, kSize, x, y) != Texel{51, 51, 51, 255};
    std::printf("[vktexture] %s: the cube covers %u pixels\n", name, covered);
    EXPECT_GT(covered, kSize * kSize / 5) << name;
  }
}

}  // namespace
}  // namespace gsgpu::vk::test
