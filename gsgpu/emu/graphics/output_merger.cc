// The output merger: stencil, depth, blend / logic op, write mask (rules in output_merger.h).
#include "gsgpu/emu/graphics/output_merger.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace gsgpu::graphics {
namespace {

static_assert(std::endian::native == std::endian::little, "D24S8 and the target layouts assume little endian");

template <typename T>
bool compare_values(CompareOp op, T a, T b) {
  switch (op) {
    case CompareOp::kNever: return false;
    case CompareOp::kLess: return a < b;
    case CompareOp::kEqual: return a == b;
    case CompareOp::kLessOrEqual: return a <= b;
    case CompareOp::kGreater: return a > b;
    case CompareOp::kNotEqual: return a != b;
    case CompareOp::kGreaterOrEqual: return a >= b;
    case CompareOp::kAlways: return true;
  }
  return false;
}

double factor_value(BlendFactor f, int i, const Color& s, const Color& s1, const Color& d, const Color& k) {
  switch (f) {
    case BlendFactor::kZero: return 0;
    case BlendFactor::kOne: return 1;
    case BlendFactor::kSrcColor: return s[i];
    case BlendFactor::kOneMinusSrcColor: return 1.0 - s[i];
    case BlendFactor::kDstColor: return d[i];
    case BlendFactor::kOneMinusDstColor: return 1.0 - d[i];
    case BlendFactor::kSrcAlpha: return s[3];
    case BlendFactor::kOneMinusSrcAlpha: return 1.0 - s[3];
    case BlendFactor::kDstAlpha: return d[3];
    case BlendFactor::kOneMinusDstAlpha: return 1.0 - d[3];
    case BlendFactor::kConstantColor: return k[i];
    case BlendFactor::kOneMinusConstantColor: return 1.0 - k[i];
    case BlendFactor::kConstantAlpha: return k[3];
    case BlendFactor::kOneMinusConstantAlpha: return 1.0 - k[3];
    case BlendFactor::kSrcAlphaSaturate: return i < 3 ? std::min<double>(s[3], 1.0 - d[3]) : 1.0;
    case BlendFactor::kSrc1Color: return s1[i];
    case BlendFactor::kOneMinusSrc1Color: return 1.0 - s1[i];
    case BlendFactor::kSrc1Alpha: return s1[3];
    case BlendFactor::kOneMinusSrc1Alpha: return 1.0 - s1[3];
  }
  return 0;
}

double blend_op(BlendOp op, double s, double sf, double d, double df) {
  switch (op) {
    case BlendOp::kAdd: return s * sf + d * df;
    case BlendOp::kSubtract: return s * sf - d * df;
    case BlendOp::kReverseSubtract: return d * df - s * sf;
    case BlendOp::kMin: return std::min(s, d);
    case BlendOp::kMax: return std::max(s, d);
  }
  return 0;
}

Color clamp01(Color c) {
  for (float& v : c) v = std::clamp(v, 0.0f, 1.0f);
  return c;
}

}  // namespace

bool compare(CompareOp op, uint32_t fragment, uint32_t stored) { return compare_values(op, fragment, stored); }
bool compare(CompareOp op, float fragment, float stored) { return compare_values(op, fragment, stored); }

uint8_t apply_stencil_op(StencilOp op, uint8_t stored, uint8_t reference) {
  switch (op) {
    case StencilOp::kKeep: return stored;
    case StencilOp::kZero: return 0;
    case StencilOp::kReplace: return reference;
    case StencilOp::kIncrementAndClamp: return stored == 0xFF ? stored : uint8_t(stored + 1);
    case StencilOp::kDecrementAndClamp: return stored == 0 ? stored : uint8_t(stored - 1);
    case StencilOp::kInvert: return uint8_t(~stored);
    case StencilOp::kIncrementAndWrap: return uint8_t(stored + 1);
    case StencilOp::kDecrementAndWrap: return uint8_t(stored - 1);
  }
  return stored;
}

uint32_t apply_logic_op(LogicOp op, uint32_t s, uint32_t d) {
  switch (op) {
    case LogicOp::kClear: return 0;
    case LogicOp::kAnd: return s & d;
    case LogicOp::kAndReverse: return s & ~d;
    case LogicOp::kCopy: return s;
    case LogicOp::kAndInverted: return ~s & d;
    case LogicOp::kNoOp: return d;
    case LogicOp::kXor: return s ^ d;
    case LogicOp::kOr: return s | d;
    case LogicOp::kNor: return ~(s | d);
    case LogicOp::kEquivalent: return ~(s ^ d);
    case LogicOp::kInvert: return ~d;
    case LogicOp::kOrReverse: return s | ~d;
    case LogicOp::kCopyInverted: return ~s;
    case LogicOp::kOrInverted: return ~s | d;
    case LogicOp::kNand: return ~(s & d);
    case LogicOp::kSet: return ~0u;
  }
  return d;
}

Color blend(const BlendState& st, const Color& s, const Color& s1, const Color& d) {
  Color out{};
  for (int i = 0; i < 4; ++i) {
    bool alpha = i == 3;
    BlendFactor sf = alpha ? st.src_alpha : st.src_color, df = alpha ? st.dst_alpha : st.dst_color;
    BlendOp op = alpha ? st.alpha_op : st.color_op;
    out[i] = static_cast<float>(blend_op(op, s[i], factor_value(sf, i, s, s1, d, st.constant), d[i],
                                         factor_value(df, i, s, s1, d, st.constant)));
  }
  return out;
}

OutputMerger::TargetWriter OutputMerger::make_writer(const ColorTarget& color, const BlendState& blend_state) {
  TargetWriter t{color, blend_state};
  t.fixed_point = is_unorm(color.format);
  // Vulkan blends no integer format, and applies logic ops to UNORM and integer formats alone.
  if (is_integer(color.format)) t.blend.enable = false;
  t.logic_op = t.blend.logic_op_enable && ((t.fixed_point && !is_srgb(color.format)) || is_integer(color.format));
  t.plain_write = (t.blend.write_mask & 0xF) == 0xF && !t.logic_op && !(t.blend.enable && !t.blend.logic_op_enable);
  return t;
}

void OutputMerger::begin_draw(const ColorTarget& color, const DepthStencilTarget& depth_stencil,
                              const DepthStencilState& ds, const BlendState& blend_state,
                              const MultisampleState& ms) {
  ms_ = ms;
  multisample_ = !ms.is_default();
  color_ = color;
  depth_stencil_ = depth_stencil;
  ds_ = ds;
  blend_ = blend_state;
  // Every target has the draw's size (TARGET_SIZE); the first present one gives it.
  uint64_t w = color.data ? color.width : depth_stencil.width, h = color.data ? color.height : depth_stencil.height;
  written_pixels_ = count_overdraw_ ? w * h : 0;  // 0: no pixel is tested against the map
  written_.assign((written_pixels_ + 63) / 64, 0);
  written_width_ = w;
  target0_ = make_writer(color, blend_state);
  plain_write_ = target0_.plain_write;
  more_target_count_ = 0;
  last_valid_ = false;
  plain_color_only_ = color.data && plain_write_ && bytes_per_pixel(color.format) == 4 && !depth_stencil.data &&
                      !multisample_ && written_pixels_ == 0;
}

void OutputMerger::add_color_target(const ColorTarget& color, const BlendState& blend) {
  if (more_target_count_ == more_targets_.size()) return;  // the CP allows no more
  BlendState b = blend;
  b.logic_op_enable = blend_.logic_op_enable;
  b.logic_op = blend_.logic_op;
  b.constant = blend_.constant;
  more_targets_[more_target_count_++] = make_writer(color, b);
  plain_color_only_ = false;  // process() writes every target
  if (written_pixels_ == 0 && color.data) {  // neither target 0 nor depth: this one sizes the map
    written_pixels_ = uint64_t{color.width} * color.height;
    written_.assign((written_pixels_ + 63) / 64, 0);
    written_width_ = color.width;
  }
}

void OutputMerger::write_more_targets(const Fragment& f) {
  for (uint32_t i = 0; i < more_target_count_; ++i) {
    const TargetWriter& t = more_targets_[i];
    if (!t.target.data) continue;
    Color c{};
    if (f.more_colors) std::memcpy(c.data(), f.more_colors + 4 * i, sizeof c);
    if (t.plain_write) {
      t.target.store(uint32_t(f.x), uint32_t(f.y), c);
    } else {
      write_color(t, uint32_t(f.x), uint32_t(f.y), c, Color{});  // no SRC1 factors past target 0
    }
  }
}

void OutputMerger::store_plain(uint32_t x, uint32_t y, const Color& color) {
  uint8_t* p = color_.pixel(x, y);
  if (bytes_per_pixel(color_.format) != 4) {
    color_.store(x, y, color);
    return;
  }
  if (last_valid_ && std::memcmp(&color, &last_color_, sizeof color) == 0) {
    std::memcpy(p, last_bytes_, 4);  // store() is a function of the colour's bits alone
    return;
  }
  color_.store(x, y, color);
  last_color_ = color;
  std::memcpy(last_bytes_, p, 4);
  last_valid_ = true;
}

void OutputMerger::process_samples(const Fragment& f) {
  const uint32_t n = ms_.samples;
  uint8_t keep = (f.samples != 0 ? f.samples : all_samples(n)) & ms_.sample_mask & all_samples(n);
  if (ms_.alpha_to_coverage) keep &= alpha_to_coverage_mask(f.color[3], n);
  Fragment sample = f;
  if (ms_.alpha_to_one) sample.color[3] = 1.0f;
  const SampleLocation* locations = sample_locations(n);
  for (uint32_t s = 0; s < n; ++s) {
    if (!(keep >> s & 1)) continue;
    sample.x = f.x * int32_t(n) + int32_t(s);
    // The depth plane at the sample's location (exactly f.depth for one sample, at the centre).
    const float off_x = float(locations[s].x - kSubpixelOne / 2) / float(kSubpixelOne);
    const float off_y = float(locations[s].y - kSubpixelOne / 2) / float(kSubpixelOne);
    sample.depth = n == 1 ? f.depth : f.depth + f.depth_dx * off_x + f.depth_dy * off_y;
    process_sample(sample);
  }
}

void OutputMerger::process_sample(const Fragment& f) {
  counters_.fragments_in++;
  if (depth_stencil_.data && !depth_stencil_test(f)) return;  // no target: passes (no call per fragment)
  counters_.fragments_written++;
  size_t index = size_t(f.y) * size_t(written_width_) + size_t(f.x);
  if (index < written_pixels_) {
    uint64_t& word = written_[index / 64];
    const uint64_t bit = uint64_t{1} << (index % 64);
    if (word & bit) counters_.overdraw++;
    word |= bit;
  }
  if (color_.data) {
    if (plain_write_) {
      store_plain(uint32_t(f.x), uint32_t(f.y), f.color);  // the common case, without write_color's frame
    } else {
      write_color(target0_, uint32_t(f.x), uint32_t(f.y), f.color, f.color1);
    }
  }
  if (more_target_count_ != 0) write_more_targets(f);
}

bool OutputMerger::depth_stencil_test(const Fragment& f) {
  if (!depth_stencil_.data) return true;
  const uint32_t x = uint32_t(f.x), y = uint32_t(f.y);
  const bool stencil = ds_.stencil_test && has_stencil(depth_stencil_.format);
  const StencilFaceState& face = f.front_facing ? ds_.front : ds_.back;
  const uint8_t stored_stencil = stencil ? depth_stencil_.load_stencil(x, y) : 0;
  auto write_stencil = [&](StencilOp op) {
    uint8_t result = apply_stencil_op(op, stored_stencil, face.reference);
    depth_stencil_.store_stencil(x, y, uint8_t((stored_stencil & ~face.write_mask) | (result & face.write_mask)));
  };
  if (stencil && !compare(face.compare_op, uint32_t(face.reference & face.compare_mask),
                          uint32_t(stored_stencil & face.compare_mask))) {
    write_stencil(face.fail_op);
    counters_.stencil_failed++;
    return false;
  }
  bool depth_pass = true;
  // Clamped; NaN becomes the lower bound.
  const float z = f.depth > ds_.depth_min ? std::min(f.depth, ds_.depth_max) : ds_.depth_min;
  if (ds_.depth_test) {
    if (depth_stencil_.format == DepthFormat::kD24UnormS8Uint) {
      uint32_t stored = float_to_unorm24(depth_stencil_.load_depth(x, y));
      depth_pass = compare(ds_.depth_compare, float_to_unorm24(z), stored);
    } else if (depth_stencil_.format == DepthFormat::kD16Unorm) {  // compared in the format's precision
      uint32_t stored = float_to_unorm16(depth_stencil_.load_depth(x, y));
      depth_pass = compare(ds_.depth_compare, float_to_unorm16(z), stored);
    } else {
      depth_pass = compare(ds_.depth_compare, z, depth_stencil_.load_depth(x, y));
    }
  }
  if (stencil) write_stencil(depth_pass ? face.pass_op : face.depth_fail_op);
  if (!depth_pass) {
    counters_.depth_failed++;
    return false;
  }
  if (ds_.depth_test && ds_.depth_write) depth_stencil_.store_depth(x, y, z);
  return true;
}

void OutputMerger::write_color(const TargetWriter& t, uint32_t x, uint32_t y, const Color& color,
                               const Color& color1) {
  const ColorTarget& target = t.target;
  const uint8_t mask = t.blend.write_mask & 0xF;
  if (mask == 0) return;
  const std::array<uint32_t, 4> old_bits = target.load_bits(x, y);
  if (t.logic_op) {
    std::array<uint32_t, 4> bits{};
    const bool integer = is_integer(target.format);  // the shader's words themselves, all 32 bits
    for (int i = 0; i < 4; ++i) {  // UNORM components in their own widths (8, 16, 10, 5, ...)
      uint32_t s = integer ? std::bit_cast<uint32_t>(color[i]) : encode_component(target.format, i, color[i]);
      const uint32_t width_mask = component_mask(target.format, i);
      bits[i] = (mask >> i) & 1 ? apply_logic_op(t.blend.logic_op, s, old_bits[i]) & width_mask : old_bits[i];
    }
    target.store_bits(x, y, bits);
    return;
  }
  Color result = color;
  if (t.blend.enable && !t.blend.logic_op_enable) {
    BlendState st = t.blend;
    Color s = color, s1 = color1;
    if (t.fixed_point) {
      s = clamp01(s), s1 = clamp01(s1), st.constant = clamp01(st.constant);
    }
    result = blend(st, s, s1, target.load(x, y));
  }
  target.store(x, y, result);
  if (mask != 0xF) {
    std::array<uint32_t, 4> bits = target.load_bits(x, y);
    for (int i = 0; i < 4; ++i) {
      if (!((mask >> i) & 1)) bits[i] = old_bits[i];
    }
    target.store_bits(x, y, bits);
  }
}

}  // namespace gsgpu::graphics
