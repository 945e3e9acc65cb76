// The MMU (seed 000): segments added with validation, merged with neighbours, split when removed
// from the middle, looked up at any offset; faults recorded with address and type and raised.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>

#include "test_util.h"

namespace gsgpu {
namespace {

constexpr uint64_t kPage = Mmu::kPageSize;

MmuConfig config() { return MmuConfig{0x100000, 0x1000000, 0x100000}; }  // VA 1 MiB..17 MiB, 1 MiB VRAM

TEST(Mmu, LookupAtAnyOffsetInsideASegment) {
  Mmu mmu(config());
  std::string error;
  ASSERT_TRUE(mmu.map(0x200000, 4 * kPage, 2 * kPage, kPermRead, &error)) << error;
  auto hit = mmu.lookup(0x200000 + 3 * kPage + 12);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->segment.va, 0x200000u);
  EXPECT_EQ(hit->offset, 3 * kPage + 12);
  EXPECT_EQ(hit->host, mmu.vram() + 2 * kPage + 3 * kPage + 12);
  EXPECT_FALSE(mmu.lookup(0x200000 + 4 * kPage));
  EXPECT_FALSE(mmu.lookup(0x200000 - 1));
  EXPECT_EQ(mmu.fault_count(), 0u) << "lookup is a driver query, not an access";
}

TEST(Mmu, AddIsValidated) {
  Mmu mmu(config());
  std::string error;
  ASSERT_TRUE(mmu.map(0x200000, 2 * kPage, 0, kPermReadWrite, &error));
  struct Case {
    uint64_t va, size, phys;
    uint32_t perms;
    const char* why;
  } cases[] = {
      {0x300000, 0, 0x10000, kPermRead, "empty"},
      {0x300010, kPage, 0x10000, kPermRead, "multiples of the page size"},
      {0x300000, kPage, 0x10010, kPermRead, "multiples of the page size"},
      {0x300000, kPage, 0x10000, 0, "permissions"},
      {0x300000, kPage, 0x10000, 0x10, "permissions"},
      {0x0ff000, kPage, 0x10000, kPermRead, "outside the VA space"},
      {0x1100000, kPage, 0x10000, kPermRead, "outside the VA space"},
      {0x300000, kPage, 0x100000, kPermRead, "outside VRAM"},
      {0x201000, 2 * kPage, 0x10000, kPermRead, "overlaps"},
      {0x1ff000, 2 * kPage, 0x10000, kPermRead, "overlaps"},
      {~uint64_t{0} & ~(kPage - 1), kPage, 0, kPermRead, "outside the VA space"},
  };
  for (const Case& c : cases) {
    error.clear();
    EXPECT_FALSE(mmu.map(c.va, c.size, c.phys, c.perms, &error)) << c.why;
    EXPECT_NE(error.find(c.why), std::string::npos) << "error '" << error << "' should say " << c.why;
  }
  ASSERT_EQ(mmu.segments().size(), 1u);
}

TEST(Mmu, ContiguousNeighboursWithEqualPermissionsMerge) {
  Mmu mmu(config());
  std::string error;
  ASSERT_TRUE(mmu.map(0x200000 + kPage, kPage, kPage, kPermReadWrite, &error));
  ASSERT_TRUE(mmu.map(0x200000, kPage, 0, kPermReadWrite, &error));              // before
  ASSERT_TRUE(mmu.map(0x200000 + 3 * kPage, kPage, 3 * kPage, kPermReadWrite, &error));  // apart
  ASSERT_TRUE(mmu.map(0x200000 + 2 * kPage, kPage, 2 * kPage, kPermReadWrite, &error));  // fills the gap
  auto segs = mmu.segments();
  ASSERT_EQ(segs.size(), 1u);
  EXPECT_EQ(segs[0], (Segment{0x200000, 4 * kPage, 0, kPermReadWrite}));
}

TEST(Mmu, NoMergeAcrossDifferentPermissionsOrPhysicalGaps) {
  Mmu mmu(config());
  std::string error;
  ASSERT_TRUE(mmu.map(0x200000, kPage, 0, kPermReadWrite, &error));
  ASSERT_TRUE(mmu.map(0x200000 + kPage, kPage, kPage, kPermRead, &error));           // perms differ
  ASSERT_TRUE(mmu.map(0x200000 + 2 * kPage, kPage, 8 * kPage, kPermRead, &error));   // phys not contiguous
  EXPECT_EQ(mmu.segments().size(), 3u);
}

TEST(Mmu, RemovingFromTheMiddleSplitsTheSegment) {
  Mmu mmu(config());
  std::string error;
  ASSERT_TRUE(mmu.map(0x200000, 8 * kPage, 0x10000, kPermAll, &error));
  ASSERT_TRUE(mmu.unmap(0x200000 + 3 * kPage, 2 * kPage, &error)) << error;
  auto segs = mmu.segments();
  ASSERT_EQ(segs.size(), 2u);
  EXPECT_EQ(segs[0], (Segment{0x200000, 3 * kPage, 0x10000, kPermAll}));
  EXPECT_EQ(segs[1], (Segment{0x200000 + 5 * kPage, 3 * kPage, 0x10000 + 5 * kPage, kPermAll}));
  auto hit = mmu.lookup(0x200000 + 6 * kPage + 4);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->host, mmu.vram() + 0x10000 + 6 * kPage + 4) << "the right half keeps its physical pages";
  EXPECT_FALSE(mmu.lookup(0x200000 + 4 * kPage));
}

TEST(Mmu, RemovingFromEitherEndShrinksAndRemovingAllDeletes) {
  Mmu mmu(config());
  std::string error;
  ASSERT_TRUE(mmu.map(0x200000, 4 * kPage, 0, kPermRead, &error));
  ASSERT_TRUE(mmu.unmap(0x200000, kPage, &error));
  ASSERT_TRUE(mmu.unmap(0x200000 + 3 * kPage, kPage, &error));
  auto segs = mmu.segments();
  ASSERT_EQ(segs.size(), 1u);
  EXPECT_EQ(segs[0], (Segment{0x200000 + kPage, 2 * kPage, kPage, kPermRead}));
  ASSERT_TRUE(mmu.unmap(0x200000 + kPage, 2 * kPage, &error));
  EXPECT_TRUE(mmu.segments().empty());
}

TEST(Mmu, RemovingUnmappedRangesFails) {
  Mmu mmu(config());
  std::string error;
  ASSERT_TRUE(mmu.map(0x200000, 2 * kPage, 0, kPermRead, &error));
  EXPECT_FALSE(mmu.unmap(0x200000 + kPage, 2 * kPage, &error));
  EXPECT_NE(error.find("not entirely mapped"), std::string::npos) << error;
  EXPECT_FALSE(mmu.unmap(0x200001, kPage, &error));
  EXPECT_EQ(mmu.segments().size(), 1u) << "a refused removal changes nothing";
}

TEST(Mmu, RemovalMaySpanAdjacentSegments) {
  Mmu mmu(config());
  std::string error;
  ASSERT_TRUE(mmu.map(0x200000, 2 * kPage, 0, kPermRead, &error));
  ASSERT_TRUE(mmu.map(0x200000 + 2 * kPage, 2 * kPage, 2 * kPage, kPermReadWrite, &error));
  ASSERT_TRUE(mmu.unmap(0x200000 + kPage, 2 * kPage, &error)) << error;
  auto segs = mmu.segments();
  ASSERT_EQ(segs.size(), 2u);
  EXPECT_EQ(segs[0], (Segment{0x200000, kPage, 0, kPermRead}));
  EXPECT_EQ(segs[1], (Segment{0x200000 + 3 * kPage, kPage, 3 * kPage, kPermReadWrite}));
}

TEST(Mmu, FaultsAreRecordedWithAddressSizeAndAccess) {
  Mmu mmu(config());
  std::string error;
  ASSERT_TRUE(mmu.map(0x200000, kPage, 0, kPermRead, &error));
  std::vector<MemoryFault> handled;
  mmu.set_fault_handler([&](const MemoryFault& f) { handled.push_back(f); });
  EXPECT_NE(mmu.translate(0x200000, 16, Access::kRead), nullptr);
  EXPECT_EQ(mmu.translate(0x200000, 16, Access::kWrite), nullptr) << "read-only segment";
  EXPECT_EQ(mmu.translate(0x200000 + kPage - 4, 8, Access::kRead), nullptr) << "runs off the end";
  EXPECT_EQ(mmu.translate(0x900000, 4, Access::kExecute), nullptr) << "unmapped";
  EXPECT_EQ(mmu.translate(0x200000, 4, Access::kAtomic), nullptr) << "atomics need write";
  auto log = mmu.fault_log();
  ASSERT_EQ(log.size(), 4u);
  EXPECT_EQ(log[0].address, 0x200000u);
  EXPECT_EQ(log[0].access, Access::kWrite);
  EXPECT_EQ(log[1].address, 0x200000 + kPage - 4);
  EXPECT_EQ(log[1].size, 8u);
  EXPECT_EQ(log[2].access, Access::kExecute);
  EXPECT_EQ(log[3].access, Access::kAtomic);
  EXPECT_EQ(handled.size(), 4u);
  EXPECT_EQ(mmu.fault_count(), 4u);
}

TEST(Mmu, FaultLogIsBounded) {
  Mmu mmu(config());
  for (uint64_t i = 0; i < Mmu::kFaultLogCapacity + 10; ++i) mmu.translate(0x900000 + i * 4, 4, Access::kRead);
  auto log = mmu.fault_log();
  ASSERT_EQ(log.size(), Mmu::kFaultLogCapacity);
  EXPECT_EQ(log.back().address, 0x900000 + (Mmu::kFaultLogCapacity + 9) * 4) << "newest kept, oldest first";
  EXPECT_EQ(log.front().address, 0x900000 + 10 * 4);
  EXPECT_EQ(mmu.fault_count(), Mmu::kFaultLogCapacity + 10);
}

TEST(Mmu, DeviceTurnsFaultsIntoRegistersAndAnInterrupt) {
  auto d = test::make_device(test::small_config());
  std::atomic<int> mmu_irqs{0};
  d->set_irq_callback([&](const IrqEvent& e) {
    if (e.cause == IrqCause::kMmuFault) ++mmu_irqs;
  });
  d->write_register(hw::reg::IRQ_MASK, irq_bit(IrqCause::kMmuFault));
  const uint64_t bad = d->properties().config.va_base + 0x7654320;
  EXPECT_EQ(d->mmu().translate(bad, 4, Access::kWrite), nullptr);
  d->wait_for_interrupts();  // else the second fault may be coalesced with the queued first one
  EXPECT_EQ(d->mmu().translate(bad + 64, 4, Access::kRead), nullptr);
  d->wait_for_interrupts();
  EXPECT_EQ(mmu_irqs, 2);
  EXPECT_EQ(d->read_register(hw::reg::MMU_FAULT_ADDR_LO), uint32_t(bad)) << "the first fault is kept";
  EXPECT_EQ(d->read_register(hw::reg::MMU_FAULT_ADDR_HI), uint32_t(bad >> 32));
  uint32_t info = d->read_register(hw::reg::MMU_FAULT_INFO);
  EXPECT_EQ((info & hw::field::MMU_FAULT_INFO::ACCESS_MASK) >> hw::field::MMU_FAULT_INFO::ACCESS_SHIFT,
            uint32_t(Access::kWrite));
  EXPECT_EQ((info & hw::field::MMU_FAULT_INFO::SIZE_MASK) >> hw::field::MMU_FAULT_INFO::SIZE_SHIFT, 4u);
  EXPECT_NE(info & hw::field::MMU_FAULT_INFO::VALID_MASK, 0u);
  EXPECT_EQ(d->read_register(hw::reg::MMU_FAULT_COUNT), 2u);
  d->write_register(hw::reg::MMU_FAULT_INFO, hw::field::MMU_FAULT_INFO::VALID_MASK);  // re-arm
  EXPECT_EQ(d->mmu().translate(bad + 128, 4, Access::kRead), nullptr);
  EXPECT_EQ(d->read_register(hw::reg::MMU_FAULT_ADDR_LO), uint32_t(bad + 128));
  d->wait_for_interrupts();
  d->set_irq_callback(nullptr);
}

TEST(Mmu, HostCopiesCrossAdjacentSegmentsAndRefuseHoles) {
  Mmu mmu(config());
  std::string error;
  ASSERT_TRUE(mmu.map(0x200000, kPage, 0, kPermExecute, &error));
  ASSERT_TRUE(mmu.map(0x200000 + kPage, kPage, 5 * kPage, kPermRead, &error));
  std::vector<uint8_t> data(kPage + 100);
  for (size_t i = 0; i < data.size(); ++i) data[i] = uint8_t(i * 7);
  ASSERT_TRUE(mmu.write(0x200000 + 50, data.data(), data.size()));
  std::vector<uint8_t> back(data.size());
  ASSERT_TRUE(mmu.read(0x200000 + 50, back.data(), back.size()));
  EXPECT_EQ(back, data);
  EXPECT_EQ(mmu.vram()[5 * kPage + 149], data[kPage + 99]);
  EXPECT_FALSE(mmu.write(0x200000 + kPage, data.data(), data.size())) << "runs into unmapped space";
  EXPECT_EQ(mmu.fault_count(), 0u);
}

TEST(Mmu, ConcurrentTranslationsFromManyThreads) {
  Mmu mmu(config());
  std::string error;
  ASSERT_TRUE(mmu.map(0x200000, 16 * kPage, 0, kPermReadWrite, &error));
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20000; ++i) {
        uint64_t va = 0x200000 + uint64_t((i * 4 + t) % (16 * kPage / 4)) * 4;
        uint8_t* p = mmu.translate(va, 4, Access::kWrite);
        if (!p) ++failures;
        if (mmu.translate(0x100000, 4, Access::kRead) != nullptr) ++failures;
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(mmu.fault_count(), 4u * 20000u);
}

// Imported memory (gsgpu/drv's bo_import): host memory the caller owns, with the VRAM rules.
TEST(Mmu, HostBackedSegmentsTranslateSplitAndFaultLikeVram) {
  Mmu mmu(config());
  alignas(4096) static uint8_t host[4 * 4096];
  std::string error;
  EXPECT_FALSE(mmu.map_host(0x200000, kPage, nullptr, kPermRead, &error));
  EXPECT_FALSE(mmu.map_host(0x200000, kPage, host + 8, kPermRead, &error));
  EXPECT_NE(error.find("page aligned"), std::string::npos) << error;
  EXPECT_FALSE(mmu.map_host(0x200000, kPage, host, 0, &error)) << "no permissions";
  EXPECT_FALSE(mmu.map_host(0x100000 - kPage, kPage, host, kPermRead, &error)) << "outside the VA space";
  ASSERT_TRUE(mmu.map_host(0x200000, 4 * kPage, host, kPermReadWrite, &error)) << error;
  EXPECT_FALSE(mmu.map_host(0x200000 + 3 * kPage, kPage, host, kPermRead, &error)) << "overlap";
  // Translation, lookups and host copies reach the caller's memory.
  uint8_t* p = mmu.translate(0x200000 + kPage + 4, 4, Access::kWrite);
  EXPECT_EQ(p, host + kPage + 4);
  GpuMemory::Range range;
  ASSERT_TRUE(mmu.lookup_range(0x200000 + 5, Access::kRead, &range));
  EXPECT_EQ(range.host, host);
  EXPECT_EQ(range.va_end, 0x200000 + 4 * kPage);
  EXPECT_EQ(mmu.lookup(0x200000 + 2 * kPage)->host, host + 2 * kPage);
  uint32_t value = 0x12345678;
  ASSERT_TRUE(mmu.write(0x200000 + 8, &value, 4));
  EXPECT_EQ(std::memcmp(host + 8, &value, 4), 0);
  // Permissions and bounds fault as for VRAM.
  EXPECT_EQ(mmu.translate(0x200000, 4, Access::kExecute), nullptr);
  EXPECT_EQ(mmu.translate(0x200000 + 4 * kPage - 2, 4, Access::kRead), nullptr);
  EXPECT_EQ(mmu.fault_count(), 2u);
  // A split keeps each half on its own part of the host memory.
  ASSERT_TRUE(mmu.unmap(0x200000 + kPage, kPage, &error)) << error;
  EXPECT_EQ(mmu.translate(0x200000 + kPage, 4, Access::kRead), nullptr);
  EXPECT_EQ(mmu.translate(0x200000 + 2 * kPage, 4, Access::kRead), host + 2 * kPage);
  EXPECT_EQ(mmu.segments().size(), 2u);
  // Never merged with VRAM, even when the VAs continue each other.
  ASSERT_TRUE(mmu.map(0x200000 + 4 * kPage, kPage, 0, kPermReadWrite, &error)) << error;
  EXPECT_EQ(mmu.segments().size(), 3u);
  EXPECT_EQ(mmu.translate(0x200000 + 4 * kPage, 4, Access::kRead), mmu.vram());
  // Re-mapping the hole with the same host pages merges the three host parts back into one.
  ASSERT_TRUE(mmu.map_host(0x200000 + kPage, kPage, host + kPage, kPermReadWrite, &error)) << error;
  EXPECT_EQ(mmu.segments().size(), 2u);
}

TEST(VramAllocator, AllocatesAlignedRangesAndCoalescesOnFree) {
  VramAllocator alloc(16 * kPage);
  auto a = alloc.allocate(100);
  auto b = alloc.allocate(3 * kPage, 4 * kPage);
  auto c = alloc.allocate(kPage);
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(*a % kPage, 0u);
  EXPECT_EQ(*b % (4 * kPage), 0u);
  EXPECT_NE(*a, *c);
  EXPECT_FALSE(alloc.allocate(64 * kPage));
  EXPECT_TRUE(alloc.free(*a));
  EXPECT_FALSE(alloc.free(*a)) << "double free refused";
  EXPECT_TRUE(alloc.free(*b));
  EXPECT_TRUE(alloc.free(*c));
  EXPECT_EQ(alloc.bytes_free(), 16 * kPage);
  EXPECT_TRUE(alloc.allocate(16 * kPage)) << "free ranges coalesced back into one";
}

}  // namespace
}  // namespace gsgpu
