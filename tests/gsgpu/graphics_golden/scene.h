// One scene description drives both renders of a golden-image test: the gsgpu device (DRAW packets
// and state blocks) and lavapipe (a Vulkan pipeline with the same state). Enumerations carry Vulkan's
// values (VkPrimitiveTopology, VkCompareOp, VkStencilOp, VkBlendFactor, VkBlendOp, VkLogicOp,
// VkFormat), as gsgpu's state words do, so neither side translates them.
//
// The shading is what gsgpu's fixed stand-ins compute today (docs/graphics.md "Fixed stand-ins until
// shaders run"): a pass-through vertex stage (position = attribute 0, colour = attribute 1, second
// colour = attribute 2) and a fragment stage that outputs a constant colour or the interpolated
// colour. When the shader cores run real shaders, FragmentShading picks the programs instead.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace gsgpu::golden {

// VkFormat values the scenes use.
inline constexpr uint32_t kFormatNone = 0;
inline constexpr uint32_t kR8G8B8A8Unorm = 37;
inline constexpr uint32_t kR8G8B8A8Srgb = 43;
inline constexpr uint32_t kB8G8R8A8Unorm = 44;
inline constexpr uint32_t kB8G8R8A8Srgb = 50;
inline constexpr uint32_t kR32G32B32A32Sfloat = 109;
inline constexpr uint32_t kD32Sfloat = 126;
inline constexpr uint32_t kD24UnormS8Uint = 129;

// VkPrimitiveTopology
inline constexpr uint32_t kPointList = 0, kLineList = 1, kLineStrip = 2;
inline constexpr uint32_t kTriangleList = 3, kTriangleStrip = 4, kTriangleFan = 5;

using Vec4 = std::array<float, 4>;

struct Vertex {
  Vec4 position;            // clip space
  Vec4 color{1, 1, 1, 1};   // varying colour
  Vec4 color1{0, 0, 0, 0};  // varying second (dual-source) colour
};

enum class FragmentShading : uint8_t {
  kConstant,       // constant / constant1 (push constants on lavapipe, SHADER_STATE on gsgpu)
  kSmooth,         // interpolated colour, perspective-correct
  kNoPerspective,  // interpolated colour, linear in screen space
  kFlat,           // the provoking (first) vertex's colour
};

struct StencilFace {
  uint32_t fail_op = 0, pass_op = 0, depth_fail_op = 0;  // VkStencilOp (0 keep)
  uint32_t compare_op = 7;                               // VkCompareOp (7 always)
  uint32_t compare_mask = 0xFF, write_mask = 0xFF, reference = 0;
};

struct BlendState {
  bool enable = false;
  uint32_t src_color = 1, dst_color = 0, color_op = 0;  // VkBlendFactor one / zero, VkBlendOp add
  uint32_t src_alpha = 1, dst_alpha = 0, alpha_op = 0;
};

// A sampled 2D texture: RGBA8 texels of each mip level, tightly packed (level L is max(1, w >> L) x
// max(1, h >> L)). Lavapipe reads it at set 1, binding 0 (a combined image sampler); gsgpu through an
// IMAGE_DESC whose VA the textured fragment program holds (docs/graphics.md "Texturing").
struct Texture {
  uint32_t format = kR8G8B8A8Unorm;  // or kR8G8B8A8Srgb
  uint32_t width = 0, height = 0;
  std::vector<std::vector<uint8_t>> levels;
};

// The VkSamplerCreateInfo fields the scenes vary (Vulkan's values); gsgpu's SAMPLER_STATE word is
// built from them.
struct TextureSampler {
  bool mag_linear = false, min_linear = false, mipmap_linear = false;
  uint32_t address_u = 0, address_v = 0;  // VkSamplerAddressMode: repeat, mirrored, edge, border
  uint32_t border = 0;                    // VkBorderColor: 0 / 2 / 4 float transparent / opaque black / white
  float min_lod = 0, max_lod = 1000;      // 1000: VK_LOD_CLAMP_NONE
  float lod_bias = 0;                     // mipLodBias (gsgpu: the bias channel of the sample's coordinates)
};

struct Draw {
  std::vector<Vertex> vertices;
  std::vector<uint32_t> indices;  // empty: a non-indexed draw of every vertex
  bool index_u16 = false;
  bool primitive_restart = false;
  uint32_t topology = kTriangleList;
  // Point lists: the points' side (PIPE_STATE POINT_SIZE on gsgpu; gl_PointSize from a specialization
  // constant of the point vertex shader on lavapipe, which needs the largePoints feature beyond 1).
  float point_size = 1;
  // Lines: Bresenham (diamond-exit) instead of Vulkan's default rectangles (PIPE_STATE RASTER.LINE_MODE;
  // VK_EXT_line_rasterization's BRESENHAM mode on lavapipe).
  bool bresenham_lines = false;
  uint32_t instance_count = 1;
  // vkCmdDraw / vkCmdDrawIndexed parameters. `count` 0: every vertex (non-indexed) or index (indexed);
  // otherwise that many from first_vertex / first_index.
  uint32_t count = 0;
  uint32_t first_vertex = 0, first_index = 0, first_instance = 0;
  int32_t vertex_offset = 0;

  // Viewport x, y, width, height, min depth, max depth; width 0: the whole target, depths 0..1.
  std::array<float, 6> viewport{0, 0, 0, 0, 0, 1};
  // Scissor x, y, width, height; width 0: the whole target.
  std::array<int32_t, 4> scissor{0, 0, 0, 0};
  uint32_t cull = 0;       // VkCullModeFlags
  bool clockwise = false;  // VkFrontFace: false counter-clockwise

  bool depth_test = false, depth_write = false;
  uint32_t depth_compare = 1;  // VkCompareOp (1 less)
  bool stencil_test = false;
  StencilFace front, back;

  BlendState blend;
  Vec4 blend_constant{0, 0, 0, 0};
  bool logic_op_enable = false;
  uint32_t logic_op = 3;      // VkLogicOp (3 copy)
  uint32_t write_mask = 0xF;  // R 1, G 2, B 4, A 8

  // gsgpu only (no Vulkan state): the hierarchical rasterizer's bounding-box test, which must not
  // change the image.
  bool gsgpu_bounding_box_test = true;

  // SPIR-V shaders (glslang output of shaders/*.vert / *.frag) that both renders run: lavapipe as the
  // pipeline's modules, gsgpu compiled by gsgpu/compiler (compile_shader_spirv) into vertex and
  // fragment programs. The vertex shader reads the Vertex fields as attributes 0..2 by Location.
  // Empty: the stand-ins below.
  std::span<const uint32_t> vertex_spirv, fragment_spirv;
  // Their push constants (at most 128 bytes): vkCmdPushConstants on lavapipe, the constant buffer of
  // SHADER_STATE CONSTANTS_* on gsgpu.
  std::vector<uint32_t> push_constants;
  // A uniform buffer at set 0, binding 0 (std140 words): a descriptor set on lavapipe; on gsgpu a
  // buffer whose VA is the constant buffer's descriptor table entry (docs/compiler.md "Constant buffer").
  std::vector<uint32_t> uniform_buffer;

  // Set: the fragment stage outputs texture(tex, colour.xy) (shaders/texture.frag; on gsgpu a
  // program around v_image_sample_implicit), the colour interpolated perspective-correct.
  std::shared_ptr<const Texture> texture;
  TextureSampler sampler;

  FragmentShading shading = FragmentShading::kConstant;
  bool dual_source = false;  // the fragment stage outputs colour1 as blend source 1
  Vec4 constant{1, 1, 1, 1}, constant1{0, 0, 0, 0};
};

struct Scene {
  std::string name;
  uint32_t width = 64, height = 64;
  uint32_t color_format = kR8G8B8A8Unorm;
  uint32_t depth_format = kFormatNone;
  Vec4 clear_color{0, 0, 0, 0};
  float clear_depth = 1;
  uint32_t clear_stencil = 0;
  std::vector<Draw> draws;
};

// The vertex or index count a draw runs.
inline uint32_t draw_count(const Draw& d) {
  return d.count ? d.count : uint32_t(d.indices.empty() ? d.vertices.size() : d.indices.size());
}

// A rendered frame as stored: the colour target's bytes (row pitch = width x bytes per pixel) and,
// when the scene has one, the depth target as floats and the stencil as bytes.
struct Frame {
  uint32_t width = 0, height = 0, color_format = 0;
  std::vector<uint8_t> color;
  std::vector<float> depth;
  std::vector<uint8_t> stencil;
};

inline uint32_t color_bytes_per_pixel(uint32_t vk_format) { return vk_format == kR32G32B32A32Sfloat ? 16 : 4; }

}  // namespace gsgpu::golden
