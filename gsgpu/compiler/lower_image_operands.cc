// The image operands of graphics samples and fetches (docs/compiler.md "Textures"): which ids the
// mask's bits bring, in SPIR-V's order (Bias, Lod, Grad's two, ConstOffset, Offset, ...), and the
// texel offset as the texture unit's immediate (isa::ImmKind::kTexelOffset: three 4-bit fields,
// Vulkan's minTexelOffset -8 / maxTexelOffset 7, which gsgpu/vk reports).
#include <bit>

#include "gsgpu/compiler/lower.h"

namespace gsgpu::compiler {

namespace {

using Mask = spv::ImageOperandsMask;
constexpr uint32_t bit(Mask m) { return static_cast<uint32_t>(m); }
constexpr uint32_t kSupported =
    bit(Mask::Bias) | bit(Mask::Lod) | bit(Mask::Grad) | bit(Mask::ConstOffset) | bit(Mask::Offset);

}  // namespace

Lowering::ImageOperands Lowering::image_operands(const SpirvInstruction& inst, size_t at) const {
  ImageOperands ops;
  if (inst.operands.size() <= at) return ops;
  ops.mask = inst.operands[at];
  if ((ops.mask & ~kSupported) != 0)
    fail("image operands mask " + std::to_string(ops.mask) +
         " (Bias, Lod, Grad, ConstOffset and a constant Offset are supported; ConstOffsets, Sample, MinLod are not)");
  if ((ops.mask & bit(Mask::ConstOffset)) && (ops.mask & bit(Mask::Offset)))
    fail("both ConstOffset and Offset on one image instruction");
  const size_t ids = static_cast<size_t>(std::popcount(ops.mask)) + ((ops.mask & bit(Mask::Grad)) ? 1 : 0);
  if (inst.operands.size() != at + 1 + ids) fail("the image operands do not match their mask");
  size_t next = at + 1;
  if (ops.mask & bit(Mask::Bias)) ops.bias = operand_id(inst, next++);
  if (ops.mask & bit(Mask::Lod)) ops.lod = operand_id(inst, next++);
  if (ops.mask & bit(Mask::Grad)) {
    ops.grad_x = operand_id(inst, next++);
    ops.grad_y = operand_id(inst, next++);
  }
  if (ops.mask & (bit(Mask::ConstOffset) | bit(Mask::Offset))) ops.offset = operand_id(inst, next++);
  return ops;
}

// ConstOffset is a constant by rule; an Offset whose id is a constant (an optimiser may leave one)
// means the same. A run-time Offset needs ImageGatherExtended (shaderImageGatherExtended, not
// offered): refused by name.
int32_t Lowering::texel_offset_immediate(const ImageOperands& ops, const ImageShape& shape) const {
  if (ops.offset == 0) return 0;
  if (shape.cube) fail("a texel offset on a cube image (SPIR-V allows none)");
  const auto it = m_.constants.find(ops.offset);
  if (it == m_.constants.end())
    fail("a run-time texel Offset (shaderImageGatherExtended is not offered; ConstOffset is supported)");
  const SpirvConstant& c = it->second;
  std::vector<uint32_t> parts;  // the component constants' ids, or none for a null constant
  if (c.kind == SpirvConstant::Kind::kComposite) parts = c.parts;
  else if (c.kind == SpirvConstant::Kind::kScalar) parts = {ops.offset};
  else if (c.kind != SpirvConstant::Kind::kNull) fail("the texel offset is not an integer constant");
  const SpirvType& t = type(scalar_of(c.type));
  if (t.kind != TypeKind::kInt || t.width != 32) fail("the texel offset is not a 32-bit integer (vector)");
  const uint32_t count = c.kind == SpirvConstant::Kind::kNull ? shape.dims : static_cast<uint32_t>(parts.size());
  if (count != shape.dims)
    fail("the texel offset has " + std::to_string(count) + " components, the image " + std::to_string(shape.dims));
  int32_t xyz[3] = {0, 0, 0};
  for (size_t i = 0; i < parts.size(); ++i) {
    const auto part = m_.constants.find(parts[i]);
    if (part == m_.constants.end() || part->second.kind != SpirvConstant::Kind::kScalar)
      fail("a texel offset component is not a scalar constant");
    const auto value = static_cast<int32_t>(static_cast<uint32_t>(part->second.bits));
    if (value < isa::kMinTexelOffset || value > isa::kMaxTexelOffset)
      fail("texel offset " + std::to_string(value) + " is outside minTexelOffset .. maxTexelOffset (-8 .. 7)");
    xyz[i] = value;
  }
  return isa::pack_texel_offset(xyz[0], xyz[1], xyz[2]);
}

}  // namespace gsgpu::compiler
