// Global memory over several separate mappings, as the device lays buffers out (one MMU segment per
// buffer, an unmapped guard page after each): the per-warp range cache keeps every buffer a kernel
// uses, lanes spread over several mappings still load and store correctly, and an access into a
// guard page between two cached mappings (or past the end of one) faults before any lane writes.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <vector>

#include "gsgpu/emu/gpu_memory.h"
#include "gsgpu/emu/shader/shader_core.h"
#include "gsgpu/isa/assembler.h"

namespace gsgpu::testing {
namespace {

constexpr uint64_t kPage = 4096;

// Mappings carved out of one host buffer: each allocation is mapped, the page after it is not. The
// guard pages have host bytes too, so a test can check that nothing was written there.
class MappedMemory : public GpuMemory {
 public:
  static constexpr uint64_t kBase = 0x40000000;
  MappedMemory() : bytes_(64 * kPage, 0) {}

  uint8_t* translate(uint64_t va, uint64_t size, Access access) override {
    for (const Mapping& m : mappings_)
      if (va >= m.va && va - m.va < m.size && m.size - (va - m.va) >= size) return host(va);
    report_fault(MemoryFault{va, size, access});
    return nullptr;
  }
  bool lookup_range(uint64_t va, Access, Range* out) override {
    ++lookups;
    for (const Mapping& m : mappings_)
      if (va >= m.va && va - m.va < m.size) {
        *out = Range{m.va, m.va + m.size, host(m.va)};
        return true;
      }
    return false;
  }
  void report_fault(const MemoryFault& fault) override {
    std::lock_guard lock(mutex_);
    faults.push_back(fault);
  }

  // A new mapping of `size` bytes (rounded up to pages), zeroed; its guard page follows it.
  uint64_t map(uint64_t size) {
    const uint64_t va = kBase + next_;
    const uint64_t mapped = (size + kPage - 1) / kPage * kPage;
    next_ += mapped + kPage;
    EXPECT_LE(next_, bytes_.size()) << "test memory exhausted";
    mappings_.push_back(Mapping{va, mapped});
    return va;
  }
  template <typename T>
  uint64_t upload(const std::vector<T>& data) {
    const uint64_t va = map(data.size() * sizeof(T));
    std::memcpy(host(va), data.data(), data.size() * sizeof(T));
    return va;
  }
  uint8_t* host(uint64_t va) { return &bytes_[va - kBase]; }
  template <typename T>
  T* at(uint64_t va) { return reinterpret_cast<T*>(host(va)); }
  uint64_t end_of_mapping(uint64_t va) const {
    for (const Mapping& m : mappings_)
      if (m.va == va) return m.va + m.size;
    ADD_FAILURE() << "no mapping at " << va;
    return 0;
  }
  // True when every host byte outside the mappings (the guard pages) is still zero.
  bool guard_pages_untouched() {
    for (const Mapping& m : mappings_)
      for (uint64_t i = 0; i < kPage; ++i)
        if (*host(m.va + m.size + i) != 0) return false;
    return true;
  }

  std::atomic<uint64_t> lookups{0};
  std::vector<MemoryFault> faults;

 private:
  struct Mapping {
    uint64_t va, size;
  };
  std::vector<uint8_t> bytes_;
  std::vector<Mapping> mappings_;
  uint64_t next_ = 0;
  std::mutex mutex_;
};

void load_kernel(MappedMemory& memory, const std::string& source, DispatchParams* p,
                 const std::vector<uint64_t>& args) {
  std::vector<uint32_t> words;
  std::string error;
  ASSERT_TRUE(isa::assemble(source, &words, &error)) << error << "\n" << source;
  p->code_va = memory.upload(words);
  p->code_size = static_cast<uint32_t>(words.size() * 4);
  p->arg_va = memory.upload(args);
  p->arg_size = static_cast<uint32_t>(args.size() * 8);
}

DispatchParams linear(uint32_t groups, uint32_t group_size) {
  DispatchParams p;
  p.grid_size[0] = groups;
  p.group_size[0] = group_size;
  return p;
}

// out[i] = a[i] + b[i] + c[i]: every warp alternates reads between four mappings (the arguments and
// three inputs), read either by scalar loads or, as the OpenCL compiler emits them, by vector loads
// in which every lane reads the same address.
const char* kScalarArguments =
    "  s_special s[0:1], arg_ptr\n"
    "  s_load_b64 s[2:3], s[0:1], 0\n"
    "  s_load_b64 s[4:5], s[0:1], 8\n"
    "  s_load_b64 s[6:7], s[0:1], 16\n"
    "  s_load_b64 s[8:9], s[0:1], 24\n"
    "  v_mov_b32 v20, s2\n  v_mov_b32 v21, s3\n"
    "  v_mov_b32 v22, s4\n  v_mov_b32 v23, s5\n"
    "  v_mov_b32 v24, s6\n  v_mov_b32 v25, s7\n"
    "  v_mov_b32 v26, s8\n  v_mov_b32 v27, s9\n";
const char* kVectorArguments =
    "  v_special v[18:19], arg_ptr\n"
    "  global_load_b64 v[20:21], v[18:19], 0\n"
    "  global_load_b64 v[22:23], v[18:19], 8\n"
    "  global_load_b64 v[24:25], v[18:19], 16\n"
    "  global_load_b64 v[26:27], v[18:19], 24\n";
const char* kSumOfThree =
    "  v_special v[0:1], global_id_x\n"
    "  v_shl_b64 v[0:1], v[0:1], 2\n"
    "  v_add_u64 v[2:3], v[0:1], v[20:21]\n"
    "  global_load_b32 v10, v[2:3], 0\n"
    "  v_add_u64 v[2:3], v[0:1], v[22:23]\n"
    "  global_load_b32 v11, v[2:3], 0\n"
    "  v_add_u64 v[2:3], v[0:1], v[24:25]\n"
    "  global_load_b32 v12, v[2:3], 0\n"
    "  v_add_u32 v10, v10, v11\n"
    "  v_add_u32 v10, v10, v12\n"
    "  v_add_u64 v[2:3], v[0:1], v[26:27]\n"
    "  global_store_b32 v[2:3], v10, 0\n"
    "  s_end\n";

TEST(RangeCache, KernelAlternatingBetweenFourMappingsLooksEachUpOncePerWarp) {
  for (const char* arguments : {kScalarArguments, kVectorArguments}) {
    SCOPED_TRACE(arguments == kScalarArguments ? "scalar argument loads" : "vector argument loads");
    const uint32_t items = 4096, group = 64, cores = 2, width = 32;
    MappedMemory memory;
    std::vector<uint32_t> a(items), b(items), c(items);
    for (uint32_t i = 0; i < items; ++i) {
      a[i] = i;
      b[i] = i * 1000;
      c[i] = i * 1000000;
    }
    const uint64_t a_va = memory.upload(a), b_va = memory.upload(b), c_va = memory.upload(c);
    const uint64_t out_va = memory.map(items * 4);
    DispatchParams p = linear(items / group, group);
    load_kernel(memory, std::string(arguments) + kSumOfThree, &p, {a_va, b_va, c_va, out_va});
    ShaderCores shader_cores(ShaderConfig{cores, width, 2});
    DispatchResult r = shader_cores.run(p, memory);
    ASSERT_FALSE(r.fault.has_value()) << r.fault->message;
    for (uint32_t i = 0; i < items; ++i) ASSERT_EQ(memory.at<uint32_t>(out_va)[i], i * 1001001) << i;
    // Warps live for the whole dispatch on their core: each looks up the four read ranges and the
    // one write range once, however many groups it runs (64 groups here). A single cached range
    // per access type would look up three or four ranges per warp per group.
    const uint64_t warps = uint64_t{cores} * (group / width);
    EXPECT_LE(memory.lookups.load(), warps * 5);
  }
}

TEST(RangeCache, UniformAddressLoadUnderDivergenceWritesOnlyActiveLanes) {
  // Odd lanes read argument 1 (every one of them the same address, a vector register pair, as
  // compiled code reads arguments) as 32 and 64 bits; even lanes keep their markers. The first
  // active lane is lane 1, so the translation is not lane 0's.
  MappedMemory memory;
  const uint64_t out_va = memory.map(32 * 12);
  const char* kernel =
      "  v_special v[18:19], arg_ptr\n"
      "  global_load_b64 v[26:27], v[18:19], 0\n"
      "  v_special v0, local_id_x\n"
      "  v_mov_b32 v5, 1000\n"
      "  v_mov_b32 v6, 2000\n"
      "  v_mov_b32 v7, 3000\n"
      "  v_and_b32 v1, v0, 1\n"
      "  v_branch_z v1, join, join\n"
      "  global_load_b32 v5, v[18:19], 8\n"
      "  global_load_b64 v[6:7], v[18:19], 8\n"
      "join:\n"
      "  v_mov_b32 v1, 0\n"
      "  v_shl_b64 v[2:3], v[0:1], 2\n"
      "  v_add_u64 v[2:3], v[2:3], v[26:27]\n"
      "  global_store_b32 v[2:3], v5, 0\n"
      "  global_store_b32 v[2:3], v6, 128\n"
      "  global_store_b32 v[2:3], v7, 256\n"
      "  s_end\n";
  const uint64_t argument = 0x1122334455667788ull;
  DispatchParams p = linear(1, 32);
  load_kernel(memory, kernel, &p, {out_va, argument});
  ShaderCores cores(ShaderConfig{1, 32, 1});
  DispatchResult r = cores.run(p, memory);
  ASSERT_FALSE(r.fault.has_value()) << r.fault->message;
  const uint32_t* out = memory.at<uint32_t>(out_va);
  for (uint32_t i = 0; i < 32; ++i) {
    const bool odd = i & 1;
    EXPECT_EQ(out[i], odd ? 0x55667788u : 1000u) << i;
    EXPECT_EQ(out[32 + i], odd ? 0x55667788u : 2000u) << i;
    EXPECT_EQ(out[64 + i], odd ? 0x11223344u : 3000u) << i;
  }
}

// Each lane loads (or stores) through its own pointer, pointers[gid].
const char* kGatherB32 =
    "  s_special s[0:1], arg_ptr\n"
    "  s_load_b64 s[2:3], s[0:1], 0\n"
    "  s_load_b64 s[4:5], s[0:1], 8\n"
    "  v_special v[0:1], global_id_x\n"
    "  v_shl_b64 v[2:3], v[0:1], 3\n"
    "  v_add_u64 v[2:3], v[2:3], s[2:3]\n"
    "  global_load_b64 v[4:5], v[2:3], 0\n"
    "  global_load_b32 v6, v[4:5], 0\n"
    "  v_shl_b64 v[2:3], v[0:1], 2\n"
    "  v_add_u64 v[2:3], v[2:3], s[4:5]\n"
    "  global_store_b32 v[2:3], v6, 0\n"
    "  s_end\n";
const char* kScatterB32 =
    "  s_special s[0:1], arg_ptr\n"
    "  s_load_b64 s[2:3], s[0:1], 0\n"
    "  v_special v[0:1], global_id_x\n"
    "  v_shl_b64 v[2:3], v[0:1], 3\n"
    "  v_add_u64 v[2:3], v[2:3], s[2:3]\n"
    "  global_load_b64 v[4:5], v[2:3], 0\n"
    "  v_add_u32 v6, v0, 1\n"
    "  global_store_b32 v[4:5], v6, 0\n"
    "  s_end\n";

struct ThreeBuffers {
  MappedMemory memory;
  uint64_t buffer[3];
  explicit ThreeBuffers(uint32_t words) {
    for (uint64_t& va : buffer) {
      va = memory.map(words * 4);
      for (uint32_t i = 0; i < words; ++i) memory.at<uint32_t>(va)[i] = static_cast<uint32_t>(va) + i;
    }
  }
  // Lane i's pointer: element i of buffer i % 3.
  uint64_t spread(uint32_t i) const { return buffer[i % 3] + uint64_t{i} * 4; }
};

TEST(RangeCache, LanesSpreadOverThreeMappingsLoadTheirOwnElements) {
  const uint32_t items = 256;
  ThreeBuffers f(items);
  std::vector<uint64_t> pointers(items);
  for (uint32_t i = 0; i < items; ++i) pointers[i] = f.spread(i);
  const uint64_t pointers_va = f.memory.upload(pointers), out_va = f.memory.map(items * 4);
  DispatchParams p = linear(items / 64, 64);
  load_kernel(f.memory, kGatherB32, &p, {pointers_va, out_va});
  ShaderCores cores(ShaderConfig{2, 32, 2});
  DispatchResult r = cores.run(p, f.memory);
  ASSERT_FALSE(r.fault.has_value()) << r.fault->message;
  for (uint32_t i = 0; i < items; ++i)
    ASSERT_EQ(f.memory.at<uint32_t>(out_va)[i], static_cast<uint32_t>(f.buffer[i % 3]) + i) << i;
}

// One warp of 32 lanes; the lanes in `bad` point at the given addresses instead of their element.
DispatchResult run_one_warp(ThreeBuffers& f, const char* kernel, const std::vector<std::pair<uint32_t, uint64_t>>& bad,
                            uint64_t* out_va = nullptr) {
  std::vector<uint64_t> pointers(32);
  for (uint32_t i = 0; i < 32; ++i) pointers[i] = f.spread(i);
  for (const auto& [lane, va] : bad) pointers[lane] = va;
  const uint64_t pointers_va = f.memory.upload(pointers);
  const uint64_t out = f.memory.map(32 * 4);
  if (out_va) *out_va = out;
  DispatchParams p = linear(1, 32);
  std::vector<uint64_t> args{pointers_va, out};
  load_kernel(f.memory, kernel, &p, args);
  ShaderCores cores(ShaderConfig{1, 32, 1});
  return cores.run(p, f.memory);
}

TEST(RangeCache, LoadFromTheGuardPageBetweenTwoCachedMappingsFaultsAtTheFirstBadLane) {
  ThreeBuffers f(32);
  const uint64_t guard = f.memory.end_of_mapping(f.buffer[0]);  // between buffer 0 and buffer 1
  // Lanes 0..6 have put buffers 0, 1 and 2 in the cache by the time lane 7 is checked.
  uint64_t out_va = 0;
  DispatchResult r = run_one_warp(f, kGatherB32, {{7, guard + 8}, {12, f.memory.end_of_mapping(f.buffer[1])}}, &out_va);
  ASSERT_TRUE(r.fault.has_value());
  EXPECT_EQ(r.fault->kind, ShaderFaultKind::kMemory);
  EXPECT_EQ(r.fault->memory.address, guard + 8);
  EXPECT_EQ(r.fault->memory.access, Access::kRead);
  ASSERT_EQ(f.memory.faults.size(), 1u);
  EXPECT_EQ(f.memory.faults[0].address, guard + 8);
  for (uint32_t i = 0; i < 32; ++i) EXPECT_EQ(f.memory.at<uint32_t>(out_va)[i], 0u) << i;
}

TEST(RangeCache, LoadStraddlingTheEndOfACachedMappingFaults) {
  ThreeBuffers f(32);
  // Every lane reads buffer 0, so it is the cached range; lane 3 reads its last 2 bytes and 2 more.
  const uint64_t end = f.memory.end_of_mapping(f.buffer[0]);
  std::vector<std::pair<uint32_t, uint64_t>> bad;
  for (uint32_t i = 0; i < 32; ++i) bad.push_back({i, f.buffer[0] + i * 4});
  bad[3].second = end - 2;
  DispatchResult r = run_one_warp(f, kGatherB32, bad);
  ASSERT_TRUE(r.fault.has_value());
  EXPECT_EQ(r.fault->memory.address, end - 2);
  EXPECT_EQ(r.fault->memory.size, 4u);
}

TEST(RangeCache, LoadJustBelowACachedMappingFaults) {
  ThreeBuffers f(32);
  // Every lane reads buffer 1 but lane 5, which reads the last word of the guard page below it
  // (an offset from the cached range's start that wraps around to a huge unsigned value).
  std::vector<std::pair<uint32_t, uint64_t>> bad;
  for (uint32_t i = 0; i < 32; ++i) bad.push_back({i, f.buffer[1] + i * 4});
  bad[5].second = f.buffer[1] - 4;
  DispatchResult r = run_one_warp(f, kGatherB32, bad);
  ASSERT_TRUE(r.fault.has_value());
  EXPECT_EQ(r.fault->memory.address, f.buffer[1] - 4);
}

TEST(RangeCache, StoreIntoAGuardPageWritesNoLane) {
  ThreeBuffers f(32);
  std::vector<std::vector<uint32_t>> before;
  for (uint64_t va : f.buffer) before.emplace_back(f.memory.at<uint32_t>(va), f.memory.at<uint32_t>(va) + 32);
  // Lanes 0..8 store into all three buffers; lane 9 into the guard page after buffer 2.
  const uint64_t guard = f.memory.end_of_mapping(f.buffer[2]);
  DispatchResult r = run_one_warp(f, kScatterB32, {{9, guard}, {20, guard + 64}});
  ASSERT_TRUE(r.fault.has_value());
  EXPECT_EQ(r.fault->memory.address, guard);
  EXPECT_EQ(r.fault->memory.access, Access::kWrite);
  for (int b = 0; b < 3; ++b)
    for (uint32_t i = 0; i < 32; ++i) EXPECT_EQ(f.memory.at<uint32_t>(f.buffer[b])[i], before[b][i]) << b << " " << i;
  EXPECT_TRUE(f.memory.guard_pages_untouched());
}

// Coalesced accesses (every lane active, lane l at lane 0's address + 4 l) are checked and copied as
// one block: a block wholly inside a mapping loads and stores every lane's element, and one that runs
// off a mapping's end still faults at the exact first lane outside it, before any lane writes.
std::vector<std::pair<uint32_t, uint64_t>> contiguous_from(uint64_t va) {
  std::vector<std::pair<uint32_t, uint64_t>> lanes;
  for (uint32_t i = 0; i < 32; ++i) lanes.push_back({i, va + 4 * i});
  return lanes;
}

TEST(RangeCache, CoalescedBlockInsideAMappingLoadsAndStoresEveryLane) {
  ThreeBuffers f(64);
  uint64_t out_va = 0;
  DispatchResult r = run_one_warp(f, kGatherB32, contiguous_from(f.buffer[1] + 8), &out_va);
  ASSERT_FALSE(r.fault.has_value()) << r.fault->message;
  for (uint32_t i = 0; i < 32; ++i)
    EXPECT_EQ(f.memory.at<uint32_t>(out_va)[i], f.memory.at<uint32_t>(f.buffer[1])[i + 2]) << i;
  r = run_one_warp(f, kScatterB32, contiguous_from(f.buffer[2] + 4));
  ASSERT_FALSE(r.fault.has_value()) << r.fault->message;
  for (uint32_t i = 0; i < 32; ++i) EXPECT_EQ(f.memory.at<uint32_t>(f.buffer[2])[i + 1], i + 1) << i;
}

TEST(RangeCache, CoalescedStoreRunningIntoTheGuardPageFaultsAtTheFirstLaneOutside) {
  ThreeBuffers f(32);
  const uint64_t end = f.memory.end_of_mapping(f.buffer[0]);
  std::vector<uint32_t> before(f.memory.at<uint32_t>(end - 64), f.memory.at<uint32_t>(end));
  DispatchResult r = run_one_warp(f, kScatterB32, contiguous_from(end - 20));  // lanes 0..4 inside
  ASSERT_TRUE(r.fault.has_value());
  EXPECT_EQ(r.fault->memory.address, end);
  EXPECT_EQ(r.fault->memory.access, Access::kWrite);
  EXPECT_EQ(std::vector<uint32_t>(f.memory.at<uint32_t>(end - 64), f.memory.at<uint32_t>(end)), before);
  EXPECT_TRUE(f.memory.guard_pages_untouched());
  r = run_one_warp(f, kGatherB32, contiguous_from(end - 8));  // lanes 0, 1 inside
  ASSERT_TRUE(r.fault.has_value());
  EXPECT_EQ(r.fault->memory.address, end);
  EXPECT_EQ(r.fault->memory.access, Access::kRead);
}

TEST(RangeCache, StoreThroughCachedRangesInAnEarlierGroupThenAFaultInTheNext) {
  // Group 0 stores into all three buffers (the warp's write cache now holds them); group 1's lane 5
  // points one byte before buffer 1, in the guard page after buffer 0.
  ThreeBuffers f(64);
  std::vector<uint64_t> pointers(64);
  for (uint32_t i = 0; i < 64; ++i) pointers[i] = f.spread(i);
  const uint64_t guard_end = f.buffer[1] - 1;
  pointers[32 + 5] = guard_end;
  const uint64_t pointers_va = f.memory.upload(pointers);
  DispatchParams p = linear(2, 32);
  load_kernel(f.memory, kScatterB32, &p, {pointers_va});
  ShaderCores cores(ShaderConfig{1, 32, 1});
  DispatchResult r = cores.run(p, f.memory);
  ASSERT_TRUE(r.fault.has_value());
  EXPECT_EQ(r.fault->memory.address, guard_end);
  EXPECT_EQ(r.fault->group_id[0], 1u);
  for (uint32_t i = 0; i < 64; ++i) {
    const uint32_t got = f.memory.at<uint32_t>(f.buffer[i % 3])[i];
    if (i < 32) EXPECT_EQ(got, i + 1) << i;  // group 0 completed
    else EXPECT_EQ(got, static_cast<uint32_t>(f.buffer[i % 3]) + i) << i;  // group 1 wrote nothing
  }
  EXPECT_TRUE(f.memory.guard_pages_untouched());
}

}  // namespace
}  // namespace gsgpu::testing
