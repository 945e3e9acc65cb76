// Bounds-checked wire reader and writer shared by every generated encoder and decoder.
//
// The wire format (docs/protocol.md): little-endian, every field 4-byte aligned, u64 fields at
// 4-byte alignment (read with memcpy). A reader that runs past its end, or is told a field is bad,
// enters a sticky fatal state: later reads return zero and empty spans, and the first error message
// (naming the field) is kept for the log.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/checked_math.h"

namespace gsvirt {

class WireReader {
 public:
  WireReader() = default;
  WireReader(const void* data, size_t size)
      : cur_(static_cast<const uint8_t*>(data)), end_(cur_ + size) {}

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  size_t remaining() const { return size_t(end_ - cur_); }
  const uint8_t* position() const { return cur_; }

  uint32_t u32(const char* field) {
    uint32_t v = 0;
    copy_out(&v, sizeof v, field);
    return v;
  }
  uint64_t u64(const char* field) {
    uint64_t v = 0;
    copy_out(&v, sizeof v, field);
    return v;
  }
  int32_t i32(const char* field) { return int32_t(u32(field)); }
  int64_t i64(const char* field) { return int64_t(u64(field)); }
  float f32(const char* field) {
    uint32_t bits = u32(field);
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
  }

  // Returns a pointer to `size` bytes inside the buffer and advances by the 4-aligned size;
  // nullptr (and fatal) when the bytes are not there. A zero size returns a non-null pointer.
  const uint8_t* bytes(uint64_t size, const char* field) {
    if (!ok()) return nullptr;
    auto padded = align4(size);
    if (!padded || *padded > remaining()) {
      fail(field, "runs past the end of the command");
      return nullptr;
    }
    const uint8_t* p = cur_;
    cur_ += *padded;
    return p;
  }

  // Array of `count` elements of `elem_size` bytes; checks count * elem_size for overflow.
  const uint8_t* array(uint64_t count, uint64_t elem_size, const char* field) {
    auto total = checked_mul(count, elem_size);
    if (!total) {
      fail(field, "count overflows when multiplied by the element size");
      return nullptr;
    }
    return bytes(*total, field);
  }

  void skip(uint64_t size, const char* field) { (void)bytes(size, field); }

  void fail(const char* field, const char* what) {
    if (!ok()) return;
    error_ = std::string(field ? field : "?") + ": " + what;
    cur_ = end_;
  }

 private:
  void copy_out(void* dst, size_t n, const char* field) {
    if (!ok() || n > remaining()) {
      if (ok()) fail(field, "runs past the end of the command");
      std::memset(dst, 0, n);
      return;
    }
    std::memcpy(dst, cur_, n);
    cur_ += n;
  }

  const uint8_t* cur_ = nullptr;
  const uint8_t* end_ = nullptr;
  std::string error_;
};

// Appends 4-byte aligned fields to a growable byte buffer.
class WireWriter {
 public:
  explicit WireWriter(std::vector<uint8_t>& out) : out_(out) {}

  size_t size() const { return out_.size(); }
  void u32(uint32_t v) { append(&v, sizeof v); }
  void u64(uint64_t v) { append(&v, sizeof v); }
  void i32(int32_t v) { u32(uint32_t(v)); }
  void i64(int64_t v) { u64(uint64_t(v)); }
  void f32(float f) { append(&f, sizeof f); }

  // Raw bytes, zero-padded to a multiple of 4.
  void bytes(const void* data, size_t size) {
    size_t at = out_.size();
    size_t padded = (size + 3) & ~size_t{3};
    out_.resize(at + padded);
    if (size) std::memcpy(out_.data() + at, data, size);
    if (padded != size) std::memset(out_.data() + at + size, 0, padded - size);
  }

  // Overwrites a u32 written earlier (command sizes are patched after the arguments).
  void patch_u32(size_t at, uint32_t v) { std::memcpy(out_.data() + at, &v, sizeof v); }

 private:
  void append(const void* p, size_t n) {
    size_t at = out_.size();
    out_.resize(at + n);
    std::memcpy(out_.data() + at, p, n);
  }

  std::vector<uint8_t>& out_;
};

}  // namespace gsvirt
