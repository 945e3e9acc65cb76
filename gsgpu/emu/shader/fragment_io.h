// What a fragment program's warps read and write (docs/isa.md §8c, docs/graphics.md "Fragment
// programs"): the graphics pipeline's fragment stage packs 2x2 quads into warps, fills these
// arrays, runs the program on the shader cores (DispatchParams::fragment) and hands the outputs to
// the output merger. Host memory of the emulator, never guest memory: nothing here is
// guest-controlled except the values, which the instructions only copy and interpolate.
//
// Layout: warp g of the dispatch is work-group g (one warp per group); its lane l is entry
// g * width + l of `lanes` and `outputs`. Lanes 4q .. 4q+3 are one quad, lane i at
// (x + (i & 1), y + (i >> 1)); `lane_masks[g]` holds the lanes that carry a fragment (covered or
// helper); the others never run.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace gsgpu {

inline constexpr uint32_t kMaxFragmentVaryings = 64;  // components (graphics::kMaxVaryingComponents)
// isa::ExportSlot: colour 0 rgba, the dual-source colour rgba, depth, then targets 1..7's rgba
inline constexpr uint32_t kFragmentExportSlots = 37;
inline constexpr uint32_t kFragmentTarget1Slot = 9;

// One triangle's varyings: per vertex (for perspective and no-perspective interpolation) and the
// provoking vertex's (flat).
struct FragmentPrimitive {
  std::array<std::array<float, kMaxFragmentVaryings>, 3> varyings{};
  std::array<float, kMaxFragmentVaryings> flat{};
};

// The rasterizer's setup for one lane: barycentric weights at the pixel centre, computed in double
// by the interpolator (graphics/interpolator.h), so that v_interp_* rounds to float once, as the
// fixed stand-ins do.
struct FragmentLane {
  std::array<double, 3> perspective{};  // b_i / w_i, normalised
  std::array<double, 3> linear{};       // screen-space b_i
  uint32_t primitive = 0;               // index into FragmentWarpIO::primitives
};
// Registers preloaded into v0 .. v4 (docs/isa.md §8c): the pixel centre x + 0.5, y + 0.5, the
// interpolated depth z and 1 / w_clip (gl_FragCoord), then 1 for a front-facing triangle, else 0.
inline constexpr uint32_t kFragmentPreloadRegs = 5;
// FragmentWarpIO::preload_rows: bit r when register r is preloaded.
inline constexpr uint32_t kFragCoordPreloadRows = 0xF;  // v0 .. v3
inline constexpr uint32_t kFacingPreloadRow = 0x10;     // v4
inline constexpr uint32_t kAllPreloadRows = kFragCoordPreloadRows | kFacingPreloadRow;

struct FragmentWarpIO {
  uint32_t varying_components = 0;  // v_interp_* of a component at or past this faults
  const FragmentPrimitive* primitives = nullptr;
  size_t primitive_count = 0;
  const FragmentLane* lanes = nullptr;  // warps * width entries
  // The preloaded registers in the registers' own layout (one copy per register and warp, not a
  // gather per lane): register r of warp g's lane l at (g * kFragmentPreloadRegs + r) * width + l;
  // warps * kFragmentPreloadRegs * width entries.
  const uint32_t* preload = nullptr;
  // The rows of `preload` that hold values (bit r: register r); the others are not read and their
  // registers start at 0, as every register does (a program that never reads gl_FragCoord or
  // gl_FrontFacing: SHADER_STATE FRAGMENT.NO_FRAGCOORD / NO_FACING).
  uint32_t preload_rows = kAllPreloadRows;
  const uint64_t* lane_masks = nullptr;  // per warp
  // The exports in the registers' own layout (v_export_f32 copies one register row, the merge reads
  // a slot of a warp as one row): the binary32 bits of slot s of warp g's lane l at
  // (g * kFragmentExportSlots + s) * width + l; lane_count * kFragmentExportSlots entries. A lane's
  // entry holds a value only where its bit in output_exported is set.
  uint32_t* output_values = nullptr;
  // Per warp and slot (g * kFragmentExportSlots + s): bit l when lane l exported slot s. Cleared by
  // the fragment stage before the dispatch; lane_count / width * kFragmentExportSlots entries.
  uint64_t* output_exported = nullptr;
  uint64_t* output_killed = nullptr;  // per warp: bit l when v_kill ended lane l (cleared as above)
  size_t lane_count = 0;  // entries of lanes; a multiple of the warp width
};

}  // namespace gsgpu
