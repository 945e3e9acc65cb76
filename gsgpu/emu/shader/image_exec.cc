// Image instructions (docs/isa.md section 8b): v_image_load / fetch / sample / store / query reach
// the texture unit (gsgpu/emu/texture). Each instruction reads the IMAGE_DESC of every distinct
// descriptor VA among its active lanes once (normally one: image arguments are uniform) and checks
// every active lane's descriptor, sampler and level before any lane writes a register or a texel,
// so a fault leaves the registers and the image as they were. A descriptor or sampler the unit
// refuses is kBadDescriptor (SHADER_FAULT_INFO.KIND 8), memory the unit cannot reach kMemory; the
// message names the instruction, the operand and the unit's reason, the lane and the VA.
#include <bit>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <vector>

#include "gsgpu/emu/shader/warp.h"
#include "gsgpu/emu/texture/cube_map.h"
#include "gsgpu/emu/texture/texture_unit.h"
#include "protocol/gsgpu/gsgpu_hw.h"
#include "common/text.h"

namespace gsgpu::shader {
namespace {

using isa::Opcode;
using texture::Image;
using texture::Sampler;
using texture::TextureFault;
using texture::TextureUnit;

constexpr unsigned kChannels = 4;

using gsvirt::hex;

// Turns the unit's refusal into the warp's fault.
Flow texture_fault(Warp& w, const DecodedInst& di, const TextureUnit& unit, const std::string& what) {
  std::string message = std::string(isa::op_info(di.inst.opcode).mnemonic) + ": " + what + ": " + unit.fault_reason();
  if (unit.fault() == TextureFault::kMemory) {
    w.fault.memory = unit.memory_fault();
    return raise_fault(w, di, ShaderFaultKind::kMemory, std::move(message));
  }
  return raise_fault(w, di, ShaderFaultKind::kBadDescriptor, std::move(message));
}

// The checked descriptor of every active lane: images[of_lane[l]].
struct LaneImages {
  std::vector<Image> images;
  std::vector<uint64_t> vas;  // each image's descriptor VA (a texture record's start)
  uint8_t of_lane[kMaxWarpWidth] = {};
  const Image& operator[](uint32_t lane) const { return images[of_lane[lane]]; }
};

// Reads the descriptors named by source 0 (a scalar pair or literal: one VA for the warp; a vector
// pair: one per lane) for `use`, each distinct VA once, in lane order. False after raising the
// fault of the first lane whose descriptor the unit refuses.
bool load_images(Warp& w, const DecodedInst& di, TextureUnit& unit, texture::ImageUse use, LaneImages* out) {
  const isa::Instruction& in = di.inst;
  uint64_t va[kMaxWarpWidth];
  lanes64<0>(w, in.src[0], in.literal, va);
  std::vector<uint64_t> seen;
  for (uint32_t l = 0; l < w.width; ++l) {
    if (!(w.exec >> l & 1)) continue;
    size_t i = 0;
    while (i < seen.size() && seen[i] != va[l]) ++i;
    if (i == seen.size()) {
      Image image;
      if (!unit.load_image(va[l], use, &image)) {
        texture_fault(w, di, unit, "image descriptor (source 0) at " + hex(va[l]) + " of lane " + std::to_string(l));
        return false;
      }
      seen.push_back(va[l]);
      out->images.push_back(image);
      out->vas.push_back(va[l]);
    }
    out->of_lane[l] = static_cast<uint8_t>(i);
  }
  return true;
}

// The SAMPLER_STATE word of every active lane (source 2), decoded and checked. A word whose BORDER
// is CUSTOM takes its colour from the lane's texture record (TextureUnit::load_record_sampler).
bool load_samplers(Warp& w, const DecodedInst& di, TextureUnit& unit, const LaneImages& images, Sampler* out) {
  namespace smp = hw::blk::SAMPLER_STATE;
  const uint32_t* word = lanes32<0>(w, di.inst.src[2], di.inst.literal, w.scratch[2]);
  for (uint32_t l = 0; l < w.width; ++l) {
    if (!(w.exec >> l & 1)) continue;
    const bool custom = hw::get_field(word[l], smp::STATE_BORDER_MASK, smp::STATE_BORDER_SHIFT) == smp::STATE_BORDER_CUSTOM;
    if (l > 0 && (w.exec >> (l - 1) & 1) && word[l] == word[l - 1] &&
        (!custom || images.of_lane[l] == images.of_lane[l - 1])) {
      out[l] = out[l - 1];
      continue;
    }
    const std::string what = "sampler (source 2) " + hex(word[l]) + " of lane " + std::to_string(l);
    if (custom) {
      if (!unit.load_record_sampler(images.vas[images.of_lane[l]], word[l], &out[l])) {
        texture_fault(w, di, unit, what);
        return false;
      }
      continue;
    }
    std::string why;
    if (!texture::decode_sampler(word[l], &out[l], &why)) {
      raise_fault(w, di, ShaderFaultKind::kBadDescriptor,
                  std::string(isa::op_info(di.inst.opcode).mnemonic) + ": " + what + ": " + why);
      return false;
    }
  }
  return true;
}

// Writes four channels per lane to the quad at `dst` under the execution mask.
void commit_quad(Warp& w, uint16_t dst, const texture::Texel* result) {
  for (unsigned c = 0; c < kChannels; ++c) {
    uint32_t* row = w.vreg(static_cast<uint16_t>(dst + c));
    for (uint32_t l = 0; l < w.width; ++l)
      if (w.exec >> l & 1) row[l] = result[l].v[c];
  }
}

// The instruction's texel offset (imm19, isa::ImmKind::kTexelOffset; validate() keeps bits 18:12 0).
texture::TexelOffset texel_offset(const DecodedInst& di) {
  texture::TexelOffset offset;
  for (int axis = 0; axis < 3; ++axis) offset.v[axis] = isa::texel_offset_component(di.inst.imm, axis);
  return offset;
}

uint32_t channel(Warp& w, uint16_t quad, unsigned c, uint32_t lane) {
  return w.vreg(static_cast<uint16_t>(quad + c))[lane];
}

// v_image_load (no sampler) and v_image_fetch: integer (x, y, z) and level w.
template <bool WithSampler>
Flow image_fetch(Warp& w, const DecodedInst& di) {
  TextureUnit unit(*w.dispatch->memory);
  LaneImages images;
  if (!load_images(w, di, unit, texture::ImageUse::kRead, &images)) return Flow::kYield;
  Sampler samplers[kMaxWarpWidth];
  if (WithSampler && !load_samplers(w, di, unit, images, samplers)) return Flow::kYield;
  texture::Texel result[kMaxWarpWidth];
  const uint16_t coord = di.inst.src[1];
  const texture::TexelOffset offset = texel_offset(di);
  for (uint32_t l = 0; l < w.width; ++l) {
    if (!(w.exec >> l & 1)) continue;
    int32_t xyz[3];
    for (unsigned c = 0; c < 3; ++c) xyz[c] = static_cast<int32_t>(channel(w, coord, c, l));
    const uint32_t level = channel(w, coord, 3, l);
    if (!unit.fetch(images[l], xyz, level, WithSampler ? &samplers[l] : nullptr, &result[l], offset))
      return texture_fault(w, di, unit, "lane " + std::to_string(l) + " level " + std::to_string(level));
  }
  commit_quad(w, di.inst.dst, result);
  return Flow::kNext;
}

// v_image_sample: float (x, y, z) through the sampler at the explicit LOD in w.
Flow image_sample(Warp& w, const DecodedInst& di) {
  TextureUnit unit(*w.dispatch->memory);
  LaneImages images;
  if (!load_images(w, di, unit, texture::ImageUse::kRead, &images)) return Flow::kYield;
  Sampler samplers[kMaxWarpWidth];
  if (!load_samplers(w, di, unit, images, samplers)) return Flow::kYield;
  texture::Texel result[kMaxWarpWidth];
  const uint16_t coord = di.inst.src[1];
  const texture::TexelOffset offset = texel_offset(di);
  for (uint32_t l = 0; l < w.width; ++l) {
    if (!(w.exec >> l & 1)) continue;
    float xyz[3];
    for (unsigned c = 0; c < 3; ++c) xyz[c] = std::bit_cast<float>(channel(w, coord, c, l));
    const float lod = std::bit_cast<float>(channel(w, coord, 3, l));
    if (!unit.sample(images[l], samplers[l], xyz, lod, &result[l], offset))
      return texture_fault(w, di, unit, "lane " + std::to_string(l));
  }
  commit_quad(w, di.inst.dst, result);
  return Flow::kNext;
}

// A cube's implicit LOD differentiates the face coordinates (s, t) of the lane's own face, as the
// spec's formulas do: the quad's three directions are projected onto that face (cube_map.h).
template <typename At>
void cube_derivatives(const At& at, uint32_t lane, uint32_t quad, float ddx[3], float ddy[3]) {
  float dir[3], st[3][2];
  for (unsigned c = 0; c < 3; ++c) dir[c] = at(c, lane);
  const uint32_t face = texture::cube_face_coord(dir).face;
  for (uint32_t k = 0; k < 3; ++k) {
    for (unsigned c = 0; c < 3; ++c) dir[c] = at(c, quad + k);
    texture::project_onto_face(dir, face, &st[k][0], &st[k][1]);
  }
  for (unsigned c = 0; c < 2; ++c) {
    ddx[c] = st[1][c] - st[0][c];
    ddy[c] = st[2][c] - st[0][c];
  }
  ddx[2] = ddy[2] = 0;
}

// The implicit LOD of `lane`: the texture unit's, from its quad's coarse derivatives (top row for
// d/dx, left column for d/dy, as the quad instructions read them: every lane of the quad whatever
// the execution mask, helper lanes included), plus the lane's bias in channel 3. One LOD per quad
// for a uniform image and bias.
template <typename At>
float lane_implicit_lod(const At& at, uint32_t lane, const Image& image, const Sampler& sampler) {
  const uint32_t q = lane & ~3u;  // fragment warps are whole quads (the stage checks the width)
  float ddx[3], ddy[3];
  for (unsigned c = 0; c < 3; ++c) {
    ddx[c] = at(c, q + 1) - at(c, q);
    ddy[c] = at(c, q + 2) - at(c, q);
  }
  if (image.type == hw::blk::IMAGE_DESC::FORMAT_TYPE_IMAGE_CUBE) cube_derivatives(at, lane, q, ddx, ddy);
  return TextureUnit::implicit_lod(image, sampler, ddx, ddy) + at(3, lane);
}

// The fragment-program image instructions: their images and samplers, checked for every active lane.
bool load_fragment_operands(Warp& w, const DecodedInst& di, TextureUnit& unit, LaneImages* images, Sampler* samplers) {
  if (!w.dispatch->params->fragment) {
    raise_fault(w, di, ShaderFaultKind::kIllegalInstruction,
                std::string(isa::op_info(di.inst.opcode).mnemonic) + " is a fragment-program instruction");
    return false;
  }
  return load_images(w, di, unit, texture::ImageUse::kRead, images) && load_samplers(w, di, unit, *images, samplers);
}

// v_image_sample_implicit (fragment programs): v_image_sample at each lane's implicit LOD.
Flow image_sample_implicit(Warp& w, const DecodedInst& di) {
  TextureUnit unit(*w.dispatch->memory);
  LaneImages images;
  Sampler samplers[kMaxWarpWidth];
  if (!load_fragment_operands(w, di, unit, &images, samplers)) return Flow::kYield;
  texture::Texel result[kMaxWarpWidth];
  const uint16_t coord = di.inst.src[1];
  const auto at = [&](unsigned c, uint32_t lane) { return std::bit_cast<float>(channel(w, coord, c, lane)); };
  const texture::TexelOffset offset = texel_offset(di);
  for (uint32_t l = 0; l < w.width; ++l) {
    if (!(w.exec >> l & 1)) continue;
    const float xyz[3] = {at(0, l), at(1, l), at(2, l)};
    const float lod = lane_implicit_lod(at, l, images[l], samplers[l]);
    if (!unit.sample(images[l], samplers[l], xyz, lod, &result[l], offset))
      return texture_fault(w, di, unit, "lane " + std::to_string(l));
  }
  commit_quad(w, di.inst.dst, result);
  return Flow::kNext;
}

// v_image_query_lod (fragment programs; OpImageQueryLod): (the level v_image_sample_implicit would
// read, its LOD before the clamps, 0, 0) from the same derivatives, bias and sampler.
Flow image_query_lod(Warp& w, const DecodedInst& di) {
  TextureUnit unit(*w.dispatch->memory);
  LaneImages images;
  Sampler samplers[kMaxWarpWidth];
  if (!load_fragment_operands(w, di, unit, &images, samplers)) return Flow::kYield;
  texture::Texel result[kMaxWarpWidth];
  const uint16_t coord = di.inst.src[1];
  const auto at = [&](unsigned c, uint32_t lane) { return std::bit_cast<float>(channel(w, coord, c, lane)); };
  for (uint32_t l = 0; l < w.width; ++l) {
    if (!(w.exec >> l & 1)) continue;
    const float lod = lane_implicit_lod(at, l, images[l], samplers[l]);
    const TextureUnit::LodQuery q = TextureUnit::query_lod(images[l], samplers[l], lod);
    result[l].set_f(0, q.level);
    result[l].set_f(1, q.lod);
    result[l].set_f(2, 0.0f);
    result[l].set_f(3, 0.0f);
  }
  commit_quad(w, di.inst.dst, result);
  return Flow::kNext;
}

// v_image_store: every lane's level is checked before the first texel is written.
Flow image_store(Warp& w, const DecodedInst& di) {
  TextureUnit unit(*w.dispatch->memory);
  LaneImages images;
  if (!load_images(w, di, unit, texture::ImageUse::kWrite, &images)) return Flow::kYield;
  const uint16_t coord = di.inst.src[1], data = di.inst.src[2];
  for (uint32_t l = 0; l < w.width; ++l) {
    if (!(w.exec >> l & 1)) continue;
    const uint32_t level = channel(w, coord, 3, l);
    if (level >= images[l].mip_levels)
      return raise_fault(w, di, ShaderFaultKind::kBadDescriptor,
                         "v_image_store: lane " + std::to_string(l) + " level " + std::to_string(level) +
                             " is past the image's " + std::to_string(images[l].mip_levels) + " mip levels");
  }
  for (uint32_t l = 0; l < w.width; ++l) {
    if (!(w.exec >> l & 1)) continue;
    int32_t xyz[3];
    for (unsigned c = 0; c < 3; ++c) xyz[c] = static_cast<int32_t>(channel(w, coord, c, l));
    texture::Texel value;
    for (unsigned c = 0; c < kChannels; ++c) value.v[c] = channel(w, data, c, l);
    if (!unit.store(images[l], xyz, channel(w, coord, 3, l), value))
      return texture_fault(w, di, unit, "lane " + std::to_string(l));
  }
  return Flow::kNext;
}

// v_image_query: a property of the image (of the level in source 1, for sizes).
Flow image_query(Warp& w, const DecodedInst& di) {
  TextureUnit unit(*w.dispatch->memory);
  LaneImages images;
  if (!load_images(w, di, unit, texture::ImageUse::kQuery, &images)) return Flow::kYield;
  const uint32_t* level = lanes32<0>(w, di.inst.src[1], di.inst.literal, w.scratch[1]);
  const auto what = static_cast<texture::ImageQuery>(di.inst.imm);  // validate() bounds it to 0..6
  uint32_t result[kMaxWarpWidth] = {};
  for (uint32_t l = 0; l < w.width; ++l)
    if (w.exec >> l & 1) result[l] = TextureUnit::query(images[l], what, level[l]);
  commit32<0>(w, di.inst.dst, result);
  return Flow::kNext;
}

static_assert(static_cast<int>(isa::ImageQueryWhat::kMipLevels) == static_cast<int>(texture::ImageQuery::kMipLevels) &&
              static_cast<int>(isa::ImageQueryWhat::kChannelOrder) == static_cast<int>(texture::ImageQuery::kChannelOrder));

}  // namespace

void fill_image_handlers(Handler* table, uint32_t) {
  table[static_cast<size_t>(Opcode::v_image_load)] = &image_fetch<false>;
  table[static_cast<size_t>(Opcode::v_image_fetch)] = &image_fetch<true>;
  table[static_cast<size_t>(Opcode::v_image_sample)] = &image_sample;
  table[static_cast<size_t>(Opcode::v_image_store)] = &image_store;
  table[static_cast<size_t>(Opcode::v_image_query)] = &image_query;
  table[static_cast<size_t>(Opcode::v_image_sample_implicit)] = &image_sample_implicit;
  table[static_cast<size_t>(Opcode::v_image_query_lod)] = &image_query_lod;
}

}  // namespace gsgpu::shader
