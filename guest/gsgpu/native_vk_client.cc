// libgsgpu_vk_native.so's route: the gsgpu Vulkan driver (gsgpu/vk, unchanged) over the virtio
// backend of gsgpu/drv, so it runs in a guest and the host's gsgpu native context only checks and
// runs its BOs, bindings and packets (driver_client.h). Each VkDevice is its own native context on
// its own transport connection, as each open of a DRM device node is its own client.
#include "common/log.h"
#include "gsgpu/vk/driver_client.h"
#include "guest/gsgpu/virtio_device.h"
#include "guest/transport/transport.h"

namespace gsgpu::vk {

// `config` describes a local device; the host's native context decides the device's shape.
std::unique_ptr<drv::Device> open_driver_client(const drv::LocalConfig&, std::string* error) {
  std::unique_ptr<gsvirt::guest::Transport> transport = gsvirt::guest::create_transport_from_env(error);
  if (!transport) return nullptr;
  std::unique_ptr<drv::Device> device = drv::open_virtio(std::move(transport), error);
  if (device) gsvirt::log_debug(gsvirt::kDebugGuest, "gsgpu-vk native: %s backend", device->backend_name());
  return device;
}

}  // namespace gsgpu::vk
