#include "gsgpu/isa/encoder.h"

namespace gsgpu::isa {

Encoder::Label Encoder::new_label() {
  label_offsets_.push_back(-1);
  return Label{static_cast<uint32_t>(label_offsets_.size() - 1)};
}

void Encoder::bind(Label label) {
  if (!label.valid() || label.id >= label_offsets_.size()) return;
  int64_t& slot = label_offsets_[label.id];
  slot = slot == -1 ? static_cast<int64_t>(size_words_) : -2;
}

void Encoder::emit(const Instruction& inst) {
  Item item;
  item.inst = inst;
  item.offset_words = size_words_;
  size_words_ += inst.size_words();
  items_.push_back(item);
}

void Encoder::emit(const Instruction& inst, Label target, Label reconverge) {
  emit(inst);
  items_.back().target = target;
  items_.back().reconverge = reconverge;
}

void Encoder::branch(Opcode op, uint16_t condition, Label target, Label reconverge) {
  Instruction inst;
  inst.opcode = op;
  inst.src[0] = condition;
  emit(inst);
  items_.back().target = target;
  items_.back().reconverge = reconverge;
}

void Encoder::raw_word(uint32_t word) {
  Item item;
  item.is_raw = true;
  item.raw = word;
  item.offset_words = size_words_;
  size_words_ += 1;
  items_.push_back(item);
}

void Encoder::alu(Opcode op, uint16_t dst, uint16_t a, uint16_t b, uint16_t c, uint32_t literal) {
  Instruction inst;
  inst.opcode = op;
  inst.dst = dst;
  inst.src[0] = a;
  inst.src[1] = b;
  inst.src[2] = c;
  inst.literal = literal;
  emit(inst);
}

bool Encoder::finish(std::vector<uint32_t>* words, std::string* error) const {
  std::vector<uint32_t> out;
  out.reserve(size_words_);
  for (size_t i = 0; i < items_.size(); ++i) {
    const Item& item = items_[i];
    if (item.is_raw) {
      out.push_back(item.raw);
      continue;
    }
    Instruction inst = item.inst;
    auto resolve = [&](Label label, int32_t* field, const char* what) {
      if (!label.valid()) return true;
      if (label.id >= label_offsets_.size() || label_offsets_[label.id] < 0) {
        if (error)
          *error = "instruction " + std::to_string(i) + " (" + op_info(inst.opcode).mnemonic + "): " +
                   what + " label " + std::to_string(label.id) +
                   (label.id < label_offsets_.size() && label_offsets_[label.id] == -2 ? " bound twice"
                                                                                        : " never bound");
        return false;
      }
      *field = static_cast<int32_t>((label_offsets_[label.id] - static_cast<int64_t>(item.offset_words)) * 4);
      return true;
    };
    if (!resolve(item.target, &inst.target, "target") ||
        !resolve(item.reconverge, &inst.reconverge, "reconvergence"))
      return false;
    std::string reason;
    if (!encode(inst, &out, &reason)) {
      if (error) *error = "instruction " + std::to_string(i) + ": " + reason;
      return false;
    }
  }
  *words = std::move(out);
  return true;
}

}  // namespace gsgpu::isa
