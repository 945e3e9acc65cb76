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

// Rounds up to a multiple of 4 (wire alignment); nullopt on overflow.
[[nodiscard]] constexpr std::optional<uint64_t> align4(uint64_t v) {
  auto r = checked_add<uint64_t>(v, 3);
  if (!r) return std::nullopt;
  return *r & ~uint64_t{3};
}

}  // namespace gsvirt
