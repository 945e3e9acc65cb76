// Swapchains on a headless surface (VK_EXT_headless_surface; no window system): what the surface
// offers, the frame loop cycling through every image, the images keeping what was rendered, and
// misuse (acquiring more images than the swapchain has, presenting an image not acquired, a
// create info outside the capabilities) refused with an error rather than a hang or a crash.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <thread>

#include "tests/gsgpu/vk/wsi_fixture.h"

namespace gsgpu::vk::test {
namespace {

class VkWsiHeadless : public VkWsiFixture {
 protected:
  void SetUp() override {
    create_instance_and_device({VK_KHR_SURFACE_EXTENSION_NAME, VK_EXT_HEADLESS_SURFACE_EXTENSION_NAME});
    auto create = reinterpret_cast<PFN_vkCreateHeadlessSurfaceEXT>(
        vkGetInstanceProcAddr(instance_, "vkCreateHeadlessSurfaceEXT"));
    ASSERT_NE(create, nullptr);
    VkHeadlessSurfaceCreateInfoEXT info{VK_STRUCTURE_TYPE_HEADLESS_SURFACE_CREATE_INFO_EXT};
    ASSERT_EQ(create(instance_, &info, nullptr, &surface_), VK_SUCCESS);
  }
  static constexpr VkExtent2D kExtent{40, 24};
};

TEST_F(VkWsiHeadless, SurfaceOffersBgraFifoAndAnyExtent) {
  VkBool32 supported = VK_FALSE;
  ASSERT_EQ(vkGetPhysicalDeviceSurfaceSupportKHR(physical_, 0, surface_, &supported), VK_SUCCESS);
  EXPECT_TRUE(supported);
  VkSurfaceCapabilitiesKHR caps{};
  ASSERT_EQ(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(physical_, surface_, &caps), VK_SUCCESS);
  EXPECT_EQ(caps.currentExtent.width, 0xFFFFFFFFu);  // headless: the swapchain decides
  EXPECT_EQ(caps.minImageCount, 2u);
  EXPECT_EQ(caps.maxImageCount, 8u);
  EXPECT_EQ(caps.maxImageExtent.width, 4096u);
  EXPECT_TRUE(caps.supportedUsageFlags & VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT);
  EXPECT_EQ(caps.supportedCompositeAlpha, VkCompositeAlphaFlagsKHR{VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR});
  uint32_t count = 0;
  ASSERT_EQ(vkGetPhysicalDeviceSurfaceFormatsKHR(physical_, surface_, &count, nullptr), VK_SUCCESS);
  std::vector<VkSurfaceFormatKHR> formats(count);
  ASSERT_EQ(vkGetPhysicalDeviceSurfaceFormatsKHR(physical_, surface_, &count, formats.data()), VK_SUCCESS);
  std::set<VkFormat> offered;
  for (const VkSurfaceFormatKHR& f : formats) {
    EXPECT_EQ(f.colorSpace, VK_COLOR_SPACE_SRGB_NONLINEAR_KHR);
    offered.insert(f.format);
  }
  EXPECT_EQ(offered, (std::set<VkFormat>{VK_FORMAT_B8G8R8A8_UNORM, VK_FORMAT_B8G8R8A8_SRGB}));
  count = 1;
  VkSurfaceFormatKHR one{};
  EXPECT_EQ(vkGetPhysicalDeviceSurfaceFormatsKHR(physical_, surface_, &count, &one), VK_INCOMPLETE);
  ASSERT_EQ(vkGetPhysicalDeviceSurfacePresentModesKHR(physical_, surface_, &count, nullptr), VK_SUCCESS);
  ASSERT_EQ(count, 3u);  // each present is put whole at once: FIFO, IMMEDIATE and MAILBOX alike
  VkPresentModeKHR modes[3] = {};
  ASSERT_EQ(vkGetPhysicalDeviceSurfacePresentModesKHR(physical_, surface_, &count, modes), VK_SUCCESS);
  EXPECT_EQ(modes[0], VK_PRESENT_MODE_FIFO_KHR);
  EXPECT_EQ(modes[1], VK_PRESENT_MODE_IMMEDIATE_KHR);
  EXPECT_EQ(modes[2], VK_PRESENT_MODE_MAILBOX_KHR);
}

TEST_F(VkWsiHeadless, FramesCycleThroughEveryImageAndKeepTheirClears) {
  VkSwapchainKHR swapchain = create_swapchain(swapchain_info(kExtent, 3, VK_FORMAT_B8G8R8A8_UNORM));
  ASSERT_NE(swapchain, VK_NULL_HANDLE);
  const std::vector<VkImage> images = images_of(swapchain);
  ASSERT_EQ(images.size(), 3u);
  std::set<uint32_t> seen;
  for (uint32_t i = 0; i < 6; ++i) {
    // Blue byte 32 * i; the last clear of each image is frame 3's, 4's or 5's.
    const uint32_t index = frame(swapchain, VkClearColorValue{{0.0f, 0.0f, float(32 * i) / 255.0f, 1.0f}});
    ASSERT_LT(index, images.size());
    seen.insert(index);
  }
  EXPECT_EQ(seen.size(), 3u);
  // Each image still holds the clear of the last frame presented from it (B, G, R, A bytes).
  std::set<uint8_t> blues;
  for (VkImage image : images) {
    const std::vector<uint8_t> texels = read_image(image, kExtent.width, kExtent.height);
    for (size_t t = 0; t < texels.size(); t += 4) ASSERT_EQ(texels[t], texels[0]) << "texel " << t / 4;
    EXPECT_EQ(texels[1], 0);
    EXPECT_EQ(texels[3], 255);
    blues.insert(texels[0]);
  }
  EXPECT_EQ(blues, (std::set<uint8_t>{96, 128, 160}));
}

TEST_F(VkWsiHeadless, AcquireSignalsItsFence) {
  VkSwapchainKHR swapchain = create_swapchain(swapchain_info(kExtent, 2, VK_FORMAT_B8G8R8A8_SRGB));
  ASSERT_NE(swapchain, VK_NULL_HANDLE);
  uint32_t index = UINT32_MAX;
  ASSERT_EQ(vkAcquireNextImageKHR(device_, swapchain, UINT64_MAX, VK_NULL_HANDLE, fence_, &index), VK_SUCCESS);
  EXPECT_EQ(vkWaitForFences(device_, 1, &fence_, VK_TRUE, 1000000000), VK_SUCCESS);
  EXPECT_EQ(vkGetFenceStatus(device_, fence_), VK_SUCCESS);
  EXPECT_EQ(present(swapchain, index, false), VK_SUCCESS);
}

TEST_F(VkWsiHeadless, AcquiringMoreImagesThanTheSwapchainHasIsAnErrorNotAHang) {
  VkSwapchainKHR swapchain = create_swapchain(swapchain_info(kExtent, 2, VK_FORMAT_B8G8R8A8_UNORM));
  ASSERT_NE(swapchain, VK_NULL_HANDLE);
  uint32_t first = UINT32_MAX, second = UINT32_MAX, third = UINT32_MAX;
  ASSERT_EQ(vkAcquireNextImageKHR(device_, swapchain, 0, VK_NULL_HANDLE, VK_NULL_HANDLE, &first), VK_SUCCESS);
  ASSERT_EQ(vkAcquireNextImageKHR(device_, swapchain, 0, VK_NULL_HANDLE, VK_NULL_HANDLE, &second), VK_SUCCESS);
  EXPECT_NE(first, second);
  EXPECT_EQ(vkAcquireNextImageKHR(device_, swapchain, 0, VK_NULL_HANDLE, VK_NULL_HANDLE, &third), VK_NOT_READY);
  EXPECT_EQ(vkAcquireNextImageKHR(device_, swapchain, 2000000, VK_NULL_HANDLE, VK_NULL_HANDLE, &third), VK_TIMEOUT);
  EXPECT_EQ(vkAcquireNextImageKHR(device_, swapchain, UINT64_MAX, VK_NULL_HANDLE, VK_NULL_HANDLE, &third),
            VK_ERROR_UNKNOWN);
  // Presenting one gives it back.
  EXPECT_EQ(present(swapchain, first, false), VK_SUCCESS);
  EXPECT_EQ(vkAcquireNextImageKHR(device_, swapchain, UINT64_MAX, VK_NULL_HANDLE, VK_NULL_HANDLE, &third), VK_SUCCESS);
  EXPECT_EQ(third, first);
}

TEST_F(VkWsiHeadless, AnAcquireWaitingWithATimeoutGetsTheImageAnotherThreadPresents) {
  VkSwapchainKHR swapchain = create_swapchain(swapchain_info(kExtent, 2, VK_FORMAT_B8G8R8A8_UNORM));
  ASSERT_NE(swapchain, VK_NULL_HANDLE);
  uint32_t first = UINT32_MAX, second = UINT32_MAX, third = UINT32_MAX;
  ASSERT_EQ(vkAcquireNextImageKHR(device_, swapchain, 0, VK_NULL_HANDLE, VK_NULL_HANDLE, &first), VK_SUCCESS);
  ASSERT_EQ(vkAcquireNextImageKHR(device_, swapchain, 0, VK_NULL_HANDLE, VK_NULL_HANDLE, &second), VK_SUCCESS);
  std::thread presenter([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(present(swapchain, second, false), VK_SUCCESS);
  });
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(vkAcquireNextImageKHR(device_, swapchain, 10'000'000'000, VK_NULL_HANDLE, VK_NULL_HANDLE, &third),
            VK_SUCCESS);
  presenter.join();
  EXPECT_EQ(third, second);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));  // woken, not timed out
}

TEST_F(VkWsiHeadless, OnePresentOfTwoSwapchainsAnswersEach) {
  auto create = reinterpret_cast<PFN_vkCreateHeadlessSurfaceEXT>(
      vkGetInstanceProcAddr(instance_, "vkCreateHeadlessSurfaceEXT"));
  VkHeadlessSurfaceCreateInfoEXT surface_info{VK_STRUCTURE_TYPE_HEADLESS_SURFACE_CREATE_INFO_EXT};
  VkSurfaceKHR second_surface = VK_NULL_HANDLE;
  ASSERT_EQ(create(instance_, &surface_info, nullptr, &second_surface), VK_SUCCESS);
  VkSwapchainCreateInfoKHR info = swapchain_info(kExtent, 2, VK_FORMAT_B8G8R8A8_UNORM);
  VkSwapchainKHR chains[2] = {create_swapchain(info), VK_NULL_HANDLE};
  info.surface = second_surface;
  chains[1] = create_swapchain(info);
  ASSERT_NE(chains[1], VK_NULL_HANDLE);
  uint32_t indices[2] = {UINT32_MAX, 1};  // the second swapchain's image 1 is not acquired
  ASSERT_EQ(vkAcquireNextImageKHR(device_, chains[0], 0, VK_NULL_HANDLE, VK_NULL_HANDLE, &indices[0]), VK_SUCCESS);
  VkResult results[2] = {VK_RESULT_MAX_ENUM, VK_RESULT_MAX_ENUM};
  VkPresentInfoKHR present_info{VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
  present_info.swapchainCount = 2;
  present_info.pSwapchains = chains;
  present_info.pImageIndices = indices;
  present_info.pResults = results;
  EXPECT_EQ(vkQueuePresentKHR(queue_, &present_info), VK_ERROR_UNKNOWN);  // refused whole
  ASSERT_EQ(vkAcquireNextImageKHR(device_, chains[1], 0, VK_NULL_HANDLE, VK_NULL_HANDLE, &indices[1]), VK_SUCCESS);
  EXPECT_EQ(vkQueuePresentKHR(queue_, &present_info), VK_SUCCESS);
  EXPECT_EQ(results[0], VK_SUCCESS);
  EXPECT_EQ(results[1], VK_SUCCESS);
  for (VkSwapchainKHR s : chains) vkDestroySwapchainKHR(device_, s, nullptr);
  swapchains_.clear();
  vkDestroySurfaceKHR(instance_, second_surface, nullptr);
}

TEST_F(VkWsiHeadless, PresentingAnImageNotAcquiredIsRefused) {
  VkSwapchainKHR swapchain = create_swapchain(swapchain_info(kExtent, 2, VK_FORMAT_B8G8R8A8_UNORM));
  ASSERT_NE(swapchain, VK_NULL_HANDLE);
  EXPECT_EQ(present(swapchain, 0, false), VK_ERROR_UNKNOWN);
  EXPECT_EQ(present(swapchain, 7, false), VK_ERROR_UNKNOWN);  // no such image
  uint32_t index = UINT32_MAX;
  ASSERT_EQ(vkAcquireNextImageKHR(device_, swapchain, 0, VK_NULL_HANDLE, VK_NULL_HANDLE, &index), VK_SUCCESS);
  // A wait on a semaphore nothing signals would never end: refused, the image still held.
  EXPECT_EQ(present(swapchain, index, true), VK_ERROR_UNKNOWN);
  EXPECT_EQ(present(swapchain, index, false), VK_SUCCESS);
  EXPECT_EQ(present(swapchain, index, false), VK_ERROR_UNKNOWN);  // presented twice
}

TEST_F(VkWsiHeadless, ARetiredSwapchainIsOutOfDateForAcquireButPresentsWhatItHolds) {
  VkSwapchainCreateInfoKHR info = swapchain_info(kExtent, 2, VK_FORMAT_B8G8R8A8_UNORM);
  VkSwapchainKHR old = create_swapchain(info);
  ASSERT_NE(old, VK_NULL_HANDLE);
  uint32_t held = UINT32_MAX, index = UINT32_MAX;
  ASSERT_EQ(vkAcquireNextImageKHR(device_, old, 0, VK_NULL_HANDLE, VK_NULL_HANDLE, &held), VK_SUCCESS);
  info.oldSwapchain = old;
  info.imageExtent = {64, 64};
  VkSwapchainKHR fresh = create_swapchain(info);
  ASSERT_NE(fresh, VK_NULL_HANDLE);
  EXPECT_EQ(vkAcquireNextImageKHR(device_, old, 0, VK_NULL_HANDLE, VK_NULL_HANDLE, &index), VK_ERROR_OUT_OF_DATE_KHR);
  EXPECT_EQ(present(old, held, false), VK_SUCCESS);
  EXPECT_EQ(frame(fresh, VkClearColorValue{{1.0f, 0.0f, 0.0f, 1.0f}}), 0u);
}

TEST_F(VkWsiHeadless, CreateInfoOutsideTheCapabilitiesIsRefused) {
  const VkSwapchainCreateInfoKHR good = swapchain_info(kExtent, 2, VK_FORMAT_B8G8R8A8_UNORM);
  std::vector<VkSwapchainCreateInfoKHR> bad(7, good);
  bad[0].imageFormat = VK_FORMAT_R8G8B8A8_UNORM;
  bad[1].imageExtent = {0, 16};
  bad[2].imageExtent = {5000, 16};
  bad[3].minImageCount = 9;
  bad[4].imageArrayLayers = 2;
  bad[5].imageUsage = VK_IMAGE_USAGE_STORAGE_BIT;
  bad[6].presentMode = VK_PRESENT_MODE_FIFO_RELAXED_KHR;
  for (size_t i = 0; i < bad.size(); ++i) {
    VkSwapchainKHR swapchain = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateSwapchainKHR(device_, &bad[i], nullptr, &swapchain), VK_ERROR_INITIALIZATION_FAILED) << i;
    EXPECT_EQ(swapchain, VK_NULL_HANDLE);
  }
  // A single-image request gets the minimum of two.
  VkSwapchainCreateInfoKHR one = good;
  one.minImageCount = 1;
  EXPECT_EQ(images_of(create_swapchain(one)).size(), 2u);
}

TEST_F(VkWsiHeadless, SwapchainImagesAreOrdinaryImagesOfTheOneLayout) {
  VkSwapchainKHR swapchain = create_swapchain(swapchain_info({33, 5}, 2, VK_FORMAT_B8G8R8A8_UNORM));
  ASSERT_NE(swapchain, VK_NULL_HANDLE);
  uint32_t count = 1;
  VkImage first = VK_NULL_HANDLE;
  EXPECT_EQ(vkGetSwapchainImagesKHR(device_, swapchain, &count, &first), VK_INCOMPLETE);
  VkSubresourceLayout layout{};
  VkImageSubresource subresource{VK_IMAGE_ASPECT_COLOR_BIT, 0, 0};
  vkGetImageSubresourceLayout(device_, first, &subresource, &layout);
  EXPECT_EQ(layout.rowPitch, 192u);  // 33 x 4 bytes rounded up to 64
  EXPECT_EQ(layout.offset, 0u);
  VkImageViewCreateInfo view_info{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  view_info.image = first;
  view_info.viewType = VK_IMAGE_VIEW_TYPE_2D;
  view_info.format = VK_FORMAT_B8G8R8A8_UNORM;
  view_info.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  VkImageView view = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateImageView(device_, &view_info, nullptr, &view), VK_SUCCESS);
  vkDestroyImageView(device_, view, nullptr);
}

}  // namespace
}  // namespace gsgpu::vk::test
