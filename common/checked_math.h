// Overflow-safe arithmetic for sizes, offsets and counts that come from a guest.
#pragma once

#include <cstdint>
#include <optional>
#include <type_traits>

namespace gsvirt {

template <typename T>
[[nodiscard]] constexpr std::optional<T> checked_add(T a, T b) {
  static_assert(std::is_unsigned_v<T>);
  T r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

template <typename T>
[[nodiscard]] constexpr std::optional<T> checked_mul(T a, T b) {
  static_assert(std::is_unsigned_v<T>);
  T r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// True when [offset, offset + size) lies inside [0, limit), without overflow.
[[nodiscard]] constexpr bool range_within(uint64_t offset, uint64_t size, uint64_t limit) {
  return offset <= limit && size <= limit - offset;
}

// Two's-complement arithmetic modulo 2^64, as a device computes addresses: p[i] with a huge constant
// i wraps on the device, and folding it at compile time must give the same bits without the
// undefined behaviour of a signed overflow.
[[nodiscard]] constexpr int64_t wrapping_add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
[[nodiscard]] constexpr int64_t wrapping_mul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

// Signed sum, or nullopt when it does not fit in int64_t.
[[nodiscard]] constexpr std::optional<int64_t> checked_add_signed(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// Rounds up to a multiple of 4 (wire alignment); nullopt on overflow.
[[nodiscard]] constexpr std::optional<uint64_t> align4(uint64_t v) {
  auto r = checked_add<uint64_t>(v, 3);
  if (!r) return std::nullopt;
  return *r & ~uint64_t{3};
}

}  // namespace gsvirt
