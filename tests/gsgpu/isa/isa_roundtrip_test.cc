// The instruction table round-trips: every opcode, with varied operands, survives
// encode -> decode and encode -> disassemble -> assemble with identical words.
#include <gtest/gtest.h>

#include <random>

#include "gsgpu/isa/assembler.h"
#include "gsgpu/isa/disassembler.h"
#include "gsgpu/isa/encoder.h"
#include "gsgpu/isa/isa.h"

namespace gsgpu::isa {
namespace {

class OperandGenerator {
 public:
  explicit OperandGenerator(uint32_t seed) : rng_(seed) {}

  uint16_t pick(const Instruction& inst, OperandKind kind) {
    const unsigned width = operand_width(inst, kind);
    switch (kind) {
      case OperandKind::kNone: return 0;
      case OperandKind::kVDst32: case OperandKind::kVReg32: case OperandKind::kVDst64:
      case OperandKind::kVDstSpecial: case OperandKind::kVDst128: case OperandKind::kVReg128:
        return vector_reg(width);
      case OperandKind::kSDst32: case OperandKind::kSReg32: case OperandKind::kSDst64:
      case OperandKind::kSDstSpecial:
        return scalar_reg(width);
      case OperandKind::kVSrc32: case OperandKind::kVSrc64: {
        const unsigned choice = rng_() % 3;
        return choice == 0 ? vector_reg(width) : choice == 1 ? scalar_reg(width) : kLiteralOperand;
      }
      case OperandKind::kSSrc32: case OperandKind::kSSrc64:
        return rng_() % 2 ? scalar_reg(width) : kLiteralOperand;
      case OperandKind::kSBase64:
        return rng_() % 2 ? scalar_reg(64) : kNoScalarBase;
    }
    return 0;
  }
  uint32_t literal() {
    const uint32_t values[] = {0, 1, 0xffffffffu, 0x80000000u, 0x3f800000u, static_cast<uint32_t>(rng_())};
    return values[rng_() % 6];
  }
  int32_t offset() {
    const int32_t values[] = {0, 4, -8, kMinOffset, kMaxOffset, static_cast<int32_t>(rng_() % 4096) - 2048};
    return values[rng_() % 6];
  }
  int32_t branch() {
    const int32_t values[] = {0, 8, -8, kMinBranchBytes, kMaxBranchBytes,
                              static_cast<int32_t>(rng_() % 100000) * 4 - 200000};
    return values[rng_() % 6];
  }
  uint32_t next() { return static_cast<uint32_t>(rng_()); }

 private:
  uint16_t vector_reg(unsigned width) {
    const unsigned index = rng_() % kNumVectorRegs;
    return vreg(width == 128 ? index & ~3u : width == 64 ? index & ~1u : index);
  }
  uint16_t scalar_reg(unsigned width) {
    const unsigned index = rng_() % kNumScalarRegs;
    return sreg(width == 64 ? index & ~1u : index);
  }
  std::mt19937 rng_;
};

Instruction random_instruction(Opcode op, OperandGenerator& gen) {
  const OpInfo& info = op_info(op);
  Instruction inst;
  inst.opcode = op;
  if (info.format == Format::kBranch) {
    inst.src[0] = gen.pick(inst, info.src0);
    inst.target = gen.branch();
    if (info.imm == ImmKind::kTargetReconverge) inst.reconverge = gen.branch();
    return inst;
  }
  if (info.imm == ImmKind::kOffset) inst.imm = gen.offset();
  if (int32_t lo, hi; info.imm != ImmKind::kOffset && immediate_range(info.imm, &lo, &hi))
    inst.imm = lo + static_cast<int32_t>(gen.next() % static_cast<uint32_t>(hi - lo + 1));
  if (info.imm == ImmKind::kSpecial) {
    do {
      inst.imm = static_cast<int32_t>(gen.next() % static_cast<uint32_t>(SpecialReg::kCount));
    } while (info.dst == OperandKind::kSDstSpecial && special_info(static_cast<SpecialReg>(inst.imm)).per_lane);
  }
  if (info.imm == ImmKind::kImageQuery)
    inst.imm = static_cast<int32_t>(gen.next() % static_cast<uint32_t>(ImageQueryWhat::kCount));
  inst.dst = gen.pick(inst, info.dst);
  inst.src[0] = gen.pick(inst, info.src0);
  inst.src[1] = gen.pick(inst, info.src1);
  inst.src[2] = gen.pick(inst, info.src2);
  if (inst.has_literal()) inst.literal = gen.literal();
  return inst;
}

TEST(IsaRoundTrip, EveryOpcodeWithVariedOperands) {
  OperandGenerator gen(1234);
  std::vector<uint32_t> whole_program;
  for (size_t i = 0; i < kOpcodeCount; ++i) {
    const auto op = static_cast<Opcode>(i);
    for (int variant = 0; variant < 24; ++variant) {
      const Instruction inst = random_instruction(op, gen);
      SCOPED_TRACE(format_instruction(inst));
      std::vector<uint32_t> words;
      std::string error;
      ASSERT_TRUE(encode(inst, &words, &error)) << op_info(op).mnemonic << ": " << error;
      ASSERT_EQ(words.size(), inst.size_words());

      Instruction decoded;
      size_t used = 0;
      ASSERT_TRUE(decode(words.data(), words.size(), &decoded, &used, &error)) << error;
      EXPECT_EQ(used, words.size());
      EXPECT_TRUE(decoded == inst);

      const std::string text = disassemble(words.data(), words.size());
      std::vector<uint32_t> reassembled;
      ASSERT_TRUE(assemble(text, &reassembled, &error)) << error << "\n" << text;
      EXPECT_EQ(reassembled, words) << text;
      whole_program.insert(whole_program.end(), words.begin(), words.end());
    }
  }
  const std::string text = disassemble(whole_program.data(), whole_program.size());
  std::vector<uint32_t> reassembled;
  std::string error;
  ASSERT_TRUE(assemble(text, &reassembled, &error)) << error;
  EXPECT_EQ(reassembled, whole_program);
}

// Fragment-program immediates are range-checked by validate() and the assembler (docs/isa.md §8c).
TEST(IsaRoundTrip, FragmentImmediatesOutsideTheirRangeAreRefused) {
  std::vector<uint32_t> words;
  std::string error;
  EXPECT_FALSE(assemble("v_export_f32 v0, 37", &words, &error));
  EXPECT_NE(error.find("[0, 36]"), std::string::npos) << error;
  EXPECT_FALSE(assemble("v_interp_persp_f32 v0, 64", &words, &error));
  EXPECT_FALSE(assemble("v_quad_perm_b32 v0, v1, 256", &words, &error));
  EXPECT_FALSE(assemble("v_interp_flat_f32 v0, -1", &words, &error));
  ASSERT_TRUE(assemble("v_export_f32 0.5, 8\nv_export_f32 v3, 36\nv_quad_perm_b32 v0, v1, 0xe4\nv_interp_linear_f32 v2, 63\nv_kill",
                       &words, &error)) << error;
  Instruction inst;
  inst.opcode = Opcode::v_export_f32;
  inst.src[0] = vreg(0);
  inst.imm = 37;
  EXPECT_NE(validate(inst).find("outside 0 .. 36"), std::string::npos) << validate(inst);
  // A word with the slot field out of range does not decode.
  inst.imm = 8;
  words.clear();
  ASSERT_TRUE(encode(inst, &words, &error)) << error;
  words[1] = (words[1] & ~(0x7ffffu << 13)) | (37u << 13);
  size_t used = 0;
  EXPECT_FALSE(decode(words.data(), words.size(), &inst, &used, &error));
}

TEST(IsaRoundTrip, TableMnemonicsAreUniqueAndFindable) {
  for (size_t i = 0; i < kOpcodeCount; ++i) {
    const auto op = static_cast<Opcode>(i);
    auto found = find_opcode(op_info(op).mnemonic);
    ASSERT_TRUE(found.has_value()) << op_info(op).mnemonic;
    EXPECT_EQ(*found, op) << "duplicate mnemonic " << op_info(op).mnemonic;
  }
}

TEST(IsaRoundTrip, RandomWordsDecodeSafelyAndDisassembleExactly) {
  std::mt19937 rng(99 + ::testing::UnitTest::GetInstance()->random_seed());
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<uint32_t> words(1 + rng() % 16);
    for (auto& w : words) {
      w = static_cast<uint32_t>(rng());
      if (rng() % 2) w &= 0x0003ffffu | (rng() % 2 ? 0u : 0xfff00000u);  // small opcodes decode more often
    }
    Instruction inst;
    size_t used = 0;
    std::string error;
    if (decode(words.data(), words.size(), &inst, &used, &error)) {
      EXPECT_TRUE(validate(inst).empty());
      EXPECT_LE(used, words.size());
    } else {
      EXPECT_FALSE(error.empty());
    }
    const std::string text = disassemble(words.data(), words.size());
    std::vector<uint32_t> reassembled;
    ASSERT_TRUE(assemble(text, &reassembled, &error)) << error << "\n" << text;
    EXPECT_EQ(reassembled, words) << text;
  }
}

TEST(IsaEncoding, DocumentedFieldLayout) {
  Instruction inst;
  inst.opcode = Opcode::v_add_u32;
  inst.dst = vreg(1);
  inst.src[0] = vreg(2);
  inst.src[1] = kLiteralOperand;
  inst.literal = 0x12345678;
  std::vector<uint32_t> words;
  std::string error;
  ASSERT_TRUE(encode(inst, &words, &error)) << error;
  ASSERT_EQ(words.size(), 3u);
  const uint64_t bits = words[0] | (uint64_t{words[1]} << 32);
  EXPECT_EQ(bits & 0x1ff, static_cast<uint64_t>(Opcode::v_add_u32));
  EXPECT_EQ(bits >> 9 & 0x1ff, 1u);
  EXPECT_EQ(bits >> 18 & 0x1ff, 2u);
  EXPECT_EQ(bits >> 27 & 0x1ff, 511u);
  EXPECT_EQ(words[2], 0x12345678u);
}

TEST(IsaEncoding, RejectsMisalignedPairsAndWrongFiles) {
  Instruction inst;
  inst.opcode = Opcode::v_add_u64;
  inst.dst = vreg(3);  // odd: not a pair
  inst.src[0] = vreg(4);
  inst.src[1] = vreg(6);
  EXPECT_FALSE(validate(inst).empty());
  inst.dst = vreg(2);
  EXPECT_TRUE(validate(inst).empty());
  inst.opcode = Opcode::s_add_u32;
  inst.dst = vreg(2);  // scalar op writing a vector register
  inst.src[0] = sreg(0);
  inst.src[1] = sreg(1);
  EXPECT_FALSE(validate(inst).empty());
}

// Image instructions (docs/isa.md section 8b): coordinates and texels are quads v[4n:4n+3]; a
// quad field that is not a multiple of 4 (or names a scalar register or the literal) is illegal,
// in validate(), in the decoder (so the interpreter faults kIllegalInstruction) and the assembler.
TEST(IsaEncoding, ImageQuadsMustBeAlignedVectorQuads) {
  Instruction inst;
  inst.opcode = Opcode::v_image_sample;
  inst.dst = vreg(4);
  inst.src[0] = sreg(2);
  inst.src[1] = vreg(8);
  inst.src[2] = kLiteralOperand;  // a sampler_t literal
  inst.literal = 0x12;
  EXPECT_EQ(validate(inst), "");
  EXPECT_EQ(operand_width(inst, OperandKind::kVDst128), 128u);
  EXPECT_EQ(format_instruction(inst), "v_image_sample v[4:7], s[2:3], v[8:11], 0x12");
  std::vector<uint32_t> good;
  std::string error;
  ASSERT_TRUE(encode(inst, &good, &error)) << error;
  for (uint16_t bad : {vreg(5), vreg(6), vreg(7), vreg(254), sreg(4), kLiteralOperand}) {
    for (int field = 0; field < 2; ++field) {  // the destination, then the coordinate quad
      Instruction wrong = inst;
      (field == 0 ? wrong.dst : wrong.src[1]) = bad;
      EXPECT_NE(validate(wrong).find("is not a vector quad"), std::string::npos) << bad;
      // The same word with the field patched: the decoder refuses it.
      std::vector<uint32_t> words = good;
      uint64_t bits = words[0] | (uint64_t{words[1]} << 32);
      const unsigned shift = field == 0 ? 9 : 27;
      bits = (bits & ~(uint64_t{0x1ff} << shift)) | (uint64_t{bad} << shift);
      words[0] = static_cast<uint32_t>(bits);
      words[1] = static_cast<uint32_t>(bits >> 32);
      Instruction decoded;
      size_t used = 0;
      EXPECT_FALSE(decode(words.data(), words.size(), &decoded, &used, &error)) << bad;
      EXPECT_NE(error.find("vector quad"), std::string::npos) << error;
    }
  }
  Instruction store;
  store.opcode = Opcode::v_image_store;
  store.src[0] = vreg(2);  // per-lane descriptor VAs: a vector pair
  store.src[1] = vreg(0);
  store.src[2] = vreg(252);
  EXPECT_EQ(validate(store), "");
  store.src[2] = vreg(250);
  EXPECT_NE(validate(store), "");
  store.src[2] = vreg(4);
  store.dst = vreg(8);  // v_image_store writes no register
  EXPECT_NE(validate(store), "");

  Instruction query;
  query.opcode = Opcode::v_image_query;
  query.dst = vreg(1);
  query.src[0] = sreg(0);
  query.src[1] = kLiteralOperand;
  query.imm = static_cast<int32_t>(ImageQueryWhat::kMipLevels);
  EXPECT_EQ(validate(query), "");
  EXPECT_EQ(format_instruction(query), "v_image_query v1, s[0:1], 0x0, mip_levels");
  query.imm = static_cast<int32_t>(ImageQueryWhat::kCount);
  EXPECT_NE(validate(query).find("unknown image query"), std::string::npos);
  query.imm = -1;
  EXPECT_NE(validate(query).find("unknown image query"), std::string::npos);
}

TEST(Assembler, ImageInstructions) {
  const char* source =
      "v_image_load v[4:7], s[0:1], v[8:11]\n"
      "v_image_fetch v[252:255], v[2:3], v[0:3], s5\n"
      "v_image_sample v[12:15], s[0:1], v[16:19], 0x14\n"
      "v_image_store s[0:1], v[8:11], v[4:7]\n"
      "v_image_query v20, s[0:1], v21, channel_order\n";
  std::vector<uint32_t> words;
  std::string error;
  ASSERT_TRUE(assemble(source, &words, &error)) << error;
  EXPECT_EQ(words.size(), 2u + 2u + 3u + 2u + 2u);
  Instruction inst;
  size_t used = 0;
  ASSERT_TRUE(decode(words.data() + 4, words.size() - 4, &inst, &used, &error)) << error;
  EXPECT_EQ(inst.opcode, Opcode::v_image_sample);
  EXPECT_EQ(inst.dst, vreg(12));
  EXPECT_EQ(inst.src[1], vreg(16));
  EXPECT_EQ(inst.literal, 0x14u);
  ASSERT_TRUE(decode(words.data() + 9, words.size() - 9, &inst, &used, &error)) << error;
  EXPECT_EQ(inst.imm, static_cast<int32_t>(ImageQueryWhat::kChannelOrder));
  const std::string text = disassemble(words.data(), words.size());
  EXPECT_NE(text.find("v_image_fetch v[252:255], v[2:3], v[0:3], s5"), std::string::npos) << text;
  std::vector<uint32_t> again;
  ASSERT_TRUE(assemble(text, &again, &error)) << error;
  EXPECT_EQ(again, words);
}

TEST(Encoder, LabelsResolveToRelativeOffsets) {
  Encoder enc;
  auto top = enc.new_label();
  auto out = enc.new_label();
  enc.bind(top);
  enc.alu(Opcode::v_add_u32, vreg(0), vreg(0), kLiteralOperand, 0, 1);  // 3 words
  enc.branch(Opcode::v_branch_nz, vreg(0), top, out);                  // at word 3
  enc.bind(out);
  Instruction end;
  end.opcode = Opcode::s_end;
  enc.emit(end);
  std::vector<uint32_t> words;
  std::string error;
  ASSERT_TRUE(enc.finish(&words, &error)) << error;
  Instruction branch;
  size_t used;
  ASSERT_TRUE(decode(words.data() + 3, words.size() - 3, &branch, &used, &error)) << error;
  EXPECT_EQ(branch.target, -12);
  EXPECT_EQ(branch.reconverge, 8);

  Encoder unbound;
  unbound.branch(Opcode::s_jump, 0, unbound.new_label());
  EXPECT_FALSE(unbound.finish(&words, &error));
  EXPECT_NE(error.find("never bound"), std::string::npos) << error;
}

struct AssemblerErrorCase {
  const char* source;
  const char* expected_location;
  const char* expected_text;
};

TEST(Assembler, ErrorsNameLineAndColumn) {
  const AssemblerErrorCase cases[] = {
      {"s_nop\n  s_end\n    v_frob v1, v2\n", "line 3, column 5", "unknown mnemonic"},
      {"v_add_u32 v1, v2, q7\n", "line 1, column 19", "expected a register or a number"},
      {"v_add_u32 v1, v2\n", "line 1, column 1", "takes 3 operands"},
      {"\n\ns_jump nowhere\n", "line 3, column 8", "never defined"},
      {"v_add_u64 v[1:2], v[2:3], v[4:5]\n", "line 1, column 11", "even register"},
      {"v_add_u32 v1, v[2:3], v4\n", "line 1, column 15", "64-bit"},
      {"v_add_u32 v1, 5, 6\n", "line 1, column 18", "one literal"},
      {"x: s_nop\nx: s_end\n", "line 2, column 1", "defined twice"},
      {"global_load_b32 v1, v[2:3], 999999\n", "line 1, column 29", "offset"},
      {"s_special s0, local_id_x\n", "line 1, column 1", "per-lane"},
      {"v_mov_b64 v[0:1], 0x100000000\n", "line 1, column 19", "sign-extended"},
      {"v_image_load v[2:5], s[0:1], v[8:11]\n", "line 1, column 14", "multiple of 4"},
      {"v_image_load v[4:7], s[0:1], v[8:9]\n", "line 1, column 30", "128-bit"},
      {"v_image_load v[4:7], s[0:1], 5\n", "line 1, column 30", "expected a register"},
      {"v_image_store s[0:1], v[8:11], s[4:7]\n", "line 1, column 32", "even register"},
      {"v_image_query v0, s[0:1], 0, colour\n", "line 1, column 30", "unknown image query"},
      {"v_image_query v0, s[0:1], 0\n", "line 1, column 1", "takes 4 operands"},
  };
  for (const auto& c : cases) {
    std::vector<uint32_t> words;
    std::string error;
    EXPECT_FALSE(assemble(c.source, &words, &error)) << c.source;
    EXPECT_NE(error.find(c.expected_location), std::string::npos) << c.source << " -> " << error;
    EXPECT_NE(error.find(c.expected_text), std::string::npos) << c.source << " -> " << error;
  }
}

TEST(Assembler, SyntaxFeatures) {
  const char* source =
      ".kernel demo   ; directives and comments\n"
      "start:  v_mov_b32 v0, 1.5   // float literal\n"
      "        v_mov_b32 v1, -2    # negative integer\n"
      "        v_mov_b64 v[2:3], -1\n"
      "        global_load_b32 v4, v[2:3]\n"
      "        s_jump start\n"
      "        .word 0xdeadbeef, 7\n";
  std::vector<uint32_t> words;
  std::string error;
  ASSERT_TRUE(assemble(source, &words, &error)) << error;
  EXPECT_EQ(words[2], 0x3fc00000u);
  EXPECT_EQ(words[5], 0xfffffffeu);
  EXPECT_EQ(words[words.size() - 2], 0xdeadbeefu);
  EXPECT_EQ(words.back(), 7u);
}

}  // namespace
}  // namespace gsgpu::isa
