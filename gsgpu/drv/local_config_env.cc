// The local device's shape from the environment (GSGPU_*): one parser for every mode that opens a
// local device, so remote and native mode emulate the same GPU.
#include <cstdlib>
#include <string_view>

#include "common/log.h"
#include "gsgpu/drv/drv.h"

namespace gsgpu::drv {
namespace {

// Reads an unsigned number in [lo, hi] from the environment into *value. False when the variable
// is unset or unusable (then with a log line saying that `kept` stays).
bool env_number(const char* name, uint64_t lo, uint64_t hi, uint64_t kept, uint64_t* value) {
  const char* s = std::getenv(name);
  if (!s || !*s) return false;
  char* end = nullptr;
  unsigned long long v = std::strtoull(s, &end, 0);
  if (*end || v < lo || v > hi) {
    gsvirt::log_error("gsgpu: %s=\"%s\" is not in %llu..%llu; using %llu", name, s,
                      static_cast<unsigned long long>(lo), static_cast<unsigned long long>(hi),
                      static_cast<unsigned long long>(kept));
    return false;
  }
  *value = v;
  return true;
}

}  // namespace

LocalConfig local_config_from_env(LocalConfig base) {
  LocalConfig c = std::move(base);
  uint64_t v = 0;
  if (env_number("GSGPU_CORES", 1, 256, c.shader_cores, &v)) c.shader_cores = uint32_t(v);
  if (env_number("GSGPU_WARP", 1, 64, c.warp_width, &v)) {
    if (v & (v - 1))
      gsvirt::log_error("gsgpu: GSGPU_WARP=%llu is not a power of two; using %u", static_cast<unsigned long long>(v),
                        c.warp_width);
    else
      c.warp_width = uint32_t(v);
  }
  if (env_number("GSGPU_VRAM_MB", 16, 16384, c.vram_size >> 20, &v)) c.vram_size = v << 20;
  if (env_number("GSGPU_WATCHDOG", 1, UINT32_MAX, c.watchdog_budget, &v)) c.watchdog_budget = v;
  if (env_number("GSGPU_MAX_WORK_ITEMS", 1, uint64_t{1} << 40, c.max_work_items_per_dispatch, &v))
    c.max_work_items_per_dispatch = v;
  if (env_number("GSGPU_DISPATCH_TIME_MS", 0, UINT32_MAX, c.dispatch_time_budget_ns / 1000000, &v))
    c.dispatch_time_budget_ns = v * 1000000;
  if (env_number("GSGPU_SUBMIT_TIME_MS", 0, UINT32_MAX, c.submit_time_budget_ns / 1000000, &v))
    c.submit_time_budget_ns = v * 1000000;
  if (env_number("GSGPU_CLIENT_TIME_S", 0, UINT32_MAX, c.client_time_budget_ns / 1000000000, &v))
    c.client_time_budget_ns = v * 1000000000;
  if (const char* mode = std::getenv("GSGPU_MODE"); mode && *mode) {
    if (std::string_view(mode) == "fast" || std::string_view(mode) == "reference")
      c.fast_draws = std::string_view(mode) == "fast";
    else
      gsvirt::log_error("gsgpu: GSGPU_MODE=\"%s\" is neither fast nor reference; keeping %s", mode,
                        c.fast_draws ? "fast" : "reference");
  }
  return c;
}

}  // namespace gsgpu::drv
