// Device commands on the ring and back: starting a launch (at once, or held to go with others),
// the completion thread that waits on fences, and retirement.
//
// Batching. A submission costs the same however little it does: over the virtio backend a
// transport message, the host's decoding and a fence to wait for; on every backend a trip through
// the device thread. So launches are sent one per submission only while the device has room (at
// most kMaxSinglesInFlight in flight); launches started while it is busy are held and sent
// together, as one submission, when it has room again (the completion thread, once something
// retired). A launch loop becomes a few submissions per clFinish; a lone launch still goes at once.
//
// Faults in a batch. The command processor stops at a faulting packet and runs nothing after it
// in that submission. Each launch of a batch but the last is followed by a SYNC packet writing its
// serial into a progress slot, so after a fault the runtime knows which launches completed (their
// marker was written), which one faulted (the next) and which never ran (the rest). Nothing is
// sent after a batch until it retires, so those are sent again first and run in order: a fault
// fails only its own launch, as with one launch per submission.
#include <cinttypes>
#include <unordered_set>

#include "gsgpu/cl/runtime.h"
#include "gsgpu/drv/packets.h"

namespace gsgpu::cl {
namespace {

drv::Counters counters_between(const drv::Counters& before, const drv::Counters& after) {
  drv::Counters d;
  d.dispatches = after.dispatches - before.dispatches;
  d.instructions = after.instructions - before.instructions;
  d.lane_instructions = after.lane_instructions - before.lane_instructions;
  d.cycles = after.cycles - before.cycles;
  d.work_groups = after.work_groups - before.work_groups;
  return d;
}

}  // namespace

bool Runtime::start_launch(Command* c, Submission&& s, std::string* why) {
  LaunchRecord record;
  record.command = c;
  record.packets = std::move(s.packets);
  record.bos = std::move(s.bos);
  c->retire = std::move(s.retire);
  const bool room = held_.empty() && !batch_in_flight_ && in_flight_.size() < kMaxSinglesInFlight;
  // A command whose counters are reported starts only when nothing else is in flight or held.
  if (room || c->exact_counters) {
    std::vector<LaunchRecord> one;
    one.push_back(std::move(record));
    return submit_records(std::move(one), why);
  }
  held_.push_back(std::move(record));
  return true;
}

bool Runtime::submit_records(std::vector<LaunchRecord>&& records, std::string* why) {
  drv::SubmitDesc desc;
  desc.ring = kRing;
  std::vector<uint32_t> packets;
  std::vector<drv::BoHandle> bos;
  if (records.size() == 1) {
    desc.packets = records[0].packets.data();
    desc.dwords = uint32_t(records[0].packets.size());
    desc.bos = records[0].bos.data();
    desc.bo_count = uint32_t(records[0].bos.size());
  } else {
    std::unordered_set<drv::BoHandle> named;
    for (size_t i = 0; i < records.size(); ++i) {
      LaunchRecord& r = records[i];
      packets.insert(packets.end(), r.packets.begin(), r.packets.end());
      r.serial = next_serial_++;
      if (i + 1 < records.size())
        drv::append_sync(&packets, drv::kSyncWriteFence | drv::kSyncFence64, progress_slot_.va, r.serial);
      for (drv::BoHandle bo : r.bos)
        if (named.insert(bo).second) bos.push_back(bo);
    }
    bos.push_back(progress_slot_.bo);
    desc.packets = packets.data();
    desc.dwords = uint32_t(packets.size());
    desc.bos = bos.data();
    desc.bo_count = uint32_t(bos.size());
  }
  if (closing_) {
    *why = "the runtime is closing";
    return false;
  }
  Command* first = records[0].command;
  // Nothing is in flight when an exact command is submitted: the counters hold still until it runs.
  if (first->exact_counters) first->counters_before = device_->counters();
  uint64_t seqno = 0;
  if (drv::Status s = device_->submit(desc, &seqno); s != drv::Status::kOk) {
    *why = std::string("submit: ") + drv::status_name(s);
    return false;
  }
  exclusive_in_flight_ = first->exact_counters;
  batch_in_flight_ = records.size() > 1;
  in_flight_[seqno] = std::move(records);
  update_wait_target();
  return true;
}

void Runtime::flush_for_wait() {
  if (flush_held(true)) advance(this);
}

bool Runtime::flush_held(bool now) {
  if (held_.empty() || batch_in_flight_ || (!now && in_flight_.size() >= kMaxSinglesInFlight)) return false;
  if (!progress_slot_.size) {
    std::string why;
    auto slot = allocate(caps_.page_size, drv::kVaRead | drv::kVaWrite, &why);
    if (slot) progress_slot_ = *slot;
    else log_error("gsgpu runtime: no progress slot for batched launches (%s); sending them one by one", why.c_str());
  }
  // Whole launches, in order, within the batch limits (counted with repeats: an upper bound).
  std::vector<LaunchRecord> batch;
  size_t dwords = 0, bos = 0;
  const size_t limit = progress_slot_.size ? kMaxBatchLaunches : 1;
  while (!held_.empty() && batch.size() < limit) {
    const LaunchRecord& next = held_.front();
    const size_t more_dwords = next.packets.size() + 8, more_bos = next.bos.size();
    if (!batch.empty() && (dwords + more_dwords > kMaxBatchDwords || bos + more_bos + 1 > kMaxBatchBos)) break;
    dwords += more_dwords;
    bos += more_bos;
    batch.push_back(std::move(held_.front()));
    held_.pop_front();
  }
  std::string why;
  std::vector<Command*> commands;
  for (const LaunchRecord& r : batch) commands.push_back(r.command);
  if (submit_records(std::move(batch), &why)) return true;
  // Refused: every launch of it fails (as a launch refused at once does).
  log_error("gsgpu runtime: %s; failing %zu launch(es)", why.c_str(), commands.size());
  for (Command* c : commands) {
    SubmitOutcome refused;
    refused.fault = why;
    c->retire(refused);  // frees the command's per-dispatch objects
    c->retire = nullptr;
    c->status = CL_OUT_OF_RESOURCES;
    c->state = Command::State::kFinished;
    --c->queue->in_flight;
  }
  return true;
}

void Runtime::update_wait_target() {
  const uint64_t target = in_flight_.empty() ? 0 : in_flight_.begin()->first;
  std::lock_guard lock(completion_mutex_);
  const bool was_idle = wait_target_ == 0;
  wait_target_ = target;
  if (was_idle && target) completion_wake_.notify_one();
}

void Runtime::completion_loop() {
  for (;;) {
    uint64_t target = 0;
    {
      std::unique_lock wait(completion_mutex_);
      completion_wake_.wait(wait, [this] { return stopping_ || wait_target_ != 0; });
      if (wait_target_ == 0) return;  // stopping, nothing left in flight
      target = wait_target_;
    }
    // Its outcome is read again per submission below; the wait only says something retired.
    const drv::Status s = device_->fence_wait(kRing, target, UINT64_MAX);
    std::unique_lock lock(mutex);
    if (s == drv::Status::kOk || s == drv::Status::kFaulted)
      retire_submissions();
    else
      fail_in_flight(std::string("fence_wait: ") + drv::status_name(s));
    notify_after_unlock = true;
    advance(this);  // also sends what was held
    notify_after_unlock = false;
    update_wait_target();
    lock.unlock();
    progress_.notify_all();
  }
}

bool Runtime::direct_wait(std::unique_lock<std::recursive_mutex>& lock) {
  if (in_flight_.empty() || direct_waiter_ || config_.direct_wait_us == 0) return false;
  const uint64_t target = in_flight_.begin()->first;
  if (target == direct_wait_gave_up_) return false;
  direct_waiter_ = true;
  lock.unlock();
  const drv::Status s = device_->fence_wait(kRing, target, uint64_t{config_.direct_wait_us} * 1000);
  lock.lock();
  direct_waiter_ = false;
  if (s != drv::Status::kOk && s != drv::Status::kFaulted) {
    // Not false: the lock was let go, and the completion thread may have retired the submission
    // and notified meanwhile, before this thread waits on progress_ (a lost wake-up).
    direct_wait_gave_up_ = target;
    return true;
  }
  // The completion thread may have retired it meanwhile: then this finds nothing to do.
  retire_submissions();
  advance(this);
  update_wait_target();
  return true;
}

void Runtime::finish_launch(LaunchRecord& record, const SubmitOutcome& out) {
  Command* c = record.command;
  c->status = c->retire(out);
  c->retire = nullptr;
  c->cycles = out.counters.cycles;
  c->state = Command::State::kFinished;
  --c->queue->in_flight;
}

// The device cannot say how the submissions in flight end (virtio: the transport is gone): they
// all fail, and so do the launches held for later, so nothing waits for them forever.
void Runtime::fail_in_flight(const std::string& why) {
  log_error("gsgpu runtime: %s; failing %zu submission(s) in flight and %zu launch(es) held", why.c_str(),
            in_flight_.size(), held_.size());
  SubmitOutcome out;
  out.fault = why;
  for (auto& [seqno, records] : in_flight_)
    for (LaunchRecord& r : records) finish_launch(r, out);
  for (LaunchRecord& r : held_) finish_launch(r, out);
  in_flight_.clear();
  held_.clear();
  exclusive_in_flight_ = false;
  batch_in_flight_ = false;
}

// A batch that faulted: launches whose progress marker was written completed, the next one
// faulted (or was cancelled), the rest never ran and go back to the front of the held launches.
void Runtime::retire_batch(uint64_t seqno, std::vector<LaunchRecord>& records, const SubmitOutcome& out) {
  uint64_t reached = 0;
  std::memcpy(&reached, progress_slot_.cpu, sizeof reached);
  size_t i = 0;
  SubmitOutcome ok;
  ok.ok = true;
  for (; i < records.size() && records[i].serial <= reached; ++i) finish_launch(records[i], ok);
  if (i < records.size()) finish_launch(records[i++], out);
  log_debug(kDebugGsgpu, "gsgpu runtime: batch seqno %" PRIu64 " faulted at launch %zu of %zu; sending %zu again",
            seqno, i, records.size(), records.size() - i);
  for (size_t j = records.size(); j > i; --j) held_.push_front(std::move(records[j - 1]));
}

// Retires every submission whose fence has retired, oldest first. Called with the mutex held.
void Runtime::retire_submissions() {
  const uint64_t retired = device_->fence_poll(kRing);
  while (!in_flight_.empty() && in_flight_.begin()->first <= retired) {
    const uint64_t seqno = in_flight_.begin()->first;
    std::vector<LaunchRecord> records = std::move(in_flight_.begin()->second);
    in_flight_.erase(in_flight_.begin());
    SubmitOutcome out;
    const drv::Status s = device_->fence_wait(kRing, seqno, 0);
    out.ok = s == drv::Status::kOk;
    if (!out.ok) out.fault = s == drv::Status::kFaulted ? describe_fault(seqno) : drv::status_name(s);
    if (records.size() > 1) {
      batch_in_flight_ = false;
      if (out.ok)
        for (LaunchRecord& r : records) finish_launch(r, out);
      else
        retire_batch(seqno, records, out);
      continue;
    }
    if (records[0].command->exact_counters) {
      out.counters = counters_between(records[0].command->counters_before, device_->counters());
      exclusive_in_flight_ = false;
    }
    finish_launch(records[0], out);
  }
}

// The device's report of the fault that ended `seqno` on the runtime's ring. Faults of later
// submissions read on the way are kept until those retire.
std::string Runtime::describe_fault(uint64_t seqno) {
  for (drv::FaultInfo& f : device_->read_faults()) {
    if (f.ring == kRing && f.seqno >= seqno)
      unclaimed_faults_[f.seqno] = std::move(f);
    else
      log_error("gsgpu runtime: fault of an unknown submission (ring %u, seqno %" PRIu64 "): %s", f.ring, f.seqno,
                f.message.c_str());
  }
  auto it = unclaimed_faults_.find(seqno);
  if (it == unclaimed_faults_.end()) return "faulted or cancelled (the device reported no fault for it)";
  const drv::FaultInfo f = std::move(it->second);
  unclaimed_faults_.erase(it);
  char where[96];
  std::snprintf(where, sizeof where, " (pc 0x%" PRIx64 ", address 0x%" PRIx64 ", detail %u)", f.pc, f.address,
                f.detail);
  return std::string(drv::fault_kind_name(f.kind)) + " fault: " + f.message + where;
}

}  // namespace gsgpu::cl
