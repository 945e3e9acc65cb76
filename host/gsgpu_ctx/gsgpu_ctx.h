// The gsgpu native context (capset 17): the host serves the gsgpu/drv calls of a guest that runs
// gsgpu's own userspace driver. Each context opens an emulated device of its own, so its faults,
// hangs and resets stay inside it. docs/native-context.md.
#pragma once

#include <cstdint>

#include "protocol/gsgpu_ctx/gsgpu_ctx_protocol.h"

namespace gsvirt::gsgpu_ctx {

// How every new context's device is configured, and the quotas it enforces.
struct ContextConfig {
  uint32_t shader_cores = 2;
  uint32_t warp_width = 32;
  uint64_t vram_size = uint64_t{256} << 20;  // for BOs the guest does not back with a blob
  uint32_t num_rings = 4;                    // at most proto::kMaxRings
  uint64_t watchdog_budget = 0;              // instructions per warp; 0: the device's default
  // Wall-clock time one submission may run before the device stops it (a timeout fault of this
  // context); 0: no limit.
  uint64_t submit_time_budget_ns = uint64_t{2'000'000'000};
  // Work-items one DISPATCH may ask for: with the watchdog, what bounds a submission's run time.
  uint64_t max_work_items_per_dispatch = uint64_t{1} << 24;
  proto::Limits limits{
      .max_bos = 4096,
      .max_submit_bos = 4096,
      .max_bo_bytes = uint64_t{4} << 30,
      .max_submit_dwords = 65536,  // what the local backend takes in one submit
      .max_pending_submits = 1024,
  };
};

// The configuration of contexts created from now on (tests shorten the watchdog, shrink quotas).
void set_context_config(const ContextConfig& config);
ContextConfig context_config();

// Adds capset 17 to the renderer's registry (host/renderer/builtin_capsets.cc calls it).
void register_capset();

}  // namespace gsvirt::gsgpu_ctx
