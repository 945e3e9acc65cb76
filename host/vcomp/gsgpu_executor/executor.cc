// The Executor vcomp sees: a runtime (one gsgpu device) and its platform handle.
#include <cstdlib>
#include <mutex>

#include "common/log.h"
#include "host/vcomp/gsgpu_executor/runtime.h"

namespace gsvirt::vcomp {
namespace {

class GsgpuExecutor final : public Executor {
 public:
  explicit GsgpuExecutor(std::unique_ptr<gsgpu_exec::Runtime> rt)
      : rt_(std::move(rt)),
        name_("gsgpu: " + std::to_string(rt_->config().shader_cores) + " cores, warp " +
              std::to_string(rt_->config().warp_width) + ", " + std::to_string(rt_->config().vram_mb) +
              " MiB VRAM") {}
  const std::string& name() const override { return name_; }
  cl_platform_id platform() const override {
    return gsgpu_exec::handle_of<cl_platform_id>(rt_->platform);
  }
  const cl_icd_dispatch& api() const override { return *rt_->table; }

 private:
  std::unique_ptr<gsgpu_exec::Runtime> rt_;
  std::string name_;
};

// An unsigned number from the environment within [lo, hi], else `fallback` (with a log line when
// the variable was set but unusable).
uint64_t env_number(const char* name, uint64_t lo, uint64_t hi, uint64_t fallback) {
  const char* s = std::getenv(name);
  if (!s || !*s) return fallback;
  char* end = nullptr;
  unsigned long long v = std::strtoull(s, &end, 0);
  if (*end || v < lo || v > hi) {
    log_error("gsgpu executor: %s=\"%s\" is not in %llu..%llu; using %llu", name, s,
              static_cast<unsigned long long>(lo), static_cast<unsigned long long>(hi),
              static_cast<unsigned long long>(fallback));
    return fallback;
  }
  return v;
}

}  // namespace

GsgpuExecutorConfig gsgpu_config_from_env() {
  GsgpuExecutorConfig c;
  c.shader_cores = uint32_t(env_number("GSGPU_CORES", 1, 256, c.shader_cores));
  c.warp_width = uint32_t(env_number("GSGPU_WARP", 1, 64, c.warp_width));
  if (c.warp_width & (c.warp_width - 1)) {
    log_error("gsgpu executor: GSGPU_WARP=%u is not a power of two; using 32", c.warp_width);
    c.warp_width = 32;
  }
  c.vram_mb = env_number("GSGPU_VRAM_MB", 16, 16384, c.vram_mb);
  c.watchdog_budget = env_number("GSGPU_WATCHDOG", 1, UINT32_MAX, c.watchdog_budget);
  c.max_work_items = env_number("GSGPU_MAX_WORK_ITEMS", 1, uint64_t{1} << 40, c.max_work_items);
  if (const char* dir = std::getenv("GSGPU_DUMP_DIR")) c.dump_dir = dir;
  return c;
}

std::unique_ptr<Executor> make_gsgpu_executor(const GsgpuExecutorConfig& config, std::string* error) {
  std::string why;
  auto rt = gsgpu_exec::Runtime::create(config, &why);
  if (!rt) {
    if (error) *error = why;
    return nullptr;
  }
  return std::make_unique<GsgpuExecutor>(std::move(rt));
}

Executor* gsgpu_executor(std::string* error) {
  // Immortal like the host executor: contexts owned by static objects release their objects
  // during exit.
  static std::once_flag once;
  static Executor* executor = nullptr;
  static std::string* init_error = new std::string;
  std::call_once(once, [] { executor = make_gsgpu_executor(gsgpu_config_from_env(), init_error).release(); });
  if (!executor && error) *error = *init_error;
  return executor;
}

}  // namespace gsvirt::vcomp
