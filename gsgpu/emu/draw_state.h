// Decoding a DRAW packet's state blocks (gsgpu.xml <blocks>: DRAW_INFO, VERTEX_BINDING,
// VERTEX_ATTRIBUTE, PIPE_STATE, SHADER_STATE) from GPU memory into the graphics blocks' DrawState.
//
// The guest writes these words, so every one is checked: each block is read through the MMU (an
// unreadable or misaligned block is a memory fault), every field is range-checked, bits outside the
// declared fields and reserved dwords must be 0, and the fixed stand-ins' limits are enforced (vertex
// shader programs are refused until they run). An error names the block, the dword and the value.
#pragma once

#include <cstdint>
#include <string>

#include "gsgpu/emu/gpu_memory.h"
#include "gsgpu/emu/graphics/graphics_pipeline.h"

namespace gsgpu {

struct DrawStateError {
  bool memory = false;  // the block could not be read (else: a bad field)
  std::string message;
};

// True and *out filled, or false and *error set.
bool decode_draw_state(GpuMemory& memory, uint64_t draw_info_va, uint64_t pipe_state_va, uint64_t shader_state_va,
                       graphics::DrawState* out, DrawStateError* error);

}  // namespace gsgpu
