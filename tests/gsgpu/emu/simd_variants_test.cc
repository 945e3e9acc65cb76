// The interpreter is built once per host SIMD level (gsgpu/emu/shader/backend.h). These tests check
// that the choice is reported and safe, and that every build the host can run computes the same
// bits for every vector ALU operation, with all lanes active and under a divergent mask, at warp
// widths that do and do not fill a host vector.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gsgpu/emu/shader/shader_core.h"
#include "tests/gsgpu/flat_memory.h"
#include "tests/gsgpu/isa/kernel_harness.h"

namespace gsgpu {
namespace {

using testing::FlatMemory;

std::vector<HostSimd> supported_builds() {
  std::vector<HostSimd> out;
  for (HostSimd s : {HostSimd::kBaseline, HostSimd::kAvx2, HostSimd::kAvx512})
    if (host_supports(s)) out.push_back(s);
  return out;
}

TEST(SimdVariants, TheChosenBuildIsOneTheHostRuns) {
  ShaderCores automatic(ShaderConfig{1, 32, 1});
  EXPECT_NE(automatic.simd(), HostSimd::kAuto);
  EXPECT_TRUE(host_supports(automatic.simd())) << host_simd_name(automatic.simd());
  ShaderCores baseline(ShaderConfig{1, 32, 1, HostSimd::kBaseline});
  EXPECT_EQ(baseline.simd(), HostSimd::kBaseline);
  // Asking for a level the host lacks falls back to one it has, never to an illegal instruction.
  for (HostSimd s : {HostSimd::kAvx2, HostSimd::kAvx512}) {
    ShaderCores cores(ShaderConfig{1, 32, 1, s});
    EXPECT_TRUE(host_supports(cores.simd()));
    if (host_supports(s)) {
      EXPECT_EQ(cores.simd(), s);
    }
  }
}

TEST(SimdVariants, EnvironmentSelectsTheBuild) {
  const char* old = std::getenv("GSGPU_SIMD");
  const std::string saved = old ? old : "";
  setenv("GSGPU_SIMD", "baseline", 1);
  EXPECT_EQ(ShaderCores(ShaderConfig{1, 32, 1}).simd(), HostSimd::kBaseline);
  // An explicit configuration wins over the environment.
  if (host_supports(HostSimd::kAvx2)) {
    EXPECT_EQ(ShaderCores(ShaderConfig{1, 32, 1, HostSimd::kAvx2}).simd(), HostSimd::kAvx2);
  }
  setenv("GSGPU_SIMD", "no-such-level", 1);
  EXPECT_TRUE(host_supports(ShaderCores(ShaderConfig{1, 32, 1}).simd()));
  if (old) setenv("GSGPU_SIMD", saved.c_str(), 1);
  else unsetenv("GSGPU_SIMD");
}

struct AluOp {
  const char* name;
  int dst, a, b, c;  // operand widths in bits, 0 = absent
};

constexpr AluOp kAluOps[] = {
#define GSGPU_ALU(name, D, A, B, C) {#name, D, A, B, C},
#define GSGPU_LOAD(space, type, bytes, sign)
#define GSGPU_STORE(space, type, bytes)
#define GSGPU_ATOMIC(space, op_type, kind, bits)
#define GSGPU_OTHER(name, format, dst, src0, src1, src2, imm)
#include "gsgpu/isa/opcodes.def"
};

std::string operand(int bits, int reg) {
  return bits == 64 ? "v[" + std::to_string(reg) + ":" + std::to_string(reg + 1) + "]" : "v" + std::to_string(reg);
}

// Each lane reads three 64-bit inputs (32-byte stride: the gather path), computes the operation
// with every lane active into v[10:11], then again only in the lanes whose id is not a multiple
// of 3 into v[12:13] (preset to a marker), and stores both (coalesced).
std::string kernel_for(const AluOp& op) {
  std::string call = "v_" + std::string(op.name) + " ";
  auto with_dst = [&](int dst_reg) {
    std::string s = call + operand(op.dst, dst_reg) + ", " + operand(op.a, 4);
    if (op.b) s += ", " + operand(op.b, 6);
    if (op.c) s += ", " + operand(op.c, 8);
    return s + "\n";
  };
  return "  s_special s[0:1], arg_ptr\n"
         "  s_load_b64 s[2:3], s[0:1], 0\n"
         "  s_load_b64 s[4:5], s[0:1], 8\n"
         "  v_special v[0:1], global_id_x\n"
         "  v_shl_b64 v[2:3], v[0:1], 5\n"
         "  v_add_u64 v[2:3], v[2:3], s[2:3]\n"
         "  global_load_b64 v[4:5], v[2:3], 0\n"
         "  global_load_b64 v[6:7], v[2:3], 8\n"
         "  global_load_b64 v[8:9], v[2:3], 16\n"
         "  v_mov_b32 v11, 0\n"
         "  v_mov_b32 v12, 0x5a5a5a5a\n"
         "  v_mov_b32 v13, 0x5a5a5a5a\n" +
         with_dst(10) +
         "  v_rem_u32 v14, v0, 3\n"
         "  v_branch_z v14, skip, skip\n" +
         with_dst(12) +
         "skip:\n"
         "  v_shl_b64 v[2:3], v[0:1], 4\n"
         "  v_add_u64 v[2:3], v[2:3], s[4:5]\n"
         "  global_store_b64 v[2:3], v[10:11], 0\n"
         "  global_store_b64 v[2:3], v[12:13], 8\n"
         "  s_end\n";
}

// Inputs mixing random bits with the values where operations have edge cases.
std::vector<uint64_t> inputs(size_t lanes) {
  static const uint32_t kSpecial32[] = {0, 1, 0xffffffffu, 0x80000000u, 0x7fffffffu, 0x7f800000u, 0xff800000u,
                                        0x7fc00000u, 0xffc00001u, 0x80000000u, 0x00000001u, 0x007fffffu,
                                        0x3f800000u, 0xbf800000u, 0x4f000000u, 0xcf000000u, 31, 32, 33, 63, 64};
  std::mt19937_64 rng(1234);
  std::vector<uint64_t> v(lanes * 4);
  for (size_t i = 0; i < v.size(); ++i) {
    const uint64_t r = rng();
    switch (r % 4) {
      case 0: v[i] = kSpecial32[(r >> 8) % std::size(kSpecial32)] |
                     (uint64_t{kSpecial32[(r >> 16) % std::size(kSpecial32)]} << 32); break;
      case 1: v[i] = (r >> 8) % 97; break;  // small values: shift counts, divisors
      default: v[i] = rng(); break;
    }
  }
  return v;
}

std::vector<uint8_t> run_on(HostSimd simd, uint32_t width, const std::string& source, const std::vector<uint64_t>& in,
                            uint32_t groups, uint32_t group_size) {
  FlatMemory memory(0x100000, 1 << 20);
  DispatchParams p = testing::linear_dispatch(groups, group_size);
  testing::load_kernel(memory, source, &p);
  const uint64_t in_va = memory.upload(in);
  const size_t out_bytes = size_t{groups} * group_size * 16;
  const uint64_t out_va = memory.alloc(out_bytes);
  testing::set_args(memory, {in_va, out_va}, &p);
  ShaderCores cores(ShaderConfig{2, width, 1, simd});
  EXPECT_EQ(cores.simd(), simd);
  testing::run_ok(cores, memory, p);
  const uint8_t* out = memory.host(out_va);
  return std::vector<uint8_t>(out, out + out_bytes);
}

TEST(SimdVariants, EveryBuildComputesTheSameBitsForEveryVectorAluOperation) {
  const std::vector<HostSimd> builds = supported_builds();
  if (builds.size() < 2) GTEST_SKIP() << "this host runs only the baseline build";
  constexpr uint32_t kGroups = 3, kGroupSize = 96;
  const std::vector<uint64_t> in = inputs(size_t{kGroups} * kGroupSize);
  for (const AluOp& op : kAluOps) {
    const std::string source = kernel_for(op);
    for (uint32_t width : {32u, 13u, 64u}) {
      const std::vector<uint8_t> reference = run_on(HostSimd::kBaseline, width, source, in, kGroups, kGroupSize);
      for (HostSimd simd : builds) {
        if (simd == HostSimd::kBaseline) continue;
        const std::vector<uint8_t> out = run_on(simd, width, source, in, kGroups, kGroupSize);
        ASSERT_EQ(out.size(), reference.size());
        size_t first = 0;
        while (first < out.size() && out[first] == reference[first]) ++first;
        EXPECT_EQ(first, out.size()) << "v_" << op.name << " on " << host_simd_name(simd) << ", warp width " << width
                                     << ": first difference at work-item " << first / 16
                                     << (first % 16 < 8 ? " (all lanes active)" : " (divergent)");
      }
    }
  }
}

// The masked lanes really kept their old value and the active ones were written: guards the test
// above against a kernel that computes nothing (then every build would agree trivially).
TEST(SimdVariants, TheComparisonKernelWritesWhatItShould) {
  const AluOp add{"add_u32", 32, 32, 32, 0};
  const std::vector<uint64_t> in = inputs(64);
  const std::vector<uint8_t> out = run_on(HostSimd::kBaseline, 32, kernel_for(add), in, 1, 64);
  for (uint32_t i = 0; i < 64; ++i) {
    uint64_t all, divergent;
    std::memcpy(&all, &out[i * 16], 8);
    std::memcpy(&divergent, &out[i * 16 + 8], 8);
    const uint64_t expected = uint32_t(uint32_t(in[i * 4]) + uint32_t(in[i * 4 + 1]));
    EXPECT_EQ(all, expected) << i;
    EXPECT_EQ(divergent, i % 3 == 0 ? 0x5a5a5a5a5a5a5a5aull : (0x5a5a5a5a00000000ull | expected)) << i;
  }
}

}  // namespace
}  // namespace gsgpu
