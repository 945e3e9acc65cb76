// Vertex programs on the shader cores (see vertex_program.h).
#include "gsgpu/emu/graphics/vertex_program.h"

#include <algorithm>
#include <cstring>

namespace gsgpu::graphics {

void ProgramVertexStage::shade(const FetchedVertex& in, ShadedVertex* out) {
  if (shade_batch(&in, 1, out)) *out = ShadedVertex{};
}

namespace {

// Slots [0, 4) and the varyings' slots past them in whole blocks of kVaryingCopyBlock (fixed-size
// moves, not a memset / memmove call per lane): the varying slots 4 .. 4 + 64 end at the point
// size's slot, so a block never leaves the array; the components past `carried` hold no defined
// value for later blocks (carried_varying_components).
static_assert(kVertexPointSizeSlot == 4 + kMaxVaryingComponents);
void clear_position_and_varyings(uint32_t carried, VertexLaneOutput* o) {
  std::fill_n(o->value.begin(), 4, 0.0f);
  for (uint32_t k = 0; k < carried && k < kMaxVaryingComponents; k += kVaryingCopyBlock) {
    std::memset(o->value.data() + 4 + k, 0, kVaryingCopyBlock * sizeof(float));
  }
}

void copy_output_varyings(const VertexLaneOutput& o, uint32_t carried, Varyings* out) {
  for (uint32_t k = 0; k < carried && k < kMaxVaryingComponents; k += kVaryingCopyBlock) {
    std::memcpy(out->data() + k, o.value.data() + 4 + k, kVaryingCopyBlock * sizeof(float));
  }
}

}  // namespace

std::optional<std::string> ProgramVertexStage::shade_batch(const FetchedVertex* in, size_t count, ShadedVertex* out) {
  if (count == 0) return std::nullopt;
  const uint32_t width = runner_.warp_width();
  if (width == 0) return "vertex programs need the shader cores, which this build does not have";
  const uint32_t regs = input_registers(attributes_);
  const auto warps = static_cast<uint32_t>((count + width - 1) / width);
  // Every word of the `count` lanes is written below; only the last warp's lanes past them are
  // zeroed (the same words as zeroing all, without a memset of the whole batch first).
  const size_t input_words = size_t{warps} * width * regs;
  if (inputs_.size() < input_words) inputs_.resize(input_words);
  std::fill(inputs_.begin() + ptrdiff_t(count * regs), inputs_.begin() + ptrdiff_t(input_words), 0u);
  lane_masks_.assign(warps, 0);
  // Only the varyings later blocks read (the geometry engine's vertices hold no others).
  const uint32_t carried = carried_varying_components(program_.varying_components);
  const size_t lane_count = size_t{warps} * width;
  reset_outputs(lane_count, carried);
  for (size_t i = 0; i < count; ++i) {
    uint32_t* lane = &inputs_[i * regs];
    for (uint32_t a = 0; a < attributes_; ++a) {
      for (uint32_t c = 0; c < 4; ++c) lane[4 * a + c] = in[i].attributes[a][c];
    }
    lane[4 * attributes_] = in[i].vertex_index;
    lane[4 * attributes_ + 1] = in[i].instance_index;
    lane_masks_[i / width] |= uint64_t{1} << (i % width);
  }
  VertexWarpIO io;
  io.input_regs = regs;
  io.inputs = inputs_.data();
  io.lane_masks = lane_masks_.data();
  io.outputs = outputs_.data();
  io.lane_count = lane_count;  // outputs_ may be longer, from an earlier batch
  if (auto fault = runner_.run(program_, io, warps)) return fault;
  for (size_t i = 0; i < count; ++i) {
    const VertexLaneOutput& o = outputs_[i];
    // Block copies (a loop of 64 single floats was 40 % of a small-triangle draw's vertex stage).
    std::copy_n(o.value.begin(), 4, out[i].position.begin());
    copy_output_varyings(o, carried, &out[i].varyings);
    out[i].has_point_size = o.point_size_written;
    out[i].point_size = o.value[kVertexPointSizeSlot];
    std::copy_n(o.value.begin() + kVertexDistanceSlot, kVertexDistances, out[i].distances.begin());
  }
  return std::nullopt;
}

void ProgramVertexStage::reset_outputs(size_t count, uint32_t carried) {
  // Clearing all 77 slots of every lane was 2.3 % of a small-triangle draw's host instructions.
  if (outputs_.size() < count) outputs_.resize(count);
  for (size_t l = 0; l < count; ++l) {
    VertexLaneOutput& o = outputs_[l];
    clear_position_and_varyings(carried, &o);
    o.value[kVertexPointSizeSlot] = 0.0f;
    std::fill_n(o.value.begin() + kVertexDistanceSlot, kVertexDistances, 0.0f);
    o.point_size_written = false;
  }
}

}  // namespace gsgpu::graphics
