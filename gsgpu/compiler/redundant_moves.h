// After register allocation, in vertex and fragment programs: removes the copies that change nothing
// the program can observe (docs/compiler.md "Graphics shaders"). The lowering copies a variable's
// registers on every load and store and starts outputs at 0, so a flat colour's fragment program was
// 4 zeroing moves, 4 loads, 4 copies and 4 exports: every move costs the device a pass over the warp.
#pragma once

#include <cstddef>

#include "gsgpu/compiler/machine_ir.h"

namespace gsgpu::compiler {

// Over physical registers (kRaw operands), block by block, once a block that jumps to one reached
// from nowhere else has handed its instructions to that one (a straight line of blocks is one):
// - `v_mov_b32 vX, vX`;
// - a `v_mov_b32 vX, ...` that a later `v_mov_b32 vX, ...` of the same block overwrites with nothing
//   in between that may read vX (any operand naming vX or a pair / quad around it) and no `v_kill`
//   (a killed lane's registers stay visible to its quad's derivatives);
// - in the exit block, a `v_mov_b32 vX, vY` whose exports of vX (`v_export_f32`,
//   `v_export_vertex_f32`) can read vY instead (neither written in between), and then a move whose
//   register nothing after it in the exit block reads (the program ends there).
// Returns how many instructions were removed.
size_t remove_redundant_moves(MFunction* f);

}  // namespace gsgpu::compiler
