// Loads, stores and atomics in every address space, and the faults of accesses outside them.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "tests/gsgpu/isa/kernel_harness.h"

namespace gsgpu::testing {
namespace {

// Kernel prologue: s[2:3] = argument 0 (input), s[4:5] = argument 1 (output),
// v0 = global id x (32-bit), v[20:21] = 64-bit global id.
const char* kPrologue =
    "  s_special s[0:1], arg_ptr\n"
    "  s_load_b64 s[2:3], s[0:1], 0\n"
    "  s_load_b64 s[4:5], s[0:1], 8\n"
    "  v_special v[20:21], global_id_x\n"
    "  v_mov_b32 v0, v20\n";

// out[gid] (32-bit) = load<type>(in + gid * stride)
std::string load_kernel_for(const std::string& load, unsigned stride_shift) {
  return std::string(kPrologue) +
         "  v_shl_b64 v[22:23], v[20:21], " + std::to_string(stride_shift) + "\n"
         "  v_add_u64 v[22:23], v[22:23], s[2:3]\n"
         "  " + load + " v1, v[22:23], 0\n"
         "  v_shl_b64 v[24:25], v[20:21], 2\n"
         "  v_add_u64 v[24:25], v[24:25], s[4:5]\n"
         "  global_store_b32 v[24:25], v1, 0\n"
         "  s_end\n";
}

struct Fixture {
  FlatMemory memory{0x200000, 8 << 20};
  ShaderCores cores{ShaderConfig{4, 32, 2}};
};

TEST(Loads, EightAndSixteenBitSignAndZeroExtension) {
  const uint32_t items = 256;
  std::vector<uint8_t> bytes(items);
  std::vector<uint16_t> halves(items);
  for (uint32_t i = 0; i < items; ++i) {
    bytes[i] = static_cast<uint8_t>(i * 37 + 5);
    halves[i] = static_cast<uint16_t>(i * 4099 + 17);
  }
  struct Case {
    const char* load;
    unsigned shift;
    bool wide;
    bool sign;
  };
  for (const Case& c : {Case{"global_load_u8", 0, false, false}, Case{"global_load_i8", 0, false, true},
                        Case{"global_load_u16", 1, true, false}, Case{"global_load_i16", 1, true, true},
                        Case{"const_load_i8", 0, false, true}, Case{"const_load_u16", 1, true, false}}) {
    SCOPED_TRACE(c.load);
    Fixture f;
    DispatchParams p = linear_dispatch(4, 64);
    load_kernel(f.memory, load_kernel_for(c.load, c.shift), &p);
    const uint64_t in = c.wide ? f.memory.upload(halves) : f.memory.upload(bytes);
    const uint64_t out = f.memory.alloc(items * 4);
    set_args(f.memory, {in, out}, &p);
    run_ok(f.cores, f.memory, p);
    auto got = f.memory.download<uint32_t>(out, items);
    for (uint32_t i = 0; i < items; ++i) {
      uint32_t want;
      if (c.wide) want = c.sign ? uint32_t(int32_t(int16_t(halves[i]))) : halves[i];
      else want = c.sign ? uint32_t(int32_t(int8_t(bytes[i]))) : bytes[i];
      ASSERT_EQ(got[i], want) << i;
    }
  }
}

TEST(Stores, NarrowWideAndUnalignedGlobalStores) {
  Fixture f;
  DispatchParams p = linear_dispatch(2, 64);
  // bytes[gid] = gid * 3; halves[gid] = gid * 1001; words at byte offset 1 + 4 * gid (unaligned);
  // 64-bit[gid] = gid << 40 | gid.
  load_kernel(f.memory,
              std::string(kPrologue) +
                  "  s_load_b64 s[6:7], s[0:1], 16\n"
                  "  s_load_b64 s[8:9], s[0:1], 24\n"
                  "  v_mul_lo_u32 v1, v0, 3\n"
                  "  v_add_u64 v[22:23], v[20:21], s[2:3]\n"
                  "  global_store_b8 v[22:23], v1, 0\n"
                  "  v_mul_lo_u32 v1, v0, 1001\n"
                  "  v_shl_b64 v[22:23], v[20:21], 1\n"
                  "  v_add_u64 v[22:23], v[22:23], s[4:5]\n"
                  "  global_store_b16 v[22:23], v1, 0\n"
                  "  v_shl_b64 v[22:23], v[20:21], 2\n"
                  "  v_add_u64 v[22:23], v[22:23], s[6:7]\n"
                  "  v_not_b32 v1, v0\n"
                  "  global_store_b32 v[22:23], v1, 1\n"
                  "  v_shl_b64 v[24:25], v[20:21], 40\n"
                  "  v_or_b64 v[24:25], v[24:25], v[20:21]\n"
                  "  v_shl_b64 v[22:23], v[20:21], 3\n"
                  "  v_add_u64 v[22:23], v[22:23], s[8:9]\n"
                  "  global_store_b64 v[22:23], v[24:25], 0\n"
                  "  global_load_b64 v[26:27], v[22:23], 0\n"
                  "  v_add_u64 v[26:27], v[26:27], 1\n"
                  "  global_store_b64 v[22:23], v[26:27], 0\n"
                  "  s_end\n",
              &p);
  const uint64_t bytes = f.memory.alloc(128), halves = f.memory.alloc(256), words = f.memory.alloc(128 * 4 + 4),
                 wide = f.memory.alloc(128 * 8);
  set_args(f.memory, {bytes, halves, words, wide}, &p);
  run_ok(f.cores, f.memory, p);
  auto b = f.memory.download<uint8_t>(bytes, 128);
  auto h = f.memory.download<uint16_t>(halves, 128);
  auto w = f.memory.download<uint8_t>(words, 128 * 4 + 1);
  auto q = f.memory.download<uint64_t>(wide, 128);
  for (uint32_t i = 0; i < 128; ++i) {
    EXPECT_EQ(b[i], uint8_t(i * 3));
    EXPECT_EQ(h[i], uint16_t(i * 1001));
    uint32_t word;
    std::memcpy(&word, &w[1 + 4 * i], 4);
    EXPECT_EQ(word, ~i);
    EXPECT_EQ(q[i], (uint64_t{i} << 40 | i) + 1);
  }
}

TEST(LocalAndPrivate, RoundTripEveryWidthWithExtension) {
  Fixture f;
  DispatchParams p = linear_dispatch(3, 64);
  p.local_mem_size = 64 + 64 * 8;  // bytes at [0, 64), 64-bit words after them
  p.private_mem_size = 16;
  // local: store byte 0x80 | lane at [x], read back signed; private: store 16-bit 0xfff0 + lane,
  // read back unsigned and signed; 64-bit through both.
  load_kernel(f.memory,
              std::string(kPrologue) +
                  "  v_special v2, local_id_x\n"
                  "  v_or_b32 v3, v2, 0x80\n"
                  "  local_store_b8 v2, v3, 0\n"
                  "  s_barrier\n"
                  "  local_load_i8 v4, v2, 0\n"
                  "  local_load_u8 v5, v2, 0\n"
                  "  v_add_u32 v6, v2, 0xfff0\n"
                  "  private_store_b16 2, v6, 0\n"
                  "  private_load_i16 v7, 0, 2\n"
                  "  private_load_u16 v8, 0, 2\n"
                  "  v_special v[10:11], global_id_x\n"
                  "  v_not_b64 v[10:11], v[10:11]\n"
                  "  private_store_b64 8, v[10:11], 0\n"
                  "  private_load_b64 v[12:13], 8, 0\n"
                  "  v_shl_b32 v14, v2, 3\n"
                  "  local_store_b64 v14, v[12:13], 64\n"
                  "  local_load_b64 v[12:13], v14, 64\n"
                  "  v_shl_b64 v[22:23], v[20:21], 5\n"
                  "  v_add_u64 v[22:23], v[22:23], s[4:5]\n"
                  "  global_store_b32 v[22:23], v4, 0\n"
                  "  global_store_b32 v[22:23], v5, 4\n"
                  "  global_store_b32 v[22:23], v7, 8\n"
                  "  global_store_b32 v[22:23], v8, 12\n"
                  "  global_store_b64 v[22:23], v[12:13], 16\n"
                  "  s_end\n",
              &p);
  const uint64_t out = f.memory.alloc(192 * 32);
  set_args(f.memory, {0, out}, &p);
  run_ok(f.cores, f.memory, p);
  auto got = f.memory.download<uint32_t>(out, 192 * 8);
  for (uint32_t i = 0; i < 192; ++i) {
    const uint32_t lane = i % 64;
    EXPECT_EQ(got[i * 8 + 0], uint32_t(int32_t(int8_t(0x80 | lane))));
    EXPECT_EQ(got[i * 8 + 1], 0x80 | lane);
    EXPECT_EQ(got[i * 8 + 2], uint32_t(int32_t(int16_t(0xfff0 + lane))));
    EXPECT_EQ(got[i * 8 + 3], uint16_t(0xfff0 + lane));
    uint64_t wide;
    std::memcpy(&wide, &got[i * 8 + 4], 8);
    EXPECT_EQ(wide, ~uint64_t{i});
  }
}

TEST(MemoryFaults, GlobalOutOfBoundsReportsTheAddress) {
  Fixture f;
  DispatchParams p = linear_dispatch(4, 64);
  load_kernel(f.memory,
              std::string(kPrologue) +
                  "  v_cmp_eq_u32 v1, v0, 77\n"   // only work-item 77 strays
                  "  v_branch_z v1, done, done\n"
                  "  v_mov_b64 v[22:23], s[2:3]\n"
                  "  global_load_b32 v2, v[22:23], 16\n"
                  "done:\n"
                  "  s_end\n",
              &p);
  const uint64_t bad = f.memory.end() - 8;  // 16 bytes on runs off the end of the mapping
  set_args(f.memory, {bad, 0}, &p);
  DispatchResult r = f.cores.run(p, f.memory);
  ASSERT_TRUE(r.fault.has_value());
  EXPECT_EQ(r.fault->kind, ShaderFaultKind::kMemory);
  EXPECT_EQ(r.fault->memory.address, bad + 16);
  EXPECT_EQ(r.fault->memory.size, 4u);
  EXPECT_EQ(r.fault->memory.access, Access::kRead);
  EXPECT_EQ(r.fault->group_id[0], 1u);  // item 77 is in group 1
  EXPECT_EQ(r.counters.faults, 1u);
  ASSERT_FALSE(f.memory.faults.empty());
  EXPECT_EQ(f.memory.faults.back().address, bad + 16);
  EXPECT_NE(r.fault->message.find("global_load_b32"), std::string::npos) << r.fault->message;
}

TEST(MemoryFaults, AccessStraddlingTheEndOfAMappingFaults) {
  Fixture f;
  DispatchParams p = linear_dispatch(1, 1);
  load_kernel(f.memory, std::string(kPrologue) + "  v_mov_b64 v[22:23], s[2:3]\n  global_store_b64 v[22:23], v[20:21], 0\n  s_end\n", &p);
  set_args(f.memory, {f.memory.end() - 4, 0}, &p);
  DispatchResult r = f.cores.run(p, f.memory);
  ASSERT_TRUE(r.fault.has_value());
  EXPECT_EQ(r.fault->kind, ShaderFaultKind::kMemory);
  EXPECT_EQ(r.fault->memory.address, f.memory.end() - 4);
  EXPECT_EQ(r.fault->memory.access, Access::kWrite);
}

TEST(MemoryFaults, LocalAndPrivateWindowsAreBounded) {
  struct Case {
    const char* body;
    uint64_t address;
  };
  for (const Case& c : {Case{"  local_store_b32 252, v0, 4\n", 256}, Case{"  local_load_b32 v1, v0, -4\n", ~uint64_t{0} - 3},
                        Case{"  private_load_b64 v[2:3], 12, 0\n", 12}, Case{"  private_store_b8 16, v0, 0\n", 16}}) {
    SCOPED_TRACE(c.body);
    Fixture f;
    DispatchParams p = linear_dispatch(2, 8);
    p.local_mem_size = 256;
    p.private_mem_size = 16;
    load_kernel(f.memory, std::string("  v_mov_b32 v0, 0\n") + c.body + "  s_end\n", &p);
    DispatchResult r = f.cores.run(p, f.memory);
    ASSERT_TRUE(r.fault.has_value());
    EXPECT_EQ(r.fault->kind, ShaderFaultKind::kMemory);
    EXPECT_EQ(r.fault->memory.address, c.address);
    EXPECT_TRUE(f.memory.faults.empty()) << "local/private faults are not GPU-memory faults";
  }
}

// One counter hammered by every work-item of many groups running on several host threads.
TEST(Atomics, ContendedAddFromManyGroupsReturnsUniqueOldValues) {
  Fixture f;
  const uint32_t groups = 1024, group_size = 64, items = groups * group_size;
  DispatchParams p = linear_dispatch(groups, group_size);
  load_kernel(f.memory,
              std::string(kPrologue) +
                  "  v_mov_b64 v[22:23], s[2:3]\n"
                  "  global_atomic_add_u32 v1, v[22:23], 1, 0\n"
                  "  v_shl_b64 v[24:25], v[20:21], 2\n"
                  "  v_add_u64 v[24:25], v[24:25], s[4:5]\n"
                  "  global_store_b32 v[24:25], v1, 0\n"
                  "  s_end\n",
              &p);
  const uint64_t counter = f.memory.alloc(8), olds = f.memory.alloc(items * 4);
  set_args(f.memory, {counter, olds}, &p);
  run_ok(f.cores, f.memory, p);
  EXPECT_EQ(*f.memory.at<uint32_t>(counter), items);
  auto got = f.memory.download<uint32_t>(olds, items);
  std::sort(got.begin(), got.end());
  for (uint32_t i = 0; i < items; ++i) ASSERT_EQ(got[i], i);
}

TEST(Atomics, MinMaxBitwiseExchangeAndSub) {
  Fixture f;
  const uint32_t groups = 64, group_size = 64, items = groups * group_size;
  DispatchParams p = linear_dispatch(groups, group_size);
  // Slots: 0 min_i32, 1 max_i32, 2 min_u32, 3 max_u32, 4 or, 5 and, 6 xor, 7 sub, 8 xchg
  load_kernel(f.memory,
              std::string(kPrologue) +
                  "  v_mov_b64 v[22:23], s[2:3]\n"
                  "  v_mul_lo_u32 v1, v0, 2654435761\n"   // scrambled values, both signs
                  "  global_atomic_min_i32 v2, v[22:23], v1, 0\n"
                  "  global_atomic_max_i32 v2, v[22:23], v1, 4\n"
                  "  global_atomic_min_u32 v2, v[22:23], v1, 8\n"
                  "  global_atomic_max_u32 v2, v[22:23], v1, 12\n"
                  "  v_and_b32 v3, v0, 31\n"
                  "  v_shl_b32 v3, 1, v3\n"
                  "  global_atomic_or_b32 v2, v[22:23], v3, 16\n"
                  "  v_not_b32 v4, v3\n"
                  "  global_atomic_and_b32 v2, v[22:23], v4, 20\n"
                  "  global_atomic_xor_b32 v2, v[22:23], v1, 24\n"
                  "  global_atomic_sub_u32 v2, v[22:23], v0, 28\n"
                  "  global_atomic_xchg_b32 v2, v[22:23], v0, 32\n"
                  "  v_shl_b64 v[24:25], v[20:21], 2\n"
                  "  v_add_u64 v[24:25], v[24:25], s[4:5]\n"
                  "  global_store_b32 v[24:25], v2, 0\n"
                  "  s_end\n",
              &p);
  const uint64_t slots = f.memory.upload(std::vector<uint32_t>{0x7fffffff, 0x80000000, 0xffffffff, 0, 0, 0xffffffff, 0,
                                                               1u << 31, 0xffffffff});
  const uint64_t olds = f.memory.alloc(items * 4);
  set_args(f.memory, {slots, olds}, &p);
  run_ok(f.cores, f.memory, p);
  int32_t min_s = INT32_MAX, max_s = INT32_MIN;
  uint32_t min_u = UINT32_MAX, max_u = 0, x = 0, sub = 1u << 31;
  for (uint32_t i = 0; i < items; ++i) {
    const uint32_t v = i * 2654435761u;
    min_s = std::min(min_s, int32_t(v));
    max_s = std::max(max_s, int32_t(v));
    min_u = std::min(min_u, v);
    max_u = std::max(max_u, v);
    x ^= v;
    sub -= i;
  }
  auto s = f.memory.download<uint32_t>(slots, 9);
  EXPECT_EQ(int32_t(s[0]), min_s);
  EXPECT_EQ(int32_t(s[1]), max_s);
  EXPECT_EQ(s[2], min_u);
  EXPECT_EQ(s[3], max_u);
  EXPECT_EQ(s[4], 0xffffffffu);
  EXPECT_EQ(s[5], 0u);
  EXPECT_EQ(s[6], x);
  EXPECT_EQ(s[7], sub);
  // Exchange: the old values plus the final value are every work-item id and the initial value once.
  auto got = f.memory.download<uint32_t>(olds, items);
  got.push_back(s[8]);
  std::sort(got.begin(), got.end());
  for (uint32_t i = 0; i < items; ++i) ASSERT_EQ(got[i], i);
  EXPECT_EQ(got.back(), 0xffffffffu);
}

TEST(Atomics, CompareExchangeRetryLoopIncrementsExactly) {
  Fixture f;
  const uint32_t groups = 256, group_size = 32;
  DispatchParams p = linear_dispatch(groups, group_size);
  // do { old = load(c); seen = cmpxchg(c, old + 1, old); } while (seen != old)  -- a divergent loop
  load_kernel(f.memory,
              std::string(kPrologue) +
                  "  v_mov_b64 v[22:23], s[2:3]\n"
                  "retry:\n"
                  "  global_load_b32 v1, v[22:23], 0\n"
                  "  v_add_u32 v2, v1, 1\n"
                  "  global_atomic_cmpxchg_b32 v3, v[22:23], v2, v1, 0\n"
                  "  v_cmp_ne_u32 v4, v3, v1\n"
                  "  v_branch_nz v4, retry, out\n"
                  "out:\n"
                  "  v_mov_b64 v[24:25], 1\n"
                  "  global_atomic_add_u64 v[26:27], v[22:23], v[24:25], 8\n"
                  "  v_mov_b64 v[24:25], -5\n"
                  "  global_atomic_min_i64 v[26:27], v[22:23], v[24:25], 16\n"
                  "  global_atomic_cmpxchg_b64 v[26:27], v[22:23], v[20:21], v[20:21], 24\n"
                  "  s_end\n",
              &p);
  const uint64_t c = f.memory.upload(std::vector<uint64_t>{0, uint64_t{1} << 40, 7, 12345});
  set_args(f.memory, {c, 0}, &p);
  run_ok(f.cores, f.memory, p);
  auto s = f.memory.download<uint64_t>(c, 4);
  EXPECT_EQ(static_cast<uint32_t>(s[0]), groups * group_size);
  EXPECT_EQ(s[1], (uint64_t{1} << 40) + groups * group_size);
  EXPECT_EQ(static_cast<int64_t>(s[2]), -5);
  EXPECT_EQ(s[3], 12345u);  // gid 12345 swaps 12345 for itself
}

TEST(Atomics, LocalMemoryHistogram) {
  Fixture f;
  const uint32_t groups = 8, group_size = 256;
  DispatchParams p = linear_dispatch(groups, group_size);
  p.local_mem_size = 16 * 4;
  load_kernel(f.memory,
              std::string(kPrologue) +
                  "  v_special v2, local_id_x\n"
                  "  v_and_b32 v3, v2, 15\n"
                  "  v_shl_b32 v3, v3, 2\n"
                  "  local_atomic_add_u32 v4, v3, v2, 0\n"
                  "  s_barrier\n"
                  "  v_cmp_lt_u32 v5, v2, 16\n"
                  "  v_branch_z v5, done, done\n"
                  "  v_shl_b32 v6, v2, 2\n"
                  "  local_load_b32 v7, v6, 0\n"
                  "  v_special v8, group_id_x\n"
                  "  v_shl_b32 v8, v8, 4\n"
                  "  v_add_u32 v8, v8, v2\n"
                  "  v_zext_u64_u32 v[10:11], v8\n"
                  "  v_shl_b64 v[10:11], v[10:11], 2\n"
                  "  v_add_u64 v[10:11], v[10:11], s[4:5]\n"
                  "  global_store_b32 v[10:11], v7, 0\n"
                  "done:\n"
                  "  s_end\n",
              &p);
  const uint64_t out = f.memory.alloc(groups * 16 * 4);
  set_args(f.memory, {0, out}, &p);
  run_ok(f.cores, f.memory, p);
  auto got = f.memory.download<uint32_t>(out, groups * 16);
  for (uint32_t g = 0; g < groups; ++g)
    for (uint32_t bin = 0; bin < 16; ++bin) {
      uint32_t want = 0;
      for (uint32_t x = bin; x < group_size; x += 16) want += x;
      EXPECT_EQ(got[g * 16 + bin], want);
    }
}

}  // namespace
}  // namespace gsgpu::testing
