// gsgpu interrupts: cause latching, masking, forced injection and delivery on a dedicated thread
// (started by the first unmasked event).
//
// Seed 000: a normal mode (device logic raises an interrupt) and a forced mode (raise an interrupt
// of any type now, to exercise a driver's error paths); the embedding program binds a callback
// that runs on a separate thread so the emulator never waits on the driver's handler.
//
// Rules (register layout in gsgpu.xml):
//  - raising a cause always latches its bit in IRQ_STATUS (w1c: the driver acknowledges by
//    writing 1s), whatever IRQ_MASK says;
//  - the callback is invoked only for causes whose IRQ_MASK bit is set at the time of the raise
//    (edge semantics: unmasking later does not replay older causes);
//  - events are delivered one at a time, in the order they were raised, on the interrupt thread,
//    never on the thread that raised them; IRQ_COUNT counts deliveries;
//  - a cause raised again while its previous event still waits in the queue is coalesced with it
//    (as a level-triggered line would be), which bounds the queue whatever a kernel does.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "gsgpu/emu/registers.h"

namespace gsgpu {

enum class IrqCause : uint32_t {
  kFence = hw::field::IRQ_STATUS::FENCE_SHIFT,
  kMmuFault = hw::field::IRQ_STATUS::MMU_FAULT_SHIFT,
  kCpFault = hw::field::IRQ_STATUS::CP_FAULT_SHIFT,
  kShaderFault = hw::field::IRQ_STATUS::SHADER_FAULT_SHIFT,
  kRegisterAccess = hw::field::IRQ_STATUS::REG_ACCESS_SHIFT,
  kHalt = hw::field::IRQ_STATUS::HALT_SHIFT,
};

inline constexpr IrqCause kAllIrqCauses[] = {IrqCause::kFence,       IrqCause::kMmuFault,
                                              IrqCause::kCpFault,     IrqCause::kShaderFault,
                                              IrqCause::kRegisterAccess, IrqCause::kHalt};

// The IRQ_STATUS / IRQ_MASK bit of a cause.
constexpr uint32_t irq_bit(IrqCause c) { return 1u << uint32_t(c); }
// Every defined cause bit; IRQ_FORCE ignores others.
uint32_t irq_defined_bits();
const char* irq_cause_name(IrqCause c);

struct IrqEvent {
  IrqCause cause = IrqCause::kFence;
  bool forced = false;    // raised through IRQ_FORCE / force(), not by device logic
  uint64_t sequence = 0;  // 1, 2, 3 ... in raise order since the controller was created
};

using IrqCallback = std::function<void(const IrqEvent&)>;

class InterruptController {
 public:
  explicit InterruptController(RegisterFile& registers);
  ~InterruptController();
  InterruptController(const InterruptController&) = delete;
  InterruptController& operator=(const InterruptController&) = delete;

  // Binds (or, with an empty function, unbinds) the callback. Safe while interrupts are in flight:
  // when it returns, the previous callback has finished running.
  void set_callback(IrqCallback callback);

  // Normal mode: device logic reports an event.
  void raise(IrqCause cause) { raise_event(cause, false); }
  // Forced mode: each defined bit of `cause_bits` is raised now, lowest bit first.
  void force(uint32_t cause_bits);

  // Blocks until every event raised so far has been delivered (or dropped for want of a
  // callback). Returns at once when called from the interrupt thread itself.
  void drain();

 private:
  void raise_event(IrqCause cause, bool forced);
  void delivery_loop();

  RegisterFile& registers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable drained_;
  std::deque<IrqEvent> queue_;
  uint32_t queued_bits_ = 0;  // causes with an event in queue_
  IrqCallback callback_;
  uint64_t next_sequence_ = 1;
  uint64_t raised_ = 0;     // events queued
  uint64_t completed_ = 0;  // events delivered or dropped
  bool stopping_ = false;
  bool delivering_ = false;  // a callback is running outside the lock
  std::thread thread_;  // started by the first event that is queued (guarded by mutex_)
};

}  // namespace gsgpu
