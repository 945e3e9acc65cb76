// A Vulkan instance, device and queue on the gsgpu driver through the Khronos loader: the
// environment (meson test) points VK_DRIVER_FILES at the build's manifest, so the one physical
// device the loader finds is gsgpu's.
#pragma once

#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <cstdint>
#include <vector>

namespace gsgpu::vk::test {

class VkFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.apiVersion = api_version_;
    VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    info.pApplicationInfo = &app;
    ASSERT_EQ(vkCreateInstance(&info, nullptr, &instance_), VK_SUCCESS);
    uint32_t count = 1;
    ASSERT_EQ(vkEnumeratePhysicalDevices(instance_, &count, &physical_), VK_SUCCESS);
    ASSERT_EQ(count, 1u);
    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queue_info.queueFamilyIndex = 0;
    queue_info.queueCount = 1;
    queue_info.pQueuePriorities = &priority;
    VkDeviceCreateInfo device_info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    device_info.queueCreateInfoCount = 1;
    device_info.pQueueCreateInfos = &queue_info;
    device_info.enabledExtensionCount = static_cast<uint32_t>(device_extensions_.size());
    device_info.ppEnabledExtensionNames = device_extensions_.data();
    device_info.pNext = device_features_;
    ASSERT_EQ(vkCreateDevice(physical_, &device_info, nullptr, &device_), VK_SUCCESS);
    vkGetDeviceQueue(device_, 0, 0, &queue_);
    ASSERT_NE(queue_, VK_NULL_HANDLE);
  }
  void TearDown() override {
    if (device_) vkDestroyDevice(device_, nullptr);
    if (instance_) vkDestroyInstance(instance_, nullptr);
  }

  uint32_t api_version_ = VK_API_VERSION_1_0;  // the application's; a derived fixture may ask for 1.1
  std::vector<const char*> device_extensions_;  // a derived fixture's device extensions
  const void* device_features_ = nullptr;       // and its VkDeviceCreateInfo pNext chain
  VkInstance instance_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
};

}  // namespace gsgpu::vk::test
