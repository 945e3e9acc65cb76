// The DRAW fuzz target's harness: one draw per input, its state built from the input with structure,
// run on a small gsgpu device, then checked. fuzz_gsgpu_draw.cc feeds it libFuzzer's inputs; the
// seed test (seeds_test.cc) feeds it the generated seeds in the ordinary build.
//
// The DRAW packet is always well formed, and its state blocks, vertex bindings and attributes,
// vertex and index data, both programs, the constant buffer and the targets lie in a fixed layout
// of GPU memory, so that inputs reach the fixed-function blocks instead of failing the first check.
// An input is read in this order (bytes past its end read as 0; seeds.py writes the same order):
//   1. DRAW_INFO: topology, index settings, counts, first vertex / instance / index, vertex offset;
//      1-3 bindings (offset, stride, size cut, rate, divisor) and 1-4 attributes (binding, format,
//      offset) into the vertex data;
//   2. vertex data: floats from a table (a byte: small values, ±1e30, ±inf, NaN, denormals, or raw
//      bits) or raw bytes; indices (a byte each: small values, restart and past-the-buffer specials);
//   3. PIPE_STATE: target size 1-32 x 1-32, colour and depth formats, pitches and clear bytes, raster bits,
//      viewport, scissor, depth / stencil / blend / output words, blend constants, point size;
//   4. SHADER_STATE: the vertex stage (pass-through or a program) and the fragment stage (constant,
//      varying colour, or a program), programs made of assembled snippets (kSnippets in
//      draw_harness.cc) and raw words, the constant buffer's size and bytes;
//   5. up to 12 patches {block, op, dword, value} that set, xor or add any dword of DRAW_INFO,
//      PIPE_STATE, SHADER_STATE, the bindings or the attributes: out-of-range state, code outside
//      its mapping, a target past its memory;
//   6. transform feedback (SHADER_STATE XFB_VA): a byte, 0 for none (so inputs older than this step
//      draw as before); else up to 8 XFB_OUTPUT words (slot, components, buffer, offset, or a raw
//      word) and four XFB_BUFFER records (a stride, raw or a multiple of 4; SIZE and the initial
//      write offset up to 64 KiB), the buffers (1 KiB each) and their offset words in a writable
//      region of their own, so the capture's overflow, strides and offsets meet hostile values.
// Every draw is bounded by the device's DrawLimits (vertex invocations, fragments, instructions per
// warp and per draw), so an input runs in milliseconds.
//
// Invariants (check() returns the first one broken): the CP ends idle or faulted with a recorded
// cause; no byte of GPU memory outside the two target regions and the transform-feedback region changes (every other page is mapped
// read-only or not at all, and VRAM outside the mappings holds a canary: a write past a target's
// end reaches the canary after it); and without programs (which may store anywhere in the
// writable target pages) no byte of a target region outside the pixels of the targets as decoded
// changes either.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gsgpu/emu/device.h"

namespace gsgpu::fuzz {

struct DrawOutcome {
  std::optional<std::string> broken;  // an invariant that does not hold
  bool faulted = false;
  std::string fault;  // the CP fault's message when faulted
  uint64_t fragments_written = 0;
  uint64_t primitives_captured = 0;  // transform feedback's XFB_WRITTEN for the draw
};

class DrawHarness {
 public:
  // Aborts when the device cannot be made (a harness bug, not an input's).
  DrawHarness();
  DrawOutcome run(const uint8_t* data, size_t size);

  struct Draw;  // the blocks of one input (draw_harness.cc)

 private:
  void build(const uint8_t* data, size_t size, Draw* d);
  std::optional<std::string> check_memory(bool programs) const;

  std::unique_ptr<Device> device_;
  std::vector<std::vector<uint32_t>> snippets_;
  std::vector<uint8_t> image_;  // what VRAM must hold outside the targets after the draw
  bool xfb_ = false;            // the input's draw captures (step 6): its region is writable
};

}  // namespace gsgpu::fuzz
