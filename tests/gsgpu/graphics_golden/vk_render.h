// A small headless Vulkan renderer for the golden-image tests: the same scene as gsgpu's, drawn by
// lavapipe (Mesa's CPU Vulkan driver) through the Khronos loader into an offscreen image and copied to
// the host. The pipeline state comes from the scene unchanged; the shaders are gsgpu's fixed
// stand-ins written in GLSL (shaders/), compiled to SPIR-V at build time.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "tests/gsgpu/graphics_golden/scene.h"

namespace gsgpu::golden {

class LavapipeRenderer {
 public:
  // Points the loader at lavapipe's ICD (VK_DRIVER_FILES, unless already set) and opens its device;
  // nullptr with *error when there is no lavapipe.
  static std::unique_ptr<LavapipeRenderer> create(std::string* error);
  ~LavapipeRenderer();
  LavapipeRenderer(const LavapipeRenderer&) = delete;
  LavapipeRenderer& operator=(const LavapipeRenderer&) = delete;

  std::optional<Frame> render(const Scene& scene, std::string* error);
  const std::string& device_name() const;
  uint32_t sub_pixel_precision_bits() const;  // VkPhysicalDeviceLimits::subPixelPrecisionBits

  struct State;

 private:
  explicit LavapipeRenderer(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace gsgpu::golden
