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
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "gsgpu/drv/drv.h"

namespace gsgpu::cl {

// The device-shaping fields configure the local device create_instance(config) opens; a runtime
// over a given device (the guest's virtio device) takes its shape from that device's caps.
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
  // Wall-clock time one dispatch may run (GSGPU_DISPATCH_TIME_MS) and all dispatches of this
  // runtime together (GSGPU_CLIENT_TIME_S): vcomp gives each guest context a runtime of its own, so
  // these are per dispatch and per context. 0 = no limit. Past either, the dispatch is stopped and
  // its event fails with CL_OUT_OF_RESOURCES; once the context's time is spent every later launch
  // fails the same way (host-side commands still work). Local device only.
  uint64_t dispatch_time_budget_ms = 60'000;
  uint64_t context_time_budget_s = 3600;
  // Byte quotas of one runtime (one guest context in vcomp), in KiB; 0 = no limit. Programs: the
  // sources, IL and binaries of live programs, the copies of their embedded headers and their build
  // logs (GSGPU_PROGRAM_QUOTA_KB; past it: CL_OUT_OF_HOST_MEMORY). Launch arguments: the argument
  // bytes captured by launches not yet retired (GSGPU_ARG_QUOTA_KB; past it the enqueue is
  // CL_OUT_OF_HOST_MEMORY). printf: the text the context's kernels may print in its life
  // (GSGPU_PRINTF_QUOTA_KB; past it output is dropped, logged once). VRAM is the device's own
  // (vram_mb, one device per runtime). A build log keeps at most build_log_max_kb (truncated).
  uint64_t program_quota_kb = 64 * 1024;
  uint64_t launch_arg_quota_kb = 16 * 1024;
  uint64_t printf_quota_kb = 16 * 1024;
  uint64_t build_log_max_kb = 1024;
  // GSGPU_DUMP_DIR: where the device's dump of every dispatch is written (empty = nowhere). The
  // runtime asks the device for it with a DUMP packet, so this works on every backend.
  std::string dump_dir;
  // How long (µs) an application thread that blocks on device work watches the oldest
  // submission's fence itself before it leaves the wait to the completion thread
  // (GSGPU_DIRECT_WAIT_US; 0 = never). A small kernel's result is then seen without a hand-off
  // between threads and, over virtio, without a transport round trip (docs/gsgpu-executor.md).
  uint32_t direct_wait_us = 500;
  // A wait (clWaitForEvents, clFinish, a blocking enqueue) behind a user event that is not set:
  // false refuses it with CL_INVALID_OPERATION (a host must never block on what only its guest can
  // complete; vcomp refuses such waits before they get here), true waits until another thread sets
  // the event, as OpenCL says (the native ICD: this runtime is the application's own).
  bool wait_for_user_events = false;
  // Images and samplers (CL_DEVICE_IMAGE_SUPPORT, __IMAGE_SUPPORT__, __opencl_c_images): kernels
  // read, write and sample them on the texture unit (gsgpu/compiler/lower_image.cc). GSGPU_IMAGES=0
  // switches them off (no image or sampler objects; image kernels still build, OpenCL C 1.x).
  bool image_support = true;
  // The program's -I directories and #includes are read here, in the application's process,
  // before the compiler runs in its sandbox, which sees only the OpenCL headers
  // (common/cl/program_includes.h). true for the native ICD, whose files are the application's;
  // false where this runtime serves a guest (remote mode), whose ICD has done it on its side.
  bool resolve_includes_locally = false;
};

// The local device's configuration for `config` (gsgpu/drv's local backend: the emulator in this
// process).
gsgpu::drv::LocalConfig local_config(const RuntimeConfig& config);

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
  // The device's capabilities, which the limits reported to OpenCL come from.
  const gsgpu::drv::Caps& caps() const;
  // "gsgpu: 4 cores, warp 32, 256 MiB VRAM (local)"
  std::string description() const;
  // Where this runtime's kernel printf text goes (nullptr: the process's stdout). Called from the
  // thread that retires the dispatch; a remoting host hands the text to its guest.
  void set_printf_sink(std::function<void(std::string_view)> sink);

 private:
  friend std::unique_ptr<Instance> create_instance(std::unique_ptr<gsgpu::drv::Device>, const RuntimeConfig&,
                                                   std::string*);
  explicit Instance(std::unique_ptr<Runtime> rt);
  std::unique_ptr<Runtime> rt_;
};

// A new runtime with its own local device (drv::open_local(local_config(config)); tests create
// several). nullptr and *error when the device cannot be opened.
std::unique_ptr<Instance> create_instance(const RuntimeConfig& config, std::string* error);
// A new runtime over an open device (the guest ICD passes its virtio device). `config` gives the
// runtime-side settings (dump_dir); the device's shape is its own.
std::unique_ptr<Instance> create_instance(std::unique_ptr<gsgpu::drv::Device> device, const RuntimeConfig& config,
                                          std::string* error);

}  // namespace gsgpu::cl
