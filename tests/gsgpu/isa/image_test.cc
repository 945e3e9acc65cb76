// Image instructions on the shader cores (docs/isa.md section 8b): hand-assembled kernels load,
// fetch, sample, store and query 2D, 3D and 1D-array images; results are checked against texels
// computed by hand and against the texture unit called directly on the same descriptor. Then the
// hostile cases: a refused descriptor field or sampler (fault kind 8, SHADER_FAULT_INFO.KIND 8),
// an unmapped descriptor, texels past the mapping, a store to a read-only mapping (kMemory), a
// misaligned quad (kIllegalInstruction) - and the cores run the next dispatch after each fault.
// Every case runs on each SIMD build of the interpreter the host supports (separate .so's that
// link the texture unit themselves).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "gsgpu/emu/gpu_memory.h"
#include "gsgpu/emu/shader/shader_core.h"
#include "gsgpu/emu/texture/texture_unit.h"
#include "gsgpu/isa/assembler.h"
#include "gsgpu/isa/isa.h"
#include "protocol/gsgpu/gsgpu_hw.h"

namespace gsgpu::testing {
namespace {

namespace d = hw::blk::IMAGE_DESC;
namespace smp = hw::blk::SAMPLER_STATE;
using hw::put_field;

constexpr uint64_t kPage = 4096;

// Page-granular mappings, each readable and optionally writable, with an unmapped page after each.
class ImageMemory : public GpuMemory {
 public:
  static constexpr uint64_t kBase = 0x200000000;
  ImageMemory() : bytes_(2048 * kPage, 0) {}

  uint8_t* translate(uint64_t va, uint64_t size, Access access) override {
    if (const Mapping* m = find(va, access); m && m->va + m->size - va >= size) return host(va);
    report_fault(MemoryFault{va, size, access});
    return nullptr;
  }
  bool lookup_range(uint64_t va, Access access, Range* out) override {
    const Mapping* m = find(va, access);
    if (!m) return false;
    *out = Range{m->va, m->va + m->size, host(m->va)};
    return true;
  }
  void report_fault(const MemoryFault& fault) override {
    std::lock_guard lock(mutex_);
    faults.push_back(fault);
  }
  uint64_t map(uint64_t size, bool writable = true) {
    const uint64_t va = kBase + next_;
    const uint64_t mapped = (size + kPage - 1) / kPage * kPage;
    next_ += mapped + kPage;
    EXPECT_LE(next_, bytes_.size());
    mappings_.push_back(Mapping{va, mapped, writable});
    return va;
  }
  template <typename T>
  uint64_t upload(const std::vector<T>& data, bool writable = true) {
    const uint64_t va = map(data.size() * sizeof(T), writable);
    std::memcpy(host(va), data.data(), data.size() * sizeof(T));
    return va;
  }
  template <typename T>
  std::vector<T> download(uint64_t va, size_t count) {
    std::vector<T> out(count);
    std::memcpy(out.data(), host(va), count * sizeof(T));
    return out;
  }
  uint8_t* host(uint64_t va) { return &bytes_[va - kBase]; }

  std::vector<MemoryFault> faults;

 private:
  struct Mapping {
    uint64_t va, size;
    bool writable;
  };
  const Mapping* find(uint64_t va, Access access) const {
    for (const Mapping& m : mappings_)
      if (va >= m.va && va - m.va < m.size && (m.writable || access == Access::kRead || access == Access::kExecute))
        return &m;
    return nullptr;
  }
  std::vector<uint8_t> bytes_;
  std::vector<Mapping> mappings_;
  uint64_t next_ = 0;
  std::mutex mutex_;
};

struct DescSpec {
  uint64_t base = 0;
  uint32_t order = d::FORMAT_CHANNEL_ORDER_RGBA;
  uint32_t type = d::FORMAT_DATA_TYPE_FLOAT;
  uint32_t image_type = d::FORMAT_TYPE_IMAGE_2D;
  uint32_t width = 1, height = 1, depth = 1, layers = 1;
  uint32_t row_pitch = 0, slice_pitch = 0;
};

std::vector<uint32_t> desc_words(const DescSpec& spec) {
  std::vector<uint32_t> w(d::SIZE_DWORDS, 0);
  w[d::BASE_VA_LO] = static_cast<uint32_t>(spec.base);
  w[d::BASE_VA_HI] = static_cast<uint32_t>(spec.base >> 32);
  w[d::FORMAT] = put_field(spec.order, d::FORMAT_CHANNEL_ORDER_MASK, d::FORMAT_CHANNEL_ORDER_SHIFT) |
                 put_field(spec.type, d::FORMAT_DATA_TYPE_MASK, d::FORMAT_DATA_TYPE_SHIFT) |
                 put_field(spec.image_type, d::FORMAT_TYPE_MASK, d::FORMAT_TYPE_SHIFT) |
                 put_field(1, d::FORMAT_MIP_LEVELS_MASK, d::FORMAT_MIP_LEVELS_SHIFT) |
                 put_field(d::FORMAT_MIP_LAYOUT_SINGLE, d::FORMAT_MIP_LAYOUT_MASK, d::FORMAT_MIP_LAYOUT_SHIFT);
  w[d::WIDTH] = spec.width;
  w[d::HEIGHT] = spec.height;
  w[d::DEPTH] = spec.depth;
  w[d::ARRAY_SIZE] = spec.layers;
  w[d::ROW_PITCH] = spec.row_pitch;
  w[d::SLICE_PITCH] = spec.slice_pitch;
  return w;
}

uint32_t sampler_word(bool normalized, uint32_t address, bool linear) {
  return put_field(normalized, smp::STATE_NORMALIZED_MASK, smp::STATE_NORMALIZED_SHIFT) |
         put_field(address, smp::STATE_ADDRESS_U_MASK, smp::STATE_ADDRESS_U_SHIFT) |
         put_field(address, smp::STATE_ADDRESS_V_MASK, smp::STATE_ADDRESS_V_SHIFT) |
         put_field(address, smp::STATE_ADDRESS_W_MASK, smp::STATE_ADDRESS_W_SHIFT) |
         put_field(linear, smp::STATE_MAG_FILTER_MASK, smp::STATE_MAG_FILTER_SHIFT) |
         put_field(linear, smp::STATE_MIN_FILTER_MASK, smp::STATE_MIN_FILTER_SHIFT);
}

uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }

// Arguments: 0 descriptor VA (uniform), 8 coordinates (4 words per lane), 16 results (4 words
// per lane), 24 sampler word, 32 store data (4 words per lane), 40 per-lane descriptor VAs.
// `op` is the image instruction; it finds the coordinates in v[8:11], the data in v[16:19], the
// per-lane descriptor VA in v[20:21], the uniform one in s[2:3], the sampler in s8, and leaves
// its result in v[12:15].
std::string kernel(const std::string& op) {
  return "  s_special s[0:1], arg_ptr\n"
         "  s_load_b64 s[2:3], s[0:1], 0\n"
         "  s_load_b64 s[4:5], s[0:1], 8\n"
         "  s_load_b64 s[6:7], s[0:1], 16\n"
         "  s_load_b32 s8, s[0:1], 24\n"
         "  s_load_b64 s[10:11], s[0:1], 32\n"
         "  s_load_b64 s[12:13], s[0:1], 40\n"
         "  v_special v0, local_id_x\n"
         "  v_shl_b32 v1, v0, 4\n"
         "  v_zext_u64_u32 v[2:3], v1\n"
         "  v_add_u64 v[4:5], v[2:3], s[4:5]\n"
         "  global_load_b32 v8, v[4:5], 0\n"
         "  global_load_b32 v9, v[4:5], 4\n"
         "  global_load_b32 v10, v[4:5], 8\n"
         "  global_load_b32 v11, v[4:5], 12\n"
         "  v_add_u64 v[4:5], v[2:3], s[10:11]\n"
         "  global_load_b32 v16, v[4:5], 0\n"
         "  global_load_b32 v17, v[4:5], 4\n"
         "  global_load_b32 v18, v[4:5], 8\n"
         "  global_load_b32 v19, v[4:5], 12\n"
         "  v_shl_b32 v1, v0, 3\n"
         "  v_zext_u64_u32 v[22:23], v1\n"
         "  v_add_u64 v[22:23], v[22:23], s[12:13]\n"
         "  global_load_b64 v[20:21], v[22:23], 0\n"
         "  v_mov_b32 v12, 0x5a5a5a5a\n"
         "  v_mov_b32 v13, 0x5a5a5a5a\n"
         "  v_mov_b32 v14, 0x5a5a5a5a\n"
         "  v_mov_b32 v15, 0x5a5a5a5a\n"
         "image_op:\n"
         "  " + op + "\n"
         "  v_add_u64 v[4:5], v[2:3], s[6:7]\n"
         "  global_store_b32 v[4:5], v12, 0\n"
         "  global_store_b32 v[4:5], v13, 4\n"
         "  global_store_b32 v[4:5], v14, 8\n"
         "  global_store_b32 v[4:5], v15, 12\n"
         "  s_end\n";
}

// Byte offset of the first image instruction (or of the first word that does not decode).
uint64_t image_op_offset(const std::vector<uint32_t>& words) {
  size_t pos = 0;
  while (pos < words.size()) {
    isa::Instruction inst;
    size_t used = 0;
    std::string error;
    if (!isa::decode(words.data() + pos, words.size() - pos, &inst, &used, &error)) break;
    if (std::string_view(isa::op_info(inst.opcode).mnemonic).starts_with("v_image_")) break;
    pos += used;
  }
  return pos * 4;
}

class ImageInstructions : public ::testing::TestWithParam<HostSimd> {
 protected:
  void SetUp() override {
    if (!host_supports(GetParam())) GTEST_SKIP() << host_simd_name(GetParam()) << " not supported here";
    cores_ = std::make_unique<ShaderCores>(ShaderConfig{2, 32, 1, GetParam()});
  }

  uint64_t place_desc(const DescSpec& spec, bool writable = true) {
    const std::vector<uint32_t> w = desc_words(spec);
    return memory.upload(w, writable);
  }
  // An image of `texel_words` (already in memory order) and its descriptor.
  uint64_t place_image(DescSpec spec, const std::vector<uint32_t>& texel_words, bool writable = true) {
    spec.base = memory.upload(texel_words, writable);
    return place_desc(spec);
  }

  struct Run {
    std::vector<uint32_t> out;  // 4 words per lane
    DispatchResult result;
    uint64_t code_va = 0;
    uint64_t image_pc = 0;  // the image instruction's address
  };
  Run run(const std::string& op, uint64_t desc_va, const std::vector<uint32_t>& coords, uint32_t sampler = 0,
          const std::vector<uint32_t>& data = {}, const std::vector<uint64_t>& lane_descs = {}) {
    const uint32_t lanes = static_cast<uint32_t>(coords.size() / 4);
    std::vector<uint32_t> words;
    std::string error;
    EXPECT_TRUE(isa::assemble(kernel(op), &words, &error)) << error;
    return run_words(words, lanes, desc_va, coords, sampler, data, lane_descs);
  }
  Run run_words(const std::vector<uint32_t>& words, uint32_t lanes, uint64_t desc_va, const std::vector<uint32_t>& coords,
                uint32_t sampler = 0, std::vector<uint32_t> data = {}, std::vector<uint64_t> lane_descs = {}) {
    Run r;
    data.resize(lanes * 4, 0);
    lane_descs.resize(lanes, desc_va);
    DispatchParams params;
    r.code_va = memory.upload(words, false);
    r.image_pc = r.code_va + image_op_offset(words);
    params.code_size = static_cast<uint32_t>(words.size() * 4);
    params.code_va = r.code_va;
    const uint64_t out = memory.map(lanes * 16);
    const std::vector<uint64_t> args = {desc_va, memory.upload(coords), out, sampler, memory.upload(data),
                                        memory.upload(lane_descs)};
    params.arg_va = memory.upload(args);
    params.arg_size = static_cast<uint32_t>(args.size() * 8);
    params.group_size[0] = lanes;
    r.result = cores_->run(params, memory);
    r.out = memory.download<uint32_t>(out, lanes * 4);
    return r;
  }
  void expect_ok(const Run& r) {
    ASSERT_FALSE(r.result.fault.has_value()) << shader_fault_name(r.result.fault->kind) << ": " << r.result.fault->message;
  }
  // The fault of the image instruction, and the cores still run a correct dispatch afterwards.
  void expect_fault(const Run& r, ShaderFaultKind kind, const std::vector<std::string>& message_parts) {
    ASSERT_TRUE(r.result.fault.has_value());
    EXPECT_EQ(r.result.fault->kind, kind) << r.result.fault->message;
    EXPECT_EQ(r.result.fault->pc, r.image_pc);
    for (const std::string& part : message_parts)
      EXPECT_NE(r.result.fault->message.find(part), std::string::npos) << part << " not in: " << r.result.fault->message;
    for (uint32_t w : r.out) EXPECT_EQ(w, 0u) << "a faulting dispatch wrote its results";
    const uint64_t good = place_image(small_2d(), small_2d_texels());
    const Run after = run("v_image_load v[12:15], s[2:3], v[8:11]", good, {1, 0, 0, 0});
    expect_ok(after);
    EXPECT_EQ(after.out[0], 10u);
  }

  // 3x2 RGBA uint8: texel (x, y) = (y*100 + x*10 + c) for channel c; rows padded to 16 bytes.
  static DescSpec small_2d() {
    DescSpec spec;
    spec.type = d::FORMAT_DATA_TYPE_UNSIGNED_INT8;
    spec.width = 3;
    spec.height = 2;
    spec.row_pitch = 16;
    return spec;
  }
  static std::vector<uint32_t> small_2d_texels() {
    std::vector<uint32_t> words(8, 0);
    auto* bytes = reinterpret_cast<uint8_t*>(words.data());
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 3; ++x)
        for (int c = 0; c < 4; ++c) bytes[y * 16 + x * 4 + c] = static_cast<uint8_t>(y * 100 + x * 10 + c);
    return words;
  }

  // The texture unit on the same descriptor: the oracle for filtered samples.
  texture::Texel direct_sample(uint64_t desc_va, uint32_t sampler, const float xyz[3]) {
    texture::TextureUnit unit(memory);
    texture::Image image;
    texture::Sampler s;
    std::string why;
    EXPECT_TRUE(unit.load_image(desc_va, texture::ImageUse::kRead, &image)) << unit.fault_reason();
    EXPECT_TRUE(texture::decode_sampler(sampler, &s, &why)) << why;
    texture::Texel t;
    EXPECT_TRUE(unit.sample(image, s, xyz, 0.0f, &t)) << unit.fault_reason();
    return t;
  }

  ImageMemory memory;
  std::unique_ptr<ShaderCores> cores_;
};

TEST_P(ImageInstructions, LoadReadsTexelsAndTransparentBlackOutside) {
  const uint64_t desc = place_image(small_2d(), small_2d_texels());
  const Run r = run("v_image_load v[12:15], s[2:3], v[8:11]", desc,
                    {0, 0, 0, 0, 2, 1, 0, 0, 1, 1, 0, 0, 3, 0, 0, 0, 0xffffffffu, 0, 0, 0});
  expect_ok(r);
  const uint32_t expected[5][4] = {{0, 1, 2, 3}, {120, 121, 122, 123}, {110, 111, 112, 113}, {0, 0, 0, 0}, {0, 0, 0, 0}};
  for (int lane = 0; lane < 5; ++lane)
    for (int c = 0; c < 4; ++c) EXPECT_EQ(r.out[lane * 4 + c], expected[lane][c]) << lane << "." << c;
}

TEST_P(ImageInstructions, FetchAppliesTheSamplersAddressing) {
  const uint64_t desc = place_image(small_2d(), small_2d_texels());
  const std::vector<uint32_t> coords = {5, 1, 0, 0, -1u, -1u, 0, 0, 1, 0, 0, 0};
  Run r = run("v_image_fetch v[12:15], s[2:3], v[8:11], s8", desc, coords,
              sampler_word(false, smp::STATE_ADDRESS_U_CLAMP_TO_EDGE, false));
  expect_ok(r);
  EXPECT_EQ(r.out[0], 120u);  // (5, 1) clamps to (2, 1)
  EXPECT_EQ(r.out[4], 0u);    // (-1, -1) clamps to (0, 0)
  EXPECT_EQ(r.out[7], 3u);
  EXPECT_EQ(r.out[8], 10u);
  // CLAMP (to border): outside reads the transparent-black border; the sampler as a literal.
  r = run("v_image_fetch v[12:15], s[2:3], v[8:11], " + std::to_string(sampler_word(false, smp::STATE_ADDRESS_U_CLAMP_TO_BORDER, false)),
          desc, coords);
  expect_ok(r);
  for (int c = 0; c < 8; ++c) EXPECT_EQ(r.out[c], 0u) << c;
  EXPECT_EQ(r.out[8], 10u);
}

// A 4x2 float (R) image; every addressing mode, nearest and linear, texel and normalised
// coordinates, against the texture unit and, for a few, values worked out by hand.
TEST_P(ImageInstructions, SampleEveryAddressingModeAndFilter) {
  DescSpec spec;
  spec.order = d::FORMAT_CHANNEL_ORDER_R;
  spec.width = 4;
  spec.height = 2;
  spec.row_pitch = 16;
  std::vector<uint32_t> texels;
  for (float v : {1.0f, 2.0f, 4.0f, 8.0f, 16.0f, 32.0f, 64.0f, 128.0f}) texels.push_back(bits(v));
  const uint64_t desc = place_image(spec, texels);
  const float coords_xy[][2] = {{0.5f, 0.5f}, {1.0f, 0.5f}, {3.7f, 1.2f}, {-0.6f, 0.3f}, {4.4f, 2.5f}, {2.0f, 1.0f},
                                {0.1f, 0.9f}, {-1.3f, -0.2f}};
  struct Mode {
    uint32_t address;
    bool normalized;
  };
  const Mode modes[] = {{smp::STATE_ADDRESS_U_NONE, false},        {smp::STATE_ADDRESS_U_CLAMP_TO_EDGE, false},
                        {smp::STATE_ADDRESS_U_CLAMP_TO_BORDER, false}, {smp::STATE_ADDRESS_U_CLAMP_TO_EDGE, true},
                        {smp::STATE_ADDRESS_U_REPEAT, true},       {smp::STATE_ADDRESS_U_MIRRORED_REPEAT, true}};
  for (const Mode& mode : modes)
    for (bool linear : {false, true}) {
      const uint32_t sampler = sampler_word(mode.normalized, mode.address, linear);
      std::vector<uint32_t> coords;
      for (const auto& xy : coords_xy) {
        const float scale_x = mode.normalized ? 0.25f : 1.0f, scale_y = mode.normalized ? 0.5f : 1.0f;
        coords.insert(coords.end(), {bits(xy[0] * scale_x), bits(xy[1] * scale_y), 0, 0});
      }
      const Run r = run("v_image_sample v[12:15], s[2:3], v[8:11], s8", desc, coords, sampler);
      expect_ok(r);
      for (size_t lane = 0; lane < std::size(coords_xy); ++lane) {
        const float xyz[3] = {std::bit_cast<float>(coords[lane * 4]), std::bit_cast<float>(coords[lane * 4 + 1]), 0};
        const texture::Texel t = direct_sample(desc, sampler, xyz);
        for (int c = 0; c < 4; ++c)
          EXPECT_EQ(r.out[lane * 4 + c], t.v[c]) << "mode " << mode.address << " linear " << linear << " lane " << lane;
      }
      if (mode.address == smp::STATE_ADDRESS_U_CLAMP_TO_EDGE && !mode.normalized) {
        // Hand-computed: texel centres at i + 0.5.
        EXPECT_EQ(std::bit_cast<float>(r.out[0]), 1.0f);                      // (0.5, 0.5)
        EXPECT_EQ(std::bit_cast<float>(r.out[4]), linear ? 1.5f : 2.0f);     // (1.0, 0.5): halfway between 1 and 2
        // (2.0, 1.0): linear weighs (1,0) (2,0) (1,1) (2,1) = 2, 4, 32, 64 by 1/4 each.
        EXPECT_EQ(std::bit_cast<float>(r.out[5 * 4]), linear ? 25.5f : 64.0f);
        EXPECT_EQ(r.out[3], bits(1.0f));  // R: alpha reads 1
      }
    }
}

// A 2x2x2 float (R) 3D image, texel (x, y, z) = x + 10y + 100z: load, nearest and trilinear sample.
TEST_P(ImageInstructions, ThreeDimensionalImage) {
  DescSpec spec;
  spec.order = d::FORMAT_CHANNEL_ORDER_R;
  spec.image_type = d::FORMAT_TYPE_IMAGE_3D;
  spec.width = spec.height = spec.depth = 2;
  spec.row_pitch = 8;
  spec.slice_pitch = 16;
  std::vector<uint32_t> texels;
  for (int z = 0; z < 2; ++z)
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 2; ++x) texels.push_back(bits(static_cast<float>(x + 10 * y + 100 * z)));
  const uint64_t desc = place_image(spec, texels);
  Run r = run("v_image_load v[12:15], s[2:3], v[8:11]", desc, {1, 0, 1, 0, 0, 1, 1, 0, 1, 1, 2, 0});
  expect_ok(r);
  EXPECT_EQ(std::bit_cast<float>(r.out[0]), 101.0f);
  EXPECT_EQ(std::bit_cast<float>(r.out[4]), 110.0f);
  EXPECT_EQ(std::bit_cast<float>(r.out[8]), 0.0f);  // z = 2 is outside: transparent black (R: alpha 1)
  EXPECT_EQ(std::bit_cast<float>(r.out[11]), 1.0f);
  const uint32_t linear = sampler_word(false, smp::STATE_ADDRESS_U_CLAMP_TO_EDGE, true);
  const uint32_t nearest = sampler_word(false, smp::STATE_ADDRESS_U_CLAMP_TO_EDGE, false);
  const std::vector<uint32_t> centre = {bits(1.0f), bits(1.0f), bits(1.0f), 0, bits(1.5f), bits(0.5f), bits(1.5f), 0};
  r = run("v_image_sample v[12:15], s[2:3], v[8:11], s8", desc, centre, linear);
  expect_ok(r);
  EXPECT_EQ(std::bit_cast<float>(r.out[0]), 55.5f);   // the mean of all eight
  EXPECT_EQ(std::bit_cast<float>(r.out[4]), 101.0f);  // a texel centre
  r = run("v_image_sample v[12:15], s[2:3], v[8:11], s8", desc, centre, nearest);
  expect_ok(r);
  EXPECT_EQ(std::bit_cast<float>(r.out[0]), 111.0f);
  EXPECT_EQ(std::bit_cast<float>(r.out[4]), 101.0f);
}

// A 1D array of 3 x 2 layers (uint32, R): the layer is coordinate y; a sampled layer is rounded
// and clamped.
TEST_P(ImageInstructions, OneDimensionalArray) {
  DescSpec spec;
  spec.order = d::FORMAT_CHANNEL_ORDER_R;
  spec.type = d::FORMAT_DATA_TYPE_UNSIGNED_INT32;
  spec.image_type = d::FORMAT_TYPE_IMAGE_1D_ARRAY;
  spec.width = 3;
  spec.layers = 2;
  spec.row_pitch = 16;
  spec.slice_pitch = 16;
  const uint64_t desc = place_image(spec, {0, 1, 2, 0, 1000, 1001, 1002, 0});
  Run r = run("v_image_load v[12:15], s[2:3], v[8:11]", desc, {2, 1, 0, 0, 1, 0, 0, 0, 1, 2, 0, 0});
  expect_ok(r);
  EXPECT_EQ(r.out[0], 1002u);
  EXPECT_EQ(r.out[4], 1u);
  EXPECT_EQ(r.out[8], 0u);  // layer 2 does not exist
  EXPECT_EQ(r.out[11], 1u); // integer R: alpha 1
  r = run("v_image_sample v[12:15], s[2:3], v[8:11], s8", desc,
          {bits(2.5f), bits(0.6f), 0, 0, bits(0.2f), bits(7.0f), 0, 0, bits(1.9f), bits(-3.0f), 0, 0},
          sampler_word(false, smp::STATE_ADDRESS_U_CLAMP_TO_EDGE, false));
  expect_ok(r);
  EXPECT_EQ(r.out[0], 1002u);
  EXPECT_EQ(r.out[4], 1000u);
  EXPECT_EQ(r.out[8], 1u);
}

// Stores convert (float -> unorm8 with round to nearest even and saturation) and out-of-range
// coordinates write nothing.
TEST_P(ImageInstructions, StoreConvertsAndIgnoresOutOfRange) {
  DescSpec spec;
  spec.type = d::FORMAT_DATA_TYPE_UNORM_INT8;
  spec.width = 2;
  spec.height = 2;
  spec.row_pitch = 8;
  spec.base = memory.map(16);
  const uint64_t desc = place_desc(spec);
  const std::vector<uint32_t> coords = {1, 1, 0, 0, 0, 1, 0, 0, 2, 0, 0, 0, 0, static_cast<uint32_t>(-1), 0, 0};
  const std::vector<uint32_t> data = {bits(1.0f),  bits(0.5f),  bits(0.0f), bits(2.0f),    // -> 255 128 0 255
                                      bits(-1.0f), bits(0.25f), bits(0.75f), bits(1.0f),   // -> 0 64 191 255
                                      bits(1.0f),  bits(1.0f),  bits(1.0f), bits(1.0f),    // outside
                                      bits(1.0f),  bits(1.0f),  bits(1.0f), bits(1.0f)};   // outside
  const Run r = run("v_image_store s[2:3], v[8:11], v[16:19]", desc, coords, 0, data);
  expect_ok(r);
  const uint8_t* texels = memory.host(spec.base);
  const uint8_t expected[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 64, 191, 255, 255, 128, 0, 255};
  for (int i = 0; i < 16; ++i) EXPECT_EQ(texels[i], expected[i]) << i;
  // The store leaves its (unused) result registers alone.
  EXPECT_EQ(r.out[0], 0x5a5a5a5au);
}

// A 3D store (cl_khr_3d_image_writes): slices SLICE_PITCH apart, z out of range writes nothing.
TEST_P(ImageInstructions, ThreeDimensionalStore) {
  DescSpec spec;
  spec.order = d::FORMAT_CHANNEL_ORDER_R;
  spec.type = d::FORMAT_DATA_TYPE_UNSIGNED_INT32;
  spec.image_type = d::FORMAT_TYPE_IMAGE_3D;
  spec.width = spec.height = spec.depth = 2;
  spec.row_pitch = 8;
  spec.slice_pitch = 32;  // padded slices
  spec.base = memory.map(64);
  const uint64_t desc = place_desc(spec);
  const std::vector<uint32_t> coords = {1, 0, 1, 0, 0, 1, 0, 0, 1, 1, 2, 0};
  const std::vector<uint32_t> data = {77, 0, 0, 0, 55, 0, 0, 0, 99, 0, 0, 0};
  expect_ok(run("v_image_store s[2:3], v[8:11], v[16:19]", desc, coords, 0, data));
  const std::vector<uint32_t> words = memory.download<uint32_t>(spec.base, 16);
  for (size_t i = 0; i < words.size(); ++i)
    EXPECT_EQ(words[i], i == 9 ? 77u : i == 2 ? 55u : 0u) << i;  // (1,0,1) at 32 + 4; (0,1,0) at 8
}

TEST_P(ImageInstructions, QueryReadsTheDescriptor) {
  DescSpec spec;
  spec.order = d::FORMAT_CHANNEL_ORDER_R;
  spec.image_type = d::FORMAT_TYPE_IMAGE_3D;
  spec.width = 5;
  spec.height = 3;
  spec.depth = 2;
  spec.row_pitch = 20;
  spec.slice_pitch = 60;
  spec.base = memory.map(120);
  const uint64_t desc = place_desc(spec);
  const std::pair<const char*, uint32_t> queries[] = {{"width", 5},
                                                      {"height", 3},
                                                      {"depth", 2},
                                                      {"array_size", 1},
                                                      {"channel_order", d::FORMAT_CHANNEL_ORDER_R},
                                                      {"data_type", d::FORMAT_DATA_TYPE_FLOAT},
                                                      {"mip_levels", 1}};
  for (const auto& [what, value] : queries) {
    const Run r = run(std::string("v_image_query v12, s[2:3], 0, ") + what, desc, {0, 0, 0, 0, 0, 0, 0, 0});
    expect_ok(r);
    EXPECT_EQ(r.out[0], value) << what;
    EXPECT_EQ(r.out[4], value) << what;
    EXPECT_EQ(r.out[1], 0x5a5a5a5au);
  }
}

// Lanes with different descriptor VAs: each reads its own image.
TEST_P(ImageInstructions, PerLaneDescriptors) {
  const uint64_t a = place_image(small_2d(), small_2d_texels());
  std::vector<uint32_t> other = small_2d_texels();
  for (uint32_t& w : other) w ^= 0x80808080u;
  const uint64_t b = place_image(small_2d(), other);
  std::vector<uint32_t> coords;
  std::vector<uint64_t> descs;
  for (uint32_t lane = 0; lane < 6; ++lane) {
    coords.insert(coords.end(), {lane % 3, lane / 3, 0, 0});
    descs.push_back(lane % 2 ? b : a);
  }
  const Run r = run("v_image_load v[12:15], v[20:21], v[8:11]", 0, coords, 0, {}, descs);
  expect_ok(r);
  for (uint32_t lane = 0; lane < 6; ++lane) {
    const uint32_t texel = (lane / 3) * 100 + (lane % 3) * 10;
    EXPECT_EQ(r.out[lane * 4], lane % 2 ? texel ^ 0x80 : texel) << lane;
  }
}

TEST_P(ImageInstructions, RefusedDescriptorFieldIsKind8NamingIt) {
  DescSpec bad = small_2d();
  bad.base = memory.upload(small_2d_texels());
  bad.width = 0;
  const Run r = run("v_image_load v[12:15], s[2:3], v[8:11]", place_desc(bad), {0, 0, 0, 0});
  expect_fault(r, ShaderFaultKind::kBadDescriptor, {"v_image_load", "source 0", "WIDTH"});
}

TEST_P(ImageInstructions, UnalignedDescriptorIsKind8) {
  const uint64_t desc = place_image(small_2d(), small_2d_texels());
  const Run r = run("v_image_sample v[12:15], s[2:3], v[8:11], s8", desc + 4, {0, 0, 0, 0});
  expect_fault(r, ShaderFaultKind::kBadDescriptor, {"v_image_sample", "64-byte aligned"});
}

TEST_P(ImageInstructions, ImplicitLodSampleIsIllegalOutsideFragmentPrograms) {
  const uint64_t desc = place_image(small_2d(), small_2d_texels());
  const Run r = run("v_image_sample_implicit v[12:15], s[2:3], v[8:11], s8", desc, {0, 0, 0, 0});
  expect_fault(r, ShaderFaultKind::kIllegalInstruction, {"v_image_sample_implicit", "fragment-program instruction"});
}

TEST_P(ImageInstructions, LodQueryIsIllegalOutsideFragmentPrograms) {
  const uint64_t desc = place_image(small_2d(), small_2d_texels());
  const Run r = run("v_image_query_lod v[12:15], s[2:3], v[8:11], s8", desc, {0, 0, 0, 0});
  expect_fault(r, ShaderFaultKind::kIllegalInstruction, {"v_image_query_lod", "fragment-program instruction"});
}

TEST_P(ImageInstructions, UnmappedDescriptorIsAMemoryFault) {
  const uint64_t nowhere = 0x7000000000;
  const Run r = run("v_image_query v12, s[2:3], 0, width", nowhere, {0, 0, 0, 0});
  expect_fault(r, ShaderFaultKind::kMemory, {"v_image_query", "IMAGE_DESC is not mapped"});
  EXPECT_EQ(r.result.fault->memory.address, nowhere);
  EXPECT_EQ(r.result.fault->memory.size, 64u);
}

TEST_P(ImageInstructions, TexelsPastTheMappingAreAMemoryFault) {
  DescSpec big = small_2d();
  big.width = 2048;  // 8 KiB per row in a one-page mapping
  big.row_pitch = 8192;
  big.base = memory.map(kPage);
  const Run r = run("v_image_fetch v[12:15], s[2:3], v[8:11], 0", place_desc(big), {0, 0, 0, 0});
  expect_fault(r, ShaderFaultKind::kMemory, {"v_image_fetch", "texels are not mapped"});
  EXPECT_EQ(r.result.fault->memory.address, big.base);
}

TEST_P(ImageInstructions, StoreToAReadOnlyImageIsAMemoryFault) {
  DescSpec spec = small_2d();
  spec.base = memory.upload(small_2d_texels(), /*writable=*/false);
  const uint64_t desc = place_desc(spec);
  const Run r = run("v_image_store s[2:3], v[8:11], v[16:19]", desc, {0, 0, 0, 0}, 0, {9, 9, 9, 9});
  expect_fault(r, ShaderFaultKind::kMemory, {"v_image_store"});
  EXPECT_EQ(r.result.fault->memory.access, Access::kWrite);
  EXPECT_EQ(memory.host(spec.base)[0], 0u);  // unchanged
  // Read through the same descriptor: allowed.
  const Run read = run("v_image_load v[12:15], s[2:3], v[8:11]", desc, {1, 0, 0, 0});
  expect_ok(read);
  EXPECT_EQ(read.out[0], 10u);
}

TEST_P(ImageInstructions, RefusedSamplerIsKind8) {
  const uint64_t desc = place_image(small_2d(), small_2d_texels());
  const Run r = run("v_image_sample v[12:15], s[2:3], v[8:11], s8", desc, {0, 0, 0, 0},
                    put_field(9, smp::STATE_COMPARE_MASK, smp::STATE_COMPARE_SHIFT));
  expect_fault(r, ShaderFaultKind::kBadDescriptor, {"v_image_sample", "sampler (source 2)", "COMPARE"});
}

TEST_P(ImageInstructions, LevelPastTheMipLevelsIsKind8) {
  const uint64_t desc = place_image(small_2d(), small_2d_texels());
  expect_fault(run("v_image_load v[12:15], s[2:3], v[8:11]", desc, {0, 0, 0, 1}), ShaderFaultKind::kBadDescriptor,
               {"v_image_load", "level 1"});
  expect_fault(run("v_image_store s[2:3], v[8:11], v[16:19]", desc, {0, 0, 0, 0, 0, 0, 0, 7}),
               ShaderFaultKind::kBadDescriptor, {"v_image_store", "lane 1 level 7"});
}

// One lane's descriptor refused among good ones: the fault names that lane, nothing is written.
TEST_P(ImageInstructions, OneBadLaneDescriptorFaultsTheInstruction) {
  const uint64_t good = place_image(small_2d(), small_2d_texels());
  DescSpec bad = small_2d();
  bad.base = memory.upload(small_2d_texels());
  bad.row_pitch = 4;  // below WIDTH * 4
  std::vector<uint64_t> descs = {good, good, good, place_desc(bad), good};
  const Run r = run("v_image_load v[12:15], v[20:21], v[8:11]", 0, std::vector<uint32_t>(20, 0), 0, {}, descs);
  expect_fault(r, ShaderFaultKind::kBadDescriptor, {"lane 3", "ROW_PITCH"});
}

// A misaligned quad in a hand-written binary does not decode: kIllegalInstruction at that word.
TEST_P(ImageInstructions, MisalignedQuadInABinaryIsIllegal) {
  std::vector<uint32_t> words;
  std::string error;
  ASSERT_TRUE(isa::assemble(kernel("v_image_load v[12:15], s[2:3], v[8:11]"), &words, &error)) << error;
  const size_t at = image_op_offset(words) / 4;
  uint64_t inst = words[at] | (uint64_t{words[at + 1]} << 32);
  ASSERT_EQ(inst & 0x1ff, static_cast<uint64_t>(isa::Opcode::v_image_load));
  inst = (inst & ~(uint64_t{0x1ff} << 27)) | (uint64_t{9} << 27);  // coordinates v[9:12]
  words[at] = static_cast<uint32_t>(inst);
  words[at + 1] = static_cast<uint32_t>(inst >> 32);
  const uint64_t desc = place_image(small_2d(), small_2d_texels());
  const Run r = run_words(words, 1, desc, {0, 0, 0, 0});
  expect_fault(r, ShaderFaultKind::kIllegalInstruction, {"vector quad"});
}

// Texel offsets (imm19: x in bits 3:0, y 7:4, z 11:8, two's complement; docs/isa.md section 8b):
// added to the texel indices before addressing, for loads, fetches and samples alike. Bits 18:12
// set (a forged binary: 4096 and up, or a negative field) do not decode: kIllegalInstruction.
TEST_P(ImageInstructions, TexelOffsetIsTheImmediateAndOtherBitsAreIllegal) {
  EXPECT_EQ(isa::pack_texel_offset(1, -1, 0), 241);
  EXPECT_EQ(isa::texel_offset_component(241, 1), -1);
  EXPECT_EQ(isa::texel_offset_component(isa::pack_texel_offset(-8, 7, -3), 0), -8);
  const uint64_t small = place_image(small_2d(), small_2d_texels());
  Run r = run("v_image_load v[12:15], s[2:3], v[8:11], 17", small, {0, 0, 0, 0, 2, 1, 0, 0});  // (1, 1)
  expect_ok(r);
  EXPECT_EQ(r.out[0], 110u);  // (0, 0) + (1, 1)
  EXPECT_EQ(r.out[4], 0u);    // (3, 2): outside, transparent black
  DescSpec spec;  // 4 x 2 float R: 1 2 4 8 / 16 32 64 128
  spec.order = d::FORMAT_CHANNEL_ORDER_R;
  spec.width = 4;
  spec.height = 2;
  spec.row_pitch = 16;
  std::vector<uint32_t> texels;
  for (float v : {1.0f, 2.0f, 4.0f, 8.0f, 16.0f, 32.0f, 64.0f, 128.0f}) texels.push_back(bits(v));
  const uint64_t desc = place_image(spec, texels);
  const std::vector<uint32_t> coords = {bits(0.125f), bits(0.75f), 0, 0, bits(0.875f), bits(0.25f), 0, 0};
  r = run("v_image_sample v[12:15], s[2:3], v[8:11], s8, " + std::to_string(isa::pack_texel_offset(1, -1, 0)), desc,
          coords, sampler_word(true, smp::STATE_ADDRESS_U_CLAMP_TO_EDGE, false));
  expect_ok(r);
  EXPECT_EQ(r.out[0], bits(2.0f));  // (0, 1) + (1, -1)
  EXPECT_EQ(r.out[4], bits(8.0f));  // (3, 0) + (1, -1): x clamps to 3, y to 0
  r = run("v_image_sample v[12:15], s[2:3], v[8:11], s8, " + std::to_string(isa::pack_texel_offset(-1, 0, 0)), desc,
          coords, sampler_word(true, smp::STATE_ADDRESS_U_REPEAT, false));
  expect_ok(r);
  EXPECT_EQ(r.out[0], bits(128.0f));  // (0, 1) - 1 wraps to (3, 1)
  std::vector<uint32_t> words;
  std::string error;
  EXPECT_FALSE(isa::assemble(kernel("v_image_sample v[12:15], s[2:3], v[8:11], s8, 4096"), &words, &error));
  EXPECT_FALSE(isa::assemble(kernel("v_image_store s[2:3], v[8:11], v[12:15], 1"), &words, &error));
  for (const uint64_t forged : {uint64_t{1} << 12, uint64_t{0x7ffff}, uint64_t{1} << 18}) {
    ASSERT_TRUE(isa::assemble(kernel("v_image_sample v[12:15], s[2:3], v[8:11], s8"), &words, &error)) << error;
    const size_t at = image_op_offset(words) / 4;
    uint64_t inst = words[at] | (uint64_t{words[at + 1]} << 32);
    inst |= forged << 45;
    words[at] = static_cast<uint32_t>(inst);
    words[at + 1] = static_cast<uint32_t>(inst >> 32);
    const Run bad = run_words(words, 2, desc, coords, sampler_word(true, smp::STATE_ADDRESS_U_REPEAT, false));
    expect_fault(bad, ShaderFaultKind::kIllegalInstruction, {"v_image_sample"});
  }
}

// Hostile coordinates (NaN, infinities, huge and extreme integers, negative LODs and levels of a
// sample) read the border or an edge texel, as the texture unit says, and never fault; a store to
// them writes nothing.
TEST_P(ImageInstructions, HostileCoordinatesNeverLeaveTheImage) {
  DescSpec spec;
  spec.order = d::FORMAT_CHANNEL_ORDER_R;
  spec.width = 4;
  spec.height = 2;
  spec.row_pitch = 16;
  std::vector<uint32_t> texels;
  for (int i = 0; i < 8; ++i) texels.push_back(bits(static_cast<float>(i + 1)));
  spec.base = memory.upload(texels);
  const uint64_t desc = place_desc(spec);
  const float nan = std::nanf(""), inf = INFINITY;
  const float hostile[] = {nan, inf, -inf, 1e30f, -1e30f, 3.4e38f, -0.0f, 1e-45f};
  for (uint32_t address : {smp::STATE_ADDRESS_U_CLAMP_TO_EDGE, smp::STATE_ADDRESS_U_CLAMP_TO_BORDER,
                           smp::STATE_ADDRESS_U_REPEAT, smp::STATE_ADDRESS_U_MIRRORED_REPEAT})
    for (bool linear : {false, true}) {
      const uint32_t sampler = sampler_word(true, address, linear);
      std::vector<uint32_t> coords;
      for (float x : hostile)
        for (float y : {nan, 0.5f, -inf})
          coords.insert(coords.end(), {bits(x), bits(y), bits(x), bits(y)});  // LOD: hostile too
      const Run r = run("v_image_sample v[12:15], s[2:3], v[8:11], s8", desc, coords, sampler);
      expect_ok(r);
      for (size_t lane = 0; lane < coords.size() / 4; ++lane) {
        const float xyz[3] = {std::bit_cast<float>(coords[lane * 4]), std::bit_cast<float>(coords[lane * 4 + 1]), 0};
        EXPECT_EQ(r.out[lane * 4], direct_sample(desc, sampler, xyz).v[0]) << address << " " << linear << " " << lane;
      }
    }
  const uint32_t extremes[] = {0x80000000u, 0x7fffffffu, 0xffffffffu, 4, 2};
  std::vector<uint32_t> coords;
  for (uint32_t x : extremes)
    for (uint32_t y : extremes) coords.insert(coords.end(), {x, y, x, 0});
  coords.resize(32 * 4);  // one warp; the remaining lanes store (0, 0): texel 0 gets 9
  Run r = run("v_image_store s[2:3], v[8:11], v[16:19]", desc, coords, 0, std::vector<uint32_t>(32 * 4, bits(9.0f)));
  expect_ok(r);
  EXPECT_EQ(memory.download<uint32_t>(spec.base, 8)[0], bits(9.0f));
  for (int i = 1; i < 8; ++i) EXPECT_EQ(memory.download<uint32_t>(spec.base, 8)[i], texels[i]) << i;
  r = run("v_image_fetch v[12:15], s[2:3], v[8:11], s8", desc, coords,
          sampler_word(false, smp::STATE_ADDRESS_U_CLAMP_TO_EDGE, false));
  expect_ok(r);
  EXPECT_EQ(r.out[0], bits(9.0f));      // (INT_MIN, INT_MIN) clamps to (0, 0), stored above
  EXPECT_EQ(r.out[4], bits(5.0f));      // (INT_MIN, INT_MAX) clamps to (0, 1)
  EXPECT_EQ(r.out[2 * 4], bits(9.0f));  // (INT_MIN, -1) clamps to (0, 0)
}

INSTANTIATE_TEST_SUITE_P(Simd, ImageInstructions,
                         ::testing::Values(HostSimd::kBaseline, HostSimd::kAvx2, HostSimd::kAvx512),
                         [](const auto& info) { return std::string(host_simd_name(info.param)); });

}  // namespace
}  // namespace gsgpu::testing
