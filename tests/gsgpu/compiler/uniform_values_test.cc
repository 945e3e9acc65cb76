// Uniform values of the entry region in scalar registers (gsgpu/compiler/uniform.h): which values
// move (pure operations of arguments, literals and other moved values, before the first branch),
// which stay per lane (work-item ids, loads, anything after a branch, values written twice or read
// as branch conditions), the register budget, and real kernels checked against C++ references.
#include <cstdint>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "gsgpu/compiler/uniform.h"
#include "tests/common/benchmark_kernels.h"
#include "tests/gsgpu/compiler/cl_harness.h"

namespace gsgpu::compiler::testing {
namespace {

using gsvirt::kernel_sources::kVectorAdd;

using isa::Opcode;

MInst inst(Opcode op, MOperand dst, MOperand a = {}, MOperand b = {}, MOperand c = {}, int32_t imm = 0) {
  MInst m;
  m.opcode = op;
  m.dst = dst;
  m.src[0] = a;
  m.src[1] = b;
  m.src[2] = c;
  m.imm = imm;
  return m;
}

MOperand sreg(unsigned n) { return MOperand::raw(isa::sreg(n)); }

// The shape of vadd after lowering: the prologue loads arg_ptr and n into s0..s2 and jumps to the
// kernel's first block, which zero-extends n, compares it with the global id and branches.
struct EntryFixture {
  MFunction f;
  uint32_t n64, gid, cmp, triple, after, after_scaled;
  uint32_t body;
  EntryFixture() {
    f.entry = f.new_block("prologue");
    const uint32_t first = f.new_block("kernel entry");
    body = f.new_block("then");
    f.exit = f.new_block("exit");
    n64 = f.new_vreg(64);
    gid = f.new_vreg(64);
    cmp = f.new_vreg(32);
    triple = f.new_vreg(32);
    after = f.new_vreg(32);
    after_scaled = f.new_vreg(32);
    MBlock& p = f.blocks[f.entry];
    p.insts.push_back(inst(Opcode::s_special, sreg(0), {}, {}, {}, static_cast<int32_t>(isa::SpecialReg::kArgPtr)));
    p.insts.push_back(inst(Opcode::s_load_b32, sreg(2), sreg(0), {}, {}, 24));
    p.term = MTerminator{MTerminator::Kind::kJump, {}, {first, 0}};
    MBlock& e = f.blocks[first];
    e.insts.push_back(inst(Opcode::v_zext_u64_u32, MOperand::vreg(n64), sreg(2)));
    e.insts.push_back(inst(Opcode::v_special, MOperand::vreg(gid), {}, {}, {}, static_cast<int32_t>(isa::SpecialReg::kGlobalIdX)));
    e.insts.push_back(inst(Opcode::v_cmp_lt_u64, MOperand::vreg(cmp), MOperand::vreg(gid), MOperand::vreg(n64)));
    e.insts.push_back(inst(Opcode::v_mul_lo_u32, MOperand::vreg(triple), MOperand::low(n64), MOperand::literal(3)));
    e.term = MTerminator{MTerminator::Kind::kBranch, MOperand::vreg(cmp), {body, f.exit}};
    MBlock& b = f.blocks[body];
    b.insts.push_back(inst(Opcode::v_add_u32, MOperand::vreg(after), MOperand::vreg(triple), MOperand::literal(1)));
    b.insts.push_back(inst(Opcode::v_mul_lo_u32, MOperand::vreg(after_scaled), sreg(2), MOperand::literal(5)));
    b.term = MTerminator{MTerminator::Kind::kJump, {}, {f.exit, 0}};
    f.blocks[f.exit].term.kind = MTerminator::Kind::kEnd;
  }
  const MInst& at(uint32_t block, size_t i) const { return f.blocks[block].insts.at(i); }
};

TEST(UniformValues, EntryRegionValuesOfArgumentsMoveToFreshScalarRegisters) {
  EntryFixture t;
  EXPECT_EQ(promote_uniform_values(&t.f, 3, 128), 7u);
  const uint32_t first = 1;
  // n zero-extended: the scalar twin into the next even pair; the compare reads it.
  EXPECT_EQ(t.at(first, 0).opcode, Opcode::s_zext_u64_u32);
  EXPECT_EQ(t.at(first, 0).dst, sreg(4));
  EXPECT_EQ(t.at(first, 0).src[0], sreg(2));
  EXPECT_EQ(t.at(first, 2).opcode, Opcode::v_cmp_lt_u64);
  EXPECT_EQ(t.at(first, 2).src[1], sreg(4));
  // The work-item id and the compare of it stay per lane.
  EXPECT_EQ(t.at(first, 1).opcode, Opcode::v_special);
  EXPECT_EQ(t.at(first, 2).dst, MOperand::vreg(t.cmp));
  // A value made from a moved value (its low half) moves too.
  EXPECT_EQ(t.at(first, 3).opcode, Opcode::s_mul_lo_u32);
  EXPECT_EQ(t.at(first, 3).dst, sreg(6));
  EXPECT_EQ(t.at(first, 3).src[0], sreg(4));
  // After the branch nothing moves, but readers there read the scalar register.
  EXPECT_EQ(t.at(t.body, 0).opcode, Opcode::v_add_u32);
  EXPECT_EQ(t.at(t.body, 0).src[0], sreg(6));
  EXPECT_EQ(t.at(t.body, 1).opcode, Opcode::v_mul_lo_u32);
  EXPECT_EQ(t.at(t.body, 1).dst, MOperand::vreg(t.after_scaled));
}

TEST(UniformValues, ExhaustedBudgetLeavesValuesPerLane) {
  EntryFixture t;
  // s3..s4: no room for the pair at s[4:5], but the 32-bit value fits in s3... only if it does
  // not read the pair that stayed behind; it does, so it stays per lane as well.
  EXPECT_EQ(promote_uniform_values(&t.f, 3, 5), 3u);
  EXPECT_EQ(t.at(1, 0).opcode, Opcode::v_zext_u64_u32);
  EXPECT_EQ(t.at(1, 3).opcode, Opcode::v_mul_lo_u32);
  // No budget at all: nothing moves.
  EntryFixture none;
  EXPECT_EQ(promote_uniform_values(&none.f, 0, 0), 0u);
  EXPECT_EQ(none.at(1, 0).opcode, Opcode::v_zext_u64_u32);
}

TEST(UniformValues, ThirtyTwoBitValueTakesTheOddRegisterAPairCannot) {
  EntryFixture t;
  t.f.blocks[1].insts[3].src[0] = sreg(2);  // n * 3 straight from the argument
  EXPECT_EQ(promote_uniform_values(&t.f, 3, 5), 4u);
  EXPECT_EQ(t.at(1, 0).opcode, Opcode::v_zext_u64_u32);
  EXPECT_EQ(t.at(1, 3).opcode, Opcode::s_mul_lo_u32);
  EXPECT_EQ(t.at(1, 3).dst, sreg(3));
}

TEST(UniformValues, ValuesWrittenTwiceOrReadAsConditionsStayPerLane) {
  EntryFixture t;
  // A second definition of n64 (a phi-like copy after the branch) keeps it per lane.
  t.f.blocks[t.body].insts.push_back(inst(Opcode::v_mov_b64, MOperand::vreg(t.n64), MOperand::literal(0)));
  // A uniform value read as a branch condition keeps its vector register.
  const uint32_t cond = t.f.new_vreg(32);
  t.f.blocks[1].insts.push_back(inst(Opcode::v_cmp_eq_u32, MOperand::vreg(cond), sreg(2), MOperand::literal(0)));
  t.f.blocks[1].term.condition = MOperand::vreg(cond);
  promote_uniform_values(&t.f, 3, 128);
  EXPECT_EQ(t.at(1, 0).opcode, Opcode::v_zext_u64_u32);
  EXPECT_EQ(t.at(1, 3).opcode, Opcode::v_mul_lo_u32);  // reads the per-lane n64
  EXPECT_EQ(t.at(1, 4).opcode, Opcode::v_cmp_eq_u32);
}

TEST(UniformValues, OnlyScalarRegistersWrittenOnceCountAsUniform) {
  EntryFixture t;
  // s2 written again after the branch: its readers cannot trust it to hold one value.
  t.f.blocks[t.body].insts.push_back(inst(Opcode::s_mov_b32, sreg(2), MOperand::literal(9)));
  promote_uniform_values(&t.f, 3, 128);
  EXPECT_EQ(t.at(1, 0).opcode, Opcode::v_zext_u64_u32);
}

TEST(UniformValues, UniformSpecialRegistersMoveAndPerLaneOnesStay) {
  MFunction f;
  f.entry = f.new_block("entry");
  f.exit = f.entry;
  const uint32_t group = f.new_vreg(32), lane = f.new_vreg(32), size = f.new_vreg(64), sum = f.new_vreg(32);
  MBlock& e = f.blocks[f.entry];
  e.insts.push_back(inst(Opcode::v_special, MOperand::vreg(group), {}, {}, {}, static_cast<int32_t>(isa::SpecialReg::kGroupIdX)));
  e.insts.push_back(inst(Opcode::v_special, MOperand::vreg(lane), {}, {}, {}, static_cast<int32_t>(isa::SpecialReg::kLaneId)));
  e.insts.push_back(inst(Opcode::v_special, MOperand::vreg(size), {}, {}, {}, static_cast<int32_t>(isa::SpecialReg::kGlobalSizeX)));
  e.insts.push_back(inst(Opcode::v_add_u32, MOperand::vreg(sum), MOperand::vreg(group), MOperand::vreg(lane)));
  e.term.kind = MTerminator::Kind::kEnd;
  EXPECT_EQ(promote_uniform_values(&f, 0, 128), 4u);
  EXPECT_EQ(e.insts[0].opcode, Opcode::s_special);
  EXPECT_EQ(e.insts[0].dst, sreg(0));
  EXPECT_EQ(e.insts[1].opcode, Opcode::v_special);
  EXPECT_EQ(e.insts[2].opcode, Opcode::s_special);
  EXPECT_EQ(e.insts[2].dst, sreg(2));  // 64-bit: an even pair
  EXPECT_EQ(e.insts[3].opcode, Opcode::v_add_u32);
  EXPECT_EQ(e.insts[3].src[0], sreg(0));
}

TEST(UniformValues, RegionEndsAtABlockWithAnotherPredecessor) {
  // entry -> head, and head is also reached from a later block (a loop): head's values are
  // recomputed under divergence, so only the entry block's move.
  MFunction f;
  f.entry = f.new_block("entry");
  const uint32_t head = f.new_block("loop head");
  const uint32_t latch = f.new_block("latch");
  f.exit = f.new_block("exit");
  const uint32_t a = f.new_vreg(32), b = f.new_vreg(32), c = f.new_vreg(32);
  f.blocks[f.entry].insts.push_back(inst(Opcode::v_mov_b32, MOperand::vreg(a), MOperand::literal(7)));
  f.blocks[f.entry].term = MTerminator{MTerminator::Kind::kJump, {}, {head, 0}};
  f.blocks[head].insts.push_back(inst(Opcode::v_add_u32, MOperand::vreg(b), MOperand::vreg(a), MOperand::literal(1)));
  f.blocks[head].insts.push_back(inst(Opcode::v_special, MOperand::vreg(c), {}, {}, {}, static_cast<int32_t>(isa::SpecialReg::kLaneId)));
  f.blocks[head].term = MTerminator{MTerminator::Kind::kBranch, MOperand::vreg(c), {latch, f.exit}};
  f.blocks[latch].term = MTerminator{MTerminator::Kind::kJump, {}, {head, 0}};
  f.blocks[f.exit].term.kind = MTerminator::Kind::kEnd;
  EXPECT_EQ(promote_uniform_values(&f, 0, 128), 1u);
  EXPECT_EQ(f.blocks[f.entry].insts[0].opcode, Opcode::s_mov_b32);
  EXPECT_EQ(f.blocks[head].insts[0].opcode, Opcode::v_add_u32);
  EXPECT_EQ(f.blocks[head].insts[0].src[0], sreg(0));
}

TEST(UniformValues, VectorAddComparesWithAScalarBound) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  ASSERT_TRUE(cl.build(kVectorAdd));
  const std::string s = cl.assembly("vadd");
  EXPECT_EQ(count_lines(s, "s_zext_u64_u32 s\\[10:11\\], s8"), 1u) << s;
  EXPECT_EQ(count_lines(s, "v_zext"), 0u) << s;
  EXPECT_EQ(count_lines(s, "v_cmp_lt_u64 v\\d+, v\\[\\d+:\\d+\\], s\\[10:11\\]"), 1u) << s;
  EXPECT_EQ(cl.program.find("vadd")->scalar_registers, 12u);
  // Arguments fit (s0..s8) but the pair does not: it stays per lane.
  CompileOptions tight;
  tight.max_scalar_registers = 10;
  ClRunner narrow;
  ASSERT_TRUE(narrow.build(kVectorAdd, "", tight));
  EXPECT_EQ(count_lines(narrow.assembly("vadd"), "v_zext_u64_u32"), 1u) << narrow.assembly("vadd");
  EXPECT_EQ(narrow.program.find("vadd")->scalar_registers, 9u);

  const uint32_t n = 1000;
  std::vector<float> a(n), b(n);
  for (uint32_t i = 0; i < n; ++i) a[i] = 0.25f * i, b[i] = 1.0f - i;
  for (ClRunner* r : {&cl, &narrow}) expect_vadd_adds(*r, a, b);
}

// Uniform arithmetic of every kind in the entry block (integer, 64-bit, float, select, uniform
// built-ins), then used per lane on both sides of a divergent branch, against a C++ reference.
TEST(UniformValues, UniformArithmeticFeedsDivergentCode) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl(16);
  ASSERT_TRUE(cl.build(R"(
    __kernel void mix(__global int* out, int a, uint b, long c, float f) {
      size_t i = get_global_id(0);
      int k = a * 7 - (int)b;
      long w = c * (long)a + 3;
      float g = f * 0.5f + 1.0f;
      uint sel = b > 10u ? b : 10u;
      uint groups = (uint)get_num_groups(0) * (uint)get_local_size(0);
      int v = k + (int)(w >> 3) + (int)(g * 4.0f) + (int)sel + (int)groups;
      if ((int)i % 3 == 0) out[i] = v + (int)i;
      else out[i] = v * (int)i;
    })"));
  const std::string s = cl.assembly("mix");
  EXPECT_GE(count_lines(s, "^\\s+s_(mul|sub|add|mad|fma|cvt|max|cmp|cndmask|shr)"), 6u) << s;
  EXPECT_EQ(count_lines(s, "v_special .*(num_groups|local_size)"), 0u) << s;
  EXPECT_EQ(count_lines(s, "v_(mul|mad|fma)_f32|v_cvt_i32_f32"), 0u) << s;
  const int32_t a = -13;
  const uint32_t b = 17;
  const int64_t c = 0x123456789LL;
  const float f = 2.5f;
  const uint32_t n = 200;
  const uint64_t vo = cl.memory.upload(std::vector<int32_t>(n, 0));
  cl.run_ok("mix", {Arg::buffer(vo), Arg::value(a), Arg::value(b), Arg::value(c), Arg::value(f)}, NDRange::linear(n, 40));
  const auto out = cl.memory.download<int32_t>(vo, n);
  const int32_t k = a * 7 - static_cast<int32_t>(b);
  const int64_t w = c * a + 3;
  const float g = f * 0.5f + 1.0f;
  const uint32_t sel = b > 10u ? b : 10u;
  const int32_t v = k + static_cast<int32_t>(w >> 3) + static_cast<int32_t>(g * 4.0f) + static_cast<int32_t>(sel) +
                    static_cast<int32_t>(n);
  for (uint32_t i = 0; i < n; ++i) {
    const int32_t want = i % 3 == 0 ? v + static_cast<int32_t>(i)
                                    : static_cast<int32_t>(static_cast<uint32_t>(v) * i);
    ASSERT_EQ(out[i], want) << i << "\n" << s;
  }
}

}  // namespace
}  // namespace gsgpu::compiler::testing
