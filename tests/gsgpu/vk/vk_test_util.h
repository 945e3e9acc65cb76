// A Vulkan instance, device and queue on the gsgpu driver through the Khronos loader: the
// environment (meson test) points VK_DRIVER_FILES at the build's manifest, so the one physical
// device the loader finds is gsgpu's.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace gsgpu::vk::test {

// The physical devices of a test instance, by driver. A test environment lists gsgpu once, or twice
// when both the local and the native-context library are installed as ICDs (tests/gsgpu/vk's
// native suite); lavapipe ("llvmpipe ...") is the reference where Debian's mesa-vulkan-drivers is.
struct TestDevices {
  std::vector<VkPhysicalDevice> gsgpu;
  VkPhysicalDevice lavapipe = VK_NULL_HANDLE;
  uint32_t count = 0;  // every device the loader listed, for failure messages
};

// Creates an instance for the application's `api_version` and sorts its physical devices by name.
// Lavapipe stays loaded for the process: it keeps a few allocations until exit, which
// LeakSanitizer would otherwise report at its unload.
inline ::testing::AssertionResult create_test_instance(uint32_t api_version, VkInstance* instance,
                                                       TestDevices* found) {
  dlopen("libvulkan_lvp.so", RTLD_NOW | RTLD_NODELETE);
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = api_version;
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;
  if (VkResult r = vkCreateInstance(&info, nullptr, instance); r != VK_SUCCESS)
    return ::testing::AssertionFailure() << "vkCreateInstance: " << r;
  uint32_t count = 0;
  if (vkEnumeratePhysicalDevices(*instance, &count, nullptr) != VK_SUCCESS)
    return ::testing::AssertionFailure() << "vkEnumeratePhysicalDevices failed";
  std::vector<VkPhysicalDevice> devices(count);
  if (vkEnumeratePhysicalDevices(*instance, &count, devices.data()) != VK_SUCCESS)
    return ::testing::AssertionFailure() << "vkEnumeratePhysicalDevices failed";
  found->count = count;
  for (VkPhysicalDevice d : devices) {
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(d, &p);
    if (std::strcmp(p.deviceName, "gsgpu") == 0) found->gsgpu.push_back(d);
    if (std::strncmp(p.deviceName, "llvmpipe", 8) == 0) found->lavapipe = d;
  }
  return ::testing::AssertionSuccess();
}

// As create_test_instance, and both a gsgpu and the lavapipe device must be there.
inline ::testing::AssertionResult create_reference_instance(uint32_t api_version, VkInstance* instance,
                                                            TestDevices* found) {
  ::testing::AssertionResult created = create_test_instance(api_version, instance, found);
  if (!created) return created;
  if (found->gsgpu.empty() || !found->lavapipe)
    return ::testing::AssertionFailure() << found->count << " devices; both gsgpu and lavapipe are needed";
  return ::testing::AssertionSuccess();
}

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
