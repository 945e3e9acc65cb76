// Registration of the gsgpu native context (capset 17) with the renderer core, and the capset:
// wire version, XML hash, the caps a device reports from its registers, the context's limits.
#include <cstring>
#include <mutex>
#include <optional>

#include "common/log.h"
#include "host/gsgpu_ctx/context.h"
#include "host/gsgpu_ctx/gsgpu_ctx.h"
#include "host/renderer/context.h"

namespace gsvirt::gsgpu_ctx {
namespace {

struct Shared {
  std::mutex mutex;
  ContextConfig config = context_config_from_env();
  // The capset of `config`, read once from a device (every context's device reports the same).
  std::optional<proto::Capset> capset;
};

Shared& shared() {
  static Shared s;
  return s;
}

// Opens a device the way a context does and asks it for its caps, through the same handler the
// guest's GET_CAPS reaches.
std::optional<proto::Capset> read_capset(const ContextConfig& config) {
  renderer::ContextCreateInfo info;
  info.ctx_id = 0;
  auto ctx = GsgpuContext::create(info, config);
  if (!ctx) return std::nullopt;
  proto::GetCapsRsp rsp{};
  ctx->handle_get_caps(proto::GetCaps{}, &rsp);
  proto::Capset capset{};
  capset.wire_version = proto::kWireVersion;
  capset.capset_size = sizeof capset;
  std::memcpy(capset.xml_hash, proto::kXmlHash, sizeof capset.xml_hash);
  capset.caps = rsp.caps;
  capset.limits = rsp.limits;
  return capset;
}

void fill_caps(uint32_t version, std::vector<uint8_t>& out) {
  (void)version;
  Shared& s = shared();
  std::lock_guard lock(s.mutex);
  if (!s.capset) s.capset = read_capset(s.config);
  proto::Capset capset{};
  if (s.capset) {
    capset = *s.capset;
  } else {
    // No device: the guest still learns the version and hash, and zero caps tell it no device.
    log_error("gsgpu_ctx: capset: no device could be opened; the caps are zero");
    capset.wire_version = proto::kWireVersion;
    capset.capset_size = sizeof capset;
    std::memcpy(capset.xml_hash, proto::kXmlHash, sizeof capset.xml_hash);
  }
  const auto* bytes = reinterpret_cast<const uint8_t*>(&capset);
  out.assign(bytes, bytes + sizeof capset);
}

std::unique_ptr<renderer::Context> create(const renderer::ContextCreateInfo& info) {
  return GsgpuContext::create(info, context_config());
}

}  // namespace

ContextConfig context_config_from_env() {
  ContextConfig c;
  gsgpu::drv::LocalConfig shape;
  shape.shader_cores = c.shader_cores;
  shape.warp_width = c.warp_width;
  shape.vram_size = c.vram_size;
  shape.watchdog_budget = c.watchdog_budget;
  shape.max_work_items_per_dispatch = c.max_work_items_per_dispatch;
  shape.client_time_budget_ns = c.client_time_budget_ns;
  shape.submit_time_budget_ns = c.submit_time_budget_ns;
  shape.fast_draws = c.fast_draws;
  shape = gsgpu::drv::local_config_from_env(std::move(shape));
  c.fast_draws = shape.fast_draws;
  c.client_time_budget_ns = shape.client_time_budget_ns;
  c.submit_time_budget_ns = shape.submit_time_budget_ns;
  c.shader_cores = shape.shader_cores;
  c.warp_width = shape.warp_width;
  c.vram_size = shape.vram_size;
  c.watchdog_budget = shape.watchdog_budget;
  c.max_work_items_per_dispatch = shape.max_work_items_per_dispatch;
  return c;
}

void set_context_config(const ContextConfig& config) {
  Shared& s = shared();
  std::lock_guard lock(s.mutex);
  s.config = config;
  s.capset.reset();
}

ContextConfig context_config() {
  Shared& s = shared();
  std::lock_guard lock(s.mutex);
  return s.config;
}

void register_capset() {
  shared();  // the environment is read here, once per process
  renderer::CapsetInfo info;
  info.capset_id = proto::kCapsetId;
  info.max_version = proto::kWireVersion;
  info.fill_caps = fill_caps;
  info.create = create;
  renderer::register_capset(info);
}

}  // namespace gsvirt::gsgpu_ctx
