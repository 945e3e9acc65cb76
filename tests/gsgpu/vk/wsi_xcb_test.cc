// Presenting to an X window (VK_KHR_xcb_surface) on an Xvfb server the test starts: the window's
// pixels, read back with GetImage, are the image's after a present; a resized window makes the
// swapchain suboptimal and a new one (oldSwapchain) out of date the old; a destroyed window is a
// lost surface. Skipped only when Xvfb is not installed.
#include <gtest/gtest.h>
#include <xcb/xcb.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "tests/gsgpu/vk/wsi_fixture.h"
#include "tests/gsgpu/vk/xvfb_server.h"

#include <vulkan/vulkan_xcb.h>

namespace gsgpu::vk::test {
namespace {

class VkWsiXcb : public VkWsiFixture {
 protected:
  void SetUp() override {
    const std::string binary = XvfbServer::find_binary();
    if (binary.empty()) GTEST_SKIP() << "Xvfb is not installed (package xvfb)";
    std::string error;
    ASSERT_TRUE(server_.start(binary, "320x240x" + std::to_string(depth_), {}, &error)) << error;
    connection_ = xcb_connect(server_.display().c_str(), nullptr);
    ASSERT_EQ(xcb_connection_has_error(connection_), 0);
    create_window(64, 48);
    create_instance_and_device({VK_KHR_SURFACE_EXTENSION_NAME, VK_KHR_XCB_SURFACE_EXTENSION_NAME});
    VkXcbSurfaceCreateInfoKHR info{VK_STRUCTURE_TYPE_XCB_SURFACE_CREATE_INFO_KHR};
    info.connection = connection_;
    info.window = window_;
    ASSERT_EQ(vkCreateXcbSurfaceKHR(instance_, &info, nullptr, &surface_), VK_SUCCESS);
  }
  void TearDown() override {
    VkWsiFixture::TearDown();
    if (connection_ != nullptr) xcb_disconnect(connection_);
  }

  // A mapped window at (0, 0), once the server has shown it (its first Expose).
  void create_window(uint16_t width, uint16_t height) {
    xcb_screen_t* screen = xcb_setup_roots_iterator(xcb_get_setup(connection_)).data;
    window_ = xcb_generate_id(connection_);
    const uint32_t events[] = {XCB_EVENT_MASK_EXPOSURE};
    xcb_create_window(connection_, XCB_COPY_FROM_PARENT, window_, screen->root, 0, 0, width, height, 0,
                      XCB_WINDOW_CLASS_INPUT_OUTPUT, screen->root_visual, XCB_CW_EVENT_MASK, events);
    xcb_map_window(connection_, window_);
    xcb_flush(connection_);
    while (xcb_generic_event_t* event = xcb_wait_for_event(connection_)) {
      const bool exposed = (event->response_type & 0x7f) == XCB_EXPOSE;
      std::free(event);
      if (exposed) break;
    }
  }
  void resize_window(uint16_t width, uint16_t height) {
    const uint32_t size[] = {width, height};
    xcb_configure_window(connection_, window_, XCB_CONFIG_WINDOW_WIDTH | XCB_CONFIG_WINDOW_HEIGHT, size);
    xcb_flush(connection_);
  }
  // The window's pixels as the server holds them: B, G, R, X bytes per pixel (depth 24, 32 bpp).
  std::vector<uint8_t> window_pixels(uint16_t width, uint16_t height) {
    xcb_get_image_reply_t* reply = xcb_get_image_reply(
        connection_, xcb_get_image(connection_, XCB_IMAGE_FORMAT_Z_PIXMAP, window_, 0, 0, width, height, ~0u), nullptr);
    if (reply == nullptr) return {};
    const uint8_t* data = xcb_get_image_data(reply);
    std::vector<uint8_t> pixels(data, data + xcb_get_image_data_length(reply));
    std::free(reply);
    return pixels;
  }
  // How many pixels of the top-left `width` x `height` have colour (r, g, b).
  size_t count_color(const std::vector<uint8_t>& pixels, uint8_t r, uint8_t g, uint8_t b) {
    size_t n = 0;
    for (size_t i = 0; i + 3 < pixels.size(); i += 4) n += pixels[i] == b && pixels[i + 1] == g && pixels[i + 2] == r;
    return n;
  }
  VkExtent2D current_extent() {
    VkSurfaceCapabilitiesKHR caps{};
    EXPECT_EQ(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(physical_, surface_, &caps), VK_SUCCESS);
    return caps.currentExtent;
  }
  static VkClearColorValue bytes(uint8_t r, uint8_t g, uint8_t b) {
    return VkClearColorValue{{r / 255.0f, g / 255.0f, b / 255.0f, 1.0f}};
  }

  int depth_ = 24;  // the screen's
  XvfbServer server_;
  xcb_connection_t* connection_ = nullptr;
  xcb_window_t window_ = 0;
};

TEST_F(VkWsiXcb, TheWindowIsPresentableAndSizesTheSwapchain) {
  xcb_screen_t* screen = xcb_setup_roots_iterator(xcb_get_setup(connection_)).data;
  EXPECT_TRUE(vkGetPhysicalDeviceXcbPresentationSupportKHR(physical_, 0, connection_, screen->root_visual));
  VkBool32 supported = VK_FALSE;
  ASSERT_EQ(vkGetPhysicalDeviceSurfaceSupportKHR(physical_, 0, surface_, &supported), VK_SUCCESS);
  EXPECT_TRUE(supported);
  VkSurfaceCapabilitiesKHR caps{};
  ASSERT_EQ(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(physical_, surface_, &caps), VK_SUCCESS);
  EXPECT_EQ(caps.currentExtent.width, 64u);
  EXPECT_EQ(caps.currentExtent.height, 48u);
  EXPECT_EQ(caps.minImageExtent.width, 64u);
  EXPECT_EQ(caps.maxImageExtent.height, 48u);
}

TEST_F(VkWsiXcb, PresentedClearsAreTheWindowsPixels) {
  VkSwapchainKHR swapchain = create_swapchain(swapchain_info({64, 48}, 2, VK_FORMAT_B8G8R8A8_UNORM));
  ASSERT_NE(swapchain, VK_NULL_HANDLE);
  EXPECT_EQ(count_color(window_pixels(64, 48), 0x20, 0x40, 0x80), 0u);
  const uint32_t first = frame(swapchain, bytes(0x20, 0x40, 0x80));
  EXPECT_EQ(count_color(window_pixels(64, 48), 0x20, 0x40, 0x80), 64u * 48u);
  const uint32_t second = frame(swapchain, bytes(0xF0, 0x10, 0x01));
  EXPECT_NE(first, second);
  EXPECT_EQ(count_color(window_pixels(64, 48), 0xF0, 0x10, 0x01), 64u * 48u);
}

TEST_F(VkWsiXcb, AResizedWindowIsSuboptimalUntilANewSwapchainRetiresTheOld) {
  VkSwapchainCreateInfoKHR info = swapchain_info({64, 48}, 2, VK_FORMAT_B8G8R8A8_UNORM);
  VkSwapchainKHR old = create_swapchain(info);
  ASSERT_NE(old, VK_NULL_HANDLE);
  frame(old, bytes(0x10, 0x20, 0x30));
  resize_window(80, 60);
  EXPECT_EQ(current_extent().width, 80u);
  // The image is still shown, in the window's top-left 64 x 48.
  frame(old, bytes(0x40, 0x50, 0x60), VK_SUBOPTIMAL_KHR);
  EXPECT_EQ(count_color(window_pixels(80, 60), 0x40, 0x50, 0x60), 64u * 48u);
  info.oldSwapchain = old;
  info.imageExtent = {80, 60};
  VkSwapchainKHR fresh = create_swapchain(info);
  ASSERT_NE(fresh, VK_NULL_HANDLE);
  uint32_t index = 0;
  EXPECT_EQ(vkAcquireNextImageKHR(device_, old, 0, VK_NULL_HANDLE, VK_NULL_HANDLE, &index), VK_ERROR_OUT_OF_DATE_KHR);
  frame(fresh, bytes(0x70, 0x80, 0x90));
  EXPECT_EQ(count_color(window_pixels(80, 60), 0x70, 0x80, 0x90), 80u * 60u);
}

TEST_F(VkWsiXcb, ADestroyedWindowIsALostSurface) {
  VkSwapchainKHR swapchain = create_swapchain(swapchain_info({64, 48}, 2, VK_FORMAT_B8G8R8A8_UNORM));
  ASSERT_NE(swapchain, VK_NULL_HANDLE);
  uint32_t index = 0;
  ASSERT_EQ(vkAcquireNextImageKHR(device_, swapchain, 0, VK_NULL_HANDLE, VK_NULL_HANDLE, &index), VK_SUCCESS);
  xcb_destroy_window(connection_, window_);
  xcb_flush(connection_);
  EXPECT_EQ(present(swapchain, index, false), VK_ERROR_SURFACE_LOST_KHR);
  EXPECT_EQ(vkAcquireNextImageKHR(device_, swapchain, 0, VK_NULL_HANDLE, VK_NULL_HANDLE, &index),
            VK_ERROR_SURFACE_LOST_KHR);
  VkSurfaceCapabilitiesKHR caps{};
  EXPECT_EQ(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(physical_, surface_, &caps), VK_ERROR_SURFACE_LOST_KHR);
}

// A 16-bit screen: its windows' pixels are not the swapchain formats' 32-bit B, G, R, X.
class VkWsiXcbDepth16 : public VkWsiXcb {
 protected:
  void SetUp() override {
    depth_ = 16;
    VkWsiXcb::SetUp();
  }
};

TEST_F(VkWsiXcbDepth16, AWindowOfAnotherPixelLayoutIsNotPresentable) {
  VkBool32 supported = VK_TRUE;
  ASSERT_EQ(vkGetPhysicalDeviceSurfaceSupportKHR(physical_, 0, surface_, &supported), VK_SUCCESS);
  EXPECT_FALSE(supported);
  VkSwapchainKHR swapchain = VK_NULL_HANDLE;
  const VkSwapchainCreateInfoKHR info = swapchain_info({64, 48}, 2, VK_FORMAT_B8G8R8A8_UNORM);
  EXPECT_EQ(vkCreateSwapchainKHR(device_, &info, nullptr, &swapchain), VK_ERROR_INITIALIZATION_FAILED);
  EXPECT_EQ(swapchain, VK_NULL_HANDLE);
}

}  // namespace
}  // namespace gsgpu::vk::test
