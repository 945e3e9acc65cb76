// The gsgpu executor: an OpenCL 1.2 implementation over one emulated gsgpu::Device, reachable
// through the Khronos ICD dispatch table like every executor (host/vcomp/executor.h).
//
// Buffers live in the device's VRAM behind its MMU, programs are built by gsgpu/compiler,
// NDRange commands become DISPATCH + SYNC packets in the device's ring. docs/gsgpu-executor.md.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "host/vcomp/executor.h"

namespace gsvirt::vcomp {

struct GsgpuExecutorConfig {
  uint32_t shader_cores = 4;    // GSGPU_CORES
  uint32_t warp_width = 32;     // GSGPU_WARP
  uint64_t vram_mb = 256;       // GSGPU_VRAM_MB
  // Instructions per warp before the watchdog ends a dispatch (GSGPU_WATCHDOG); 0 keeps the
  // device's reset value of WATCHDOG_BUDGET.
  uint64_t watchdog_budget = 0;
  // Work-items per NDRange (grid x group) the guest may ask for in one enqueue
  // (GSGPU_MAX_WORK_ITEMS): with the per-warp watchdog, this bounds the work of one dispatch.
  uint64_t max_work_items = uint64_t{1} << 28;
  // GSGPU_DUMP_DIR: where the device's dump of every dispatch is written (empty = nowhere).
  std::string dump_dir;
};

// The configuration from the environment; unparsable or out-of-range values fall back to the
// defaults with a log line.
GsgpuExecutorConfig gsgpu_config_from_env();

// A new executor with its own device (tests create several). nullptr and *error when the device
// cannot be created.
std::unique_ptr<Executor> make_gsgpu_executor(const GsgpuExecutorConfig& config, std::string* error);

// The process-wide gsgpu executor (GSVIRT_EXECUTOR=gsgpu), configured from the environment.
Executor* gsgpu_executor(std::string* error);

}  // namespace gsvirt::vcomp
