// The binding model (gsgpu/vk/binding_model.h) without the loader: the bytes of the constant buffer
// a draw will hand its shaders (docs/compiler.md "Constant buffer": push constants at 0-127, the VA
// of (set, binding) at 128 + 8 * (16 * set + binding)), dynamic offsets, push-constant ranges,
// rollover of updates into the next bindings, the texture records of image and sampler bindings,
// and pool accounting.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>

#include "gsgpu/vk/binding_model.h"

namespace gsgpu::vk {
namespace {

VkDescriptorSetLayoutBinding binding(uint32_t number, VkDescriptorType type, uint32_t count = 1) {
  return {number, type, count, VK_SHADER_STAGE_ALL_GRAPHICS, nullptr};
}

std::shared_ptr<const SetLayout> make_layout(std::vector<VkDescriptorSetLayoutBinding> bindings) {
  VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  info.bindingCount = static_cast<uint32_t>(bindings.size());
  info.pBindings = bindings.data();
  auto layout = std::make_shared<SetLayout>();
  std::string error;
  EXPECT_TRUE(build_set_layout(info, layout.get(), &error)) << error;
  return layout;
}

uint64_t read_u64(const std::array<uint8_t, kConstantBufferBytes>& bytes, uint32_t offset) {
  uint64_t v = 0;
  for (int k = 7; k >= 0; --k) v = (v << 8) | bytes[offset + k];  // little-endian, as the shader's s_load_b64
  return v;
}

class BindingModel : public ::testing::Test {
 protected:
  // Fake buffers: handle value -> facts.
  std::map<uint64_t, BufferFacts> buffers_ = {
      {1, {true, 0x10000, 4096}},   // bound, 4 KiB at VA 0x10000
      {2, {true, 0x200000, 1024}},  // bound, 1 KiB
      {3, {false, 0, 4096}},        // not bound to memory
  };
  BufferResolver resolver_ = [this](VkBuffer handle) -> std::optional<BufferFacts> {
    auto it = buffers_.find(reinterpret_cast<uint64_t>(handle));
    if (it == buffers_.end()) return std::nullopt;
    return it->second;
  };

  bool write_buffer(DescriptorSetData* set, uint32_t binding, uint32_t element, VkDescriptorType type,
                    uint64_t buffer, uint64_t offset, uint64_t range, std::string* error) {
    VkDescriptorBufferInfo info{reinterpret_cast<VkBuffer>(buffer), offset, range};
    VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    write.dstBinding = binding;
    write.dstArrayElement = element;
    write.descriptorCount = 1;
    write.descriptorType = type;
    write.pBufferInfo = &info;
    return apply_write(write, resolver_, set, error);
  }
};

TEST(BindingModelAbi, ConstantBufferShapeIsTheCompilersAbi) {
  EXPECT_EQ(kViewIndexOffset, 640u);  // after the table: the multiview view index
  EXPECT_EQ(kConstantBufferBytes, 656u);
  EXPECT_EQ(table_entry_offset(0, 0), 128u);
  EXPECT_EQ(table_entry_offset(0, 15), 128u + 120u);
  EXPECT_EQ(table_entry_offset(1, 0), 256u);
  EXPECT_EQ(table_entry_offset(3, 15), 632u);
}

// Two sets bound at 1 and 2, a uniform buffer at (1, 0), a dynamic one at (1, 15) and a storage
// buffer at (2, 3); push constants at 16..23. Every other byte of the constant buffer is 0.
TEST_F(BindingModel, BoundSetsAndPushConstantsLandWhereTheCompilerReadsThem) {
  auto first = make_layout({binding(0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER),
                            binding(15, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC),
                            binding(20, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER)});  // slot 1: the first free entry
  auto second = make_layout({binding(3, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER)});
  DescriptorSetData a, b;
  init_set(first, &a);
  init_set(second, &b);
  std::string error;
  ASSERT_TRUE(write_buffer(&a, 0, 0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1, 256, 64, &error)) << error;
  ASSERT_TRUE(write_buffer(&a, 15, 0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, 1, 0, 256, &error)) << error;
  ASSERT_TRUE(write_buffer(&a, 20, 0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 2, 0, VK_WHOLE_SIZE, &error)) << error;
  ASSERT_TRUE(write_buffer(&b, 3, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2, 512, VK_WHOLE_SIZE, &error)) << error;
  EXPECT_EQ(a.table[0], 0x10000u + 256);
  EXPECT_EQ(a.table[15], 0x10000u);
  EXPECT_EQ(a.descriptors[2].range, 1024u);  // VK_WHOLE_SIZE resolved

  PipelineLayout layout;
  const VkPushConstantRange range{VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 16, 8};
  ASSERT_TRUE(build_pipeline_layout({first, first, second}, {&range, 1}, &layout, &error)) << error;
  BindingState state;
  const DescriptorSetData* sets[] = {&a, &b};
  const uint32_t dynamic[] = {512};
  ASSERT_TRUE(bind_descriptor_sets(layout, VK_PIPELINE_BIND_POINT_GRAPHICS, 1, sets, dynamic, &state, &error))
      << error;
  const uint32_t words[2] = {0x3f800000, 0xdeadbeef};
  ASSERT_TRUE(push_constants(layout, range.stageFlags, 16, 8, words, &state, &error)) << error;

  const auto bytes = state.constant_buffer(VK_PIPELINE_BIND_POINT_GRAPHICS);
  std::array<uint8_t, kConstantBufferBytes> expected{};
  std::memcpy(&expected[16], words, 8);
  auto put = [&](uint32_t set, uint32_t b, uint64_t va) { std::memcpy(&expected[table_entry_offset(set, b)], &va, 8); };
  put(1, 0, 0x10000 + 256);
  put(1, 15, 0x10000 + 512);  // the dynamic offset added
  put(1, 1, 0x200000);        // binding 20 in slot 1
  put(2, 3, 0x200000 + 512);
  EXPECT_EQ(bytes, expected);
  EXPECT_EQ(read_u64(bytes, 128 + 8 * 16), 0x10100u);
  // The compute bind point has its own sets; push constants are shared.
  const auto compute = state.constant_buffer(VK_PIPELINE_BIND_POINT_COMPUTE);
  EXPECT_EQ(read_u64(compute, table_entry_offset(1, 0)), 0u);
  EXPECT_EQ(std::memcmp(compute.data(), bytes.data(), kPushConstantBytes), 0);
}

TEST_F(BindingModel, DynamicOffsetsAreCheckedBeforeAnythingIsBound) {
  auto layout_set = make_layout({binding(0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC),
                                 binding(1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC)});
  DescriptorSetData set;
  init_set(layout_set, &set);
  std::string error;
  ASSERT_TRUE(write_buffer(&set, 0, 0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, 1, 256, 256, &error)) << error;
  ASSERT_TRUE(write_buffer(&set, 1, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC, 1, 0, VK_WHOLE_SIZE, &error));
  PipelineLayout layout;
  ASSERT_TRUE(build_pipeline_layout({layout_set}, {}, &layout, &error));
  BindingState state;
  const DescriptorSetData* sets[] = {&set};
  struct Case {
    std::vector<uint32_t> offsets;
    const char* message;
  };
  const Case cases[] = {
      {{256}, "1 dynamic offsets for 2"},
      {{256, 0, 0}, "3 dynamic offsets for 2"},
      {{100, 0}, "not a multiple of 256"},
      {{3840, 0}, "passes the end"},        // 256 + 3840 + 256 > 4096
      {{0xffffff00u, 0}, "passes the end"}, // would wrap a 32-bit sum
      {{0, 256}, "passes the end"},         // the whole-size storage descriptor has no room to move
  };
  for (const Case& c : cases) {
    error.clear();
    EXPECT_FALSE(bind_descriptor_sets(layout, VK_PIPELINE_BIND_POINT_GRAPHICS, 0, sets, c.offsets, &state, &error));
    EXPECT_NE(error.find(c.message), std::string::npos) << error;
  }
  EXPECT_EQ(state.bind_points[0].tables[0][0], 0u);  // nothing bound by a refused call
  const uint32_t good[] = {3584, 0};                 // 256 + 3584 + 256 = 4096: the last that fits
  ASSERT_TRUE(bind_descriptor_sets(layout, VK_PIPELINE_BIND_POINT_GRAPHICS, 0, sets, good, &state, &error)) << error;
  EXPECT_EQ(state.bind_points[0].tables[0][0], 0x10000u + 256 + 3584);
  EXPECT_FALSE(bind_descriptor_sets(layout, VK_PIPELINE_BIND_POINT_GRAPHICS, 1, sets, good, &state, &error));
  EXPECT_FALSE(bind_descriptor_sets(layout, VK_PIPELINE_BIND_POINT_GRAPHICS, 0xffffffffu, sets, good, &state, &error));
  EXPECT_FALSE(bind_descriptor_sets(layout, static_cast<VkPipelineBindPoint>(7), 0, sets, good, &state, &error));
  // A set whose layout is not the pipeline layout's is refused.
  auto other = make_layout({binding(0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER)});
  DescriptorSetData foreign;
  init_set(other, &foreign);
  const DescriptorSetData* wrong[] = {&foreign};
  EXPECT_FALSE(bind_descriptor_sets(layout, VK_PIPELINE_BIND_POINT_GRAPHICS, 0, wrong, {}, &state, &error));
  EXPECT_NE(error.find("layout that differs"), std::string::npos) << error;
}

// What a draw will check before it reads the bound sets: each set its shaders use bound, with the
// pipeline layout's set layout.
TEST_F(BindingModel, SetsReadyForDrawNeedEachUsedSetBoundWithTheSameLayout) {
  auto uniform = make_layout({binding(0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER)});
  auto storage = make_layout({binding(0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER)});
  PipelineLayout layout, other;
  std::string error;
  ASSERT_TRUE(build_pipeline_layout({uniform, uniform, storage}, {}, &layout, &error));
  ASSERT_TRUE(build_pipeline_layout({uniform, storage}, {}, &other, &error));
  DescriptorSetData a, b;
  init_set(uniform, &a);
  init_set(uniform, &b);
  BindingState state;
  const DescriptorSetData* sets[] = {&a, &b};
  ASSERT_TRUE(bind_descriptor_sets(layout, VK_PIPELINE_BIND_POINT_GRAPHICS, 0, sets, {}, &state, &error)) << error;
  EXPECT_TRUE(sets_ready_for_draw(state, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0b011, &error)) << error;
  EXPECT_TRUE(sets_ready_for_draw(state, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0, &error)) << error;
  EXPECT_FALSE(sets_ready_for_draw(state, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0b100, &error));
  EXPECT_NE(error.find("set 2 is read but was never bound"), std::string::npos) << error;
  EXPECT_FALSE(sets_ready_for_draw(state, VK_PIPELINE_BIND_POINT_GRAPHICS, other, 0b010, &error));
  EXPECT_NE(error.find("set 1 was bound with a set layout that differs"), std::string::npos) << error;
  EXPECT_FALSE(sets_ready_for_draw(state, VK_PIPELINE_BIND_POINT_GRAPHICS, other, 0b1000, &error));
  EXPECT_FALSE(sets_ready_for_draw(state, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0b001, &error));
  EXPECT_FALSE(sets_ready_for_draw(state, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0x10, &error));
}

TEST_F(BindingModel, PushConstantsFollowTheLayoutsRanges) {
  PipelineLayout layout;
  const VkPushConstantRange ranges[] = {{VK_SHADER_STAGE_VERTEX_BIT, 0, 64},
                                        {VK_SHADER_STAGE_FRAGMENT_BIT, 32, 96}};
  std::string error;
  ASSERT_TRUE(build_pipeline_layout({}, ranges, &layout, &error)) << error;
  BindingState state;
  std::array<uint8_t, 128> data;
  for (int i = 0; i < 128; ++i) data[i] = static_cast<uint8_t>(i + 1);
  EXPECT_TRUE(push_constants(layout, VK_SHADER_STAGE_VERTEX_BIT, 0, 32, data.data(), &state, &error)) << error;
  EXPECT_TRUE(push_constants(layout, VK_SHADER_STAGE_FRAGMENT_BIT, 64, 64, data.data(), &state, &error)) << error;
  // Bytes 32..63 are in both ranges: the call must name both stages.
  EXPECT_FALSE(push_constants(layout, VK_SHADER_STAGE_VERTEX_BIT, 32, 4, data.data(), &state, &error));
  EXPECT_NE(error.find("does not all name"), std::string::npos) << error;
  EXPECT_TRUE(push_constants(layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 32, 4, data.data(),
                             &state, &error)) << error;
  // Byte 64 is outside the vertex range.
  EXPECT_FALSE(push_constants(layout, VK_SHADER_STAGE_VERTEX_BIT, 60, 8, data.data(), &state, &error));
  EXPECT_FALSE(push_constants(layout, VK_SHADER_STAGE_FRAGMENT_BIT, 124, 8, data.data(), &state, &error));
  EXPECT_FALSE(push_constants(layout, VK_SHADER_STAGE_FRAGMENT_BIT, 0xfffffffcu, 8, data.data(), &state, &error));
  EXPECT_FALSE(push_constants(layout, VK_SHADER_STAGE_FRAGMENT_BIT, 66, 4, data.data(), &state, &error));
  EXPECT_FALSE(push_constants(layout, VK_SHADER_STAGE_FRAGMENT_BIT, 64, 0, data.data(), &state, &error));
  EXPECT_FALSE(push_constants(layout, VK_SHADER_STAGE_COMPUTE_BIT, 64, 4, data.data(), &state, &error));
  std::array<uint8_t, 128> expected{};
  std::memcpy(&expected[0], data.data(), 32);
  std::memcpy(&expected[64], data.data(), 64);
  std::memcpy(&expected[32], data.data(), 4);
  EXPECT_EQ(state.push_constants, expected);

  // Layout ranges: past 128 bytes, unaligned, empty, a stage in two ranges.
  const VkPushConstantRange bad[][1] = {{{VK_SHADER_STAGE_VERTEX_BIT, 64, 68}},
                                        {{VK_SHADER_STAGE_VERTEX_BIT, 2, 4}},
                                        {{VK_SHADER_STAGE_VERTEX_BIT, 0, 0}},
                                        {{VK_SHADER_STAGE_VERTEX_BIT, 128, 4}},
                                        {{0, 0, 4}}};
  for (const auto& r : bad) EXPECT_FALSE(build_pipeline_layout({}, r, &layout, &error)) << r[0].offset;
  const VkPushConstantRange twice[] = {{VK_SHADER_STAGE_VERTEX_BIT, 0, 4}, {VK_SHADER_STAGE_ALL, 8, 4}};
  EXPECT_FALSE(build_pipeline_layout({}, twice, &layout, &error));
  EXPECT_FALSE(build_pipeline_layout({nullptr, nullptr, nullptr, nullptr, nullptr}, {}, &layout, &error));
}

TEST_F(BindingModel, WritesRollOverIntoTheNextBindingAndBadWritesChangeNothing) {
  auto layout = make_layout({binding(0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 2),
                             binding(1, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 0),
                             binding(2, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1),
                             binding(3, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1)});
  DescriptorSetData set;
  init_set(layout, &set);
  VkDescriptorBufferInfo infos[3] = {{reinterpret_cast<VkBuffer>(1), 0, 256},
                                     {reinterpret_cast<VkBuffer>(1), 256, 256},
                                     {reinterpret_cast<VkBuffer>(2), 0, 256}};
  VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
  write.dstBinding = 0;
  write.dstArrayElement = 1;
  write.descriptorCount = 2;  // element 1 of binding 0, then (binding 1 empty) element 0 of binding 2
  write.descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
  write.pBufferInfo = infos;
  std::string error;
  ASSERT_TRUE(apply_write(write, resolver_, &set, &error)) << error;
  EXPECT_FALSE(set.descriptors[0].written);
  EXPECT_EQ(set.descriptors[1].buffer_va + set.descriptors[1].offset, 0x10000u);
  EXPECT_EQ(set.table[2], 0x10000u + 256);
  EXPECT_EQ(set.table[0], 0u);  // element 0 of binding 0 not written

  const DescriptorSetData before = set;
  auto refused = [&](VkWriteDescriptorSet w, const char* message) {
    error.clear();
    EXPECT_FALSE(apply_write(w, resolver_, &set, &error)) << message;
    EXPECT_NE(error.find(message), std::string::npos) << error;
    EXPECT_EQ(set.table, before.table);
  };
  VkWriteDescriptorSet w = write;
  w.descriptorCount = 3;  // would run into binding 3, another type
  refused(w, "pass the end of binding 2");
  w = write;
  w.dstBinding = 9;
  refused(w, "binding 9 is not in");
  w = write;
  w.dstArrayElement = 0xffffffffu;
  refused(w, "pass the end");
  w = write;
  w.descriptorCount = 0xffffffffu;
  refused(w, "more than the set's");
  w = write;
  w.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  refused(w, "is not binding 0's type");
  w = write;
  w.pBufferInfo = nullptr;
  refused(w, "pBufferInfo is null");
  const VkDescriptorBufferInfo moved{reinterpret_cast<VkBuffer>(1), 512, 256};  // good, but must not land
  VkDescriptorBufferInfo bad_infos[][2] = {
      {moved, {reinterpret_cast<VkBuffer>(3), 0, 256}},              // not bound
      {moved, {reinterpret_cast<VkBuffer>(99), 0, 256}},             // not a buffer
      {moved, {reinterpret_cast<VkBuffer>(1), 4096, 256}},           // offset at the end
      {moved, {reinterpret_cast<VkBuffer>(1), 3840, 512}},           // range past the end
      {moved, {reinterpret_cast<VkBuffer>(1), 100, 16}},             // unaligned
      {moved, {reinterpret_cast<VkBuffer>(1), 256, 0}},              // empty
      {moved, {reinterpret_cast<VkBuffer>(1), 256, ~uint64_t{0} - 1}},  // wraps
  };
  const char* messages[] = {"not bound", "not a buffer", "not inside", "outside", "not a multiple", "empty",
                            "outside"};
  for (size_t i = 0; i < std::size(bad_infos); ++i) {
    w = write;
    w.pBufferInfo = bad_infos[i];
    refused(w, messages[i]);
    EXPECT_TRUE(set.descriptors == before.descriptors);  // the write's good first descriptor not applied either
  }
}

TEST_F(BindingModel, CopiesMoveRecordsAndTablesAndCheckTypes) {
  auto layout = make_layout({binding(0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER),
                             binding(1, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER),
                             binding(2, VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE)});
  DescriptorSetData src, dst;
  init_set(layout, &src);
  init_set(layout, &dst);
  std::string error;
  ASSERT_TRUE(write_buffer(&src, 0, 0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1, 512, 64, &error)) << error;
  VkCopyDescriptorSet copy{VK_STRUCTURE_TYPE_COPY_DESCRIPTOR_SET};
  copy.srcBinding = 0;
  copy.dstBinding = 1;
  copy.descriptorCount = 1;
  ASSERT_TRUE(apply_copy(copy, src, &dst, &error)) << error;
  EXPECT_EQ(dst.table[1], 0x10000u + 512);
  EXPECT_EQ(dst.table[0], 0u);
  copy.descriptorCount = 2;  // (0, 1) into (1, 2): binding 2 is an image, not a uniform buffer
  EXPECT_FALSE(apply_copy(copy, src, &dst, &error));
  copy.descriptorCount = 1;
  copy.dstBinding = 2;
  EXPECT_FALSE(apply_copy(copy, src, &dst, &error));
  EXPECT_NE(error.find("differ"), std::string::npos) << error;
  // Within one set: binding 0 onto binding 1.
  copy.dstBinding = 1;
  ASSERT_TRUE(apply_copy(copy, src, &src, &error)) << error;
  EXPECT_EQ(src.table[1], src.table[0]);
}

TEST_F(BindingModel, ImageDescriptorsKeepOpaqueHandlesAndImmutableSamplers) {
  const VkSampler immutable[2] = {reinterpret_cast<VkSampler>(0x5a), reinterpret_cast<VkSampler>(0x5b)};
  VkDescriptorSetLayoutBinding b[2] = {binding(0, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 2),
                                       binding(1, VK_DESCRIPTOR_TYPE_SAMPLER)};
  b[0].pImmutableSamplers = immutable;
  auto layout = make_layout({b[0], b[1]});
  DescriptorSetData set;
  init_set(layout, &set);
  EXPECT_EQ(set.descriptors[1].sampler, 0x5bu);  // present from allocation
  const VkDescriptorImageInfo images[2] = {
      {reinterpret_cast<VkSampler>(0x77), reinterpret_cast<VkImageView>(0x100),
       VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL},
      {VK_NULL_HANDLE, reinterpret_cast<VkImageView>(0x101), VK_IMAGE_LAYOUT_GENERAL}};
  VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
  write.descriptorCount = 2;
  write.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
  write.pImageInfo = images;
  std::string error;
  ASSERT_TRUE(apply_write(write, resolver_, &set, &error)) << error;
  EXPECT_EQ(set.descriptors[0].sampler, 0x5au);  // the immutable one, not the write's 0x77
  EXPECT_EQ(set.descriptors[0].image_view, 0x100u);
  EXPECT_EQ(set.descriptors[1].image_layout, VK_IMAGE_LAYOUT_GENERAL);
  EXPECT_EQ(set.table, (std::array<uint64_t, kTableBindings>{}));  // images have no table entry yet
  write.dstBinding = 1;
  write.descriptorCount = 1;
  write.descriptorType = VK_DESCRIPTOR_TYPE_SAMPLER;
  write.pImageInfo = &images[1];  // a null sampler for a mutable sampler binding
  EXPECT_FALSE(apply_write(write, resolver_, &set, &error));
  EXPECT_NE(error.find("sampler is null"), std::string::npos) << error;
}

// Template entries read their records at offset + i * stride of the application's bytes (here
// unaligned, with other fields between them), then apply as one write.
TEST_F(BindingModel, TemplateEntriesReadStridedRecordsAndApplyAsOneWrite) {
  auto layout = make_layout({binding(0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 2),
                             binding(1, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER)});
  DescriptorSetData set;
  init_set(layout, &set);
  std::vector<uint8_t> data(200, 0xee);
  const VkDescriptorBufferInfo first{reinterpret_cast<VkBuffer>(1), 256, 64};
  const VkDescriptorBufferInfo second{reinterpret_cast<VkBuffer>(2), 512, VK_WHOLE_SIZE};
  const VkDescriptorImageInfo image{reinterpret_cast<VkSampler>(0x51), reinterpret_cast<VkImageView>(0x61),
                                    VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
  std::memcpy(&data[5], &first, sizeof first);
  std::memcpy(&data[5 + 40], &second, sizeof second);
  std::memcpy(&data[120], &image, sizeof image);
  const VkDescriptorUpdateTemplateEntry buffers{0, 0, 2, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 5, 40};
  const VkDescriptorUpdateTemplateEntry images{1, 0, 1, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 120, 0};
  std::string error;
  ASSERT_TRUE(apply_template_entry(buffers, data.data(), resolver_, &set, &error)) << error;
  ASSERT_TRUE(apply_template_entry(images, data.data(), resolver_, &set, &error)) << error;
  EXPECT_EQ(set.table[0], 0x10000u + 256);
  EXPECT_EQ(set.descriptors[1].buffer_va + set.descriptors[1].offset, 0x200000u + 512);
  EXPECT_EQ(set.descriptors[1].range, 512u);
  EXPECT_EQ(set.descriptors[2].image_view, 0x61u);
  EXPECT_EQ(set.descriptors[2].sampler, 0x51u);
  const DescriptorSetData before = set;
  VkDescriptorUpdateTemplateEntry wrong = buffers;
  wrong.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  EXPECT_FALSE(apply_template_entry(wrong, data.data(), resolver_, &set, &error));
  wrong = buffers;
  wrong.descriptorCount = 3;  // runs into the image binding
  EXPECT_FALSE(apply_template_entry(wrong, data.data(), resolver_, &set, &error));
  wrong.descriptorCount = 0xffffffffu;
  EXPECT_FALSE(apply_template_entry(wrong, data.data(), resolver_, &set, &error));
  wrong = buffers;
  wrong.descriptorType = static_cast<VkDescriptorType>(1000138000);
  EXPECT_FALSE(apply_template_entry(wrong, data.data(), resolver_, &set, &error));
  EXPECT_FALSE(apply_template_entry(buffers, nullptr, resolver_, &set, &error));
  EXPECT_TRUE(set.descriptors == before.descriptors);
}

// With resolvers (the driver's objects), a write captures the view's IMAGE_DESC and the sampler's
// SAMPLER_DESC words, immutable samplers' words come from the layout, and views without the usage
// or the descriptor a sampled type needs are refused.
TEST_F(BindingModel, ImageDescriptorsCaptureTheWordsTheTextureUnitReads) {
  std::array<uint32_t, 16> desc;
  for (uint32_t i = 0; i < 16; ++i) desc[i] = 0x1000 + i;
  const std::array<uint32_t, 8> linear = {0xa1, 1, 2, 3, 4, 5, 6, 7}, nearest = {0xb2};
  SamplerResolver samplers = [&](VkSampler s) -> std::optional<std::array<uint32_t, 8>> {
    if (s == reinterpret_cast<VkSampler>(0x77)) return linear;
    if (s == reinterpret_cast<VkSampler>(0x78)) return nearest;
    return std::nullopt;
  };
  ImageViewResolver views = [&](VkImageView v) -> std::optional<ImageViewFacts> {
    switch (reinterpret_cast<uint64_t>(v)) {
      case 0x100: return ImageViewFacts{VK_IMAGE_USAGE_SAMPLED_BIT, desc};
      case 0x101: return ImageViewFacts{VK_IMAGE_USAGE_TRANSFER_DST_BIT, desc};
      case 0x102: return ImageViewFacts{VK_IMAGE_USAGE_SAMPLED_BIT, std::nullopt};
      case 0x103: return ImageViewFacts{VK_IMAGE_USAGE_STORAGE_BIT, std::nullopt};
      default: return std::nullopt;
    }
  };
  const HandleResolver handles(resolver_, views, samplers);
  const VkSampler immutable = reinterpret_cast<VkSampler>(0x78);
  VkDescriptorSetLayoutBinding b[3] = {binding(0, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER),
                                       binding(1, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER),
                                       binding(2, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE)};
  b[1].pImmutableSamplers = &immutable;
  VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  info.bindingCount = 3;
  info.pBindings = b;
  auto layout = std::make_shared<SetLayout>();
  std::string error;
  ASSERT_TRUE(build_set_layout(info, layout.get(), &error, samplers)) << error;
  DescriptorSetData set;
  init_set(layout, &set);
  EXPECT_TRUE(set.descriptors[1].has_sampler_desc);
  EXPECT_EQ(set.descriptors[1].sampler_desc, nearest);

  auto write = [&](uint32_t binding_number, VkDescriptorType type, uint64_t sampler, uint64_t view) {
    const VkDescriptorImageInfo image{reinterpret_cast<VkSampler>(sampler), reinterpret_cast<VkImageView>(view),
                                      VK_IMAGE_LAYOUT_GENERAL};
    VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    w.dstBinding = binding_number;
    w.descriptorCount = 1;
    w.descriptorType = type;
    w.pImageInfo = &image;
    error.clear();
    return apply_write(w, handles, &set, &error);
  };
  const VkDescriptorType combined = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
  ASSERT_TRUE(write(0, combined, 0x77, 0x100)) << error;
  EXPECT_TRUE(set.descriptors[0].has_image_desc && set.descriptors[0].has_sampler_desc);
  EXPECT_EQ(set.descriptors[0].image_desc, desc);
  EXPECT_EQ(set.descriptors[0].sampler_desc, linear);
  ASSERT_TRUE(write(1, combined, 0x77, 0x100)) << error;  // the write's sampler is ignored
  EXPECT_EQ(set.descriptors[1].sampler_desc, nearest);
  EXPECT_EQ(set.descriptors[1].sampler, 0x78u);
  ASSERT_TRUE(write(2, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 0, 0x103)) << error;
  EXPECT_FALSE(set.descriptors[2].has_image_desc);
  const DescriptorSetData before = set;
  EXPECT_FALSE(write(0, combined, 0x77, 0x101));
  EXPECT_NE(error.find("lacks usage"), std::string::npos) << error;
  EXPECT_FALSE(write(0, combined, 0x77, 0x102));
  EXPECT_NE(error.find("cannot describe"), std::string::npos) << error;
  EXPECT_FALSE(write(0, combined, 0x77, 0x999));
  EXPECT_NE(error.find("not an image view"), std::string::npos) << error;
  EXPECT_FALSE(write(0, combined, 0x79, 0x100));
  EXPECT_NE(error.find("not a sampler"), std::string::npos) << error;
  EXPECT_FALSE(write(2, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 0, 0x100));
  EXPECT_TRUE(set.descriptors == before.descriptors);
  // A copy onto the immutable binding keeps the layout's sampler and its words.
  VkCopyDescriptorSet copy{VK_STRUCTURE_TYPE_COPY_DESCRIPTOR_SET};
  copy.srcBinding = 0;
  copy.dstBinding = 1;
  copy.descriptorCount = 1;
  ASSERT_TRUE(apply_copy(copy, set, &set, &error)) << error;
  EXPECT_EQ(set.descriptors[1].sampler_desc, nearest);
  EXPECT_EQ(set.descriptors[1].image_desc, desc);
  // An immutable sampler the resolver does not know is refused with the layout.
  const VkSampler unknown = reinterpret_cast<VkSampler>(0x55);
  b[1].pImmutableSamplers = &unknown;
  EXPECT_FALSE(build_set_layout(info, layout.get(), &error, samplers));
  EXPECT_NE(error.find("is not a sampler"), std::string::npos) << error;
}

// Binding a set captures each texture binding's element 0 as a texture record (IMAGE_DESC, then
// SAMPLER_DESC with the LOD bias clamped to maxSamplerLodBias), for the draw to place and point
// the binding's table entry at; other bindings and bindings past 15 have none.
TEST_F(BindingModel, BoundTextureBindingsBecomeTextureRecords) {
  std::array<uint32_t, 16> desc;
  for (uint32_t i = 0; i < 16; ++i) desc[i] = 0x2000 + i;
  const float big_bias = 20.0f, nan_bias = std::nanf("");
  std::array<uint32_t, 8> biased = {0xa1, 0, 0, 0}, nan_sampler = {0xc3, 0, 0, 0};
  std::memcpy(&biased[3], &big_bias, 4);
  std::memcpy(&nan_sampler[3], &nan_bias, 4);
  SamplerResolver samplers = [&](VkSampler s) -> std::optional<std::array<uint32_t, 8>> {
    if (s == reinterpret_cast<VkSampler>(0x77)) return biased;
    if (s == reinterpret_cast<VkSampler>(0x78)) return nan_sampler;
    return std::nullopt;
  };
  ImageViewResolver views = [&](VkImageView) -> std::optional<ImageViewFacts> {
    return ImageViewFacts{VK_IMAGE_USAGE_SAMPLED_BIT, desc};
  };
  const HandleResolver handles(resolver_, views, samplers);
  auto set_layout = make_layout({binding(0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER),
                                 binding(2, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER),
                                 binding(5, VK_DESCRIPTOR_TYPE_SAMPLER), binding(6, VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE),
                                 binding(7, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER),  // never written
                                 binding(17, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER)});
  DescriptorSetData set;
  init_set(set_layout, &set);
  std::string error;
  auto write = [&](uint32_t number, VkDescriptorType type, uint64_t sampler) {
    const VkDescriptorImageInfo image{reinterpret_cast<VkSampler>(sampler), reinterpret_cast<VkImageView>(0x100),
                                      VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
    VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    w.dstBinding = number;
    w.descriptorCount = 1;
    w.descriptorType = type;
    w.pImageInfo = &image;
    return apply_write(w, handles, &set, &error);
  };
  ASSERT_TRUE(write(2, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 0x77)) << error;
  ASSERT_TRUE(write(5, VK_DESCRIPTOR_TYPE_SAMPLER, 0x78)) << error;
  ASSERT_TRUE(write(6, VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, 0)) << error;
  ASSERT_TRUE(write(17, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 0x77)) << error;
  PipelineLayout layout;
  ASSERT_TRUE(build_pipeline_layout({set_layout, set_layout}, {}, &layout, &error)) << error;
  BindingState state;
  const DescriptorSetData* sets[] = {&set};
  ASSERT_TRUE(bind_descriptor_sets(layout, VK_PIPELINE_BIND_POINT_GRAPHICS, 1, sets, {}, &state, &error)) << error;
  const auto all = state.texture_records(VK_PIPELINE_BIND_POINT_GRAPHICS, TextureElements{});
  // Binding 17 takes the table's first free entry, 1 (LayoutBinding::slot), and sorts first.
  ASSERT_EQ(all.size(), 5u);
  EXPECT_EQ(all[0].first, 16u + 1);
  EXPECT_EQ(all[0].second, all[1].second);  // the same view and sampler as binding 2
  const std::vector<std::pair<uint32_t, TextureRecord>> records(all.begin() + 1, all.end());
  EXPECT_EQ(records[0].first, 16u + 2);
  EXPECT_EQ(records[1].first, 16u + 5);
  EXPECT_EQ(records[2].first, 16u + 6);
  EXPECT_EQ(records[3].first, 16u + 7);
  const TextureRecord& combined = records[0].second;
  EXPECT_TRUE(std::equal(desc.begin(), desc.end(), combined.begin()));
  EXPECT_EQ(combined[kTextureSamplerWord], 0xa1u);
  float bias = 0;
  std::memcpy(&bias, &combined[kTextureSamplerWord + 3], 4);
  EXPECT_EQ(bias, kMaxSamplerLodBias);  // 20 clamped
  const TextureRecord& sampler_only = records[1].second;
  EXPECT_EQ(sampler_only[0], 0u);  // no IMAGE_DESC
  EXPECT_EQ(sampler_only[kTextureSamplerWord], 0xc3u);
  EXPECT_EQ(sampler_only[kTextureSamplerWord + 3], 0u);  // NaN bias -> 0
  EXPECT_TRUE(std::equal(desc.begin(), desc.end(), records[2].second.begin()));
  EXPECT_EQ(records[2].second[kTextureSamplerWord], 0u);
  EXPECT_EQ(records[3].second, TextureRecord{});  // unwritten: a zero IMAGE_DESC the texture unit refuses
  EXPECT_TRUE(state.texture_records(VK_PIPELINE_BIND_POINT_COMPUTE, TextureElements{}).empty());
  // A pipeline reading an array of 3 at binding 2 (slot 18): three records there, one after another.
  TextureElements three{};
  three[16 + 2] = 3;
  const auto runs = state.texture_records(VK_PIPELINE_BIND_POINT_GRAPHICS, three);
  ASSERT_EQ(runs.size(), 7u);
  EXPECT_EQ(runs[1].first, 16u + 2);
  EXPECT_EQ(runs[2].first, 16u + 2);
  EXPECT_EQ(runs[3].first, 16u + 2);
  EXPECT_EQ(runs[1].second, all[1].second);
  // The table entries of texture bindings stay 0 until the draw points them at its records.
  const auto bytes = state.constant_buffer(VK_PIPELINE_BIND_POINT_GRAPHICS);
  EXPECT_EQ(read_u64(bytes, table_entry_offset(1, 2)), 0u);
}

// Bindings past 15 (zink numbers them from 128 per stage) take the entries no binding below 16 uses,
// in binding order; past the 16 entries they have none (kNoTableSlot), and a pipeline whose shader
// uses such a binding is refused (pipeline_stages.cc).
TEST(BindingModelLayout, BindingsPast15TakeTheFreeTableEntries) {
  std::vector<VkDescriptorSetLayoutBinding> list = {binding(3, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER),
                                                    binding(129, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER),
                                                    binding(0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER),
                                                    binding(128, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER)};
  auto layout = make_layout(list);
  EXPECT_EQ(layout->find(0)->slot, 0u);
  EXPECT_EQ(layout->find(3)->slot, 3u);
  EXPECT_EQ(layout->find(128)->slot, 1u);
  EXPECT_EQ(layout->find(129)->slot, 2u);
  for (uint32_t b = 200; b < 214; ++b) list.push_back(binding(b, VK_DESCRIPTOR_TYPE_SAMPLER));
  auto full = make_layout(list);
  EXPECT_EQ(full->find(211)->slot, 15u);  // 0 .. 15 all used by now
  EXPECT_EQ(full->find(212)->slot, kNoTableSlot);
  EXPECT_EQ(full->find(213)->slot, kNoTableSlot);
}

TEST(BindingModelLayout, HostileLayoutsAreRefused) {
  SetLayout layout;
  std::string error;
  VkDescriptorSetLayoutBinding twice[2] = {{5, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1, VK_SHADER_STAGE_ALL, nullptr},
                                           {5, VK_DESCRIPTOR_TYPE_SAMPLER, 1, VK_SHADER_STAGE_ALL, nullptr}};
  VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  info.bindingCount = 2;
  info.pBindings = twice;
  EXPECT_FALSE(build_set_layout(info, &layout, &error));
  EXPECT_NE(error.find("appears twice"), std::string::npos) << error;
  twice[1] = {0xffffffffu, static_cast<VkDescriptorType>(1000138000), 1, VK_SHADER_STAGE_ALL, nullptr};  // inline block
  EXPECT_FALSE(build_set_layout(info, &layout, &error));
  EXPECT_NE(error.find("not a Vulkan 1.0 type"), std::string::npos) << error;
  twice[1] = {0xffffffffu, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 0xffffffffu, VK_SHADER_STAGE_ALL, nullptr};
  EXPECT_FALSE(build_set_layout(info, &layout, &error));
  EXPECT_NE(error.find("more than"), std::string::npos) << error;
  twice[1] = {0xffffffffu, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC, 3, VK_SHADER_STAGE_ALL, nullptr};
  ASSERT_TRUE(build_set_layout(info, &layout, &error)) << error;  // binding 2^32-1 is a valid number
  EXPECT_EQ(layout.descriptor_count, 4u);
  EXPECT_EQ(layout.dynamic_count, 3u);
  EXPECT_EQ(layout.bindings.back().first_descriptor, 1u);
  info.flags = 1;  // push descriptors (an extension)
  EXPECT_FALSE(build_set_layout(info, &layout, &error));
}

TEST(BindingModelPool, AccountingRefusesPastItsSizesAndGivesBack) {
  const VkDescriptorPoolSize sizes[] = {{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 3},
                                        {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1},
                                        {VK_DESCRIPTOR_TYPE_SAMPLER, 1}};
  VkDescriptorPoolCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  info.maxSets = 3;
  info.poolSizeCount = 3;
  info.pPoolSizes = sizes;
  PoolAccounting pool;
  std::string error;
  ASSERT_TRUE(pool.build(info, &error)) << error;
  auto two_ubos = make_layout({binding(0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 2)});
  auto one_storage = make_layout({binding(0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER)});
  auto empty = make_layout({});
  EXPECT_TRUE(pool.take(*two_ubos));
  EXPECT_TRUE(pool.take(*two_ubos));   // 4 uniform buffers in all
  EXPECT_FALSE(pool.take(*two_ubos));  // none left
  EXPECT_FALSE(pool.take(*one_storage));
  EXPECT_TRUE(pool.take(*empty));
  EXPECT_FALSE(pool.take(*empty));  // maxSets
  pool.give_back(*two_ubos);
  EXPECT_TRUE(pool.take(*two_ubos));
  pool.reset();
  EXPECT_EQ(pool.sets, 0u);
  EXPECT_TRUE(pool.take(*two_ubos));
  info.maxSets = 0;
  EXPECT_FALSE(pool.build(info, &error));
  info.maxSets = 1;
  const VkDescriptorPoolSize bad = {static_cast<VkDescriptorType>(99), 1};
  info.pPoolSizes = &bad;
  info.poolSizeCount = 1;
  EXPECT_FALSE(pool.build(info, &error));
}

}  // namespace
}  // namespace gsgpu::vk

namespace gsgpu::vk {
namespace {

// Random hostile values against the model: writes, copies, binds and pushes with counts, elements,
// offsets and ranges drawn near the edges and far past them. Every call either is refused with a
// message and changes nothing, or is accepted and leaves every table entry inside its buffer and
// every bound VA inside its buffer's range; none crashes (the test also runs under valgrind).
class BindingModelRandom : public BindingModel {
 protected:
  void SetUp() override {
    layout_ = make_layout({binding(0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 2),
                           binding(1, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, 2),
                           binding(3, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER),
                           binding(15, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC),
                           binding(16, VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, 3)});
    const VkPushConstantRange range{VK_SHADER_STAGE_VERTEX_BIT, 16, 64};
    std::string error;
    ASSERT_TRUE(build_pipeline_layout({layout_, layout_}, {&range, 1}, &pipeline_, &error));
    init_set(layout_, &sets_[0]);
    init_set(layout_, &sets_[1]);
  }

  uint64_t next() {  // xorshift64*: deterministic, no library dependence
    seed_ ^= seed_ >> 12, seed_ ^= seed_ << 25, seed_ ^= seed_ >> 27;
    return seed_ * 2685821657736338717ull;
  }
  uint64_t edge(uint64_t limit) {  // plausible (aligned, inside), near the edges, or anything
    switch (next() % 10) {
      case 0: return next() % 8;
      case 1: return limit - 4 + next() % 8;
      case 2: return next() % 2 ? 0 : limit;
      case 3: return next() % 2 ? next() : ~uint64_t{0} - next() % 4;
      default: return limit >= 1024 ? (next() % (limit / 512)) * 256 : 4 * (next() % (limit / 8 + 1));
    }
  }

  bool random_write(DescriptorSetData* set, std::string* error) {
    static constexpr VkDescriptorType kTypes[] = {
        VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
        VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC, VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE};
    VkDescriptorBufferInfo infos[4];
    VkDescriptorImageInfo images[4] = {};
    for (auto& info : infos) {
      const uint64_t buffer = next() % 8 ? 1 : 1 + next() % 4;
      info = {reinterpret_cast<VkBuffer>(buffer), edge(4096), next() % 3 ? 256 : edge(4096)};
    }
    for (auto& image : images) image.imageView = reinterpret_cast<VkImageView>(next() % 2);
    VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    const uint32_t b = static_cast<uint32_t>(next() % 4 ? next() % 4 : next() % 2 ? 15 + next() % 3 : next());
    w.dstBinding = b;
    w.dstArrayElement = static_cast<uint32_t>(next() % 4 ? 0 : next() % 2 ? 1 : next());
    w.descriptorCount = static_cast<uint32_t>(next() % 4 ? 1 : next() % 2 ? 2 : next());
    if (w.descriptorCount > 4) w.descriptorCount = next() % 2 ? 4 : 100000;  // never reads past infos[3]...
    // Mostly the binding's own type (0: uniform, 1: dynamic, 3: storage), sometimes any.
    w.descriptorType = next() % 4 == 0 ? kTypes[next() % 5] : b == 1 ? kTypes[1] : b == 3 ? kTypes[2] : kTypes[0];
    w.pBufferInfo = infos;
    w.pImageInfo = images;
    const bool ok = apply_write(w, resolver_, set, error);
    EXPECT_TRUE(!ok || w.descriptorCount <= 4);  // ...because no set holds 100000 descriptors
    return ok;
  }

  bool random_copy(DescriptorSetData* set, std::string* error) {
    const uint32_t plausible[] = {0, 1, 3, 15};
    VkCopyDescriptorSet c{VK_STRUCTURE_TYPE_COPY_DESCRIPTOR_SET};
    c.srcBinding = next() % 4 ? plausible[next() % 4] : static_cast<uint32_t>(next());
    c.srcArrayElement = static_cast<uint32_t>(next() % 4 ? 0 : edge(3));
    c.dstBinding = next() % 2 ? c.srcBinding : next() % 2 ? plausible[next() % 4] : static_cast<uint32_t>(next());
    c.dstArrayElement = static_cast<uint32_t>(next() % 4 ? 0 : edge(3));
    c.descriptorCount = static_cast<uint32_t>(next() % 4 ? 1 : edge(4));
    return apply_copy(c, sets_[next() % 2], set, error);
  }

  bool random_bind(std::string* error) {
    const DescriptorSetData* bound[2] = {&sets_[0], &sets_[1]};
    uint32_t offsets[6];
    for (uint32_t& o : offsets) o = static_cast<uint32_t>(edge(4096));
    const uint32_t first = static_cast<uint32_t>(next() % 4 ? 0 : next() % 2 ? 1 + next() % 2 : next());
    const size_t count = next() % 3;
    const size_t dynamic = next() % 4 ? 3 * count : next() % 7;  // each set has 3 dynamic descriptors
    return bind_descriptor_sets(pipeline_, VK_PIPELINE_BIND_POINT_GRAPHICS, first, {bound, count},
                                {offsets, dynamic}, &state_, error);
  }

  bool random_push(std::string* error) {
    const uint8_t data[128] = {};
    const uint64_t stage_bits = next() % 4 ? uint64_t{VK_SHADER_STAGE_VERTEX_BIT} : next() % 4;
    const uint32_t offset = static_cast<uint32_t>(next() % 2 ? 16 + 4 * (next() % 16) : edge(128));
    const uint32_t size = static_cast<uint32_t>(next() % 2 ? 4 * (1 + next() % 8) : edge(128));
    return push_constants(pipeline_, static_cast<VkShaderStageFlags>(stage_bits), offset, size, data, &state_, error);
  }

  // After an accepted call: every written buffer descriptor, and every bound VA, inside its buffer.
  void expect_everything_inside_its_buffer() {
    for (const DescriptorSetData& s : sets_) {
      for (const Descriptor& d : s.descriptors) {
        if (!d.written || d.buffer_size == 0) continue;
        ASSERT_LT(d.offset, d.buffer_size);
        ASSERT_LE(d.range, d.buffer_size - d.offset);
      }
    }
    for (const auto& table : state_.bind_points[0].tables) {
      for (uint64_t va : table) {
        const bool in_a = va >= 0x10000 && va < 0x10000 + 4096;
        const bool in_b = va >= 0x200000 && va < 0x200000 + 1024;
        ASSERT_TRUE(va == 0 || in_a || in_b) << std::hex << va;
      }
    }
  }

  std::shared_ptr<const SetLayout> layout_;
  PipelineLayout pipeline_;
  DescriptorSetData sets_[2];
  BindingState state_;
  uint64_t seed_ = 0x9e3779b97f4a7c15ull;
};

TEST_F(BindingModelRandom, RandomHostileCallsAreRefusedWholeOrKeepEveryEntryInsideItsBuffer) {
  int accepted[4] = {}, refused = 0;
  for (int round = 0; round < 50000; ++round) {
    DescriptorSetData& set = sets_[next() % 2];
    const DescriptorSetData before = set;
    const BindingState state_before = state_;
    const int kind = static_cast<int>(next() % 4);
    std::string error;
    const bool ok = kind == 0   ? random_write(&set, &error)
                    : kind == 1 ? random_copy(&set, &error)
                    : kind == 2 ? random_bind(&error)
                                : random_push(&error);
    if (!ok) {
      ++refused;
      ASSERT_FALSE(error.empty());
      ASSERT_TRUE(set.descriptors == before.descriptors && set.table == before.table) << "round " << round;
      ASSERT_TRUE(state_.push_constants == state_before.push_constants) << "round " << round;
      ASSERT_TRUE(state_.bind_points[0].tables == state_before.bind_points[0].tables) << "round " << round;
      continue;
    }
    ++accepted[kind];
    expect_everything_inside_its_buffer();
    if (HasFatalFailure()) return;
  }
  // The values reach every accepting path as well (measured: 2,060 writes, 4,320 copies, 3,654 binds and
  // 4,181 pushes accepted, 35,785 calls refused).
  for (int kind = 0; kind < 4; ++kind) EXPECT_GT(accepted[kind], 500) << kind;
  EXPECT_GT(refused, 2000);
  std::printf("accepted writes %d, copies %d, binds %d, pushes %d; refused %d\n", accepted[0], accepted[1],
              accepted[2], accepted[3], refused);
}

}  // namespace
}  // namespace gsgpu::vk
