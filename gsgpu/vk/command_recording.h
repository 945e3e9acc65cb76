// The check every vkCmd* entry point makes first: the command buffer is recording.
#pragma once

#include <vulkan/vulkan.h>

namespace gsgpu::vk {

struct CommandBuffer;

// The command buffer behind `handle` when it is recording; otherwise logs that `command` was not
// recorded (Vulkan leaves recording outside vkBegin / vkEndCommandBuffer undefined; the driver
// refuses it with a log line instead) and returns nullptr.
CommandBuffer* recording(VkCommandBuffer handle, const char* command);

}  // namespace gsgpu::vk
