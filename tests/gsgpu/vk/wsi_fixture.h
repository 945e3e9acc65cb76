// The fixture of the WSI tests: an instance with surface extensions, a device with
// VK_KHR_swapchain, and the frame loop of a presenting application (acquire with a semaphore,
// clear the image on the queue, present after the clear's semaphore), plus reading an image back.
#pragma once

#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

namespace gsgpu::vk::test {

class VkWsiFixture : public ::testing::Test {
 protected:
  void create_instance_and_device(std::vector<const char*> extensions) {
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.apiVersion = VK_API_VERSION_1_0;
    VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    info.pApplicationInfo = &app;
    info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
    info.ppEnabledExtensionNames = extensions.data();
    ASSERT_EQ(vkCreateInstance(&info, nullptr, &instance_), VK_SUCCESS);
    uint32_t count = 1;
    ASSERT_EQ(vkEnumeratePhysicalDevices(instance_, &count, &physical_), VK_SUCCESS);
    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queue_info.queueCount = 1;
    queue_info.pQueuePriorities = &priority;
    const char* swapchain_extension = VK_KHR_SWAPCHAIN_EXTENSION_NAME;
    VkDeviceCreateInfo device_info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    device_info.queueCreateInfoCount = 1;
    device_info.pQueueCreateInfos = &queue_info;
    device_info.enabledExtensionCount = 1;
    device_info.ppEnabledExtensionNames = &swapchain_extension;
    ASSERT_EQ(vkCreateDevice(physical_, &device_info, nullptr, &device_), VK_SUCCESS);
    vkGetDeviceQueue(device_, 0, 0, &queue_);
    VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    ASSERT_EQ(vkCreateCommandPool(device_, &pool_info, nullptr, &pool_), VK_SUCCESS);
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = pool_;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    ASSERT_EQ(vkAllocateCommandBuffers(device_, &alloc, &cb_), VK_SUCCESS);
    VkSemaphoreCreateInfo semaphore_info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    ASSERT_EQ(vkCreateSemaphore(device_, &semaphore_info, nullptr, &acquired_), VK_SUCCESS);
    ASSERT_EQ(vkCreateSemaphore(device_, &semaphore_info, nullptr, &rendered_), VK_SUCCESS);
    VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    ASSERT_EQ(vkCreateFence(device_, &fence_info, nullptr, &fence_), VK_SUCCESS);
  }

  void TearDown() override {
    if (device_) {
      vkDeviceWaitIdle(device_);
      for (VkSwapchainKHR s : swapchains_) vkDestroySwapchainKHR(device_, s, nullptr);
      vkDestroyFence(device_, fence_, nullptr);
      vkDestroySemaphore(device_, acquired_, nullptr);
      vkDestroySemaphore(device_, rendered_, nullptr);
      vkDestroyCommandPool(device_, pool_, nullptr);
      vkDestroyDevice(device_, nullptr);
    }
    if (surface_) vkDestroySurfaceKHR(instance_, surface_, nullptr);
    if (instance_) vkDestroyInstance(instance_, nullptr);
  }

  VkSwapchainCreateInfoKHR swapchain_info(VkExtent2D extent, uint32_t images, VkFormat format) const {
    VkSwapchainCreateInfoKHR info{VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR};
    info.surface = surface_;
    info.minImageCount = images;
    info.imageFormat = format;
    info.imageColorSpace = VK_COLOR_SPACE_SRGB_NONLINEAR_KHR;
    info.imageExtent = extent;
    info.imageArrayLayers = 1;
    info.imageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                      VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
    info.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;
    info.preTransform = VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR;
    info.compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
    info.presentMode = VK_PRESENT_MODE_FIFO_KHR;
    info.clipped = VK_TRUE;
    return info;
  }
  VkSwapchainKHR create_swapchain(const VkSwapchainCreateInfoKHR& info) {
    VkSwapchainKHR swapchain = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateSwapchainKHR(device_, &info, nullptr, &swapchain), VK_SUCCESS);
    if (swapchain != VK_NULL_HANDLE) swapchains_.push_back(swapchain);
    return swapchain;
  }
  std::vector<VkImage> images_of(VkSwapchainKHR swapchain) {
    uint32_t count = 0;
    EXPECT_EQ(vkGetSwapchainImagesKHR(device_, swapchain, &count, nullptr), VK_SUCCESS);
    std::vector<VkImage> images(count);
    EXPECT_EQ(vkGetSwapchainImagesKHR(device_, swapchain, &count, images.data()), VK_SUCCESS);
    return images;
  }

  // Clears `image` on the queue after the acquire semaphore, signalling rendered_.
  void clear_after_acquire(VkImage image, const VkClearColorValue& color) {
    ASSERT_EQ(vkResetCommandBuffer(cb_, 0), VK_SUCCESS);
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    ASSERT_EQ(vkBeginCommandBuffer(cb_, &begin), VK_SUCCESS);
    VkImageSubresourceRange range{VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdClearColorImage(cb_, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &color, 1, &range);
    ASSERT_EQ(vkEndCommandBuffer(cb_), VK_SUCCESS);
    VkPipelineStageFlags stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.waitSemaphoreCount = 1;
    submit.pWaitSemaphores = &acquired_;
    submit.pWaitDstStageMask = &stage;
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cb_;
    submit.signalSemaphoreCount = 1;
    submit.pSignalSemaphores = &rendered_;
    ASSERT_EQ(vkQueueSubmit(queue_, 1, &submit, VK_NULL_HANDLE), VK_SUCCESS);
  }
  VkResult present(VkSwapchainKHR swapchain, uint32_t index, bool wait_rendered = true) {
    VkPresentInfoKHR info{VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
    info.waitSemaphoreCount = wait_rendered ? 1 : 0;
    info.pWaitSemaphores = &rendered_;
    info.swapchainCount = 1;
    info.pSwapchains = &swapchain;
    info.pImageIndices = &index;
    return vkQueuePresentKHR(queue_, &info);
  }
  // One frame: acquire (with acquired_), clear to `color`, present. Returns the image index.
  uint32_t frame(VkSwapchainKHR swapchain, const VkClearColorValue& color, VkResult expected = VK_SUCCESS) {
    uint32_t index = UINT32_MAX;
    EXPECT_EQ(vkAcquireNextImageKHR(device_, swapchain, UINT64_MAX, acquired_, VK_NULL_HANDLE, &index), expected);
    const std::vector<VkImage> images = images_of(swapchain);
    if (index >= images.size()) return index;
    clear_after_acquire(images[index], color);
    EXPECT_EQ(present(swapchain, index), expected);
    return index;
  }

  // The texels of a `width` x `height` 4-byte image, read back through a buffer.
  std::vector<uint8_t> read_image(VkImage image, uint32_t width, uint32_t height) {
    const VkDeviceSize size = VkDeviceSize{width} * height * 4;
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = size;
    info.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    VkBuffer buffer = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateBuffer(device_, &info, nullptr, &buffer), VK_SUCCESS);
    VkMemoryRequirements reqs;
    vkGetBufferMemoryRequirements(device_, buffer, &reqs);
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, nullptr, reqs.size, 0};
    VkDeviceMemory memory = VK_NULL_HANDLE;
    EXPECT_EQ(vkAllocateMemory(device_, &alloc, nullptr, &memory), VK_SUCCESS);
    EXPECT_EQ(vkBindBufferMemory(device_, buffer, memory, 0), VK_SUCCESS);
    EXPECT_EQ(vkResetCommandBuffer(cb_, 0), VK_SUCCESS);
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    EXPECT_EQ(vkBeginCommandBuffer(cb_, &begin), VK_SUCCESS);
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {width, height, 1};
    vkCmdCopyImageToBuffer(cb_, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buffer, 1, &region);
    EXPECT_EQ(vkEndCommandBuffer(cb_), VK_SUCCESS);
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cb_;
    EXPECT_EQ(vkResetFences(device_, 1, &fence_), VK_SUCCESS);
    EXPECT_EQ(vkQueueSubmit(queue_, 1, &submit, fence_), VK_SUCCESS);
    EXPECT_EQ(vkWaitForFences(device_, 1, &fence_, VK_TRUE, UINT64_MAX), VK_SUCCESS);
    void* map = nullptr;
    EXPECT_EQ(vkMapMemory(device_, memory, 0, VK_WHOLE_SIZE, 0, &map), VK_SUCCESS);
    std::vector<uint8_t> texels(size);
    if (map != nullptr) std::memcpy(texels.data(), map, size);
    vkDestroyBuffer(device_, buffer, nullptr);
    vkFreeMemory(device_, memory, nullptr);
    return texels;
  }

  VkInstance instance_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkSurfaceKHR surface_ = VK_NULL_HANDLE;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cb_ = VK_NULL_HANDLE;
  VkSemaphore acquired_ = VK_NULL_HANDLE;
  VkSemaphore rendered_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  std::vector<VkSwapchainKHR> swapchains_;
};

}  // namespace gsgpu::vk::test
