// How the Vulkan driver reaches the GPU: one gsgpu/drv client per VkDevice (and one more, briefly,
// at vkCreateInstance to read the caps). The driver's code is the same in every route; each ICD
// library links one definition of open_driver_client:
//   libgsgpu_vk.so         local_client.cc: drv::open_local, the emulated device in the
//                          application's process (gsvirt run, the host route)
//   libgsgpu_vk_native.so  guest/gsgpu/native_vk_client.cc: drv::open_virtio over the transport
//                          the environment names, the gsgpu native context on the host (gsvirt run
//                          --mode native, and inside a VM)
#pragma once

#include <memory>
#include <string>

#include "gsgpu/drv/drv.h"

namespace gsgpu::vk {

// A new driver client, or nullptr and *error. `config` is the local device's shape
// (GSGPU_* environment applied); a remote backend ignores it: the host's context has its own.
std::unique_ptr<drv::Device> open_driver_client(const drv::LocalConfig& config, std::string* error);

}  // namespace gsgpu::vk
