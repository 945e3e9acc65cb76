// libgsgpu_vk.so's route: the emulated device in the application's own process (driver_client.h).
#include "gsgpu/vk/driver_client.h"

namespace gsgpu::vk {

std::unique_ptr<drv::Device> open_driver_client(const drv::LocalConfig& config, std::string* error) {
  return drv::open_local(config, error);
}

}  // namespace gsgpu::vk
