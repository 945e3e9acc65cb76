// A program of the vertex or fragment stage and how those stages reach the shader cores.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "gsgpu/emu/shader/fragment_io.h"
#include "gsgpu/emu/shader/vertex_io.h"

namespace gsgpu::graphics {

// SHADER_STATE's vertex or fragment program (the command processor has checked each field).
struct ShaderProgram {
  uint64_t code_va = 0;
  uint32_t code_size = 0;
  uint32_t entry_offset = 0;
  uint32_t vector_regs = 0, scalar_regs = 0;  // declared: the program may name no more
  // Fragment: v_interp_* may read components below this. Vertex: the components it writes (the
  // varyings the clipper interpolates).
  uint32_t varying_components = 0;
  // Fragment: whether the program reads the preloaded gl_FragCoord (v0..v3) and gl_FrontFacing (v4)
  // (SHADER_STATE FRAGMENT.NO_FRAGCOORD / NO_FACING clear); an unread one is not computed and starts at 0.
  bool reads_frag_coord = true;
  bool reads_facing = true;
  // SHADER_STATE CONSTANTS_*: the constant buffer (push constants) the program reads as its
  // argument buffer (s_special arg_ptr / arg_size); 0 / 0 for none.
  uint64_t constants_va = 0;
  uint32_t constants_size = 0;
};

// How the vertex and fragment stages reach the shader cores (the command processor adapts its
// dispatch backend, gsgpu/emu/program_runner.h).
class ShaderProgramRunner {
 public:
  virtual ~ShaderProgramRunner() = default;
  virtual uint32_t warp_width() const = 0;  // 0: there are no shader cores
  // Runs `warps` warps of the program over `io`; the fault as text, or nothing.
  virtual std::optional<std::string> run(const ShaderProgram& program, FragmentWarpIO& io, uint32_t warps) = 0;
  virtual std::optional<std::string> run(const ShaderProgram& program, VertexWarpIO& io, uint32_t warps) = 0;
};

}  // namespace gsgpu::graphics
