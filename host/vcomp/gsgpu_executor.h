// The gsgpu executor: vcomp's face of the gsgpu OpenCL runtime (gsgpu/cl), which runs on the
// emulated gsgpu device and is reachable through the Khronos ICD dispatch table like every
// executor (host/vcomp/executor.h). docs/gsgpu-executor.md.
#pragma once

#include <memory>
#include <string>

#include "gsgpu/cl/gsgpu_cl.h"
#include "host/vcomp/executor.h"

namespace gsvirt::vcomp {

using GsgpuExecutorConfig = gsgpu::cl::RuntimeConfig;

// The configuration from the environment (GSGPU_* variables; see gsgpu/cl/gsgpu_cl.h).
inline GsgpuExecutorConfig gsgpu_config_from_env() { return gsgpu::cl::config_from_env(); }

// A new executor with its own device (tests create several). nullptr and *error when the device
// cannot be created.
std::unique_ptr<Executor> make_gsgpu_executor(const GsgpuExecutorConfig& config, std::string* error);

// The process-wide gsgpu executor (GSVIRT_EXECUTOR=gsgpu), configured from the environment.
Executor* gsgpu_executor(std::string* error);

}  // namespace gsvirt::vcomp
