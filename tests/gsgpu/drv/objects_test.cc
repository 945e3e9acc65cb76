// The local backend's caps, buffer objects and VA bindings, with every refusal.
#include <sys/mman.h>

#include <atomic>

#include "drv_test_util.h"
#include "protocol/gsgpu/gsgpu_hw.h"

namespace gsgpu::drv {
namespace {

using test::LogCapture;
using test::open_device;
using test::small_config;

TEST(DrvCaps, CapsComeFromTheConfiguredDevice) {
  LocalConfig c = small_config();
  c.shader_cores = 3;
  c.warp_width = 16;
  c.vram_size = uint64_t{12} << 20;
  c.num_rings = 3;
  c.max_work_items_per_dispatch = (uint64_t{1} << 33) + 5;
  auto d = open_device(c);
  ASSERT_TRUE(d);
  const Caps& caps = d->caps();
  EXPECT_STREQ(d->backend_name(), "local");
  EXPECT_EQ(caps.chip_id, hw::reset::ID);
  EXPECT_EQ(caps.version, hw::reset::VERSION);
  EXPECT_EQ(caps.shader_cores, 3u);
  EXPECT_EQ(caps.warp_width, 16u);
  EXPECT_EQ(caps.vram_size, uint64_t{12} << 20);
  EXPECT_EQ(caps.num_rings, 3u);
  EXPECT_EQ(caps.max_work_items_per_dispatch, (uint64_t{1} << 33) + 5);
  EXPECT_EQ(caps.max_work_group_size, 1024u);
  EXPECT_EQ(caps.max_local_mem_size, 1u << 20);
  EXPECT_EQ(caps.max_private_mem_size, 64u << 10);
  EXPECT_EQ(caps.clock_mhz, 1000u);
  EXPECT_EQ(caps.page_size, 4096u);
  EXPECT_GT(caps.va_base, 0u);
  EXPECT_EQ(caps.va_base % caps.page_size, 0u);
  EXPECT_GE(caps.va_size, uint64_t{1} << 32);
  EXPECT_GT(caps.max_bo_size, 0u);
  EXPECT_LE(caps.max_bo_size, caps.vram_size);
}

TEST(DrvCaps, UnusableConfigurationsAreRefused) {
  LogCapture log;
  auto refused = [](LocalConfig c, const char* needle) {
    std::string error;
    EXPECT_FALSE(open_local(c, &error)) << needle;
    EXPECT_NE(error.find(needle), std::string::npos) << error;
  };
  LocalConfig c = small_config();
  c.num_rings = 0;
  refused(c, "num_rings");
  c = small_config();
  c.num_rings = 65;
  refused(c, "num_rings");
  c = small_config();
  c.warp_width = 3;
  refused(c, "warp_width");
  c = small_config();
  c.vram_size = 64 << 10;
  refused(c, "vram_size");
  c = small_config();
  c.watchdog_budget = uint64_t{1} << 32;
  refused(c, "watchdog_budget");
  c = small_config();
  c.max_bos = 0;
  refused(c, "max_bos");
}

TEST(DrvBo, CreateMapSizeFree) {
  auto d = open_device();
  BoHandle bo = 0;
  ASSERT_EQ(d->bo_create(5000, 0, &bo), Status::kOk);
  EXPECT_NE(bo, 0u);
  EXPECT_EQ(d->bo_size(bo), 8192u) << "rounded up to the page size";
  auto* p = static_cast<uint8_t*>(d->bo_map(bo));
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 4096, 0u);
  for (int i = 0; i < 8192; ++i) ASSERT_EQ(p[i], 0) << "zero-filled at byte " << i;
  std::memset(p, 0xab, 8192);
  EXPECT_EQ(d->bo_free(bo), Status::kOk);
  // The VRAM comes back zeroed for the next object.
  BoHandle again = 0;
  ASSERT_EQ(d->bo_create(8192, 0, &again), Status::kOk);
  EXPECT_NE(again, bo) << "handles are not reused at once";
  auto* q = static_cast<uint8_t*>(d->bo_map(again));
  for (int i = 0; i < 8192; ++i) ASSERT_EQ(q[i], 0) << "byte " << i;
  EXPECT_EQ(d->bo_free(again), Status::kOk);
}

TEST(DrvBo, LargeObjectsComeBackZeroed) {
  auto d = open_device();
  for (uint64_t size : {uint64_t{64} << 10, uint64_t{3} << 20}) {
    BoHandle bo = 0;
    ASSERT_EQ(d->bo_create(size, 0, &bo), Status::kOk);
    std::memset(d->bo_map(bo), 0x5a, size);
    ASSERT_EQ(d->bo_free(bo), Status::kOk);
    ASSERT_EQ(d->bo_create(size, 0, &bo), Status::kOk);
    auto* p = static_cast<const uint8_t*>(d->bo_map(bo));
    for (uint64_t i = 0; i < size; ++i) ASSERT_EQ(p[i], 0) << "byte " << i << " of " << size;
    ASSERT_EQ(d->bo_free(bo), Status::kOk);
  }
}

TEST(DrvBo, BadCallsAreRefusedWithALogLine) {
  auto d = open_device();
  LogCapture log;
  BoHandle bo = 77;
  EXPECT_EQ(d->bo_create(0, 0, &bo), Status::kInvalidArgument);
  EXPECT_EQ(bo, 0u);
  EXPECT_TRUE(log.contains("bo_create: size 0")) << log.all();
  EXPECT_EQ(d->bo_create(d->caps().max_bo_size + 1, 0, &bo), Status::kInvalidArgument);
  EXPECT_EQ(d->bo_create(UINT64_MAX, 0, &bo), Status::kInvalidArgument);
  EXPECT_EQ(d->bo_create(4096, 1, &bo), Status::kInvalidArgument);
  EXPECT_TRUE(log.contains("bo_create: flags 0x1")) << log.all();
  EXPECT_EQ(d->bo_create(4096, 0, nullptr), Status::kInvalidArgument);
  EXPECT_EQ(d->bo_free(0), Status::kInvalidArgument);
  EXPECT_EQ(d->bo_free(12345), Status::kInvalidArgument);
  EXPECT_TRUE(log.contains("bo_free: unknown handle 12345")) << log.all();
  EXPECT_EQ(d->bo_map(12345), nullptr);
  EXPECT_EQ(d->bo_size(12345), 0u);
  ASSERT_EQ(d->bo_create(4096, 0, &bo), Status::kOk);
  EXPECT_EQ(d->bo_free(bo), Status::kOk);
  EXPECT_EQ(d->bo_free(bo), Status::kInvalidArgument) << "double free";
  EXPECT_EQ(d->bo_map(bo), nullptr);
}

TEST(DrvBo, VramRunsOutAndComesBack) {
  auto d = open_device();
  LogCapture log;
  std::vector<BoHandle> bos;
  BoHandle bo = 0;
  while (d->bo_create(1 << 20, 0, &bo) == Status::kOk) bos.push_back(bo);
  EXPECT_EQ(d->bo_create(1 << 20, 0, &bo), Status::kOutOfMemory);
  EXPECT_TRUE(log.contains("no free VRAM")) << log.all();
  EXPECT_GE(bos.size(), 6u);
  EXPECT_EQ(d->bo_free(bos.back()), Status::kOk);
  EXPECT_EQ(d->bo_create(1 << 20, 0, &bo), Status::kOk);
}

TEST(DrvBo, QuotasAreOutOfMemory) {
  LocalConfig c = small_config();
  c.max_bos = 3;
  c.max_bo_bytes = 5 * 4096;
  auto d = open_device(c);
  LogCapture log;
  BoHandle a, b, x;
  ASSERT_EQ(d->bo_create(4096, 0, &a), Status::kOk);
  ASSERT_EQ(d->bo_create(3 * 4096, 0, &b), Status::kOk);
  EXPECT_EQ(d->bo_create(2 * 4096, 0, &x), Status::kOutOfMemory) << "bytes";
  EXPECT_TRUE(log.contains("quota of 20480 bytes")) << log.all();
  ASSERT_EQ(d->bo_create(4096, 0, &x), Status::kOk);
  EXPECT_EQ(d->bo_create(4096, 0, &x), Status::kOutOfMemory) << "count";
  EXPECT_TRUE(log.contains("quota of 3 buffer objects")) << log.all();
  // Imports count too.
  void* mem = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mem, MAP_FAILED);
  EXPECT_EQ(d->bo_import(mem, 4096, nullptr, &x), Status::kOutOfMemory);
  EXPECT_EQ(d->bo_free(a), Status::kOk);
  EXPECT_EQ(d->bo_import(mem, 4096, nullptr, &x), Status::kOk);
  EXPECT_EQ(d->bo_free(x), Status::kOk);
  munmap(mem, 4096);
}

TEST(DrvBo, ImportChecksAndReleasesOnce) {
  auto d = open_device();
  LogCapture log;
  void* mem = mmap(nullptr, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mem, MAP_FAILED);
  auto* bytes = static_cast<uint8_t*>(mem);
  BoHandle bo = 0;
  std::atomic<int> released{0};
  EXPECT_EQ(d->bo_import(nullptr, 4096, nullptr, &bo), Status::kInvalidArgument);
  EXPECT_EQ(d->bo_import(bytes + 8, 4096, nullptr, &bo), Status::kInvalidArgument);
  EXPECT_TRUE(log.contains("bo_import: host memory")) << log.all();
  EXPECT_EQ(d->bo_import(mem, 100, nullptr, &bo), Status::kInvalidArgument);
  EXPECT_EQ(d->bo_import(mem, 0, nullptr, &bo), Status::kInvalidArgument);
  EXPECT_EQ(d->bo_import(mem, 4096, nullptr, nullptr), Status::kInvalidArgument);
  ASSERT_EQ(d->bo_import(mem, 3 * 4096, [&] { ++released; }, &bo), Status::kOk);
  EXPECT_EQ(d->bo_map(bo), mem);
  EXPECT_EQ(d->bo_size(bo), 3u * 4096);
  const uint64_t va = d->caps().va_base;
  ASSERT_EQ(d->va_bind(bo, 4096, va, 4096, kVaRead), Status::kOk);
  EXPECT_EQ(released.load(), 0);
  EXPECT_EQ(d->bo_free(bo), Status::kOk);
  EXPECT_EQ(released.load(), 1) << "nothing else uses it";
  // Its binding went with it.
  BoHandle other = 0;
  ASSERT_EQ(d->bo_create(4096, 0, &other), Status::kOk);
  EXPECT_EQ(d->va_bind(other, 0, va, 4096, kVaRead), Status::kOk);
  munmap(mem, 3 * 4096);
}

TEST(DrvBo, ImportsLeftAtCloseAreReleased) {
  std::atomic<int> released{0};
  void* mem = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  {
    auto d = open_device();
    BoHandle bo = 0;
    ASSERT_EQ(d->bo_import(mem, 4096, [&] { ++released; }, &bo), Status::kOk);
    ASSERT_EQ(d->va_bind(bo, 0, d->caps().va_base, 4096, kVaRead | kVaWrite), Status::kOk);
  }
  EXPECT_EQ(released.load(), 1);
  munmap(mem, 4096);
}

class DrvVa : public ::testing::Test {
 protected:
  void SetUp() override {
    d_ = open_device();
    ASSERT_EQ(d_->bo_create(16 * 4096, 0, &bo_), Status::kOk);
    base_ = d_->caps().va_base;
  }
  std::unique_ptr<LocalDevice> d_;
  BoHandle bo_ = 0;
  uint64_t base_ = 0;
};

TEST_F(DrvVa, BindRules) {
  LogCapture log;
  const uint32_t rw = kVaRead | kVaWrite;
  EXPECT_EQ(d_->va_bind(bo_, 0, base_ + 100, 4096, rw), Status::kInvalidArgument) << "va alignment";
  EXPECT_TRUE(log.contains("va_bind")) << log.all();
  EXPECT_EQ(d_->va_bind(bo_, 100, base_, 4096, rw), Status::kInvalidArgument) << "offset alignment";
  EXPECT_EQ(d_->va_bind(bo_, 0, base_, 100, rw), Status::kInvalidArgument) << "size alignment";
  EXPECT_EQ(d_->va_bind(bo_, 0, base_, 0, rw), Status::kInvalidArgument) << "empty";
  EXPECT_EQ(d_->va_bind(bo_, 0, base_, 4096, 0), Status::kInvalidArgument) << "no perms";
  EXPECT_EQ(d_->va_bind(bo_, 0, base_, 4096, 8), Status::kInvalidArgument) << "unknown perm";
  EXPECT_EQ(d_->va_bind(bo_, 0, base_ - 4096, 4096, rw), Status::kInvalidArgument) << "below the window";
  const uint64_t end = base_ + d_->caps().va_size;
  EXPECT_EQ(d_->va_bind(bo_, 0, end - 4096, 8192, rw), Status::kInvalidArgument) << "past the window";
  EXPECT_TRUE(log.contains("outside the VA window")) << log.all();
  EXPECT_EQ(d_->va_bind(bo_, 0, UINT64_MAX & ~uint64_t{4095}, 8192, rw), Status::kInvalidArgument) << "wraps";
  EXPECT_EQ(d_->va_bind(bo_, 15 * 4096, base_, 8192, rw), Status::kInvalidArgument) << "past the BO";
  EXPECT_TRUE(log.contains("outside the 0x10000-byte object")) << log.all();
  EXPECT_EQ(d_->va_bind(bo_, UINT64_MAX & ~uint64_t{4095}, base_, 8192, rw), Status::kInvalidArgument);
  EXPECT_EQ(d_->va_bind(999, 0, base_, 4096, rw), Status::kInvalidArgument) << "unknown handle";
  EXPECT_TRUE(log.contains("va_bind: unknown handle 999")) << log.all();
  // The last page of the window is bindable.
  EXPECT_EQ(d_->va_bind(bo_, 0, end - 4096, 4096, rw), Status::kOk);
  EXPECT_EQ(d_->va_bind(bo_, 0, base_, 4 * 4096, rw), Status::kOk);
  EXPECT_EQ(d_->va_bind(bo_, 0, base_ + 3 * 4096, 4096, rw), Status::kInvalidArgument) << "overlap";
  EXPECT_TRUE(log.contains("overlaps")) << log.all();
  EXPECT_EQ(d_->va_bind(bo_, 4 * 4096, base_ + 4 * 4096, 4096, rw), Status::kOk) << "adjacent is fine";
  // The same BO range may be bound twice (aliases).
  EXPECT_EQ(d_->va_bind(bo_, 0, base_ + 64 * 4096, 4096, kVaRead), Status::kOk);
}

TEST_F(DrvVa, UnbindRulesAndPartialUnbind) {
  LogCapture log;
  const uint32_t rw = kVaRead | kVaWrite;
  ASSERT_EQ(d_->va_bind(bo_, 0, base_, 4 * 4096, rw), Status::kOk);
  ASSERT_EQ(d_->va_bind(bo_, 8 * 4096, base_ + 4 * 4096, 2 * 4096, rw), Status::kOk);
  EXPECT_EQ(d_->va_unbind(base_ + 1, 4096), Status::kInvalidArgument) << "alignment";
  EXPECT_EQ(d_->va_unbind(base_, 0), Status::kInvalidArgument) << "empty";
  EXPECT_EQ(d_->va_unbind(base_, 7 * 4096), Status::kInvalidArgument) << "runs past the bindings";
  EXPECT_TRUE(log.contains("va_unbind: range")) << log.all();
  EXPECT_EQ(d_->va_unbind(base_ + 100 * 4096, 4096), Status::kInvalidArgument) << "nothing there";
  EXPECT_EQ(d_->va_unbind(UINT64_MAX & ~uint64_t{4095}, 8192), Status::kInvalidArgument) << "wraps";
  // Cut the middle out of the first binding: its two ends stay bound.
  EXPECT_EQ(d_->va_unbind(base_ + 4096, 2 * 4096), Status::kOk);
  EXPECT_EQ(d_->va_unbind(base_ + 4096, 4096), Status::kInvalidArgument) << "already unbound";
  EXPECT_EQ(d_->va_bind(bo_, 0, base_ + 4096, 2 * 4096, rw), Status::kOk) << "the hole is free again";
  // One unbind across three adjacent bindings (end of the first, the re-bound hole, the second).
  EXPECT_EQ(d_->va_unbind(base_ + 4096, 5 * 4096), Status::kOk);
  EXPECT_EQ(d_->va_unbind(base_, 4096), Status::kOk) << "the first page was still bound";
  EXPECT_EQ(d_->va_unbind(base_, 4096), Status::kInvalidArgument);
  // Everything is free: the full range binds again.
  EXPECT_EQ(d_->va_bind(bo_, 0, base_, 16 * 4096, rw), Status::kOk);
}

TEST_F(DrvVa, FreeRemovesEveryBinding) {
  const uint32_t rw = kVaRead | kVaWrite;
  ASSERT_EQ(d_->va_bind(bo_, 0, base_, 4096, rw), Status::kOk);
  ASSERT_EQ(d_->va_bind(bo_, 0, base_ + 8 * 4096, 2 * 4096, rw), Status::kOk);
  ASSERT_EQ(d_->bo_free(bo_), Status::kOk);
  LogCapture log;
  EXPECT_EQ(d_->va_unbind(base_, 4096), Status::kInvalidArgument);
  BoHandle other = 0;
  ASSERT_EQ(d_->bo_create(16 * 4096, 0, &other), Status::kOk);
  EXPECT_EQ(d_->va_bind(other, 0, base_, 16 * 4096, rw), Status::kOk);
}

}  // namespace
}  // namespace gsgpu::drv
