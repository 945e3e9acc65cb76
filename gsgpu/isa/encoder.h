// Programmatic instruction emission with forward labels: what the assembler and the SPIR-V
// compiler build kernels with.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gsgpu/isa/isa.h"

namespace gsgpu::isa {

class Encoder {
 public:
  struct Label {
    uint32_t id = UINT32_MAX;
    bool valid() const { return id != UINT32_MAX; }
  };

  Label new_label();
  // Binds the label to the current end of the code. Binding twice is an error reported by finish().
  void bind(Label label);

  // Appends an instruction; validation happens in finish() so the caller can emit freely.
  void emit(const Instruction& inst);
  // Appends a branch whose label operands override inst.target / inst.reconverge when valid.
  void emit(const Instruction& inst, Label target, Label reconverge);
  // Appends a branch whose target (and reconvergence point, for v_branch_*) are labels.
  void branch(Opcode op, uint16_t condition, Label target, Label reconverge);
  void branch(Opcode op, uint16_t condition, Label target) { branch(op, condition, target, Label{}); }
  // Appends a raw word (data, or an instruction stream the caller encoded itself).
  void raw_word(uint32_t word);

  // Convenience for ALU forms: dst, up to three sources, and the literal word any
  // kLiteralOperand source refers to.
  void alu(Opcode op, uint16_t dst, uint16_t a, uint16_t b = 0, uint16_t c = 0, uint32_t literal = 0);

  size_t size_bytes() const { return size_words_ * 4; }

  // Resolves labels and encodes everything. On error, *error names the item (its index and
  // mnemonic) and the reason.
  bool finish(std::vector<uint32_t>* words, std::string* error) const;

 private:
  struct Item {
    Instruction inst;
    bool is_raw = false;
    uint32_t raw = 0;
    Label target, reconverge;
    size_t offset_words = 0;
  };
  std::vector<Item> items_;
  std::vector<int64_t> label_offsets_;  // words; -1 = unbound, -2 = bound twice
  size_t size_words_ = 0;
};

}  // namespace gsgpu::isa
