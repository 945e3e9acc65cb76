// The resource-binding model of gsgpu/vk (docs/vulkan-driver.md "Resource binding"), apart from the
// Vulkan entry points so that it can be tested directly: descriptor set layouts, pipeline layouts,
// the descriptors a set holds, pool accounting, and the bytes a draw will hand its shaders.
//
// The GPU-visible form is the draw's constant buffer (SHADER_STATE CONSTANTS_VA / _SIZE), whose
// layout the compiler fixes (docs/compiler.md "Graphics shaders", "Constant buffer"):
//   bytes 0 .. 127                    push constants (vkCmdPushConstants)
//   bytes 128 + 8 * (16 * set + b)    the 64-bit GPU VA of the buffer bound at (set, binding b),
//                                     sets 0-3, bindings 0-15, array element 0
//   bytes 640 .. 643                  the view index (VK_KHR_multiview; 0 outside multiview)
// A descriptor set keeps its 16 table entries ready (VA of the buffer + the descriptor's offset);
// binding it copies them into its set's 128 bytes, adding the dynamic offsets. An image, sampler or
// combined binding's entry is the VA of a texture record (TextureRecord below) that the draw writes
// into GPU memory beside its constant buffer.
#pragma once

#include <vulkan/vulkan_core.h>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace gsgpu::vk {

// The constant buffer's shape (the compiler's ABI) and the limits that follow from it.
inline constexpr uint32_t kMaxBoundSets = 4;          // maxBoundDescriptorSets
inline constexpr uint32_t kTableBindings = 16;        // bindings 0-15 of each set have a table entry
// An array of textures reaches shaders with at most this many elements (compiler::kMaxTextureArrayElements).
inline constexpr uint32_t kMaxTextureElements = 32;
// Per table slot (16 * set + binding): how many texture records a draw writes there, one after
// another (0 or 1: element 0 only; more where a shader of the pipeline reads an array).
using TextureElements = std::array<uint32_t, kMaxBoundSets * kTableBindings>;
inline constexpr uint32_t kPushConstantBytes = 128;   // maxPushConstantsSize
inline constexpr uint32_t kTableOffset = kPushConstantBytes;
inline constexpr uint32_t kSetTableBytes = 8 * kTableBindings;
// After the table: the view index of a multiview subpass's draw (SPIR-V ViewIndex), then padding.
inline constexpr uint32_t kViewIndexOffset = kTableOffset + kMaxBoundSets * kSetTableBytes;  // 640
inline constexpr uint32_t kConstantBufferBytes = kViewIndexOffset + 16;                     // 656
constexpr uint32_t table_entry_offset(uint32_t set, uint32_t binding) {
  return kTableOffset + 8 * (kTableBindings * set + binding);
}

// Buffer descriptor rules, reported in VkPhysicalDeviceLimits (physical_device.cc).
inline constexpr uint64_t kBufferOffsetAlignment = 256;      // min{Uniform,Storage}BufferOffsetAlignment
inline constexpr uint64_t kMaxUniformBufferRange = 65536;    // maxUniformBufferRange
inline constexpr uint64_t kMaxStorageBufferRange = 1u << 27;  // maxStorageBufferRange
// Buffer views (buffer_view.cc): minTexelBufferOffsetAlignment and maxTexelBufferElements (the
// spec's minimum).
inline constexpr uint64_t kMinTexelBufferOffsetAlignment = 256;
inline constexpr uint64_t kMaxTexelBufferElements = 65536;
// A bound on what one layout (and so one set) may hold: the driver keeps a record per descriptor.
inline constexpr uint64_t kMaxDescriptorsPerLayout = 65536;
// VK_DESCRIPTOR_TYPE_SAMPLER (0) .. VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT (10): the 1.0 types.
inline constexpr uint32_t kDescriptorTypes = 11;

// A texture record (docs/compiler.md "Textures"): what the table entry of a sampled-image, sampler
// or combined binding points to. The view's 16 IMAGE_DESC words, then the sampler's 8 SAMPLER_DESC
// words (the compiler reads the SAMPLER_STATE word and LOD_BIAS); 64-byte aligned, as IMAGE_DESC
// must be, so kTextureRecordBytes apart.
using TextureRecord = std::array<uint32_t, 24>;
inline constexpr uint32_t kTextureRecordBytes = 128;
inline constexpr uint32_t kTextureSamplerWord = 16;  // where SAMPLER_DESC starts
// maxSamplerLodBias: the sampler's mipLodBias is clamped to it when the record is made.
inline constexpr float kMaxSamplerLodBias = 15.0f;

bool is_buffer_type(VkDescriptorType type);
bool is_texture_type(VkDescriptorType type);  // SAMPLER, COMBINED_IMAGE_SAMPLER, SAMPLED_IMAGE
bool is_dynamic_type(VkDescriptorType type);

struct LayoutBinding {
  uint32_t binding = 0;
  VkDescriptorType type = VK_DESCRIPTOR_TYPE_SAMPLER;
  uint32_t count = 0;
  VkShaderStageFlags stages = 0;
  std::vector<uint64_t> immutable_samplers;  // VkSampler handles
  std::vector<std::array<uint32_t, 8>> immutable_sampler_descs;  // their SAMPLER_DESC words, when resolved
  uint32_t first_descriptor = 0;             // index of its element 0 in DescriptorSetData::descriptors
  uint32_t first_dynamic = 0;                // index of its element 0 among the set's dynamic offsets
  // The set's table entry (0-15) shaders reach it through: its binding number when below 16, else
  // the next entry no binding below 16 of the layout uses, in binding order (zink numbers its
  // bindings from 128 per stage); kNoTableSlot past the 16 entries. The driver rewrites the Binding
  // decorations of the SPIR-V it compiles to these slots (pipeline_stages.cc).
  uint32_t slot = 0;
};
inline constexpr uint32_t kNoTableSlot = UINT32_MAX;

struct SetLayout {
  std::vector<LayoutBinding> bindings;  // sorted by binding number, numbers unique
  uint32_t descriptor_count = 0;
  uint32_t dynamic_count = 0;
  std::array<uint64_t, kDescriptorTypes> per_type{};  // descriptors of each type (pool accounting)
  const LayoutBinding* find(uint32_t binding) const;
  bool same_as(const SetLayout& other) const;  // "identically defined" (compatible)
};

// A VkSampler's SAMPLER_DESC words (objects.h Sampler::desc), or nullopt when the handle is not a sampler.
using SamplerResolver = std::function<std::optional<std::array<uint32_t, 8>>(VkSampler)>;

// False with *error for what Vulkan calls invalid usage (a flag, a type, a repeated binding, …).
// With `samplers`, immutable samplers' words are captured (a handle it does not know is refused).
bool build_set_layout(const VkDescriptorSetLayoutCreateInfo& info, SetLayout* out, std::string* error,
                      const SamplerResolver& samplers = {});

struct PipelineLayout {
  std::vector<std::shared_ptr<const SetLayout>> sets;
  std::vector<VkPushConstantRange> push_ranges;
};

// Checks the push-constant ranges and the set count; `sets` are the resolved set layouts.
bool build_pipeline_layout(std::vector<std::shared_ptr<const SetLayout>> sets,
                           std::span<const VkPushConstantRange> ranges, PipelineLayout* out, std::string* error);

// One descriptor's record. Buffers are captured at update time (VA, size), as a GPU descriptor
// would be: the set holds no pointer to the buffer object. So are sampled views and samplers when
// the driver resolves them (the IMAGE_DESC and SAMPLER_DESC words the texture unit reads); the
// application's handles are kept beside them.
struct Descriptor {
  bool written = false;
  uint64_t buffer_va = 0;    // the buffer's GPU VA (its start)
  uint64_t buffer_size = 0;
  uint64_t offset = 0;
  uint64_t range = 0;        // VK_WHOLE_SIZE resolved
  uint64_t sampler = 0;      // VkSampler (an immutable one when the layout has it)
  uint64_t image_view = 0;   // VkImageView
  VkImageLayout image_layout = VK_IMAGE_LAYOUT_UNDEFINED;
  uint64_t texel_buffer_view = 0;  // VkBufferView
  bool has_image_desc = false;
  std::array<uint32_t, 16> image_desc{};   // the view's IMAGE_DESC (sampled and combined descriptors)
  bool has_sampler_desc = false;
  std::array<uint32_t, 8> sampler_desc{};  // the sampler's SAMPLER_DESC
  bool operator==(const Descriptor&) const = default;
};

struct DescriptorSetData {
  std::shared_ptr<const SetLayout> layout;
  std::vector<Descriptor> descriptors;              // the layout's bindings, flattened
  std::array<uint64_t, kTableBindings> table{};     // VA + offset of each binding's element 0 (0: none)
};

void init_set(std::shared_ptr<const SetLayout> layout, DescriptorSetData* set);

// What the updater knows about a VkBuffer when a descriptor is written: nullopt if the handle is
// not a buffer; bound = false when the buffer has no memory.
struct BufferFacts {
  bool bound = false;
  uint64_t va = 0;
  uint64_t size = 0;
};
using BufferResolver = std::function<std::optional<BufferFacts>(VkBuffer)>;

// What the updater knows about a VkImageView: its image's usage and its IMAGE_DESC words (absent
// when the texture unit cannot describe the view). nullopt: not an image view.
struct ImageViewFacts {
  VkImageUsageFlags usage = 0;
  std::optional<std::array<uint32_t, 16>> image_desc;
};
using ImageViewResolver = std::function<std::optional<ImageViewFacts>(VkImageView)>;

// The handle resolvers of an update. Views and samplers without a resolver stay opaque handles.
struct HandleResolver {
  HandleResolver(BufferResolver b, ImageViewResolver v = {}, SamplerResolver s = {})
      : buffers(std::move(b)), image_views(std::move(v)), samplers(std::move(s)) {}
  BufferResolver buffers;
  ImageViewResolver image_views;
  SamplerResolver samplers;
};

// vkUpdateDescriptorSets, one write or one copy: validated whole, then applied (nothing changes
// when it is refused). `dst` is the write's set, resolved by the caller.
bool apply_write(const VkWriteDescriptorSet& write, const HandleResolver& handles, DescriptorSetData* dst,
                 std::string* error);
bool apply_copy(const VkCopyDescriptorSet& copy, const DescriptorSetData& src, DescriptorSetData* dst,
                std::string* error);

// vkUpdateDescriptorSetWithTemplate, one entry: its descriptorCount records read from `data` at
// offset + i * stride (as VkDescriptorBufferInfo, VkDescriptorImageInfo or VkBufferView by type),
// then applied as one write. `data` is the application's; the caller has checked nothing in it.
bool apply_template_entry(const VkDescriptorUpdateTemplateEntry& entry, const void* data,
                          const HandleResolver& handles, DescriptorSetData* dst, std::string* error);

// Descriptor pool accounting: sets and descriptors of each type, as VkDescriptorPoolCreateInfo
// declared them.
struct PoolAccounting {
  uint64_t max_sets = 0;
  uint64_t sets = 0;
  std::array<uint64_t, kDescriptorTypes> capacity{};
  std::array<uint64_t, kDescriptorTypes> used{};
  bool build(const VkDescriptorPoolCreateInfo& info, std::string* error);
  bool take(const SetLayout& layout);  // false (nothing taken) when the pool has no room
  void give_back(const SetLayout& layout);
  void reset();
};

// The command buffer's binding state, per bind point: what the next draw's (or dispatch's)
// constant buffer holds.
struct BoundSets {
  std::array<std::array<uint64_t, kTableBindings>, kMaxBoundSets> tables{};
  // Each texture binding's records (its first kMaxTextureElements elements), captured when the set
  // is bound (as the buffers' VAs are); empty: not a texture binding.
  std::array<std::array<std::vector<TextureRecord>, kTableBindings>, kMaxBoundSets> textures{};
  std::array<std::shared_ptr<const SetLayout>, kMaxBoundSets> layouts;  // what each set was bound with
};
struct BindingState {
  std::array<uint8_t, kPushConstantBytes> push_constants{};
  std::array<BoundSets, 2> bind_points;  // VK_PIPELINE_BIND_POINT_GRAPHICS (0), _COMPUTE (1)
  // The constant buffer's bytes (little-endian VAs) for a draw (GRAPHICS) or a dispatch (COMPUTE).
  std::array<uint8_t, kConstantBufferBytes> constant_buffer(VkPipelineBindPoint point) const;
  // The texture records a draw (or dispatch) must place in GPU memory, with the table slot
  // (16 * set + binding) whose entry is the VA of the first of each slot's run: `elements[slot]`
  // records per slot (at least 1; an element the set does not have is a zero record, which the
  // texture unit refuses).
  std::vector<std::pair<uint32_t, TextureRecord>> texture_records(VkPipelineBindPoint point,
                                                                  const TextureElements& elements) const;
};

// The record of a texture binding's descriptor: its IMAGE_DESC and SAMPLER_DESC words as captured,
// zeros where it has none (an unwritten descriptor's zero IMAGE_DESC is a bad descriptor to the
// texture unit: the draw faults), the LOD bias clamped to kMaxSamplerLodBias.
TextureRecord texture_record(const Descriptor& d);

// vkCmdBindDescriptorSets: validated whole (set range, layouts, dynamic-offset count, alignment
// and range), then applied; refused, the state is unchanged.
bool bind_descriptor_sets(const PipelineLayout& layout, VkPipelineBindPoint point, uint32_t first_set,
                          std::span<const DescriptorSetData* const> sets, std::span<const uint32_t> dynamic_offsets,
                          BindingState* state, std::string* error);

// For the draw (or dispatch) a later piece records: whether every set in `used_sets` (bit n: set n,
// the sets its shaders read) is bound at `point` with a set layout identical to `layout`'s set n,
// Vulkan's condition for a draw to read it ("compatible for set n"; push-constant ranges are not
// compared here). False with *error naming the first set that is not.
bool sets_ready_for_draw(const BindingState& state, VkPipelineBindPoint point, const PipelineLayout& layout,
                         uint32_t used_sets, std::string* error);

// vkCmdPushConstants: checked against the layout's ranges, then written.
bool push_constants(const PipelineLayout& layout, VkShaderStageFlags stages, uint32_t offset, uint32_t size,
                    const void* data, BindingState* state, std::string* error);

}  // namespace gsgpu::vk
