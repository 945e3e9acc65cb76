// Built instead of shader_backend.cc while the tree has no shader core (gsgpu/emu/shader is still a
// placeholder): every dispatch is refused with an explicit "not supported" fault.
#include "gsgpu/emu/dispatch_backend.h"

namespace gsgpu {
namespace {

class UnsupportedBackend final : public DispatchBackend {
 public:
  const char* name() const override { return "none (built without shader cores)"; }

  DispatchOutcome dispatch(const DispatchRequest&, GpuMemory&) override {
    DispatchOutcome out;
    out.counters.faults = 1;
    out.fault = DispatchFault{};
    out.fault->kind = DispatchFaultKind::kNotSupported;
    out.fault->message = "this build of gsgpu has no shader cores";
    return out;
  }

  std::string disassemble(const uint32_t*, size_t count) override {
    return "; disassembly not supported in this build (" + std::to_string(count) + " words)\n";
  }
};

}  // namespace

std::unique_ptr<DispatchBackend> make_shader_backend(const ShaderCoreSettings&) {
  return std::make_unique<UnsupportedBackend>();
}

}  // namespace gsgpu
