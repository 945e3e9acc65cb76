#include "gsgpu/isa/assembler.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>

#include "gsgpu/isa/encoder.h"
#include "gsgpu/isa/isa.h"

namespace gsgpu::isa {
namespace {

// A piece of a source line with the 1-based column where it starts, for error messages.
struct Token {
  std::string_view text;
  size_t column = 0;
};

// Where a label was first referenced, to report it if it is never defined.
struct LabelUse {
  size_t line = 0;
  size_t column = 0;
};

struct AssemblyError {
  size_t column;
  std::string message;
};

bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$'; }

std::string_view strip_comment(std::string_view line) {
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == ';' || line[i] == '#') return line.substr(0, i);
    if (line[i] == '/' && i + 1 < line.size() && line[i + 1] == '/') return line.substr(0, i);
  }
  return line;
}

Token trim(std::string_view text, size_t column) {
  size_t begin = 0;
  while (begin < text.size() && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  size_t end = text.size();
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return Token{text.substr(begin, end - begin), column + begin};
}

std::vector<Token> split_operands(std::string_view text, size_t column) {
  std::vector<Token> out;
  if (trim(text, column).text.empty()) return out;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == ',') {
      out.push_back(trim(text.substr(start, i - start), column + start));
      start = i + 1;
    }
  }
  return out;
}

// Integers: decimal or 0x hex, optionally negative. Returned as the two's-complement 64-bit value.
std::optional<uint64_t> parse_integer(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text.remove_prefix(2);
  }
  if (text.empty()) return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    int digit;
    if (c >= '0' && c <= '9') digit = c - '0';
    else if (base == 16 && c >= 'a' && c <= 'f') digit = c - 'a' + 10;
    else if (base == 16 && c >= 'A' && c <= 'F') digit = c - 'A' + 10;
    else return std::nullopt;
    if (digit >= base) return std::nullopt;
    if (value > (UINT64_MAX - digit) / base) return std::nullopt;
    value = value * base + digit;
  }
  return negative ? ~value + 1 : value;
}

bool looks_like_float(std::string_view text) {
  if (text.size() > 2 && (text.substr(0, 2) == "0x" || text.substr(0, 3) == "-0x")) return false;
  return text.find_first_of(".eE") != std::string_view::npos || text == "inf" || text == "-inf" ||
         text == "nan";
}

std::optional<float> parse_float(std::string_view text) {
  std::string copy(text);
  char* end = nullptr;
  errno = 0;
  float value = std::strtof(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size()) return std::nullopt;
  return value;
}

// Parses "v7", "s3", "v[2:3]", "s[4:5]", "v[4:7]". Returns the operand code and the width written.
std::optional<std::pair<uint16_t, unsigned>> parse_register(std::string_view text, std::string* why) {
  if (text.size() < 2 || (text[0] != 'v' && text[0] != 's')) return std::nullopt;
  const bool vector = text[0] == 'v';
  const unsigned limit = vector ? kNumVectorRegs : kNumScalarRegs;
  auto index_of = [&](std::string_view digits) -> std::optional<unsigned> {
    if (digits.empty() || digits.size() > 4) return std::nullopt;
    unsigned v = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return std::nullopt;
      v = v * 10 + (c - '0');
    }
    return v;
  };
  auto code_of = [&](unsigned index) {
    return vector ? vreg(index) : sreg(index);
  };
  if (text[1] == '[') {
    size_t colon = text.find(':');
    if (colon == std::string_view::npos || text.back() != ']') return std::nullopt;
    auto low = index_of(text.substr(2, colon - 2));
    auto high = index_of(text.substr(colon + 1, text.size() - colon - 2));
    if (!low || !high) return std::nullopt;
    if (vector && *high == *low + 3) {  // a quad v[4n:4n+3]
      if (*low % 4 != 0) {
        *why = "a register quad must start at a multiple of 4, e.g. v[4:7]";
        return std::nullopt;
      }
      if (*high >= limit) {
        *why = "register index out of range";
        return std::nullopt;
      }
      return std::make_pair(code_of(*low), 128u);
    }
    if (*high != *low + 1 || *low % 2 != 0) {
      *why = vector ? "a register pair must be an even register and the next one, e.g. v[2:3] (a quad: v[4n:4n+3])"
                    : "a register pair must be an even register and the next one, e.g. s[2:3]";
      return std::nullopt;
    }
    if (*high >= limit) {
      *why = "register index out of range";
      return std::nullopt;
    }
    return std::make_pair(code_of(*low), 64u);
  }
  auto index = index_of(text.substr(1));
  if (!index) return std::nullopt;
  if (*index >= limit) {
    *why = "register index out of range";
    return std::nullopt;
  }
  return std::make_pair(code_of(*index), 32u);
}

class LineAssembler {
 public:
  LineAssembler(Encoder* encoder, std::map<std::string, Encoder::Label, std::less<>>* labels,
                std::map<std::string, LabelUse, std::less<>>* first_use)
      : encoder_(encoder), labels_(labels), first_use_(first_use) {}

  // Assembles one instruction or directive; throws nothing, returns an error when it fails.
  std::optional<AssemblyError> statement(Token mnemonic, std::string_view rest, size_t rest_column,
                                         size_t line) {
    line_ = line;
    std::vector<Token> operands = split_operands(rest, rest_column);
    if (mnemonic.text == ".kernel") return std::nullopt;
    if (mnemonic.text == ".word") return words(operands, mnemonic);
    auto op = find_opcode(mnemonic.text);
    if (!op) return AssemblyError{mnemonic.column, "unknown mnemonic '" + std::string(mnemonic.text) + "'"};
    return instruction(*op, mnemonic, operands);
  }

 private:
  std::optional<AssemblyError> words(const std::vector<Token>& operands, Token directive) {
    if (operands.empty()) return AssemblyError{directive.column, ".word needs at least one value"};
    for (const Token& t : operands) {
      auto value = parse_integer(t.text);
      if (!value || (*value > UINT32_MAX && static_cast<int64_t>(*value) < INT32_MIN))
        return AssemblyError{t.column, "'" + std::string(t.text) + "' is not a 32-bit value"};
      encoder_->raw_word(static_cast<uint32_t>(*value));
    }
    return std::nullopt;
  }

  std::optional<AssemblyError> instruction(Opcode op, Token mnemonic, const std::vector<Token>& operands) {
    const OpInfo& info = op_info(op);
    inst_ = Instruction{};
    inst_.opcode = op;
    literal_.reset();
    target_label_ = reconverge_label_ = Encoder::Label{};
    // The operand list, in text order: dst, sources, then the immediate or branch targets.
    struct Slot {
      OperandKind kind;
      uint16_t* code;
      const char* name;
    };
    std::vector<Slot> slots;
    if (info.format == Format::kBranch) {
      if (info.src0 != OperandKind::kNone) slots.push_back({info.src0, &inst_.src[0], "condition"});
    } else {
      if (info.dst != OperandKind::kNone) slots.push_back({info.dst, &inst_.dst, "destination"});
      if (info.src0 != OperandKind::kNone) slots.push_back({info.src0, &inst_.src[0], "source 0"});
      if (info.src1 != OperandKind::kNone) slots.push_back({info.src1, &inst_.src[1], "source 1"});
      if (info.src2 != OperandKind::kNone) slots.push_back({info.src2, &inst_.src[2], "source 2"});
    }
    size_t trailing = 0;  // immediates after the register operands
    bool trailing_optional = false;
    switch (info.imm) {
      case ImmKind::kNone: break;
      case ImmKind::kOffset: case ImmKind::kTexelOffset: trailing = 1; trailing_optional = true; break;
      case ImmKind::kSpecial: case ImmKind::kTarget: case ImmKind::kImageQuery: trailing = 1; break;
      case ImmKind::kVarying: case ImmKind::kExportSlot: case ImmKind::kQuadPerm: case ImmKind::kVertexSlot:
        trailing = 1;
        break;
      case ImmKind::kTargetReconverge: trailing = 2; break;
    }
    // A global/constant access's scalar base is optional: present when a register stands there.
    const bool base_optional = !slots.empty() && slots.back().kind == OperandKind::kSBase64;
    const size_t required = slots.size() + trailing - (trailing_optional ? 1 : 0) - (base_optional ? 1 : 0);
    const size_t maximum = slots.size() + trailing;
    if (operands.size() < required || operands.size() > maximum) {
      return AssemblyError{mnemonic.column, std::string(info.mnemonic) + " takes " +
                                                std::to_string(required) +
                                                (required == maximum ? "" : "-" + std::to_string(maximum)) +
                                                " operands, got " + std::to_string(operands.size())};
    }
    // Special destinations need the special's width, so read the immediate first.
    if (info.imm == ImmKind::kSpecial) {
      const Token& t = operands.back();
      auto special = find_special(t.text);
      if (!special) return AssemblyError{t.column, "unknown special register '" + std::string(t.text) + "'"};
      inst_.imm = static_cast<int32_t>(*special);
    }
    size_t next = 0;  // the operand token the next slot reads
    for (size_t i = 0; i < slots.size(); ++i) {
      if (slots[i].kind == OperandKind::kSBase64) {
        // Offsets are numbers; a register name (or a mistyped one) in this place is the base.
        if (next >= operands.size() || operands[next].text.empty() ||
            (operands[next].text[0] != 's' && operands[next].text[0] != 'v'))
          continue;
        if (auto e = base_operand(slots[i].code, operands[next])) return e;
        ++next;
        continue;
      }
      if (next >= operands.size()) return AssemblyError{mnemonic.column, std::string(info.mnemonic) + ": missing operand"};
      if (auto e = operand(slots[i].kind, slots[i].code, operands[next])) return e;
      ++next;
    }
    if (operands.size() - next > trailing)
      return AssemblyError{operands[next + trailing].column, "unexpected operand '" +
                                                               std::string(operands[next + trailing].text) + "'"};
    for (size_t i = next; i < operands.size(); ++i) {
      const Token& t = operands[i];
      if (int32_t lo, hi; immediate_range(info.imm, &lo, &hi)) {
        auto value = parse_integer(t.text);
        const auto signed_value = static_cast<int64_t>(value.value_or(0));
        if (!value || signed_value < lo || signed_value > hi)
          return AssemblyError{t.column, std::string(info.imm == ImmKind::kOffset ? "offset" : "immediate") + " '" +
                                             std::string(t.text) + "' must be an integer in [" + std::to_string(lo) +
                                             ", " + std::to_string(hi) + "]"};
        inst_.imm = static_cast<int32_t>(signed_value);
      } else if (info.imm == ImmKind::kImageQuery) {
        auto what = find_image_query(t.text);
        if (!what)
          return AssemblyError{t.column, "unknown image query '" + std::string(t.text) +
                                             "' (width, height, depth, array_size, channel_order, data_type, mip_levels)"};
        inst_.imm = static_cast<int32_t>(*what);
      } else if (info.imm == ImmKind::kTarget || info.imm == ImmKind::kTargetReconverge) {
        const bool is_target = i == next;
        if (auto e = branch_operand(t, is_target ? &inst_.target : &inst_.reconverge,
                                    is_target ? &target_label_ : &reconverge_label_))
          return e;
      }
    }
    if (literal_) inst_.literal = *literal_;
    std::string reason = validate(inst_);
    if (!reason.empty()) return AssemblyError{mnemonic.column, reason};
    encoder_->emit(inst_, target_label_, reconverge_label_);
    return std::nullopt;
  }

  std::optional<AssemblyError> operand(OperandKind kind, uint16_t* code, const Token& t) {
    if (t.text.empty()) return AssemblyError{t.column, "missing operand"};
    const unsigned width = operand_width(inst_, kind);
    std::string why;
    if (auto reg = parse_register(t.text, &why)) {
      if (reg->second != width)
        return AssemblyError{t.column, "'" + std::string(t.text) + "' is " + std::to_string(reg->second) +
                                           "-bit, this operand is " + std::to_string(width) + "-bit"};
      *code = reg->first;
      return std::nullopt;
    }
    if (!why.empty()) return AssemblyError{t.column, why};
    const bool accepts_literal = kind == OperandKind::kVSrc32 || kind == OperandKind::kVSrc64 ||
                                 kind == OperandKind::kSSrc32 || kind == OperandKind::kSSrc64;
    if (!accepts_literal)
      return AssemblyError{t.column, "expected a register, got '" + std::string(t.text) + "'"};
    uint32_t word;
    if (looks_like_float(t.text)) {
      auto value = parse_float(t.text);
      if (!value) return AssemblyError{t.column, "bad number '" + std::string(t.text) + "'"};
      if (width == 64) return AssemblyError{t.column, "float literals are 32-bit; this operand is 64-bit"};
      std::memcpy(&word, &*value, 4);
    } else {
      auto value = parse_integer(t.text);
      if (!value) return AssemblyError{t.column, "expected a register or a number, got '" + std::string(t.text) + "'"};
      const int64_t as_signed = static_cast<int64_t>(*value);
      if (width == 64) {
        if (as_signed < INT32_MIN || as_signed > INT32_MAX)
          return AssemblyError{t.column, "a 64-bit literal must be a sign-extended 32-bit value; use two moves"};
      } else if (*value > UINT32_MAX && as_signed < INT32_MIN) {
        return AssemblyError{t.column, "'" + std::string(t.text) + "' does not fit in 32 bits"};
      }
      word = static_cast<uint32_t>(*value);
    }
    if (literal_ && *literal_ != word)
      return AssemblyError{t.column, "an instruction carries one literal word; this one differs from the first"};
    literal_ = word;
    *code = kLiteralOperand;
    return std::nullopt;
  }

  // The scalar base of a global/constant access: a 64-bit scalar pair (validate() checks evenness).
  std::optional<AssemblyError> base_operand(uint16_t* code, const Token& t) {
    std::string why;
    auto reg = parse_register(t.text, &why);
    if (!reg || reg->second != 64 || !is_sreg(reg->first))
      return AssemblyError{t.column, "the scalar base must be a scalar pair s[2n:2n+1], got '" + std::string(t.text) + "'" +
                                         (why.empty() ? "" : " (" + why + ")")};
    *code = reg->first;
    return std::nullopt;
  }

  std::optional<AssemblyError> branch_operand(const Token& t, int32_t* offset, Encoder::Label* label) {
    if (t.text.size() > 3 && t.text.substr(0, 2) == "pc" && (t.text[2] == '+' || t.text[2] == '-')) {
      auto value = parse_integer(t.text.substr(3));
      const int64_t bytes = (t.text[2] == '-' ? -1 : 1) * static_cast<int64_t>(value.value_or(0));
      if (!value || *value > INT32_MAX || bytes % 4 != 0 || bytes < kMinBranchBytes || bytes > kMaxBranchBytes)
        return AssemblyError{t.column, "branch offset '" + std::string(t.text) +
                                           "' must be a multiple of 4 within +-16 MiB"};
      *offset = static_cast<int32_t>(bytes);
      return std::nullopt;
    }
    for (char c : t.text)
      if (!is_ident_char(c)) return AssemblyError{t.column, "bad label name '" + std::string(t.text) + "'"};
    *label = label_for(t);
    return std::nullopt;
  }

  Encoder::Label label_for(const Token& use) {
    auto it = labels_->find(use.text);
    if (it != labels_->end()) return it->second;
    Encoder::Label label = encoder_->new_label();
    labels_->emplace(std::string(use.text), label);
    first_use_->emplace(std::string(use.text), LabelUse{line_, use.column});
    return label;
  }

  Encoder* encoder_;
  std::map<std::string, Encoder::Label, std::less<>>* labels_;
  std::map<std::string, LabelUse, std::less<>>* first_use_;
  Instruction inst_;
  std::optional<uint32_t> literal_;
  Encoder::Label target_label_, reconverge_label_;
  size_t line_ = 0;
};

std::string located(size_t line, size_t column, const std::string& message) {
  return "line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + message;
}

}  // namespace

bool assemble(std::string_view source, std::vector<uint32_t>* words, std::string* error) {
  Encoder encoder;
  std::map<std::string, Encoder::Label, std::less<>> labels;
  std::map<std::string, LabelUse, std::less<>> first_use;
  std::map<std::string, bool, std::less<>> defined;
  LineAssembler assembler(&encoder, &labels, &first_use);
  auto fail = [&](size_t line, size_t column, const std::string& message) {
    if (error) *error = located(line, column, message);
    return false;
  };

  size_t line_number = 0;
  size_t pos = 0;
  while (pos <= source.size()) {
    size_t end = source.find('\n', pos);
    if (end == std::string_view::npos) end = source.size();
    std::string_view line = strip_comment(source.substr(pos, end - pos));
    ++line_number;
    pos = end + 1;
    size_t cursor = 0;
    for (;;) {  // labels, then at most one statement
      while (cursor < line.size() && std::isspace(static_cast<unsigned char>(line[cursor]))) ++cursor;
      if (cursor >= line.size()) break;
      size_t word_end = cursor;
      while (word_end < line.size() && is_ident_char(line[word_end])) ++word_end;
      if (word_end == cursor)
        return fail(line_number, cursor + 1, std::string("unexpected character '") + line[cursor] + "'");
      Token word{line.substr(cursor, word_end - cursor), cursor + 1};
      if (word_end < line.size() && line[word_end] == ':') {
        if (defined.count(word.text)) return fail(line_number, word.column, "label '" + std::string(word.text) + "' defined twice");
        defined.emplace(std::string(word.text), true);
        auto it = labels.find(word.text);
        Encoder::Label label;
        if (it == labels.end()) {
          label = encoder.new_label();
          labels.emplace(std::string(word.text), label);
        } else {
          label = it->second;
        }
        encoder.bind(label);
        cursor = word_end + 1;
        continue;
      }
      if (auto e = assembler.statement(word, line.substr(word_end), word_end + 1, line_number))
        return fail(line_number, e->column, e->message);
      break;
    }
    if (end == source.size()) break;
  }
  for (const auto& [name, use] : first_use) {
    if (!defined.count(name))
      return fail(use.line, use.column, "label '" + name + "' is never defined");
  }
  std::string reason;
  if (!encoder.finish(words, &reason)) return fail(line_number, 1, reason);
  return true;
}

}  // namespace gsgpu::isa
