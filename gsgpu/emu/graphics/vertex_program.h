// The vertex stage when SHADER_STATE names a vertex program (docs/graphics.md "Vertex programs"):
// a batch of fetched vertices becomes warps of the shader cores, one vertex per lane, with its
// attributes in the first registers (attribute a in v[4a .. 4a+3], as fetched: float bits for float
// and normalized formats, integers for integer formats; then the vertex index and the instance
// index), and the program's v_export_vertex_f32 gives the clip-space position (slots 0..3) and the
// varyings (slot 4 + k), and PointSize (slot 68; points of a vertex that did not write it take
// PIPE_STATE POINT_SIZE). Unexported outputs are 0. A fault of the program stops the draw.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gsgpu/emu/graphics/shader_program.h"
#include "gsgpu/emu/graphics/vertex.h"

namespace gsgpu::graphics {

class ProgramVertexStage final : public VertexStage {
 public:
  // Registers preloaded per lane: four per attribute, the vertex index, the instance index.
  static uint32_t input_registers(uint32_t attribute_count) { return 4 * attribute_count + 2; }

  ProgramVertexStage(const ShaderProgram& program, uint32_t attribute_count, ShaderProgramRunner& runner)
      : program_(program), attributes_(attribute_count), runner_(runner) {}
  // One vertex as a batch of one; a fault leaves *out zero (shade_batch reports faults).
  void shade(const FetchedVertex& in, ShadedVertex* out) override;
  std::optional<std::string> shade_batch(const FetchedVertex* in, size_t count, ShadedVertex* out) override;
  uint32_t varying_components() const override { return program_.varying_components; }

 private:
  ShaderProgram program_;
  uint32_t attributes_;
  ShaderProgramRunner& runner_;
  std::vector<uint32_t> inputs_;
  std::vector<uint64_t> lane_masks_;
  std::vector<VertexLaneOutput> outputs_;
  // Clears what shade_batch copies out of the first `count` outputs (position, `carried` varyings,
  // point size, distances); the other slots may hold an earlier batch's exports, never read.
  void reset_outputs(size_t count, uint32_t carried);
};

}  // namespace gsgpu::graphics
