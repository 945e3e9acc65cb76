// The texture unit: gsgpu's hardware block for image reads, writes, sampling and queries, shared by
// the shader cores' compute path (OpenCL images) and the graphics pipeline (texturing).
//
// It reads IMAGE_DESC records (protocol/gsgpu/gsgpu.xml) through GpuMemory, checks every field and
// the image's whole extent against the mapping before touching a texel, and implements OpenCL C
// 1.2 section 8.2 ("Image addressing and filtering") exactly: nearest and linear filtering, every
// addressing mode incl. mirrored repeat, the border colour, with a fixed order of float operations
// so results are deterministic. Mip levels (PACKED layout) and an explicit LOD are there for
// graphics. A refused descriptor or sampler is kBadDescriptor, an access outside the mapping
// kMemory (the GpuMemory records the address); the caller turns either into a shader fault.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "gsgpu/emu/gpu_memory.h"
#include "gsgpu/emu/texture/texel_format.h"

namespace gsgpu::texture {

enum class TextureFault : uint8_t { kNone, kMemory, kBadDescriptor };

struct Extent {
  uint32_t width = 1, height = 1, depth = 1;
};

// A checked IMAGE_DESC.
struct Image {
  uint64_t base_va = 0;
  uint32_t type = 0;          // FORMAT.TYPE
  TexelFormat format;
  Extent size;                // level 0
  uint32_t array_size = 1;
  uint32_t mip_levels = 1;
  // FORMAT.SAMPLES_LOG2: a multisampled 2D (array) image of one level, each texel's samples side by
  // side in its row; only fetch without a sampler reads it, taking the sample index for the level.
  uint32_t samples_log2 = 0;
  uint64_t level_offset[15] = {};  // bytes from base_va
  uint64_t row_pitch[15] = {};
  uint64_t slice_pitch[15] = {};
  uint64_t extent_bytes = 0;  // from base_va to one past the last byte any level may touch
  bool swizzle = false;
  uint8_t swizzle_source[4] = {0, 1, 2, 3};  // SWIZZLE codes

  bool arrayed() const;
  Extent level_size(uint32_t level) const;
  uint32_t slices(uint32_t level) const;  // depth of the level for 3D, layers for arrays, else 1
};

// A checked SAMPLER_STATE word (and, for the descriptor form, its SAMPLER_DESC).
struct Sampler {
  bool normalized = false;
  uint32_t address[3] = {0, 0, 0};  // ADDRESS_U / V / W codes
  bool mag_linear = false;
  bool min_linear = false;
  uint32_t mip_filter = 0;          // 0 none, 1 nearest, 2 linear
  uint32_t border = 0;              // BORDER code
  float min_lod = 0;                // MIN_LOD: every form's LOD is clamped to [min_lod, max_lod]
  float max_lod = 1.0e9f;           // MAX_LOD (0 in the word: no clamp)
  Texel custom_border;              // BORDER CUSTOM: SAMPLER_DESC BORDER_R..A as stored (bits)
  uint32_t compare = 0;             // COMPARE: 0 off, else VkCompareOp + 1 (depth images only)
};

// A texel offset (SPIR-V's ConstOffset; docs/isa.md §8b): added to the integer texel indices of
// the spatial axes at the level read, before addressing. Components past the image's spatial axes
// are ignored; cubes take none.
struct TexelOffset {
  int32_t v[3] = {0, 0, 0};
  bool any() const { return v[0] != 0 || v[1] != 0 || v[2] != 0; }
};

// What an image instruction is about to do with the image: which access the extent check uses.
enum class ImageUse : uint8_t { kQuery, kRead, kWrite };

enum class ImageQuery : uint8_t { kWidth, kHeight, kDepth, kArraySize, kChannelOrder, kDataType, kMipLevels };

bool decode_image(std::span<const uint32_t> words, Image* out, std::string* why);
// The packed word alone: BORDER CUSTOM is refused (its colour lives in a SAMPLER_DESC).
bool decode_sampler(uint32_t word, Sampler* out, std::string* why);
// A SAMPLER_DESC (8 words): its STATE word, where BORDER CUSTOM takes BORDER_R..A as the colour.
bool decode_sampler_desc(std::span<const uint32_t> words, Sampler* out, std::string* why);

class TextureUnit {
 public:
  explicit TextureUnit(GpuMemory& memory) : memory_(memory) {}

  // Reads and checks the descriptor at `desc_va`; for kRead / kWrite also that its whole extent
  // is mapped for that access.
  bool load_image(uint64_t desc_va, ImageUse use, Image* out);

  // The sampler of a texture record (docs/compiler.md "Textures"): the SAMPLER_DESC 64 bytes after
  // the IMAGE_DESC at `image_desc_va`, whose STATE must equal the instruction's sampler `word`
  // (a sampler from another record is a bad descriptor, not a silently wrong colour).
  bool load_record_sampler(uint64_t image_desc_va, uint32_t word, Sampler* out);

  // Texel at integer coordinates (x, y, z; the layer is y for 1D arrays, z for 2D arrays) of
  // `level`, no filtering. With a sampler its addressing applies (CLAMP_TO_EDGE clamps, the others
  // read the border colour out of range); without one an out-of-range texel reads as the border.
  // `offset` is added to (x, y, z) first (a cube, addressed as a 2D array here, takes it too).
  // A multisampled image (samples_log2 > 0) takes no sampler and no offset; `level` is the sample index.
  bool fetch(const Image& image, const int32_t coord[3], uint32_t level, const Sampler* sampler, Texel* out,
             const TexelOffset& offset = {});
  // Writes one texel; out-of-range coordinates write nothing (OpenCL leaves them undefined).
  bool store(const Image& image, const int32_t coord[3], uint32_t level, const Texel& value);
  // Float coordinates through `sampler` at `lod` (explicit, or from implicit_lod), clamped to the
  // sampler's MIN_LOD / MAX_LOD; lod <= 0 magnifies, above minifies (Vulkan's filter choice).
  // A depth image through a COMPARE sampler returns (result, 0, 0, 1): each texel's depth compared
  // with the reference in coord[2] (clamped to [0, 1] for UNORM depth) as 1 or 0, then filtered.
  // A non-zero `offset` on a cube is kBadDescriptor (Vulkan has no offsets for cubes).
  bool sample(const Image& image, const Sampler& sampler, const float coord[3], float lod, Texel* out,
              const TexelOffset& offset = {});
  // Vulkan's implicit LOD without the bias: log2 of the scale factor rho = max(|d/dx|, |d/dy|), the
  // coordinates' screen-space derivatives scaled to texels of level 0 (normalised samplers) and
  // measured with the Euclidean length over the image's spatial axes.
  static float implicit_lod(const Image& image, const Sampler& sampler, const float ddx[3], const float ddy[3]);
  static uint32_t query(const Image& image, ImageQuery what, uint32_t level = 0);
  // OpImageQueryLod for the LOD `lod` (implicit_lod plus the bias): `level` is the level sample()
  // would read, relative to the view's first level — lod clamped to [MIN_LOD, MAX_LOD] (a NaN read
  // as 0) and to [0, levels - 1]; rounded to the level MIP_FILTER NEAREST picks; 0 for MIP_FILTER
  // NONE or an image of one level — and `lod` is the LOD before any clamp (Vulkan's lambda).
  struct LodQuery {
    float level = 0, lod = 0;
  };
  static LodQuery query_lod(const Image& image, const Sampler& sampler, float lod);

  TextureFault fault() const { return fault_; }
  const std::string& fault_reason() const { return reason_; }
  // For kMemory: the access that no mapping held (the descriptor, the extent, or one texel).
  const MemoryFault& memory_fault() const { return memory_fault_; }

 private:
  static float sampler_clamped_lod(const Sampler& sampler, float lod);
  static uint32_t nearest_level(float clamped_lod, uint32_t last);
  bool fail(TextureFault kind, std::string reason);
  bool fail_memory(MemoryFault where, std::string reason);
  // The texel through the view's SWIZZLE, or with `raw` as stored (depth compare swizzles its result).
  bool fetch_sample(const Image& image, const int32_t coord[3], uint32_t sample, Texel* out);
  bool read_texel(const Image& image, uint32_t level, int64_t x, int64_t y, int64_t slice, Texel* out,
                  bool raw = false);
  bool sample_level(const Image& image, const Sampler& sampler, bool linear, const float coord[3], uint32_t level,
                    const TexelOffset& offset, Texel* out);
  bool sample_cube_level(const Image& image, const Sampler& sampler, bool linear, const float coord[3], uint32_t level,
                         Texel* out);
  bool check_compare(const Image& image, const Sampler& sampler, const float coord[3], float* reference);
  Texel border_colour(const Image& image, const Sampler& sampler) const;
  Texel swizzled(const Image& image, const Texel& t) const;

  GpuMemory& memory_;
  TextureFault fault_ = TextureFault::kNone;
  std::string reason_;
  MemoryFault memory_fault_;
};

}  // namespace gsgpu::texture
