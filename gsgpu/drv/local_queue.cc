// The local backend: submissions, the device thread, fences, faults and recovery, reset
// (local_device.h).
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "common/log.h"
#include "gsgpu/drv/local_device.h"
#include "protocol/gsgpu/packets.h"

namespace gsgpu::drv::local {
namespace {

uint32_t header_opcode(uint32_t header) {
  return (header & hw::PACKET_HEADER::OPCODE_MASK) >> hw::PACKET_HEADER::OPCODE_SHIFT;
}
uint32_t header_dwords(uint32_t header) {
  return (header & hw::PACKET_HEADER::SIZE_DWORDS_MASK) >> hw::PACKET_HEADER::SIZE_DWORDS_SHIFT;
}

constexpr uint32_t kFenceFlags = hw::pkt::SYNC::FLAGS_WRITE_FENCE_MASK | hw::pkt::SYNC::FLAGS_FENCE_64BIT_MASK;

// Longest ring content of one submission: the client's packets, a DUMP after each DISPATCH and
// DRAW (a DRAW is the shortest packet that gets one), the fence SYNC; one slot stays empty.
static_assert(hw::pkt::DRAW::SIZE_DWORDS <= hw::pkt::DISPATCH::SIZE_DWORDS);
static_assert(uint64_t{kMaxSubmitDwords} * (hw::pkt::DRAW::SIZE_DWORDS + hw::pkt::DUMP::SIZE_DWORDS) /
                      hw::pkt::DRAW::SIZE_DWORDS +
                  hw::pkt::SYNC::SIZE_DWORDS <
              kRingBytes / 4);

}  // namespace

// Whole packets, none running past the chunk (it would swallow the driver's fence), no HALT (it
// would stop the command processor before the fence). Everything else about a packet is the
// command processor's to check: a bad one is a kCommand fault of this submission.
Status LocalDeviceImpl::check_packets(const std::vector<uint32_t>& packets, uint32_t* dispatches,
                                      uint32_t* count) const {
  *dispatches = 0;
  *count = 0;
  for (size_t i = 0; i < packets.size();) {
    const uint32_t size = header_dwords(packets[i]);
    const uint32_t opcode = header_opcode(packets[i]);
    if (size == 0)
      return refuse("submit", "packets: packet " + std::to_string(*count) + " at dword " + std::to_string(i) +
                                  " has SIZE_DWORDS 0");
    if (size > packets.size() - i)
      return refuse("submit", "packets: packet " + std::to_string(*count) + " at dword " + std::to_string(i) +
                                  " has " + std::to_string(size) + " dwords, only " +
                                  std::to_string(packets.size() - i) + " left in the chunk");
    if (opcode == hw::pkt::HALT::OPCODE)
      return refuse("submit", "packets: packet " + std::to_string(*count) + " at dword " + std::to_string(i) +
                                  " is HALT, which only the driver may send");
    if (opcode == hw::pkt::DISPATCH::OPCODE) ++*dispatches;
    ++*count;
    i += size;
  }
  return Status::kOk;
}

Status LocalDeviceImpl::submit(const SubmitDesc& desc, uint64_t* seqno) {
  if (!seqno) return refuse("submit", "seqno is null");
  *seqno = 0;
  if (desc.ring >= config_.num_rings)
    return refuse("submit", "ring " + std::to_string(desc.ring) + " is not in 0.." +
                                std::to_string(config_.num_rings - 1));
  if (desc.dwords != 0 && !desc.packets)
    return refuse("submit", "packets is null with dwords " + std::to_string(desc.dwords));
  if (desc.dwords > kMaxSubmitDwords)
    return refuse("submit", "dwords " + std::to_string(desc.dwords) + " above the limit of " +
                                std::to_string(kMaxSubmitDwords));
  if (desc.bo_count != 0 && !desc.bos)
    return refuse("submit", "bos is null with bo_count " + std::to_string(desc.bo_count));
  if (desc.bo_count > config_.max_bos)
    return refuse("submit", "bo_count " + std::to_string(desc.bo_count) + " above max_bos " +
                                std::to_string(config_.max_bos));
  Submission sub;
  sub.ring = desc.ring;
  // Copied before it is checked: the caller's memory may change under us (a guest's may).
  sub.packets.assign(desc.packets, desc.packets + desc.dwords);
  if (Status s = check_packets(sub.packets, &sub.dispatches, &sub.packet_count); s != Status::kOk) return s;
  sub.bos.reserve(desc.bo_count);
  std::lock_guard lock(mutex_);
  for (uint32_t i = 0; i < desc.bo_count; ++i) {
    const Bo* bo = find_bo(desc.bos[i]);
    if (!bo) return refuse("submit", "bos[" + std::to_string(i) + "]: unknown handle " + std::to_string(desc.bos[i]));
    sub.bos.push_back(bo->memory);
  }
  RingTimeline& ring = rings_[desc.ring];
  sub.seqno = ++ring.submitted;
  sub.serial = next_serial_++;
  *seqno = sub.seqno;
  queue_.push_back(std::move(sub));
  work_.notify_one();
  return Status::kOk;
}

void LocalDeviceImpl::device_thread() {
  std::unique_lock lock(mutex_);
  for (;;) {
    work_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and everything retired
    Submission sub = std::move(queue_.front());
    queue_.pop_front();
    Status outcome = Status::kFaulted;  // cancelled by reset() unless it runs
    std::optional<FaultInfo> fault;
    if (sub.serial > cancel_through_ && client_budget_spent_) {
      fault = client_budget_spent_fault(sub);  // the client's time is up: it does not run
    } else if (sub.serial > cancel_through_) {
      running_ = true;
      running_serial_ = sub.serial;
      const auto start = std::chrono::steady_clock::now();
      if (has_time_budget()) {
        running_start_ = start;
        submit_deadline_ = config_.submit_time_budget_ns
                               ? start + std::chrono::nanoseconds(config_.submit_time_budget_ns)
                               : std::chrono::steady_clock::time_point::max();
        dispatch_deadline_ = std::chrono::steady_clock::time_point::max();
        // A timer thread sleeping until an earlier deadline (a run that has ended) wakes up by
        // itself before this one's and re-arms; only an idle one needs waking (a thread switch
        // per submission otherwise). It starts with the first run: a context that never submits
        // work (most of a fuzzer's, many of a VM's) costs no timer thread.
        if (!timer_thread_.joinable()) timer_thread_ = std::thread([this] { timer_thread(); });
        else if (timer_idle_) timer_.notify_all();
      }
      lock.unlock();
      outcome = execute(sub, &fault);
      lock.lock();
      running_ = false;
      account_for_cancel_locked(sub, outcome, &fault);
      charge_client_time_locked(start);
    }
    // Counters and the fault log first: on_retire may tell a client (the native context's fence
    // page) that the submission retired, and that client may ask for them at once.
    account_locked(sub, std::move(fault));
    std::vector<std::shared_ptr<BoMemory>> graveyard = std::move(graveyard_);
    graveyard_.clear();
    lock.unlock();
    // Unlocked: the notification, then the submission's BO references and the memory freed during
    // the run (an imported object's release callback runs here). Only then is it published as
    // retired, so a fence_wait or reset that returns has seen all of that happen.
    if (config_.on_retire) config_.on_retire(sub.ring, sub.seqno, outcome);
    sub.bos.clear();
    graveyard.clear();
    lock.lock();
    retire_locked(sub, outcome);
  }
}

// Tells the shader cores to stop the running submission (if any, and not told already).
void LocalDeviceImpl::cancel_running_locked(CancelReason reason) {
  if (!running_ || cancel_reason_ != CancelReason::kNone) return;
  cancel_reason_ = reason;
  totals_->cancel.store(true);
}

// After a run: a submission stopped for its time budget faulted with kTimeout; one stopped by
// reset() (or by closing the device) was cancelled, which is no fault of its own.
void LocalDeviceImpl::account_for_cancel_locked(const Submission& sub, Status outcome,
                                                std::optional<FaultInfo>* fault) {
  const CancelReason reason = cancel_reason_;
  cancel_reason_ = CancelReason::kNone;
  totals_->cancel.store(false);
  if (reason == CancelReason::kNone || outcome == Status::kOk || !*fault) return;
  if (reason == CancelReason::kReset) {
    fault->reset();
    return;
  }
  std::string budget;
  if (reason == CancelReason::kSubmitBudget)
    budget = "its time budget of " + std::to_string(config_.submit_time_budget_ns / 1000000) + " ms";
  else if (reason == CancelReason::kDispatchBudget)
    budget = "the time budget of one dispatch, " + std::to_string(config_.dispatch_time_budget_ns / 1000000) + " ms";
  else
    budget = "the client's time budget of " + std::to_string(config_.client_time_budget_ns / 1000000) + " ms";
  FaultInfo& f = **fault;
  f.kind = FaultKind::kTimeout;
  f.message = "ring " + std::to_string(sub.ring) + " seqno " + std::to_string(sub.seqno) + ": stopped after " +
              budget + " (" + f.message + ")";
}

// Adds a run to the client's time; once client_time_budget_ns is reached, no more runs.
void LocalDeviceImpl::charge_client_time_locked(std::chrono::steady_clock::time_point run_start) {
  if (!config_.client_time_budget_ns || client_budget_spent_) return;
  const auto ran = std::chrono::steady_clock::now() - run_start;
  client_time_used_ns_ += uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(ran).count());
  if (client_time_used_ns_ < config_.client_time_budget_ns) return;
  client_budget_spent_ = true;
  gsvirt::log_error("%s: the client's time budget of %" PRIu64 " ms is spent; its submissions no longer run",
                    config_.name.c_str(), config_.client_time_budget_ns / 1000000);
}

FaultInfo LocalDeviceImpl::client_budget_spent_fault(const Submission& sub) const {
  FaultInfo f;
  f.kind = FaultKind::kTimeout;
  f.ring = sub.ring;
  f.seqno = sub.seqno;
  f.message = "ring " + std::to_string(sub.ring) + " seqno " + std::to_string(sub.seqno) +
              ": not run: the client's time budget of " + std::to_string(config_.client_time_budget_ns / 1000000) +
              " ms is spent";
  return f;
}

// Device thread, unlocked: a dispatch starts (and its own deadline with it) or ends.
void LocalDeviceImpl::dispatch_started(bool starting) {
  std::lock_guard lock(mutex_);
  dispatch_deadline_ = starting ? std::chrono::steady_clock::now() +
                                      std::chrono::nanoseconds(config_.dispatch_time_budget_ns)
                                : std::chrono::steady_clock::time_point::max();
  ++deadline_generation_;
  if (starting) timer_.notify_all();  // it may sleep until a later deadline
}

std::pair<std::chrono::steady_clock::time_point, CancelReason> LocalDeviceImpl::deadline_locked() const {
  std::pair<std::chrono::steady_clock::time_point, CancelReason> d{submit_deadline_, CancelReason::kSubmitBudget};
  if (dispatch_deadline_ < d.first) d = {dispatch_deadline_, CancelReason::kDispatchBudget};
  if (config_.client_time_budget_ns) {
    const uint64_t left = config_.client_time_budget_ns - std::min(client_time_used_ns_, config_.client_time_budget_ns);
    const auto client = running_start_ + std::chrono::nanoseconds(left);
    if (client < d.first) d = {client, CancelReason::kClientBudget};
  }
  return d;
}

// Sets the cancel flag when the running submission passes its deadline.
void LocalDeviceImpl::timer_thread() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (!running_ || cancel_reason_ != CancelReason::kNone) {
      timer_idle_ = true;
      timer_.wait(lock);
      timer_idle_ = false;
      continue;
    }
    const uint64_t serial = running_serial_;
    const uint64_t generation = deadline_generation_;
    const auto [deadline, reason] = deadline_locked();
    auto moved_on = [&] {
      return stopping_ || !running_ || running_serial_ != serial || deadline_generation_ != generation;
    };
    if (deadline == std::chrono::steady_clock::time_point::max())
      timer_.wait(lock, moved_on);  // no deadline until a dispatch starts
    else
      timer_.wait_until(lock, deadline, moved_on);
    if (running_ && running_serial_ == serial && deadline_generation_ == generation &&
        std::chrono::steady_clock::now() >= deadline) {
      gsvirt::log_error("%s: submission %" PRIu64 " ran past %s time budget; stopping it", config_.name.c_str(),
                        serial,
                        reason == CancelReason::kSubmitBudget     ? "its"
                        : reason == CancelReason::kDispatchBudget ? "a dispatch's"
                                                                  : "the client's");
      cancel_running_locked(reason);
    }
  }
}

void LocalDeviceImpl::account_locked(const Submission& sub, std::optional<FaultInfo> fault) {
  if (fault)
    gsvirt::log_error("%s: ring %u seqno %" PRIu64 " faulted (%s): %s", config_.name.c_str(), sub.ring, sub.seqno,
                      fault_kind_name(fault->kind), fault->message.c_str());
  ++counters_.submissions;
  counters_.packets += sub.packet_count;
  if (fault) {
    ++counters_.faults;
    ++counters_.resets;  // the device recovered by itself
    if (faults_.size() == kFaultLogCapacity) faults_.pop_front();
    faults_.push_back(std::move(*fault));
  }
}

void LocalDeviceImpl::retire_locked(const Submission& sub, Status outcome) {
  RingTimeline& ring = rings_[sub.ring];
  ring.retired = sub.seqno;
  ring.faulted[sub.seqno % kOutcomeWindow] = outcome != Status::kOk;
  retired_serial_ = sub.serial;
  retired_.notify_all();
}

// Runs one submission on the device: its packets and the fence SYNC into the ring, doorbell, the
// command processor on this thread. kOk when the fence landed; otherwise the fault, recovered.
Status LocalDeviceImpl::execute(const Submission& sub, std::optional<FaultInfo>* fault) {
  current_ = &sub;
  write_ring(sub);
  device_->write_register(hw::reg::DOORBELL, 1);
  device_->run_until_idle();
  current_ = nullptr;
  uint64_t fence = 0;
  std::memcpy(&fence, fence_host_ + 8 * sub.ring, 8);
  if (device_->cp_state() == CpState::kIdle && fence == sub.seqno) return Status::kOk;
  *fault = collect_fault(sub);
  recover_after_fault();
  return Status::kFaulted;
}

// The ring is empty when a submission starts (the previous one ran to its end or the CP was
// reset), so everything fits (submit bounded it) from the current tail, wrapping at the end.
void LocalDeviceImpl::write_ring(const Submission& sub) {
  std::vector<uint32_t> stream;
  stream.reserve(sub.packets.size() + sub.dispatches * hw::pkt::DUMP::SIZE_DWORDS + hw::pkt::SYNC::SIZE_DWORDS);
  packet_starts_.clear();
  dump_kinds_.clear();
  dump_next_ = 0;
  for (size_t i = 0; i < sub.packets.size();) {
    const uint32_t size = header_dwords(sub.packets[i]);
    const uint32_t opcode = header_opcode(sub.packets[i]);
    packet_starts_.push_back(uint32_t(stream.size()));
    stream.insert(stream.end(), sub.packets.begin() + i, sub.packets.begin() + i + size);
    if (opcode == hw::pkt::DUMP::OPCODE && size > hw::pkt::DUMP::FLAGS &&
        (sub.packets[i + hw::pkt::DUMP::FLAGS] & hw::pkt::DUMP::FLAGS_TO_HOST_MASK)) {
      dump_kinds_.push_back(DumpKind::kDispatch);  // the client's own
    }
    const bool draw = opcode == hw::pkt::DRAW::OPCODE || opcode == hw::pkt::DRAW_INDIRECT::OPCODE ||
                      opcode == hw::pkt::DRAW_BYTE_COUNT::OPCODE;
    if (!config_.dump_dir.empty() && (draw || opcode == hw::pkt::DISPATCH::OPCODE)) {
      hw::append_dump(&stream, hw::pkt::DUMP::FLAGS_TO_HOST_MASK, 0, 0);
      packet_starts_.push_back(kDriverPacket);
      dump_kinds_.push_back(draw ? DumpKind::kDraw : DumpKind::kDispatch);
    }
    i += size;
  }
  packet_starts_.push_back(uint32_t(stream.size()));
  hw::append_sync(&stream, kFenceFlags, fence_va_ + 8 * sub.ring, sub.seqno);
  ring_start_ = ring_tail_;
  const size_t bytes = stream.size() * 4;
  const size_t first = std::min<size_t>(bytes, kRingBytes - ring_tail_);
  std::memcpy(ring_host_ + ring_tail_, stream.data(), first);
  std::memcpy(ring_host_, reinterpret_cast<const uint8_t*>(stream.data()) + first, bytes - first);
  ring_tail_ = uint32_t((ring_tail_ + bytes) % kRingBytes);
  device_->write_register(hw::reg::RING_TAIL, ring_tail_);
}

// Which of the client's packets sits at ring byte offset `head`, as text for a fault message.
std::string LocalDeviceImpl::describe_packet_at(const Submission& sub, uint32_t head) const {
  const uint32_t stream_dword = ((head + kRingBytes - ring_start_) % kRingBytes) / 4;
  for (size_t k = 0; k + 1 < packet_starts_.size(); ++k) {
    if (packet_starts_[k] != stream_dword) continue;
    // Count client packets before k (driver-inserted DUMPs are marked and skipped).
    uint32_t index = 0;
    for (size_t j = 0; j < k; ++j) index += packet_starts_[j] != kDriverPacket;
    return "packet " + std::to_string(index);
  }
  if (!packet_starts_.empty() && stream_dword == packet_starts_.back()) return "the driver's fence";
  return "ring offset " + std::to_string(head);
}

std::optional<FaultInfo> LocalDeviceImpl::collect_fault(const Submission& sub) {
  FaultInfo f;
  f.ring = sub.ring;
  f.seqno = sub.seqno;
  const CpState state = device_->cp_state();
  const std::optional<CpFault> cp = device_->cp_fault();
  std::string where = "ring " + std::to_string(sub.ring) + " seqno " + std::to_string(sub.seqno);
  if (state != CpState::kFaulted || !cp) {
    f.kind = FaultKind::kCommand;
    f.message = where + ": the command processor is " + cp_state_name(state) + " and the fence was not written";
    return f;
  }
  f.detail = uint32_t(cp->cause);
  where += ", " + describe_packet_at(sub, cp->head);
  if (cp->cause == CpFaultCause::kDispatchFault) {
    std::optional<DispatchRecord> record = device_->last_dispatch();
    if (record && record->outcome.fault) {
      const DispatchFault& df = *record->outcome.fault;
      f.kind = df.kind == DispatchFaultKind::kMemory ? FaultKind::kMemory : FaultKind::kShader;
      f.detail = uint32_t(df.kind);
      f.pc = df.pc;
      if (df.kind == DispatchFaultKind::kMemory) f.address = df.memory.address;
    } else {
      f.kind = FaultKind::kShader;
    }
    if (!config_.dump_dir.empty()) write_dump_file(sub, device_->dump_text());
  } else if (cp->cause == CpFaultCause::kMemoryFault || cp->cause == CpFaultCause::kRingUnreadable) {
    f.kind = FaultKind::kMemory;
    f.address = uint64_t(device_->read_register(hw::reg::MMU_FAULT_ADDR_LO)) |
                (uint64_t(device_->read_register(hw::reg::MMU_FAULT_ADDR_HI)) << 32);
  } else {
    f.kind = FaultKind::kCommand;
  }
  f.message = where + ": " + cp_fault_cause_name(cp->cause) + ": " + cp->message;
  return f;
}

// What a kernel driver does after a fault: reset the command processor (head = tail = 0, idle),
// acknowledge the fault registers and interrupts, and carry on with the next submission.
void LocalDeviceImpl::recover_after_fault() {
  device_->write_register(hw::reg::CP_CONTROL, hw::field::CP_CONTROL::RESET_MASK);
  device_->write_register(hw::reg::MMU_FAULT_INFO, hw::field::MMU_FAULT_INFO::VALID_MASK);
  device_->write_register(hw::reg::IRQ_STATUS, irq_defined_bits());
  device_->mmu().clear_faults();
  ring_tail_ = 0;
}

namespace {

void write_text_file(const std::string& device, const std::string& path, std::string_view text) {
  FILE* file = std::fopen(path.c_str(), "w");
  if (!file) {
    gsvirt::log_error("%s: dump_dir: cannot write %s", device.c_str(), path.c_str());
    return;
  }
  std::fwrite(text.data(), 1, text.size(), file);
  std::fclose(file);
}

}  // namespace

// dispatch-NNNNNN-ringR-seqS.txt, or for a DRAW draw-...txt and draw-...counters.json (the DUMP
// text's "counters json:" line, docs/graphics.md "Debug output").
void LocalDeviceImpl::write_dump_file(const Submission& sub, const std::string& text) {
  const DumpKind kind = dump_next_ < dump_kinds_.size() ? dump_kinds_[dump_next_++] : DumpKind::kDispatch;
  const char* what = kind == DumpKind::kDraw ? "draw" : "dispatch";
  char name[96];
  std::snprintf(name, sizeof name, "/%s-%06" PRIu64 "-ring%u-seq%" PRIu64, what, ++dump_serial_, sub.ring, sub.seqno);
  const std::string base = config_.dump_dir + name;
  write_text_file(config_.name, base + ".txt", text);
  static constexpr std::string_view kJson = "counters json: ";
  const size_t at = text.rfind(kJson);
  if (kind != DumpKind::kDraw || at == std::string::npos) return;
  const size_t begin = at + kJson.size(), end = text.find('\n', begin);
  write_text_file(config_.name, base + ".counters.json",
                  std::string_view(text).substr(begin, end == std::string::npos ? end : end - begin + 1));
}

uint64_t LocalDeviceImpl::fence_poll(uint32_t ring) {
  if (ring >= config_.num_rings) {
    refuse("fence_poll", "ring " + std::to_string(ring) + " is not in 0.." + std::to_string(config_.num_rings - 1));
    return 0;
  }
  std::lock_guard lock(mutex_);
  return rings_[ring].retired;
}

Status LocalDeviceImpl::fence_wait(uint32_t ring, uint64_t seqno, uint64_t timeout_ns) {
  if (ring >= config_.num_rings)
    return refuse("fence_wait", "ring " + std::to_string(ring) + " is not in 0.." +
                                    std::to_string(config_.num_rings - 1));
  if (std::this_thread::get_id() == thread_.get_id())
    return refuse("fence_wait", "called from the device thread (on_retire must not call back)");
  std::unique_lock lock(mutex_);
  RingTimeline& r = rings_[ring];
  if (seqno == 0 || seqno > r.submitted)
    return refuse("fence_wait", "seqno " + std::to_string(seqno) + " was never issued on ring " +
                                    std::to_string(ring) + " (last " + std::to_string(r.submitted) + ")");
  auto done = [&] { return r.retired >= seqno; };
  // Beyond ~146 years is no limit (and keeps now() + timeout from overflowing).
  if (timeout_ns >= (uint64_t{1} << 62)) {
    retired_.wait(lock, done);
  } else if (!retired_.wait_for(lock, std::chrono::nanoseconds(timeout_ns), done)) {
    return Status::kTimeout;
  }
  // Outcomes older than the window are forgotten; they report kOk (docs/driver.md).
  if (r.retired - seqno < kOutcomeWindow && r.faulted[seqno % kOutcomeWindow]) return Status::kFaulted;
  return Status::kOk;
}

std::vector<FaultInfo> LocalDeviceImpl::read_faults() {
  std::lock_guard lock(mutex_);
  std::vector<FaultInfo> out(std::make_move_iterator(faults_.begin()), std::make_move_iterator(faults_.end()));
  faults_.clear();
  return out;
}

Counters LocalDeviceImpl::counters() {
  Counters c;
  {
    std::lock_guard lock(mutex_);
    c = counters_;
  }
  std::lock_guard lock(totals_->mutex);
  c.dispatches = totals_->dispatches;
  c.instructions = totals_->instructions;
  c.lane_instructions = totals_->lane_instructions;
  c.cycles = totals_->cycles;
  c.work_groups = totals_->work_groups;
  return c;
}

Status LocalDeviceImpl::reset() {
  if (std::this_thread::get_id() == thread_.get_id())
    return refuse("reset", "called from the device thread (on_retire must not call back)");
  std::unique_lock lock(mutex_);
  const uint64_t target = next_serial_ - 1;
  cancel_through_ = target;
  cancel_running_locked(CancelReason::kReset);
  ++counters_.resets;
  // The queued submissions retire (cancelled) on the device thread, in order, with on_retire; a
  // running dispatch stops at its next work-group or within 4096 instructions of each warp.
  retired_.wait(lock, [&] { return retired_serial_ >= target; });
  return Status::kOk;
}

}  // namespace gsgpu::drv::local
