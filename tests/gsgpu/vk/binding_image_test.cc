// Image, sampler and combined descriptors over the driver's image objects (docs/vulkan-driver.md
// "Resource binding"): a write captures the view's IMAGE_DESC and the sampler's words; a view of an
// image without the usage the descriptor type needs, or one the texture unit cannot describe, is
// refused with a log line.
#include <gtest/gtest.h>

#include "tests/gsgpu/vk/image_fixture.h"

namespace gsgpu::vk::test {
namespace {

class VkImageDescriptors : public VkImageTest {
 protected:
  void TearDown() override {
    if (pool_set_) vkDestroyDescriptorPool(device_, pool_set_, nullptr);
    if (layout_) vkDestroyDescriptorSetLayout(device_, layout_, nullptr);
    for (VkSampler s : samplers_) vkDestroySampler(device_, s, nullptr);
    VkImageTest::TearDown();
  }
  VkImageView make_view(VkImage image, VkImageViewType type, VkImageSubresourceRange range) {
    VkImageViewCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    info.image = image;
    info.viewType = type;
    info.format = VK_FORMAT_R8G8B8A8_UNORM;
    info.subresourceRange = range;
    VkImageView view = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateImageView(device_, &info, nullptr, &view), VK_SUCCESS);
    views_.push_back(view);
    return view;
  }
  VkDescriptorPool pool_set_ = VK_NULL_HANDLE;
  VkDescriptorSetLayout layout_ = VK_NULL_HANDLE;
  std::vector<VkSampler> samplers_;
};

TEST_F(VkImageDescriptors, SampledViewsAndSamplersAreCheckedAgainstTheirObjects) {
  VkImage sampled = make_image(image_info(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, {64, 32, 1}, 3, 2));
  VkImageCreateInfo transfer_info = image_info(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, {16, 16, 1}, 1, 1);
  transfer_info.usage = VK_IMAGE_USAGE_TRANSFER_DST_BIT;  // not SAMPLED
  VkImage transfer_only = make_image(transfer_info);
  VkImageView whole = make_view(sampled, VK_IMAGE_VIEW_TYPE_2D_ARRAY, {VK_IMAGE_ASPECT_COLOR_BIT, 0, 2, 0, 3});
  VkImageView undescribable = make_view(sampled, VK_IMAGE_VIEW_TYPE_2D_ARRAY, {VK_IMAGE_ASPECT_COLOR_BIT, 0, 2, 1, 2});
  VkImageView unsampled = make_view(transfer_only, VK_IMAGE_VIEW_TYPE_2D, {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1});
  VkSamplerCreateInfo sampler_info{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  sampler_info.magFilter = VK_FILTER_LINEAR;
  sampler_info.maxLod = VK_LOD_CLAMP_NONE;
  VkSampler sampler = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateSampler(device_, &sampler_info, nullptr, &sampler), VK_SUCCESS);
  samplers_.push_back(sampler);

  const VkDescriptorSetLayoutBinding bindings[] = {
      {0, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, nullptr},
      {1, VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, 1, VK_SHADER_STAGE_FRAGMENT_BIT, nullptr},
      {2, VK_DESCRIPTOR_TYPE_SAMPLER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, nullptr},
      {3, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, &sampler},  // immutable
      {4, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, VK_SHADER_STAGE_FRAGMENT_BIT, nullptr}};
  VkDescriptorSetLayoutCreateInfo layout_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  layout_info.bindingCount = 5;
  layout_info.pBindings = bindings;
  ASSERT_EQ(vkCreateDescriptorSetLayout(device_, &layout_info, nullptr, &layout_), VK_SUCCESS);
  const VkDescriptorPoolSize sizes[] = {{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 2},
                                        {VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, 1},
                                        {VK_DESCRIPTOR_TYPE_SAMPLER, 1},
                                        {VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1}};
  VkDescriptorPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  pool_info.maxSets = 1;
  pool_info.poolSizeCount = 4;
  pool_info.pPoolSizes = sizes;
  ASSERT_EQ(vkCreateDescriptorPool(device_, &pool_info, nullptr, &pool_set_), VK_SUCCESS);
  VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  alloc.descriptorPool = pool_set_;
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = &layout_;
  VkDescriptorSet set = VK_NULL_HANDLE;
  ASSERT_EQ(vkAllocateDescriptorSets(device_, &alloc, &set), VK_SUCCESS);

  auto write = [&](uint32_t binding, VkDescriptorType type, const VkDescriptorImageInfo* info) {
    VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    w.dstSet = set;
    w.dstBinding = binding;
    w.descriptorCount = 1;
    w.descriptorType = type;
    w.pImageInfo = info;
    return w;
  };
  const VkDescriptorImageInfo good{sampler, whole, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
  const VkDescriptorImageInfo view_only{VK_NULL_HANDLE, whole, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
  const VkDescriptorImageInfo no_desc{sampler, undescribable, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
  const VkDescriptorImageInfo no_usage{sampler, unsampled, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
  const VkDescriptorImageInfo no_sampler{VK_NULL_HANDLE, whole, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
  const VkWriteDescriptorSet accepted[] = {
      write(0, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, &good),
      write(1, VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, &view_only),
      write(2, VK_DESCRIPTOR_TYPE_SAMPLER, &good),
      write(3, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, &view_only)};  // the immutable sampler
  testing::internal::CaptureStderr();
  vkUpdateDescriptorSets(device_, 4, accepted, 0, nullptr);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  const VkWriteDescriptorSet refused[] = {
      write(0, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, &no_desc),
      write(1, VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, &no_usage),
      write(0, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, &no_sampler),
      write(4, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, &view_only)};  // a sampled-only image as storage
  testing::internal::CaptureStderr();
  vkUpdateDescriptorSets(device_, 4, refused, 0, nullptr);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count(log, "the texture unit cannot describe the view"), 1) << log;
  EXPECT_EQ(count(log, "lacks usage 4 for descriptor type 2"), 1) << log;
  EXPECT_EQ(count(log, "the sampler is null"), 1) << log;
  EXPECT_EQ(count(log, "lacks usage 8 for descriptor type 3"), 1) << log;
  EXPECT_EQ(count(log, "; skipped"), 4) << log;
}

}  // namespace
}  // namespace gsgpu::vk::test
