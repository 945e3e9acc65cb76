// The output merger (seed 001's OMU): stencil and depth tests, then blending or a logic op, then the
// colour write mask, into one colour target and one depth / stencil target. The rules are Vulkan's
// ("Fragment Operations", "The Framebuffer"):
//   - Stencil test first, with the front or back state by the fragment's facing:
//     (reference & compare_mask) OP (stored & compare_mask). A failed stencil test applies fail_op;
//     a passed one with a failed depth test applies depth_fail_op; both passed apply pass_op. The
//     result is written through write_mask. No stencil aspect: the test passes, nothing is written.
//   - Depth test: the fragment's depth, clamped to [0, 1] and converted to the attachment's format
//     (24-bit unorm or float) is compared with the stored value: fragment OP stored. Written only
//     when the test passes and depth writes are on.
//   - Blending in linear space (an sRGB target's destination is decoded, the result encoded). On a
//     UNORM / SRGB target, source, destination and constant colours are clamped to [0, 1] before
//     blending. MIN and MAX ignore the factors. SRC_ALPHA_SATURATE is (f, f, f, 1) with
//     f = min(As, 1 - Ad). SRC1 factors take the second (dual-source) colour output.
//   - A logic op, when enabled, replaces blending; it applies to UNORM targets only (not to float or
//     sRGB targets, which are written as if it were off), on the bits the source converts to.
//   - The colour write mask keeps the destination's unmasked components (R = 1, G = 2, B = 4, A = 8).
//   - Up to kMaxColorTargets colour targets (a fragment shader's outputs at Locations 0..7): each
//     has its own format, blend state and write mask; the logic op and the blend constant are
//     shared (Vulkan's independentBlend covers blending and write masks, not logic ops). Depth and
//     stencil are tested once per fragment (sample), before any target is written.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include "gsgpu/emu/graphics/multisample.h"
#include "gsgpu/emu/graphics/render_target.h"

namespace gsgpu::graphics {

// Enumerant values are Vulkan's, so state words carry VkCompareOp etc. unchanged.
enum class CompareOp : uint8_t { kNever, kLess, kEqual, kLessOrEqual, kGreater, kNotEqual, kGreaterOrEqual, kAlways };
enum class StencilOp : uint8_t {
  kKeep, kZero, kReplace, kIncrementAndClamp, kDecrementAndClamp, kInvert, kIncrementAndWrap, kDecrementAndWrap
};
enum class BlendFactor : uint8_t {
  kZero, kOne, kSrcColor, kOneMinusSrcColor, kDstColor, kOneMinusDstColor, kSrcAlpha, kOneMinusSrcAlpha,
  kDstAlpha, kOneMinusDstAlpha, kConstantColor, kOneMinusConstantColor, kConstantAlpha, kOneMinusConstantAlpha,
  kSrcAlphaSaturate, kSrc1Color, kOneMinusSrc1Color, kSrc1Alpha, kOneMinusSrc1Alpha
};
enum class BlendOp : uint8_t { kAdd, kSubtract, kReverseSubtract, kMin, kMax };
enum class LogicOp : uint8_t {
  kClear, kAnd, kAndReverse, kCopy, kAndInverted, kNoOp, kXor, kOr, kNor, kEquivalent, kInvert, kOrReverse,
  kCopyInverted, kOrInverted, kNand, kSet
};
inline constexpr uint32_t kMaxCompareOp = 7, kMaxStencilOp = 7, kMaxBlendFactor = 18, kMaxBlendOp = 4,
                          kMaxLogicOp = 15;

bool compare(CompareOp op, uint32_t fragment, uint32_t stored);
bool compare(CompareOp op, float fragment, float stored);
uint8_t apply_stencil_op(StencilOp op, uint8_t stored, uint8_t reference);
uint32_t apply_logic_op(LogicOp op, uint32_t s, uint32_t d);

struct StencilFaceState {
  StencilOp fail_op = StencilOp::kKeep, pass_op = StencilOp::kKeep, depth_fail_op = StencilOp::kKeep;
  CompareOp compare_op = CompareOp::kAlways;
  uint8_t compare_mask = 0xFF, write_mask = 0xFF, reference = 0;
};

struct DepthStencilState {
  // The range the fragment depth is clamped to before the test: [0, 1], or with depth clamp the
  // viewport's [min, max] depth (Vulkan's depthClampEnable).
  float depth_min = 0.0f, depth_max = 1.0f;
  bool depth_test = false, depth_write = false;
  CompareOp depth_compare = CompareOp::kLess;
  bool stencil_test = false;
  StencilFaceState front, back;
};

struct BlendState {
  bool enable = false;
  BlendFactor src_color = BlendFactor::kOne, dst_color = BlendFactor::kZero;
  BlendOp color_op = BlendOp::kAdd;
  BlendFactor src_alpha = BlendFactor::kOne, dst_alpha = BlendFactor::kZero;
  BlendOp alpha_op = BlendOp::kAdd;
  uint8_t write_mask = 0xF;
  bool logic_op_enable = false;
  LogicOp logic_op = LogicOp::kCopy;
  Color constant{0, 0, 0, 0};
};

inline constexpr uint32_t kMaxColorTargets = 8;  // maxColorAttachments

struct Fragment {
  int32_t x = 0, y = 0;
  float depth = 0;
  bool front_facing = true;
  Color color{};   // output 0
  Color color1{};  // the second source for the SRC1 blend factors
  // Multisampled draws: the covered samples (0: every sample) and the depth plane's slopes per pixel
  // (0 when the shader exports depth), for each sample's own depth.
  uint8_t samples = 0;
  float depth_dx = 0, depth_dy = 0;
  // Targets 1..7's colours, four floats each (a fragment program's export slots 9..36), or nullptr:
  // they read 0 (the fixed stand-ins write target 0 alone).
  const float* more_colors = nullptr;
};

struct MergeCounters {
  uint64_t fragments_in = 0;
  uint64_t stencil_failed = 0;
  uint64_t depth_failed = 0;
  uint64_t fragments_written = 0;   // passed every test (the colour write mask may still be 0)
  uint64_t overdraw = 0;            // written to a pixel that this draw had already written
};

// Blends one component set: result of src * sf OP dst * df, each factor from the rules above.
Color blend(const BlendState& state, const Color& src, const Color& src1, const Color& dst);

class OutputMerger {
 public:
  // Whether draws keep the overdraw map (MergeCounters::overdraw; off in fast mode, where the
  // counter stays 0). Set before begin_draw.
  void set_count_overdraw(bool on) { count_overdraw_ = on; }
  // Starts a draw into these targets (either may be absent: data == nullptr); resets the overdraw map.
  // With `ms.samples` > 1 the targets are the multisampled surfaces seen as `samples` times wider
  // (multisample.h), and fragments name pixels, each sample merged in its own column.
  void begin_draw(const ColorTarget& color, const DepthStencilTarget& depth_stencil, const DepthStencilState& ds,
                  const BlendState& blend, const MultisampleState& ms = {});
  // Adds colour target 1, 2, ... (after begin_draw, in order, at most kMaxColorTargets - 1; it may
  // be absent: data == nullptr). `blend` gives its enable, factors, ops and write mask; the logic op
  // and constant are begin_draw's.
  void add_color_target(const ColorTarget& color, const BlendState& blend);
  // One covered fragment inside both targets (the primitive engine's render area guarantees it).
  void process(const Fragment& fragment) {
    if (multisample_) {
      process_samples(fragment);
    } else {
      process_sample(fragment);
    }
  }
  // True when every fragment of the draw is merged plainly (plain_bytes): one colour target of
  // 4 bytes per pixel written plainly (no blend, logic op or write mask), no depth / stencil target,
  // one sample per pixel and no overdraw map (fast mode's fills). Known after begin_draw and
  // add_color_target.
  bool plain_color_only() const { return plain_color_only_; }
  // What process() does for such fragments, in pieces a caller merging many at once uses (the
  // same counts and bytes): the 4 bytes of `color` at pixel (x, y), stored there already (the last
  // colour's bytes reused while its bits repeat, as store_plain does), where pixel (x, y) is, and
  // the counts of `fragments` merged.
  uint32_t plain_bytes(int32_t x, int32_t y, const Color& color) {
    if (!last_valid_ || std::memcmp(&color, &last_color_, sizeof color) != 0) store_plain(uint32_t(x), uint32_t(y), color);
    uint32_t bytes;
    std::memcpy(&bytes, last_bytes_, 4);
    return bytes;
  }
  uint8_t* plain_pixel(int32_t x, int32_t y) const {
    return color_.data + uint64_t(uint32_t(y)) * color_.row_pitch + uint64_t(uint32_t(x)) * 4;
  }
  void count_plain(uint64_t fragments) {
    counters_.fragments_in += fragments;
    counters_.fragments_written += fragments;
  }
  uint32_t more_target_count() const { return more_target_count_; }
  const MergeCounters& counters() const { return counters_; }
  void reset_counters() { counters_ = {}; }

 private:
  // Sample mask, alpha to coverage and alpha to one, then each kept sample through process_sample.
  void process_samples(const Fragment& f);
  // One sample (f.x is the column in the target); the whole of a single-sample draw's merge.
  void process_sample(const Fragment& f);
  // One colour target and what its state decides once per draw (write_color's tests, in order).
  struct TargetWriter {
    ColorTarget target;
    BlendState blend;
    bool fixed_point = false, logic_op = false, plain_write = false;
  };
  static TargetWriter make_writer(const ColorTarget& color, const BlendState& blend);
  bool depth_stencil_test(const Fragment& f);
  // Blending, logic ops, write masks (not plain writes) of one target.
  static void write_color(const TargetWriter& t, uint32_t x, uint32_t y, const Color& color, const Color& color1);
  void write_more_targets(const Fragment& f);

  ColorTarget color_;
  DepthStencilTarget depth_stencil_;
  DepthStencilState ds_;
  BlendState blend_;
  TargetWriter target0_;
  std::array<TargetWriter, kMaxColorTargets - 1> more_targets_;
  uint32_t more_target_count_ = 0;
  MultisampleState ms_;
  bool multisample_ = false;  // !ms_.is_default(): process() goes through process_samples
  // One bit per pixel of the target (the overdraw counter), in 64-bit words: tested and set per
  // fragment (std::vector<bool> took twice the instructions).
  std::vector<uint64_t> written_;
  bool count_overdraw_ = true;
  uint64_t written_pixels_ = 0, written_width_ = 0;
  bool plain_write_ = false;  // target0_.plain_write, read per fragment
  bool plain_color_only_ = false;
  // Plain writes to a 4-byte format: the last colour stored and its bytes, reused while the colour's
  // bits repeat (a flat colour converts once per draw instead of four channels per pixel).
  void store_plain(uint32_t x, uint32_t y, const Color& color);
  bool last_valid_ = false;
  Color last_color_{};
  uint8_t last_bytes_[4] = {};
  MergeCounters counters_;
};

}  // namespace gsgpu::graphics
