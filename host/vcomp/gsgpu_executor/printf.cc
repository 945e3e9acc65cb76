// printf records -> text. The buffer is written by guest code, so every byte of it is hostile: each
// record is bounds-checked against the buffer and the kernel's printf table before it is read, and
// the host's snprintf only ever sees one conversion at a time, rebuilt here from validated pieces
// (flags, width, precision, a conversion letter that matches the recorded argument) — never the
// guest's format text.
#include "host/vcomp/gsgpu_executor/printf.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "common/log.h"
#include "gsgpu/compiler/arg_buffer.h"

namespace gsvirt::vcomp::gsgpu_exec {
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

// One element of an argument (slot at `at`, already bounds-checked) through conversion `c`.
void format_element(const Conversion& c, const PrintfArg& a, std::span<const uint8_t> rec, size_t at, std::string* out) {
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
    append_formatted(out, host_spec(c, "", c.letter), v);
    return;
  }
  // Integers: the element's own width, then the conversion's length modifier (C's conversion of
  // the promoted value to the modifier's type).
  const unsigned element_bits = a.element_bytes * 8u;
  int64_t s = element_bits >= 64 ? int64_t(raw) : int64_t(raw << (64 - element_bits)) >> (64 - element_bits);
  uint64_t u = element_bits >= 64 ? raw : raw & ((uint64_t{1} << element_bits) - 1);
  unsigned bits = c.length == "hh" ? 8 : c.length == "h" ? 16 : c.length == "l" ? 64 : 32;
  if (c.length.empty() && c.vector > 1) bits = std::min(element_bits, 32u);
  if (bits < 64) {
    s = int64_t(uint64_t(s) << (64 - bits)) >> (64 - bits);
    u &= (uint64_t{1} << bits) - 1;
  }
  if (c.letter == 'c') {
    append_formatted(out, host_spec(c, "", 'c'), int(static_cast<unsigned char>(u)));
  } else if (c.letter == 'd' || c.letter == 'i') {
    append_formatted(out, host_spec(c, "ll", c.letter), static_cast<long long>(s));
  } else {
    append_formatted(out, host_spec(c, "ll", c.letter), static_cast<unsigned long long>(u));
  }
}

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

// One record (bounds already checked against the table's record size).
bool format_record(const CompiledKernel& k, const PrintfFormat& f, std::span<const uint8_t> rec, std::string* out,
                   std::string* problem) {
  const std::string& fmt = f.format;
  size_t arg = 0, at = kRecordHeader;
  for (size_t i = 0; i < fmt.size();) {
    if (fmt[i] != '%') {
      const size_t next = fmt.find('%', i);
      const size_t stop = next == std::string::npos ? fmt.size() : next;
      out->append(fmt, i, stop - i);
      i = stop;
      continue;
    }
    if (i + 1 < fmt.size() && fmt[i + 1] == '%') {
      *out += '%';
      i += 2;
      continue;
    }
    Conversion c;
    size_t end = 0;
    if (!parse_conversion(fmt, i, &c, &end)) {
      note(problem, "format \"" + fmt.substr(0, 60) + "\": an invalid conversion at offset " + std::to_string(i));
      *out += '%';
      ++i;
      continue;
    }
    if (arg >= f.args.size()) {
      note(problem, "format \"" + fmt.substr(0, 60) + "\": more conversions than arguments");
      out->append(fmt, i, end - i);
      i = end;
      continue;
    }
    const PrintfArg& a = f.args[arg++];
    const size_t slot = a.element_bytes > 4 ? 8 : 4;
    if (at + a.record_bytes() > rec.size()) return false;  // cannot happen: the table's sizes add up
    if (!matches(c, a)) {
      note(problem, "format \"" + fmt.substr(0, 60) + "\": conversion '" + fmt.substr(i, end - i) +
                        "' does not match argument " + std::to_string(arg));
      out->append(fmt, i, end - i);
    } else if (a.kind == PrintfArg::Kind::kString) {
      const uint32_t index = read32(rec, at);
      if (index >= k.printf_strings.size()) {
        note(problem, "string index " + std::to_string(index) + " out of range");
        return false;
      }
      append_formatted(out, host_spec(c, "", 's'), k.printf_strings[index].c_str());
    } else if (c.letter == 'p') {
      uint64_t raw = read32(rec, at) | uint64_t(read32(rec, at + 4)) << 32;
      append_formatted(out, host_spec(c, "", 'p'), reinterpret_cast<void*>(uintptr_t(raw)));
    } else {
      for (int e = 0; e < a.vector_size; ++e) {
        if (e) *out += ',';
        format_element(c, a, rec, at + size_t(e) * slot, out);
      }
    }
    at += a.record_bytes();
    i = end;
  }
  if (arg < f.args.size()) note(problem, "format \"" + fmt.substr(0, 60) + "\": more arguments than conversions");
  return true;
}

}  // namespace

size_t format_printf_records(const CompiledKernel& kernel, std::span<const uint8_t> records, std::string* out,
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
    if (id >= kernel.printf_formats.size()) {
      note(problem, where + ": unknown format id " + std::to_string(id));
      break;
    }
    const PrintfFormat& f = kernel.printf_formats[id];
    if (size != f.record_bytes || size < kRecordHeader || size > records.size() - at) {
      note(problem, where + ": size " + std::to_string(size) + " (format " + std::to_string(id) + " takes " +
                        std::to_string(f.record_bytes) + ", " + std::to_string(records.size() - at) + " bytes left)");
      break;
    }
    if (!format_record(kernel, f, records.subspan(at, size), out, problem)) {
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
  d->buffer = rt->allocate(bytes, gsgpu::kPermRead | gsgpu::kPermWrite, &why);
  if (!d->buffer) {
    log_error("gsgpu executor: cannot place the printf buffer of kernel %s: %s", kernel.name.c_str(), why.c_str());
    return CL_OUT_OF_RESOURCES;
  }
  const std::vector<uint8_t> zero(bytes, 0);
  d->args = args;
  if (!rt->write(d->buffer->va, zero.data(), zero.size()) ||
      !gsgpu::compiler::set_printf_buffer(kernel, d->buffer->va, kPrintfBufferSize, d->args)) {
    rt->free(*d->buffer);
    d->buffer.reset();
    return CL_OUT_OF_RESOURCES;
  }
  return CL_SUCCESS;
}

void printf_end(Runtime* rt, const CompiledKernel& kernel, PrintfDispatch* d) {
  if (!d->buffer) return;
  // The cursor first, then only the bytes the records took (not the whole buffer every dispatch).
  uint64_t cursor = 0;
  std::vector<uint8_t> records;
  bool ok = rt->read(d->buffer->va, &cursor, sizeof cursor);
  if (ok) {
    records.resize(size_t(std::min<uint64_t>(cursor, kPrintfBufferSize)));
    ok = rt->read(d->buffer->va + gsgpu::compiler::kPrintfHeaderBytes, records.data(), records.size());
  }
  rt->free(*d->buffer);
  d->buffer.reset();
  if (!ok) {
    log_error("gsgpu executor: cannot read the printf buffer of kernel %s", kernel.name.c_str());
    return;
  }
  std::string text, problem;
  format_printf_records(kernel, records, &text, &problem);
  if (!problem.empty())
    log_error("gsgpu executor: kernel %s: printf buffer: %s", kernel.name.c_str(), problem.c_str());
  if (cursor > kPrintfBufferSize)
    log_debug(kDebugGsgpu, "gsgpu executor: kernel %s: printf buffer full (%llu bytes asked)", kernel.name.c_str(),
              static_cast<unsigned long long>(cursor));
  FILE* out = g_output.load();
  if (!out) out = stdout;
  if (!text.empty()) std::fwrite(text.data(), 1, text.size(), out);
  std::fflush(out);
}

}  // namespace gsvirt::vcomp::gsgpu_exec
