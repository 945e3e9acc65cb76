// Vertices as they move through the geometry engine: fetched attributes, then shaded vertices
// (clip-space position + varyings), which the clipper and viewport turn into screen vertices.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

namespace gsgpu::graphics {

inline constexpr uint32_t kMaxVertexAttributes = 16;  // Vulkan's minimum maxVertexInputAttributes
inline constexpr uint32_t kMaxVertexBindings = 16;    // maxVertexInputBindings
inline constexpr uint32_t kMaxVaryingComponents = 64; // maxVertexOutputComponents
inline constexpr uint32_t kMaxClipCullDistances = 8;  // maxCombinedClipAndCullDistances

// Each attribute as four 32-bit words: float bits for float / normalized formats, integers for
// integer formats. Missing components read as (0, 0, 0, 1) (1.0f or integer 1 by the format).
struct FetchedVertex {
  std::array<std::array<uint32_t, 4>, kMaxVertexAttributes> attributes{};
  uint32_t vertex_index = 0, instance_index = 0;
};

using Varyings = std::array<float, kMaxVaryingComponents>;

struct ShadedVertex {
  std::array<float, 4> position{0, 0, 0, 1};  // clip space
  Varyings varyings{};
  // PointSize when the vertex stage wrote one (a vertex program's slot 68); otherwise point lists
  // take PIPE_STATE POINT_SIZE. Clamped where the point is set up.
  bool has_point_size = false;
  float point_size = 1;
  // gl_ClipDistance then gl_CullDistance (DrawParams' counts of them; the rest unused).
  std::array<float, kMaxClipCullDistances> distances{};
};

// The varying-colour stand-in (fragment_stage.h) reads components 0..7 whatever the vertex stage
// declares; a fragment program reads at most the vertex stage's count.
inline constexpr uint32_t kStandInVaryingComponents = 8;

// The varying components a later block can read of a vertex stage's `stage_components`: those, and
// at least the stand-in's 8. The geometry engine copies only these between its blocks (the other
// components of its vertices hold no defined value).
inline uint32_t carried_varying_components(uint32_t stage_components) {
  const uint32_t n = stage_components < kMaxVaryingComponents ? stage_components : kMaxVaryingComponents;
  return n > kStandInVaryingComponents ? n : kStandInVaryingComponents;
}

// The first `count` (<= kMaxVaryingComponents) components of `from` into `to`, in whole blocks of
// kVaryingCopyBlock: a few fixed-size moves instead of a loop per component or a memmove call per
// vertex. The components past `count` up to the block's end are copied too; they hold no defined
// value (carried_varying_components) and 64 is a whole number of blocks.
inline constexpr uint32_t kVaryingCopyBlock = 8;
static_assert(kMaxVaryingComponents % kVaryingCopyBlock == 0);
inline void copy_varying_blocks(const Varyings& from, uint32_t count, Varyings* to) {
  for (uint32_t k = 0; k < count && k < kMaxVaryingComponents; k += kVaryingCopyBlock) {
    std::memcpy(to->data() + k, from.data() + k, kVaryingCopyBlock * sizeof(float));
  }
}

// `to` = `from` in everything a later block reads: all but the varyings from `varyings` on (a
// vertex is 312 bytes, and copying all 64 varyings was most of primitive assembly's time).
inline void copy_shaded_vertex(const ShadedVertex& from, uint32_t varyings, ShadedVertex* to) {
  to->position = from.position;
  copy_varying_blocks(from.varyings, varyings, &to->varyings);
  to->has_point_size = from.has_point_size;
  to->point_size = from.point_size;
  to->distances = from.distances;
}

// The vertex stage the geometry engine calls with batches of fetched vertices: the fixed
// PassThroughVertexStage (geometry_engine.h) or a program on the shader cores (vertex_program.h).
class VertexStage {
 public:
  virtual ~VertexStage() = default;
  virtual void shade(const FetchedVertex& in, ShadedVertex* out) = 0;
  // Shades `count` vertices; a fault stops the draw. The default shades them one by one.
  virtual std::optional<std::string> shade_batch(const FetchedVertex* in, size_t count, ShadedVertex* out) {
    for (size_t i = 0; i < count; ++i) shade(in[i], &out[i]);
    return std::nullopt;
  }
  virtual uint32_t varying_components() const = 0;  // <= kMaxVaryingComponents
};

}  // namespace gsgpu::graphics
