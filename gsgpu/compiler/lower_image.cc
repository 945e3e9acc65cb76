// OpenCL image built-ins (docs/compiler.md "Images and samplers") -> the texture unit's five
// instructions (docs/isa.md §8b). What clang-14 + llvm-spirv-14 emit for OpenCL C: OpSampledImage
// + OpImageSampleExplicitLod (Lod 0) for read_image*(img, sampler, coord) with float or integer
// coordinates, OpImageRead without a sampler, OpImageWrite, OpImageQuerySizeLod for the size
// queries and OpImageQueryOrder / OpImageQueryFormat (+ 0x10B0 / 0x10D0) for the format queries.
//
// Coordinates and texels travel in a quad v[4n:4n+3] (a 128-bit virtual register): the channels
// are copied in right before the instruction and out right after, so a quad never lives long.
#include "gsgpu/compiler/lower.h"
#include "protocol/gsgpu/gsgpu_hw.h"
#include "protocol/gsgpu/sampler_state.h"

namespace gsgpu::compiler {

using isa::ImageQueryWhat;
using isa::Opcode;
using spv::Op;

namespace {

namespace smp = gsgpu::hw::blk::SAMPLER_STATE;

// OpTypeImage operands after the result id.
enum ImageTypeOperand : size_t { kSampledType, kDim, kDepth, kArrayed, kMultisampled, kSampled, kFormat, kAccess };

}  // namespace

Lowering::ImageShape Lowering::image_shape(uint32_t type_id) const {
  const SpirvType* t = &type(type_id);
  if (t->kind == TypeKind::kOpaque && t->opaque == Op::OpTypeSampledImage && !t->opaque_operands.empty())
    t = &type(t->opaque_operands[0]);
  if (t->kind != TypeKind::kOpaque || t->opaque != Op::OpTypeImage || t->opaque_operands.size() < kFormat + 1)
    fail("operand of type " + std::to_string(type_id) + " is not an image");
  const std::vector<uint32_t>& ops = t->opaque_operands;
  ImageShape shape;
  // A multisampled 2D image (sampler2DMS, texelFetch's sample): the texture unit's IMAGE_DESC
  // SAMPLES_LOG2, read by v_image_load with the sample index in channel 3 (docs/compiler.md).
  shape.multisampled = ops[kMultisampled] != 0;
  if (shape.multisampled && (!graphics() || static_cast<spv::Dim>(ops[kDim]) != spv::Dim::Dim2D))
    fail("multisampled images other than a graphics shader's 2D ones are not supported");
  shape.arrayed = ops[kArrayed] != 0;
  switch (static_cast<spv::Dim>(ops[kDim])) {
    case spv::Dim::Dim1D: shape.dims = 1; break;
    case spv::Dim::Buffer: shape.dims = 1; shape.buffer = true; break;
    case spv::Dim::Dim2D: shape.dims = 2; break;
    case spv::Dim::Dim3D: shape.dims = 3; break;
    // A cube's coordinate is a direction (x, y, z); the texture unit picks the face (IMAGE_CUBE).
    case spv::Dim::Cube:
      if (!graphics()) fail("image dimension 3 is not supported in kernels (cubes are for graphics shaders)");
      shape.dims = 3;
      shape.cube = true;
      break;
    default:
      fail("image dimension " + std::to_string(ops[kDim]) + " is not supported (1D, 2D, 3D, cube and buffer images are)");
  }
  if (shape.arrayed && shape.cube) fail("cube arrays are not supported (imageCubeArray is not offered)");
  if (shape.arrayed && (shape.dims == 3 || shape.buffer)) fail("arrays of 3D or buffer images do not exist in OpenCL");
  return shape;
}

// The SAMPLER_STATE word of an OpConstantSampler (a sampler_t literal): the same word the runtime
// makes for a sampler object (protocol/gsgpu/sampler_state.h).
uint32_t Lowering::sampler_word(const SpirvConstant& c) const {
  if (c.parts.size() != 3) fail("sampler constant without addressing, normalisation and filter");
  uint32_t address = 0;
  switch (static_cast<spv::SamplerAddressingMode>(c.parts[0])) {
    case spv::SamplerAddressingMode::None: address = smp::STATE_ADDRESS_U_NONE; break;
    case spv::SamplerAddressingMode::ClampToEdge: address = smp::STATE_ADDRESS_U_CLAMP_TO_EDGE; break;
    case spv::SamplerAddressingMode::Clamp: address = smp::STATE_ADDRESS_U_CLAMP_TO_BORDER; break;
    case spv::SamplerAddressingMode::Repeat: address = smp::STATE_ADDRESS_U_REPEAT; break;
    case spv::SamplerAddressingMode::RepeatMirrored: address = smp::STATE_ADDRESS_U_MIRRORED_REPEAT; break;
    default: fail("sampler constant with addressing mode " + std::to_string(c.parts[0]) + ", which OpenCL does not have");
  }
  if (c.parts[1] > 1) fail("sampler constant with normalised-coordinates flag " + std::to_string(c.parts[1]));
  if (c.parts[2] > 1) fail("sampler constant with filter mode " + std::to_string(c.parts[2]));
  // SPIR-V's filter mode: Nearest 0, Linear 1.
  return gsgpu::hw::opencl_sampler_state(c.parts[1] == 1, address, c.parts[2] == 1);
}

// ---- quads ----

MOperand Lowering::make_quad(const MOperand (&channels)[4]) {
  const uint32_t quad = f_.new_vreg(128);
  for (unsigned c = 0; c < 4; ++c) emit_to(Opcode::v_mov_b32, MOperand::channel_of(quad, c), channels[c]);
  return MOperand::vreg(quad);
}

Value Lowering::unpack_quad(uint32_t quad) {
  Value v;
  for (unsigned c = 0; c < 4; ++c) v.parts.push_back(MOperand::vreg(emit(Opcode::v_mov_b32, 32, MOperand::channel_of(quad, c))));
  return v;
}

// The quad (x, y, z or layer, w) of a coordinate operand: the image's own components (its
// dimensions, then the layer of an array), zeros after them, `w` last. Extra components are dropped
// (OpenCL's int4 / float4 coordinates of 3D images carry an unused w).
MOperand Lowering::coordinate_quad(uint32_t coord_id, const ImageShape& shape, MOperand w, bool* is_float,
                                   const MOperand* reference) {
  const uint32_t type_id = type_of(coord_id);
  const uint32_t scalar = scalar_of(type_id);
  const SpirvType& s = type(scalar);
  if ((s.kind != TypeKind::kInt && s.kind != TypeKind::kFloat) || s.width != 32)
    fail("image coordinates must be 32-bit integers or floats");
  *is_float = s.kind == TypeKind::kFloat;
  const Value coord = value(coord_id);
  const uint32_t needed = shape.dims + (shape.arrayed ? 1 : 0);
  if (coord.parts.size() < needed)
    fail("image coordinate has " + std::to_string(coord.parts.size()) + " components, the image needs " +
         std::to_string(needed));
  MOperand channels[4] = {MOperand::literal(0), MOperand::literal(0), MOperand::literal(0), w};
  for (uint32_t i = 0; i < needed; ++i) channels[i] = coord.parts[i];
  if (reference != nullptr) {
    if (needed > 2) fail("a depth-compare sample of a 2D-array, 3D or cube image (the reference needs channel 2)");
    channels[2] = *reference;
  }
  return make_quad(channels);
}

// A texel result type: a 4-vector of 32-bit floats or integers (read_imagef / _i / _ui).
void Lowering::check_texel_type(uint32_t type_id, const char* what) const {
  const SpirvType& t = type(type_id);
  const SpirvType* s = t.kind == TypeKind::kVector && t.count == 4 ? &type(t.element) : nullptr;
  if (s == nullptr || (s->kind != TypeKind::kInt && s->kind != TypeKind::kFloat))
    fail(std::string(what) + " must be a 4-vector of floats or integers");
  if (s->width != 32)
    fail(std::string(what) + " has " + std::to_string(s->width) + "-bit channels; only 32-bit ones are supported "
         "(read_imageh / write_imageh need cl_khr_fp16, which the device does not have)");
}

// ---- the instructions ----

void Lowering::image_read(const SpirvInstruction& inst) {
  // OpImageRead / OpImageFetch: image, coordinate [, image operands]. No sampler.
  const uint32_t image_id = operand_id(inst, 0);
  const ImageShape shape = image_shape(type_of(image_id));
  if (inst.operands.size() > 2 && inst.operands[2] != 0) fail("image operands on a read are not supported");
  check_texel_type(inst.result_type, "the texel read");
  bool is_float = false;
  const MOperand coord = coordinate_quad(operand_id(inst, 1), shape, MOperand::literal(0), &is_float);
  if (is_float) fail("a read without a sampler takes integer coordinates");
  const MOperand image = value(image_id).parts.at(0);
  const uint32_t quad = emit(Opcode::v_image_load, 128, image, coord);
  define(inst.result_id, unpack_quad(quad));
}

void Lowering::image_sample(const SpirvInstruction& inst) {
  // OpImageSampleExplicitLod: sampled image, coordinate, image operands (Lod), the LOD.
  const uint32_t sampled_id = operand_id(inst, 0);
  const ImageShape shape = image_shape(type_of(sampled_id));
  const uint32_t mask = operand_id(inst, 2);
  if (mask != static_cast<uint32_t>(spv::ImageOperandsMask::Lod) || inst.operands.size() != 4)
    fail("sampling with image operands other than an explicit Lod is not supported");
  check_texel_type(inst.result_type, "the texel sampled");
  const Value sampled = value(sampled_id);
  if (sampled.parts.size() != 2) fail("the sampled image does not come from OpSampledImage");
  // The LOD is w of the coordinate quad: a float for float coordinates, a level for integer ones.
  // OpenCL images have one level, and OpenCL C passes the constant 0.
  const uint32_t lod_id = operand_id(inst, 3);
  const SpirvType& lod_type = type(type_of(lod_id));
  const Value lod = value(lod_id);
  const uint32_t coord_id = operand_id(inst, 1);
  bool is_float = type(scalar_of(type_of(coord_id))).kind == TypeKind::kFloat;
  MOperand w = lod.parts.at(0);
  if (lod_type.kind != TypeKind::kFloat && lod_type.kind != TypeKind::kInt) fail("the LOD is not a number");
  if (lod_type.width != 32) fail("the LOD must be 32 bits wide");
  if (!is_float && lod_type.kind == TypeKind::kFloat) {
    if (!w.is_literal() || (w.value & 0x7fffffffu) != 0) fail("integer coordinates with a LOD other than the constant 0");
    w = MOperand::literal(0);
  } else if (is_float && lod_type.kind != TypeKind::kFloat) {
    fail("float coordinates with an integer LOD");
  }
  const MOperand coord = coordinate_quad(coord_id, shape, w, &is_float);
  const MOperand sampler = low_half(sampled.parts[1]);
  const uint32_t quad =
      emit(is_float ? Opcode::v_image_sample : Opcode::v_image_fetch, 128, sampled.parts[0], coord, sampler);
  define(inst.result_id, unpack_quad(quad));
}

void Lowering::image_write(const SpirvInstruction& inst) {
  // OpImageWrite: image, coordinate, texel [, image operands].
  const uint32_t image_id = operand_id(inst, 0);
  const ImageShape shape = image_shape(type_of(image_id));
  if (inst.operands.size() > 3 && inst.operands[3] != 0) fail("image operands on a write are not supported");
  const uint32_t texel_id = operand_id(inst, 2);
  check_texel_type(type_of(texel_id), "the texel written");
  bool is_float = false;
  const MOperand coord = coordinate_quad(operand_id(inst, 1), shape, MOperand::literal(0), &is_float);
  if (is_float) fail("a write takes integer coordinates");
  const Value texel = value(texel_id);
  if (texel.parts.size() != 4) fail("the texel written does not have 4 channels");
  const MOperand data = make_quad({texel.parts[0], texel.parts[1], texel.parts[2], texel.parts[3]});
  emit_to(Opcode::v_image_store, MOperand{}, value(image_id).parts.at(0), coord, data);
}

MOperand Lowering::image_query(MOperand image, MOperand level, ImageQueryWhat what) {
  return MOperand::vreg(emit(Opcode::v_image_query, 32, image, level, {}, static_cast<int32_t>(what)));
}

void Lowering::image_size(const SpirvInstruction& inst) {
  // OpImageQuerySizeLod (image, level) / OpImageQuerySize (image): width [, height] [, depth],
  // then the layer count of an array; 32- or 64-bit (size_t) components.
  const uint32_t image_id = operand_id(inst, 0);
  const ImageShape shape = image_shape(type_of(image_id));
  const MOperand level = inst.opcode == Op::OpImageQuerySizeLod ? value(operand_id(inst, 1)).parts.at(0)
                                                                : MOperand::literal(0);
  if (inst.opcode == Op::OpImageQuerySizeLod && reg_bits(scalar_of(type_of(operand_id(inst, 1)))) != 32)
    fail("the level must be a 32-bit integer");
  std::vector<ImageQueryWhat> components = {ImageQueryWhat::kWidth};
  if (shape.dims >= 2) components.push_back(ImageQueryWhat::kHeight);
  if (shape.dims >= 3 && !shape.cube) components.push_back(ImageQueryWhat::kDepth);  // a cube: (w, h)
  if (shape.arrayed) components.push_back(ImageQueryWhat::kArraySize);
  const uint32_t scalar = scalar_of(inst.result_type);
  if (type(scalar).kind != TypeKind::kInt) fail("the size query's result is not an integer");
  if (component_count(inst.result_type) != components.size())
    fail("the size query's result has " + std::to_string(component_count(inst.result_type)) + " components, the image " +
         std::to_string(components.size()));
  const MOperand image = value(image_id).parts.at(0);
  Value result;
  for (ImageQueryWhat what : components) {
    const MOperand size = image_query(image, level, what);
    result.parts.push_back(int_width(scalar) == 64 ? MOperand::vreg(emit(Opcode::v_zext_u64_u32, 64, size)) : size);
  }
  define(inst.result_id, std::move(result));
}

void Lowering::image_format_query(const SpirvInstruction& inst) {
  // OpImageQueryOrder / OpImageQueryFormat: SPIR-V's enumerants are the descriptor codes minus 1
  // (both keep OpenCL's order from CL_R / CL_SNORM_INT8); llvm-spirv adds OpenCL's base after.
  // OpImageQueryLevels: the mip levels (1 for every OpenCL image).
  const uint32_t image_id = operand_id(inst, 0);
  image_shape(type_of(image_id));
  if (type(inst.result_type).kind != TypeKind::kInt || reg_bits(inst.result_type) != 32)
    fail("the query's result is not a 32-bit integer");
  const MOperand image = value(image_id).parts.at(0);
  if (inst.opcode == Op::OpImageQueryLevels) {
    define(inst.result_id, Value{{image_query(image, MOperand::literal(0), ImageQueryWhat::kMipLevels)}});
    return;
  }
  const MOperand code = image_query(
      image, MOperand::literal(0), inst.opcode == Op::OpImageQueryOrder ? ImageQueryWhat::kChannelOrder : ImageQueryWhat::kDataType);
  define(inst.result_id, Value{{MOperand::vreg(emit(Opcode::v_sub_u32, 32, code, MOperand::literal(1)))}});
}

bool Lowering::lower_image(const SpirvInstruction& inst) {
  switch (inst.opcode) {
    case Op::OpSampledImage: {
      // (image, sampler) -> both parts; only the sample instructions read it (SPIR-V keeps it in
      // the block that made it).
      // A graphics shader's sampler is two parts (the word and the bias, lower_shader_texture.cc).
      const Value image = value(operand_id(inst, 0)), sampler = value(operand_id(inst, 1));
      if (image.parts.size() != 1 || sampler.parts.size() != (graphics() ? 2u : 1u))
        fail("OpSampledImage of something other than an image and a sampler");
      image_shape(type_of(operand_id(inst, 0)));
      Value sampled{{image.parts[0]}};
      sampled.parts.insert(sampled.parts.end(), sampler.parts.begin(), sampler.parts.end());
      define(inst.result_id, std::move(sampled));
      return true;
    }
    case Op::OpImage: {
      const Value sampled = value(operand_id(inst, 0));
      if (sampled.parts.size() != (graphics() ? 3u : 2u)) fail("OpImage of something other than a sampled image");
      define(inst.result_id, Value{{sampled.parts[0]}});
      return true;
    }
    case Op::OpImageFetch:
      if (graphics()) shader_image_fetch(inst);
      else image_read(inst);
      return true;
    case Op::OpImageRead: image_read(inst); return true;
    case Op::OpImageSampleExplicitLod:
      if (graphics()) shader_image_sample(inst);
      else image_sample(inst);
      return true;
    case Op::OpImageSampleImplicitLod: case Op::OpImageSampleProjImplicitLod: case Op::OpImageSampleProjExplicitLod:
    case Op::OpImageSampleDrefImplicitLod: case Op::OpImageSampleDrefExplicitLod:
    case Op::OpImageSampleProjDrefImplicitLod: case Op::OpImageSampleProjDrefExplicitLod:
      if (!graphics()) return false;
      shader_image_sample(inst);
      return true;
    case Op::OpImageQueryLod:
      if (!graphics()) return false;
      shader_image_query_lod(inst);
      return true;
    case Op::OpImageWrite: image_write(inst); return true;
    case Op::OpImageQuerySizeLod: case Op::OpImageQuerySize: image_size(inst); return true;
    case Op::OpImageQueryOrder: case Op::OpImageQueryFormat: case Op::OpImageQueryLevels:
      image_format_query(inst);
      return true;
    default: return false;
  }
}

}  // namespace gsgpu::compiler
