// DRAW state-block decoding with every field checked (see draw_state.h).
#include "gsgpu/emu/draw_state.h"

#include <algorithm>
#include <bit>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "common/checked_math.h"
#include "gsgpu/isa/isa.h"
#include "protocol/gsgpu/gsgpu_hw.h"

namespace gsgpu {
namespace {

namespace G = graphics;
namespace blk = hw::blk;

// The ISA's register files (constants only: the device library does not link the ISA) and the
// largest fragment program the draw path fetches.
constexpr uint32_t isa_vector_regs = isa::kNumVectorRegs, isa_scalar_regs = isa::kNumScalarRegs;
constexpr uint32_t kMaxProgramCodeSize = 1u << 20;
constexpr uint32_t kMaxConstantsSize = 64u << 10;  // SHADER_STATE CONSTANTS_SIZE

std::string hex(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%x", v);
  return b;
}

// One block's words, read through the MMU, with the checks every field shares.
class BlockWords {
 public:
  BlockWords(const char* name, DrawStateError* error) : name_(name), error_(error) {}

  bool read(GpuMemory& memory, uint64_t va, uint32_t size_dwords, uint32_t align, uint32_t count = 1) {
    words_.assign(size_t(size_dwords) * count, 0);
    if (va % align != 0)
      return fail_memory("address 0x" + hex64(va) + " is not " + std::to_string(align) + "-byte aligned");
    if (count == 0) return true;
    const uint64_t bytes = uint64_t{size_dwords} * 4 * count;
    const uint8_t* p = gsvirt::checked_add<uint64_t>(va, bytes) ? memory.translate(va, bytes, Access::kRead) : nullptr;
    if (!p) return fail_memory("0x" + hex64(va) + " (" + std::to_string(bytes) + " bytes) is not readable");
    std::memcpy(words_.data(), p, bytes);
    return true;
  }
  uint32_t word(uint32_t i) const { return words_[i]; }
  uint32_t field(uint32_t i, uint32_t mask, uint32_t shift) const { return hw::get_field(words_[i], mask, shift); }
  float real(uint32_t i) const { return std::bit_cast<float>(words_[i]); }
  uint64_t pair(uint32_t lo, uint32_t hi) const { return uint64_t{words_[lo]} | uint64_t{words_[hi]} << 32; }

  // Bits of dword i outside `known` must be 0.
  bool only(uint32_t i, uint32_t known, const char* dword) {
    return (words_[i] & ~known) == 0 || fail(std::string(dword) + " has undefined bits set: " + hex(words_[i]));
  }
  bool zero(uint32_t i, const char* dword) { return only(i, 0, dword); }
  bool at_most(uint32_t value, uint32_t limit, const char* what) {
    return value <= limit ||
           fail(std::string(what) + " is " + std::to_string(value) + ", above " + std::to_string(limit));
  }
  bool fail(const std::string& message) {
    error_->memory = false;
    error_->message = std::string(name_) + ": " + message;
    return false;
  }

 private:
  static std::string hex64(uint64_t v) {
    char b[24];
    std::snprintf(b, sizeof b, "%" PRIx64, v);
    return b;
  }
  bool fail_memory(const std::string& message) {
    error_->memory = true;
    error_->message = std::string(name_) + ": " + message;
    return false;
  }
  const char* name_;
  DrawStateError* error_;
  std::vector<uint32_t> words_;
};

// A field's mask and shift from the generated header: FIELD(PIPE_STATE, RASTER, CULL).
#define FIELD(B, D, F) blk::B::D##_##F##_MASK, blk::B::D##_##F##_SHIFT

bool decode_vertex_input(GpuMemory& memory, uint64_t bindings_va, uint32_t binding_count, uint64_t attributes_va,
                         uint32_t attribute_count, G::VertexInputState* in, DrawStateError* error) {
  namespace VB = blk::VERTEX_BINDING;
  namespace VA = blk::VERTEX_ATTRIBUTE;
  BlockWords b("VERTEX_BINDING", error);
  if (!b.read(memory, bindings_va, VB::SIZE_DWORDS, VB::ALIGN_BYTES, binding_count)) return false;
  for (uint32_t i = 0; i < binding_count; ++i) {
    const uint32_t o = i * VB::SIZE_DWORDS;
    const std::string at = "[" + std::to_string(i) + "].";
    if (!b.only(o + VB::RATE, VB::RATE_PER_INSTANCE_MASK, (at + "RATE").c_str()) ||
        !b.zero(o + VB::RESERVED_7, (at + "RESERVED_7").c_str()) ||
        !b.at_most(b.word(o + VB::STRIDE), 65535, (at + "STRIDE").c_str())) {
      return false;
    }
    const uint32_t divisor = b.word(o + VB::DIVISOR);
    if (divisor == 0 || divisor > 0x80000000u)
      return b.fail(at + "DIVISOR " + std::to_string(divisor) + " outside 1 .. 2^31");
    G::VertexBinding& vb = in->bindings[i];
    vb.va = b.pair(o + VB::VA_LO, o + VB::VA_HI);
    vb.size = b.pair(o + VB::SIZE_LO, o + VB::SIZE_HI);
    vb.stride = b.word(o + VB::STRIDE);
    vb.rate = b.field(o + VB::RATE, FIELD(VERTEX_BINDING, RATE, PER_INSTANCE)) ? G::InputRate::kInstance
                                                                               : G::InputRate::kVertex;
    vb.divisor = divisor;
  }
  BlockWords a("VERTEX_ATTRIBUTE", error);
  if (!a.read(memory, attributes_va, VA::SIZE_DWORDS, VA::ALIGN_BYTES, attribute_count)) return false;
  for (uint32_t i = 0; i < attribute_count; ++i) {
    const uint32_t o = i * VA::SIZE_DWORDS;
    const std::string at = "[" + std::to_string(i) + "].";
    const uint32_t binding = a.word(o + VA::BINDING), format = a.word(o + VA::FORMAT);
    if (!a.zero(o + VA::RESERVED_3, (at + "RESERVED_3").c_str()) ||
        !a.at_most(a.word(o + VA::OFFSET), 2047, (at + "OFFSET").c_str())) {
      return false;
    }
    if (binding >= binding_count) return a.fail(at + "BINDING " + std::to_string(binding) + " is not a bound binding");
    if (G::vertex_format_size(format) == 0)
      return a.fail(at + "FORMAT " + std::to_string(format) + " is not a vertex format");
    in->attributes[i] = G::VertexAttribute{binding, format, a.word(o + VA::OFFSET)};
  }
  return true;
}

bool decode_draw_info(GpuMemory& memory, uint64_t va, G::DrawState* s, DrawStateError* error) {
  BlockWords w("DRAW_INFO", error);
  if (!w.read(memory, va, blk::DRAW_INFO::SIZE_DWORDS, blk::DRAW_INFO::ALIGN_BYTES)) return false;
  namespace D = blk::DRAW_INFO;
  const uint32_t flags_known =
      D::FLAGS_TOPOLOGY_MASK | D::FLAGS_INDEXED_MASK | D::FLAGS_INDEX_TYPE_MASK | D::FLAGS_PRIMITIVE_RESTART_MASK;
  if (!w.only(D::FLAGS, flags_known, "FLAGS") || !w.zero(D::RESERVED_15, "RESERVED_15") ||
      !w.only(D::COUNTS, D::COUNTS_BINDING_COUNT_MASK | D::COUNTS_ATTRIBUTE_COUNT_MASK, "COUNTS")) {
    return false;
  }
  const uint32_t topology = w.field(D::FLAGS, FIELD(DRAW_INFO, FLAGS, TOPOLOGY));
  const uint32_t bindings = w.field(D::COUNTS, FIELD(DRAW_INFO, COUNTS, BINDING_COUNT));
  const uint32_t attributes = w.field(D::COUNTS, FIELD(DRAW_INFO, COUNTS, ATTRIBUTE_COUNT));
  if (!w.at_most(topology, G::kMaxTopology, "FLAGS.TOPOLOGY") ||
      !w.at_most(bindings, G::kMaxVertexBindings, "COUNTS.BINDING_COUNT") ||
      !w.at_most(attributes, G::kMaxVertexAttributes, "COUNTS.ATTRIBUTE_COUNT")) {
    return false;
  }
  G::DrawParams& d = s->draw;
  d.topology = G::Topology(topology);
  d.indexed = w.field(D::FLAGS, FIELD(DRAW_INFO, FLAGS, INDEXED)) != 0;
  d.index_type = w.field(D::FLAGS, FIELD(DRAW_INFO, FLAGS, INDEX_TYPE)) ? G::IndexType::kUint32 : G::IndexType::kUint16;
  d.primitive_restart = w.field(D::FLAGS, FIELD(DRAW_INFO, FLAGS, PRIMITIVE_RESTART)) != 0;
  d.count = w.word(D::COUNT);
  d.instance_count = w.word(D::INSTANCE_COUNT);
  d.first_vertex = w.word(D::FIRST_VERTEX);
  d.first_instance = w.word(D::FIRST_INSTANCE);
  d.first_index = w.word(D::FIRST_INDEX);
  d.vertex_offset = static_cast<int32_t>(w.word(D::VERTEX_OFFSET));
  d.index_va = w.pair(D::INDEX_VA_LO, D::INDEX_VA_HI);
  d.index_size = w.word(D::INDEX_SIZE);
  s->input.attribute_count = attributes;
  return decode_vertex_input(memory, w.pair(D::BINDINGS_VA_LO, D::BINDINGS_VA_HI), bindings,
                             w.pair(D::ATTRIBUTES_VA_LO, D::ATTRIBUTES_VA_HI), attributes, &s->input, error);
}

bool decode_targets(BlockWords& w, G::DrawState* s) {
  namespace P = blk::PIPE_STATE;
  const uint32_t width = w.field(P::TARGET_SIZE, FIELD(PIPE_STATE, TARGET_SIZE, WIDTH));
  const uint32_t height = w.field(P::TARGET_SIZE, FIELD(PIPE_STATE, TARGET_SIZE, HEIGHT));
  if (width == 0 || height == 0 || width > G::kMaxDrawTargetSize || height > G::kMaxDrawTargetSize) {
    return w.fail("TARGET_SIZE " + std::to_string(width) + " x " + std::to_string(height) + " outside 1 .. 4096");
  }
  s->width = width;
  s->height = height;
  const uint32_t color_format = w.word(P::COLOR_FORMAT), depth_format = w.word(P::DEPTH_FORMAT);
  s->color.enabled = color_format != 0;
  if (color_format != 0 && !G::color_format_from_vk(color_format, &s->color.format))
    return w.fail("COLOR_FORMAT " + std::to_string(color_format) + " is not a render-target format");
  s->depth.enabled = depth_format != 0;
  switch (depth_format) {
    case 0:
      break;
    case 124:
      s->depth.format = G::DepthFormat::kD16Unorm;
      break;
    case 126:
      s->depth.format = G::DepthFormat::kD32Sfloat;
      break;
    case 129:
      s->depth.format = G::DepthFormat::kD24UnormS8Uint;
      break;
    case 130:
      s->depth.format = G::DepthFormat::kD32SfloatS8Uint;
      break;
    default:
      return w.fail("DEPTH_FORMAT " + std::to_string(depth_format) + " is not a depth format");
  }
  s->color.va = w.pair(P::COLOR_VA_LO, P::COLOR_VA_HI);
  s->color.row_pitch = w.word(P::COLOR_PITCH);
  s->depth.va = w.pair(P::DEPTH_VA_LO, P::DEPTH_VA_HI);
  s->depth.row_pitch = w.word(P::DEPTH_PITCH);
  return true;
}

// A BLEND dword (PIPE_STATE BLEND, COLOR_TARGET BLEND: one layout) into *b's enable, factors and
// ops; `name` is the dword's in errors.
bool decode_blend(BlockWords& w, uint32_t dword, const std::string& name, G::BlendState* b) {
  namespace P = blk::PIPE_STATE;
  const uint32_t blend_known = P::BLEND_ENABLE_MASK | P::BLEND_SRC_COLOR_MASK | P::BLEND_DST_COLOR_MASK |
                               P::BLEND_COLOR_OP_MASK | P::BLEND_SRC_ALPHA_MASK | P::BLEND_DST_ALPHA_MASK |
                               P::BLEND_ALPHA_OP_MASK;
  if (!w.only(dword, blend_known, name.c_str())) return false;
  const uint32_t factors[4] = {
      w.field(dword, FIELD(PIPE_STATE, BLEND, SRC_COLOR)), w.field(dword, FIELD(PIPE_STATE, BLEND, DST_COLOR)),
      w.field(dword, FIELD(PIPE_STATE, BLEND, SRC_ALPHA)), w.field(dword, FIELD(PIPE_STATE, BLEND, DST_ALPHA))};
  const uint32_t color_op = w.field(dword, FIELD(PIPE_STATE, BLEND, COLOR_OP));
  const uint32_t alpha_op = w.field(dword, FIELD(PIPE_STATE, BLEND, ALPHA_OP));
  for (uint32_t f : factors) {
    if (!w.at_most(f, G::kMaxBlendFactor, (name + " factor").c_str())) return false;
  }
  if (!w.at_most(color_op, G::kMaxBlendOp, (name + ".COLOR_OP").c_str()) ||
      !w.at_most(alpha_op, G::kMaxBlendOp, (name + ".ALPHA_OP").c_str())) {
    return false;
  }
  b->enable = w.field(dword, FIELD(PIPE_STATE, BLEND, ENABLE)) != 0;
  b->src_color = G::BlendFactor(factors[0]);
  b->dst_color = G::BlendFactor(factors[1]);
  b->src_alpha = G::BlendFactor(factors[2]);
  b->dst_alpha = G::BlendFactor(factors[3]);
  b->color_op = G::BlendOp(color_op);
  b->alpha_op = G::BlendOp(alpha_op);
  return true;
}

G::StencilFaceState stencil_face(const BlockWords& w, uint32_t ops, uint32_t masks) {
  namespace P = blk::PIPE_STATE;
  G::StencilFaceState f;
  f.fail_op = G::StencilOp(w.field(ops, FIELD(PIPE_STATE, STENCIL_FRONT_OPS, FAIL)));
  f.pass_op = G::StencilOp(w.field(ops, FIELD(PIPE_STATE, STENCIL_FRONT_OPS, PASS)));
  f.depth_fail_op = G::StencilOp(w.field(ops, FIELD(PIPE_STATE, STENCIL_FRONT_OPS, DEPTH_FAIL)));
  f.compare_op = G::CompareOp(w.field(ops, FIELD(PIPE_STATE, STENCIL_FRONT_OPS, COMPARE)));
  f.compare_mask = uint8_t(w.field(masks, FIELD(PIPE_STATE, STENCIL_FRONT_MASKS, COMPARE_MASK)));
  f.write_mask = uint8_t(w.field(masks, FIELD(PIPE_STATE, STENCIL_FRONT_MASKS, WRITE_MASK)));
  f.reference = uint8_t(w.field(masks, FIELD(PIPE_STATE, STENCIL_FRONT_MASKS, REFERENCE)));
  return f;
}

bool decode_tests_and_blend(BlockWords& w, G::DrawState* s) {
  namespace P = blk::PIPE_STATE;
  const uint32_t ops_known = P::STENCIL_FRONT_OPS_FAIL_MASK | P::STENCIL_FRONT_OPS_PASS_MASK |
                             P::STENCIL_FRONT_OPS_DEPTH_FAIL_MASK | P::STENCIL_FRONT_OPS_COMPARE_MASK;
  const uint32_t masks_known = P::STENCIL_FRONT_MASKS_COMPARE_MASK_MASK | P::STENCIL_FRONT_MASKS_WRITE_MASK_MASK |
                               P::STENCIL_FRONT_MASKS_REFERENCE_MASK;
  if (!w.only(P::DEPTH, P::DEPTH_TEST_MASK | P::DEPTH_WRITE_MASK | P::DEPTH_COMPARE_MASK, "DEPTH") ||
      !w.only(P::STENCIL, P::STENCIL_TEST_MASK, "STENCIL") ||
      !w.only(P::STENCIL_FRONT_OPS, ops_known, "STENCIL_FRONT_OPS") ||
      !w.only(P::STENCIL_BACK_OPS, ops_known, "STENCIL_BACK_OPS") ||
      !w.only(P::STENCIL_FRONT_MASKS, masks_known, "STENCIL_FRONT_MASKS") ||
      !w.only(P::STENCIL_BACK_MASKS, masks_known, "STENCIL_BACK_MASKS") ||
      !w.only(P::OUTPUT, P::OUTPUT_WRITE_MASK_MASK | P::OUTPUT_LOGIC_OP_ENABLE_MASK | P::OUTPUT_LOGIC_OP_MASK,
              "OUTPUT")) {
    return false;
  }
  G::DepthStencilState& ds = s->depth_stencil;
  ds.depth_test = w.field(P::DEPTH, FIELD(PIPE_STATE, DEPTH, TEST)) != 0;
  ds.depth_write = w.field(P::DEPTH, FIELD(PIPE_STATE, DEPTH, WRITE)) != 0;
  ds.depth_compare = G::CompareOp(w.field(P::DEPTH, FIELD(PIPE_STATE, DEPTH, COMPARE)));
  ds.stencil_test = w.field(P::STENCIL, FIELD(PIPE_STATE, STENCIL, TEST)) != 0;
  ds.front = stencil_face(w, P::STENCIL_FRONT_OPS, P::STENCIL_FRONT_MASKS);
  ds.back = stencil_face(w, P::STENCIL_BACK_OPS, P::STENCIL_BACK_MASKS);
  if (!decode_blend(w, P::BLEND, "BLEND", &s->blend)) return false;
  G::BlendState& b = s->blend;
  b.write_mask = uint8_t(w.field(P::OUTPUT, FIELD(PIPE_STATE, OUTPUT, WRITE_MASK)));
  b.logic_op_enable = w.field(P::OUTPUT, FIELD(PIPE_STATE, OUTPUT, LOGIC_OP_ENABLE)) != 0;
  b.logic_op = G::LogicOp(w.field(P::OUTPUT, FIELD(PIPE_STATE, OUTPUT, LOGIC_OP)));
  b.constant = {w.real(P::BLEND_CONSTANT_R), w.real(P::BLEND_CONSTANT_G), w.real(P::BLEND_CONSTANT_B),
                w.real(P::BLEND_CONSTANT_A)};
  for (float c : b.constant) {
    if (!std::isfinite(c)) return w.fail("BLEND_CONSTANT is not finite");
  }
  return true;
}

// MULTISAMPLE: the sample count decides how wide the targets are mapped (graphics_pipeline.cc), so
// only 1, 2 and 4 pass.
bool decode_multisample(BlockWords& w, G::DrawState* s) {
  namespace P = blk::PIPE_STATE;
  const uint32_t known = P::MULTISAMPLE_SAMPLES_LOG2_MASK | P::MULTISAMPLE_SAMPLE_MASK_ENABLE_MASK |
                         P::MULTISAMPLE_SAMPLE_MASK_MASK | P::MULTISAMPLE_ALPHA_TO_COVERAGE_MASK |
                         P::MULTISAMPLE_ALPHA_TO_ONE_MASK;
  if (!w.only(P::MULTISAMPLE, known, "MULTISAMPLE")) return false;
  const uint32_t log2 = w.field(P::MULTISAMPLE, FIELD(PIPE_STATE, MULTISAMPLE, SAMPLES_LOG2));
  if (!w.at_most(log2, 2, "MULTISAMPLE.SAMPLES_LOG2")) return false;
  G::MultisampleState& ms = s->multisample;
  ms.samples = 1u << log2;
  const bool masked = w.field(P::MULTISAMPLE, FIELD(PIPE_STATE, MULTISAMPLE, SAMPLE_MASK_ENABLE)) != 0;
  ms.sample_mask = masked ? uint8_t(w.field(P::MULTISAMPLE, FIELD(PIPE_STATE, MULTISAMPLE, SAMPLE_MASK))) : 0xF;
  ms.alpha_to_coverage = w.field(P::MULTISAMPLE, FIELD(PIPE_STATE, MULTISAMPLE, ALPHA_TO_COVERAGE)) != 0;
  ms.alpha_to_one = w.field(P::MULTISAMPLE, FIELD(PIPE_STATE, MULTISAMPLE, ALPHA_TO_ONE)) != 0;
  return true;
}

// RASTER.DEPTH_BIAS and its three factors; a factor that is not finite is a bad field (it would
// make every biased depth infinite or NaN).
bool decode_depth_bias(BlockWords& w, G::DepthBias* bias) {
  namespace P = blk::PIPE_STATE;
  bias->enable = w.field(P::RASTER, FIELD(PIPE_STATE, RASTER, DEPTH_BIAS)) != 0;
  bias->constant = w.real(P::DEPTH_BIAS_CONSTANT);
  bias->slope = w.real(P::DEPTH_BIAS_SLOPE);
  bias->clamp = w.real(P::DEPTH_BIAS_CLAMP);
  if (!std::isfinite(bias->constant) || !std::isfinite(bias->slope) || !std::isfinite(bias->clamp)) {
    return w.fail("DEPTH_BIAS_CONSTANT / SLOPE / CLAMP is not finite");
  }
  return true;
}

// One COLOR_TARGET record (target 1 + i): format, address, pitch, blend state and write mask.
bool decode_more_target(BlockWords& r, uint32_t i, G::MoreColorTargetState* t) {
  namespace C = blk::COLOR_TARGET;
  const uint32_t o = i * C::SIZE_DWORDS;
  const std::string at = "[" + std::to_string(i) + "].";
  if (!r.zero(o + C::RESERVED_6, (at + "RESERVED_6").c_str()) || !r.zero(o + C::RESERVED_7, (at + "RESERVED_7").c_str()) ||
      !r.only(o + C::WRITE_MASK, 0xFu, (at + "WRITE_MASK").c_str()) || !decode_blend(r, o + C::BLEND, at + "BLEND", &t->blend)) {
    return false;
  }
  // The second source is target 0's alone (dual-source blending has one target).
  for (G::BlendFactor f : {t->blend.src_color, t->blend.dst_color, t->blend.src_alpha, t->blend.dst_alpha}) {
    if (f >= G::BlendFactor::kSrc1Color) return r.fail(at + "BLEND names a SRC1 factor, which only target 0 has");
  }
  t->blend.write_mask = uint8_t(r.word(o + C::WRITE_MASK));
  const uint32_t format = r.word(o + C::FORMAT);
  t->target.enabled = format != 0;
  if (format != 0 && !G::color_format_from_vk(format, &t->target.format))
    return r.fail(at + "FORMAT " + std::to_string(format) + " is not a render-target format");
  t->target.va = r.pair(o + C::VA_LO, o + C::VA_HI);
  t->target.row_pitch = r.word(o + C::PITCH);
  if (format == 0 && (t->target.va != 0 || t->target.row_pitch != 0))
    return r.fail(at + "VA and PITCH must be 0 for an unused target (FORMAT 0)");
  return true;
}

// PIPE_STATE COLOR_TARGETS: the records of targets 1..COUNT, read through the MMU.
bool decode_more_targets(GpuMemory& memory, BlockWords& w, G::DrawState* s, DrawStateError* error) {
  namespace P = blk::PIPE_STATE;
  namespace C = blk::COLOR_TARGET;
  const uint32_t count = w.field(P::COLOR_TARGETS, FIELD(PIPE_STATE, COLOR_TARGETS, COUNT));
  const uint64_t va = w.pair(P::COLOR_TARGETS_VA_LO, P::COLOR_TARGETS_VA_HI);
  if (count == 0) return va == 0 || w.fail("COLOR_TARGETS_VA must be 0 when COLOR_TARGETS.COUNT is 0");
  if (!w.at_most(count, G::kMaxColorTargets - 1, "COLOR_TARGETS.COUNT")) return false;
  BlockWords r("COLOR_TARGET", error);
  if (!r.read(memory, va, C::SIZE_DWORDS, C::ALIGN_BYTES, count)) return false;
  for (uint32_t i = 0; i < count; ++i) {
    if (!decode_more_target(r, i, &s->more_colors[i])) return false;
  }
  s->more_color_count = count;
  return true;
}

// RASTER.LINE_STIPPLE and the LINE_STIPPLE word: a factor outside Vulkan's [1, 256] is a bad field
// (it divides the stipple counter), and so is a LINE_STIPPLE word without the RASTER bit.
bool decode_line_stipple(BlockWords& w, G::LineStipple* stipple) {
  namespace P = blk::PIPE_STATE;
  *stipple = G::LineStipple{};
  if (!w.only(P::LINE_STIPPLE, P::LINE_STIPPLE_FACTOR_MASK | P::LINE_STIPPLE_PATTERN_MASK, "LINE_STIPPLE")) return false;
  if (w.field(P::RASTER, FIELD(PIPE_STATE, RASTER, LINE_STIPPLE)) == 0) {
    return w.zero(P::LINE_STIPPLE, "LINE_STIPPLE (RASTER.LINE_STIPPLE is 0)");
  }
  const uint32_t factor = w.field(P::LINE_STIPPLE, FIELD(PIPE_STATE, LINE_STIPPLE, FACTOR));
  if (factor < G::kMinLineStippleFactor || factor > G::kMaxLineStippleFactor) {
    return w.fail("LINE_STIPPLE.FACTOR is " + std::to_string(factor) + ", outside 1 .. 256");
  }
  stipple->enabled = true;
  stipple->factor = factor;
  stipple->pattern = uint16_t(w.field(P::LINE_STIPPLE, FIELD(PIPE_STATE, LINE_STIPPLE, PATTERN)));
  return true;
}

bool decode_pipe_state(GpuMemory& memory, uint64_t va, G::DrawState* s, DrawStateError* error) {
  namespace P = blk::PIPE_STATE;
  BlockWords w("PIPE_STATE", error);
  if (!w.read(memory, va, P::SIZE_DWORDS, P::ALIGN_BYTES)) return false;
  if (!w.only(P::RASTER,
              P::RASTER_CULL_MASK | P::RASTER_FRONT_FACE_MASK | P::RASTER_BBOX_TEST_MASK | P::RASTER_LINE_MODE_MASK |
                  P::RASTER_POLYGON_MODE_MASK | P::RASTER_PROVOKING_LAST_MASK | P::RASTER_DEPTH_BIAS_MASK |
                  P::RASTER_DEPTH_CLAMP_MASK | P::RASTER_NO_DEPTH_CLIP_MASK | P::RASTER_DISCARD_MASK |
                  P::RASTER_LINE_STIPPLE_MASK,
              "RASTER")) {
    return false;
  }
  if (!w.only(P::COLOR_TARGETS, P::COLOR_TARGETS_COUNT_MASK, "COLOR_TARGETS")) return false;
  // Any value: the geometry engine clamps it to pointSizeRange (a guest cannot ask for more).
  s->draw.point_size = w.real(P::POINT_SIZE);
  s->draw.line_width = w.real(P::LINE_WIDTH);  // the same: clamped to lineWidthRange
  if (!decode_line_stipple(w, &s->draw.line_stipple)) return false;
  s->setup.cull = G::CullMode(w.field(P::RASTER, FIELD(PIPE_STATE, RASTER, CULL)));
  s->setup.front_face = w.field(P::RASTER, FIELD(PIPE_STATE, RASTER, FRONT_FACE)) ? G::FrontFace::kClockwise
                                                                                  : G::FrontFace::kCounterClockwise;
  s->raster.bounding_box_test = w.field(P::RASTER, FIELD(PIPE_STATE, RASTER, BBOX_TEST)) != 0;
  s->draw.line_mode =
      w.field(P::RASTER, FIELD(PIPE_STATE, RASTER, LINE_MODE)) ? G::LineMode::kBresenham : G::LineMode::kRectangular;
  const uint32_t polygon_mode = w.field(P::RASTER, FIELD(PIPE_STATE, RASTER, POLYGON_MODE));
  if (polygon_mode > 2) return w.fail("RASTER.POLYGON_MODE is " + std::to_string(polygon_mode) + ", above 2");
  s->draw.polygon_mode = G::PolygonMode(polygon_mode);
  s->draw.provoking_vertex = w.field(P::RASTER, FIELD(PIPE_STATE, RASTER, PROVOKING_LAST)) ? G::ProvokingVertex::kLast
                                                                                         : G::ProvokingVertex::kFirst;
  if (!decode_depth_bias(w, &s->setup.depth_bias)) return false;
  s->draw.cull = s->setup.cull;
  s->draw.front_face = s->setup.front_face;
  s->viewport = G::Viewport{w.real(P::VIEWPORT_X),      w.real(P::VIEWPORT_Y),         w.real(P::VIEWPORT_WIDTH),
                            w.real(P::VIEWPORT_HEIGHT), w.real(P::VIEWPORT_MIN_DEPTH), w.real(P::VIEWPORT_MAX_DEPTH)};
  if (auto bad = G::validate_viewport(s->viewport)) return w.fail("VIEWPORT: " + *bad);
  s->draw.rasterizer_discard = w.field(P::RASTER, FIELD(PIPE_STATE, RASTER, DISCARD)) != 0;
  // Clip and clamp apart (VK_EXT_depth_clip_enable): unclipped depths are still clamped, to [0, 1]
  // unless DEPTH_CLAMP asks for the viewport's range.
  s->draw.no_depth_clip = w.field(P::RASTER, FIELD(PIPE_STATE, RASTER, NO_DEPTH_CLIP)) != 0;
  if (w.field(P::RASTER, FIELD(PIPE_STATE, RASTER, DEPTH_CLAMP)) != 0) {  // viewport depths lie in [0, 1]
    s->depth_stencil.depth_min = std::min(s->viewport.min_depth, s->viewport.max_depth);
    s->depth_stencil.depth_max = std::max(s->viewport.min_depth, s->viewport.max_depth);
  }
  // Scissor in 64-bit so that offset + extent cannot wrap; clamped to the targets by the rasterizer.
  const int64_t sx = int32_t(w.word(P::SCISSOR_X)), sy = int32_t(w.word(P::SCISSOR_Y));
  const int64_t sx1 = std::clamp<int64_t>(sx + w.word(P::SCISSOR_WIDTH), 0, G::kMaxDrawTargetSize);
  const int64_t sy1 = std::clamp<int64_t>(sy + w.word(P::SCISSOR_HEIGHT), 0, G::kMaxDrawTargetSize);
  s->scissor = G::PixelRect{int32_t(std::clamp<int64_t>(sx, 0, G::kMaxDrawTargetSize)),
                            int32_t(std::clamp<int64_t>(sy, 0, G::kMaxDrawTargetSize)), int32_t(sx1), int32_t(sy1)};
  if (!decode_targets(w, s) || !decode_tests_and_blend(w, s) || !decode_multisample(w, s) ||
      !decode_more_targets(memory, w, s, error)) {
    return false;
  }
  // r of the bias is the depth target's (depth_bias.h); a float depth's comes from each triangle.
  if (s->depth.enabled && !G::is_float_depth(s->depth.format)) {
    s->setup.depth_bias.unorm_bits = s->depth.format == G::DepthFormat::kD16Unorm ? 16 : 24;
  }
  s->draw.depth_bias = s->setup.depth_bias;  // polygon modes LINE / POINT bias in the geometry engine
  return true;
}

// Where a stage's program lives in SHADER_STATE, and the names its errors use.
struct ProgramDwords {
  const char* stage;  // "FRAGMENT" or "VERTEX"
  uint32_t va_lo, va_hi, size, entry, registers;
  const char* registers_name;
};

// A program's code range, entry and register counts, each checked.
bool decode_program(BlockWords& w, const ProgramDwords& d, G::ShaderProgram* p) {
  namespace S = blk::SHADER_STATE;
  const std::string stage = d.stage;
  p->code_va = w.pair(d.va_lo, d.va_hi);
  p->code_size = w.word(d.size);
  p->entry_offset = w.word(d.entry);
  // Both REGISTERS dwords share one layout.
  p->scalar_regs = w.field(d.registers, FIELD(SHADER_STATE, REGISTERS, SCALAR));
  p->vector_regs = w.field(d.registers, FIELD(SHADER_STATE, REGISTERS, VECTOR));
  if (p->code_va % 4 != 0)
    return w.fail(stage + "_CODE_VA " + std::to_string(p->code_va) + " is not 4-byte aligned");
  if (p->code_size == 0 || p->code_size % 4 != 0 || p->code_size > kMaxProgramCodeSize)
    return w.fail(stage + "_CODE_SIZE " + std::to_string(p->code_size) + " is not a multiple of 4 in 4 .. " +
                  std::to_string(kMaxProgramCodeSize));
  if (!gsvirt::checked_add<uint64_t>(p->code_va, p->code_size))
    return w.fail(stage + "_CODE_VA + " + stage + "_CODE_SIZE overflows");
  if (p->entry_offset % 4 != 0 || p->entry_offset >= p->code_size)
    return w.fail(stage + "_ENTRY " + std::to_string(p->entry_offset) + " is not a multiple of 4 inside the code");
  if (p->vector_regs == 0 || p->vector_regs > isa_vector_regs)
    return w.fail(std::string(d.registers_name) + ".VECTOR " + std::to_string(p->vector_regs) + " is not in 1 .. " +
                  std::to_string(isa_vector_regs));
  return w.at_most(p->scalar_regs, isa_scalar_regs, (std::string(d.registers_name) + ".SCALAR").c_str());
}

// A stage without a program: its program dwords must be 0.
bool no_program(BlockWords& w, const ProgramDwords& d, const char* fixed) {
  for (uint32_t i : {d.va_lo, d.va_hi, d.size, d.entry, d.registers}) {
    if (w.word(i) != 0)
      return w.fail("dword " + std::to_string(i) + " (" + d.stage + " program) must be 0 for " + fixed);
  }
  return true;
}

constexpr ProgramDwords kFragmentDwords{"FRAGMENT",
                                        blk::SHADER_STATE::FRAGMENT_CODE_VA_LO,
                                        blk::SHADER_STATE::FRAGMENT_CODE_VA_HI,
                                        blk::SHADER_STATE::FRAGMENT_CODE_SIZE,
                                        blk::SHADER_STATE::FRAGMENT_ENTRY,
                                        blk::SHADER_STATE::REGISTERS,
                                        "REGISTERS"};
constexpr ProgramDwords kVertexDwords{"VERTEX",
                                      blk::SHADER_STATE::VERTEX_CODE_VA_LO,
                                      blk::SHADER_STATE::VERTEX_CODE_VA_HI,
                                      blk::SHADER_STATE::VERTEX_CODE_SIZE,
                                      blk::SHADER_STATE::VERTEX_ENTRY,
                                      blk::SHADER_STATE::VERTEX_REGISTERS,
                                      "VERTEX_REGISTERS"};

// VERTEX: pass-through, or a program and the varying components it writes.
bool decode_vertex_stage(BlockWords& w, G::DrawState* s) {
  namespace S = blk::SHADER_STATE;
  const uint32_t mode = w.field(S::VERTEX, FIELD(SHADER_STATE, VERTEX, MODE));
  const uint32_t outputs = w.field(S::VERTEX, FIELD(SHADER_STATE, VERTEX, OUTPUTS));
  if (!w.at_most(mode, 1, "VERTEX.MODE")) return false;
  if (mode == 0) {
    if (outputs != 0) return w.fail("VERTEX.OUTPUTS must be 0 for the pass-through stage");
    if (w.word(S::VERTEX) != 0)
      return w.fail("VERTEX.CLIP_DISTANCES and CULL_DISTANCES must be 0 for the pass-through stage");
    s->vertex = G::VertexMode::kPassThrough;
    return no_program(w, kVertexDwords, "the pass-through stage");
  }
  const uint32_t clip = w.field(S::VERTEX, FIELD(SHADER_STATE, VERTEX, CLIP_DISTANCES));
  const uint32_t cull = w.field(S::VERTEX, FIELD(SHADER_STATE, VERTEX, CULL_DISTANCES));
  if (!w.at_most(clip + cull, G::kMaxClipCullDistances, "VERTEX.CLIP_DISTANCES + CULL_DISTANCES")) return false;
  s->draw.clip_distances = clip;
  s->draw.cull_distances = cull;
  s->vertex = G::VertexMode::kProgram;
  s->vertex_program.varying_components = outputs;
  return w.at_most(outputs, G::kMaxVaryingComponents, "VERTEX.OUTPUTS") &&
         decode_program(w, kVertexDwords, &s->vertex_program);
}

// FRAGMENT: a fixed stand-in (its constants and interpolation), or a program and its varyings.
bool decode_fragment_stage(BlockWords& w, G::DrawState* s) {
  namespace S = blk::SHADER_STATE;
  const uint32_t mode = w.field(S::FRAGMENT, FIELD(SHADER_STATE, FRAGMENT, MODE));
  const uint32_t interpolation = w.field(S::FRAGMENT, FIELD(SHADER_STATE, FRAGMENT, INTERPOLATION));
  const uint32_t varyings = w.field(S::FRAGMENT, FIELD(SHADER_STATE, FRAGMENT, VARYINGS));
  const bool no_frag_coord = w.field(S::FRAGMENT, FIELD(SHADER_STATE, FRAGMENT, NO_FRAGCOORD)) != 0;
  const bool no_facing = w.field(S::FRAGMENT, FIELD(SHADER_STATE, FRAGMENT, NO_FACING)) != 0;
  if (!w.at_most(mode, 2, "FRAGMENT.MODE")) return false;
  if (mode == 2) {
    s->fragment = G::FragmentMode::kProgram;
    s->fragment_program.varying_components = varyings;
    s->fragment_program.reads_frag_coord = !no_frag_coord;
    s->fragment_program.reads_facing = !no_facing;
    // Any mask: bits past VARYINGS name components the vertex stage hands on but nothing reads.
    s->draw.linear_varyings = w.pair(S::LINEAR_VARYINGS_LO, S::LINEAR_VARYINGS_HI);
    if (interpolation != 0) return w.fail("FRAGMENT.INTERPOLATION must be 0 for a program (v_interp_* picks the mode)");
    return w.at_most(varyings, G::kMaxVaryingComponents, "FRAGMENT.VARYINGS") &&
           decode_program(w, kFragmentDwords, &s->fragment_program);
  }
  if (varyings != 0) return w.fail("FRAGMENT.VARYINGS must be 0 for the fixed stand-ins");
  if (no_frag_coord || no_facing) return w.fail("FRAGMENT.NO_FRAGCOORD and NO_FACING must be 0 for the fixed stand-ins");
  if (w.word(S::REGISTERS) != 0) return w.fail("REGISTERS must be 0 for the fixed stand-ins");
  if (w.pair(S::LINEAR_VARYINGS_LO, S::LINEAR_VARYINGS_HI) != 0)
    return w.fail("LINEAR_VARYINGS must be 0 for the fixed stand-ins (INTERPOLATION says)");
  if (!no_program(w, kFragmentDwords, "the fixed stand-ins") ||
      !w.at_most(interpolation, 2, "FRAGMENT.INTERPOLATION")) {
    return false;
  }
  s->fragment = mode == 0 ? G::FragmentMode::kConstantColor : G::FragmentMode::kVaryingColor;
  s->varying_interpolation = G::Interpolation(interpolation);
  // The no-perspective stand-in's colours are cut in screen space, as a program's noperspective ones.
  if (interpolation == 1) s->draw.linear_varyings = ~uint64_t{0};
  s->constant_color = {w.real(S::CONSTANT_R), w.real(S::CONSTANT_G), w.real(S::CONSTANT_B), w.real(S::CONSTANT_A)};
  s->constant_color1 = {w.real(S::CONSTANT1_R), w.real(S::CONSTANT1_G), w.real(S::CONSTANT1_B), w.real(S::CONSTANT1_A)};
  return true;
}

// CONSTANTS_*: the constant buffer both programs read (push constants), checked here; its bytes are
// read through the MMU by the program's loads, so an unmapped buffer is the program's memory fault.
bool decode_constants(BlockWords& w, G::DrawState* s) {
  namespace S = blk::SHADER_STATE;
  const uint64_t va = w.pair(S::CONSTANTS_VA_LO, S::CONSTANTS_VA_HI);
  const uint32_t size = w.word(S::CONSTANTS_SIZE);
  if (size % 4 != 0 || size > kMaxConstantsSize)
    return w.fail("CONSTANTS_SIZE " + std::to_string(size) + " is not a multiple of 4 in 0 .. " + std::to_string(kMaxConstantsSize));
  if (va % 16 != 0) return w.fail("CONSTANTS_VA " + std::to_string(va) + " is not 16-byte aligned");
  if (size == 0 && va != 0) return w.fail("CONSTANTS_VA must be 0 when CONSTANTS_SIZE is 0");
  if (!gsvirt::checked_add<uint64_t>(va, size)) return w.fail("CONSTANTS_VA + CONSTANTS_SIZE overflows");
  if (size != 0 && s->vertex != G::VertexMode::kProgram && s->fragment != G::FragmentMode::kProgram)
    return w.fail("CONSTANTS_* must be 0 when neither stage is a program");
  for (G::ShaderProgram* p : {&s->vertex_program, &s->fragment_program}) {
    p->constants_va = va;
    p->constants_size = size;
  }
  return true;
}

// One XFB_BUFFER record: all 0 for a buffer the draw does not write, else a stride of 4..2048
// bytes (a multiple of 4) and a 4-byte aligned offset word; the buffer's range and the word are
// checked through the MMU when the draw writes them (transform_feedback.h).
bool decode_xfb_buffer(BlockWords& r, uint32_t i, G::XfbBuffer* b) {
  namespace X = blk::XFB_BUFFER;
  const uint32_t o = i * X::SIZE_DWORDS;
  const std::string at = "[" + std::to_string(i) + "].";
  if (!r.zero(o + X::RESERVED_6, (at + "RESERVED_6").c_str()) || !r.zero(o + X::RESERVED_7, (at + "RESERVED_7").c_str()))
    return false;
  b->va = r.pair(o + X::VA_LO, o + X::VA_HI);
  b->size = r.word(o + X::SIZE);
  b->stride = r.word(o + X::STRIDE);
  b->offset_va = r.pair(o + X::OFFSET_VA_LO, o + X::OFFSET_VA_HI);
  if (b->stride == 0) {
    return (b->va == 0 && b->size == 0 && b->offset_va == 0) ||
           r.fail(at + "VA, SIZE and OFFSET_VA must be 0 when STRIDE is 0");
  }
  if (b->stride % 4 != 0 || b->stride > G::kMaxXfbStride)
    return r.fail(at + "STRIDE " + std::to_string(b->stride) + " is not a multiple of 4 in 4 .. 2048");
  if (b->offset_va % 4 != 0) return r.fail(at + "OFFSET_VA is not 4-byte aligned");
  return true;
}

// One XFB_OUTPUT record: a run of 1..4 export slots (0..76) into a buffer the draw writes, inside
// the buffer's stride.
bool decode_xfb_output(BlockWords& r, uint32_t i, const G::XfbState& x, G::XfbOutput* out) {
  namespace O = blk::XFB_OUTPUT;
  const std::string at = "[" + std::to_string(i) + "].OUTPUT";
  if (!r.only(i, O::OUTPUT_SLOT_MASK | O::OUTPUT_COMPONENTS_MASK | O::OUTPUT_BUFFER_MASK | O::OUTPUT_OFFSET_MASK,
              at.c_str()))
    return false;
  out->slot = r.field(i, FIELD(XFB_OUTPUT, OUTPUT, SLOT));
  out->components = r.field(i, FIELD(XFB_OUTPUT, OUTPUT, COMPONENTS));
  out->buffer = r.field(i, FIELD(XFB_OUTPUT, OUTPUT, BUFFER));
  out->offset = r.field(i, FIELD(XFB_OUTPUT, OUTPUT, OFFSET));
  if (out->components < 1 || out->components > 4 || out->slot + out->components > G::kXfbSlots)
    return r.fail(at + ": SLOT " + std::to_string(out->slot) + " + COMPONENTS " + std::to_string(out->components) +
                  " outside slots 0 .. 76 (1 .. 4 components)");
  const uint32_t stride = x.buffers[out->buffer].stride;
  if (stride == 0) return r.fail(at + ": BUFFER " + std::to_string(out->buffer) + " has STRIDE 0");
  if (out->offset % 4 != 0 || out->offset + 4 * out->components > stride)
    return r.fail(at + ": OFFSET " + std::to_string(out->offset) + " is not a multiple of 4 inside the stride " +
                  std::to_string(stride));
  return true;
}

// SHADER_STATE XFB_VA: the XFB_STATE block, its four XFB_BUFFER records and its XFB_OUTPUT records.
bool decode_xfb_state(GpuMemory& memory, uint64_t va, G::XfbState* x, DrawStateError* error) {
  namespace X = blk::XFB_STATE;
  namespace B = blk::XFB_BUFFER;
  namespace O = blk::XFB_OUTPUT;
  BlockWords w("XFB_STATE", error);
  if (!w.read(memory, va, X::SIZE_DWORDS, X::ALIGN_BYTES) || !w.only(X::OUTPUTS, X::OUTPUTS_COUNT_MASK, "OUTPUTS"))
    return false;
  for (uint32_t i = X::RESERVED_3; i <= X::RESERVED_7; ++i) {
    if (!w.zero(i, ("RESERVED_" + std::to_string(i)).c_str())) return false;
  }
  BlockWords r("XFB_BUFFER", error);
  // va is 64-byte aligned (read above), so va + 32 does not wrap.
  if (!r.read(memory, va + X::SIZE_DWORDS * 4, B::SIZE_DWORDS, B::ALIGN_BYTES, G::kMaxXfbBuffers)) return false;
  for (uint32_t i = 0; i < G::kMaxXfbBuffers; ++i) {
    if (!decode_xfb_buffer(r, i, &x->buffers[i])) return false;
  }
  const uint32_t count = w.field(X::OUTPUTS, FIELD(XFB_STATE, OUTPUTS, COUNT));
  const uint64_t outputs_va = w.pair(X::OUTPUTS_VA_LO, X::OUTPUTS_VA_HI);
  if (!w.at_most(count, G::kMaxXfbOutputs, "OUTPUTS.COUNT")) return false;
  if (count == 0 && outputs_va != 0) return w.fail("OUTPUTS_VA must be 0 when OUTPUTS.COUNT is 0");
  BlockWords o("XFB_OUTPUT", error);
  if (!o.read(memory, outputs_va, O::SIZE_DWORDS, O::ALIGN_BYTES, count)) return false;
  x->outputs.assign(count, {});
  for (uint32_t i = 0; i < count; ++i) {
    if (!decode_xfb_output(o, i, *x, &x->outputs[i])) return false;
  }
  x->enabled = true;
  return true;
}

bool decode_shader_state(GpuMemory& memory, uint64_t va, G::DrawState* s, DrawStateError* error) {
  namespace S = blk::SHADER_STATE;
  BlockWords w("SHADER_STATE", error);
  if (!w.read(memory, va, S::SIZE_DWORDS, S::ALIGN_BYTES)) return false;
  if (!w.only(S::VERTEX,
              S::VERTEX_MODE_MASK | S::VERTEX_OUTPUTS_MASK | S::VERTEX_CLIP_DISTANCES_MASK | S::VERTEX_CULL_DISTANCES_MASK,
              "VERTEX") ||
      !w.only(S::FRAGMENT,
              S::FRAGMENT_MODE_MASK | S::FRAGMENT_INTERPOLATION_MASK | S::FRAGMENT_VARYINGS_MASK |
                  S::FRAGMENT_NO_FRAGCOORD_MASK | S::FRAGMENT_NO_FACING_MASK,
              "FRAGMENT") ||
      !w.zero(S::RESERVED_15, "RESERVED_15")) {
    return false;
  }
  for (uint32_t i = S::RESERVED_26; i <= S::RESERVED_29; ++i) {
    if (!w.zero(i, ("RESERVED_" + std::to_string(i)).c_str())) return false;
  }
  if (!decode_vertex_stage(w, s) || !decode_fragment_stage(w, s) || !decode_constants(w, s)) return false;
  const uint64_t xfb_va = w.pair(S::XFB_VA_LO, S::XFB_VA_HI);
  return xfb_va == 0 || decode_xfb_state(memory, xfb_va, &s->xfb, error);
}

#undef FIELD

}  // namespace

bool decode_draw_state(GpuMemory& memory, uint64_t draw_info_va, uint64_t pipe_state_va, uint64_t shader_state_va,
                       G::DrawState* out, DrawStateError* error) {
  G::DrawState s;
  if (!decode_draw_info(memory, draw_info_va, &s, error) || !decode_pipe_state(memory, pipe_state_va, &s, error) ||
      !decode_shader_state(memory, shader_state_va, &s, error)) {
    return false;
  }
  // A vertex program may read no attribute (its vertex / instance indices are then v0 / v1, e.g. a
  // Vulkan shader that reads only gl_VertexIndex); the pass-through stage's position is attribute 0.
  if (s.input.attribute_count == 0 && s.vertex != G::VertexMode::kProgram) {
    BlockWords w("DRAW_INFO", error);
    return w.fail("COUNTS.ATTRIBUTE_COUNT is 0: the pass-through vertex stage reads the position from attribute 0");
  }
  *out = s;
  return true;
}

}  // namespace gsgpu
