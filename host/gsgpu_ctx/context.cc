// The native context's life cycle, decoder loop and responses, and the requests that only read
// the device: GET_CAPS, READ_FAULTS, READ_COUNTERS, and RESET.
#include "host/gsgpu_ctx/context.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/checked_math.h"
#include "common/log.h"

namespace gsvirt::gsgpu_ctx {

using gsgpu::drv::Status;

namespace {

// READ_FAULTS keeps at most this many records between reads (the newest).
constexpr size_t kMaxQueuedFaults = 64;
// How long RESET waits for the device's last retirement report after the device's reset.
constexpr int kResetSettleMs = 10000;
// How long READ_FAULTS / READ_COUNTERS wait for the device's bookkeeping of a retired submission.
constexpr uint64_t kSettleNs = uint64_t{10'000'000'000};

static_assert(int32_t(proto::Status::kOk) == int32_t(Status::kOk));
static_assert(int32_t(proto::Status::kInvalidArgument) == int32_t(Status::kInvalidArgument));
static_assert(int32_t(proto::Status::kOutOfMemory) == int32_t(Status::kOutOfMemory));
static_assert(int32_t(proto::Status::kTimeout) == int32_t(Status::kTimeout));
static_assert(int32_t(proto::Status::kFaulted) == int32_t(Status::kFaulted));
static_assert(int32_t(proto::Status::kDeviceLost) == int32_t(Status::kDeviceLost));
static_assert(int32_t(proto::Status::kNotSupported) == int32_t(Status::kNotSupported));

}  // namespace

GsgpuContext::GsgpuContext(const renderer::ContextCreateInfo& info, const ContextConfig& config)
    : ctx_id_(info.ctx_id),
      config_(config),
      timelines_(info.ctx_id, config.num_rings, info.retire_fence, info.retire_cookie),
      bos_(config.limits.max_bos, config.limits.max_bo_bytes) {}

std::unique_ptr<GsgpuContext> GsgpuContext::create(const renderer::ContextCreateInfo& info,
                                                   const ContextConfig& config) {
  if (config.num_rings == 0 || config.num_rings > proto::kMaxRings) {
    log_error("gsgpu_ctx ctx %u: num_rings %u is outside 1..%u", info.ctx_id, config.num_rings,
              proto::kMaxRings);
    return nullptr;
  }
  std::unique_ptr<GsgpuContext> ctx(new GsgpuContext(info, config));
  gsgpu::drv::LocalConfig lc;
  lc.name = "gsgpu_ctx" + std::to_string(info.ctx_id);
  lc.shader_cores = config.shader_cores;
  lc.warp_width = config.warp_width;
  lc.vram_size = config.vram_size;
  lc.num_rings = config.num_rings;
  lc.watchdog_budget = config.watchdog_budget;
  lc.submit_time_budget_ns = config.submit_time_budget_ns;
  lc.client_time_budget_ns = config.client_time_budget_ns;
  lc.max_work_items_per_dispatch = config.max_work_items_per_dispatch;
  lc.fast_draws = config.fast_draws;
  lc.max_bos = config.limits.max_bos;
  lc.max_bo_bytes = config.limits.max_bo_bytes;
  Timelines* timelines = &ctx->timelines_;
  lc.on_retire = [timelines](uint32_t ring, uint64_t seqno, Status outcome) {
    timelines->retired(ring, seqno, outcome);
  };
  std::string error;
  ctx->device_ = gsgpu::drv::open_local(lc, &error);
  if (!ctx->device_) {
    log_error("gsgpu_ctx ctx %u: cannot open a device: %s", info.ctx_id, error.c_str());
    return nullptr;
  }
  return ctx;
}

GsgpuContext::~GsgpuContext() {
  // Closing the device retires or cancels what is in flight and runs the release callbacks of
  // imported BOs (they hold the blobs until then); timelines_ is still alive for its reports.
  device_.reset();
}

// ----- decoding -----

int GsgpuContext::submit_cmd(const void* data, size_t size) {
  if (fatal_) return -EINVAL;
  std::string error;
  bool ok = proto::dispatch_requests(*this, data, size, &error);
  current_request_ = "";
  if (!ok) set_fatal(error);
  return fatal_ ? -EINVAL : 0;
}

void GsgpuContext::set_fatal(const std::string& message) {
  if (fatal_) return;
  fatal_ = true;
  fatal_message_ = message;
  log_error("gsgpu_ctx ctx %u: fatal: %s (the context accepts no more requests)", ctx_id_,
            message.c_str());
}

proto::Status GsgpuContext::refuse(const char* field, const std::string& why, proto::Status status) {
  log_error("gsgpu_ctx ctx %u: %s: %s: %s", ctx_id_, current_request_, field, why.c_str());
  return status;
}

void GsgpuContext::refuse_field(const char* field, const std::string& why) { refuse(field, why); }

// ----- responses -----

bool GsgpuContext::response_fits(uint32_t rsp_off, uint32_t size, std::string* why) const {
  ResponseBuffer buffer = timelines_.response_buffer();
  if (!buffer.resource) {
    *why = "no response buffer is set (SET_RESPONSE_BUFFER)";
    return false;
  }
  if (rsp_off < proto::kFencePageSize || rsp_off % 8 != 0) {
    *why = std::to_string(rsp_off) + " is not an 8-aligned offset past the fence page (" +
           std::to_string(proto::kFencePageSize) + " bytes)";
    return false;
  }
  if (!range_within(rsp_off, size, buffer.size)) {
    *why = std::to_string(rsp_off) + " + " + std::to_string(size) + " response bytes run past the " +
           std::to_string(buffer.size) + "-byte response buffer";
    return false;
  }
  return true;
}

bool GsgpuContext::begin_request(const proto::ReqHeader& hdr, const char* name, uint32_t rsp_size) {
  current_request_ = name;
  log_debug(kDebugCommands, "gsgpu_ctx ctx %u: %s seqno %u rsp_off %u", ctx_id_, name, hdr.seqno,
            hdr.rsp_off);
  if (hdr.rsp_off == 0) return true;
  // A request whose outcome cannot reach the guest is not executed.
  std::string why;
  if (response_fits(hdr.rsp_off, rsp_size, &why)) return true;
  refuse("rsp_off", why + "; the request is not executed");
  return false;
}

void GsgpuContext::end_request(const proto::ReqHeader& hdr, const void* rsp, uint32_t rsp_size) {
  if (hdr.rsp_off == 0) return;
  // The request may have moved or dropped the buffer (SET_RESPONSE_BUFFER, a detach).
  std::string why;
  if (!response_fits(hdr.rsp_off, rsp_size, &why)) {
    refuse("rsp_off", why + "; the response is dropped");
    return;
  }
  ResponseBuffer buffer = timelines_.response_buffer();
  uint8_t* at = buffer.base() + hdr.rsp_off;
  // `rsp` is the decoder's zero-initialised shadow: copy everything but the seqno, then publish
  // the seqno so a polling guest sees a whole response or none.
  const auto* bytes = static_cast<const uint8_t*>(rsp);
  std::memcpy(at + sizeof(uint32_t), bytes + sizeof(uint32_t), rsp_size - sizeof(uint32_t));
  __atomic_store_n(reinterpret_cast<uint32_t*>(at), hdr.seqno, __ATOMIC_RELEASE);
}

proto::Status GsgpuContext::handle_set_response_buffer(const proto::SetResponseBuffer& r,
                                                       proto::SetResponseBufferRsp*) {
  const auto* res = attached_blob(r.req.res_id, "res_id");
  if (!res) return proto::Status::kInvalidArgument;
  if (r.req.offset % 8 != 0)
    return refuse("offset", std::to_string(r.req.offset) + " is not 8-aligned");
  if (r.req.size < proto::kFencePageSize + 8)
    return refuse("size", std::to_string(r.req.size) + " is below the fence page and one response (" +
                              std::to_string(proto::kFencePageSize + 8) + ")");
  if (r.req.size > UINT32_MAX)
    return refuse("size", std::to_string(r.req.size) + " is above what rsp_off can address");
  if (!range_within(r.req.offset, r.req.size, (*res)->size))
    return refuse("size", "range " + std::to_string(r.req.offset) + " + " + std::to_string(r.req.size) +
                              " is outside resource " + std::to_string(r.req.res_id) + " of " +
                              std::to_string((*res)->size) + " bytes");
  timelines_.set_response_buffer({*res, r.req.offset, r.req.size});
  return proto::Status::kOk;
}

// ----- resources -----

void GsgpuContext::attach_resource(std::shared_ptr<renderer::Resource> resource) {
  resources_[resource->id] = std::move(resource);
}

void GsgpuContext::detach_resource(uint32_t resource_id) {
  timelines_.drop_response_buffer_of(resource_id);
  // A BO over a detached blob goes with it. Submissions still running keep the memory: the
  // device's release callback holds the resource until they retire.
  for (uint32_t bo_id : bos_.backed_by(resource_id)) {
    log_debug(kDebugResources, "gsgpu_ctx ctx %u: BO %u is freed: its resource %u was detached", ctx_id_,
              bo_id, resource_id);
    free_bo(bo_id);
  }
  resources_.erase(resource_id);
}

const std::shared_ptr<renderer::Resource>* GsgpuContext::attached_blob(uint32_t res_id, const char* field) {
  auto it = resources_.find(res_id);
  if (it == resources_.end()) {
    refuse(field, "resource " + std::to_string(res_id) + " is not attached to this context");
    return nullptr;
  }
  if (!it->second->host_map) {
    refuse(field, "resource " + std::to_string(res_id) + " has no host mapping (a HOST3D blob is needed)");
    return nullptr;
  }
  return &it->second;
}

bool GsgpuContext::submit_fence(uint32_t ring_idx, uint64_t fence_id) {
  return timelines_.attach_fence(ring_idx, fence_id);
}

// ----- device queries -----

proto::Status GsgpuContext::handle_get_caps(const proto::GetCaps&, proto::GetCapsRsp* rsp) {
  const gsgpu::drv::Caps& c = device_->caps();
  rsp->caps.chip_id = c.chip_id;
  rsp->caps.version = c.version;
  rsp->caps.shader_cores = c.shader_cores;
  rsp->caps.warp_width = c.warp_width;
  rsp->caps.vram_size = c.vram_size;
  rsp->caps.va_base = c.va_base;
  rsp->caps.va_size = c.va_size;
  rsp->caps.max_work_group_size = c.max_work_group_size;
  rsp->caps.max_local_mem_size = c.max_local_mem_size;
  rsp->caps.max_private_mem_size = c.max_private_mem_size;
  rsp->caps.clock_mhz = c.clock_mhz;
  rsp->caps.max_work_items_per_dispatch = c.max_work_items_per_dispatch;
  rsp->caps.num_rings = c.num_rings;
  rsp->caps.page_size = c.page_size;
  rsp->caps.max_bo_size = c.max_bo_size;
  rsp->limits = config_.limits;
  return proto::Status::kOk;
}

void GsgpuContext::settle_retired() {
  std::vector<uint64_t> seqnos = timelines_.retired_device_seqnos();
  for (uint32_t ring = 0; ring < seqnos.size(); ++ring) {
    if (seqnos[ring] == 0) continue;
    Status s = device_->fence_wait(ring, seqnos[ring], kSettleNs);
    if (s == Status::kTimeout || s == Status::kInvalidArgument)
      log_error("gsgpu_ctx ctx %u: %s: ring %u seqno %llu did not settle (%s)", ctx_id_, current_request_, ring,
                (unsigned long long)seqnos[ring], gsgpu::drv::status_name(s));
  }
}

void GsgpuContext::collect_faults() {
  settle_retired();
  for (const gsgpu::drv::FaultInfo& f : device_->read_faults()) {
    proto::FaultRecord rec{};
    rec.kind = uint32_t(f.kind);
    rec.ring = f.ring;
    rec.seqno = timelines_.guest_seqno_of(f.ring, f.seqno);
    rec.detail = f.detail;
    rec.address = f.address;
    rec.pc = f.pc;
    std::memcpy(rec.message, f.message.data(), std::min(f.message.size(), sizeof rec.message - 1));
    faults_.push_back(rec);
    if (faults_.size() > kMaxQueuedFaults) faults_.pop_front();
  }
}

proto::Status GsgpuContext::handle_read_faults(const proto::ReadFaults&, proto::ReadFaultsRsp* rsp) {
  collect_faults();
  while (rsp->count < proto::kMaxFaultsPerResponse && !faults_.empty()) {
    rsp->faults[rsp->count++] = faults_.front();
    faults_.pop_front();
  }
  rsp->remaining = uint32_t(faults_.size());
  return proto::Status::kOk;
}

proto::Status GsgpuContext::handle_read_counters(const proto::ReadCounters&, proto::ReadCountersRsp* rsp) {
  settle_retired();
  gsgpu::drv::Counters c = device_->counters();
  rsp->counters.submissions = c.submissions;
  rsp->counters.packets = c.packets;
  rsp->counters.dispatches = c.dispatches;
  rsp->counters.instructions = c.instructions;
  rsp->counters.lane_instructions = c.lane_instructions;
  rsp->counters.cycles = c.cycles;
  rsp->counters.work_groups = c.work_groups;
  rsp->counters.faults = c.faults;
  rsp->counters.resets = c.resets;
  return proto::Status::kOk;
}

proto::Status GsgpuContext::handle_reset(const proto::Reset&, proto::ResetRsp*) {
  Status s = device_->reset();
  if (s != Status::kOk) return refuse("reset", "the device refused", from_drv(s));
  // The response promises a fence page that shows every cancelled submission retired: the device
  // reports each one just after its own bookkeeping, so wait for the last report.
  if (!timelines_.wait_all_retired(kResetSettleMs))
    return refuse("reset", "submissions did not retire within " + std::to_string(kResetSettleMs) + " ms",
                  proto::Status::kTimeout);
  return proto::Status::kOk;
}

}  // namespace gsvirt::gsgpu_ctx
