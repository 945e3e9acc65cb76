// Dynamic state beyond viewport and scissor (docs/vulkan-driver.md "Draws"): line width, blend
// constants and the stencil compare mask, write mask and reference, recorded as the PIPE_STATE
// fields they replace and applied to the pipeline's words when a draw is recorded; the depth bias (the pipeline's or
// vkCmdSetDepthBias's) becomes RASTER.DEPTH_BIAS and DEPTH_BIAS_*. Depth bounds are accepted and
// change nothing: the test is off in every pipeline the driver creates.
#include <bit>
#include <cmath>
#include <cstdio>
#include <string>

#include "gsgpu/vk/binding_objects.h"
#include "gsgpu/vk/command_recording.h"
#include "gsgpu/vk/entry_points.h"
#include "protocol/gsgpu/gsgpu_hw.h"

namespace gsgpu::vk {
namespace {

namespace P = hw::blk::PIPE_STATE;

// Sets one field (mask, shift) of the front and / or back STENCIL_*_MASKS words.
void set_stencil_field(VkCommandBuffer handle, const char* command, VkStencilFaceFlags faces, uint32_t value,
                       uint32_t mask, uint32_t shift, uint32_t bit) {
  CommandBuffer* cb = recording(handle, command);
  if (cb == nullptr) return;
  for (uint32_t face = 0; face < 2; ++face) {
    if (!(faces & (face == 0 ? VK_STENCIL_FACE_FRONT_BIT : VK_STENCIL_FACE_BACK_BIT))) continue;
    uint32_t& word = cb->graphics.stencil_masks[face];
    word = (word & ~mask) | hw::put_field(value & 0xff, mask, shift);
  }
  cb->graphics.dynamic_set |= bit;
}

// depthBiasEnable's factors {constant, clamp, slope} into PIPE_STATE (the emulator's triangle setup
// biases filled triangles: docs/graphics.md "Depth bias"). A zero bias leaves the words as they are.
// Refused: factors that are not finite (the device would refuse them as bad fields).
bool apply_depth_bias(const std::array<float, 3>& f, std::array<uint32_t, kPipeStateDwords>* words,
                      std::string* why) {
  if (!std::isfinite(f[0]) || !std::isfinite(f[1]) || !std::isfinite(f[2])) {
    return *why = "a depth bias factor that is not finite", false;
  }
  if (f[0] == 0.0f && f[2] == 0.0f) return true;  // o = 0 whatever the clamp
  auto& w = *words;
  w[P::RASTER] |= P::RASTER_DEPTH_BIAS_MASK;
  w[P::DEPTH_BIAS_CONSTANT] = std::bit_cast<uint32_t>(f[0]);
  w[P::DEPTH_BIAS_CLAMP] = std::bit_cast<uint32_t>(f[1]);
  w[P::DEPTH_BIAS_SLOPE] = std::bit_cast<uint32_t>(f[2]);
  return true;
}

}  // namespace

float checked_line_width(float width, const char* command) {
  if (std::isnan(width)) {
    log_refusal(command, "line width NaN", "drawn 1 wide");
    return 1.0f;
  }
  if (width >= 1.0f && width <= 64.0f) return width;
  const float clamped = width < 1.0f ? 1.0f : 64.0f;
  char what[96];
  std::snprintf(what, sizeof what, "line width %g outside lineWidthRange [1, 64]", double(width));
  log_refusal(command, what, clamped == 1.0f ? "drawn 1 wide" : "drawn 64 wide");
  return clamped;
}

bool line_stipple_word(uint32_t factor, uint16_t pattern, uint32_t* word) {
  if (factor < 1 || factor > 256) return false;
  *word = hw::put_field(factor, P::LINE_STIPPLE_FACTOR_MASK, P::LINE_STIPPLE_FACTOR_SHIFT) |
          hw::put_field(pattern, P::LINE_STIPPLE_PATTERN_MASK, P::LINE_STIPPLE_PATTERN_SHIFT);
  return true;
}

bool apply_dynamic_state(const GraphicsPipeline& p, const GraphicsRecordState& g,
                         std::array<uint32_t, kPipeStateDwords>* words, std::string* why) {
  // A pipeline without depth bias ignores vkCmdSetDepthBias: only the other states must be set.
  // Nor does any draw need vkCmdSetLineWidth: a command buffer's width starts at 1 (zink sets it
  // only before it draws lines).
  const uint32_t needed = (p.depth_bias ? p.dynamic : p.dynamic & ~uint32_t{kDynamicDepthBias}) & ~uint32_t{kDynamicLineWidth};
  if ((needed & g.dynamic_set) != needed) return *why = "a dynamic state of the pipeline was not set", false;
  auto& w = *words;
  if (p.depth_bias && !apply_depth_bias((p.dynamic & kDynamicDepthBias) ? g.depth_bias : p.depth_bias_factors, &w, why)) {
    return false;
  }
  if (p.dynamic & kDynamicLineWidth) w[P::LINE_WIDTH] = std::bit_cast<uint32_t>(g.line_width);
  if (p.dynamic & kDynamicLineStipple) w[P::LINE_STIPPLE] = g.line_stipple_word;
  if (p.dynamic & kDynamicBlendConstants) {
    w[P::BLEND_CONSTANT_R] = g.blend_constants[0];
    w[P::BLEND_CONSTANT_G] = g.blend_constants[1];
    w[P::BLEND_CONSTANT_B] = g.blend_constants[2];
    w[P::BLEND_CONSTANT_A] = g.blend_constants[3];
  }
  const std::pair<uint32_t, uint32_t> fields[] = {
      {kDynamicStencilCompareMask, P::STENCIL_FRONT_MASKS_COMPARE_MASK_MASK},
      {kDynamicStencilWriteMask, P::STENCIL_FRONT_MASKS_WRITE_MASK_MASK},
      {kDynamicStencilReference, P::STENCIL_FRONT_MASKS_REFERENCE_MASK}};
  for (auto [bit, mask] : fields) {
    if (!(p.dynamic & bit)) continue;
    w[P::STENCIL_FRONT_MASKS] = (w[P::STENCIL_FRONT_MASKS] & ~mask) | (g.stencil_masks[0] & mask);
    w[P::STENCIL_BACK_MASKS] = (w[P::STENCIL_BACK_MASKS] & ~mask) | (g.stencil_masks[1] & mask);
  }
  return true;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdSetBlendConstants(VkCommandBuffer handle, const float constants[4]) {
  CommandBuffer* cb = recording(handle, "vkCmdSetBlendConstants");
  if (cb == nullptr) return;
  for (int i = 0; i < 4; ++i) cb->graphics.blend_constants[i] = std::bit_cast<uint32_t>(constants[i]);
  cb->graphics.dynamic_set |= kDynamicBlendConstants;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdSetStencilCompareMask(VkCommandBuffer handle, VkStencilFaceFlags faces,
                                                            uint32_t mask) {
  set_stencil_field(handle, "vkCmdSetStencilCompareMask", faces, mask, P::STENCIL_FRONT_MASKS_COMPARE_MASK_MASK,
                    P::STENCIL_FRONT_MASKS_COMPARE_MASK_SHIFT, kDynamicStencilCompareMask);
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdSetStencilWriteMask(VkCommandBuffer handle, VkStencilFaceFlags faces,
                                                          uint32_t mask) {
  set_stencil_field(handle, "vkCmdSetStencilWriteMask", faces, mask, P::STENCIL_FRONT_MASKS_WRITE_MASK_MASK,
                    P::STENCIL_FRONT_MASKS_WRITE_MASK_SHIFT, kDynamicStencilWriteMask);
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdSetStencilReference(VkCommandBuffer handle, VkStencilFaceFlags faces,
                                                          uint32_t reference) {
  set_stencil_field(handle, "vkCmdSetStencilReference", faces, reference, P::STENCIL_FRONT_MASKS_REFERENCE_MASK,
                    P::STENCIL_FRONT_MASKS_REFERENCE_SHIFT, kDynamicStencilReference);
}

// Kept for the draws of a depthBiasEnable pipeline with DEPTH_BIAS dynamic (apply_depth_bias).
VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdSetDepthBias(VkCommandBuffer handle, float constant, float clamp, float slope) {
  CommandBuffer* cb = recording(handle, "vkCmdSetDepthBias");
  if (cb == nullptr) return;
  cb->graphics.depth_bias = {constant, clamp, slope};
  cb->graphics.dynamic_set |= kDynamicDepthBias;
}

// The depthBounds feature is off: no pipeline tests depth bounds.
VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdSetDepthBounds(VkCommandBuffer, float, float) {}

// VK_DYNAMIC_STATE_LINE_STIPPLE_EXT. A factor outside [1, 256] (invalid usage) is refused with a
// log line and not set: a draw of a stippled pipeline then needs a valid call first.
VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdSetLineStippleEXT(VkCommandBuffer handle, uint32_t factor, uint16_t pattern) {
  CommandBuffer* cb = recording(handle, "vkCmdSetLineStippleEXT");
  if (cb == nullptr) return;
  if (!line_stipple_word(factor, pattern, &cb->graphics.line_stipple_word)) {
    log_refusal("vkCmdSetLineStippleEXT", "lineStippleFactor " + std::to_string(factor) + " outside [1, 256]",
                "not set");
    return;
  }
  cb->graphics.dynamic_set |= kDynamicLineStipple;
}

}  // namespace gsgpu::vk
