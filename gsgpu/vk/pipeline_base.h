// What every VkPipeline handle points to: graphics (draw_objects.h) and compute (compute_objects.h)
// pipelines share one handle type, so the handle names this base and its bind point says which one
// it is (vkCmdBindPipeline and vkDestroyPipeline read it).
#pragma once

#include <vulkan/vulkan_core.h>

namespace gsgpu::vk {

struct Device;

struct PipelineBase {
  VkPipelineBindPoint bind_point = VK_PIPELINE_BIND_POINT_GRAPHICS;
  Device* device = nullptr;
};

}  // namespace gsgpu::vk
