// gsgpu::drv::Device over the gsgpu native context. One mutex serialises the device's state and
// the channel; a fence wait drops it while it blocks in the transport.
#include "guest/gsgpu/virtio_device.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "common/checked_math.h"
#include "common/log.h"
#include "gsgpu/drv/packets.h"
#include "guest/gsgpu/channel.h"
#include "gsgpu/drv/va_table.h"

namespace gsgpu::drv {
namespace {

using gsgpu::virtio::Channel;
using gsgpu::drv::VaTable;
using gsvirt::guest::Blob;
using gsvirt::guest::WaitResult;
namespace proto = gsvirt::gsgpu_ctx::proto;

// The device keeps the newest 64 faults (drv.h); so do we.
constexpr size_t kMaxKeptFaults = 64;
// Waits up to this long watch the fence page instead of asking the transport (see fence_wait).
constexpr uint64_t kWatchFencePageUpToNs = 2'000'000;

Caps caps_of(const proto::Caps& c) {
  Caps caps;
  caps.chip_id = c.chip_id;
  caps.version = c.version;
  caps.shader_cores = c.shader_cores;
  caps.warp_width = c.warp_width;
  caps.vram_size = c.vram_size;
  caps.va_base = c.va_base;
  caps.va_size = c.va_size;
  caps.max_work_group_size = c.max_work_group_size;
  caps.max_local_mem_size = c.max_local_mem_size;
  caps.max_private_mem_size = c.max_private_mem_size;
  caps.max_work_items_per_dispatch = c.max_work_items_per_dispatch;
  caps.clock_mhz = c.clock_mhz;
  caps.num_rings = c.num_rings;
  caps.max_bo_size = c.max_bo_size;
  caps.page_size = c.page_size;
  return caps;
}

FaultInfo fault_of(const proto::FaultRecord& r) {
  FaultInfo f;
  f.kind = FaultKind(r.kind);
  f.ring = r.ring;
  f.seqno = r.seqno;
  f.detail = r.detail;
  f.address = r.address;
  f.pc = r.pc;
  f.message.assign(r.message, strnlen(r.message, sizeof r.message));
  return f;
}

class VirtioDevice final : public Device {
 public:
  explicit VirtioDevice(std::unique_ptr<gsvirt::guest::Transport> transport)
      : channel_(std::move(transport)), va_(0, 0, 4096) {}

  bool open(std::string* error) {
    if (!channel_.open(error)) return false;
    caps_ = caps_of(channel_.capset().caps);
    limits_ = channel_.capset().limits;
    va_ = VaTable(caps_.va_base, caps_.va_size, caps_.page_size);
    rings_.assign(caps_.num_rings, Ring{});
    return true;
  }

  const char* backend_name() const override { return "virtio"; }
  const Caps& caps() const override { return caps_; }

  Status bo_create(uint64_t size, uint32_t flags, BoHandle* out) override;
  Status bo_free(BoHandle bo) override;
  void* bo_map(BoHandle bo) override;
  uint64_t bo_size(BoHandle bo) override;
  Status va_bind(BoHandle bo, uint64_t bo_offset, uint64_t va, uint64_t size, uint32_t perms) override;
  Status va_unbind(uint64_t va, uint64_t size) override;
  Status submit(const SubmitDesc& desc, uint64_t* seqno) override;
  uint64_t fence_poll(uint32_t ring) override;
  Status fence_wait(uint32_t ring, uint64_t seqno, uint64_t timeout_ns) override;
  bool watch_fence_page(uint32_t ring, uint64_t seqno, uint64_t timeout_ns) const;
  std::vector<FaultInfo> read_faults() override;
  Counters counters() override;
  Status reset() override;

 private:
  struct Bo {
    Blob blob;
    uint64_t size = 0;
  };
  struct Ring {
    uint64_t issued = 0;        // newest seqno submitted
    uint64_t known_faulted = 0;  // newest faulted seqno already looked into
    std::deque<uint64_t> faulted;  // seqnos known to have faulted (newest kMaxKeptFaults)
  };

  Status refuse(const char* call, const std::string& why) const {
    gsvirt::log_error("gsgpu virtio: %s: %s", call, why.c_str());
    return Status::kInvalidArgument;
  }
  Status lost_status() const { return Status::kDeviceLost; }
  Status check_submit(const SubmitDesc& desc) const;
  Status outcome_locked(uint32_t ring, uint64_t seqno);
  bool fetch_faults_locked();

  std::mutex mutex_;
  Channel channel_;
  Caps caps_;
  proto::Limits limits_{};
  VaTable va_;
  std::unordered_map<BoHandle, Bo> bos_;
  uint64_t bo_bytes_ = 0;
  BoHandle next_bo_ = 1;
  std::vector<Ring> rings_;
  std::deque<FaultInfo> faults_;  // fetched from the host, not yet read by the driver
};

Status VirtioDevice::bo_create(uint64_t size, uint32_t flags, BoHandle* out) {
  if (!out) return refuse("bo_create", "out is null");
  *out = 0;
  if (flags != 0) return refuse("bo_create", "flags " + std::to_string(flags) + " must be 0");
  if (size == 0 || size > caps_.max_bo_size)
    return refuse("bo_create", "size " + std::to_string(size) + " must be in 1.." + std::to_string(caps_.max_bo_size));
  const uint64_t rounded = (size + caps_.page_size - 1) / caps_.page_size * caps_.page_size;
  std::lock_guard lock(mutex_);
  if (channel_.lost()) return lost_status();
  if (bos_.size() >= limits_.max_bos || rounded > limits_.max_bo_bytes - std::min(bo_bytes_, limits_.max_bo_bytes)) {
    gsvirt::log_error("gsgpu virtio: bo_create: %" PRIu64 " bytes would pass the context's quota (%zu objects, "
                      "%" PRIu64 " bytes in use)", rounded, bos_.size(), bo_bytes_);
    return Status::kOutOfMemory;
  }
  Bo bo;
  if (!channel_.create_blob(rounded, &bo.blob)) {
    gsvirt::log_error("gsgpu virtio: bo_create: no blob of %" PRIu64 " bytes: %s", rounded, channel_.error().c_str());
    return channel_.lost() ? lost_status() : Status::kOutOfMemory;
  }
  while (next_bo_ == 0 || bos_.count(next_bo_)) ++next_bo_;
  BoHandle handle = next_bo_++;
  bo.size = rounded;
  proto::BoCreateReq req{};
  req.bo_id = handle;
  req.res_id = bo.blob.resource_id;
  req.size = rounded;
  proto::encode_bo_create(channel_.batch(), 0, 0, req);
  bos_.emplace(handle, bo);
  bo_bytes_ += rounded;
  *out = handle;
  return channel_.flush_if_full() ? Status::kOk : lost_status();
}

Status VirtioDevice::bo_free(BoHandle handle) {
  std::lock_guard lock(mutex_);
  auto it = bos_.find(handle);
  if (it == bos_.end()) return refuse("bo_free", "unknown handle " + std::to_string(handle));
  va_.drop_bo(handle);
  proto::BoDestroyReq req{};
  req.bo_id = handle;
  proto::encode_bo_destroy(channel_.batch(), 0, 0, req);
  // The host keeps the memory while submissions use it; our mapping can go with the batch.
  channel_.destroy_blob_after_flush(it->second.blob);
  bo_bytes_ -= it->second.size;
  bos_.erase(it);
  return channel_.flush_if_full() ? Status::kOk : lost_status();
}

void* VirtioDevice::bo_map(BoHandle handle) {
  std::lock_guard lock(mutex_);
  auto it = bos_.find(handle);
  if (it == bos_.end()) {
    refuse("bo_map", "unknown handle " + std::to_string(handle));
    return nullptr;
  }
  return it->second.blob.map;
}

uint64_t VirtioDevice::bo_size(BoHandle handle) {
  std::lock_guard lock(mutex_);
  auto it = bos_.find(handle);
  if (it == bos_.end()) {
    refuse("bo_size", "unknown handle " + std::to_string(handle));
    return 0;
  }
  return it->second.size;
}

Status VirtioDevice::va_bind(BoHandle handle, uint64_t bo_offset, uint64_t va, uint64_t size, uint32_t perms) {
  std::lock_guard lock(mutex_);
  auto it = bos_.find(handle);
  if (it == bos_.end()) return refuse("va_bind", "unknown handle " + std::to_string(handle));
  if (std::string why = va_.bind(handle, it->second.size, bo_offset, va, size, perms); !why.empty())
    return refuse("va_bind", why);
  proto::VaBindReq req{};
  req.bo_id = handle;
  req.perms = perms;
  req.bo_offset = bo_offset;
  req.va = va;
  req.size = size;
  proto::encode_va_bind(channel_.batch(), 0, 0, req);
  return channel_.flush_if_full() ? Status::kOk : lost_status();
}

Status VirtioDevice::va_unbind(uint64_t va, uint64_t size) {
  std::lock_guard lock(mutex_);
  if (std::string why = va_.unbind(va, size); !why.empty()) return refuse("va_unbind", why);
  proto::VaUnbindReq req{};
  req.va = va;
  req.size = size;
  proto::encode_va_unbind(channel_.batch(), 0, 0, req);
  return channel_.flush_if_full() ? Status::kOk : lost_status();
}

Status VirtioDevice::check_submit(const SubmitDesc& desc) const {
  if (desc.ring >= caps_.num_rings)
    return refuse("submit", "ring " + std::to_string(desc.ring) + " is not below " + std::to_string(caps_.num_rings));
  if (desc.dwords && !desc.packets) return refuse("submit", "packets is null");
  if (desc.dwords > limits_.max_submit_dwords)
    return refuse("submit", std::to_string(desc.dwords) + " dwords exceed the context's limit of " +
                                std::to_string(limits_.max_submit_dwords));
  if (desc.bo_count > limits_.max_submit_bos || (desc.bo_count && !desc.bos))
    return refuse("submit", std::to_string(desc.bo_count) + " BOs: more than " +
                                std::to_string(limits_.max_submit_bos) + " or no list");
  for (uint32_t i = 0; i < desc.bo_count; i++)
    if (!bos_.count(desc.bos[i])) return refuse("submit", "bos[" + std::to_string(i) + "] is an unknown handle");
  return Status::kOk;
}

Status VirtioDevice::submit(const SubmitDesc& desc, uint64_t* seqno) {
  if (!seqno) return refuse("submit", "seqno is null");
  *seqno = 0;
  std::lock_guard lock(mutex_);
  if (channel_.lost()) return lost_status();
  if (Status s = check_submit(desc); s != Status::kOk) return s;
  Ring& ring = rings_[desc.ring];
  uint64_t next = ring.issued + 1;
  // drv takes an empty submission (it still retires in order); the native context wants packets.
  static const uint32_t kNop = encode_nop().at(0);
  proto::SubmitReq req{};
  req.ring = desc.ring;
  req.bo_count = desc.bo_count;
  req.ring_seqno = next;
  req.dword_count = desc.dwords ? desc.dwords : 1;
  proto::encode_submit(channel_.batch(), 0, 0, req, desc.bos, desc.dwords ? desc.packets : &kNop);
  if (!channel_.send_submit(desc.ring, next)) return lost_status();
  ring.issued = next;
  *seqno = next;
  return Status::kOk;
}

uint64_t VirtioDevice::fence_poll(uint32_t ring) {
  if (ring >= caps_.num_rings) {
    refuse("fence_poll", "ring " + std::to_string(ring) + " is not below " + std::to_string(caps_.num_rings));
    return 0;
  }
  return channel_.ring_fence(ring).retired_seqno;
}

// Faults the host recorded since the last look, kept for read_faults() and to tell which
// seqnos faulted.
bool VirtioDevice::fetch_faults_locked() {
  for (int rounds = 0; rounds < 64; rounds++) {
    proto::ReadFaultsRsp rsp{};
    if (!channel_.call("READ_FAULTS", [](auto& out, uint32_t seqno, uint32_t rsp_off) {
          proto::encode_read_faults(out, seqno, rsp_off, proto::ReadFaultsReq{});
        }, &rsp, sizeof rsp))
      return false;
    uint32_t count = std::min<uint32_t>(rsp.count, proto::kMaxFaultsPerResponse);
    for (uint32_t i = 0; i < count; i++) {
      FaultInfo fault = fault_of(rsp.faults[i]);
      if (fault.ring < rings_.size() && fault.seqno) {
        auto& faulted = rings_[fault.ring].faulted;
        faulted.push_back(fault.seqno);
        if (faulted.size() > kMaxKeptFaults) faulted.pop_front();
      }
      faults_.push_back(std::move(fault));
      if (faults_.size() > kMaxKeptFaults) faults_.pop_front();
    }
    if (rsp.remaining == 0) return true;
  }
  return true;
}

// `seqno` of `ring` has retired: completed (kOk) or faulted / cancelled / refused (kFaulted).
Status VirtioDevice::outcome_locked(uint32_t ring, uint64_t seqno) {
  Ring& r = rings_[ring];
  proto::RingFence fence = channel_.ring_fence(ring);
  if (fence.faulted_seqno == seqno) return Status::kFaulted;
  if (fence.faulted_seqno > r.known_faulted) {
    // Something faulted since we last looked: the host's records say which submissions.
    if (!fetch_faults_locked()) return channel_.lost() ? lost_status() : Status::kFaulted;
    r.known_faulted = fence.faulted_seqno;
  }
  bool faulted = std::find(r.faulted.begin(), r.faulted.end(), seqno) != r.faulted.end();
  return faulted ? Status::kFaulted : Status::kOk;
}

Status VirtioDevice::fence_wait(uint32_t ring, uint64_t seqno, uint64_t timeout_ns) {
  std::unique_lock lock(mutex_);
  if (ring >= caps_.num_rings)
    return refuse("fence_wait", "ring " + std::to_string(ring) + " is not below " + std::to_string(caps_.num_rings));
  if (seqno == 0 || seqno > rings_[ring].issued)
    return refuse("fence_wait", "seqno " + std::to_string(seqno) + " of ring " + std::to_string(ring) +
                                    " was never issued (newest " + std::to_string(rings_[ring].issued) + ")");
  if (channel_.ring_fence(ring).retired_seqno >= seqno) return outcome_locked(ring, seqno);
  if (channel_.lost()) return lost_status();
  lock.unlock();
  if (timeout_ns <= kWatchFencePageUpToNs) {
    // A short wait (the runtime's application thread, about to find a small kernel's result)
    // watches the fence page, which the host writes from its device thread as the submission
    // retires: no message, no wake-up of the host's main thread, no fd to pass. Cf. the short
    // busy-wait kernel drivers do before they sleep on a request.
    const bool retired = watch_fence_page(ring, seqno, timeout_ns);
    lock.lock();
    return retired ? outcome_locked(ring, seqno) : Status::kTimeout;
  }
  WaitResult waited = channel_.transport().wait_point(ring, seqno, timeout_ns);
  lock.lock();
  if (waited == WaitResult::kTimeout) return Status::kTimeout;
  if (waited == WaitResult::kError) {
    gsvirt::log_error("gsgpu virtio: fence_wait: the transport failed: %s", channel_.transport().error().c_str());
    return lost_status();
  }
  if (channel_.ring_fence(ring).retired_seqno < seqno) {
    // The host retired the transport's fence but never took the submission (it refused the
    // stream before the SUBMIT; see its log).
    gsvirt::log_error("gsgpu virtio: fence_wait: seqno %" PRIu64 " of ring %u was never run by the host", seqno, ring);
    return Status::kFaulted;
  }
  return outcome_locked(ring, seqno);
}

// Polls the fence page until `seqno` of `ring` retired or timeout_ns passed: a few pause
// instructions first, then yielding the CPU between looks (the host's threads may need it).
bool VirtioDevice::watch_fence_page(uint32_t ring, uint64_t seqno, uint64_t timeout_ns) const {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline = Clock::now() + std::chrono::nanoseconds(timeout_ns);
  for (uint32_t look = 0;; ++look) {
    if (channel_.ring_fence(ring).retired_seqno >= seqno) return true;
    if (look % 32 == 31 && Clock::now() >= deadline) return false;
    if (look < 64) {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    } else {
      std::this_thread::yield();
    }
  }
}

std::vector<FaultInfo> VirtioDevice::read_faults() {
  std::lock_guard lock(mutex_);
  if (!channel_.lost()) fetch_faults_locked();
  std::vector<FaultInfo> out(std::make_move_iterator(faults_.begin()), std::make_move_iterator(faults_.end()));
  faults_.clear();
  return out;
}

Counters VirtioDevice::counters() {
  std::lock_guard lock(mutex_);
  proto::ReadCountersRsp rsp{};
  Counters c;
  if (!channel_.call("READ_COUNTERS", [](auto& out, uint32_t seqno, uint32_t rsp_off) {
        proto::encode_read_counters(out, seqno, rsp_off, proto::ReadCountersReq{});
      }, &rsp, sizeof rsp))
    return c;
  c.submissions = rsp.counters.submissions;
  c.packets = rsp.counters.packets;
  c.dispatches = rsp.counters.dispatches;
  c.instructions = rsp.counters.instructions;
  c.lane_instructions = rsp.counters.lane_instructions;
  c.cycles = rsp.counters.cycles;
  c.work_groups = rsp.counters.work_groups;
  c.faults = rsp.counters.faults;
  c.resets = rsp.counters.resets;
  return c;
}

Status VirtioDevice::reset() {
  std::lock_guard lock(mutex_);
  proto::ResetRsp rsp{};
  if (!channel_.call("RESET", [](auto& out, uint32_t seqno, uint32_t rsp_off) {
        proto::encode_reset(out, seqno, rsp_off, proto::ResetReq{});
      }, &rsp, sizeof rsp))
    return lost_status();
  if (rsp.status < 0 || rsp.status > int32_t(Status::kNotSupported)) return lost_status();
  return Status(rsp.status);
}

}  // namespace

std::unique_ptr<Device> open_virtio(std::unique_ptr<gsvirt::guest::Transport> transport, std::string* error) {
  std::string problem;
  if (!transport) {
    problem = "no transport";
  } else {
    auto device = std::make_unique<VirtioDevice>(std::move(transport));
    if (device->open(&problem)) return device;
  }
  gsvirt::log_error("gsgpu virtio: cannot open the native context: %s", problem.c_str());
  if (error) *error = "gsgpu virtio: " + problem;
  return nullptr;
}

}  // namespace gsgpu::drv
