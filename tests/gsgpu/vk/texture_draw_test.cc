// Textured draws through the Vulkan driver: GLSL texture() on a combined image
// sampler (shaders/texture_draw.*), on gsgpu and on lavapipe in one instance,
// with the same code (draw_fixture.h for the device, targets and read-back).
// Each scene is a quad over the whole target whose texture coordinates span
// [u0, u1] x [v0, v1], sampling an RGBA8 texture (with mip levels where the
// scene has them) through one sampler. The frames are compared with
// docs/graphics.md's metric (pixels over 16/255, the largest difference), and
// bit for bit where Vulkan fixes the result: nearest filtering away from texel
// edges, one mip level chosen, a solid level filtered. Hostile: an unwritten
// descriptor and a descriptor whose view and memory are gone end in a reported
// fault of the draw, and the device draws afterwards.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

#include "shader_texture_draw_frag.h"
#include "shader_texture_draw_vert.h"
#include "shader_texture_layers_frag.h"
#include "shader_texture_separate_frag.h"
#include "shader_texture_uint_frag.h"
#include "tests/gsgpu/vk/texture_fixture.h"

namespace gsgpu::vk::test {
namespace {

struct TextureScene {
  uint32_t size = 64;         // the square target
  uint32_t texture_size = 8;  // level 0, square
  uint32_t levels = 1;
  TexelFunction texel;
  VkSamplerCreateInfo sampler{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  float u0 = 0, u1 = 1, v0 = 0, v1 = 1;
  bool write_descriptor = true;  // false: the set's descriptor is never written
  bool destroy_texture = false;  // the view, image and memory are destroyed after the write
  // The fragment shader: texture_draw.frag (combined), texture_separate.frag (a sampled image and a
  // sampler binding), texture_layers.frag (a 2D array of `layers` layers).
  // texture_uint.frag (kUnsigned): a usampler2D of an R8G8B8A8_UINT texture, written as n / 255.
  enum class Shader { kCombined, kSeparate, kLayers, kUnsigned } shader = Shader::kCombined;
  uint32_t layers = 1;
  // The texture's format when not R8G8B8A8 (UNORM, or UINT for kUnsigned): a 4-byte format whose
  // texels are `texel`'s bytes.
  VkFormat format = VK_FORMAT_UNDEFINED;
  VkComponentMapping components{};  // the view's mapping (zero: identity)
};

struct QuadVertex {
  float x, y, u, v;
};

// The Vulkan objects of one textured draw that the side does not own, destroyed at the end.
struct TextureObjects {
  VkDevice device = VK_NULL_HANDLE;
  Texture texture;
  VkSampler sampler = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  VkShaderModule modules[2] = {};
  ~TextureObjects() {
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

// The descriptor set: binding 1, a combined image sampler for the fragment stage, or (separate)
// binding 1 the sampled image and binding 2 the sampler.
VkDescriptorSet texture_set(const TextureScene& s, TextureObjects* o) {
  const VkShaderStageFlags fragment = VK_SHADER_STAGE_FRAGMENT_BIT;
  const VkDescriptorSetLayoutBinding combined[1] = {
      {1, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, fragment, nullptr}};
  const VkDescriptorSetLayoutBinding separate_bindings[2] = {{1, VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, 1, fragment, nullptr},
                                                    {2, VK_DESCRIPTOR_TYPE_SAMPLER, 1, fragment, nullptr}};
  const bool separate = s.shader == TextureScene::Shader::kSeparate;
  const uint32_t count = separate ? 2 : 1;
  VkDescriptorSetLayoutCreateInfo set_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  set_info.bindingCount = count;
  set_info.pBindings = separate ? separate_bindings : combined;
  EXPECT_EQ(vkCreateDescriptorSetLayout(o->device, &set_info, nullptr, &o->set_layout), VK_SUCCESS);
  VkPipelineLayoutCreateInfo layout_info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layout_info.setLayoutCount = 1;
  layout_info.pSetLayouts = &o->set_layout;
  EXPECT_EQ(vkCreatePipelineLayout(o->device, &layout_info, nullptr, &o->layout), VK_SUCCESS);
  const VkDescriptorPoolSize sizes[3] = {{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1},
                                         {VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, 1},
                                         {VK_DESCRIPTOR_TYPE_SAMPLER, 1}};
  VkDescriptorPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  pool_info.maxSets = 1;
  pool_info.poolSizeCount = 3;
  pool_info.pPoolSizes = sizes;
  EXPECT_EQ(vkCreateDescriptorPool(o->device, &pool_info, nullptr, &o->pool), VK_SUCCESS);
  VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  alloc.descriptorPool = o->pool;
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = &o->set_layout;
  VkDescriptorSet set = VK_NULL_HANDLE;
  EXPECT_EQ(vkAllocateDescriptorSets(o->device, &alloc, &set), VK_SUCCESS);
  EXPECT_EQ(vkCreateSampler(o->device, &s.sampler, nullptr, &o->sampler), VK_SUCCESS);
  if (!s.write_descriptor) return set;
  const VkDescriptorImageInfo image{o->sampler, o->texture.view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
  VkWriteDescriptorSet writes[2] = {{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET}, {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET}};
  for (uint32_t i = 0; i < count; ++i) {
    writes[i].dstSet = set;
    writes[i].dstBinding = 1 + i;
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = set_info.pBindings[i].descriptorType;
    writes[i].pImageInfo = &image;
  }
  vkUpdateDescriptorSets(o->device, count, writes, 0, nullptr);
  return set;
}

// Renders the scene on one side: the texture, the set, the pipeline (the
// fixture's, with the texture shaders, their vertex input and layout), a quad of two triangles.
DrawFrame render(DrawSide& side, const TextureScene& s) {
  TextureObjects o;
  o.device = side.device();
  const VkFormat rgba8 =
      s.shader == TextureScene::Shader::kUnsigned ? VK_FORMAT_R8G8B8A8_UINT : VK_FORMAT_R8G8B8A8_UNORM;
  o.texture = make_texture(side, s.texture_size, s.levels, s.texel, s.layers,
                           s.format != VK_FORMAT_UNDEFINED ? s.format : rgba8, false, s.components);
  const VkDescriptorSet set = texture_set(s, &o);
  if (s.destroy_texture) {
    vkDestroyImageView(o.device, o.texture.view, nullptr);
    vkDestroyImage(o.device, o.texture.image, nullptr);
    vkFreeMemory(o.device, o.texture.memory, nullptr);
    o.texture = {};
  }
  o.modules[0] = shader_module(o.device, shader_texture_draw_vert, sizeof shader_texture_draw_vert);
  switch (s.shader) {
    case TextureScene::Shader::kCombined:
      o.modules[1] = shader_module(o.device, shader_texture_draw_frag, sizeof shader_texture_draw_frag);
      break;
    case TextureScene::Shader::kSeparate:
      o.modules[1] = shader_module(o.device, shader_texture_separate_frag, sizeof shader_texture_separate_frag);
      break;
    case TextureScene::Shader::kLayers:
      o.modules[1] = shader_module(o.device, shader_texture_layers_frag, sizeof shader_texture_layers_frag);
      break;
    case TextureScene::Shader::kUnsigned:
      o.modules[1] = shader_module(o.device, shader_texture_uint_frag, sizeof shader_texture_uint_frag);
      break;
  }
  DrawScene scene;
  scene.width = scene.height = s.size;
  scene.clear[0] = 0.2f;  // 51/255
  DrawSide::Targets t = side.targets(scene);
  VkPipelineShaderStageCreateInfo stages[2] = {{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO},
                                               {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO}};
  stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
  stages[0].module = o.modules[0];
  stages[0].pName = "main";
  stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
  stages[1].module = o.modules[1];
  stages[1].pName = "main";
  VkVertexInputBindingDescription binding{0, sizeof(QuadVertex), VK_VERTEX_INPUT_RATE_VERTEX};
  VkVertexInputAttributeDescription attributes[2] = {{0, 0, VK_FORMAT_R32G32_SFLOAT, 0},
                                                     {1, 0, VK_FORMAT_R32G32_SFLOAT, 8}};
  VkPipelineVertexInputStateCreateInfo vi{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  vi.vertexBindingDescriptionCount = 1;
  vi.pVertexBindingDescriptions = &binding;
  vi.vertexAttributeDescriptionCount = 2;
  vi.pVertexAttributeDescriptions = attributes;
  VkPipeline pipeline = VK_NULL_HANDLE;
  EXPECT_EQ(side.pipeline(
                t.pass, false, VK_CULL_MODE_NONE,
                [&](VkGraphicsPipelineCreateInfo& info) {
                  info.pStages = stages;
                  info.pVertexInputState = &vi;
                  info.layout = o.layout;
                },
                &pipeline),
            VK_SUCCESS);
  const QuadVertex quad[6] = {{-1, -1, s.u0, s.v0}, {1, -1, s.u1, s.v0}, {1, 1, s.u1, s.v1},
                              {-1, -1, s.u0, s.v0}, {1, 1, s.u1, s.v1},  {-1, 1, s.u0, s.v1}};
  uint8_t* vbytes = nullptr;
  VkBuffer vb = side.buffer(sizeof quad, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &vbytes);
  std::memcpy(vbytes, quad, sizeof quad);
  side.begin_pass(scene, t);
  VkCommandBuffer cb = side.cb();
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
  VkDeviceSize offset = 0;
  vkCmdBindVertexBuffers(cb, 0, 1, &vb, &offset);
  vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, o.layout, 0, 1, &set, 0, nullptr);
  vkCmdDraw(cb, 6, 1, 0, 0);
  return side.finish(scene, t);
}

VkSamplerCreateInfo sampler(VkFilter filter, VkSamplerAddressMode address,
                            VkSamplerMipmapMode mip = VK_SAMPLER_MIPMAP_MODE_NEAREST, float max_lod = 0.0f) {
  VkSamplerCreateInfo info{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  info.magFilter = info.minFilter = filter;
  info.mipmapMode = mip;
  info.addressModeU = info.addressModeV = info.addressModeW = address;
  info.maxLod = max_lod;
  info.borderColor = VK_BORDER_COLOR_FLOAT_OPAQUE_WHITE;
  return info;
}

// 8 x 8 texels, each its own colour: r and g from x and y, b a checkerboard.
Texel pattern(uint32_t, uint32_t, uint32_t x, uint32_t y) {
  return {uint8_t(x * 32 + 16), uint8_t(y * 32 + 16), uint8_t((x + y) % 2 ? 240 : 10), 255};
}

// Level n solid in its own colour (so any filtering inside one level is exact).
Texel level_colour(uint32_t level, uint32_t, uint32_t, uint32_t) {
  static const Texel colours[] = {{255, 0, 0, 255},   {0, 255, 0, 255},   {0, 0, 255, 255},    {255, 255, 0, 255},
                                  {255, 0, 255, 255}, {0, 255, 255, 255}, {128, 128, 128, 255}};
  return colours[level % 7];
}

class VkTextureDraw : public BothDrivers {
 protected:
  // Renders on both; the comparison is printed and returned.
  FrameComparison both(const TextureScene& s, const char* name, DrawFrame* gs = nullptr, DrawFrame* ref = nullptr) {
    DrawFrame g = render(*gsgpu_, s), l = render(*lavapipe_, s);
    const FrameComparison c = compare_frames(s.size, g, l, name);
    if (gs) *gs = std::move(g);
    if (ref) *ref = std::move(l);
    return c;
  }
};

// Magnified 8 times with nearest filtering: every pixel centre is a quarter
// texel or more from a texel edge, so each pixel is its texel, bit for bit, on both drivers.
TEST_F(VkTextureDraw, NearestMagnificationIsExact) {
  TextureScene s;
  s.texel = pattern;
  s.sampler = sampler(VK_FILTER_NEAREST, VK_SAMPLER_ADDRESS_MODE_REPEAT);
  DrawFrame gs;
  const FrameComparison c = both(s, "nearest", &gs);
  EXPECT_EQ(c.differing, 0u);
  for (uint32_t y = 0; y < s.size; y += 5)
    for (uint32_t x = 0; x < s.size; x += 3)
      EXPECT_EQ(frame_pixel(gs, s.size, x, y), pattern(0, 0, x / 8, y / 8)) << x << "," << y;
}

// The unsigned packed float formats (GL_R11F_G11F_B10F, GL_RGB9_E5) sampled: texels of values in
// [0, 1.5] (a target clamps above 1), nearest (bit for bit once stored as RGBA8) and linear (the
// metric). The packed words are built here by hand from their bit layouts.
Texel b10g11r11_texel(uint32_t, uint32_t, uint32_t x, uint32_t y) {
  // r: exponent 14 (0.5 .. 1), mantissa 8x; g: exponent 15 (1 ..), mantissa 4y (clamped to 1 by the
  // target where it passes 1); b: a 10-bit subnormal or small value from x + y.
  const uint32_t r = (14u << 6) | (8 * x), g = ((y % 2 ? 15u : 13u) << 6) | (4 * y), b = ((x + y) % 32) << 2;
  const uint32_t word = r | g << 11 | b << 22;
  return {uint8_t(word), uint8_t(word >> 8), uint8_t(word >> 16), uint8_t(word >> 24)};
}

Texel e5b9g9r9_texel(uint32_t, uint32_t, uint32_t x, uint32_t y) {
  // Exponent 15 or 16: values m / 512 or m / 256; mantissas spread over 0 .. 511.
  const uint32_t r = 60 * x + 7, g = 500 - 50 * y, b = (x * y * 37) % 512, e = (x + y) % 3 ? 15u : 16u;
  const uint32_t word = r | g << 9 | b << 18 | e << 27;
  return {uint8_t(word), uint8_t(word >> 8), uint8_t(word >> 16), uint8_t(word >> 24)};
}

TEST_F(VkTextureDraw, PackedFloatTexturesMatchLavapipe) {
  for (VkFormat format : {VK_FORMAT_B10G11R11_UFLOAT_PACK32, VK_FORMAT_E5B9G9R9_UFLOAT_PACK32}) {
    TextureScene s;
    s.format = format;
    s.texel = format == VK_FORMAT_B10G11R11_UFLOAT_PACK32 ? b10g11r11_texel : e5b9g9r9_texel;
    s.sampler = sampler(VK_FILTER_NEAREST, VK_SAMPLER_ADDRESS_MODE_REPEAT);
    const FrameComparison nearest = both(s, format == VK_FORMAT_B10G11R11_UFLOAT_PACK32 ? "b10g11r11 nearest" : "e5b9g9r9 nearest");
    EXPECT_EQ(nearest.differing, 0u) << format;
    s.sampler = sampler(VK_FILTER_LINEAR, VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE);
    const FrameComparison linear = both(s, format == VK_FORMAT_B10G11R11_UFLOAT_PACK32 ? "b10g11r11 linear" : "e5b9g9r9 linear");
    EXPECT_EQ(linear.over_16, 0u) << format;
    EXPECT_LE(linear.max_diff, 3u) << format;
  }
}

// Bilinear filtering (clamp to edge): the weights' rounding differs between
// implementations, so the metric: no pixel over 16/255, the largest difference a few steps.
TEST_F(VkTextureDraw, LinearMagnificationMatchesLavapipe) {
  TextureScene s;
  s.texel = pattern;
  s.sampler = sampler(VK_FILTER_LINEAR, VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE);
  const FrameComparison c = both(s, "linear");
  EXPECT_EQ(c.over_16, 0u);
  EXPECT_LE(c.max_diff, 3u);
}

// Coordinates from -1 to 2 over 48 pixels (two pixels a texel, centres a
// quarter texel from the edges) through each addressing mode, nearest: exact.
TEST_F(VkTextureDraw, AddressingModesMatchLavapipeExactly) {
  const VkSamplerAddressMode modes[] = {VK_SAMPLER_ADDRESS_MODE_REPEAT, VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT,
                                        VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE, VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER};
  const char* names[] = {"repeat", "mirrored repeat", "clamp to edge", "clamp to border (opaque white)"};
  for (int m = 0; m < 4; ++m) {
    TextureScene s;
    s.size = 48;
    s.texel = pattern;
    s.sampler = sampler(VK_FILTER_NEAREST, modes[m]);
    s.u0 = s.v0 = -1;
    s.u1 = s.v1 = 2;
    DrawFrame gs;
    const FrameComparison c = both(s, names[m], &gs);
    EXPECT_EQ(c.differing, 0u) << names[m];
    if (modes[m] == VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER) {
      EXPECT_EQ(frame_pixel(gs, s.size, 2, 2), (Texel{255, 255, 255, 255}));
      EXPECT_EQ(frame_pixel(gs, s.size, 24, 24), pattern(0, 0, 4, 4));
    }
  }
  // Transparent black border: (0, 0, 0, 0) outside.
  TextureScene s;
  s.size = 48;
  s.texel = pattern;
  s.sampler = sampler(VK_FILTER_NEAREST, VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER);
  s.sampler.borderColor = VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK;
  s.u0 = s.v0 = -1;
  s.u1 = s.v1 = 2;
  DrawFrame gs;
  EXPECT_EQ(both(s, "clamp to border (transparent black)", &gs).differing, 0u);
  EXPECT_EQ(frame_pixel(gs, s.size, 45, 45), (Texel{0, 0, 0, 0}));
}

// VK_KHR_sampler_mirror_clamp_to_edge and the six built-in border colours, nearest over -1..2 as
// above: exact. The integer colours on an R8G8B8A8_UINT texture through a usampler2D.
TEST_F(VkTextureDraw, MirrorClampAndEveryBuiltInBorderColourMatchLavapipeExactly) {
  TextureScene s;
  s.size = 48;
  s.texel = pattern;
  s.u0 = s.v0 = -1;
  s.u1 = s.v1 = 2;
  s.sampler = sampler(VK_FILTER_NEAREST, VK_SAMPLER_ADDRESS_MODE_MIRROR_CLAMP_TO_EDGE);
  DrawFrame gs;
  EXPECT_EQ(both(s, "mirror clamp to edge", &gs).differing, 0u);
  // Pixel 2's centre is at u = v = -0.84375, texel coordinate -6.75: texel -7, mirrored to 6.
  EXPECT_EQ(frame_pixel(gs, s.size, 2, 2), pattern(0, 0, 6, 6));
  EXPECT_EQ(frame_pixel(gs, s.size, 17, 17), pattern(0, 0, 0, 0));  // u = v = 0.09375
  EXPECT_EQ(frame_pixel(gs, s.size, 46, 46), pattern(0, 0, 7, 7));  // past 1: clamped to the edge
  s.sampler = sampler(VK_FILTER_NEAREST, VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER);
  const VkBorderColor floats[] = {VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK, VK_BORDER_COLOR_FLOAT_OPAQUE_BLACK,
                                  VK_BORDER_COLOR_FLOAT_OPAQUE_WHITE};
  for (VkBorderColor colour : floats) {
    s.sampler.borderColor = colour;
    EXPECT_EQ(both(s, "float border", &gs).differing, 0u) << colour;
  }
  s.shader = TextureScene::Shader::kUnsigned;
  const VkBorderColor integers[] = {VK_BORDER_COLOR_INT_TRANSPARENT_BLACK, VK_BORDER_COLOR_INT_OPAQUE_BLACK,
                                    VK_BORDER_COLOR_INT_OPAQUE_WHITE};
  for (VkBorderColor colour : integers) {
    s.sampler.borderColor = colour;
    EXPECT_EQ(both(s, "integer border", &gs).differing, 0u) << colour;
  }
  EXPECT_EQ(frame_pixel(gs, s.size, 2, 2), (Texel{1, 1, 1, 1}));  // opaque white (1, 1, 1, 1) written as n / 255
}

// VK_EXT_custom_border_color on both devices (customBorderColors, customBorderColorWithoutFormat):
// a float colour on RGBA8 UNORM with nearest and linear filtering, an integer one on RGBA8 UINT.
class VkCustomBorder : public VkTextureDraw {
 protected:
  VkCustomBorder() {
    features_.customBorderColors = VK_TRUE;
    features_.customBorderColorWithoutFormat = VK_TRUE;
    device_request_.extensions = {VK_EXT_CUSTOM_BORDER_COLOR_EXTENSION_NAME};
    device_request_.next = &features_;
  }
  VkPhysicalDeviceCustomBorderColorFeaturesEXT features_{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_CUSTOM_BORDER_COLOR_FEATURES_EXT};
};

TEST_F(VkCustomBorder, FloatAndIntegerColoursMatchLavapipe) {
  VkSamplerCustomBorderColorCreateInfoEXT custom{VK_STRUCTURE_TYPE_SAMPLER_CUSTOM_BORDER_COLOR_CREATE_INFO_EXT};
  const float colour[4] = {0.2f, 0.6f, 1.0f, 0.4f};  // 51, 153, 255, 102 in 1/255 steps
  std::memcpy(custom.customBorderColor.float32, colour, sizeof colour);
  custom.format = VK_FORMAT_UNDEFINED;  // customBorderColorWithoutFormat
  TextureScene s;
  s.size = 48;
  s.texel = pattern;
  s.u0 = s.v0 = -1;
  s.u1 = s.v1 = 2;
  s.sampler = sampler(VK_FILTER_NEAREST, VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER);
  s.sampler.borderColor = VK_BORDER_COLOR_FLOAT_CUSTOM_EXT;
  s.sampler.pNext = &custom;
  DrawFrame gs;
  EXPECT_EQ(both(s, "custom float border", &gs).differing, 0u);
  EXPECT_EQ(frame_pixel(gs, s.size, 2, 40), (Texel{51, 153, 255, 102}));
  s.sampler.magFilter = s.sampler.minFilter = VK_FILTER_LINEAR;  // the border mixed into the edge texels
  const FrameComparison linear = both(s, "custom float border, linear", &gs);
  EXPECT_EQ(linear.over_16, 0u);
  EXPECT_LE(linear.max_diff, 1u);

  const int32_t integers[4] = {200, 100, 50, 255};
  std::memcpy(custom.customBorderColor.int32, integers, sizeof integers);
  s.shader = TextureScene::Shader::kUnsigned;
  s.sampler.magFilter = s.sampler.minFilter = VK_FILTER_NEAREST;
  s.sampler.borderColor = VK_BORDER_COLOR_INT_CUSTOM_EXT;
  EXPECT_EQ(both(s, "custom integer border", &gs).differing, 0u);
  EXPECT_EQ(frame_pixel(gs, s.size, 45, 3), (Texel{200, 100, 50, 255}));
}

// Border colours of views that lack components or swizzle them, as zink makes GL's formats: ALPHA8
// is R8 read (0, 0, 0, r), LUMINANCE8 R8 read (r, r, r, 1), INTENSITY8 R8 read (r, r, r, r), and
// R8 / R8G8 / R5G6B5 / B8G8R8A8 plain. The border is a texel of the view's format (components it
// lacks read 0, alpha 1), then the view's swizzle applies: VK_EXT_border_color_swizzle's
// borderColorSwizzleFromImage, enabled on both devices. Custom and built-in colours, nearest: every
// pixel equal to lavapipe's.
class VkBorderSwizzle : public VkTextureDraw {
 protected:
  VkBorderSwizzle() {
    custom_.customBorderColors = VK_TRUE;
    custom_.customBorderColorWithoutFormat = VK_TRUE;
    custom_.pNext = &swizzle_;
    swizzle_.borderColorSwizzle = VK_TRUE;
    swizzle_.borderColorSwizzleFromImage = VK_TRUE;
    device_request_.extensions = {VK_EXT_CUSTOM_BORDER_COLOR_EXTENSION_NAME, VK_EXT_BORDER_COLOR_SWIZZLE_EXTENSION_NAME};
    device_request_.next = &custom_;
  }
  VkPhysicalDeviceCustomBorderColorFeaturesEXT custom_{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_CUSTOM_BORDER_COLOR_FEATURES_EXT};
  VkPhysicalDeviceBorderColorSwizzleFeaturesEXT swizzle_{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BORDER_COLOR_SWIZZLE_FEATURES_EXT};
};

TEST_F(VkBorderSwizzle, ColoursAreTexelsOfTheViewsFormatThenSwizzled) {
  constexpr VkComponentSwizzle R = VK_COMPONENT_SWIZZLE_R, Z = VK_COMPONENT_SWIZZLE_ZERO,
                               O = VK_COMPONENT_SWIZZLE_ONE;
  struct Case {
    const char* name;
    VkFormat format;
    VkComponentMapping components;
    Texel custom_pixel;  // what the custom colour (51, 153, 255, 102) / 255 reads as
  };
  const Case cases[] = {
      {"R8", VK_FORMAT_R8_UNORM, {}, {51, 0, 0, 255}},
      {"R8G8", VK_FORMAT_R8G8_UNORM, {}, {51, 153, 0, 255}},
      {"R5G6B5", VK_FORMAT_R5G6B5_UNORM_PACK16, {}, {51, 153, 255, 255}},
      {"B8G8R8A8", VK_FORMAT_B8G8R8A8_UNORM, {}, {51, 153, 255, 102}},
      {"alpha", VK_FORMAT_R8_UNORM, {Z, Z, Z, R}, {0, 0, 0, 51}},
      {"luminance", VK_FORMAT_R8_UNORM, {R, R, R, O}, {51, 51, 51, 255}},
      {"intensity", VK_FORMAT_R8_UNORM, {R, R, R, R}, {51, 51, 51, 51}},
      {"rgba as bgra", VK_FORMAT_R8G8B8A8_UNORM,
       {VK_COMPONENT_SWIZZLE_B, VK_COMPONENT_SWIZZLE_G, R, VK_COMPONENT_SWIZZLE_A}, {255, 153, 51, 102}},
  };
  VkSamplerCustomBorderColorCreateInfoEXT custom{VK_STRUCTURE_TYPE_SAMPLER_CUSTOM_BORDER_COLOR_CREATE_INFO_EXT};
  const float colour[4] = {0.2f, 0.6f, 1.0f, 0.4f};
  std::memcpy(custom.customBorderColor.float32, colour, sizeof colour);
  for (const Case& c : cases) {
    TextureScene s;
    s.size = 32;
    s.texel = pattern;
    s.format = c.format;
    s.components = c.components;
    s.u0 = s.v0 = -1;
    s.u1 = s.v1 = 2;
    s.sampler = sampler(VK_FILTER_NEAREST, VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER);
    s.sampler.borderColor = VK_BORDER_COLOR_FLOAT_CUSTOM_EXT;
    s.sampler.pNext = &custom;
    DrawFrame gs;
    EXPECT_EQ(both(s, c.name, &gs).differing, 0u) << c.name;
    EXPECT_EQ(frame_pixel(gs, s.size, 1, 1), c.custom_pixel) << c.name;
    s.sampler.pNext = nullptr;
    for (VkBorderColor built_in : {VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK, VK_BORDER_COLOR_FLOAT_OPAQUE_WHITE}) {
      s.sampler.borderColor = built_in;
      EXPECT_EQ(both(s, c.name).differing, 0u) << c.name << " built-in " << built_in;
    }
  }
}

// A 64 x 64 texture of 7 solid levels on 64 x 64 pixels: coordinates 0..4 make
// the LOD 2, so nearest-mipmap sampling reads level 2 everywhere; the sampler's
// mipLodBias 1 over 0..2 does the same; maxLod 1 clamps 0..4 to level 1;
// LOD 1.5 with linear mipmaps mixes levels 1 and 2.
TEST_F(VkTextureDraw, MipmapsChooseTheLevelAsLavapipeDoes) {
  TextureScene s;
  s.texture_size = 64;
  s.levels = 7;
  s.texel = level_colour;
  s.sampler = sampler(VK_FILTER_NEAREST, VK_SAMPLER_ADDRESS_MODE_REPEAT, VK_SAMPLER_MIPMAP_MODE_NEAREST, 16.0f);
  s.u1 = s.v1 = 4;
  DrawFrame gs;
  EXPECT_EQ(both(s, "mip level 2", &gs).differing, 0u);
  EXPECT_EQ(frame_pixel(gs, s.size, 33, 17), level_colour(2, 0, 0, 0));

  s.u1 = s.v1 = 2;
  s.sampler.mipLodBias = 1.0f;
  EXPECT_EQ(both(s, "mipLodBias 1", &gs).differing, 0u);
  EXPECT_EQ(frame_pixel(gs, s.size, 40, 9), level_colour(2, 0, 0, 0));

  s.u1 = s.v1 = 4;
  s.sampler.mipLodBias = 0.0f;
  s.sampler.maxLod = 1.0f;
  EXPECT_EQ(both(s, "maxLod 1", &gs).differing, 0u);
  EXPECT_EQ(frame_pixel(gs, s.size, 5, 50), level_colour(1, 0, 0, 0));

  s.u1 = s.v1 = 2.0f * std::sqrt(2.0f);
  s.sampler = sampler(VK_FILTER_LINEAR, VK_SAMPLER_ADDRESS_MODE_REPEAT, VK_SAMPLER_MIPMAP_MODE_LINEAR, 16.0f);
  const FrameComparison c = both(s, "linear mipmaps, LOD 1.5", &gs);
  EXPECT_EQ(c.over_16, 0u);
  EXPECT_LE(c.max_diff, 4u);
  const Texel mixed = frame_pixel(gs, s.size, 30, 30);
  EXPECT_NEAR(mixed[1], 128, 6);  // half level 1 (green), half level 2 (blue)
  EXPECT_NEAR(mixed[2], 128, 6);
}

// A sampled image and a sampler in bindings of their own (each its own texture record), joined in
// the shader: textureLod 2 on the left half reads level 2, texelFetch of level 1 on the right reads
// level 1 (texel (16 u, 16 v) of the 32 x 32 level), whatever the coordinates' derivatives: exact.
TEST_F(VkTextureDraw, SeparateImageAndSamplerWithExplicitLodAndFetch) {
  TextureScene s;
  s.texture_size = 64;
  s.levels = 7;
  s.texel = level_colour;
  s.shader = TextureScene::Shader::kSeparate;
  s.sampler = sampler(VK_FILTER_LINEAR, VK_SAMPLER_ADDRESS_MODE_REPEAT, VK_SAMPLER_MIPMAP_MODE_NEAREST, 16.0f);
  DrawFrame gs;
  EXPECT_EQ(both(s, "separate image + sampler, textureLod / texelFetch", &gs).differing, 0u);
  EXPECT_EQ(frame_pixel(gs, s.size, 10, 20), level_colour(2, 0, 0, 0));
  EXPECT_EQ(frame_pixel(gs, s.size, 50, 40), level_colour(1, 0, 0, 0));
  // Vulkan adds the sampler's mipLodBias to an explicit LOD as well: level 3 on the left.
  s.sampler.mipLodBias = 1.0f;
  EXPECT_EQ(both(s, "separate, mipLodBias 1", &gs).differing, 0u);
  EXPECT_EQ(frame_pixel(gs, s.size, 10, 20), level_colour(3, 0, 0, 0));
}

// A 2D array of three layers, each the pattern with its own blue, nearest: layer 0, 1 and 2 across
// the thirds of the target, bit for bit.
TEST_F(VkTextureDraw, ArrayLayersMatchLavapipeExactly) {
  TextureScene s;
  s.shader = TextureScene::Shader::kLayers;
  s.layers = 3;
  s.texel = [](uint32_t, uint32_t layer, uint32_t x, uint32_t y) {
    Texel t = pattern(0, 0, x, y);
    t[2] = uint8_t(40 + 90 * layer);
    return t;
  };
  s.sampler = sampler(VK_FILTER_NEAREST, VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE);
  DrawFrame gs;
  EXPECT_EQ(both(s, "2D array, 3 layers", &gs).differing, 0u);
  EXPECT_EQ(frame_pixel(gs, s.size, 4, 30)[2], 40);
  EXPECT_EQ(frame_pixel(gs, s.size, 30, 30)[2], 130);
  EXPECT_EQ(frame_pixel(gs, s.size, 60, 30)[2], 220);
}

// The draw's limits say what the texture records allow (docs/vulkan-driver.md "Resource binding").
TEST_F(VkTextureDraw, LimitsReportTheTextureBindings) {
  VkPhysicalDeviceProperties p;
  vkGetPhysicalDeviceProperties(gsgpu_physical_, &p);
  EXPECT_EQ(p.limits.maxPerStageDescriptorSamplers, 64u);
  EXPECT_EQ(p.limits.maxPerStageDescriptorSampledImages, 64u);
  EXPECT_EQ(p.limits.maxDescriptorSetSamplers, 64u);
  EXPECT_EQ(p.limits.maxDescriptorSetSampledImages, 64u);
  EXPECT_EQ(p.limits.maxSamplerLodBias, 15.0f);
  VkFormatProperties f;
  vkGetPhysicalDeviceFormatProperties(gsgpu_physical_, VK_FORMAT_R8G8B8A8_UNORM, &f);
  EXPECT_NE(f.optimalTilingFeatures & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT, 0u);
  EXPECT_NE(f.optimalTilingFeatures & VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT, 0u);
}

// Hostile: a set whose descriptor was never written (its record's IMAGE_DESC is
// zero: the texture unit refuses it) and a descriptor whose view, image and
// memory were destroyed before the draw (its texels are unmapped, or reused).
// Each draw ends without a crash, the unwritten one drawing nothing (the fault
// ends the draw), and the device then draws a good textured scene.
TEST_F(VkTextureDraw, BrokenDescriptorsFaultTheDrawNotTheDevice) {
  TextureScene s;
  s.texel = pattern;
  s.sampler = sampler(VK_FILTER_NEAREST, VK_SAMPLER_ADDRESS_MODE_REPEAT);
  s.write_descriptor = false;
  const DrawFrame unwritten = render(*gsgpu_, s);
  for (uint32_t y = 0; y < s.size; y += 7)
    for (uint32_t x = 0; x < s.size; x += 7) EXPECT_EQ(frame_pixel(unwritten, s.size, x, y), (Texel{51, 0, 0, 255}));
  s.write_descriptor = true;
  s.destroy_texture = true;
  render(*gsgpu_, s);
  s.destroy_texture = false;
  const DrawFrame good = render(*gsgpu_, s);
  EXPECT_EQ(frame_pixel(good, s.size, 12, 44), pattern(0, 0, 1, 5));
}

}  // namespace
}  // namespace gsgpu::vk::test
