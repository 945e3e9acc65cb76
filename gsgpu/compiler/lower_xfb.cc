// Transform feedback's decorations (SPIR-V ExecutionMode Xfb, capability TransformFeedback):
// which vertex outputs are captured, into which buffer, at which byte of a vertex's stride
// (docs/compiler.md "Transform feedback"). The code does not change: captured outputs are the
// exported ones, and the device writes them (SHADER_STATE XFB_VA, docs/graphics.md).
//
// A captured output is one with an Offset decoration (on the variable, or on the gl_PerVertex
// member), its buffer from XfbBuffer and the buffer's stride from XfbStride (on the variable or
// the member). Its components are 32-bit and laid out one after the other from the Offset, as GL's
// and Vulkan's transform-feedback layout says (no padding between 32-bit components).
#include <algorithm>

#include "gsgpu/compiler/lower.h"

namespace gsgpu::compiler {

namespace {

// A decoration of the member when it has one, else of the variable.
std::optional<uint32_t> member_or_variable(const std::map<uint32_t, uint32_t>* members, std::optional<uint32_t> member,
                                           std::optional<uint32_t> variable) {
  if (members != nullptr && member) {
    auto it = members->find(*member);
    if (it != members->end()) return it->second;
  }
  return variable;
}

}  // namespace

void Lowering::note_xfb_component(const RegisterVariable& var, std::optional<uint32_t> member, uint32_t c,
                                  uint32_t slot) {
  if (!k_.xfb || stage_ != ShaderStage::kVertex) return;
  const SpirvDecorations* d = m_.decoration(var.id);
  const SpirvDecorations* t = m_.decoration(var.type);  // member decorations are the struct type's
  std::optional<uint32_t> offset = member ? std::nullopt : (d ? d->offset : std::nullopt);
  if (member && t != nullptr) {
    auto it = t->member_offsets.find(*member);
    if (it != t->member_offsets.end()) offset = it->second;
  }
  if (!offset) return;  // not captured
  const std::string what = "output " + std::to_string(var.id) + (member ? " member " + std::to_string(*member) : "");
  const auto buffer = member_or_variable(t ? &t->member_xfb_buffers : nullptr, member, d ? d->xfb_buffer : std::nullopt);
  const auto stride = member_or_variable(t ? &t->member_xfb_strides : nullptr, member, d ? d->xfb_stride : std::nullopt);
  if (!buffer || !stride) fail(what + " has an Offset but no XfbBuffer / XfbStride");
  if (*buffer >= kMaxXfbBuffers) fail(what + ": XfbBuffer " + std::to_string(*buffer) + " (maxTransformFeedbackBuffers is 4)");
  if (*stride == 0 || *stride % 4 != 0 || *stride > kMaxXfbStride)
    fail(what + ": XfbStride " + std::to_string(*stride) + " is not a multiple of 4 in 4 .. 2048");
  if (k_.xfb_strides[*buffer] != 0 && k_.xfb_strides[*buffer] != *stride)
    fail("transform feedback buffer " + std::to_string(*buffer) + " has two XfbStrides");
  k_.xfb_strides[*buffer] = *stride;
  if (slot >= uint32_t(isa::kVertexSlotCount))
    fail(what + ": only the position, point size, varyings and clip distances can be captured");
  const uint64_t at = uint64_t{*offset} + 4 * uint64_t{c};
  if (at % 4 != 0 || at + 4 > *stride)
    fail(what + ": captured at byte " + std::to_string(at) + ", not a multiple of 4 inside the stride " +
         std::to_string(*stride));
  k_.xfb_outputs.push_back(XfbOutputRun{slot, 1, *buffer, uint32_t(at)});
}

void Lowering::finish_xfb() {
  std::vector<XfbOutputRun>& runs = k_.xfb_outputs;
  // Two components at the same byte of a buffer: the SPIR-V is invalid (overlapping Offsets).
  for (size_t i = 0; i < runs.size(); ++i)
    for (size_t j = i + 1; j < runs.size(); ++j)
      if (runs[i].buffer == runs[j].buffer && runs[i].offset == runs[j].offset)
        fail("two captured outputs at byte " + std::to_string(runs[i].offset) + " of transform feedback buffer " +
             std::to_string(runs[i].buffer));
  std::vector<XfbOutputRun> merged;
  for (const XfbOutputRun& r : runs) {
    XfbOutputRun* last = merged.empty() ? nullptr : &merged.back();
    if (last != nullptr && last->buffer == r.buffer && last->components < 4 && last->slot + last->components == r.slot &&
        last->offset + 4 * last->components == r.offset) {
      last->components++;
    } else {
      merged.push_back(r);
    }
  }
  runs = std::move(merged);
}

}  // namespace gsgpu::compiler
