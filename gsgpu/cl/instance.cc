// The runtime's public face (gsgpu_cl.h) and its configuration from the environment.
#include <algorithm>
#include <cstdlib>
#include <string_view>

#include "gsgpu/cl/runtime.h"

namespace gsgpu::cl {
namespace {

// A quota in KiB from the environment (0..2^32, 0 = no limit); an unusable value keeps *value with
// a log line.
void env_kib(const char* name, uint64_t* value) {
  const char* s = std::getenv(name);
  if (!s || !*s) return;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(s, &end, 10);
  if (*end || v > UINT32_MAX) {
    log_error("gsgpu: %s=\"%s\" is not a size in KiB (0..2^32); using %llu", name, s,
              static_cast<unsigned long long>(*value));
    return;
  }
  *value = v;
}

}  // namespace

RuntimeConfig config_from_env() {
  RuntimeConfig c;
  // The device's shape is parsed where the local device is described, for every mode alike.
  gsgpu::drv::LocalConfig lc = gsgpu::drv::local_config_from_env(local_config(c));
  c.shader_cores = lc.shader_cores;
  c.warp_width = lc.warp_width;
  c.vram_mb = lc.vram_size >> 20;
  c.watchdog_budget = lc.watchdog_budget;
  c.max_work_items = lc.max_work_items_per_dispatch;
  c.dispatch_time_budget_ms = lc.dispatch_time_budget_ns / 1000000;
  c.context_time_budget_s = lc.client_time_budget_ns / 1000000000;
  if (const char* dir = std::getenv("GSGPU_DUMP_DIR")) c.dump_dir = dir;
  if (const char* us = std::getenv("GSGPU_DIRECT_WAIT_US")) {
    char* end = nullptr;
    const unsigned long v = std::strtoul(us, &end, 10);
    if (end != us && *end == '\0' && v <= 1000000)
      c.direct_wait_us = uint32_t(v);
    else
      log_error("GSGPU_DIRECT_WAIT_US=%s is not 0..1000000 (µs); keeping %u", us, c.direct_wait_us);
  }
  if (const char* images = std::getenv("GSGPU_IMAGES")) {
    if (std::string_view(images) == "0" || std::string_view(images) == "1")
      c.image_support = images[0] == '1';
    else
      log_error("GSGPU_IMAGES=%s is not 0 or 1; keeping %d", images, int(c.image_support));
  }
  env_kib("GSGPU_PROGRAM_QUOTA_KB", &c.program_quota_kb);
  env_kib("GSGPU_ARG_QUOTA_KB", &c.launch_arg_quota_kb);
  env_kib("GSGPU_PRINTF_QUOTA_KB", &c.printf_quota_kb);
  return c;
}

Instance::Instance(std::unique_ptr<Runtime> rt) : rt_(std::move(rt)) {}
Instance::~Instance() = default;

cl_platform_id Instance::platform() const { return handle_of<cl_platform_id>(rt_->platform); }
const cl_icd_dispatch& Instance::api() const { return *rt_->table; }
const RuntimeConfig& Instance::config() const { return rt_->config(); }
const gsgpu::drv::Caps& Instance::caps() const { return rt_->caps(); }

void Instance::set_printf_sink(std::function<void(std::string_view)> sink) {
  std::lock_guard lock(rt_->mutex);
  rt_->printf_sink = std::move(sink);
}

std::string Instance::description() const {
  const gsgpu::drv::Caps& c = rt_->caps();
  return "gsgpu: " + std::to_string(c.shader_cores) + " cores, warp " + std::to_string(c.warp_width) + ", " +
         std::to_string(c.vram_size >> 20) + " MiB VRAM (" + rt_->device().backend_name() + ")";
}

gsgpu::drv::LocalConfig local_config(const RuntimeConfig& config) {
  gsgpu::drv::LocalConfig lc;
  lc.name = "gsgpu-cl";
  lc.shader_cores = config.shader_cores;
  lc.warp_width = config.warp_width;
  lc.vram_size = config.vram_mb << 20;
  lc.watchdog_budget = config.watchdog_budget;
  lc.max_work_items_per_dispatch = config.max_work_items;
  // Saturated: drv refuses budgets above 2^62 ns, far beyond any useful one.
  lc.dispatch_time_budget_ns = std::min<uint64_t>(config.dispatch_time_budget_ms, uint64_t{1} << 40) * 1000000;
  lc.client_time_budget_ns = std::min<uint64_t>(config.context_time_budget_s, uint64_t{1} << 32) * 1000000000;
  // Dumps are asked for with DUMP packets (ndrange.cc), named after the kernel: not the device's.
  return lc;
}

std::unique_ptr<Instance> create_instance(const RuntimeConfig& config, std::string* error) {
  std::string why;
  std::unique_ptr<gsgpu::drv::Device> device = gsgpu::drv::open_local(local_config(config), &why);
  if (!device) {
    if (error) *error = "gsgpu runtime: cannot open the local device: " + why;
    return nullptr;
  }
  return create_instance(std::move(device), config, error);
}

std::unique_ptr<Instance> create_instance(std::unique_ptr<gsgpu::drv::Device> device, const RuntimeConfig& config,
                                          std::string* error) {
  std::string why;
  auto rt = Runtime::create(config, std::move(device), &why);
  if (!rt) {
    if (error) *error = why;
    return nullptr;
  }
  return std::unique_ptr<Instance>(new Instance(std::move(rt)));
}

}  // namespace gsgpu::cl
