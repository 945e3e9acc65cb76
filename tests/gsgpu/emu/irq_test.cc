// Interrupts: latched status, mask, acknowledge, forced mode, delivery on the interrupt thread in
// raise order (seed 000).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <thread>

#include "test_util.h"

namespace gsgpu {
namespace {

using test::make_device;
using test::small_config;

struct Recorder {
  std::mutex mutex;
  std::vector<IrqEvent> events;
  std::vector<std::thread::id> threads;
  IrqCallback callback() {
    return [this](const IrqEvent& e) {
      std::lock_guard lock(mutex);
      events.push_back(e);
      threads.push_back(std::this_thread::get_id());
    };
  }
};

TEST(Interrupts, ForcedInterruptsArriveOnAnotherThreadInOrder) {
  auto d = make_device(small_config());
  Recorder rec;
  d->set_irq_callback(rec.callback());
  d->write_register(hw::reg::IRQ_MASK, irq_defined_bits());
  for (IrqCause c : kAllIrqCauses) d->force_interrupt(c);
  d->wait_for_interrupts();
  ASSERT_EQ(rec.events.size(), std::size(kAllIrqCauses));
  for (size_t i = 0; i < rec.events.size(); ++i) {
    EXPECT_EQ(rec.events[i].cause, kAllIrqCauses[i]);
    EXPECT_TRUE(rec.events[i].forced);
    EXPECT_NE(rec.threads[i], std::this_thread::get_id()) << "delivered on the raising thread";
    if (i > 0) {
      EXPECT_GT(rec.events[i].sequence, rec.events[i - 1].sequence);
    }
  }
  EXPECT_EQ(d->read_register(hw::reg::IRQ_STATUS), irq_defined_bits());
  EXPECT_EQ(d->read_register(hw::reg::IRQ_COUNT), std::size(kAllIrqCauses));
  d->set_irq_callback(nullptr);
}

TEST(Interrupts, ForceRegisterRaisesEveryBitWritten) {
  auto d = make_device(small_config());
  Recorder rec;
  d->set_irq_callback(rec.callback());
  d->write_register(hw::reg::IRQ_MASK, irq_defined_bits());
  uint32_t bits = irq_bit(IrqCause::kMmuFault) | irq_bit(IrqCause::kHalt) | 0x80000000u;  // undefined bit ignored
  d->write_register(hw::reg::IRQ_FORCE, bits);
  d->wait_for_interrupts();
  ASSERT_EQ(rec.events.size(), 2u);
  EXPECT_EQ(rec.events[0].cause, IrqCause::kMmuFault);
  EXPECT_EQ(rec.events[1].cause, IrqCause::kHalt);
  EXPECT_EQ(d->read_register(hw::reg::IRQ_FORCE), 0u) << "write-only trigger reads 0";
  EXPECT_EQ(d->read_register(hw::reg::IRQ_STATUS), irq_bit(IrqCause::kMmuFault) | irq_bit(IrqCause::kHalt));
  d->set_irq_callback(nullptr);
}

TEST(Interrupts, MaskedCausesAreLatchedButNotDelivered) {
  auto d = make_device(small_config());
  Recorder rec;
  d->set_irq_callback(rec.callback());
  d->write_register(hw::reg::IRQ_MASK, irq_bit(IrqCause::kFence));
  d->force_interrupt(IrqCause::kCpFault);
  d->force_interrupt(IrqCause::kFence);
  d->wait_for_interrupts();
  ASSERT_EQ(rec.events.size(), 1u);
  EXPECT_EQ(rec.events[0].cause, IrqCause::kFence);
  EXPECT_EQ(d->read_register(hw::reg::IRQ_STATUS), irq_bit(IrqCause::kFence) | irq_bit(IrqCause::kCpFault));
  d->write_register(hw::reg::IRQ_STATUS, irq_bit(IrqCause::kCpFault));  // acknowledge one
  EXPECT_EQ(d->read_register(hw::reg::IRQ_STATUS), irq_bit(IrqCause::kFence));
  d->set_irq_callback(nullptr);
}

TEST(Interrupts, HandlerMayAccessTheDevice) {
  auto d = make_device(small_config());
  std::atomic<uint32_t> seen_status{0};
  d->set_irq_callback([&](const IrqEvent& e) {
    seen_status = d->read_register(hw::reg::IRQ_STATUS);
    d->write_register(hw::reg::IRQ_STATUS, irq_bit(e.cause));  // acknowledge from the handler
  });
  d->write_register(hw::reg::IRQ_MASK, irq_defined_bits());
  d->force_interrupt(IrqCause::kShaderFault);
  d->wait_for_interrupts();
  EXPECT_EQ(seen_status.load(), irq_bit(IrqCause::kShaderFault));
  EXPECT_EQ(d->read_register(hw::reg::IRQ_STATUS), 0u);
  d->set_irq_callback(nullptr);
}

TEST(Interrupts, CauseNamesMatchTheXmlFields) {
  const hw::RegisterInfo* status = RegisterFile::info(hw::reg::IRQ_STATUS);
  ASSERT_NE(status, nullptr);
  ASSERT_EQ(status->field_count, std::size(kAllIrqCauses));
  for (uint32_t i = 0; i < status->field_count; ++i) {
    IrqCause c = kAllIrqCauses[i];
    EXPECT_EQ(irq_bit(c), status->fields[i].mask);
    EXPECT_STREQ(irq_cause_name(c), status->fields[i].name);
  }
}

}  // namespace
}  // namespace gsgpu

namespace gsgpu {
namespace {

TEST(Interrupts, UnbindingWaitsForARunningCallback) {
  auto d = test::make_device(test::small_config());
  std::atomic<bool> inside{false}, finished{false};
  d->set_irq_callback([&](const IrqEvent&) {
    inside = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    finished = true;
  });
  d->write_register(hw::reg::IRQ_MASK, irq_defined_bits());
  d->force_interrupt(IrqCause::kFence);
  while (!inside) std::this_thread::yield();
  d->set_irq_callback(nullptr);
  EXPECT_TRUE(finished) << "set_irq_callback returned while the old callback still ran";
}

}  // namespace
}  // namespace gsgpu

namespace gsgpu {
namespace {

TEST(Interrupts, ACauseStillQueuedIsCoalesced) {
  auto d = test::make_device(test::small_config());
  std::atomic<bool> release{false};
  std::mutex mutex;
  std::vector<IrqCause> seen;
  d->set_irq_callback([&](const IrqEvent& e) {
    while (!release) std::this_thread::yield();  // hold the interrupt thread inside the first event
    std::lock_guard lock(mutex);
    seen.push_back(e.cause);
  });
  d->write_register(hw::reg::IRQ_MASK, irq_defined_bits());
  d->force_interrupt(IrqCause::kHalt);  // being delivered (blocked)
  for (int i = 0; i < 1000; ++i) d->force_interrupt(IrqCause::kMmuFault);  // one queued, the rest coalesced
  d->force_interrupt(IrqCause::kFence);
  release = true;
  d->wait_for_interrupts();
  d->set_irq_callback(nullptr);
  // kHalt may or may not have been dequeued before the burst; either way no cause repeats.
  ASSERT_LE(seen.size(), 3u);
  EXPECT_EQ(std::count(seen.begin(), seen.end(), IrqCause::kMmuFault), 1);
  EXPECT_EQ(seen.back(), IrqCause::kFence);
}

}  // namespace
}  // namespace gsgpu
