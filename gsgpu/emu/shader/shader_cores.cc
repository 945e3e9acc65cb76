// ShaderCores: picks the interpreter build for this host (backend.h) and forwards to it.
#include <cstdlib>
#include <cstring>

#include "common/log.h"
#include "gsgpu/emu/shader/backend.h"
#include "gsgpu/emu/shader/shader_core.h"

namespace gsgpu {

const char* shader_fault_name(ShaderFaultKind k) {
  switch (k) {
    case ShaderFaultKind::kNone: return "none";
    case ShaderFaultKind::kMemory: return "memory";
    case ShaderFaultKind::kWatchdog: return "watchdog";
    case ShaderFaultKind::kIllegalInstruction: return "illegal-instruction";
    case ShaderFaultKind::kPcOutOfRange: return "pc-out-of-range";
    case ShaderFaultKind::kBadDispatch: return "bad-dispatch";
    case ShaderFaultKind::kCancelled: return "cancelled";
    case ShaderFaultKind::kBadDescriptor: return "bad-descriptor";
  }
  return "unknown";
}

const char* host_simd_name(HostSimd simd) {
  switch (simd) {
    case HostSimd::kAuto: return "auto";
    case HostSimd::kBaseline: return "baseline";
    case HostSimd::kAvx2: return "avx2";
    case HostSimd::kAvx512: return "avx512";
  }
  return "unknown";
}

bool host_supports(HostSimd simd) {
#if !GSGPU_SHADER_X86_VARIANTS
  return simd == HostSimd::kAuto || simd == HostSimd::kBaseline;
#else
  __builtin_cpu_init();
  // The features each variant library is compiled with (gsgpu/emu/shader/meson.build).
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                    __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
  switch (simd) {
    case HostSimd::kAuto:
    case HostSimd::kBaseline: return true;
    case HostSimd::kAvx2: return avx2;
    case HostSimd::kAvx512:
      return avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
  }
  return false;
#endif
}

namespace {

// The widest build this host runs, unless the configuration or GSGPU_SIMD asks for another one;
// a level the host lacks falls back to the widest it has (logged), never to an illegal instruction.
HostSimd choose_simd(HostSimd requested) {
  if (requested == HostSimd::kAuto) {
    if (const char* env = std::getenv("GSGPU_SIMD"); env && *env) {
      for (HostSimd s : {HostSimd::kBaseline, HostSimd::kAvx2, HostSimd::kAvx512})
        if (std::strcmp(env, host_simd_name(s)) == 0) requested = s;
      if (requested == HostSimd::kAuto)
        gsvirt::log_error("GSGPU_SIMD=%s is not one of baseline, avx2, avx512; choosing automatically", env);
    }
  }
  if (requested != HostSimd::kAuto) {
    if (host_supports(requested)) return requested;
    gsvirt::log_error("gsgpu: this host has no %s; using the widest build it supports", host_simd_name(requested));
  }
  for (HostSimd s : {HostSimd::kAvx512, HostSimd::kAvx2})
    if (host_supports(s)) return s;
  return HostSimd::kBaseline;
}

std::unique_ptr<shader::Backend> make_backend_for(HostSimd simd, const ShaderConfig& config) {
#if GSGPU_SHADER_X86_VARIANTS
  switch (simd) {
    case HostSimd::kAvx512: return std::unique_ptr<shader::Backend>(gsgpu_shader_make_backend_avx512(&config));
    case HostSimd::kAvx2: return std::unique_ptr<shader::Backend>(gsgpu_shader_make_backend_avx2(&config));
    default: break;
  }
#endif
  return shader::make_backend(config);
}

}  // namespace

ShaderCores::ShaderCores(const ShaderConfig& config)
    : config_(config), simd_(choose_simd(config.simd)), impl_(make_backend_for(simd_, config)) {}
ShaderCores::~ShaderCores() = default;

DispatchResult ShaderCores::run(const DispatchParams& params, GpuMemory& memory) {
  return impl_->run(params, memory);
}

}  // namespace gsgpu
