// The command processor: the ring protocol, each packet, and hostile streams that must end in a
// reported fault with the device still usable afterwards.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <random>

#include "gsgpu/emu/dump.h"
#include "test_util.h"

namespace gsgpu {
namespace {

using test::FakeBackend;
using test::LogCapture;
using test::must_buffer;

class CommandProcessorTest : public ::testing::TestWithParam<CpMode> {
 protected:
  void SetUp() override { build(4096); }

  void build(uint32_t ring_size) {
    script_ = std::make_shared<FakeBackend::Script>();
    device_ = test::make_device(test::small_config(GetParam()), std::make_unique<FakeBackend>(script_));
    ring_va_ = must_buffer(*device_, ring_size);
    scratch_va_ = must_buffer(*device_, 8192);
    ring_ = std::make_unique<RingWriter>(*device_, ring_va_, ring_size);
    device_->set_irq_callback([this](const IrqEvent& e) {
      std::lock_guard lock(irq_mutex_);
      irqs_.push_back(e.cause);
    });
    device_->write_register(hw::reg::IRQ_MASK, irq_defined_bits());
  }

  void TearDown() override {
    if (device_) device_->set_irq_callback(nullptr);
  }

  void submit(const std::vector<uint32_t>& packet) {
    std::string error;
    ASSERT_TRUE(ring_->write(packet, &error)) << error;
  }
  void run() {
    ring_->kick();
    device_->run_until_idle();
  }
  std::vector<IrqCause> irqs() {
    std::lock_guard lock(irq_mutex_);
    return irqs_;
  }
  bool saw(IrqCause c) {
    for (IrqCause x : irqs())
      if (x == c) return true;
    return false;
  }
  uint64_t read64(uint64_t va) {
    uint64_t v = 0;
    EXPECT_TRUE(device_->mmu().read(va, &v, 8));
    return v;
  }
  CpFaultCause fault_cause() {
    return CpFaultCause((device_->read_register(hw::reg::CP_FAULT_INFO) & hw::field::CP_FAULT_INFO::CAUSE_MASK) >>
                        hw::field::CP_FAULT_INFO::CAUSE_SHIFT);
  }
  // Raw words at the current tail, bypassing RingWriter's packet framing.
  void write_raw(const std::vector<uint32_t>& words) {
    uint32_t tail = device_->read_register(hw::reg::RING_TAIL);
    uint32_t size = device_->read_register(hw::reg::RING_SIZE);
    for (uint32_t w : words) {
      ASSERT_TRUE(device_->mmu().write(ring_va_ + tail, &w, 4));
      tail = (tail + 4) % size;
    }
    device_->write_register(hw::reg::RING_TAIL, tail);
  }
  // The device is still usable: reset the CP, point it at a fresh ring, and a fence goes through.
  void expect_recovers() {
    device_->write_register(hw::reg::CP_CONTROL, hw::field::CP_CONTROL::RESET_MASK);
    EXPECT_EQ(device_->cp_state(), CpState::kIdle);
    ring_ = std::make_unique<RingWriter>(*device_, ring_va_, 4096);
    submit(make_sync_packet(hw::pkt::SYNC::FLAGS_WRITE_FENCE_MASK | hw::pkt::SYNC::FLAGS_FENCE_64BIT_MASK,
                            scratch_va_, 0xabcdef0123456789ull));
    run();
    EXPECT_EQ(device_->cp_state(), CpState::kIdle);
    EXPECT_EQ(read64(scratch_va_), 0xabcdef0123456789ull);
  }

  std::shared_ptr<FakeBackend::Script> script_;
  std::unique_ptr<Device> device_;
  std::unique_ptr<RingWriter> ring_;
  uint64_t ring_va_ = 0, scratch_va_ = 0;
  std::mutex irq_mutex_;
  std::vector<IrqCause> irqs_;
};

TEST_P(CommandProcessorTest, SyncWritesA32BitFenceAndRaisesTheInterrupt) {
  uint64_t before = 0xffffffffffffffffull;
  device_->mmu().write(scratch_va_, &before, 8);
  submit(make_sync_packet(hw::pkt::SYNC::FLAGS_WRITE_FENCE_MASK | hw::pkt::SYNC::FLAGS_RAISE_IRQ_MASK, scratch_va_,
                          0x1122334455667788ull));
  run();
  EXPECT_EQ(read64(scratch_va_), 0xffffffff55667788ull) << "only the low 32 bits written";
  EXPECT_EQ(device_->read_register(hw::reg::FENCE_LAST_LO), 0x55667788u);
  EXPECT_EQ(device_->read_register(hw::reg::FENCE_LAST_HI), 0x11223344u);
  EXPECT_TRUE(saw(IrqCause::kFence));
  EXPECT_EQ(device_->cp_state(), CpState::kIdle);
  EXPECT_EQ(device_->read_register(hw::reg::RING_HEAD), device_->read_register(hw::reg::RING_TAIL));
  EXPECT_EQ(device_->read_register(hw::reg::CP_PACKETS), 1u);
}

TEST_P(CommandProcessorTest, SyncWrites64BitFencesWithoutInterruptWhenNotAsked) {
  submit(make_sync_packet(hw::pkt::SYNC::FLAGS_WRITE_FENCE_MASK | hw::pkt::SYNC::FLAGS_FENCE_64BIT_MASK,
                          scratch_va_ + 8, 0x1122334455667788ull));
  run();
  EXPECT_EQ(read64(scratch_va_ + 8), 0x1122334455667788ull);
  EXPECT_FALSE(saw(IrqCause::kFence));
}

TEST_P(CommandProcessorTest, DispatchDecodesEveryFieldForTheBackend) {
  DispatchRequest q;
  q.code_va = scratch_va_;
  q.code_size = 64;
  q.entry_offset = 8;
  q.arg_va = scratch_va_ + 4096;
  q.arg_size = 24;
  q.grid_size[0] = 3; q.grid_size[1] = 5; q.grid_size[2] = 7;
  q.group_size[0] = 64; q.group_size[1] = 2; q.group_size[2] = 1;
  q.global_offset[0] = 0x100000000ull; q.global_offset[1] = 9; q.global_offset[2] = 11;
  q.local_mem_size = 1024;
  q.private_mem_size = 16;
  device_->write_register(hw::reg::WATCHDOG_BUDGET, 5000);
  script_->next_outcome.counters = {100, 3200, 50, 105, 0};
  submit(make_dispatch_packet(q));
  run();
  ASSERT_EQ(script_->requests.size(), 1u);
  const DispatchRequest& got = script_->requests[0];
  EXPECT_EQ(got.code_va, q.code_va);
  EXPECT_EQ(got.code_size, q.code_size);
  EXPECT_EQ(got.entry_offset, q.entry_offset);
  EXPECT_EQ(got.arg_va, q.arg_va);
  EXPECT_EQ(got.arg_size, q.arg_size);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(got.grid_size[i], q.grid_size[i]);
    EXPECT_EQ(got.group_size[i], q.group_size[i]);
    EXPECT_EQ(got.global_offset[i], q.global_offset[i]);
  }
  EXPECT_EQ(got.local_mem_size, 1024u);
  EXPECT_EQ(got.private_mem_size, 16u);
  EXPECT_EQ(got.instruction_budget, 5000u) << "from WATCHDOG_BUDGET";
  EXPECT_EQ(device_->read_register(hw::reg::DISPATCH_COUNT), 1u);
  auto record = device_->last_dispatch();
  ASSERT_TRUE(record);
  EXPECT_EQ(record->outcome.counters.instructions_issued, 100u);
  EXPECT_EQ(record->outcome.counters.active_lane_instructions, 3200u);
  EXPECT_EQ(device_->cp_counters().dispatches, 1u);
  EXPECT_EQ(device_->cp_state(), CpState::kIdle);
  EXPECT_EQ(device_->read_register(hw::reg::PERF_INSTRUCTIONS_LO), 100u);
  EXPECT_EQ(device_->read_register(hw::reg::PERF_LANE_INSTRUCTIONS_LO), 3200u);
  EXPECT_EQ(device_->read_register(hw::reg::PERF_CYCLES_LO), 50u);
  EXPECT_EQ(device_->read_register(hw::reg::PERF_WORK_GROUPS), 105u);
}

TEST_P(CommandProcessorTest, DispatchWithBadFieldsIsACpFault) {
  DispatchRequest q;
  q.code_va = scratch_va_;
  q.code_size = 64;
  q.grid_size[1] = 0;
  LogCapture log;
  submit(make_dispatch_packet(q));
  run();
  EXPECT_EQ(device_->cp_state(), CpState::kFaulted);
  EXPECT_EQ(fault_cause(), CpFaultCause::kBadField);
  EXPECT_TRUE(log.contains("GRID_Y is 0"));
  EXPECT_TRUE(script_->requests.empty());
  EXPECT_TRUE(saw(IrqCause::kCpFault));
  expect_recovers();
}

TEST_P(CommandProcessorTest, FaultingDispatchStopsTheCpAndRaisesShaderFault) {
  DispatchRequest q;
  q.code_va = scratch_va_;
  q.code_size = 16;
  script_->next_outcome.fault = DispatchFault{DispatchFaultKind::kWatchdog, 12, {1, 0, 0}, {}, "budget exceeded"};
  submit(make_dispatch_packet(q));
  submit(make_sync_packet(hw::pkt::SYNC::FLAGS_WRITE_FENCE_MASK, scratch_va_ + 64, 1));
  LogCapture log;
  run();
  EXPECT_EQ(device_->cp_state(), CpState::kFaulted);
  EXPECT_EQ(fault_cause(), CpFaultCause::kDispatchFault);
  EXPECT_EQ(device_->read_register(hw::reg::SHADER_FAULT_INFO), uint32_t(DispatchFaultKind::kWatchdog));
  EXPECT_EQ(device_->read_register(hw::reg::SHADER_FAULT_PC_LO), 12u);
  EXPECT_TRUE(saw(IrqCause::kShaderFault));
  EXPECT_FALSE(saw(IrqCause::kCpFault));
  EXPECT_EQ(read64(scratch_va_ + 64), 0u) << "the fence after a faulted dispatch is not signalled";
  EXPECT_TRUE(log.contains("budget exceeded"));
  script_->next_outcome.fault.reset();
  expect_recovers();
}

TEST_P(CommandProcessorTest, DumpWritesTheLastDispatchIntoABufferAndTheHostSink) {
  uint32_t code[4] = {11, 22, 33, 44};
  ASSERT_TRUE(device_->mmu().write(scratch_va_, code, sizeof code));
  DispatchRequest q;
  q.code_va = scratch_va_;
  q.code_size = sizeof code;
  q.grid_size[0] = 4;
  q.group_size[0] = 32;
  script_->next_outcome.counters = {7, 224, 7, 4, 0};
  std::string host_text;
  device_->set_dump_sink([&](std::string_view t) { host_text = std::string(t); });
  const uint64_t dump_va = scratch_va_ + 4096;
  submit(make_dispatch_packet(q));
  submit(make_dump_packet(hw::pkt::DUMP::FLAGS_TO_BUFFER_MASK | hw::pkt::DUMP::FLAGS_TO_HOST_MASK, dump_va, 4096));
  run();
  ASSERT_EQ(device_->cp_state(), CpState::kIdle);
  std::vector<char> buf(4096);
  ASSERT_TRUE(device_->mmu().read(dump_va, buf.data(), buf.size()));
  std::string text(buf.data());
  EXPECT_EQ(text, host_text);
  for (const char* needle : {"DISPATCH (22 dwords)", "GRID_X", "4 x 1 x 1 work-groups", "instructions_issued       7",
                             "active_lane_instructions  224", "fake_op 11", "fake_op 44", "result: ok"})
    EXPECT_NE(text.find(needle), std::string::npos) << "dump lacks '" << needle << "':\n" << text;
}

TEST_P(CommandProcessorTest, DumpIsTruncatedSafelyToTheBuffer) {
  DispatchRequest q;
  q.code_va = scratch_va_;
  q.code_size = 64;
  submit(make_dispatch_packet(q));
  std::vector<uint8_t> canary(64, 0x5a);
  ASSERT_TRUE(device_->mmu().write(scratch_va_ + 4096, canary.data(), canary.size()));
  submit(make_dump_packet(hw::pkt::DUMP::FLAGS_TO_BUFFER_MASK, scratch_va_ + 4096, 32));
  run();
  ASSERT_EQ(device_->cp_state(), CpState::kIdle);
  std::vector<uint8_t> back(64);
  ASSERT_TRUE(device_->mmu().read(scratch_va_ + 4096, back.data(), back.size()));
  EXPECT_EQ(back[31], 0) << "NUL-terminated inside the buffer";
  EXPECT_EQ(std::string(reinterpret_cast<char*>(back.data()), 31), device_->dump_text().substr(0, 31));
  for (size_t i = 32; i < 64; ++i) EXPECT_EQ(back[i], 0x5a) << "wrote past the buffer at " << i;
}

TEST_P(CommandProcessorTest, DumpBeforeAnyDispatchSaysSo) {
  submit(make_dump_packet(hw::pkt::DUMP::FLAGS_TO_BUFFER_MASK, scratch_va_, 256));
  run();
  char buf[256];
  ASSERT_TRUE(device_->mmu().read(scratch_va_, buf, sizeof buf));
  EXPECT_STREQ(buf, format_empty_dump().c_str());
}

TEST_P(CommandProcessorTest, HaltStopsTheCpUntilReset) {
  submit(make_halt_packet());
  submit(make_sync_packet(hw::pkt::SYNC::FLAGS_WRITE_FENCE_MASK, scratch_va_, 5));
  run();
  EXPECT_EQ(device_->cp_state(), CpState::kHalted);
  EXPECT_TRUE(saw(IrqCause::kHalt));
  EXPECT_EQ(read64(scratch_va_), 0u) << "nothing after HALT runs";
  run();  // doorbells are ignored while halted
  EXPECT_EQ(read64(scratch_va_), 0u);
  EXPECT_EQ(device_->read_register(hw::reg::CP_PACKETS), 1u);
  expect_recovers();
}

TEST_P(CommandProcessorTest, PacketsWrapAroundTheEndOfTheRing) {
  build(64);  // 16 dwords: a 6-dword SYNC wraps on the third packet
  for (uint64_t i = 1; i <= 20; ++i) {
    submit(make_sync_packet(hw::pkt::SYNC::FLAGS_WRITE_FENCE_MASK | hw::pkt::SYNC::FLAGS_FENCE_64BIT_MASK,
                            scratch_va_, i * 1000));
    run();
    ASSERT_EQ(device_->cp_state(), CpState::kIdle) << "packet " << i;
    ASSERT_EQ(read64(scratch_va_), i * 1000);
  }
  EXPECT_EQ(device_->read_register(hw::reg::CP_PACKETS), 20u);
}

TEST_P(CommandProcessorTest, NopPacketsOfAnySizeAreSkipped) {
  submit(make_nop_packet(1));
  submit(make_nop_packet(40));
  submit(make_sync_packet(hw::pkt::SYNC::FLAGS_WRITE_FENCE_MASK, scratch_va_, 77));
  run();
  EXPECT_EQ(read64(scratch_va_), 77u);
  EXPECT_EQ(device_->cp_counters().packets, 3u);
}

// --- hostile streams ---

TEST_P(CommandProcessorTest, UnknownOpcodeIsACpFault) {
  LogCapture log;
  write_raw({hw::make_packet_header(0x7f, 1)});
  run();
  EXPECT_EQ(device_->cp_state(), CpState::kFaulted);
  EXPECT_EQ(fault_cause(), CpFaultCause::kUnknownOpcode);
  EXPECT_EQ((device_->read_register(hw::reg::CP_FAULT_INFO) & hw::field::CP_FAULT_INFO::OPCODE_MASK) >>
                hw::field::CP_FAULT_INFO::OPCODE_SHIFT,
            0x7fu);
  EXPECT_TRUE(saw(IrqCause::kCpFault));
  EXPECT_TRUE(log.contains("opcode 0x7f"));
  expect_recovers();
}

TEST_P(CommandProcessorTest, ZeroOrWrongSizesAreCpFaults) {
  write_raw({hw::make_packet_header(hw::pkt::NOP::OPCODE, 0)});
  run();
  EXPECT_EQ(fault_cause(), CpFaultCause::kBadSize);
  expect_recovers();
  write_raw({hw::make_packet_header(hw::pkt::SYNC::OPCODE, 3), 0, 0});
  run();
  EXPECT_EQ(fault_cause(), CpFaultCause::kBadSize);
  EXPECT_EQ(device_->cp_fault()->message.find("SYNC: SIZE_DWORDS 3, expected 6"), 0u) << device_->cp_fault()->message;
}

TEST_P(CommandProcessorTest, SizePastTheTailIsACpFault) {
  write_raw({hw::make_packet_header(hw::pkt::NOP::OPCODE, 0xffff), 0, 0});
  run();
  EXPECT_EQ(fault_cause(), CpFaultCause::kPastTail);
  EXPECT_EQ(device_->read_register(hw::reg::CP_FAULT_HEAD), 0u);
  expect_recovers();
}

TEST_P(CommandProcessorTest, RingInUnmappedMemoryFaultsInTheMmuAndTheCp) {
  const uint64_t unmapped = device_->properties().config.va_base + 0x800000;
  device_->write_register(hw::reg::RING_BASE_LO, uint32_t(unmapped));
  device_->write_register(hw::reg::RING_BASE_HI, uint32_t(unmapped >> 32));
  device_->write_register(hw::reg::RING_TAIL, 8);
  run();
  EXPECT_EQ(device_->cp_state(), CpState::kFaulted);
  EXPECT_EQ(fault_cause(), CpFaultCause::kRingUnreadable);
  EXPECT_TRUE(saw(IrqCause::kMmuFault));
  EXPECT_TRUE(saw(IrqCause::kCpFault));
  EXPECT_EQ(device_->read_register(hw::reg::MMU_FAULT_ADDR_LO), uint32_t(unmapped));
  expect_recovers();
}

TEST_P(CommandProcessorTest, BadRingRegistersAreACpFault) {
  device_->write_register(hw::reg::RING_SIZE, 6);
  device_->write_register(hw::reg::RING_TAIL, 4);
  run();
  EXPECT_EQ(fault_cause(), CpFaultCause::kBadRingRegisters);
  expect_recovers();
}

TEST_P(CommandProcessorTest, FenceToUnmappedOrMisalignedMemoryIsAFault) {
  submit(make_sync_packet(hw::pkt::SYNC::FLAGS_WRITE_FENCE_MASK, device_->properties().config.va_base + 0x900000, 1));
  run();
  EXPECT_EQ(fault_cause(), CpFaultCause::kMemoryFault);
  EXPECT_TRUE(saw(IrqCause::kMmuFault));
  expect_recovers();
  submit(make_sync_packet(hw::pkt::SYNC::FLAGS_WRITE_FENCE_MASK | hw::pkt::SYNC::FLAGS_FENCE_64BIT_MASK,
                          scratch_va_ + 4, 1));
  run();
  EXPECT_EQ(fault_cause(), CpFaultCause::kBadField);
}

TEST_P(CommandProcessorTest, RandomPacketStreamsEndInAReportedStateAndTheDeviceRecovers) {
  std::mt19937 rng(1234);
  LogCapture quiet;  // hostile streams log a lot
  for (int round = 0; round < 200; ++round) {
    std::vector<uint32_t> words(1 + rng() % 64);
    for (uint32_t& w : words) {
      switch (rng() % 4) {
        case 0: w = rng(); break;
        case 1: w = hw::make_packet_header(rng() % 6, rng() % 24); break;
        case 2: w = uint32_t(scratch_va_ + (rng() % 8192)); break;
        default: w = rng() % 16; break;
      }
    }
    write_raw(words);
    run();
    CpState s = device_->cp_state();
    ASSERT_TRUE(s == CpState::kIdle || s == CpState::kHalted || s == CpState::kFaulted) << cp_state_name(s);
    if (s == CpState::kFaulted) {
      ASSERT_TRUE(device_->cp_fault());
      ASSERT_NE(fault_cause(), CpFaultCause::kNone);
    }
    device_->write_register(hw::reg::CP_CONTROL, hw::field::CP_CONTROL::RESET_MASK);
    ring_ = std::make_unique<RingWriter>(*device_, ring_va_, 4096);
  }
  expect_recovers();
}

TEST_P(CommandProcessorTest, SoftResetLeavesAUsableDevice) {
  write_raw({hw::make_packet_header(0x55, 1)});
  run();
  ASSERT_EQ(device_->cp_state(), CpState::kFaulted);
  device_->write_register(hw::reg::CONTROL, hw::field::CONTROL::SOFT_RESET_MASK);
  EXPECT_EQ(device_->cp_state(), CpState::kIdle);
  EXPECT_FALSE(device_->cp_fault());
  EXPECT_EQ(device_->read_register(hw::reg::RING_SIZE), 0u);
  device_->write_register(hw::reg::IRQ_MASK, irq_defined_bits());
  expect_recovers();
}

INSTANTIATE_TEST_SUITE_P(Modes, CommandProcessorTest, ::testing::Values(CpMode::kManual, CpMode::kThread),
                         [](const auto& info) { return info.param == CpMode::kManual ? "Manual" : "Thread"; });

TEST(CommandProcessorThreading, ThreadModeProcessesOffTheCallersThread) {
  auto script = std::make_shared<FakeBackend::Script>();
  auto d = test::make_device(test::small_config(CpMode::kThread), std::make_unique<FakeBackend>(script));
  uint64_t ring_va = must_buffer(*d, 4096), fence_va = must_buffer(*d, 4096);
  RingWriter ring(*d, ring_va, 4096);
  std::atomic<bool> other_thread{false};
  const auto caller = std::this_thread::get_id();
  d->set_irq_callback([&](const IrqEvent&) { other_thread = std::this_thread::get_id() != caller; });
  d->write_register(hw::reg::IRQ_MASK, irq_bit(IrqCause::kFence));
  ASSERT_TRUE(ring.write(make_sync_packet(hw::pkt::SYNC::FLAGS_WRITE_FENCE_MASK | hw::pkt::SYNC::FLAGS_RAISE_IRQ_MASK,
                                          fence_va, 42)));
  ring.kick();
  d->run_until_idle();
  uint32_t fence = 0;
  ASSERT_TRUE(d->mmu().read(fence_va, &fence, 4));
  EXPECT_EQ(fence, 42u);
  EXPECT_TRUE(other_thread);
  d->set_irq_callback(nullptr);
}

}  // namespace
}  // namespace gsgpu

namespace gsgpu {
namespace {

TEST(CommandProcessorLimits, DispatchesAboveTheWorkItemLimitAreRefused) {
  auto script = std::make_shared<test::FakeBackend::Script>();
  DeviceConfig c = test::small_config(CpMode::kManual);
  c.max_work_items_per_dispatch = 1000;
  auto d = test::make_device(c, std::make_unique<test::FakeBackend>(script));
  uint64_t ring_va = test::must_buffer(*d, 4096);
  RingWriter ring(*d, ring_va, 4096);
  DispatchRequest q;
  q.code_va = ring_va;
  q.code_size = 4;
  q.grid_size[0] = 0x10000;
  q.grid_size[1] = 0x10000;  // 2^32 groups: must not overflow the check either
  q.group_size[0] = 1024;
  test::LogCapture log;
  ASSERT_TRUE(ring.write(make_dispatch_packet(q)));
  ring.kick();
  d->run_until_idle();
  EXPECT_EQ(d->cp_state(), CpState::kFaulted);
  EXPECT_EQ(d->cp_fault()->cause, CpFaultCause::kBadField);
  EXPECT_NE(d->cp_fault()->message.find("device limit of 1000"), std::string::npos) << d->cp_fault()->message;
  EXPECT_TRUE(script->requests.empty());
}

}  // namespace
}  // namespace gsgpu
