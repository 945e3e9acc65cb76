// Faults and recovery on the local backend, reset, on_retire, BO lifetime across pending work,
// imported memory, isolation between devices, dumps.
#include <sys/mman.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "drv_test_util.h"

namespace gsgpu::drv {
namespace {

using test::Buffer;
using test::Driver;
using test::LogCapture;
using test::open_device;
using test::small_config;

constexpr uint64_t kForever = UINT64_MAX;

// Records on_retire calls; can hold the device thread inside one (so later submissions stay
// queued, deterministically) until released.
struct RetireLog {
  struct Entry {
    uint32_t ring;
    uint64_t seqno;
    Status outcome;
  };
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<Entry> entries;
  bool hold = false;     // the next on_retire blocks until release()
  bool holding = false;  // one is blocked now

  void attach(LocalConfig* c) {
    c->on_retire = [this](uint32_t ring, uint64_t seqno, Status outcome) {
      std::unique_lock lock(mutex);
      entries.push_back({ring, seqno, outcome});
      if (hold) {
        hold = false;
        holding = true;
        changed.notify_all();
        changed.wait(lock, [&] { return !holding; });
      }
      changed.notify_all();
    };
  }
  void wait_until_holding() {
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] { return holding; });
  }
  void release() {
    std::lock_guard lock(mutex);
    holding = false;
    changed.notify_all();
  }
  std::vector<Entry> snapshot() {
    std::lock_guard lock(mutex);
    return entries;
  }
};

// An anonymous mapping the test owns, unmapped by the import's release callback so that any
// access after release is a crash (and an ASan report), not a silent read.
struct ImportedPages {
  explicit ImportedPages(uint64_t bytes) : size(bytes) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT_NE(p, MAP_FAILED);
    host = static_cast<uint8_t*>(p);
  }
  std::function<void()> release_unmapping() {
    return [this] {
      ++released;
      munmap(host, size);
    };
  }
  uint8_t* host = nullptr;
  uint64_t size = 0;
  std::atomic<int> released{0};
};

std::vector<uint32_t> scale_dispatch(Driver& driver, const Buffer& code, const Buffer& args, uint64_t x_va,
                                     uint32_t groups, uint32_t k) {
  test::write_scale_args(args, x_va, k);
  std::vector<uint32_t> packets;
  append_dispatch(&packets, driver.dispatch(code, args, 12, groups, 32));
  return packets;
}

// Submits an empty submission and waits for it: everything submitted before has retired and
// dropped its references (the device thread drops them before it takes the next submission).
void drain(Device& d) {
  SubmitDesc desc;
  uint64_t seqno = 0;
  ASSERT_EQ(d.submit(desc, &seqno), Status::kOk);
  ASSERT_EQ(d.fence_wait(0, seqno, kForever), Status::kOk);
}

// Runs a scale of 64 elements on a fresh buffer and checks it: the device works.
void expect_device_works(Device& d, Driver& driver, uint32_t ring) {
  Buffer code = driver.kernel(test::kScaleKernel);
  Buffer args = driver.buffer(4096, kVaRead);
  Buffer x = driver.buffer(4096);
  auto* v = reinterpret_cast<uint32_t*>(x.cpu);
  for (uint32_t i = 0; i < 64; ++i) v[i] = i;
  uint64_t seqno = 0;
  ASSERT_EQ(driver.submit(ring, scale_dispatch(driver, code, args, x.va, 2, 5), {code.bo, args.bo, x.bo}, &seqno),
            Status::kOk);
  ASSERT_EQ(d.fence_wait(ring, seqno, kForever), Status::kOk);
  for (uint32_t i = 0; i < 64; ++i) ASSERT_EQ(v[i], i * 5) << i;
}

TEST(DrvFaults, AccessToAnUnboundVaFaultsWithTheAddress) {
  auto d = open_device();
  Driver driver(*d);
  Buffer code = driver.kernel(test::kScaleKernel);
  Buffer args = driver.buffer(4096, kVaRead);
  const uint64_t unbound = d->caps().va_base + 0x7000000;
  LogCapture log;
  uint64_t seqno = 0;
  ASSERT_EQ(driver.submit(0, scale_dispatch(driver, code, args, unbound, 1, 1), {code.bo, args.bo}, &seqno),
            Status::kOk);
  EXPECT_EQ(d->fence_wait(0, seqno, kForever), Status::kFaulted);
  EXPECT_EQ(d->fence_poll(0), seqno) << "a faulted submission has retired";
  std::vector<FaultInfo> faults = d->read_faults();
  ASSERT_EQ(faults.size(), 1u);
  const FaultInfo& f = faults[0];
  EXPECT_EQ(f.kind, FaultKind::kMemory);
  EXPECT_EQ(f.ring, 0u);
  EXPECT_EQ(f.seqno, seqno);
  EXPECT_EQ(f.address, unbound) << std::hex << f.address;
  EXPECT_GE(f.pc, code.va);
  EXPECT_LT(f.pc, code.va + code.size);
  EXPECT_EQ(f.detail, 1u) << "SHADER_FAULT_INFO.KIND memory";
  EXPECT_NE(f.message.find("packet 0"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("memory"), std::string::npos) << f.message;
  EXPECT_TRUE(log.contains("seqno 1 faulted (memory)")) << log.all();
  EXPECT_TRUE(d->read_faults().empty()) << "read once";
  Counters c = d->counters();
  EXPECT_EQ(c.faults, 1u);
  EXPECT_EQ(c.submissions, 1u);
  // The device recovered by itself: the next submission on the same ring runs.
  expect_device_works(*d, driver, 0);
  EXPECT_EQ(d->counters().faults, 1u);
}

TEST(DrvFaults, WriteToAReadOnlyBindingFaults) {
  auto d = open_device();
  Driver driver(*d);
  Buffer code = driver.kernel(test::kScaleKernel);
  Buffer args = driver.buffer(4096, kVaRead);
  Buffer x = driver.buffer(4096, kVaRead);
  uint64_t seqno = 0;
  LogCapture log;
  ASSERT_EQ(driver.submit(1, scale_dispatch(driver, code, args, x.va, 1, 2), {code.bo, args.bo, x.bo}, &seqno),
            Status::kOk);
  EXPECT_EQ(d->fence_wait(1, seqno, kForever), Status::kFaulted);
  auto faults = d->read_faults();
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0].kind, FaultKind::kMemory);
  EXPECT_EQ(faults[0].ring, 1u);
  EXPECT_GE(faults[0].address, x.va);
  EXPECT_LT(faults[0].address, x.va + 32 * 4);
  expect_device_works(*d, driver, 1);
}

TEST(DrvFaults, WatchdogEndsAnEndlessKernel) {
  LocalConfig c = small_config();
  c.watchdog_budget = 5000;
  auto d = open_device(c);
  Driver driver(*d);
  Buffer code = driver.kernel(test::kSpinKernel);
  std::vector<uint32_t> packets;
  append_dispatch(&packets, driver.dispatch(code, code, 0, 3, 16));
  LogCapture log;
  uint64_t seqno = 0;
  ASSERT_EQ(driver.submit(0, packets, {code.bo}, &seqno), Status::kOk);
  EXPECT_EQ(d->fence_wait(0, seqno, kForever), Status::kFaulted);
  auto faults = d->read_faults();
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0].kind, FaultKind::kShader);
  EXPECT_EQ(faults[0].detail, 2u) << "SHADER_FAULT_INFO.KIND watchdog";
  EXPECT_GE(faults[0].pc, code.va);
  EXPECT_NE(faults[0].message.find("watchdog"), std::string::npos) << faults[0].message;
  expect_device_works(*d, driver, 0);
}

TEST(DrvFaults, MalformedPacketIsACommandFaultOfItsSubmissionOnly) {
  auto d = open_device();
  Driver driver(*d);
  LogCapture log;
  std::vector<uint32_t> packets = encode_nop(2);
  packets.push_back(hw::make_packet_header(0x7e, 1));  // no such opcode
  uint64_t bad = 0;
  ASSERT_EQ(driver.submit(0, packets, {}, &bad), Status::kOk);
  // Queued behind it on the other ring: unaffected.
  uint64_t good = 0;
  ASSERT_EQ(driver.submit(1, encode_nop(), {}, &good), Status::kOk);
  EXPECT_EQ(d->fence_wait(0, bad, kForever), Status::kFaulted);
  EXPECT_EQ(d->fence_wait(1, good, kForever), Status::kOk);
  auto faults = d->read_faults();
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0].kind, FaultKind::kCommand);
  EXPECT_EQ(faults[0].detail, 1u) << "CP_FAULT_INFO.CAUSE unknown opcode";
  EXPECT_NE(faults[0].message.find("packet 1"), std::string::npos) << faults[0].message;
  EXPECT_NE(faults[0].message.find("unknown opcode"), std::string::npos) << faults[0].message;
  // A SYNC of the client's own to unmapped memory: a memory fault with the address.
  std::vector<uint32_t> sync = encode_sync(kSyncWriteFence, d->caps().va_base + 0x40000, 1);
  ASSERT_EQ(driver.submit(0, sync, {}, &bad), Status::kOk);
  EXPECT_EQ(d->fence_wait(0, bad, kForever), Status::kFaulted);
  faults = d->read_faults();
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0].kind, FaultKind::kMemory);
  EXPECT_EQ(faults[0].address, d->caps().va_base + 0x40000);
  expect_device_works(*d, driver, 0);
}

TEST(DrvFaults, FaultLogKeepsTheNewest64) {
  auto d = open_device();
  Driver driver(*d);
  std::vector<uint32_t> bad = {hw::make_packet_header(0x7e, 1)};
  uint64_t seqno = 0;
  LogCapture log;
  for (int i = 0; i < 70; ++i) ASSERT_EQ(driver.submit(0, bad, {}, &seqno), Status::kOk);
  EXPECT_EQ(d->fence_wait(0, seqno, kForever), Status::kFaulted);
  auto faults = d->read_faults();
  ASSERT_EQ(faults.size(), 64u);
  EXPECT_EQ(faults.front().seqno, 7u);
  EXPECT_EQ(faults.back().seqno, 70u);
  EXPECT_EQ(d->counters().faults, 70u);
}

TEST(DrvFaults, TimeBudgetStopsALongSubmission) {
  LocalConfig c = small_config();
  c.watchdog_budget = 0xffffffff;  // the watchdog would take minutes
  c.submit_time_budget_ns = 100'000'000;
  auto d = open_device(c);
  Driver driver(*d);
  Buffer code = driver.kernel(test::kSpinKernel);
  std::vector<uint32_t> packets;
  append_dispatch(&packets, driver.dispatch(code, code, 0, 64, 32));
  LogCapture log;
  const auto start = std::chrono::steady_clock::now();
  uint64_t seqno = 0;
  ASSERT_EQ(driver.submit(0, packets, {code.bo}, &seqno), Status::kOk);
  EXPECT_EQ(d->fence_wait(0, seqno, kForever), Status::kFaulted);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(seconds, 0.1);
  EXPECT_LT(seconds, 20.0);
  auto faults = d->read_faults();
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0].kind, FaultKind::kTimeout);
  EXPECT_NE(faults[0].message.find("time budget of 100 ms"), std::string::npos) << faults[0].message;
  // Quick submissions are not affected.
  expect_device_works(*d, driver, 0);
  EXPECT_TRUE(d->read_faults().empty());
}

// Issue 12 point 6: the per-dispatch budget counts from each DISPATCH of a submission.
TEST(DrvFaults, Issue12DispatchTimeBudgetStopsALongDispatch) {
  LocalConfig c = small_config();
  c.watchdog_budget = 0xffffffff;
  c.dispatch_time_budget_ns = 100'000'000;
  auto d = open_device(c);
  Driver driver(*d);
  Buffer code = driver.kernel(test::kSpinKernel);
  std::vector<uint32_t> packets;
  append_dispatch(&packets, driver.dispatch(code, code, 0, 64, 32));
  LogCapture log;
  uint64_t seqno = 0;
  ASSERT_EQ(driver.submit(0, packets, {code.bo}, &seqno), Status::kOk);
  EXPECT_EQ(d->fence_wait(0, seqno, kForever), Status::kFaulted);
  auto faults = d->read_faults();
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0].kind, FaultKind::kTimeout);
  EXPECT_NE(faults[0].message.find("time budget of one dispatch, 100 ms"), std::string::npos) << faults[0].message;
  expect_device_works(*d, driver, 0);
}

// Issue 12 point 6: the client's budget adds up its submissions' run time; once spent, the running
// one is stopped and later ones retire faulted without running. Memory calls still work.
TEST(DrvFaults, Issue12ClientTimeBudgetEndsTheClientsWork) {
  LocalConfig c = small_config();
  c.watchdog_budget = 0xffffffff;
  c.client_time_budget_ns = 200'000'000;
  auto d = open_device(c);
  Driver driver(*d);
  Buffer code = driver.kernel(test::kSpinKernel);
  std::vector<uint32_t> packets;
  append_dispatch(&packets, driver.dispatch(code, code, 0, 64, 32));
  LogCapture log;
  uint64_t seqno = 0;
  ASSERT_EQ(driver.submit(0, packets, {code.bo}, &seqno), Status::kOk);
  EXPECT_EQ(d->fence_wait(0, seqno, kForever), Status::kFaulted);
  std::vector<uint32_t> nothing;
  append_sync(&nothing, 0, 0, 0);
  ASSERT_EQ(driver.submit(0, nothing, {}, &seqno), Status::kOk);
  EXPECT_EQ(d->fence_wait(0, seqno, kForever), Status::kFaulted);
  auto faults = d->read_faults();
  ASSERT_EQ(faults.size(), 2u);
  EXPECT_EQ(faults[0].kind, FaultKind::kTimeout);
  EXPECT_NE(faults[0].message.find("the client's time budget of 200 ms"), std::string::npos) << faults[0].message;
  EXPECT_EQ(faults[1].kind, FaultKind::kTimeout);
  EXPECT_NE(faults[1].message.find("not run"), std::string::npos) << faults[1].message;
  BoHandle bo = 0;
  EXPECT_EQ(d->bo_create(4096, 0, &bo), Status::kOk);
}

TEST(DrvReset, CancelsQueuedWorkAndRunningKernels) {
  RetireLog retired;
  LocalConfig c = small_config();
  c.watchdog_budget = 0xffffffff;
  retired.attach(&c);
  auto d = open_device(c);
  Driver driver(*d);
  Buffer code = driver.kernel(test::kSpinKernel);
  std::vector<uint32_t> spin;
  append_dispatch(&spin, driver.dispatch(code, code, 0, 8, 32));
  uint64_t s1 = 0, s2 = 0, s3 = 0, t1 = 0;
  ASSERT_EQ(driver.submit(0, spin, {code.bo}, &s1), Status::kOk);  // runs (for minutes) until reset
  ASSERT_EQ(driver.submit(0, encode_nop(), {}, &s2), Status::kOk);
  ASSERT_EQ(driver.submit(1, encode_nop(), {}, &t1), Status::kOk);
  ASSERT_EQ(driver.submit(0, encode_nop(), {}, &s3), Status::kOk);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(d->fence_poll(0), 0u) << "the spinning kernel holds the device";
  EXPECT_EQ(d->reset(), Status::kOk);
  // When reset returns, everything has retired, cancelled.
  EXPECT_EQ(d->fence_poll(0), s3);
  EXPECT_EQ(d->fence_poll(1), t1);
  EXPECT_EQ(d->fence_wait(0, s1, 0), Status::kFaulted);
  EXPECT_EQ(d->fence_wait(0, s2, 0), Status::kFaulted);
  EXPECT_EQ(d->fence_wait(0, s3, 0), Status::kFaulted);
  EXPECT_EQ(d->fence_wait(1, t1, 0), Status::kFaulted);
  EXPECT_TRUE(d->read_faults().empty()) << "cancelled work is not a fault";
  auto entries = retired.snapshot();
  ASSERT_EQ(entries.size(), 4u);
  const std::pair<uint32_t, uint64_t> order[] = {{0, s1}, {0, s2}, {1, t1}, {0, s3}};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(entries[i].ring, order[i].first) << i;
    EXPECT_EQ(entries[i].seqno, order[i].second) << i;
    EXPECT_EQ(entries[i].outcome, Status::kFaulted) << i;
  }
  EXPECT_EQ(d->counters().resets, 1u);
  // BOs and bindings stay; the device works.
  expect_device_works(*d, driver, 0);
  EXPECT_EQ(d->reset(), Status::kOk) << "with nothing pending";
}

TEST(DrvRetire, OnRetireOncePerSubmissionInOrder) {
  RetireLog retired;
  LocalConfig c = small_config();
  retired.attach(&c);
  auto d = open_device(c);
  Driver driver(*d);
  std::vector<uint32_t> bad = {hw::make_packet_header(0x7e, 1)};
  std::vector<std::pair<uint32_t, uint64_t>> submitted;
  LogCapture log;
  for (int i = 0; i < 30; ++i) {
    uint32_t ring = i % 2;
    uint64_t seqno = 0;
    ASSERT_EQ(driver.submit(ring, i % 7 == 3 ? bad : encode_nop(), {}, &seqno), Status::kOk);
    submitted.push_back({ring, seqno});
  }
  ASSERT_EQ(d->fence_wait(0, submitted[28].second, kForever), Status::kOk);
  ASSERT_EQ(d->fence_wait(1, submitted[29].second, kForever), Status::kOk);
  auto entries = retired.snapshot();
  ASSERT_EQ(entries.size(), 30u);
  for (size_t i = 0; i < 30; ++i) {
    EXPECT_EQ(entries[i].ring, submitted[i].first) << i;
    EXPECT_EQ(entries[i].seqno, submitted[i].second) << i;
    EXPECT_EQ(entries[i].outcome, i % 7 == 3 ? Status::kFaulted : Status::kOk) << i;
  }
}

TEST(DrvLifetime, BoFreedWhilePendingLivesUntilRetirement) {
  RetireLog retired;
  LocalConfig c = small_config();
  retired.attach(&c);
  auto d = open_device(c);
  Driver driver(*d);
  Buffer code = driver.kernel(test::kScaleKernel);
  Buffer args = driver.buffer(4096, kVaRead);
  ImportedPages pages(8192);
  BoHandle imported = 0;
  ASSERT_EQ(d->bo_import(pages.host, pages.size, pages.release_unmapping(), &imported), Status::kOk);
  const uint64_t x_va = d->caps().va_base + 0x4000000;
  ASSERT_EQ(d->va_bind(imported, 0, x_va, pages.size, kVaRead | kVaWrite), Status::kOk);
  // Hold the device thread in the first retirement so the dispatch stays queued.
  {
    std::lock_guard lock(retired.mutex);
    retired.hold = true;
  }
  uint64_t first = 0, second = 0;
  ASSERT_EQ(driver.submit(0, encode_nop(), {}, &first), Status::kOk);
  retired.wait_until_holding();
  ASSERT_EQ(driver.submit(0, scale_dispatch(driver, code, args, x_va, 2, 3), {code.bo, args.bo, imported}, &second),
            Status::kOk);
  // Handle and binding go now; the memory stays while the submission is pending.
  EXPECT_EQ(d->bo_free(imported), Status::kOk);
  EXPECT_EQ(d->bo_map(imported), nullptr);
  EXPECT_EQ(pages.released.load(), 0);
  // A VRAM object freed meanwhile keeps its VRAM too: a new object does not get it.
  BoHandle vram = 0, fresh = 0;
  ASSERT_EQ(d->bo_create(4096, 0, &vram), Status::kOk);
  uint8_t* vram_cpu = static_cast<uint8_t*>(d->bo_map(vram));
  uint64_t held_seqno = 0;
  ASSERT_EQ(driver.submit(1, encode_nop(), {vram}, &held_seqno), Status::kOk);
  EXPECT_EQ(d->bo_free(vram), Status::kOk);
  ASSERT_EQ(d->bo_create(4096, 0, &fresh), Status::kOk);
  EXPECT_NE(d->bo_map(fresh), vram_cpu);
  retired.release();
  // The dispatch ran without its binding: a memory fault at x, not a use of released memory.
  EXPECT_EQ(d->fence_wait(0, second, kForever), Status::kFaulted);
  EXPECT_EQ(d->fence_wait(1, held_seqno, kForever), Status::kOk);
  auto faults = d->read_faults();
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0].kind, FaultKind::kMemory);
  EXPECT_GE(faults[0].address, x_va) << "the first faulting lane of either group";
  EXPECT_LT(faults[0].address, x_va + 64 * 4);
  // Released once, after the retirement (the device thread drops references after on_retire).
  drain(*d);
  EXPECT_EQ(pages.released.load(), 1);
  // The VRAM range came back: a 4 KiB object fits where the freed one was.
  BoHandle reuse = 0;
  ASSERT_EQ(d->bo_create(4096, 0, &reuse), Status::kOk);
  EXPECT_EQ(d->bo_map(reuse), vram_cpu);
}

TEST(DrvLifetime, BoFreedWhileItsKernelRunsIsReleasedAfterTheRun) {
  LocalConfig c = small_config();
  c.watchdog_budget = 0xffffffff;
  c.submit_time_budget_ns = 300'000'000;
  auto d = open_device(c);
  Driver driver(*d);
  Buffer code = driver.kernel(test::kSpinKernel);
  ImportedPages pages(4096);
  BoHandle imported = 0;
  ASSERT_EQ(d->bo_import(pages.host, pages.size, pages.release_unmapping(), &imported), Status::kOk);
  ASSERT_EQ(d->va_bind(imported, 0, d->caps().va_base + 0x4000000, 4096, kVaRead | kVaWrite), Status::kOk);
  std::vector<uint32_t> packets;
  append_dispatch(&packets, driver.dispatch(code, code, 0, 4, 32));
  uint64_t seqno = 0;
  // Not in the BO list: only the running-dispatch rule keeps it alive.
  ASSERT_EQ(driver.submit(0, packets, {code.bo}, &seqno), Status::kOk);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_EQ(d->fence_poll(0), 0u);
  EXPECT_EQ(d->bo_free(imported), Status::kOk);
  EXPECT_EQ(pages.released.load(), 0) << "a shader core may still hold a translated range";
  LogCapture log;
  EXPECT_EQ(d->fence_wait(0, seqno, kForever), Status::kFaulted);
  drain(*d);
  EXPECT_EQ(pages.released.load(), 1);
}

TEST(DrvImport, TheGpuReadsAndWritesTheImportedMemory) {
  auto d = open_device();
  Driver driver(*d);
  Buffer code = driver.kernel(test::kScaleKernel);
  Buffer args = driver.buffer(4096, kVaRead);
  ImportedPages pages(3 * 4096);
  auto* words = reinterpret_cast<uint32_t*>(pages.host);
  for (uint32_t i = 0; i < 3 * 1024; ++i) words[i] = i;
  BoHandle bo = 0;
  ASSERT_EQ(d->bo_import(pages.host, pages.size, pages.release_unmapping(), &bo), Status::kOk);
  // Bind only the middle page: the kernel scales words 1024..1024+63.
  const uint64_t va = d->caps().va_base + 0x4000000;
  ASSERT_EQ(d->va_bind(bo, 4096, va, 4096, kVaRead | kVaWrite), Status::kOk);
  uint64_t seqno = 0;
  ASSERT_EQ(driver.submit(0, scale_dispatch(driver, code, args, va, 2, 10), {code.bo, args.bo, bo}, &seqno),
            Status::kOk);
  ASSERT_EQ(d->fence_wait(0, seqno, kForever), Status::kOk);
  for (uint32_t i = 0; i < 3 * 1024; ++i) {
    const bool scaled = i >= 1024 && i < 1024 + 64;
    ASSERT_EQ(words[i], scaled ? i * 10 : i) << "word " << i;
  }
  // The caller's later writes are what the next dispatch reads (no copy in between).
  words[1024] = 7;
  ASSERT_EQ(driver.submit(0, scale_dispatch(driver, code, args, va, 1, 2), {code.bo, args.bo, bo}, &seqno),
            Status::kOk);
  ASSERT_EQ(d->fence_wait(0, seqno, kForever), Status::kOk);
  EXPECT_EQ(words[1024], 14u);
  EXPECT_EQ(d->bo_free(bo), Status::kOk);
  EXPECT_EQ(pages.released.load(), 1);
}

TEST(DrvIsolation, TwoDevicesDoNotSeeEachOthersVas) {
  auto a = open_device();
  auto b = open_device();
  Driver on_a(*a), on_b(*b);
  // A binds x at a VA; B's kernel uses the same VA, where B has nothing: B faults, A's data stays.
  Buffer code_a = on_a.kernel(test::kScaleKernel);
  Buffer args_a = on_a.buffer(4096, kVaRead);
  Buffer x = on_a.buffer(4096);
  auto* v = reinterpret_cast<uint32_t*>(x.cpu);
  for (uint32_t i = 0; i < 64; ++i) v[i] = i;
  Buffer code_b = on_b.kernel(test::kScaleKernel);
  Buffer args_b = on_b.buffer(4096, kVaRead);
  LogCapture log;
  uint64_t seqno = 0;
  ASSERT_EQ(on_b.submit(0, scale_dispatch(on_b, code_b, args_b, x.va, 2, 9), {code_b.bo, args_b.bo}, &seqno),
            Status::kOk);
  EXPECT_EQ(b->fence_wait(0, seqno, kForever), Status::kFaulted);
  auto faults = b->read_faults();
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_GE(faults[0].address, x.va) << "the first faulting lane of either group";
  EXPECT_LT(faults[0].address, x.va + 64 * 4);
  for (uint32_t i = 0; i < 64; ++i) ASSERT_EQ(v[i], i) << i;
  EXPECT_TRUE(a->read_faults().empty()) << "B's fault stays in B";
  // Handles are per device too.
  EXPECT_EQ(b->bo_map(x.bo) == x.cpu, false);
  ASSERT_EQ(on_a.submit(0, scale_dispatch(on_a, code_a, args_a, x.va, 2, 9), {code_a.bo, args_a.bo, x.bo}, &seqno),
            Status::kOk);
  EXPECT_EQ(a->fence_wait(0, seqno, kForever), Status::kOk);
  for (uint32_t i = 0; i < 64; ++i) ASSERT_EQ(v[i], i * 9) << i;
}

TEST(DrvDump, EveryDispatchIsDumpedToTheDirectory) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("gsgpu_drv_dump_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  LocalConfig c = small_config();
  c.dump_dir = dir.string();
  {
    auto d = open_device(c);
    Driver driver(*d);
    Buffer code = driver.kernel(test::kScaleKernel);
    Buffer args = driver.buffer(4096, kVaRead);
    Buffer x = driver.buffer(4096);
    std::vector<uint32_t> packets = scale_dispatch(driver, code, args, x.va, 2, 3);
    append_nop(&packets);
    append_dispatch(&packets, driver.dispatch(code, args, 12, 1, 32));
    uint64_t seqno = 0;
    ASSERT_EQ(driver.submit(1, packets, {code.bo, args.bo, x.bo}, &seqno), Status::kOk);
    ASSERT_EQ(d->fence_wait(1, seqno, kForever), Status::kOk);
    EXPECT_EQ(d->counters().packets, 3u) << "the driver's DUMPs are not the client's packets";
    // A faulting dispatch is dumped too.
    LogCapture log;
    ASSERT_EQ(driver.submit(0, scale_dispatch(driver, code, args, 0x7000000, 1, 1), {code.bo, args.bo}, &seqno),
              Status::kOk);
    EXPECT_EQ(d->fence_wait(0, seqno, kForever), Status::kFaulted);
    auto faults = d->read_faults();
    ASSERT_EQ(faults.size(), 1u);
    EXPECT_NE(faults[0].message.find("packet 0"), std::string::npos) << faults[0].message;
  }
  std::vector<std::string> texts;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::ifstream in(entry.path());
    std::stringstream s;
    s << in.rdbuf();
    texts.push_back(entry.path().filename().string() + "\n" + s.str());
  }
  std::sort(texts.begin(), texts.end());
  ASSERT_EQ(texts.size(), 3u);
  EXPECT_EQ(texts[0].rfind("dispatch-000001-ring1-seq1.txt", 0), 0u) << texts[0];
  EXPECT_NE(texts[0].find("2 x 1 x 1 work-groups"), std::string::npos) << texts[0];
  EXPECT_NE(texts[0].find("global_load_b32"), std::string::npos) << texts[0];
  EXPECT_NE(texts[0].find("result: ok"), std::string::npos) << texts[0];
  EXPECT_NE(texts[1].find("1 x 1 x 1 work-groups"), std::string::npos) << texts[1];
  EXPECT_EQ(texts[2].rfind("dispatch-000003-ring0-seq1.txt", 0), 0u) << texts[2];
  EXPECT_NE(texts[2].find("result: fault memory"), std::string::npos) << texts[2];
  fs::remove_all(dir);
}

TEST(DrvThreads, ManyThreadsSubmitWaitAndManageObjects) {
  auto d = open_device();
  Driver setup(*d);
  Buffer code = setup.kernel(test::kScaleKernel);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      const uint64_t base = d->caps().va_base + 0x10000000 + uint64_t{t} * 0x1000000;
      for (int i = 0; i < 20; ++i) {
        BoHandle x = 0, args = 0;
        if (d->bo_create(4096, 0, &x) != Status::kOk || d->bo_create(4096, 0, &args) != Status::kOk) {
          ++failures;
          return;
        }
        auto* v = static_cast<uint32_t*>(d->bo_map(x));
        for (uint32_t k = 0; k < 32; ++k) v[k] = k;
        d->va_bind(x, 0, base, 4096, kVaRead | kVaWrite);
        d->va_bind(args, 0, base + 0x10000, 4096, kVaRead);
        uint64_t x_va = base;
        uint32_t factor = t + 2;
        std::memcpy(static_cast<uint8_t*>(d->bo_map(args)), &x_va, 8);
        std::memcpy(static_cast<uint8_t*>(d->bo_map(args)) + 8, &factor, 4);
        DispatchPacket p;
        p.code_va = code.va;
        p.code_size = uint32_t(code.size);
        p.arg_va = base + 0x10000;
        p.arg_size = 12;
        p.group_size[0] = 32;
        std::vector<uint32_t> packets = encode_dispatch(p);
        BoHandle bos[] = {code.bo, x, args};
        uint64_t seqno = 0;
        SubmitDesc desc{t % 2, packets.data(), uint32_t(packets.size()), bos, 3};
        if (d->submit(desc, &seqno) != Status::kOk || d->fence_wait(t % 2, seqno, kForever) != Status::kOk) ++failures;
        for (uint32_t k = 0; k < 32; ++k)
          if (v[k] != k * factor) ++failures;
        d->bo_free(x);
        d->bo_free(args);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(d->counters().submissions, 80u);
}

}  // namespace
}  // namespace gsgpu::drv
