// The optional scalar base of global and constant accesses (docs/isa.md, "Scalar base"): its
// encoding in the src2 field (0 = none, otherwise an even scalar pair), what the decoder and the
// assembler reject, and execution: address = vector address + base + imm19 modulo 2^64, with the
// same bounds checks and a fault that reports the whole address.
#include <gtest/gtest.h>

#include "gsgpu/isa/assembler.h"
#include "gsgpu/isa/disassembler.h"
#include "gsgpu/isa/isa.h"
#include "tests/gsgpu/isa/kernel_harness.h"

namespace gsgpu::isa {
namespace {

Instruction load_with_base(uint16_t base) {
  Instruction inst;
  inst.opcode = Opcode::global_load_b32;
  inst.dst = vreg(2);
  inst.src[0] = vreg(4);
  inst.src[2] = base;
  inst.imm = -16;
  return inst;
}

TEST(ScalarBase, SourceTwoFieldHoldsTheBaseAndZeroMeansNone) {
  std::vector<uint32_t> words;
  std::string error;
  ASSERT_TRUE(encode(load_with_base(sreg(6)), &words, &error)) << error;
  ASSERT_EQ(words.size(), 2u);
  const uint64_t bits = words[0] | (uint64_t{words[1]} << 32);
  EXPECT_EQ(bits >> 36 & 0x1ff, uint64_t{sreg(6)});
  Instruction decoded;
  size_t used = 0;
  ASSERT_TRUE(decode(words.data(), words.size(), &decoded, &used, &error)) << error;
  EXPECT_TRUE(decoded == load_with_base(sreg(6)));
  EXPECT_EQ(scalar_base(decoded), sreg(6));
  EXPECT_EQ(format_instruction(decoded), "global_load_b32 v2, v[4:5], s[6:7], -16");

  // Without a base the field is zero: the encoding every existing binary already has.
  words.clear();
  ASSERT_TRUE(encode(load_with_base(kNoScalarBase), &words, &error)) << error;
  EXPECT_EQ((words[0] | (uint64_t{words[1]} << 32)) >> 36 & 0x1ff, 0u);
  ASSERT_TRUE(decode(words.data(), words.size(), &decoded, &used, &error)) << error;
  EXPECT_EQ(scalar_base(decoded), kNoScalarBase);
  EXPECT_EQ(format_instruction(decoded), "global_load_b32 v2, v[4:5], -16");
}

TEST(ScalarBase, EveryGlobalAndConstantAccessButCompareExchangeHasOne) {
  for (size_t i = 0; i < kOpcodeCount; ++i) {
    const auto op = static_cast<Opcode>(i);
    const OpInfo& info = op_info(op);
    const bool wide_space = info.space == MemSpace::kGlobal || info.space == MemSpace::kConstant;
    const bool expected = wide_space && info.op_class != OpClass::kOther &&
                          !(info.op_class == OpClass::kAtomic && info.atomic == AtomicOp::kCmpxchg);
    EXPECT_EQ(info.src2 == OperandKind::kSBase64, expected) << info.mnemonic;
  }
}

TEST(ScalarBase, DecoderRejectsEverythingButAnEvenScalarPair) {
  for (uint16_t base : {sreg(5), vreg(2), vreg(1), static_cast<uint16_t>(sreg(127)), uint16_t{384}, uint16_t{500},
                        kLiteralOperand}) {
    SCOPED_TRACE(base);
    Instruction inst = load_with_base(base);
    EXPECT_FALSE(validate(inst).empty());
    // Encode the raw field by hand: the decoder must refuse it with a reason.
    uint64_t bits = static_cast<uint64_t>(Opcode::global_load_b32) | uint64_t{vreg(2)} << 9 | uint64_t{vreg(4)} << 18 |
                    uint64_t{base} << 36;
    const uint32_t words[3] = {static_cast<uint32_t>(bits), static_cast<uint32_t>(bits >> 32), 0};
    Instruction decoded;
    size_t used = 0;
    std::string error;
    EXPECT_FALSE(decode(words, 3, &decoded, &used, &error));
    EXPECT_FALSE(error.empty());
    EXPECT_NE(error.find("scalar base"), std::string::npos) << error;
  }
  // Local and private accesses have no base: the field stays an unused one that must be zero.
  Instruction local;
  local.opcode = Opcode::local_load_b32;
  local.dst = vreg(1);
  local.src[0] = vreg(2);
  local.src[2] = sreg(4);
  EXPECT_FALSE(validate(local).empty());
  // cmpxchg keeps src2 for the compare value.
  Instruction cas;
  cas.opcode = Opcode::global_atomic_cmpxchg_b32;
  cas.dst = vreg(1);
  cas.src[0] = vreg(2);
  cas.src[1] = vreg(4);
  cas.src[2] = vreg(5);
  EXPECT_TRUE(validate(cas).empty()) << validate(cas);
  EXPECT_EQ(scalar_base(cas), kNoScalarBase);
}

TEST(ScalarBase, AssemblerSyntaxAndRoundTrip) {
  const char* source =
      "  global_load_b32 v2, v[4:5], s[6:7], 8\n"
      "  global_load_b64 v[2:3], v[4:5], s[6:7]\n"
      "  const_load_u8 v2, s[2:3], s[6:7], -1\n"
      "  global_store_b32 v[4:5], v2, s[8:9], 4\n"
      "  global_store_b16 v[4:5], 7, s[8:9]\n"
      "  global_atomic_add_u32 v1, v[4:5], v2, s[10:11], 0\n"
      "  global_atomic_cmpxchg_b64 v[0:1], v[4:5], v[2:3], v[6:7], 0\n"
      "  global_load_b32 v2, v[4:5], 8\n"
      "  global_load_b32 v2, v[4:5]\n";
  std::vector<uint32_t> words;
  std::string error;
  ASSERT_TRUE(assemble(source, &words, &error)) << error;
  Instruction first;
  size_t used = 0;
  ASSERT_TRUE(decode(words.data(), words.size(), &first, &used, &error)) << error;
  EXPECT_EQ(first.src[2], sreg(6));
  EXPECT_EQ(first.imm, 8);
  const std::string text = disassemble(words.data(), words.size());
  EXPECT_NE(text.find("global_store_b16 v[4:5], 0x7, s[8:9], 0"), std::string::npos) << text;
  std::vector<uint32_t> again;
  ASSERT_TRUE(assemble(text, &again, &error)) << error << "\n" << text;
  EXPECT_EQ(again, words);

  struct Bad {
    const char* source;
    const char* location;
    const char* text;
  };
  for (const Bad& c : {Bad{"global_load_b32 v2, v[4:5], s[5:6], 0\n", "column 29", "even register"},
                       Bad{"global_load_b32 v2, v[4:5], v[6:7]\n", "column 29", "scalar base"},
                       Bad{"global_load_b32 v2, v[4:5], s6, 0\n", "column 29", "scalar base"},
                       Bad{"global_load_b32 v2, v[4:5], 8, 9\n", "column 32", "unexpected operand"},
                       Bad{"global_load_b32 v2, v[4:5], s[6:7], 8, 9\n", "column 1", "takes 2-4 operands"},
                       Bad{"local_load_b32 v2, v4, s[6:7]\n", "column 24", "offset"}}) {
    SCOPED_TRACE(c.source);
    EXPECT_FALSE(assemble(c.source, &words, &error));
    EXPECT_NE(error.find(c.location), std::string::npos) << error;
    EXPECT_NE(error.find(c.text), std::string::npos) << error;
  }
}

}  // namespace
}  // namespace gsgpu::isa

namespace gsgpu::testing {
namespace {

struct Fixture {
  FlatMemory memory{0x200000, 8 << 20};
  ShaderCores cores{ShaderConfig{4, 32, 2}};
};

// Arguments: s[2:3] = in, s[4:5] = out, s[6:7] = a third value (a base); v[20:21] = gid * 4.
const char* kPrologue =
    "  s_special s[0:1], arg_ptr\n"
    "  s_load_b64 s[2:3], s[0:1], 0\n"
    "  s_load_b64 s[4:5], s[0:1], 8\n"
    "  s_load_b64 s[6:7], s[0:1], 16\n"
    "  v_special v[20:21], global_id_x\n"
    "  v_shl_b64 v[20:21], v[20:21], 2\n";

TEST(ScalarBaseExecution, LoadsStoresAndAtomicsAddTheBase) {
  Fixture f;
  const uint32_t n = 256;
  std::vector<uint32_t> in(n + 4);
  for (uint32_t i = 0; i < in.size(); ++i) in[i] = i * 7 + 1;
  DispatchParams p = linear_dispatch(4, 64);
  // out[i] = in[i + 1] + const in[i] (base + offset + imm), then counter += 1 through the base.
  load_kernel(f.memory,
              std::string(kPrologue) +
                  "  global_load_b32 v1, v[20:21], s[2:3], 4\n"
                  "  const_load_b32 v2, v[20:21], s[2:3], 0\n"
                  "  v_add_u32 v1, v1, v2\n"
                  "  global_store_b32 v[20:21], v1, s[4:5], 0\n"
                  "  v_mov_b64 v[22:23], 0\n"
                  "  global_atomic_add_u32 v3, v[22:23], 1, s[6:7], 0\n"
                  "  s_end\n",
              &p);
  const uint64_t vin = f.memory.upload(in);
  const uint64_t vout = f.memory.alloc(n * 4);
  const uint64_t counter = f.memory.upload(std::vector<uint32_t>{0, 0});
  set_args(f.memory, {vin, vout, counter}, &p);
  run_ok(f.cores, f.memory, p);
  const auto out = f.memory.download<uint32_t>(vout, n);
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(out[i], in[i + 1] + in[i]) << i;
  EXPECT_EQ(f.memory.download<uint32_t>(counter, 1)[0], n);
}

TEST(ScalarBaseExecution, ScalarAddressWithABaseIsUniform) {
  Fixture f;
  DispatchParams p = linear_dispatch(1, 32);
  // Every lane reads in[3] as s[6:7] (= 8) + in + 4.
  load_kernel(f.memory,
              std::string(kPrologue) +
                  "  global_load_b32 v1, s[2:3], s[6:7], 4\n"
                  "  global_store_b32 v[20:21], v1, s[4:5], 0\n"
                  "  s_end\n",
              &p);
  const uint64_t vin = f.memory.upload(std::vector<uint32_t>{10, 11, 12, 13, 14});
  const uint64_t vout = f.memory.alloc(32 * 4);
  set_args(f.memory, {vin, vout, 8}, &p);
  run_ok(f.cores, f.memory, p);
  for (uint32_t v : f.memory.download<uint32_t>(vout, 32)) ASSERT_EQ(v, 13u);
}

TEST(ScalarBaseExecution, SumWrapsModuloTwoToTheSixtyFour) {
  Fixture f;
  DispatchParams p = linear_dispatch(2, 64);
  // The vector address is in + 0x1000 + gid * 4 and the base -0x1000: the sum wraps to in[gid].
  load_kernel(f.memory,
              std::string(kPrologue) +
                  "  v_add_u64 v[22:23], v[20:21], s[2:3]\n"
                  "  v_add_u64 v[22:23], v[22:23], 0x1000\n"
                  "  global_load_b32 v1, v[22:23], s[6:7], 0\n"
                  "  global_store_b32 v[20:21], v1, s[4:5], 0\n"
                  "  s_end\n",
              &p);
  std::vector<uint32_t> in(128);
  for (uint32_t i = 0; i < in.size(); ++i) in[i] = ~i;
  const uint64_t vin = f.memory.upload(in);
  const uint64_t vout = f.memory.alloc(128 * 4);
  set_args(f.memory, {vin, vout, ~uint64_t{0xfff}}, &p);
  run_ok(f.cores, f.memory, p);
  EXPECT_EQ(f.memory.download<uint32_t>(vout, 128), in);
}

TEST(ScalarBaseExecution, FaultReportsBasePlusOffset) {
  struct Case {
    const char* name;
    const char* load;
    uint64_t (*base)(const FlatMemory&);
    uint64_t (*address)(const FlatMemory&);
  };
  const Case cases[] = {
      // Every lane past the end: the first lane's address, base + 0 + 16.
      {"all lanes", "  v_mov_b64 v[22:23], 0\n  global_load_b32 v1, v[22:23], s[6:7], 16\n",
       [](const FlatMemory& m) { return m.end() - 8; }, [](const FlatMemory& m) { return m.end() + 8; }},
      // Lanes 0..62 inside, lane 63 at the end: the lane-by-lane path names lane 63's address.
      {"last lane", "  global_load_b32 v1, v[20:21], s[6:7], 0\n",
       [](const FlatMemory& m) { return m.end() - 252; }, [](const FlatMemory& m) { return m.end(); }},
      // A wrapped sum: vector 0x10, base -0x10, imm 4: address 4, which nothing maps.
      {"wrapped", "  v_mov_b64 v[22:23], 0x10\n  global_store_b32 v[22:23], v1, s[6:7], 4\n",
       [](const FlatMemory&) { return ~uint64_t{0xf}; }, [](const FlatMemory&) { return uint64_t{4}; }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Fixture f;
    DispatchParams p = linear_dispatch(1, 64);
    load_kernel(f.memory, std::string(kPrologue) + c.load + "  s_end\n", &p);
    set_args(f.memory, {0, 0, c.base(f.memory)}, &p);
    DispatchResult r = f.cores.run(p, f.memory);
    ASSERT_TRUE(r.fault.has_value());
    EXPECT_EQ(r.fault->kind, ShaderFaultKind::kMemory);
    EXPECT_EQ(r.fault->memory.address, c.address(f.memory));
    EXPECT_EQ(r.fault->memory.size, 4u);
    ASSERT_FALSE(f.memory.faults.empty());
    EXPECT_EQ(f.memory.faults.back().address, c.address(f.memory));
    EXPECT_NE(r.fault->message.find(std::to_string(c.address(f.memory))), std::string::npos) << r.fault->message;
  }
}

}  // namespace
}  // namespace gsgpu::testing
