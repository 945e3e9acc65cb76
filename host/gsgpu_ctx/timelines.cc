#include "host/gsgpu_ctx/timelines.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "common/log.h"

namespace gsvirt::gsgpu_ctx {

using gsgpu::drv::Status;

namespace {

// How many faulted submissions per ring keep their guest seqno for READ_FAULTS (the device keeps
// the newest 64 faults).
constexpr size_t kRecentFaults = 64;

}  // namespace

Timelines::Timelines(uint32_t ctx_id, uint32_t num_rings, renderer::FenceRetireFn retire_fence, void* cookie)
    : ctx_id_(ctx_id), retire_fence_(retire_fence), cookie_(cookie), rings_(num_rings) {}

void Timelines::set_response_buffer(const ResponseBuffer& buffer) {
  std::lock_guard lock(mutex_);
  buffer_ = buffer;
  uint8_t* page = buffer_.base();
  if (!page) return;
  // The guest may already poll the page: fill it, then publish the magic last.
  std::memset(page + sizeof(uint32_t), 0, proto::kFencePageSize - sizeof(uint32_t));
  auto* fp = reinterpret_cast<proto::FencePage*>(page);
  __atomic_store_n(&fp->num_rings, uint32_t(rings_.size()), __ATOMIC_RELAXED);
  for (uint32_t ring = 0; ring < rings_.size(); ++ring) write_ring_locked(ring);
  __atomic_store_n(&fp->magic, proto::kFencePageMagic, __ATOMIC_RELEASE);
}

ResponseBuffer Timelines::response_buffer() const {
  std::lock_guard lock(mutex_);
  return buffer_;
}

void Timelines::drop_response_buffer_of(uint32_t res_id) {
  std::lock_guard lock(mutex_);
  if (buffer_.resource && buffer_.resource->id == res_id) buffer_ = {};
}

bool Timelines::admit(uint32_t ring, uint64_t guest_seqno, std::string* why) {
  std::lock_guard lock(mutex_);
  if (ring >= rings_.size()) {
    *why = "ring " + std::to_string(ring) + " is out of range (the device has " +
           std::to_string(rings_.size()) + ")";
    return false;
  }
  Ring& r = rings_[ring];
  if (guest_seqno <= r.last_admitted) {
    *why = "seqno " + std::to_string(guest_seqno) + " of ring " + std::to_string(ring) +
           " does not increase (last " + std::to_string(r.last_admitted) + ")";
    return false;
  }
  r.last_admitted = guest_seqno;
  return true;
}

Status Timelines::submit(gsgpu::drv::Device& device, const gsgpu::drv::SubmitDesc& desc, uint64_t guest_seqno) {
  // Under the lock: the device thread may retire the submission before submit() returns, and
  // retired() must find its entry.
  std::lock_guard lock(mutex_);
  uint64_t device_seqno = 0;
  Status status = device.submit(desc, &device_seqno);
  Ring& r = rings_[desc.ring];
  if (status != Status::kOk) {
    refuse_locked(desc.ring, guest_seqno);
    return status;
  }
  r.pending.push_back({device_seqno, guest_seqno});
  ++in_flight_;
  return status;
}

void Timelines::refuse(uint32_t ring, uint64_t guest_seqno) {
  std::lock_guard lock(mutex_);
  refuse_locked(ring, guest_seqno);
}

void Timelines::refuse_locked(uint32_t ring, uint64_t guest_seqno) {
  Ring& r = rings_[ring];
  if (r.pending.empty()) {
    r.retired = r.faulted = guest_seqno;
    publish_locked(ring, {});
    return;
  }
  // Consecutive refusals retire together: keep only the newest (with the fences of both).
  if (r.pending.back().device_seqno == 0)
    r.pending.back().guest_seqno = guest_seqno;
  else
    r.pending.push_back({0, guest_seqno});
}

uint32_t Timelines::in_flight() const {
  std::lock_guard lock(mutex_);
  return in_flight_;
}

bool Timelines::attach_fence(uint32_t ring, uint64_t fence_id) {
  std::lock_guard lock(mutex_);
  if (ring >= rings_.size() || rings_[ring].pending.empty()) return true;
  rings_[ring].pending.back().fence_ids.push_back(fence_id);
  return false;
}

bool Timelines::wait_all_retired(int timeout_ms) {
  std::unique_lock lock(mutex_);
  return all_retired_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] { return in_flight_ == 0; });
}

std::vector<uint64_t> Timelines::retired_device_seqnos() const {
  std::lock_guard lock(mutex_);
  std::vector<uint64_t> seqnos;
  for (const Ring& r : rings_) seqnos.push_back(r.retired_device_seqno);
  return seqnos;
}

uint64_t Timelines::guest_seqno_of(uint32_t ring, uint64_t device_seqno) const {
  std::lock_guard lock(mutex_);
  if (ring >= rings_.size() || device_seqno == 0) return 0;
  const Ring& r = rings_[ring];
  for (const Pending& p : r.pending)
    if (p.device_seqno == device_seqno) return p.guest_seqno;
  for (const Pending& p : r.recent_faults)
    if (p.device_seqno == device_seqno) return p.guest_seqno;
  return 0;
}

void Timelines::remember_fault_locked(Ring& r, const Pending& p) {
  r.recent_faults.push_back({p.device_seqno, p.guest_seqno});  // the seqnos only
  if (r.recent_faults.size() > kRecentFaults) r.recent_faults.pop_front();
}

void Timelines::retired(uint32_t ring, uint64_t device_seqno, Status outcome) {
  std::lock_guard lock(mutex_);
  if (ring >= rings_.size()) return;
  Ring& r = rings_[ring];
  r.retired_device_seqno = std::max(r.retired_device_seqno, device_seqno);
  std::vector<uint64_t> fence_ids;
  auto take_fences = [&](Pending& p) {
    fence_ids.insert(fence_ids.end(), p.fence_ids.begin(), p.fence_ids.end());
  };
  bool any = false;
  while (!r.pending.empty() && r.pending.front().device_seqno != 0 &&
         r.pending.front().device_seqno <= device_seqno) {
    Pending p = std::move(r.pending.front());
    r.pending.pop_front();
    --in_flight_;
    any = true;
    r.retired = p.guest_seqno;
    take_fences(p);
    if (p.device_seqno == device_seqno && outcome != Status::kOk) {
      r.faulted = p.guest_seqno;
      remember_fault_locked(r, p);
    }
  }
  if (!any) return;
  if (in_flight_ == 0) all_retired_.notify_all();
  // Refused submissions queued behind the ones that just retired go with them.
  while (!r.pending.empty() && r.pending.front().device_seqno == 0) {
    r.retired = r.faulted = r.pending.front().guest_seqno;
    take_fences(r.pending.front());
    r.pending.pop_front();
  }
  publish_locked(ring, fence_ids);
}

void Timelines::write_ring_locked(uint32_t ring) {
  uint8_t* page = buffer_.base();
  if (!page || ring >= proto::kMaxRings) return;
  auto* fp = reinterpret_cast<proto::FencePage*>(page);
  // faulted first: a guest that sees its seqno retired then finds out whether it faulted.
  __atomic_store_n(&fp->rings[ring].faulted_seqno, rings_[ring].faulted, __ATOMIC_RELEASE);
  __atomic_store_n(&fp->rings[ring].retired_seqno, rings_[ring].retired, __ATOMIC_RELEASE);
}

void Timelines::publish_locked(uint32_t ring, const std::vector<uint64_t>& fence_ids) {
  write_ring_locked(ring);
  log_debug(kDebugCommands, "gsgpu_ctx ctx %u: ring %u retired through seqno %llu (faulted %llu), %zu fences",
            ctx_id_, ring, (unsigned long long)rings_[ring].retired, (unsigned long long)rings_[ring].faulted,
            fence_ids.size());
  // After the page: a guest woken by its fence finds its seqno retired there.
  if (retire_fence_)
    for (uint64_t fence_id : fence_ids) retire_fence_(cookie_, ctx_id_, ring, fence_id);
}

}  // namespace gsvirt::gsgpu_ctx
