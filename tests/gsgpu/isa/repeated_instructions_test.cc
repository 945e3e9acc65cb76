// Runs of one instruction (code padded with zeros, garbage repeated by a guest) are decoded and
// formatted once by the disassembler and by the shader core's pre-decoder; what they produce must
// be what decoding every instruction on its own gives.
#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "gsgpu/emu/shader/warp.h"
#include "gsgpu/isa/assembler.h"
#include "gsgpu/isa/disassembler.h"
#include "gsgpu/isa/encoder.h"
#include "gsgpu/isa/isa.h"

namespace gsgpu::isa {
namespace {

std::vector<uint32_t> assemble_or_die(const std::string& text) {
  std::vector<uint32_t> words;
  std::string error;
  EXPECT_TRUE(assemble(text, &words, &error)) << error;
  return words;
}

// A program of runs: an instruction with a literal (3 words), a branch (its target differs per
// copy), a two-word instruction, illegal words, zeros, and a copy cut short at the end.
std::vector<uint32_t> program_with_runs() {
  std::vector<uint32_t> words;
  auto repeat = [&](const std::string& text, int times) {
    const std::vector<uint32_t> one = assemble_or_die(text);
    for (int i = 0; i < times; ++i) words.insert(words.end(), one.begin(), one.end());
  };
  repeat("v_add_u32 v1, v2, 0x12345678\n", 4);
  repeat("s_cbranch_z s4, pc+8\n", 3);
  repeat("v_add_u32 v1, v2, v3\n", 5);
  words.insert(words.end(), 3, 0xffffffffu);  // not instructions
  repeat("v_add_u32 v1, v2, v3\n", 2);
  words.insert(words.end(), 40, 0u);  // padding: zeros do not decode either
  const std::vector<uint32_t> literal = assemble_or_die("v_add_u32 v1, v2, 0x12345678\n");
  words.insert(words.end(), literal.begin(), literal.end() - 1);  // truncated: literal word missing
  return words;
}

// What disassemble() prints for one position, decoded there and then.
std::string reference_line(const uint32_t* words, size_t count, size_t pos, size_t* used) {
  Instruction inst;
  char note[64];
  if (!decode(words + pos, count - pos, &inst, used, nullptr)) {
    *used = 1;
    std::snprintf(note, sizeof note, "  .word 0x%08x", words[pos]);
    std::string line = note;
    line.resize(48, ' ');
    std::snprintf(note, sizeof note, " ; %04zx (not an instruction)", pos * 4);
    return line + note + "\n";
  }
  std::string line = "  " + format_instruction(inst);
  if (line.size() < 48) line.resize(48, ' ');
  std::snprintf(note, sizeof note, " ; %04zx", pos * 4);
  line += note;
  if (op_info(inst.opcode).format == Format::kBranch) {
    std::snprintf(note, sizeof note, " -> %04" PRIx64, static_cast<uint64_t>(pos * 4 + static_cast<int64_t>(inst.target)));
    line += note;
  }
  return line + "\n";
}

std::string reference_disassembly(const std::vector<uint32_t>& words) {
  std::string out;
  for (size_t pos = 0, used = 0; pos < words.size(); pos += used) out += reference_line(words.data(), words.size(), pos, &used);
  return out;
}

TEST(RepeatedInstructions, DisassembleAsIfEachWereDecodedAlone) {
  const std::vector<uint32_t> words = program_with_runs();
  const std::string text = disassemble(words.data(), words.size());
  EXPECT_EQ(text, reference_disassembly(words));
  // Each copy of the branch names its own target.
  EXPECT_NE(text.find("; 0030 -> 0038"), std::string::npos) << text;
  EXPECT_NE(text.find("; 0038 -> 0040"), std::string::npos) << text;
}

TEST(RepeatedInstructions, RandomRunsDisassembleAsIfEachWereDecodedAlone) {
  std::mt19937 rng(7 + ::testing::UnitTest::GetInstance()->random_seed());
  for (int trial = 0; trial < 500; ++trial) {
    // A few random words (small opcodes decode more often), each run repeated 1..4 times.
    std::vector<uint32_t> words;
    for (int run = 0; run < 6; ++run) {
      std::vector<uint32_t> piece(1 + rng() % 3);
      for (auto& w : piece) w = static_cast<uint32_t>(rng()) & (rng() % 2 ? 0x0003ffffu : 0xffffffffu);
      for (unsigned copy = 0, n = 1 + rng() % 4; copy < n; ++copy) words.insert(words.end(), piece.begin(), piece.end());
    }
    ASSERT_EQ(disassemble(words.data(), words.size()), reference_disassembly(words));
  }
}

TEST(RepeatedInstructions, PredecodeAsIfEachWereDecodedAlone) {
  const std::vector<uint32_t> words = program_with_runs();
  constexpr uint64_t kCodeVa = 0x10000;
  const shader::Program program = shader::predecode(words.data(), words.size(), kCodeVa, shader::kSpecializedWidth);
  ASSERT_GE(program.code.size(), 2u);
  size_t pos = 0;
  for (size_t i = 0; i + 1 < program.code.size(); ++i) {
    const shader::DecodedInst& di = program.code[i];
    SCOPED_TRACE("instruction " + std::to_string(i));
    EXPECT_EQ(di.pc, kCodeVa + pos * 4);
    EXPECT_EQ(di.next, i + 1);
    Instruction inst;
    size_t used = 1;
    std::string error;
    if (decode(words.data() + pos, words.size() - pos, &inst, &used, &error)) {
      EXPECT_TRUE(di.inst == inst);
      EXPECT_EQ(di.handler, shader::handler_for(inst.opcode, shader::kSpecializedWidth));
      EXPECT_EQ(di.scalar_base, scalar_base(inst));
      EXPECT_TRUE(di.decode_error.empty());
    } else {
      used = 1;
      EXPECT_EQ(di.handler, shader::illegal_instruction_handler());
      EXPECT_EQ(di.decode_error, error + " (word " + std::to_string(pos) + ")");
    }
    pos += used;
  }
  EXPECT_EQ(pos, words.size());
  EXPECT_EQ(program.code.back().handler, shader::end_of_code_handler());
  // Each copy of the branch resolves to its own target, 8 bytes on from itself.
  for (size_t i = 0; i + 1 < program.code.size(); ++i) {
    const shader::DecodedInst& di = program.code[i];
    if (op_info(di.inst.opcode).format != Format::kBranch || !di.decode_error.empty()) continue;
    ASSERT_LT(di.target, program.code.size());
    EXPECT_EQ(program.code[di.target].pc, di.pc + 8);
  }
}

}  // namespace
}  // namespace gsgpu::isa
