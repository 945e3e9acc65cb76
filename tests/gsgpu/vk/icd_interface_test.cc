// The library as the loader opens it: only the loader-ICD interface is exported, and the
// interface version is negotiated down to 5.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <cstdlib>

namespace gsgpu::vk::test {
namespace {

class IcdInterface : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* path = std::getenv("GSGPU_VK_LIBRARY");  // set by meson test
    ASSERT_NE(path, nullptr);
    lib_ = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(lib_, nullptr) << dlerror();
  }
  void TearDown() override {
    if (lib_) dlclose(lib_);
  }
  void* lib_ = nullptr;
};

TEST_F(IcdInterface, ExportsTheLoaderInterfaceAndNoVulkanCommand) {
  EXPECT_NE(dlsym(lib_, "vk_icdGetInstanceProcAddr"), nullptr);
  EXPECT_NE(dlsym(lib_, "vk_icdNegotiateLoaderICDInterfaceVersion"), nullptr);
  EXPECT_NE(dlsym(lib_, "vk_icdGetPhysicalDeviceProcAddr"), nullptr);
  EXPECT_EQ(dlsym(lib_, "vkCreateInstance"), nullptr);
  EXPECT_EQ(dlsym(lib_, "vkGetInstanceProcAddr"), nullptr);
}

TEST_F(IcdInterface, NegotiatesVersionFiveAndRefusesVersionsBelowTwo) {
  auto negotiate = reinterpret_cast<VkResult (*)(uint32_t*)>(dlsym(lib_, "vk_icdNegotiateLoaderICDInterfaceVersion"));
  ASSERT_NE(negotiate, nullptr);
  uint32_t version = 7;
  EXPECT_EQ(negotiate(&version), VK_SUCCESS);
  EXPECT_EQ(version, 5u);
  version = 3;
  EXPECT_EQ(negotiate(&version), VK_SUCCESS);
  EXPECT_EQ(version, 3u);
  version = 1;
  EXPECT_EQ(negotiate(&version), VK_ERROR_INCOMPATIBLE_DRIVER);
}

TEST_F(IcdInterface, GlobalLookupsWithoutAnInstanceOfferOnlyGlobalCommands) {
  auto gipa = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(lib_, "vk_icdGetInstanceProcAddr"));
  ASSERT_NE(gipa, nullptr);
  EXPECT_NE(gipa(VK_NULL_HANDLE, "vkCreateInstance"), nullptr);
  EXPECT_NE(gipa(VK_NULL_HANDLE, "vkEnumerateInstanceExtensionProperties"), nullptr);
  EXPECT_EQ(gipa(VK_NULL_HANDLE, "vkEnumeratePhysicalDevices"), nullptr);
  EXPECT_EQ(gipa(VK_NULL_HANDLE, "vkEnumerateInstanceVersion"), nullptr);  // a 1.0 driver
  auto gpdpa = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(lib_, "vk_icdGetPhysicalDeviceProcAddr"));
  ASSERT_NE(gpdpa, nullptr);
  VkInstance not_null = reinterpret_cast<VkInstance>(uintptr_t{1});  // not dereferenced by the lookup
  EXPECT_NE(gpdpa(not_null, "vkGetPhysicalDeviceProperties"), nullptr);
  EXPECT_NE(gpdpa(not_null, "vkGetPhysicalDeviceProperties2"), nullptr);
  EXPECT_EQ(gpdpa(not_null, "vkGetPhysicalDeviceProperties2KHR"), gpdpa(not_null, "vkGetPhysicalDeviceProperties2"));
  EXPECT_NE(gpdpa(not_null, "vkGetPhysicalDeviceSurfaceSupportKHR"), nullptr);
  EXPECT_EQ(gpdpa(not_null, "vkGetPhysicalDeviceWaylandPresentationSupportKHR"), nullptr);  // no Wayland
  EXPECT_EQ(gpdpa(not_null, "vkCmdCopyBuffer"), nullptr);
}

}  // namespace
}  // namespace gsgpu::vk::test
