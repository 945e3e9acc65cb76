// vkCreateGraphicsPipelines (docs/vulkan-driver.md "Draws"): the vertex and fragment modules are
// compiled by gsgpu's SPIR-V compiler (compile_shader_spirv) into one code BO mapped read +
// execute, and the fixed-function state is translated once into the words of PIPE_STATE and
// SHADER_STATE (protocol/gsgpu/gsgpu.xml); a draw adds the targets, viewport, scissor and
// constant buffer. State the emulator cannot do is refused: VK_ERROR_FEATURE_NOT_PRESENT and a
// log line naming it. Pipeline caches store nothing (every pipeline is compiled at creation).
#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>

#include "gsgpu/compiler/compiler.h"
#include "gsgpu/vk/binding_objects.h"
#include "gsgpu/vk/entry_points.h"
#include "protocol/gsgpu/gsgpu_hw.h"

namespace gsgpu::vk {

// The vertex formats the geometry engine fetches (gsgpu/emu/graphics/vertex_fetch.cc), by bytes.
uint32_t vertex_format_bytes(VkFormat f) {
  switch (f) {
    case VK_FORMAT_R8_UNORM: case VK_FORMAT_R8_SNORM: case VK_FORMAT_R8_UINT: case VK_FORMAT_R8_SINT:
      return 1;
    case VK_FORMAT_R8G8_UNORM: case VK_FORMAT_R8G8_SNORM: case VK_FORMAT_R8G8_UINT: case VK_FORMAT_R8G8_SINT:
    case VK_FORMAT_R16_UNORM: case VK_FORMAT_R16_SNORM: case VK_FORMAT_R16_UINT: case VK_FORMAT_R16_SINT:
    case VK_FORMAT_R16_SFLOAT:
      return 2;
    case VK_FORMAT_R8G8B8A8_UNORM: case VK_FORMAT_R8G8B8A8_SNORM: case VK_FORMAT_R8G8B8A8_UINT:
    case VK_FORMAT_R8G8B8A8_SINT: case VK_FORMAT_R16G16_UNORM: case VK_FORMAT_R16G16_SNORM:
    case VK_FORMAT_R16G16_UINT: case VK_FORMAT_R16G16_SINT: case VK_FORMAT_R16G16_SFLOAT:
    case VK_FORMAT_R32_UINT: case VK_FORMAT_R32_SINT: case VK_FORMAT_R32_SFLOAT:
      return 4;
    case VK_FORMAT_R16G16B16A16_UNORM: case VK_FORMAT_R16G16B16A16_SNORM: case VK_FORMAT_R16G16B16A16_UINT:
    case VK_FORMAT_R16G16B16A16_SINT: case VK_FORMAT_R16G16B16A16_SFLOAT: case VK_FORMAT_R32G32_UINT:
    case VK_FORMAT_R32G32_SINT: case VK_FORMAT_R32G32_SFLOAT:
      return 8;
    case VK_FORMAT_R32G32B32_UINT: case VK_FORMAT_R32G32B32_SINT: case VK_FORMAT_R32G32B32_SFLOAT:
      return 12;
    case VK_FORMAT_R32G32B32A32_UINT: case VK_FORMAT_R32G32B32A32_SINT: case VK_FORMAT_R32G32B32A32_SFLOAT:
      return 16;
    default:
      return 0;
  }
}

namespace {

namespace blk = hw::blk;
static_assert(blk::PIPE_STATE::SIZE_DWORDS == kPipeStateDwords);
static_assert(blk::COLOR_TARGET::SIZE_DWORDS == kColorTargetDwords);
static_assert(blk::SHADER_STATE::SIZE_DWORDS == kShaderStateDwords);

uint32_t bits(float v) { return std::bit_cast<uint32_t>(v); }
uint32_t put(uint32_t value, uint32_t mask, uint32_t shift) { return hw::put_field(value, mask, shift); }


// VK_EXT_line_rasterization: the line mode of PIPE_STATE RASTER.LINE_MODE (0 rectangular, which
// DEFAULT also draws, 1 Bresenham) and the line stipple (RASTER.LINE_STIPPLE, LINE_STIPPLE; a
// static factor outside [1, 256] is invalid usage the device would fault on: refused). Smooth
// lines are not built: refused with *why. `dynamic_stipple`: the factor and pattern come from
// vkCmdSetLineStippleEXT, so the pipeline's are not read.
bool line_state(const VkPipelineRasterizationStateCreateInfo& r, bool dynamic_stipple, GraphicsPipeline* p,
                std::string* why) {
  p->line_mode = 0;
  const auto* line = find_in_chain<VkPipelineRasterizationLineStateCreateInfoEXT>(
      r.pNext, VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_LINE_STATE_CREATE_INFO_EXT);
  if (line == nullptr) return true;
  switch (line->lineRasterizationMode) {
    case VK_LINE_RASTERIZATION_MODE_DEFAULT_EXT:
    case VK_LINE_RASTERIZATION_MODE_RECTANGULAR_EXT: break;
    case VK_LINE_RASTERIZATION_MODE_BRESENHAM_EXT: p->line_mode = 1; break;
    default: return *why = "line rasterization mode " + std::to_string(line->lineRasterizationMode), false;
  }
  p->line_stipple = line->stippledLineEnable;
  if (!p->line_stipple || dynamic_stipple) return true;
  if (!line_stipple_word(line->lineStippleFactor, line->lineStipplePattern, &p->line_stipple_word)) {
    return *why = "lineStippleFactor " + std::to_string(line->lineStippleFactor) + " outside [1, 256]", false;
  }
  return true;
}

// VK_EXT_provoking_vertex: RASTER.PROVOKING_LAST for VK_PROVOKING_VERTEX_MODE_LAST_VERTEX_EXT.
bool provoking_last(const VkPipelineRasterizationStateCreateInfo& r, bool* last, std::string* why) {
  const auto* pv = find_in_chain<VkPipelineRasterizationProvokingVertexStateCreateInfoEXT>(
      r.pNext, VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_PROVOKING_VERTEX_STATE_CREATE_INFO_EXT);
  *last = pv != nullptr && pv->provokingVertexMode == VK_PROVOKING_VERTEX_MODE_LAST_VERTEX_EXT;
  if (pv != nullptr && uint32_t(pv->provokingVertexMode) > VK_PROVOKING_VERTEX_MODE_LAST_VERTEX_EXT) {
    return *why = "provoking vertex mode " + std::to_string(pv->provokingVertexMode), false;
  }
  return true;
}

// 1, 2 or 4 samples (framebufferColorSampleCounts), one shading per pixel: sample shading is not
// offered (sampleRateShading false), so it is refused.
bool check_multisample(const VkPipelineMultisampleStateCreateInfo* m, GraphicsPipeline* p, std::string* why) {
  if (m == nullptr) return true;
  const uint32_t samples = uint32_t(m->rasterizationSamples);
  if ((samples & kAttachmentSampleCounts) == 0 || !std::has_single_bit(samples)) {
    return *why = std::to_string(m->rasterizationSamples) + " rasterization samples", false;
  }
  if (m->sampleShadingEnable) return *why = "sample shading (the sampleRateShading feature is off)", false;
  p->samples = uint32_t(m->rasterizationSamples);
  return true;
}

// PIPE_STATE MULTISAMPLE without SAMPLES_LOG2, which each draw takes from its attachments' images
// (draw_execute.cc): the sample mask's low word (maxSampleMaskWords 1; bits past the sample count are
// ignored by the device), alpha to coverage and alpha to one.
uint32_t multisample_word(const VkPipelineMultisampleStateCreateInfo* m) {
  namespace P = blk::PIPE_STATE;
  if (m == nullptr) return 0;
  uint32_t w = 0;
  if (m->pSampleMask != nullptr) {
    w |= P::MULTISAMPLE_SAMPLE_MASK_ENABLE_MASK |
         put(m->pSampleMask[0] & 0xF, P::MULTISAMPLE_SAMPLE_MASK_MASK, P::MULTISAMPLE_SAMPLE_MASK_SHIFT);
  }
  if (m->alphaToCoverageEnable) w |= P::MULTISAMPLE_ALPHA_TO_COVERAGE_MASK;
  if (m->alphaToOneEnable) w |= P::MULTISAMPLE_ALPHA_TO_ONE_MASK;
  return w;
}

// VK_EXT_depth_clip_enable: whether z = 0 and z = w clip (RASTER.NO_DEPTH_CLIP when not). Without
// the structure Vulkan clips exactly when depth clamp is off; with it the two are apart (zink
// answers GL's depth clamp, ARB_depth_clamp, with clamp on and clip off).
bool no_depth_clip(const VkPipelineRasterizationStateCreateInfo& r) {
  const auto* clip = find_in_chain<VkPipelineRasterizationDepthClipStateCreateInfoEXT>(
      r.pNext, VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_DEPTH_CLIP_STATE_CREATE_INFO_EXT);
  return clip != nullptr ? !clip->depthClipEnable : bool(r.depthClampEnable);
}

// Fixed-function state outside what PIPE_STATE expresses; *why names it.
bool check_fixed_function(const VkGraphicsPipelineCreateInfo& info, GraphicsPipeline* p, std::string* why) {
  const auto* r = info.pRasterizationState;
  if (r == nullptr) return *why = "no rasterization state", false;
  // Rasterizer discard: PIPE_STATE RASTER.DISCARD (vertices shaded and captured, nothing drawn).
  p->rasterizer_discard = r->rasterizerDiscardEnable;
  // Depth bias: each draw writes the factors into PIPE_STATE (apply_dynamic_state). zink enables it
  // in every pipeline with a dynamic bias it sets to 0 unless GL's polygon offset is on.
  p->depth_bias = r->depthBiasEnable;
  p->depth_bias_factors = {r->depthBiasConstantFactor, r->depthBiasClamp, r->depthBiasSlopeFactor};
  if (const auto* d = info.pDepthStencilState; d != nullptr && d->depthBoundsTestEnable) {
    return *why = "a depth bounds test (the depthBounds feature is off)", false;
  }
  // FILL, LINE, POINT (fillModeNonSolid): PIPE_STATE RASTER.POLYGON_MODE holds VkPolygonMode.
  if (uint32_t(r->polygonMode) > VK_POLYGON_MODE_POINT) return *why = "an extension's polygon mode", false;
  if (!provoking_last(*r, &p->provoking_last, why)) return false;
  if (info.pTessellationState != nullptr && info.stageCount > 2) return *why = "tessellation", false;
  if (!check_multisample(info.pMultisampleState, p, why)) return false;
  if (const auto* c = info.pColorBlendState;
      c != nullptr && (c->attachmentCount > kMaxColorAttachments || (c->attachmentCount != 0 && c->pAttachments == nullptr))) {
    return *why = "more than 8 colour attachments (maxColorAttachments), or a null pAttachments", false;
  }
  // PIPE_STATE OUTPUT.LOGIC_OP holds VkLogicOp's 16 values; a larger one is an invalid enum.
  if (const auto* c = info.pColorBlendState; c != nullptr && c->logicOpEnable && uint32_t(c->logicOp) > 15) {
    return *why = "logic op " + std::to_string(uint32_t(c->logicOp)), false;
  }
  const auto* v = info.pViewportState;
  if (v == nullptr || v->viewportCount != 1 || v->scissorCount != 1) return *why = "viewport count other than 1", false;
  if (const auto* d = info.pDynamicState) {
    for (uint32_t i = 0; i < d->dynamicStateCount; ++i) {
      const VkDynamicState s = d->pDynamicStates[i];
      switch (s) {
        case VK_DYNAMIC_STATE_VIEWPORT: p->dynamic_viewport = true; break;
        case VK_DYNAMIC_STATE_SCISSOR: p->dynamic_scissor = true; break;
        case VK_DYNAMIC_STATE_BLEND_CONSTANTS: p->dynamic |= kDynamicBlendConstants; break;
        case VK_DYNAMIC_STATE_STENCIL_COMPARE_MASK: p->dynamic |= kDynamicStencilCompareMask; break;
        case VK_DYNAMIC_STATE_STENCIL_WRITE_MASK: p->dynamic |= kDynamicStencilWriteMask; break;
        case VK_DYNAMIC_STATE_STENCIL_REFERENCE: p->dynamic |= kDynamicStencilReference; break;
        case VK_DYNAMIC_STATE_DEPTH_BIAS: p->dynamic |= kDynamicDepthBias; break;
        case VK_DYNAMIC_STATE_LINE_WIDTH: p->dynamic |= kDynamicLineWidth; break;
        case VK_DYNAMIC_STATE_LINE_STIPPLE_EXT: p->dynamic |= kDynamicLineStipple; break;
        // Depth bounds tests are off (refused above, and the depthBounds feature is false), so
        // their values change nothing.
        case VK_DYNAMIC_STATE_DEPTH_BOUNDS: break;
        default: return *why = "dynamic state " + std::to_string(s), false;
      }
    }
  }
  // After the dynamic states: a dynamic line stipple leaves the pipeline's factor unread.
  if (!line_state(*r, p->dynamic & kDynamicLineStipple, p, why)) return false;
  // Without stippledLineEnable the dynamic factor and pattern change nothing (the draw needs no call).
  if (!p->line_stipple) p->dynamic &= ~uint32_t{kDynamicLineStipple};
  if (!p->dynamic_viewport && v->pViewports != nullptr) p->viewport = v->pViewports[0];
  if (!p->dynamic_scissor && v->pScissors != nullptr) p->scissor = v->pScissors[0];
  return true;
}

uint32_t stencil_ops(const VkStencilOpState& s) {
  namespace P = blk::PIPE_STATE;
  return put(s.failOp, P::STENCIL_FRONT_OPS_FAIL_MASK, P::STENCIL_FRONT_OPS_FAIL_SHIFT) |
         put(s.passOp, P::STENCIL_FRONT_OPS_PASS_MASK, P::STENCIL_FRONT_OPS_PASS_SHIFT) |
         put(s.depthFailOp, P::STENCIL_FRONT_OPS_DEPTH_FAIL_MASK, P::STENCIL_FRONT_OPS_DEPTH_FAIL_SHIFT) |
         put(s.compareOp, P::STENCIL_FRONT_OPS_COMPARE_MASK, P::STENCIL_FRONT_OPS_COMPARE_SHIFT);
}
uint32_t stencil_masks(const VkStencilOpState& s) {
  namespace P = blk::PIPE_STATE;
  return put(s.compareMask & 0xff, P::STENCIL_FRONT_MASKS_COMPARE_MASK_MASK, P::STENCIL_FRONT_MASKS_COMPARE_MASK_SHIFT) |
         put(s.writeMask & 0xff, P::STENCIL_FRONT_MASKS_WRITE_MASK_MASK, P::STENCIL_FRONT_MASKS_WRITE_MASK_SHIFT) |
         put(s.reference & 0xff, P::STENCIL_FRONT_MASKS_REFERENCE_MASK, P::STENCIL_FRONT_MASKS_REFERENCE_SHIFT);
}

// Whether PIPE_STATE sets RASTER.BBOX_TEST: yes unless GSGPU_VK_BBOX_TEST=0, an experimenter's
// setting (docs/vulkan-driver.md "Draws"): the test changes no pixel, only the rasterizer's walk and
// its counters, which bench/graphics/bbox_counters.py compares both ways (seed 002's +10.11 %).
// Read at each pipeline's creation, so one process can build pipelines both ways.
bool bounding_box_test_wanted() {
  const char* v = std::getenv("GSGPU_VK_BBOX_TEST");
  if (v == nullptr || *v == 0 || std::strcmp(v, "1") == 0) return true;
  if (std::strcmp(v, "0") == 0) return false;
  std::fprintf(stderr, "gsgpu-vk: GSGPU_VK_BBOX_TEST=\"%s\" is neither 0 nor 1; the bounding-box test stays on\n", v);
  return true;
}

// A BLEND word (PIPE_STATE BLEND and COLOR_TARGET BLEND share the layout).
uint32_t blend_word(const VkPipelineColorBlendAttachmentState& b) {
  namespace P = blk::PIPE_STATE;
  return (b.blendEnable ? P::BLEND_ENABLE_MASK : 0) |
         put(b.srcColorBlendFactor, P::BLEND_SRC_COLOR_MASK, P::BLEND_SRC_COLOR_SHIFT) |
         put(b.dstColorBlendFactor, P::BLEND_DST_COLOR_MASK, P::BLEND_DST_COLOR_SHIFT) |
         put(b.colorBlendOp, P::BLEND_COLOR_OP_MASK, P::BLEND_COLOR_OP_SHIFT) |
         put(b.srcAlphaBlendFactor, P::BLEND_SRC_ALPHA_MASK, P::BLEND_SRC_ALPHA_SHIFT) |
         put(b.dstAlphaBlendFactor, P::BLEND_DST_ALPHA_MASK, P::BLEND_DST_ALPHA_SHIFT) |
         put(b.alphaBlendOp, P::BLEND_ALPHA_OP_MASK, P::BLEND_ALPHA_OP_SHIFT);
}

// PIPE_STATE's words that the pipeline fixes: rasterizer, depth / stencil, blend, write mask.
void translate_pipe_state(const VkGraphicsPipelineCreateInfo& info, GraphicsPipeline* p) {
  namespace P = blk::PIPE_STATE;
  auto& w = p->pipe_state;
  const auto* r = info.pRasterizationState;
  // The bounding-box test is on, as the emulator's default: it changes no pixel, only the
  // rasterizer's walk (docs/graphics.md "Hierarchical rasterizer"; small triangles skip the levels
  // above the tile holding their box).
  const uint32_t bbox = bounding_box_test_wanted() ? P::RASTER_BBOX_TEST_MASK : 0;
  w[P::RASTER] = put(r->cullMode & 3, P::RASTER_CULL_MASK, P::RASTER_CULL_SHIFT) |
                 (r->frontFace == VK_FRONT_FACE_CLOCKWISE ? P::RASTER_FRONT_FACE_MASK : 0) | bbox |
                 put(p->line_mode, P::RASTER_LINE_MODE_MASK, P::RASTER_LINE_MODE_SHIFT) |
                 put(uint32_t(r->polygonMode), P::RASTER_POLYGON_MODE_MASK, P::RASTER_POLYGON_MODE_SHIFT) |
                 (p->provoking_last ? P::RASTER_PROVOKING_LAST_MASK : 0) |
                 (r->depthClampEnable ? P::RASTER_DEPTH_CLAMP_MASK : 0) |
                 (no_depth_clip(*r) ? P::RASTER_NO_DEPTH_CLIP_MASK : 0) |
                 (p->rasterizer_discard ? P::RASTER_DISCARD_MASK : 0) |
                 (p->line_stipple ? P::RASTER_LINE_STIPPLE_MASK : 0);
  w[P::LINE_STIPPLE] = p->line_stipple_word;  // a dynamic one is the draw's (apply_dynamic_state)
  w[P::POINT_SIZE] = bits(1.0f);
  w[P::MULTISAMPLE] = multisample_word(info.pMultisampleState);
  // A dynamic width is the command buffer's (apply_dynamic_state); the pipeline's is then ignored.
  w[P::LINE_WIDTH] = bits((p->dynamic & kDynamicLineWidth) ? 1.0f
                                                            : checked_line_width(r->lineWidth, "vkCreateGraphicsPipelines"));
  if (const auto* d = info.pDepthStencilState) {
    p->uses_depth = d->depthTestEnable || d->stencilTestEnable;
    w[P::DEPTH] = (d->depthTestEnable ? P::DEPTH_TEST_MASK : 0) | (d->depthWriteEnable ? P::DEPTH_WRITE_MASK : 0) |
                  put(d->depthCompareOp & 7, P::DEPTH_COMPARE_MASK, P::DEPTH_COMPARE_SHIFT);
    w[P::STENCIL] = d->stencilTestEnable ? P::STENCIL_TEST_MASK : 0;
    w[P::STENCIL_FRONT_OPS] = stencil_ops(d->front);
    w[P::STENCIL_FRONT_MASKS] = stencil_masks(d->front);
    w[P::STENCIL_BACK_OPS] = stencil_ops(d->back);
    w[P::STENCIL_BACK_MASKS] = stencil_masks(d->back);
  }
  const auto* c = info.pColorBlendState;
  if (c == nullptr || c->attachmentCount == 0) return;
  const VkPipelineColorBlendAttachmentState& b = c->pAttachments[0];
  w[P::BLEND] = blend_word(b);
  // Attachments 1..: their own blend state and write mask (independentBlend), in COLOR_TARGET records.
  p->more_color_count = c->attachmentCount - 1;
  for (uint32_t i = 1; i < c->attachmentCount; ++i) {
    p->more_blend[i - 1] = blend_word(c->pAttachments[i]);
    p->more_write_mask[i - 1] = c->pAttachments[i].colorWriteMask & 0xf;
  }
  // A logic op replaces blending on UNORM targets; the output merger leaves float and sRGB targets
  // to blending, as Vulkan says (docs/graphics.md "Output merger").
  w[P::OUTPUT] = put(b.colorWriteMask & 0xf, P::OUTPUT_WRITE_MASK_MASK, P::OUTPUT_WRITE_MASK_SHIFT) |
                 (c->logicOpEnable ? P::OUTPUT_LOGIC_OP_ENABLE_MASK : 0) |
                 put(c->logicOpEnable ? uint32_t(c->logicOp) : 0, P::OUTPUT_LOGIC_OP_MASK, P::OUTPUT_LOGIC_OP_SHIFT);
  w[P::BLEND_CONSTANT_R] = bits(c->blendConstants[0]);
  w[P::BLEND_CONSTANT_G] = bits(c->blendConstants[1]);
  w[P::BLEND_CONSTANT_B] = bits(c->blendConstants[2]);
  w[P::BLEND_CONSTANT_A] = bits(c->blendConstants[3]);
}

// Blend factors / ops and compare / stencil ops the output merger does not know (Vulkan's core
// enums end where PIPE_STATE's fields do, except blend factors past SRC_ALPHA_SATURATE: dual
// source, and ops from extensions).
bool check_enums(const VkGraphicsPipelineCreateInfo& info, std::string* why) {
  const auto* c = info.pColorBlendState;
  for (uint32_t i = 0; c != nullptr && i < c->attachmentCount; ++i) {
    const auto& b = c->pAttachments[i];
    // The SRC1 factors (15..18) read target 0's second output; a COLOR_TARGET record refuses them.
    const uint32_t last_factor = i == 0 ? 18 : uint32_t(VK_BLEND_FACTOR_SRC_ALPHA_SATURATE);
    for (uint32_t f : {uint32_t(b.srcColorBlendFactor), uint32_t(b.dstColorBlendFactor),
                       uint32_t(b.srcAlphaBlendFactor), uint32_t(b.dstAlphaBlendFactor)}) {
      if (b.blendEnable && f > last_factor) {
        return *why = "blend factor " + std::to_string(f) + " on colour attachment " + std::to_string(i), false;
      }
    }
    if (b.blendEnable && (uint32_t(b.colorBlendOp) > 4 || uint32_t(b.alphaBlendOp) > 4)) {
      return *why = "an extension's blend op", false;
    }
  }
  return info.pInputAssemblyState != nullptr && uint32_t(info.pInputAssemblyState->topology) <= 5
             ? true
             : (*why = "a topology other than points, lines or triangles (lists, strips, fans)", false);
}

// Vertex input: attribute i of the draw is Location i (docs/compiler.md "Graphics shaders"), so the
// pipeline needs a description for every Location below the vertex program's attribute count.
bool translate_vertex_input(const VkPipelineVertexInputStateCreateInfo* vi, uint32_t attributes,
                            GraphicsPipeline* p, std::string* why) {
  if (attributes > 16) return *why = "more than 16 vertex attributes", false;
  if (attributes == 0) return true;  // gl_VertexIndex / gl_InstanceIndex only: no records
  if (vi == nullptr) return *why = "no vertex input state", false;
  p->attributes.resize(attributes);
  std::vector<bool> seen(attributes, false);
  for (uint32_t i = 0; i < vi->vertexAttributeDescriptionCount; ++i) {
    const VkVertexInputAttributeDescription& a = vi->pVertexAttributeDescriptions[i];
    if (a.location >= attributes) continue;  // the shader does not read it
    if (vertex_format_bytes(a.format) == 0) return *why = "vertex format " + std::to_string(a.format), false;
    if (a.offset > 2047) return *why = "attribute offset " + std::to_string(a.offset) + " over 2047", false;
    uint32_t dense = UINT32_MAX;
    for (uint32_t b = 0; b < vi->vertexBindingDescriptionCount; ++b) {
      const VkVertexInputBindingDescription& d = vi->pVertexBindingDescriptions[b];
      if (d.binding != a.binding) continue;
      if (d.binding >= kMaxDrawVertexBindings || d.stride > 65535) return *why = "binding number or stride too large", false;
      auto it = std::find_if(p->bindings.begin(), p->bindings.end(), [&](auto& x) { return x.binding == d.binding; });
      dense = uint32_t(it - p->bindings.begin());
      if (it == p->bindings.end()) {
        p->bindings.push_back({d.binding, d.stride, d.inputRate == VK_VERTEX_INPUT_RATE_INSTANCE});
      }
    }
    if (dense == UINT32_MAX) return *why = "attribute " + std::to_string(a.location) + " names no binding", false;
    p->attributes[a.location] = {dense, uint32_t(a.format), a.offset};
    seen[a.location] = true;
  }
  for (uint32_t l = 0; l < attributes; ++l) {
    if (!seen[l]) return *why = "the vertex shader reads Location " + std::to_string(l) + ", which has no attribute", false;
  }
  return true;
}

}  // namespace

// pipeline_stages.cc: compiles the vertex and fragment stages, uploads their code, fills SHADER_STATE.
bool compile_pipeline_stages(const VkGraphicsPipelineCreateInfo& info, GraphicsPipeline* p, uint32_t* attributes,
                             std::string* why);

namespace {

bool build_pipeline(Device* device, const VkGraphicsPipelineCreateInfo& info, GraphicsPipeline* p, std::string* why) {
  p->device = device;
  const auto* layout = from_handle<PipelineLayoutObject>(info.layout);
  if (layout == nullptr) return *why = "no pipeline layout", false;
  p->layout = layout->layout;
  uint32_t attributes = 0;
  if (!check_fixed_function(info, p, why) || !check_enums(info, why) ||
      !compile_pipeline_stages(info, p, &attributes, why) ||
      !translate_vertex_input(info.pVertexInputState, attributes, p, why)) {
    return false;
  }
  translate_pipe_state(info, p);
  p->topology = info.pInputAssemblyState->topology;
  p->primitive_restart = info.pInputAssemblyState->primitiveRestartEnable;
  return true;
}

}  // namespace

void free_pipeline_code(Device* device, drv::BoHandle code_bo, uint64_t code_va, uint64_t code_va_size) {
  if (code_bo == 0) return;
  std::lock_guard lock(device->mutex);
  if (code_va != 0) {
    device->drv->va_unbind(code_va, code_va_size);
    device->va->free(code_va);
  }
  device->drv->bo_free(code_bo);
}

void destroy_pipeline(GraphicsPipeline* p) {
  if (p == nullptr) return;
  free_pipeline_code(p->device, p->code_bo, p->code_va, p->code_va_size);
  delete p;
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkCreateGraphicsPipelines(VkDevice handle, VkPipelineCache, uint32_t count,
                                                               const VkGraphicsPipelineCreateInfo* infos,
                                                               const VkAllocationCallbacks*, VkPipeline* out) {
  Device* device = from_handle<Device>(handle);
  VkResult result = VK_SUCCESS;
  for (uint32_t i = 0; i < count; ++i) {
    out[i] = VK_NULL_HANDLE;
    auto* p = new (std::nothrow) GraphicsPipeline;
    if (p == nullptr) return VK_ERROR_OUT_OF_HOST_MEMORY;
    std::string why;
    if (!build_pipeline(device, infos[i], p, &why)) {
      destroy_pipeline(p);
      log_refusal("vkCreateGraphicsPipelines", why);
      result = VK_ERROR_FEATURE_NOT_PRESENT;
      continue;
    }
    out[i] = to_handle<VkPipeline>(static_cast<PipelineBase*>(p));
  }
  return result;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkDestroyPipeline(VkDevice, VkPipeline pipeline, const VkAllocationCallbacks*) {
  auto* base = from_handle<PipelineBase>(pipeline);
  if (base == nullptr) return;
  if (base->bind_point == VK_PIPELINE_BIND_POINT_COMPUTE) return destroy_compute_pipeline(static_cast<ComputePipeline*>(base));
  destroy_pipeline(static_cast<GraphicsPipeline*>(base));
}

// Pipeline caches hold nothing: a pipeline is compiled when it is created. A cache is a valid
// handle whose data is the 32-byte header Vulkan requires (no entries).
struct PipelineCache {};

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkCreatePipelineCache(VkDevice, const VkPipelineCacheCreateInfo*,
                                                           const VkAllocationCallbacks*, VkPipelineCache* out) {
  auto* cache = new (std::nothrow) PipelineCache;
  if (cache == nullptr) return VK_ERROR_OUT_OF_HOST_MEMORY;
  *out = to_handle<VkPipelineCache>(cache);
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkDestroyPipelineCache(VkDevice, VkPipelineCache cache, const VkAllocationCallbacks*) {
  delete from_handle<PipelineCache>(cache);
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkGetPipelineCacheData(VkDevice handle, VkPipelineCache, size_t* size,
                                                            void* data) {
  const Device* device = from_handle<Device>(handle);
  uint32_t header[8] = {32, VK_PIPELINE_CACHE_HEADER_VERSION_ONE, 0x47534750, device->physical->caps.version};
  // pipelineCacheUUID (words 4..7) is the driver's, as vkGetPhysicalDeviceProperties answers it.
  VkPhysicalDeviceProperties props;
  gsgpu_vkGetPhysicalDeviceProperties(to_handle<VkPhysicalDevice>(device->physical), &props);
  std::memcpy(&header[4], props.pipelineCacheUUID, VK_UUID_SIZE);
  if (data == nullptr) {
    *size = sizeof header;
    return VK_SUCCESS;
  }
  if (*size < sizeof header) {  // the spec: nothing written, size 0
    *size = 0;
    return VK_INCOMPLETE;
  }
  std::memcpy(data, header, sizeof header);
  *size = sizeof header;
  return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkMergePipelineCaches(VkDevice, VkPipelineCache, uint32_t, const VkPipelineCache*) {
  return VK_SUCCESS;
}

}  // namespace gsgpu::vk
