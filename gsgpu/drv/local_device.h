// The local backend of gsgpu/drv (private to gsgpu/drv): one emulated gsgpu::Device per client,
// driven the way a kernel driver drives hardware. docs/driver.md describes the behaviour.
//
//   local_device.cc   open, caps from the registers, buffer objects, VA bindings
//   local_queue.cc    submissions, the device thread, fences, faults and recovery, reset
//
// Locking: mutex_ guards every table and queue below. The device thread takes it only to pop a
// submission and to retire it; it runs the command processor without it, so BO, VA and fence
// calls never wait for a kernel to finish (reset() waits for the cancelled work to retire).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "gsgpu/drv/drv.h"
#include "gsgpu/drv/va_table.h"
#include "gsgpu/emu/device.h"

namespace gsgpu::drv::local {

// The device's VA space: the client's window, then the driver's own region (ring and fences) at
// the top, where va_bind never reaches.
constexpr uint64_t kPageSize = Mmu::kPageSize;
constexpr uint64_t kClientVaBase = 0x100000;
constexpr uint64_t kDeviceVaEnd = uint64_t{1} << 40;
constexpr uint64_t kDriverVaSize = uint64_t{1} << 20;
constexpr uint64_t kDriverVaBase = kDeviceVaEnd - kDriverVaSize;
// The hardware ring holds one submission at a time (the device thread runs them one by one): the
// client's packets, a DUMP after each DISPATCH when dump_dir is set, and the fence SYNC.
constexpr uint32_t kRingBytes = 512u << 10;
constexpr uint32_t kMaxSubmitDwords = 65536;
constexpr uint32_t kMaxRings = 64;  // one 8-byte fence slot per ring in the fence page
constexpr size_t kFaultLogCapacity = 64;
// Outcomes (completed or faulted) remembered per ring for fence_wait, newest first.
constexpr uint64_t kOutcomeWindow = 65536;

// Per-client memory accounting, shared with BoMemory so that it counts until memory is released.
struct Quota {
  std::atomic<uint64_t> bos{0};
  std::atomic<uint64_t> bytes{0};
};

// The memory of one buffer object: a VRAM range or imported host memory. Lives while the BO
// handle or a pending submission holds it; released (VRAM freed, `release` run) on destruction.
struct BoMemory {
  uint8_t* host = nullptr;  // CPU address of byte 0
  uint64_t size = 0;        // page multiple
  std::optional<uint64_t> vram_phys;
  VramAllocator* allocator = nullptr;
  std::function<void()> release;  // imported memory only
  std::shared_ptr<Quota> quota;
  ~BoMemory();
};

struct Bo {
  std::shared_ptr<BoMemory> memory;
};


struct Submission {
  uint64_t serial = 0;  // device-wide FIFO order
  uint32_t ring = 0;
  uint64_t seqno = 0;
  std::vector<uint32_t> packets;
  uint32_t dispatches = 0;
  uint32_t packet_count = 0;
  std::vector<std::shared_ptr<BoMemory>> bos;
};

struct RingTimeline {
  uint64_t submitted = 0;
  uint64_t retired = 0;
  std::vector<bool> faulted;  // kOutcomeWindow bits, indexed by seqno % kOutcomeWindow
};

// What the wrapped shader backend adds up for counters(), and the shader cores' cancel flag
// (ShaderCoreSettings::cancel); shared by the device's backend and the driver.
struct DispatchTotals {
  std::mutex mutex;
  uint64_t dispatches = 0, instructions = 0, lane_instructions = 0, cycles = 0, work_groups = 0;
  std::atomic<bool> cancel{false};
  // Called on the device thread as each dispatch starts (true) and ends (false): the per-dispatch
  // time budget. Set before the device thread starts.
  std::function<void(bool starting)> on_dispatch;
};

// Why the running submission was told to stop.
enum class CancelReason { kNone, kSubmitBudget, kDispatchBudget, kClientBudget, kReset };

class LocalDeviceImpl final : public LocalDevice {
 public:
  LocalDeviceImpl(const LocalConfig& config, std::unique_ptr<gsgpu::Device> device,
                  std::shared_ptr<DispatchTotals> totals);
  ~LocalDeviceImpl() override;
  // Maps the driver's ring and fence memory, programs the registers, reads the caps, starts the
  // device thread. False (and *error) when the configuration leaves no room for them.
  bool start(std::string* error);

  const char* backend_name() const override { return "local"; }
  const Caps& caps() const override { return caps_; }

  Status bo_create(uint64_t size, uint32_t flags, BoHandle* out) override;
  Status bo_import(void* host, uint64_t size, std::function<void()> release, BoHandle* out) override;
  Status bo_free(BoHandle bo) override;
  void* bo_map(BoHandle bo) override;
  uint64_t bo_size(BoHandle bo) override;

  Status va_bind(BoHandle bo, uint64_t bo_offset, uint64_t va, uint64_t size, uint32_t perms) override;
  Status va_unbind(uint64_t va, uint64_t size) override;

  Status submit(const SubmitDesc& desc, uint64_t* seqno) override;
  uint64_t fence_poll(uint32_t ring) override;
  Status fence_wait(uint32_t ring, uint64_t seqno, uint64_t timeout_ns) override;

  std::vector<FaultInfo> read_faults() override;
  Counters counters() override;
  Status reset() override;

 private:
  // --- local_device.cc ---
  void read_caps();
  Status refuse(const char* call, const std::string& why) const;
  Status check_quota(const char* call, uint64_t size) const;
  BoHandle add_bo(std::shared_ptr<BoMemory> memory);
  const Bo* find_bo(BoHandle bo) const;
  void drop_memory_locked(std::shared_ptr<BoMemory> memory, std::vector<std::shared_ptr<BoMemory>>* released);

  // --- local_queue.cc ---
  Status check_packets(const std::vector<uint32_t>& packets, uint32_t* dispatches, uint32_t* count) const;
  void device_thread();
  Status execute(const Submission& submission, std::optional<FaultInfo>* fault);
  void write_ring(const Submission& submission);
  std::string describe_packet_at(const Submission& submission, uint32_t head) const;
  std::optional<FaultInfo> collect_fault(const Submission& submission);
  void recover_after_fault();
  // What each host dump of the running submission is, in ring order: the driver's after a DISPATCH
  // or a DRAW, or a client's own DUMP with TO_HOST (named like a dispatch's).
  enum class DumpKind : uint8_t { kDispatch, kDraw };
  void write_dump_file(const Submission& submission, const std::string& text);
  // A submission's run is over: its counters and fault (before on_retire), then its place on the
  // ring's timeline (after).
  void account_locked(const Submission& submission, std::optional<FaultInfo> fault);
  void retire_locked(const Submission& submission, Status outcome);
  void cancel_running_locked(CancelReason reason);
  void account_for_cancel_locked(const Submission& submission, Status outcome, std::optional<FaultInfo>* fault);
  void timer_thread();
  bool has_time_budget() const {
    return config_.submit_time_budget_ns || config_.dispatch_time_budget_ns || config_.client_time_budget_ns;
  }
  void dispatch_started(bool starting);
  // The running submission's earliest deadline and the budget it belongs to.
  std::pair<std::chrono::steady_clock::time_point, CancelReason> deadline_locked() const;
  void charge_client_time_locked(std::chrono::steady_clock::time_point run_start);
  FaultInfo client_budget_spent_fault(const Submission& submission) const;

  const LocalConfig config_;
  std::unique_ptr<gsgpu::Device> device_;
  std::shared_ptr<DispatchTotals> totals_;
  std::shared_ptr<Quota> quota_ = std::make_shared<Quota>();
  Caps caps_;
  uint64_t ring_va_ = kDriverVaBase;
  uint64_t fence_va_ = kDriverVaBase + kRingBytes;
  uint8_t* ring_host_ = nullptr;
  uint8_t* fence_host_ = nullptr;
  // Device thread only: where the running submission starts in the ring, and the stream dword of
  // each of its packets (kDriverPacket marks a DUMP the driver inserted; the last entry is the
  // fence SYNC), to name the packet a fault happened at.
  static constexpr uint32_t kDriverPacket = UINT32_MAX;
  uint32_t ring_tail_ = 0;
  uint32_t ring_start_ = 0;
  std::vector<uint32_t> packet_starts_;

  mutable std::mutex mutex_;
  std::condition_variable work_;     // the device thread waits for submissions
  std::condition_variable retired_;  // fence_wait and reset wait for retirements
  std::unordered_map<BoHandle, Bo> bos_;
  BoHandle next_handle_ = 1;
  VaTable va_{0, 0, 0};  // the client's bindings (set up with the caps); the MMU mirrors them
  std::deque<Submission> queue_;
  std::vector<RingTimeline> rings_;
  uint64_t next_serial_ = 1;
  uint64_t retired_serial_ = 0;  // every submission up to this serial has retired
  uint64_t cancel_through_ = 0;  // submissions with serial <= this retire cancelled
  bool running_ = false;         // the device thread is running a submission
  uint64_t running_serial_ = 0;  // ... this one
  // The running submission's start, its own deadline and its running dispatch's (max = none).
  std::chrono::steady_clock::time_point running_start_, submit_deadline_, dispatch_deadline_;
  uint64_t deadline_generation_ = 0;  // changes when a dispatch starts: the timer re-reads the deadline
  uint64_t client_time_used_ns_ = 0;  // what the client's submissions have run so far
  bool client_budget_spent_ = false;   // ... reached client_time_budget_ns: no more runs
  CancelReason cancel_reason_ = CancelReason::kNone;
  std::condition_variable timer_;  // the timer thread waits for a run to start or its deadline
  bool timer_idle_ = false;        // ... for a run to start: the next start must wake it
  std::vector<std::shared_ptr<BoMemory>> graveyard_;  // freed while running_, dropped after the run
  std::deque<FaultInfo> faults_;
  Counters counters_;
  uint64_t dump_serial_ = 0;               // device thread only
  std::vector<DumpKind> dump_kinds_;       // device thread only: the running submission's host dumps
  size_t dump_next_ = 0;                   // ... and which of them comes next
  const Submission* current_ = nullptr;  // device thread only: the one running (for dump files)
  bool stopping_ = false;
  std::thread thread_;
  std::thread timer_thread_;  // only with a time budget; started by the device thread at its first run
};

}  // namespace gsgpu::drv::local
