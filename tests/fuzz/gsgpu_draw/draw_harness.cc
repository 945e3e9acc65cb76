// The DRAW fuzz harness (see draw_harness.h).
#include "tests/fuzz/gsgpu_draw/draw_harness.h"

#include <algorithm>
#include <utility>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "gsgpu/isa/assembler.h"
#include "protocol/gsgpu/gsgpu_hw.h"
#include "protocol/gsgpu/packets.h"

namespace gsgpu::fuzz {
namespace {

namespace blk = hw::blk;

// GPU memory, as physical offsets (VA = kVaBase + offset). Guard pages between the regions are never
// mapped; the targets are writable, everything else is read-only (the code also executable).
constexpr uint64_t kVaBase = 0x100000;
constexpr uint64_t kVramSize = 128 * 1024;
constexpr uint64_t kRing = 0x0000, kState = 0x1000, kVertices = 0x2000, kIndices = 0x4000, kCode = 0x5000,
                   kConstants = 0x7000, kColor = 0x9000, kColorEnd = 0xE000, kDepth = 0xF000, kDepthEnd = 0x11000,
                   kXfb = 0x12000, kXfbEnd = 0x14000;
constexpr uint64_t kVertexBytes = kIndices - kVertices, kIndexBytes = kCode - kIndices, kCodeBytes = 0x1000;
// Inside the state page.
constexpr uint64_t kDrawInfo = 0x000, kPipeState = 0x080, kShaderState = 0x140, kBindings = 0x200,
                   kAttributes = 0x400, kXfbState = 0x600, kXfbOutputs = 0x700;
// Inside the transform-feedback region (writable): the four write offsets, then the buffers.
constexpr uint64_t kXfbOffsets = 0x000, kXfbBuffers = 0x400, kXfbBufferBytes = 0x400;
constexpr uint32_t kMaxXfbOutputs = 8;
constexpr uint8_t kCanary = 0xA5;
constexpr uint32_t kMaxTarget = 32;

// Small limits: an input must run in milliseconds, also under ASan.
DrawLimits fuzz_draw_limits() {
  DrawLimits l;
  l.vertex_invocations = 4096;
  l.fragments = 1u << 15;
  l.warp_instructions = 4096;
  l.draw_instructions = 1u << 17;
  return l;
}

// Programs: each entry one assembled snippet (indexes are part of the input format: seeds.py names
// them; append, never reorder). Fragment and vertex instructions are in one table, so a stage
// also meets the other stage's instructions (a fault).
const char* const kSnippets[] = {
    "s_end",                                                                                     // 0
    "s_nop",                                                                                     // 1
    "v_export_f32 v0, 0\nv_export_f32 v1, 1\nv_export_f32 v2, 2\nv_export_f32 v3, 3",            // 2
    "v_interp_persp_f32 v0, 0\nv_interp_persp_f32 v1, 1\nv_interp_persp_f32 v2, 2\nv_interp_persp_f32 v3, 3",  // 3
    "v_interp_linear_f32 v0, 0\nv_interp_linear_f32 v1, 1",                                      // 4
    "v_interp_flat_f32 v2, 2\nv_interp_flat_f32 v3, 3",                                          // 5
    "v_export_f32 1.0, 3",                                                                       // 6
    "v_export_f32 v0, 8",                                                                        // 7: depth
    "v_export_f32 0.5, 4\nv_export_f32 0.25, 7",                                                 // 8: second colour
    "v_add_f32 v1, v0, v1",                                                                      // 9
    "v_mul_f32 v2, v2, 0.5",                                                                     // 10
    "v_div_f32 v0, v1, v2",                                                                      // 11
    "v_sqrt_f32 v3, v0",                                                                         // 12
    "v_ddx_fine_f32 v3, v0\nv_ddy_coarse_f32 v2, v1",                                            // 13
    "v_quad_perm_b32 v1, v0, 0x1b",                                                              // 14
    "v_cmp_olt_f32 v4, v0, v1\nv_branch_z v4, keep, keep\nv_kill\nkeep:",                        // 15
    "v_kill",                                                                                    // 16
    "s_mov_b32 s0, 3\nloop:\ns_sub_u32 s0, s0, 1\ns_cbranch_nz s0, loop",                        // 17
    "loop:\ns_jump loop",                                                                        // 18: endless
    "s_special s[0:1], arg_ptr\ns_load_b32 s2, s[0:1], 0\nv_mov_b32 v0, s2",                     // 19: constants
    "global_load_b32 v5, v[0:1]",                                                                // 20
    "global_store_b32 v[0:1], v2",                                                               // 21
    "v_mov_b32 v200, 1.0",                                                                       // 22: undeclared
    "v_interp_persp_f32 v0, 63",                                                                 // 23
    "v_export_vertex_f32 v0, 0\nv_export_vertex_f32 v1, 1\nv_export_vertex_f32 v2, 2\nv_export_vertex_f32 v3, 3",  // 24
    "v_export_vertex_f32 v4, 4\nv_export_vertex_f32 v5, 5\nv_export_vertex_f32 v6, 6\nv_export_vertex_f32 v7, 7",  // 25
    "v_export_vertex_f32 5.0, 68",                                                               // 26: point size
    "v_mul_f32 v0, v0, 0.5\nv_mul_f32 v1, v1, 0.5",                                              // 27
    "v_cvt_f32_u32 v4, v4",                                                                      // 28
    "v_export_vertex_f32 1.0, 3",                                                                // 29
    "s_special s[0:1], arg_ptr\ns_load_b64 s[0:1], s[0:1], 0\nv_mov_b32 v8, 0.5\nv_mov_b32 v9, 0.5\n"
    "v_mov_b32 v10, 0\nv_mov_b32 v11, 0\ns_mov_b32 s2, 0x4005\n"
    "v_image_sample_implicit v[12:15], s[0:1], v[8:11], s2",                                     // 30
    "v_export_f32 v12, 0\nv_export_f32 v13, 1\nv_export_f32 v14, 2\nv_export_f32 v15, 3",        // 31
};

std::vector<std::vector<uint32_t>> assemble_snippets() {
  std::vector<std::vector<uint32_t>> out;
  for (const char* source : kSnippets) {
    std::vector<uint32_t> words;
    std::string error;
    if (!isa::assemble(std::string(source) + "\n", &words, &error)) {
      std::fprintf(stderr, "fuzz_gsgpu_draw: snippet \"%s\" does not assemble: %s\n", source, error.c_str());
      std::abort();
    }
    out.push_back(std::move(words));
  }
  return out;
}

// The input, read front to back; past its end every read is 0.
class InputReader {
 public:
  InputReader(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}
  uint8_t byte() { return p_ < end_ ? *p_++ : 0; }
  uint32_t u16() {
    const uint32_t lo = byte();
    return lo | uint32_t{byte()} << 8;
  }
  uint32_t u32() {
    const uint32_t lo = u16();
    return lo | u16() << 16;
  }
  // One byte: (b - 100) / 64 for b < 200 (exact binary fractions in [-1.5625, 1.53]), a special
  // value for 200 .. 223, the next four bytes' bits for 224 .. 255.
  float real() {
    static constexpr float kSpecial[] = {0.0f,   1.0f,     -1.0f,     0.5f,      2.0f,    4.0f,
                                         0.25f,  1e-6f,    -1e-6f,    1e-30f,    3e38f,   -3e38f,
                                         1e30f,  -1e30f,   INFINITY,  -INFINITY, NAN,     -0.0f,
                                         32768.f, -32768.f, 65536.f,  1e6f,      1e-45f,  0.999f};
    const uint8_t b = byte();
    if (b < 200) return float(int(b) - 100) / 64.0f;
    if (b < 224) return kSpecial[b - 200];
    return std::bit_cast<float>(u32());
  }
  uint32_t real_bits() { return std::bit_cast<uint32_t>(real()); }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

uint32_t put(uint32_t value, uint32_t mask, uint32_t shift) { return hw::put_field(value, mask, shift); }
uint32_t lo(uint64_t v) { return uint32_t(v); }
uint32_t hi(uint64_t v) { return uint32_t(v >> 32); }

// Vertex formats (VkFormat) the fetcher knows; attribute 0 is mostly R32G32B32A32_SFLOAT.
constexpr uint32_t kVertexFormats[] = {9,  10, 13, 14, 16, 17, 20, 21, 37, 38, 41,  42,  70,  71,  74,  75,
                                       76, 77, 78, 81, 82, 83, 91, 92, 95, 96, 97,  98,  99,  100, 101, 102,
                                       103, 104, 105, 106, 107, 108, 109};

}  // namespace

struct DrawHarness::Draw {
  std::vector<uint32_t> draw_info = std::vector<uint32_t>(blk::DRAW_INFO::SIZE_DWORDS, 0);
  std::vector<uint32_t> bindings = std::vector<uint32_t>(16 * blk::VERTEX_BINDING::SIZE_DWORDS, 0);
  std::vector<uint32_t> attributes = std::vector<uint32_t>(16 * blk::VERTEX_ATTRIBUTE::SIZE_DWORDS, 0);
  std::vector<uint32_t> pipe = std::vector<uint32_t>(blk::PIPE_STATE::SIZE_DWORDS, 0);
  std::vector<uint32_t> shader = std::vector<uint32_t>(blk::SHADER_STATE::SIZE_DWORDS, 0);
  uint32_t attribute_count = 0;
};

namespace {

using Draw = DrawHarness::Draw;

void build_vertex_input(InputReader& r, Draw& d) {
  namespace D = blk::DRAW_INFO;
  namespace VB = blk::VERTEX_BINDING;
  namespace VA = blk::VERTEX_ATTRIBUTE;
  const uint32_t nb = 1 + r.byte() % 3;
  for (uint32_t i = 0; i < nb; ++i) {
    uint32_t* b = &d.bindings[i * VB::SIZE_DWORDS];
    const uint32_t offset = (r.byte() % 16) * 64;
    const uint32_t stride = r.byte() % 65;
    const uint32_t cut = r.byte();  // below 32: the size ends after cut * 4 bytes (a fetch past it faults)
    const uint32_t rate = r.byte();
    b[VB::VA_LO] = lo(kVaBase + kVertices + offset);
    b[VB::VA_HI] = hi(kVaBase + kVertices + offset);
    b[VB::SIZE_LO] = cut < 32 ? cut * 4 : uint32_t(kVertexBytes) - offset;
    b[VB::STRIDE] = stride;
    b[VB::RATE] = (rate & 7) == 7 ? 1 : 0;
    b[VB::DIVISOR] = 1 + (rate >> 3) % 3;
  }
  const uint32_t na = 1 + r.byte() % 4;
  for (uint32_t i = 0; i < na; ++i) {
    uint32_t* a = &d.attributes[i * VA::SIZE_DWORDS];
    a[VA::BINDING] = r.byte() % nb;
    const uint8_t f = r.byte();
    a[VA::FORMAT] = (i == 0 && f < 128) ? 109 : kVertexFormats[f % std::size(kVertexFormats)];
    a[VA::OFFSET] = (r.byte() % 16) * 4;
  }
  d.draw_info[D::COUNTS] = put(nb, D::COUNTS_BINDING_COUNT_MASK, D::COUNTS_BINDING_COUNT_SHIFT) |
                           put(na, D::COUNTS_ATTRIBUTE_COUNT_MASK, D::COUNTS_ATTRIBUTE_COUNT_SHIFT);
  d.attribute_count = na;
}

void build_draw_info(InputReader& r, Draw& d) {
  namespace D = blk::DRAW_INFO;
  std::vector<uint32_t>& di = d.draw_info;
  const uint8_t flags = r.byte();
  di[D::FLAGS] = put(flags % 6, D::FLAGS_TOPOLOGY_MASK, D::FLAGS_TOPOLOGY_SHIFT) |
                 put((flags >> 3) & 1, D::FLAGS_INDEXED_MASK, D::FLAGS_INDEXED_SHIFT) |
                 put((flags >> 4) & 1, D::FLAGS_INDEX_TYPE_MASK, D::FLAGS_INDEX_TYPE_SHIFT) |
                 put((flags >> 5) & 1, D::FLAGS_PRIMITIVE_RESTART_MASK, D::FLAGS_PRIMITIVE_RESTART_SHIFT);
  di[D::COUNT] = r.byte() % 64;
  di[D::INSTANCE_COUNT] = 1 + r.byte() % 3;
  di[D::FIRST_VERTEX] = r.byte() % 8;
  di[D::FIRST_INSTANCE] = r.byte() % 4;
  di[D::FIRST_INDEX] = r.byte() % 8;
  di[D::VERTEX_OFFSET] = uint32_t(int32_t(int8_t(r.byte())) / 16);
  di[D::INDEX_VA_LO] = lo(kVaBase + kIndices);
  di[D::INDEX_VA_HI] = hi(kVaBase + kIndices);
  di[D::BINDINGS_VA_LO] = lo(kVaBase + kState + kBindings);
  di[D::BINDINGS_VA_HI] = hi(kVaBase + kState + kBindings);
  di[D::ATTRIBUTES_VA_LO] = lo(kVaBase + kState + kAttributes);
  di[D::ATTRIBUTES_VA_HI] = hi(kVaBase + kState + kAttributes);
  build_vertex_input(r, d);
}

// Vertex data: a mode byte (odd: raw bytes), a count of 4-byte words / 4, then the words.
void build_vertex_data(InputReader& r, std::vector<uint8_t>& image) {
  const bool raw = r.byte() & 1;
  const uint32_t words = std::min<uint32_t>(r.byte() * 4u, kVertexBytes / 4);
  for (uint32_t i = 0; i < words; ++i) {
    const uint32_t w = raw ? r.u32() : r.real_bits();
    std::memcpy(&image[kVertices + i * 4], &w, 4);
  }
}

// Indices: a count, then a byte each (small values, or specials: restart, past the vertex data,
// far past it); INDEX_SIZE covers them unless the last byte cuts it.
void build_indices(InputReader& r, Draw& d, std::vector<uint8_t>& image) {
  namespace D = blk::DRAW_INFO;
  static constexpr uint32_t kSpecial[] = {0xFFFF, 0xFFFFFFFFu, 0xFFFE,  48,          63,          64,
                                          255,    256,         4095,    0x7FFFFFFF,  0x80000000u, 1u << 20,
                                          0x10000, 0xFFFFFFFEu, 100000, 7};
  const uint32_t size = (d.draw_info[D::FLAGS] & D::FLAGS_INDEX_TYPE_MASK) ? 4 : 2;
  const uint32_t count = r.byte();
  for (uint32_t i = 0; i < count; ++i) {
    const uint8_t b = r.byte();
    const uint32_t index = b < 240 ? b % 48 : kSpecial[b - 240];
    std::memcpy(&image[kIndices + i * size], &index, size);
  }
  const uint32_t cut = r.byte();
  d.draw_info[D::INDEX_SIZE] = count * size - (cut < 16 ? std::min(cut, count * size) : 0);
}

// A target's VA: its extent ends at the end of its region, so a write past the end reaches the
// unmapped guard page's canary.
uint64_t place_target(uint64_t region_end, uint32_t pitch, uint32_t width, uint32_t height, uint32_t bpp) {
  const uint64_t extent = uint64_t{pitch} * (height - 1) + uint64_t{width} * bpp;
  return kVaBase + ((region_end - extent) & ~uint64_t{15});
}

// The targets' size, formats, pitches, places and the byte each region is cleared to.
void build_targets(InputReader& r, std::vector<uint32_t>& p, std::vector<uint8_t>& image) {
  namespace P = blk::PIPE_STATE;
  static constexpr uint32_t kColorFormats[] = {37, 43, 44, 50, 109, 0}, kColorBytes[] = {4, 4, 4, 4, 16, 0};
  static constexpr uint32_t kDepthFormats[] = {0, 126, 129, 124}, kDepthBytes[] = {0, 4, 4, 2};
  const uint32_t w = 1 + r.byte() % kMaxTarget, h = 1 + r.byte() % kMaxTarget;
  const uint8_t formats = r.byte(), pitches = r.byte(), color_clear = r.byte(), depth_clear = r.byte();
  std::fill(image.begin() + kColor, image.begin() + kColorEnd, color_clear);
  std::fill(image.begin() + kDepth, image.begin() + kDepthEnd, depth_clear);
  const uint32_t c = formats % 6, z = (formats >> 4) % 4;
  p[P::TARGET_SIZE] = put(w, P::TARGET_SIZE_WIDTH_MASK, P::TARGET_SIZE_WIDTH_SHIFT) |
                      put(h, P::TARGET_SIZE_HEIGHT_MASK, P::TARGET_SIZE_HEIGHT_SHIFT);
  p[P::COLOR_FORMAT] = kColorFormats[c];
  p[P::DEPTH_FORMAT] = kDepthFormats[z];
  if (kColorBytes[c] != 0) {
    p[P::COLOR_PITCH] = w * kColorBytes[c] + (pitches & 3) * 4;
    const uint64_t va = place_target(kColorEnd, p[P::COLOR_PITCH], w, h, kColorBytes[c]);
    p[P::COLOR_VA_LO] = lo(va);
    p[P::COLOR_VA_HI] = hi(va);
  }
  if (kDepthBytes[z] != 0) {
    p[P::DEPTH_PITCH] = w * kDepthBytes[z] + ((pitches >> 2) & 3) * 4;
    const uint64_t va = place_target(kDepthEnd, p[P::DEPTH_PITCH], w, h, kDepthBytes[z]);
    p[P::DEPTH_VA_LO] = lo(va);
    p[P::DEPTH_VA_HI] = hi(va);
  }
}

// Viewport and scissor: the whole target, or from the input (scaled to the target, or raw).
void build_viewport_scissor(InputReader& r, std::vector<uint32_t>& p) {
  namespace P = blk::PIPE_STATE;
  const float w = float(hw::get_field(p[P::TARGET_SIZE], P::TARGET_SIZE_WIDTH_MASK, P::TARGET_SIZE_WIDTH_SHIFT));
  const float h = float(hw::get_field(p[P::TARGET_SIZE], P::TARGET_SIZE_HEIGHT_MASK, P::TARGET_SIZE_HEIGHT_SHIFT));
  float v[6] = {0, 0, w, h, 0, 1};
  const uint8_t mode = r.byte();
  if (mode >= 160 && mode < 224) {
    v[0] = r.real() * w, v[1] = r.real() * h, v[2] = r.real() * 2 * w, v[3] = r.real() * 2 * h;
    v[4] = std::fabs(r.real()) / 1.5625f, v[5] = std::fabs(r.real()) / 1.5625f;
  } else if (mode >= 224) {
    for (float& x : v) x = r.real();
  }
  const uint32_t dwords[6] = {P::VIEWPORT_X,      P::VIEWPORT_Y,         P::VIEWPORT_WIDTH,
                              P::VIEWPORT_HEIGHT, P::VIEWPORT_MIN_DEPTH, P::VIEWPORT_MAX_DEPTH};
  for (int i = 0; i < 6; ++i) p[dwords[i]] = std::bit_cast<uint32_t>(v[i]);
  p[P::SCISSOR_WIDTH] = uint32_t(w);
  p[P::SCISSOR_HEIGHT] = uint32_t(h);
  if (r.byte() >= 192) {
    p[P::SCISSOR_X] = uint32_t(int32_t(int8_t(r.byte())));
    p[P::SCISSOR_Y] = uint32_t(int32_t(int8_t(r.byte())));
    p[P::SCISSOR_WIDTH] = r.byte();
    p[P::SCISSOR_HEIGHT] = r.byte();
  }
}

void build_tests_and_blend(InputReader& r, std::vector<uint32_t>& p) {
  namespace P = blk::PIPE_STATE;
  p[P::RASTER] = r.byte() & 0x1F;
  p[P::DEPTH] = r.byte() & 0x1F;
  p[P::STENCIL] = r.byte() & 1;
  p[P::STENCIL_FRONT_OPS] = r.u16() & 0xFFF;
  p[P::STENCIL_FRONT_MASKS] = r.u32() & 0xFFFFFF;
  p[P::STENCIL_BACK_OPS] = r.u16() & 0xFFF;
  p[P::STENCIL_BACK_MASKS] = r.u32() & 0xFFFFFF;
  const uint32_t enable = r.byte() & 1;
  const uint32_t src_color = r.byte() % 19, dst_color = r.byte() % 19, color_op = r.byte() % 5;
  const uint32_t src_alpha = r.byte() % 19, dst_alpha = r.byte() % 19, alpha_op = r.byte() % 5;
  p[P::BLEND] = put(enable, P::BLEND_ENABLE_MASK, P::BLEND_ENABLE_SHIFT) |
                put(src_color, P::BLEND_SRC_COLOR_MASK, P::BLEND_SRC_COLOR_SHIFT) |
                put(dst_color, P::BLEND_DST_COLOR_MASK, P::BLEND_DST_COLOR_SHIFT) |
                put(color_op, P::BLEND_COLOR_OP_MASK, P::BLEND_COLOR_OP_SHIFT) |
                put(src_alpha, P::BLEND_SRC_ALPHA_MASK, P::BLEND_SRC_ALPHA_SHIFT) |
                put(dst_alpha, P::BLEND_DST_ALPHA_MASK, P::BLEND_DST_ALPHA_SHIFT) |
                put(alpha_op, P::BLEND_ALPHA_OP_MASK, P::BLEND_ALPHA_OP_SHIFT);
  const uint8_t output = r.byte();
  p[P::OUTPUT] = put(~output & 0xF, P::OUTPUT_WRITE_MASK_MASK, P::OUTPUT_WRITE_MASK_SHIFT) |
                 put((output >> 4) & 1, P::OUTPUT_LOGIC_OP_ENABLE_MASK, P::OUTPUT_LOGIC_OP_ENABLE_SHIFT) |
                 put(r.byte() % 16, P::OUTPUT_LOGIC_OP_MASK, P::OUTPUT_LOGIC_OP_SHIFT);
  for (uint32_t i : {P::BLEND_CONSTANT_R, P::BLEND_CONSTANT_G, P::BLEND_CONSTANT_B, P::BLEND_CONSTANT_A})
    p[i] = r.real_bits();
  p[P::POINT_SIZE] = std::bit_cast<uint32_t>(r.real() * 8);
}

// A program: up to 32 items, each a snippet or (the last choice) a raw word, then s_end unless the
// last byte says not. Returns its size in bytes.
uint32_t build_program(InputReader& r, const std::vector<std::vector<uint32_t>>& snippets, std::vector<uint8_t>& image,
                       uint64_t offset) {
  std::vector<uint32_t> code;
  const uint32_t items = r.byte() % 33;
  for (uint32_t i = 0; i < items; ++i) {
    const uint32_t choice = r.byte() % (snippets.size() + 1);
    if (choice == snippets.size()) {
      code.push_back(r.u32());
    } else {
      code.insert(code.end(), snippets[choice].begin(), snippets[choice].end());
    }
  }
  if (r.byte() < 224) code.insert(code.end(), snippets[0].begin(), snippets[0].end());
  code.resize(std::min<size_t>(code.size(), kCodeBytes / 4));
  if (!code.empty()) std::memcpy(&image[offset], code.data(), code.size() * 4);
  return uint32_t(code.size() * 4);
}

// A program's SHADER_STATE dwords (code VA, size, entry 0, register counts from the input).
void program_dwords(InputReader& r, std::vector<uint32_t>& s, uint32_t va_lo, uint32_t va_hi, uint32_t size,
                    uint32_t registers, uint64_t va, uint32_t bytes) {
  namespace S = blk::SHADER_STATE;
  const uint32_t vector = 1 + r.byte() % 32, scalar = r.byte() % 16;
  s[va_lo] = lo(va);
  s[va_hi] = hi(va);
  s[size] = bytes;
  s[registers] = put(vector, S::REGISTERS_VECTOR_MASK, S::REGISTERS_VECTOR_SHIFT) |
                 put(scalar, S::REGISTERS_SCALAR_MASK, S::REGISTERS_SCALAR_SHIFT);
}

}  // namespace

namespace {

// An XFB_OUTPUT word from four bytes (slot 0-69, 69 being one too many; 1-4 components; the buffer;
// a word offset 0-32), or the next four bytes as the word when the slot byte's top bit is set.
uint32_t xfb_output(InputReader& r) {
  namespace O = blk::XFB_OUTPUT;
  const uint8_t slot = r.byte();
  if (slot & 0x80) return r.u32();
  return put(slot % 70, O::OUTPUT_SLOT_MASK, O::OUTPUT_SLOT_SHIFT) |
         put(1 + r.byte() % 4, O::OUTPUT_COMPONENTS_MASK, O::OUTPUT_COMPONENTS_SHIFT) |
         put(r.byte() % 4, O::OUTPUT_BUFFER_MASK, O::OUTPUT_BUFFER_SHIFT) |
         put((r.byte() % 33) * 4, O::OUTPUT_OFFSET_MASK, O::OUTPUT_OFFSET_SHIFT);
}

// XFB_BUFFER record b: a stride byte (0: unused, the record all 0; 255: the next four bytes as the
// stride; else 4 x (b % 64 + 1)), then its SIZE and its initial write offset (u16 each: up to 64 KiB,
// past the buffer's 1 KiB and the region's end), the offset stored in the region's word b.
void xfb_buffer(InputReader& r, uint32_t b, uint32_t* record, std::vector<uint8_t>& image) {
  namespace B = blk::XFB_BUFFER;
  const uint8_t stride = r.byte();
  if (stride == 0) return;
  const uint64_t va = kVaBase + kXfb + kXfbBuffers + b * kXfbBufferBytes;
  const uint64_t offset_va = kVaBase + kXfb + kXfbOffsets + b * 4;
  record[B::VA_LO] = lo(va);
  record[B::VA_HI] = hi(va);
  record[B::STRIDE] = stride == 255 ? r.u32() : 4 * (stride % 64 + 1);
  record[B::SIZE] = r.u16();
  record[B::OFFSET_VA_LO] = lo(offset_va);
  record[B::OFFSET_VA_HI] = hi(offset_va);
  const uint32_t write_offset = r.u16();
  std::memcpy(&image[kXfb + kXfbOffsets + b * 4], &write_offset, 4);
}

// Step 6, transform feedback: a byte (0: none, so inputs from before it draw as they did); else
// that byte % 9 outputs (xfb_output), the four buffer records (xfb_buffer), and SHADER_STATE XFB_VA
// naming the XFB_STATE. True when the draw captures.
bool build_xfb(InputReader& r, std::vector<uint32_t>& shader, std::vector<uint8_t>& image) {
  namespace S = blk::SHADER_STATE;
  namespace X = blk::XFB_STATE;
  const uint8_t enable = r.byte();
  if (enable == 0) return false;
  const uint32_t outputs = enable % (kMaxXfbOutputs + 1);
  uint32_t state[X::SIZE_DWORDS + 4 * blk::XFB_BUFFER::SIZE_DWORDS] = {};
  state[X::OUTPUTS] = put(outputs, X::OUTPUTS_COUNT_MASK, X::OUTPUTS_COUNT_SHIFT);
  state[X::OUTPUTS_VA_LO] = outputs ? lo(kVaBase + kState + kXfbOutputs) : 0;
  state[X::OUTPUTS_VA_HI] = outputs ? hi(kVaBase + kState + kXfbOutputs) : 0;
  for (uint32_t i = 0; i < outputs; ++i) {
    const uint32_t word = xfb_output(r);
    std::memcpy(&image[kState + kXfbOutputs + i * 4], &word, 4);
  }
  for (uint32_t b = 0; b < 4; ++b)
    xfb_buffer(r, b, state + X::SIZE_DWORDS + b * blk::XFB_BUFFER::SIZE_DWORDS, image);
  std::memcpy(&image[kState + kXfbState], state, sizeof state);
  shader[S::XFB_VA_LO] = lo(kVaBase + kState + kXfbState);
  shader[S::XFB_VA_HI] = hi(kVaBase + kState + kXfbState);
  return true;
}

}  // namespace

DrawHarness::DrawHarness() : snippets_(assemble_snippets()) {
  DeviceConfig c;
  c.name = "drawfuzz";
  c.shader_cores = 1;
  c.warp_width = 8;
  c.host_threads = 1;
  c.vram_size = kVramSize;
  c.va_base = kVaBase;
  c.va_size = 1 << 24;
  c.cp_mode = CpMode::kManual;
  c.max_work_items_per_dispatch = 4096;
  c.draw_limits = fuzz_draw_limits();
  std::string error;
  device_ = Device::create(c, &error);
  struct Mapping {
    uint64_t offset, size;
    uint32_t perms;
  };
  const Mapping mappings[] = {{kRing, kCode - kRing, kPermRead},
                              {kCode, kConstants - kCode, kPermRead | kPermExecute},
                              {kConstants, 0x1000, kPermRead},
                              {kColor, kColorEnd - kColor, kPermReadWrite},
                              {kDepth, kDepthEnd - kDepth, kPermReadWrite},
                              {kXfb, kXfbEnd - kXfb, kPermReadWrite}};
  for (const Mapping& m : mappings) {
    if (!device_ || !device_->mmu().map(kVaBase + m.offset, m.size, m.offset, m.perms, &error)) {
      std::fprintf(stderr, "fuzz_gsgpu_draw: %s\n", error.c_str());
      std::abort();
    }
  }
}

void DrawHarness::build(const uint8_t* data, size_t size, Draw* d) {
  namespace S = blk::SHADER_STATE;
  InputReader r(data, size);
  build_draw_info(r, *d);
  build_vertex_data(r, image_);
  build_indices(r, *d, image_);
  build_targets(r, d->pipe, image_);
  build_viewport_scissor(r, d->pipe);
  build_tests_and_blend(r, d->pipe);
  std::vector<uint32_t>& s = d->shader;
  const uint8_t stages = r.byte();
  const bool vertex_program = stages & 1;
  const uint32_t fragment_mode = (stages >> 1) % 3;
  uint32_t vertex_outputs = (d->attribute_count - 1) * 4;
  if (vertex_program) {
    vertex_outputs = r.byte() % 17;
    const uint32_t bytes = build_program(r, snippets_, image_, kCode);
    s[S::VERTEX] = put(1, S::VERTEX_MODE_MASK, S::VERTEX_MODE_SHIFT) |
                   put(vertex_outputs, S::VERTEX_OUTPUTS_MASK, S::VERTEX_OUTPUTS_SHIFT);
    program_dwords(r, s, S::VERTEX_CODE_VA_LO, S::VERTEX_CODE_VA_HI, S::VERTEX_CODE_SIZE, S::VERTEX_REGISTERS,
                   kVaBase + kCode, bytes);
  }
  if (fragment_mode == 2) {
    const uint8_t v = r.byte();  // top bit: any count up to 64, else at most what the vertex stage writes
    const uint32_t varyings = (v & 0x80) ? v % 65 : std::min<uint32_t>(v % 17, vertex_outputs);
    const uint32_t bytes = build_program(r, snippets_, image_, kCode + kCodeBytes);
    s[S::FRAGMENT] = put(2, S::FRAGMENT_MODE_MASK, S::FRAGMENT_MODE_SHIFT) |
                     put(varyings, S::FRAGMENT_VARYINGS_MASK, S::FRAGMENT_VARYINGS_SHIFT);
    program_dwords(r, s, S::FRAGMENT_CODE_VA_LO, S::FRAGMENT_CODE_VA_HI, S::FRAGMENT_CODE_SIZE, S::REGISTERS,
                   kVaBase + kCode + kCodeBytes, bytes);
  } else {
    s[S::FRAGMENT] = put(fragment_mode, S::FRAGMENT_MODE_MASK, S::FRAGMENT_MODE_SHIFT) |
                     put((stages >> 3) % 3, S::FRAGMENT_INTERPOLATION_MASK, S::FRAGMENT_INTERPOLATION_SHIFT);
    for (uint32_t i = S::CONSTANT_R; i <= S::CONSTANT1_A; ++i) s[i] = r.real_bits();
  }
  if (vertex_program || fragment_mode == 2) {
    const uint32_t bytes = (r.byte() % 17) * 16;
    for (uint32_t i = 0; i < bytes / 4; ++i) {
      const uint32_t w = r.u32();
      std::memcpy(&image_[kConstants + i * 4], &w, 4);
    }
    s[S::CONSTANTS_VA_LO] = bytes ? lo(kVaBase + kConstants) : 0;
    s[S::CONSTANTS_VA_HI] = bytes ? hi(kVaBase + kConstants) : 0;
    s[S::CONSTANTS_SIZE] = bytes;
  }
  // Patches: set, xor, add or flip one bit of any dword of any block.
  std::vector<uint32_t>* blocks[] = {&d->draw_info, &d->pipe, &d->shader, &d->bindings, &d->attributes};
  const uint32_t patches = r.byte() % 13;
  for (uint32_t i = 0; i < patches; ++i) {
    const uint8_t sel = r.byte();
    std::vector<uint32_t>& words = *blocks[sel % 5];
    uint32_t& word = words[r.byte() % words.size()];
    const uint32_t value = r.u32();
    switch ((sel / 5) % 4) {
      case 0: word = value; break;
      case 1: word ^= value; break;
      case 2: word += value; break;
      default: word ^= 1u << (value % 32); break;
    }
  }
  xfb_ = build_xfb(r, d->shader, image_);
}

namespace {

using Interval = std::pair<uint64_t, uint64_t>;  // VRAM offsets [first, second)

// Where a draw may write: the writable regions with programs (a store may land anywhere in them),
// else only the rows of pixels of the targets as decoded, inside those regions, and the
// transform-feedback region (its offsets and buffers) when the draw captures.
std::vector<Interval> writable(const std::optional<DrawRecord>& draw, bool programs, bool xfb) {
  const Interval regions[] = {{kColor, kColorEnd}, {kDepth, kDepthEnd}};
  if (programs) return {regions[0], regions[1], {kXfb, kXfbEnd}};
  std::vector<Interval> rows;
  if (xfb) rows.emplace_back(kXfb, kXfbEnd);
  if (!draw) return rows;
  const graphics::DrawState& s = draw->state;
  auto add = [&](uint64_t va, uint32_t pitch, uint32_t bpp) {
    if (va < kVaBase || va - kVaBase >= kVramSize) return;  // unmapped: the draw wrote nothing
    for (uint32_t y = 0; y < s.height; ++y) {
      const uint64_t begin = va - kVaBase + uint64_t{y} * pitch, end = begin + uint64_t{s.width} * bpp;
      for (const Interval& r : regions) {
        if (std::max(begin, r.first) < std::min(end, r.second))
          rows.emplace_back(std::max(begin, r.first), std::min(end, r.second));
      }
    }
  };
  if (s.color.enabled) add(s.color.va, s.color.row_pitch, graphics::bytes_per_pixel(s.color.format));
  if (s.depth.enabled) add(s.depth.va, s.depth.row_pitch, graphics::bytes_per_pixel(s.depth.format));
  std::sort(rows.begin(), rows.end());
  return rows;
}

}  // namespace

// Every byte of VRAM outside writable() holds what the harness wrote (or the canary). Compared
// with memcmp between the writable intervals: a byte-by-byte loop in this instrumented file cost
// most of the target's time.
std::optional<std::string> DrawHarness::check_memory(bool programs) const {
  const uint8_t* vram = device_->mmu().vram();
  const std::optional<DrawRecord> draw = device_->command_processor().last_draw();
  uint64_t at = 0;
  auto check_until = [&](uint64_t end) -> std::optional<std::string> {
    if (at < end && std::memcmp(vram + at, image_.data() + at, end - at) != 0) {
      while (vram[at] == image_[at]) ++at;
      char b[160];
      std::snprintf(b, sizeof b, "byte at VA 0x%llx changed (0x%02x -> 0x%02x) outside %s",
                    (unsigned long long)(kVaBase + at), image_[at], vram[at],
                    programs ? "the writable pages" : "the pixels of the targets and the capture");
      return std::string(b);
    }
    return std::nullopt;
  };
  for (const Interval& w : writable(draw, programs, xfb_)) {
    if (auto broken = check_until(w.first)) return broken;
    at = std::max(at, w.second);
  }
  return check_until(kVramSize);
}

DrawOutcome DrawHarness::run(const uint8_t* data, size_t size) {
  Device& dev = *device_;
  dev.reset();
  image_.assign(kVramSize, kCanary);
  std::fill(image_.begin(), image_.begin() + kConstants + 0x1000, 0);
  Draw d;
  build(data, size, &d);
  auto place = [&](uint64_t offset, const std::vector<uint32_t>& words) {
    std::memcpy(&image_[kState + offset], words.data(), words.size() * 4);
  };
  place(kDrawInfo, d.draw_info);
  place(kPipeState, d.pipe);
  place(kShaderState, d.shader);
  place(kBindings, d.bindings);
  place(kAttributes, d.attributes);
  const uint64_t state = kVaBase + kState;
  const std::vector<uint32_t> ring = hw::encode_draw(state + kDrawInfo, state + kPipeState, state + kShaderState);
  std::memcpy(&image_[kRing], ring.data(), ring.size() * 4);
  std::memcpy(dev.mmu().vram(), image_.data(), kVramSize);

  namespace reg = hw::reg;
  dev.write_register(reg::RING_BASE_LO, lo(kVaBase + kRing));
  dev.write_register(reg::RING_BASE_HI, hi(kVaBase + kRing));
  dev.write_register(reg::RING_SIZE, 4096);
  dev.write_register(reg::RING_TAIL, uint32_t(ring.size() * 4));
  dev.write_register(reg::DOORBELL, 1);
  dev.run_until_idle();

  DrawOutcome out;
  const CpState state_after = dev.cp_state();
  const std::optional<CpFault> fault = dev.cp_fault();
  out.faulted = state_after == CpState::kFaulted;
  if (fault) out.fault = fault->message;
  std::optional<DrawRecord> record = dev.command_processor().last_draw();
  if (record) {
    out.fragments_written = record->result.counters.merge.fragments_written;
    out.primitives_captured = record->result.xfb.written;
  }
  if (state_after != CpState::kIdle && state_after != CpState::kFaulted) {
    out.broken = std::string("the CP ended ") + cp_state_name(state_after);
  } else if (out.faulted && (!fault || fault->cause == CpFaultCause::kNone || fault->message.empty())) {
    out.broken = "the CP faulted without a recorded cause";
  } else {
    const bool programs = record && (record->state.vertex == graphics::VertexMode::kProgram ||
                                     record->state.fragment == graphics::FragmentMode::kProgram);
    out.broken = check_memory(programs);
  }
  (void)dev.dump_text();  // formatting the last draw must be safe whatever it was
  // Free what this input left (the draw record, a fault) now: libFuzzer reruns an input that ends
  // with more allocations than frees under its leak checker.
  dev.reset();
  return out;
}

}  // namespace gsgpu::fuzz
