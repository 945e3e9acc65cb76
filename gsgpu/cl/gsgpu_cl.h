// The gsgpu OpenCL runtime: an OpenCL implementation for the gsgpu device, reachable through the
// Khronos ICD dispatch table (cl_khr_icd) like any vendor driver.
//
// It is an ordinary userspace driver: the same code runs in the host (behind vcomp, as its gsgpu
// executor) and in a guest (as an ICD over the gsgpu native context). docs/gsgpu-executor.md.
#pragma once

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>
#include <CL/cl_icd.h>

#include <cstdint>
#include <memory>
#include <string>

namespace gsgpu::cl {

struct RuntimeConfig {
  uint32_t shader_cores = 4;    // GSGPU_CORES
  uint32_t warp_width = 32;     // GSGPU_WARP
  uint64_t vram_mb = 256;       // GSGPU_VRAM_MB
  // Instructions per warp before the watchdog ends a dispatch (GSGPU_WATCHDOG); 0 keeps the
  // device's reset value of WATCHDOG_BUDGET.
  uint64_t watchdog_budget = 0;
  // Work-items per NDRange (grid x group) the application may ask for in one enqueue
  // (GSGPU_MAX_WORK_ITEMS): with the per-warp watchdog, this bounds the work of one dispatch.
  uint64_t max_work_items = uint64_t{1} << 28;
  // GSGPU_DUMP_DIR: where the device's dump of every dispatch is written (empty = nowhere).
  std::string dump_dir;
};

// The configuration from the environment; unparsable or out-of-range values fall back to the
// defaults with a log line.
RuntimeConfig config_from_env();

class Runtime;

// One runtime: its device, its platform and the ICD dispatch table its handles point at.
class Instance {
 public:
  ~Instance();
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;

  cl_platform_id platform() const;
  const cl_icd_dispatch& api() const;
  const RuntimeConfig& config() const;
  // "gsgpu: 4 cores, warp 32, 256 MiB VRAM"
  std::string description() const;

 private:
  friend std::unique_ptr<Instance> create_instance(const RuntimeConfig&, std::string*);
  explicit Instance(std::unique_ptr<Runtime> rt);
  std::unique_ptr<Runtime> rt_;
};

// A new runtime with its own device (tests create several). nullptr and *error when the device
// cannot be opened.
std::unique_ptr<Instance> create_instance(const RuntimeConfig& config, std::string* error);

}  // namespace gsgpu::cl
