// The gsgpu native context (capset 17): the host serves the gsgpu/drv calls of a guest that runs
// gsgpu's own userspace driver. Each context opens an emulated device of its own, so its faults,
// hangs and resets stay inside it. docs/native-context.md.
#pragma once

#include <cstdint>

#include "gsgpu/drv/drv.h"
#include "protocol/gsgpu_ctx/gsgpu_ctx_protocol.h"

namespace gsvirt::gsgpu_ctx {

// How every new context's device is configured, and the quotas it enforces.
struct ContextConfig {
  // The device's shape. The defaults are drv::LocalConfig's, the GPU remote mode emulates too; the
  // registered context type takes GSGPU_CORES, GSGPU_WARP, GSGPU_VRAM_MB, GSGPU_WATCHDOG,
  // GSGPU_MAX_WORK_ITEMS, GSGPU_SUBMIT_TIME_MS, GSGPU_CLIENT_TIME_S and GSGPU_MODE from the environment as remote mode does (context_config_from_env()).
  uint32_t shader_cores = gsgpu::drv::LocalConfig{}.shader_cores;
  uint32_t warp_width = gsgpu::drv::LocalConfig{}.warp_width;
  uint64_t vram_size = gsgpu::drv::LocalConfig{}.vram_size;  // for BOs the guest does not back with a blob
  uint32_t num_rings = 4;                                     // at most proto::kMaxRings
  // The emulator's fast draw mode (GSGPU_MODE=fast; docs/graphics.md "Reference and fast modes").
  bool fast_draws = gsgpu::drv::LocalConfig{}.fast_draws;
  // Instructions per warp before the watchdog stops a dispatch; 0: the device's default.
  uint64_t watchdog_budget = gsgpu::drv::LocalConfig{}.watchdog_budget;
  // Wall-clock time one submission may run before the device stops it (a timeout fault of this
  // context; GSGPU_SUBMIT_TIME_MS); 0: no limit. 60 s as remote mode's per-dispatch budget and
  // Linux compute job time-outs: an emulated GPU is slow, and real applications (hashcat's
  // autotuning) submit kernels that run several seconds on it.
  uint64_t submit_time_budget_ns = uint64_t{60'000'000'000};
  // Wall-clock time all of this context's submissions together may run (GSGPU_CLIENT_TIME_S):
  // once spent, its submissions fail with a timeout fault without running; 0: no limit.
  uint64_t client_time_budget_ns = uint64_t{3600} * 1'000'000'000;
  // Work-items one DISPATCH may ask for: with the watchdog and the time budget, what bounds a
  // submission's run time.
  uint64_t max_work_items_per_dispatch = gsgpu::drv::LocalConfig{}.max_work_items_per_dispatch;
  proto::Limits limits{
      .max_bos = 4096,
      .max_submit_bos = 4096,
      .max_bo_bytes = uint64_t{4} << 30,
      .max_submit_dwords = 65536,  // what the local backend takes in one submit
      .max_pending_submits = 1024,
  };
};

// ContextConfig{} with the device's shape from the environment (drv::local_config_from_env, the
// parser remote mode uses). The registered context type reads it once per process, in
// register_capset().
ContextConfig context_config_from_env();

// The configuration of contexts created from now on (tests shorten the watchdog, shrink quotas).
void set_context_config(const ContextConfig& config);
ContextConfig context_config();

// Adds capset 17 to the renderer's registry (host/capi/builtin_capsets.cc calls it).
void register_capset();

}  // namespace gsvirt::gsgpu_ctx
