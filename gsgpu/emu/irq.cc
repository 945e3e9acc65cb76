#include "gsgpu/emu/irq.h"

namespace gsgpu {

uint32_t irq_defined_bits() {
  uint32_t bits = 0;
  for (IrqCause c : kAllIrqCauses) bits |= irq_bit(c);
  return bits;
}

const char* irq_cause_name(IrqCause c) {
  switch (c) {
    case IrqCause::kFence: return "FENCE";
    case IrqCause::kMmuFault: return "MMU_FAULT";
    case IrqCause::kCpFault: return "CP_FAULT";
    case IrqCause::kShaderFault: return "SHADER_FAULT";
    case IrqCause::kRegisterAccess: return "REG_ACCESS";
    case IrqCause::kHalt: return "HALT";
  }
  return "UNKNOWN";
}

InterruptController::InterruptController(RegisterFile& registers) : registers_(registers) {}

InterruptController::~InterruptController() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void InterruptController::set_callback(IrqCallback callback) {
  std::unique_lock lock(mutex_);
  callback_ = std::move(callback);
  // Once this returns the old callback is not running any more, so its captures may die. (From
  // inside a callback that wait would never end; the new callback applies to the next event.)
  if (std::this_thread::get_id() != thread_.get_id()) drained_.wait(lock, [this] { return !delivering_; });
}

void InterruptController::force(uint32_t cause_bits) {
  for (IrqCause c : kAllIrqCauses)
    if (cause_bits & irq_bit(c)) raise_event(c, true);
}

void InterruptController::raise_event(IrqCause cause, bool forced) {
  registers_.set_bits(hw::reg::IRQ_STATUS, irq_bit(cause));
  std::lock_guard lock(mutex_);
  // The mask is sampled under the queue lock so that events keep their raise order.
  if ((registers_.load(hw::reg::IRQ_MASK) & irq_bit(cause)) == 0) return;
  // Like a level-triggered line: a cause already waiting for delivery is not queued again, so a
  // kernel faulting on every lane cannot flood the queue.
  if (queued_bits_ & irq_bit(cause)) return;
  queued_bits_ |= irq_bit(cause);
  queue_.push_back(IrqEvent{cause, forced, next_sequence_++});
  ++raised_;
  // The interrupt thread starts with the first event that needs delivering: a device whose driver
  // polls and never unmasks a cause (the native context's) never has one.
  if (!thread_.joinable()) thread_ = std::thread([this] { delivery_loop(); });
  wake_.notify_one();
}

void InterruptController::delivery_loop() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty() && stopping_) return;
    IrqEvent event = queue_.front();
    queue_.pop_front();
    queued_bits_ &= ~irq_bit(event.cause);
    IrqCallback callback = callback_;
    delivering_ = true;
    lock.unlock();
    // The handler runs without the lock: it may read and write device registers.
    if (callback) {
      callback(event);
      registers_.increment(hw::reg::IRQ_COUNT);
    }
    lock.lock();
    delivering_ = false;
    ++completed_;
    drained_.notify_all();
  }
}

void InterruptController::drain() {
  std::unique_lock lock(mutex_);
  if (std::this_thread::get_id() == thread_.get_id()) return;
  uint64_t target = raised_;
  drained_.wait(lock, [&] { return completed_ >= target; });
}

}  // namespace gsgpu
