// The shader cores keep pre-decoded programs between dispatches (program_cache.h): what a dispatch
// runs is still the code in GPU memory at that moment, with that dispatch's checks.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "tests/gsgpu/isa/kernel_harness.h"

namespace gsgpu::testing {
namespace {

// out[gid] = value (argument 0: the output buffer).
std::string store_kernel(uint32_t value) {
  return "  s_special s[0:1], arg_ptr\n"
         "  s_load_b64 s[4:5], s[0:1], 0\n"
         "  v_special v[20:21], global_id_x\n"
         "  v_mov_b32 v1, " + std::to_string(value) + "\n"
         "  v_shl_b64 v[24:25], v[20:21], 2\n"
         "  v_add_u64 v[24:25], v[24:25], s[4:5]\n"
         "  global_store_b32 v[24:25], v1, 0\n"
         "  s_end\n";
}

std::vector<uint32_t> assemble(const std::string& source) {
  std::vector<uint32_t> words;
  std::string error;
  EXPECT_TRUE(isa::assemble(source, &words, &error)) << error;
  return words;
}

struct Fixture {
  FlatMemory memory{0x10000, 1 << 20};
  ShaderCores cores{ShaderConfig{2, 32, 2}};
  DispatchParams params = linear_dispatch(2, 32);
  uint64_t out = 0;
  Fixture() {
    out = memory.upload(std::vector<uint32_t>(64, 0));
    set_args(memory, {out}, &params);
  }
  std::vector<uint32_t> output() { return memory.download<uint32_t>(out, 64); }
};

TEST(ProgramCache, CodeRewrittenBetweenDispatchesRunsAsRewritten) {
  Fixture f;
  load_kernel(f.memory, store_kernel(7), &f.params);
  run_ok(f.cores, f.memory, f.params);
  EXPECT_EQ(f.output(), std::vector<uint32_t>(64, 7));
  run_ok(f.cores, f.memory, f.params);  // the same code again: the same result
  EXPECT_EQ(f.output(), std::vector<uint32_t>(64, 7));

  // The same address and size, other words: the new program runs, not the one decoded before.
  const std::vector<uint32_t> other = assemble(store_kernel(9));
  ASSERT_EQ(other.size() * 4, f.params.code_size);
  std::memcpy(f.memory.host(f.params.code_va), other.data(), f.params.code_size);
  run_ok(f.cores, f.memory, f.params);
  EXPECT_EQ(f.output(), std::vector<uint32_t>(64, 9));

  // A word made illegal: the fault of an illegal instruction, not the old program's stores.
  const uint32_t illegal[2] = {0x1ff, 0};  // opcode 511 does not exist
  std::memcpy(f.memory.host(f.params.code_va), illegal, sizeof illegal);
  std::memcpy(f.memory.host(f.out), std::vector<uint32_t>(64, 0).data(), 64 * 4);
  DispatchResult r = f.cores.run(f.params, f.memory);
  ASSERT_TRUE(r.fault.has_value());
  EXPECT_EQ(r.fault->kind, ShaderFaultKind::kIllegalInstruction);
  EXPECT_EQ(f.output(), std::vector<uint32_t>(64, 0));
}

TEST(ProgramCache, EachDispatchIsCheckedAgainstItsOwnParameters) {
  Fixture f;
  load_kernel(f.memory, store_kernel(5), &f.params);
  run_ok(f.cores, f.memory, f.params);
  // The program decoded for the dispatch above names v25: a dispatch declaring fewer registers is
  // refused although the program is the one decoded before.
  DispatchParams tight = f.params;
  tight.declared_vector_regs = 4;
  DispatchResult r = f.cores.run(tight, f.memory);
  ASSERT_TRUE(r.fault.has_value());
  EXPECT_EQ(r.fault->kind, ShaderFaultKind::kBadDispatch);
  EXPECT_NE(r.fault->message.find("more than the declared"), std::string::npos) << r.fault->message;
  // An entry offset inside an instruction of the same code is refused; one past the first
  // instruction (s_special) starts there.
  DispatchParams inside = f.params;
  inside.entry_offset = 4;
  r = f.cores.run(inside, f.memory);
  ASSERT_TRUE(r.fault.has_value());
  EXPECT_EQ(r.fault->kind, ShaderFaultKind::kIllegalInstruction);
  run_ok(f.cores, f.memory, f.params);  // and the whole program still runs from its start
  EXPECT_EQ(f.output(), std::vector<uint32_t>(64, 5));
  // Code no longer mapped executable is a memory fault, cached program or not.
  DispatchParams moved = f.params;
  moved.code_va = 0x1000;
  r = f.cores.run(moved, f.memory);
  ASSERT_TRUE(r.fault.has_value());
  EXPECT_EQ(r.fault->kind, ShaderFaultKind::kMemory);
}

}  // namespace
}  // namespace gsgpu::testing
