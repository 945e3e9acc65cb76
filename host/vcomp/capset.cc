// Registration of the vcomp context type (capset 16) with the renderer core.
#include <cstring>

#include "common/log.h"
#include "host/renderer/context.h"
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

std::unique_ptr<renderer::Context> create(const renderer::ContextCreateInfo& info) {
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
