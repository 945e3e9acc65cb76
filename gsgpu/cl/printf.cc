// printf records -> text. The buffer is written by guest code, so every byte of it is hostile: each
// record is bounds-checked against the buffer and the kernel's printf table before it is read, and
// the host's snprintf only ever sees one conversion at a time, rebuilt here from validated pieces
// (flags, width, precision, a conversion letter that matches the recorded argument) — never the
// guest's format text. The format texts are the kernel's, fixed when it is compiled: they are
// parsed into those pieces once per kernel (PrintfFormatTable), not once per record.
#include "gsgpu/cl/printf.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <optional>
#include <string_view>

#include "common/log.h"
#include "gsgpu/compiler/arg_buffer.h"

namespace gsgpu::cl {
namespace {

using gsgpu::compiler::CompiledKernel;
using gsgpu::compiler::PrintfArg;
using gsgpu::compiler::PrintfFormat;

constexpr int kMaxWidth = 1024;      // field width and precision: bounds the text one conversion makes
constexpr size_t kRecordHeader = 8;  // uint32 format id, uint32 record size

std::atomic<FILE*> g_output{nullptr};

uint32_t read32(std::span<const uint8_t> b, size_t at) {
  uint32_t v;
  std::memcpy(&v, b.data() + at, 4);
  return v;
}

// One conversion of a format, parsed: %[flags][width][.precision][vN][length]letter.
struct Conversion {
  std::string flags;
  int width = -1;
  int precision = -1;
  int vector = 1;
  std::string length;  // "", hh, h, hl, l
  char letter = 0;
};

// Parses at fmt[i] == '%'; on success sets *end past the conversion.
bool parse_conversion(const std::string& fmt, size_t i, Conversion* c, size_t* end) {
  size_t p = i + 1;
  while (p < fmt.size() && std::strchr("-+ #0", fmt[p]) && fmt[p] != '\0') c->flags += fmt[p++];
  if (c->flags.size() > 5) return false;
  auto number = [&](int* out) {
    if (p >= fmt.size() || fmt[p] < '0' || fmt[p] > '9') return false;
    int v = 0;
    while (p < fmt.size() && fmt[p] >= '0' && fmt[p] <= '9') {
      v = v * 10 + (fmt[p++] - '0');
      if (v > kMaxWidth) return false;
    }
    *out = v;
    return true;
  };
  if (p < fmt.size() && fmt[p] >= '1' && fmt[p] <= '9' && !number(&c->width)) return false;
  if (p < fmt.size() && fmt[p] == '.') {
    ++p;
    c->precision = 0;
    if (p < fmt.size() && fmt[p] >= '0' && fmt[p] <= '9' && !number(&c->precision)) return false;
  }
  if (p < fmt.size() && fmt[p] == 'v') {
    ++p;
    if (!number(&c->vector) || (c->vector != 2 && c->vector != 3 && c->vector != 4 && c->vector != 8 && c->vector != 16))
      return false;
  }
  if (fmt.compare(p, 2, "hh") == 0 || fmt.compare(p, 2, "hl") == 0) {
    c->length = fmt.substr(p, 2);
    p += 2;
  } else if (p < fmt.size() && (fmt[p] == 'h' || fmt[p] == 'l')) {
    c->length = fmt.substr(p, 1);
    ++p;
  }
  if (c->length == "hl" && c->vector == 1) return false;  // hl is for vectors only
  if (p >= fmt.size() || !std::strchr("diouxXfFeEgGaAcsp", fmt[p]) || fmt[p] == '\0') return false;
  c->letter = fmt[p];
  *end = p + 1;
  return true;
}

// The conversion as the host's snprintf gets it: only validated flags, numbers and letters.
std::string host_spec(const Conversion& c, const char* length, char letter) {
  std::string s = "%" + c.flags;
  if (c.width >= 0) s += std::to_string(c.width);
  if (c.precision >= 0) s += "." + std::to_string(c.precision);
  return s + length + letter;
}

template <typename T>
void append_formatted(std::string* out, const std::string& spec, T value) {
  char small[256];
  const int n = std::snprintf(small, sizeof small, spec.c_str(), value);
  if (n < 0) return;
  if (size_t(n) < sizeof small) {
    out->append(small, size_t(n));
    return;
  }
  std::string big(size_t(n) + 1, '\0');
  std::snprintf(big.data(), big.size(), spec.c_str(), value);
  out->append(big.data(), size_t(n));
}

bool is_int_letter(char l) { return std::strchr("diouxXc", l) != nullptr; }
bool is_float_letter(char l) { return std::strchr("fFeEgGaA", l) != nullptr; }

bool matches(const Conversion& c, const PrintfArg& a) {
  if (c.vector != a.vector_size) return false;
  switch (a.kind) {
    case PrintfArg::Kind::kInt:
      if (c.letter == 'p') return a.element_bytes == 8 && c.vector == 1;
      if (c.letter == 'c') return c.vector == 1;
      return is_int_letter(c.letter);
    case PrintfArg::Kind::kFloat: return is_float_letter(c.letter);
    case PrintfArg::Kind::kString: return c.letter == 's';
  }
  return false;
}

void note(std::string* problem, const std::string& what) {
  if (problem->empty()) *problem = what;
}

// One conversion of a format, parsed and checked against its argument once per kernel: what
// formatting a record needs besides the record's bytes.
struct ParsedConversion {
  PrintfArg arg;
  uint64_t at = 0;           // the argument's offset in the record (the record's header included)
  std::string spec;          // what the host's snprintf gets, rebuilt from validated pieces
  char letter = 0;
  unsigned value_bits = 32;  // integers: the width the length modifier converts the value to
};

// A format as pieces: literal text (with a stray '%', an invalid or a mismatched conversion copied
// as text) and conversions. `problem` is what the parse found wrong at that point, noted when a
// record of this format is printed (once per dispatch: the first problem).
struct FormatPiece {
  std::string text;
  std::optional<ParsedConversion> conversion;
  std::string problem;
  // > 0 for a piece that consumes an argument (printed or not): the bytes the record must hold
  // for it, checked before the piece is printed.
  uint64_t record_end = 0;
};

struct ParsedFormat {
  std::vector<FormatPiece> pieces;
};

}  // namespace

struct PrintfFormatTable {
  std::vector<ParsedFormat> formats;          // by format id
  std::vector<uint32_t> record_bytes;         // by format id: the size a record must have
  std::vector<std::string> strings;           // %s literals
};

namespace {

// One element of an argument (slot at `at`, already bounds-checked) through a parsed conversion.
void format_element(const ParsedConversion& pc, std::span<const uint8_t> rec, size_t at, std::string* out) {
  const PrintfArg& a = pc.arg;
  uint64_t raw = read32(rec, at);
  if (a.element_bytes == 8) raw |= uint64_t(read32(rec, at + 4)) << 32;
  if (a.kind == PrintfArg::Kind::kFloat) {
    double v;
    if (a.element_bytes == 8) {
      std::memcpy(&v, &raw, 8);
    } else {
      float f;
      const uint32_t bits = uint32_t(raw);
      std::memcpy(&f, &bits, 4);
      v = f;
    }
    append_formatted(out, pc.spec, v);
    return;
  }
  // Integers: the element's own width, then the conversion's length modifier (C's conversion of
  // the promoted value to the modifier's type).
  const unsigned element_bits = a.element_bytes * 8u;
  int64_t s = element_bits >= 64 ? int64_t(raw) : int64_t(raw << (64 - element_bits)) >> (64 - element_bits);
  uint64_t u = element_bits >= 64 ? raw : raw & ((uint64_t{1} << element_bits) - 1);
  const unsigned bits = pc.value_bits;
  if (bits < 64) {
    s = int64_t(uint64_t(s) << (64 - bits)) >> (64 - bits);
    u &= (uint64_t{1} << bits) - 1;
  }
  if (pc.letter == 'c') {
    append_formatted(out, pc.spec, int(static_cast<unsigned char>(u)));
  } else if (pc.letter == 'd' || pc.letter == 'i') {
    append_formatted(out, pc.spec, static_cast<long long>(s));
  } else {
    append_formatted(out, pc.spec, static_cast<unsigned long long>(u));
  }
}

// The integer width a conversion prints: the length modifier's (C's conversion of the promoted
// value), or for a vector without one the element's own width (at most 32 bits).
unsigned value_bits(const Conversion& c, const PrintfArg& a) {
  unsigned bits = c.length == "hh" ? 8 : c.length == "h" ? 16 : c.length == "l" ? 64 : 32;
  if (c.length.empty() && c.vector > 1) bits = std::min(a.element_bytes * 8u, 32u);
  return bits;
}

ParsedConversion parse_matched(const Conversion& c, const PrintfArg& a, uint64_t at) {
  ParsedConversion pc;
  pc.arg = a;
  pc.at = at;
  pc.letter = c.letter;
  pc.value_bits = value_bits(c, a);
  if (a.kind == PrintfArg::Kind::kString)
    pc.spec = host_spec(c, "", 's');
  else if (c.letter == 'p')
    pc.spec = host_spec(c, "", 'p');
  else if (a.kind == PrintfArg::Kind::kFloat || c.letter == 'c')
    pc.spec = host_spec(c, "", c.letter);
  else
    pc.spec = host_spec(c, "ll", c.letter);
  return pc;
}

void add_text(ParsedFormat* pf, std::string_view text, std::string problem = {}, uint64_t record_end = 0) {
  // Consecutive text is one piece (only the first problem of a record is ever reported), unless
  // this text stands for an argument whose bounds are checked before it is printed.
  if (record_end == 0 && !pf->pieces.empty() && !pf->pieces.back().conversion) {
    FormatPiece& last = pf->pieces.back();
    last.text += text;
    if (last.problem.empty()) last.problem = std::move(problem);
    return;
  }
  pf->pieces.push_back(FormatPiece{std::string(text), std::nullopt, std::move(problem), record_end});
}

ParsedFormat parse_format(const PrintfFormat& f) {
  ParsedFormat pf;
  const std::string& fmt = f.format;
  size_t arg = 0;
  uint64_t at = kRecordHeader;
  for (size_t i = 0; i < fmt.size();) {
    if (fmt[i] != '%') {
      const size_t next = fmt.find('%', i);
      const size_t stop = next == std::string::npos ? fmt.size() : next;
      add_text(&pf, std::string_view(fmt).substr(i, stop - i));
      i = stop;
      continue;
    }
    if (i + 1 < fmt.size() && fmt[i + 1] == '%') {
      add_text(&pf, "%");
      i += 2;
      continue;
    }
    Conversion c;
    size_t end = 0;
    if (!parse_conversion(fmt, i, &c, &end)) {
      add_text(&pf, "%", "format \"" + fmt.substr(0, 60) + "\": an invalid conversion at offset " + std::to_string(i));
      ++i;
      continue;
    }
    if (arg >= f.args.size()) {
      add_text(&pf, std::string_view(fmt).substr(i, end - i),
               "format \"" + fmt.substr(0, 60) + "\": more conversions than arguments");
      i = end;
      continue;
    }
    const PrintfArg& a = f.args[arg++];
    const uint64_t record_end = at + a.record_bytes();
    if (!matches(c, a)) {
      add_text(&pf, std::string_view(fmt).substr(i, end - i),
               "format \"" + fmt.substr(0, 60) + "\": conversion '" + fmt.substr(i, end - i) +
                   "' does not match argument " + std::to_string(arg),
               record_end);
    } else {
      pf.pieces.push_back(FormatPiece{{}, parse_matched(c, a, at), {}, record_end});
    }
    at = record_end;
    i = end;
  }
  if (arg < f.args.size())
    pf.pieces.push_back(
        FormatPiece{{}, std::nullopt, "format \"" + fmt.substr(0, 60) + "\": more arguments than conversions"});
  return pf;
}

// One record (its size already checked against the table); every argument's slots are checked
// against the record again before they are read.
bool format_record(const PrintfFormatTable& table, const ParsedFormat& pf, std::span<const uint8_t> rec,
                   std::string* out, std::string* problem) {
  for (const FormatPiece& piece : pf.pieces) {
    if (piece.record_end > rec.size()) return false;  // cannot happen: the table's sizes add up
    if (!piece.problem.empty()) note(problem, piece.problem);
    if (!piece.conversion) {
      *out += piece.text;
      continue;
    }
    const ParsedConversion& pc = *piece.conversion;
    const PrintfArg& a = pc.arg;
    if (a.kind == PrintfArg::Kind::kString) {
      const uint32_t index = read32(rec, pc.at);
      if (index >= table.strings.size()) {
        note(problem, "string index " + std::to_string(index) + " out of range");
        return false;
      }
      append_formatted(out, pc.spec, table.strings[index].c_str());
    } else if (pc.letter == 'p') {
      const uint64_t raw = read32(rec, pc.at) | uint64_t(read32(rec, pc.at + 4)) << 32;
      append_formatted(out, pc.spec, reinterpret_cast<void*>(uintptr_t(raw)));
    } else {
      const size_t slot = a.element_bytes > 4 ? 8 : 4;
      for (int e = 0; e < a.vector_size; ++e) {
        if (e) *out += ',';
        format_element(pc, rec, pc.at + size_t(e) * slot, out);
      }
    }
  }
  return true;
}

}  // namespace

std::shared_ptr<const PrintfFormatTable> parse_printf_formats(const CompiledKernel& kernel) {
  auto table = std::make_shared<PrintfFormatTable>();
  for (const PrintfFormat& f : kernel.printf_formats) {
    table->formats.push_back(parse_format(f));
    table->record_bytes.push_back(f.record_bytes);
  }
  table->strings = kernel.printf_strings;
  return table;
}

size_t format_printf_records(const PrintfFormatTable& table, std::span<const uint8_t> records, std::string* out,
                             std::string* problem) {
  // `records` starts after the buffer's header (the cursor); each record starts with its own.
  size_t at = 0, count = 0;
  while (at < records.size()) {
    const std::string where = "record at offset " + std::to_string(at);
    if (records.size() - at < kRecordHeader) {
      note(problem, where + ": truncated header");
      break;
    }
    const uint32_t id = read32(records, at), size = read32(records, at + 4);
    // A full buffer ends in space no record took (the reservation that did not fit): still zero.
    if (size == 0 && std::all_of(records.begin() + at, records.end(), [](uint8_t b) { return b == 0; })) break;
    if (id >= table.formats.size()) {
      note(problem, where + ": unknown format id " + std::to_string(id));
      break;
    }
    const uint32_t expected = table.record_bytes[id];
    if (size != expected || size < kRecordHeader || size > records.size() - at) {
      note(problem, where + ": size " + std::to_string(size) + " (format " + std::to_string(id) + " takes " +
                        std::to_string(expected) + ", " + std::to_string(records.size() - at) + " bytes left)");
      break;
    }
    if (!format_record(table, table.formats[id], records.subspan(at, size), out, problem)) {
      note(problem, where + ": inconsistent");
      break;
    }
    ++count;
    at += size;
  }
  return count;
}

void set_printf_output(FILE* out) { g_output.store(out); }

cl_int printf_begin(Runtime* rt, const CompiledKernel& kernel, const std::vector<uint8_t>& args, PrintfDispatch* d) {
  if (!kernel.uses_printf()) return CL_SUCCESS;
  std::string why;
  const uint64_t bytes = uint64_t{kPrintfBufferSize} + gsgpu::compiler::kPrintfHeaderBytes;
  // Buffer objects come zero-filled: the cursor starts at 0.
  d->buffer = rt->allocate(bytes, drv::kVaRead | drv::kVaWrite, &why);
  if (!d->buffer) {
    log_error("gsgpu runtime: cannot place the printf buffer of kernel %s: %s", kernel.name.c_str(), why.c_str());
    return CL_OUT_OF_RESOURCES;
  }
  d->args = args;
  if (!gsgpu::compiler::set_printf_buffer(kernel, d->buffer->va, kPrintfBufferSize, d->args)) {
    rt->free(*d->buffer);
    d->buffer.reset();
    return CL_OUT_OF_RESOURCES;
  }
  return CL_SUCCESS;
}

void printf_end(Runtime* rt, const KernelImage& image, PrintfDispatch* d) {
  if (!d->buffer) return;
  const CompiledKernel& kernel = image.compiled;
  // The cursor first, then only the bytes the records took (not the whole buffer every dispatch).
  // Copied out of the mapping before parsing, so the records cannot change under the parser.
  uint64_t cursor = 0;
  std::memcpy(&cursor, d->buffer->cpu, sizeof cursor);
  const uint8_t* first = d->buffer->cpu + gsgpu::compiler::kPrintfHeaderBytes;
  std::vector<uint8_t> records(first, first + std::min<uint64_t>(cursor, kPrintfBufferSize));
  rt->free(*d->buffer);
  d->buffer.reset();
  std::string text, problem;
  if (image.printf_table)
    format_printf_records(*image.printf_table, records, &text, &problem);
  else
    problem = "no parsed printf formats";  // cannot happen: every printf kernel gets its table when built
  if (!problem.empty())
    log_error("gsgpu runtime: kernel %s: printf buffer: %s", kernel.name.c_str(), problem.c_str());
  if (cursor > kPrintfBufferSize)
    log_debug(kDebugGsgpu, "gsgpu runtime: kernel %s: printf buffer full (%llu bytes asked)", kernel.name.c_str(),
              static_cast<unsigned long long>(cursor));
  // The context's printf quota: past it the text is dropped (logged once per context).
  if (!text.empty() && !rt->printf_quota->charge(text.size(), "kernel printf output", true)) text.clear();
  if (rt->printf_sink) {
    if (!text.empty()) rt->printf_sink(text);
    return;
  }
  FILE* out = g_output.load();
  if (!out) out = stdout;
  if (!text.empty()) std::fwrite(text.data(), 1, text.size(), out);
  std::fflush(out);
}

}  // namespace gsgpu::cl
