// Registration of the vcomp context type (capset 16) with the renderer core.
#include <cstdlib>
#include <cstring>

#include "common/log.h"
#include "host/renderer/context.h"
#include "host/renderer/isolation.h"
#include "host/renderer/worker_context.h"
#include "host/vcomp/vcomp.h"
#include "host/vcomp/vcomp_context.h"

namespace gsvirt::vcomp {
namespace {

void fill_caps(uint32_t version, std::vector<uint8_t>& out) {
  (void)version;
  proto::Capset caps{};
  caps.wire_version = proto::kWireVersion;
  std::memcpy(caps.xml_hash, proto::kXmlHash, sizeof caps.xml_hash);
  out.assign(reinterpret_cast<const uint8_t*>(&caps), reinterpret_cast<const uint8_t*>(&caps) + sizeof caps);
}

// The host executor runs guest work through a vendor driver (on a CPU device, as native code):
// outside a process that is already sandboxed for one guest, such a context runs in a context
// worker of its own (issue 12 point 1). The executor is known from the environment, so the
// renderer's process never loads the vendor driver.
bool runs_in_worker() {
  if (renderer::process_sandboxed()) return false;
  switch (renderer::isolation_setting()) {
    case renderer::Isolation::kOff: return false;
    case renderer::Isolation::kEveryVcomp: return true;
    case renderer::Isolation::kHostExecutor: break;
  }
  const char* executor = std::getenv("GSVIRT_EXECUTOR");
  return executor && std::strcmp(executor, "host") == 0;
}

std::unique_ptr<renderer::Context> create(const renderer::ContextCreateInfo& info) {
  if (runs_in_worker()) return renderer::start_worker_context(info, renderer::worker_options_from_environment());
  std::string error;
  Executor* executor = default_executor(&error);
  if (!executor) {
    log_error("vcomp ctx %u: cannot create: %s", info.ctx_id, error.c_str());
    return nullptr;
  }
  return std::make_unique<VcompContext>(info.ctx_id, executor);
}

}  // namespace

void register_capset() {
  renderer::CapsetInfo info;
  info.capset_id = proto::kCapsetId;
  info.max_version = proto::kWireVersion;
  info.fill_caps = fill_caps;
  info.create = create;
  renderer::register_capset(info);
}

}  // namespace gsvirt::vcomp
