// Textures in graphics shaders (docs/compiler.md "Graphics shaders", "Textures"): images, samplers
// and combined image samplers at (set, binding), and GLSL's texture(), textureLod(), texelFetch(),
// with texel offsets (textureOffset, texelFetchOffset: ConstOffset, lower_image_operands.cc).
//
// The ABI with a Vulkan driver: the constant buffer's table entry for such a binding is the VA of a
// texture record the driver writes into GPU memory for the draw: the view's IMAGE_DESC (16 dwords,
// so the record is 64-byte aligned and its VA is the image operand itself), then the sampler's
// SAMPLER_DESC (8 dwords). The program loads the entry once per warp in the prologue, then the
// SAMPLER_STATE word and the LOD bias from the record: the word is the instruction's sampler, the
// bias (mipLodBias, which the packed word has no room for) goes into the LOD channel.
#include <algorithm>
#include <bit>

#include "gsgpu/compiler/lower.h"
#include "protocol/gsgpu/gsgpu_hw.h"

namespace gsgpu::compiler {

using isa::Opcode;
using spv::Op;

namespace {

namespace image_desc = gsgpu::hw::blk::IMAGE_DESC;
namespace sampler_desc = gsgpu::hw::blk::SAMPLER_DESC;
constexpr int32_t kSamplerDescAt = image_desc::SIZE_DWORDS * 4;  // the record's SAMPLER_DESC

// OpTypeImage's Sampled operand (after the result id): 1 sampled, 2 storage.
constexpr size_t kImageSampledOperand = 5;

constexpr uint32_t kBias = static_cast<uint32_t>(spv::ImageOperandsMask::Bias);
constexpr uint32_t kLod = static_cast<uint32_t>(spv::ImageOperandsMask::Lod);
constexpr uint32_t kSample = static_cast<uint32_t>(spv::ImageOperandsMask::Sample);
constexpr uint32_t kGrad = static_cast<uint32_t>(spv::ImageOperandsMask::Grad);
constexpr uint32_t kConstOffset = static_cast<uint32_t>(spv::ImageOperandsMask::ConstOffset);
constexpr uint32_t kOffset = static_cast<uint32_t>(spv::ImageOperandsMask::Offset);

// Vulkan clamps the sum of the sampler's bias and the shader's Bias to maxSamplerLodBias, which
// gsgpu/vk reports as 15 (and clamps the sampler's bias alone to when it writes the record).
constexpr float kMaxLodBias = 15.0f;

// Whether any instruction of the module names `id` (conservatively: a literal operand of the same
// value counts too).
bool referenced(const SpirvModule& m, uint32_t id) {
  for (const auto& [function_id, function] : m.functions)
    for (const SpirvBlock& block : function.blocks)
      for (const SpirvInstruction& inst : block.instructions)
        if (std::find(inst.operands.begin(), inst.operands.end(), id) != inst.operands.end()) return true;
  return false;
}

}  // namespace

// A UniformConstant variable: an image, a sampler or a sampled image, or an array of one of them.
// Its value is the record's VA (the image), the SAMPLER_STATE word and the bias (the sampler), or
// all three (a combined image sampler); an array's is its table entry, which texture_array_element
// indexes.
Value Lowering::declare_texture_binding(uint32_t id, const SpirvDecorations* d) {
  uint32_t pointee = type(m_.variables.at(id).pointer_type).element;
  uint32_t elements = 0;  // 0: one descriptor
  if (type(pointee).kind == TypeKind::kArray && !type(pointee).matrix) {
    elements = type(pointee).count;
    if (elements == 0) fail("UniformConstant variable " + std::to_string(id) + " is a run-time array of descriptors (descriptor indexing is not offered)");
    if (elements > kMaxTextureArrayElements)
      fail("UniformConstant variable " + std::to_string(id) + " is an array of " + std::to_string(elements) +
           " descriptors (at most " + std::to_string(kMaxTextureArrayElements) + ")");
    pointee = type(pointee).element;
  }
  const SpirvType& t = type(pointee);
  const bool opaque = t.kind == TypeKind::kOpaque;
  if (!opaque || (t.opaque != Op::OpTypeImage && t.opaque != Op::OpTypeSampler && t.opaque != Op::OpTypeSampledImage))
    fail("UniformConstant variable " + std::to_string(id) +
         " is not an image, a sampler or a sampled image, nor an array of one");
  if (t.opaque != Op::OpTypeSampler) {
    // Dimension and multisampling; a texel buffer (samplerBuffer, Dim Buffer) has no texture record
    // in a draw (docs/vulkan-driver.md "Buffer views"): refused by name rather than read wrong.
    if (image_shape(pointee).buffer)
      fail("image variable " + std::to_string(id) + " is a texel buffer (Dim Buffer), not supported in graphics shaders");
    const SpirvType& image = t.opaque == Op::OpTypeSampledImage ? type(t.opaque_operands.at(0)) : t;
    if (image.opaque_operands.size() <= kImageSampledOperand || image.opaque_operands[kImageSampledOperand] != 1)
      fail("image variable " + std::to_string(id) + " is not a sampled image (storage images are not supported)");
  }
  // Vulkan asks the pipeline layout only for the bindings a shader uses: a texture declared and
  // never used may have no record, and reading its sampler word would fault.
  if (!referenced(m_, id)) return Value{};
  const uint32_t set = d != nullptr ? d->descriptor_set.value_or(0) : 0,
                 binding = d != nullptr ? d->binding.value_or(0) : 0;
  const MOperand record = descriptor_table_entry(set, binding, "image or sampler");
  if (elements > 0) {
    texture_arrays_[id] = TextureArray{record, elements, t.opaque};
    k_.texture_arrays.emplace_back(set * 16 + binding, elements);  // the table slot, as descriptor_table_entry numbers it
    return Value{{record}};
  }
  Value v;
  if (t.opaque != Op::OpTypeSampler) v.parts.push_back(record);
  if (t.opaque != Op::OpTypeImage) {
    const MOperand word = new_scalar_register(), bias = new_scalar_register();
    emit_to(Opcode::s_load_b32, word, record, {}, {}, kSamplerDescAt + 4 * sampler_desc::STATE);
    emit_to(Opcode::s_load_b32, bias, record, {}, {}, kSamplerDescAt + 4 * sampler_desc::LOD_BIAS);
    v.parts.push_back(word);
    v.parts.push_back(bias);
  }
  return v;
}

// s[i] of an array of textures: element i's record lies i * kTextureRecordStride past element 0's
// (the driver writes an array's records one after another) and its sampler word and bias are read
// from it as declare_texture_binding reads a single descriptor's. A constant index past the array is
// refused; a run-time one is checked per lane, and a lane past the array gets record address 0,
// which nothing maps (the GPU's VA space starts at 4 KiB), so loading its sampler word (or the image
// instruction) is the draw's reported memory fault rather than a read of another binding's record.
void Lowering::texture_array_element(const SpirvInstruction& inst) {
  const TextureArray& a = texture_arrays_.at(operand_id(inst, 0));
  if (inst.operands.size() != 2) fail("an access chain into an array of textures takes one index");
  const uint32_t index_id = operand_id(inst, 1);
  const SpirvType& index_type = type(type_of(index_id));
  if (index_type.kind != TypeKind::kInt || index_type.width != 32) fail("the index into an array of textures is not a 32-bit integer");
  MOperand record;
  const auto c = m_.constants.find(index_id);
  if (c != m_.constants.end() && c->second.kind == SpirvConstant::Kind::kScalar) {
    const auto i = static_cast<uint32_t>(c->second.bits);
    if (i >= a.elements)
      fail("texture " + std::to_string(i) + " of an array of " + std::to_string(a.elements));
    record = i == 0 ? a.entry : MOperand::vreg(emit(Opcode::v_add_u64, 64, a.entry, MOperand::literal(i * kTextureRecordStride)));
  } else {
    const MOperand index = value(index_id).parts.at(0);
    const MOperand inside = MOperand::vreg(emit(Opcode::v_cmp_lt_u32, 32, index, MOperand::literal(a.elements)));
    const MOperand at = MOperand::vreg(emit(Opcode::v_add_u64, 64, a.entry, byte_offset(index, 32, kTextureRecordStride)));
    record = select(inside, at, MOperand::literal(0), 64);
  }
  Value v;
  if (a.kind != Op::OpTypeSampler) v.parts.push_back(record);
  if (a.kind != Op::OpTypeImage) {
    v.parts.push_back(MOperand::vreg(emit(Opcode::const_load_b32, 32, record, {}, {}, kSamplerDescAt + 4 * sampler_desc::STATE)));
    v.parts.push_back(MOperand::vreg(emit(Opcode::const_load_b32, 32, record, {}, {}, kSamplerDescAt + 4 * sampler_desc::LOD_BIAS)));
  }
  define(inst.result_id, std::move(v));
}

// The coordinate of a projective sample (OpImageSampleProj*: texture2DProj, and zink's fixed-function
// texturing): the image's coordinates each divided by q, the component after them; a depth
// reference too (Vulkan's projection divides D_ref as well), into channel 2.
MOperand Lowering::projected_coordinate_quad(uint32_t coord_id, const ImageShape& shape, MOperand w,
                                             const MOperand* reference) {
  if (shape.arrayed || shape.buffer) fail("a projective sample of an arrayed or buffer image");
  const SpirvType& s = type(scalar_of(type_of(coord_id)));
  if (s.kind != TypeKind::kFloat || s.width != 32) fail("a projective sample takes 32-bit float coordinates");
  const Value coord = value(coord_id);
  if (coord.parts.size() < shape.dims + 1u) fail("a projective coordinate without its q component");
  const MOperand q = coord.parts[shape.dims];
  MOperand channels[4] = {MOperand::literal(0), MOperand::literal(0), MOperand::literal(0), w};
  for (uint32_t i = 0; i < shape.dims; ++i) channels[i] = MOperand::vreg(emit(Opcode::v_div_f32, 32, coord.parts[i], q));
  if (reference != nullptr) {
    if (shape.dims > 2) fail("a depth-compare sample of a 3D or cube image (the reference needs channel 2)");
    channels[2] = MOperand::vreg(emit(Opcode::v_div_f32, 32, *reference, q));
  }
  return make_quad(channels);
}

namespace {

bool is_dref(Op op) {
  return op == Op::OpImageSampleDrefImplicitLod || op == Op::OpImageSampleDrefExplicitLod ||
         op == Op::OpImageSampleProjDrefImplicitLod || op == Op::OpImageSampleProjDrefExplicitLod;
}

}  // namespace

// Vulkan's LOD of explicit gradients (textureGrad), computed in the program: rho_x and rho_y the
// Euclidean lengths of d/dx and d/dy scaled to texels of level 0 (the image's width, height, depth
// from v_image_query), lambda = log2(max(rho_x, rho_y)) = 0.5 log2(max(rho_x^2, rho_y^2)), as the
// texture unit's implicit LOD does from the quad's derivatives.
MOperand Lowering::gradient_lod(uint32_t dx_id, uint32_t dy_id, MOperand image, const ImageShape& shape) {
  if (shape.cube) fail("explicit gradients (Grad) on a cube image are not supported");
  const Value dx = value(dx_id), dy = value(dy_id);
  if (dx.parts.size() < shape.dims || dy.parts.size() < shape.dims) fail("a Grad operand has too few components");
  const isa::ImageQueryWhat what[3] = {isa::ImageQueryWhat::kWidth, isa::ImageQueryWhat::kHeight,
                                       isa::ImageQueryWhat::kDepth};
  MOperand length[2];
  for (uint32_t axis = 0; axis < shape.dims; ++axis) {
    const MOperand size =
        MOperand::vreg(emit(Opcode::v_cvt_f32_u32, 32, image_query(image, MOperand::literal(0), what[axis])));
    const MOperand parts[2] = {dx.parts[axis], dy.parts[axis]};
    for (int k = 0; k < 2; ++k) {
      const MOperand texels = MOperand::vreg(emit(Opcode::v_mul_f32, 32, parts[k], size));
      const MOperand square = MOperand::vreg(emit(Opcode::v_mul_f32, 32, texels, texels));
      length[k] = axis == 0 ? square : MOperand::vreg(emit(Opcode::v_add_f32, 32, length[k], square));
    }
  }
  const MOperand longer = MOperand::vreg(emit(Opcode::v_max_f32, 32, length[0], length[1]));
  const MOperand log = MOperand::vreg(emit(Opcode::v_log2_f32, 32, longer));
  return MOperand::vreg(emit(Opcode::v_mul_f32, 32, log, MOperand::literal(std::bit_cast<uint32_t>(0.5f))));
}

// The LOD channel of a sample: the sampler's bias plus the shader's Bias (the sum clamped to +-15),
// Lod, or the LOD of the Grad operands (Vulkan adds the sampler's mipLodBias to each form).
MOperand Lowering::sample_lod_channel(const ImageOperands& ops, bool implicit, MOperand sampler_bias, MOperand image,
                                      const ImageShape& shape) {
  const uint32_t lod_mask = ops.mask & (kBias | kLod | kGrad);
  if (!implicit && lod_mask == kGrad) {
    const MOperand lambda = gradient_lod(ops.grad_x, ops.grad_y, image, shape);
    return MOperand::vreg(emit(Opcode::v_add_f32, 32, lambda, sampler_bias));
  }
  const uint32_t allowed = implicit ? kBias : kLod;
  if ((lod_mask & ~allowed) != 0 || (!implicit && lod_mask != kLod))
    fail("image operands mask " + std::to_string(ops.mask) +
         (implicit ? " (only Bias is supported with an implicit LOD)" : " (only Lod or Grad alone is supported with an explicit LOD)"));
  if (lod_mask == 0) return sampler_bias;
  const uint32_t lod_id = implicit ? ops.bias : ops.lod;
  const SpirvType& lod_type = type(type_of(lod_id));
  if (lod_type.kind != TypeKind::kFloat || lod_type.width != 32) fail("the Bias / Lod operand is not a 32-bit float");
  MOperand w = MOperand::vreg(emit(Opcode::v_add_f32, 32, value(lod_id).parts.at(0), sampler_bias));
  if (lod_mask == kBias) {
    w = MOperand::vreg(emit(Opcode::v_max_f32, 32, w, MOperand::literal(std::bit_cast<uint32_t>(-kMaxLodBias))));
    w = MOperand::vreg(emit(Opcode::v_min_f32, 32, w, MOperand::literal(std::bit_cast<uint32_t>(kMaxLodBias))));
  }
  return w;
}

// OpImageSample{,Proj}{,Dref}{Implicit,Explicit}Lod: float coordinates, the LOD channel from
// sample_lod_channel. The Dref forms (shadow samplers) put the reference into channel 2 and
// return the texture unit's compare result (channel 0) as a scalar.
void Lowering::shader_image_sample(const SpirvInstruction& inst) {
  const Op op = inst.opcode;
  const bool proj = op == Op::OpImageSampleProjImplicitLod || op == Op::OpImageSampleProjExplicitLod ||
                    op == Op::OpImageSampleProjDrefImplicitLod || op == Op::OpImageSampleProjDrefExplicitLod;
  const bool implicit = op == Op::OpImageSampleImplicitLod || op == Op::OpImageSampleProjImplicitLod ||
                        op == Op::OpImageSampleDrefImplicitLod || op == Op::OpImageSampleProjDrefImplicitLod;
  const bool dref = is_dref(op);
  if (implicit && stage_ != ShaderStage::kFragment)
    fail("an implicit-LOD sample outside a fragment shader (it needs the quad's derivatives; use textureLod)");
  const uint32_t sampled_id = operand_id(inst, 0);
  const ImageShape shape = image_shape(type_of(sampled_id));
  MOperand reference;
  if (dref) {
    const SpirvType& result = type(inst.result_type);
    if (result.kind != TypeKind::kFloat || result.width != 32) fail("a depth-compare sample returns a 32-bit float");
    const uint32_t dref_id = operand_id(inst, 2);
    const SpirvType& dref_type = type(type_of(dref_id));
    if (dref_type.kind != TypeKind::kFloat || dref_type.width != 32) fail("the Dref operand is not a 32-bit float");
    reference = value(dref_id).parts.at(0);
  } else {
    check_texel_type(inst.result_type, "the texel sampled");
  }
  const Value sampled = value(sampled_id);
  if (sampled.parts.size() != 3) fail("the sampled image does not come from an image and a sampler descriptor");
  const ImageOperands ops = image_operands(inst, dref ? 3 : 2);
  const int32_t offset = texel_offset_immediate(ops, shape);
  const MOperand w = sample_lod_channel(ops, implicit, sampled.parts[2], sampled.parts[0], shape);
  bool is_float = proj;
  const MOperand* ref = dref ? &reference : nullptr;
  const MOperand coord = proj ? projected_coordinate_quad(operand_id(inst, 1), shape, w, ref)
                              : coordinate_quad(operand_id(inst, 1), shape, w, &is_float, ref);
  if (!is_float) fail("sampling takes float coordinates");
  const uint32_t quad = emit(implicit ? Opcode::v_image_sample_implicit : Opcode::v_image_sample, 128,
                             sampled.parts[0], coord, sampled.parts[1], offset);
  Value texel = unpack_quad(quad);
  if (dref) texel.parts.resize(1);
  define(inst.result_id, std::move(texel));
}

// OpImageQueryLod (textureQueryLod; zink asks it when it samples GL's non-seamless cube maps as 2D
// arrays): v_image_query_lod, which takes v_image_sample_implicit's operands — the coordinate's
// spatial components (an array layer or any further component is ignored, as SPIR-V leaves it out)
// and the record's bias — and returns (the level a sample would read, the LOD before clamping).
void Lowering::shader_image_query_lod(const SpirvInstruction& inst) {
  if (stage_ != ShaderStage::kFragment) fail("OpImageQueryLod outside a fragment shader (it needs the quad's derivatives)");
  const SpirvType& result = type(inst.result_type);
  if (result.kind != TypeKind::kVector || result.count != 2 || type(result.element).kind != TypeKind::kFloat ||
      type(result.element).width != 32)
    fail("OpImageQueryLod returns a vector of two 32-bit floats");
  const uint32_t sampled_id = operand_id(inst, 0), coord_id = operand_id(inst, 1);
  const ImageShape shape = image_shape(type_of(sampled_id));
  if (shape.buffer || shape.multisampled) fail("OpImageQueryLod of a buffer or multisampled image");
  const Value sampled = value(sampled_id);
  if (sampled.parts.size() != 3) fail("the sampled image does not come from an image and a sampler descriptor");
  const SpirvType& s = type(scalar_of(type_of(coord_id)));
  if (s.kind != TypeKind::kFloat || s.width != 32) fail("OpImageQueryLod takes 32-bit float coordinates");
  const Value coord = value(coord_id);
  if (coord.parts.size() < shape.dims) fail("the OpImageQueryLod coordinate has too few components");
  MOperand channels[4] = {MOperand::literal(0), MOperand::literal(0), MOperand::literal(0), sampled.parts[2]};
  for (uint32_t i = 0; i < shape.dims; ++i) channels[i] = coord.parts[i];
  const uint32_t quad = emit(Opcode::v_image_query_lod, 128, sampled.parts[0], make_quad(channels), sampled.parts[1]);
  Value lod = unpack_quad(quad);
  lod.parts.resize(2);
  define(inst.result_id, std::move(lod));
}

// OpImageFetch (texelFetch): integer coordinates and the level from the Lod operand, no sampler; of
// a multisampled image, the Sample operand instead, which v_image_load takes in the level's channel.
void Lowering::shader_image_fetch(const SpirvInstruction& inst) {
  const uint32_t image_id = operand_id(inst, 0);
  const ImageShape shape = image_shape(type_of(image_id));
  check_texel_type(inst.result_type, "the texel fetched");
  MOperand level = MOperand::literal(0);
  int32_t offset = 0;
  if (shape.multisampled) {
    // A multisampled image's one operand: Sample (image_operands refuses it on every other form).
    const uint32_t mask = inst.operands.size() > 2 ? inst.operands[2] : 0;
    if (mask != kSample || inst.operands.size() != 4) fail("a fetch of a multisampled image takes the Sample operand alone");
    const SpirvType& sample_type = type(type_of(operand_id(inst, 3)));
    if (sample_type.kind != TypeKind::kInt || sample_type.width != 32) fail("the Sample of a fetch is not a 32-bit integer");
    level = value(operand_id(inst, 3)).parts.at(0);
  } else {
    const ImageOperands ops = image_operands(inst, 2);
    if ((ops.mask & ~(kLod | kConstOffset | kOffset)) != 0)
      fail("image operands other than Lod and a texel offset on a fetch are not supported");
    offset = texel_offset_immediate(ops, shape);
    if (ops.lod != 0) {
      const SpirvType& lod_type = type(type_of(ops.lod));
      if (lod_type.kind != TypeKind::kInt || lod_type.width != 32) fail("the Lod of a fetch is not a 32-bit integer");
      level = value(ops.lod).parts.at(0);
    }
  }
  bool is_float = false;
  const MOperand coord = coordinate_quad(operand_id(inst, 1), shape, level, &is_float);
  if (is_float) fail("a fetch takes integer coordinates");
  const Value image = value(image_id);
  if (image.parts.empty()) fail("the fetched image has no descriptor");
  define(inst.result_id, unpack_quad(emit(Opcode::v_image_load, 128, image.parts[0], coord, {}, offset)));
}

}  // namespace gsgpu::compiler
