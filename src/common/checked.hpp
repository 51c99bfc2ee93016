#pragma once
// Overflow-checked integer arithmetic for sizes: shapes, strides, byte counts.
// Shared by codegen, runtime and tools; every size computed from user input goes
// through here, so a product that does not fit is an error, never a wrap.
#include <cstdint>
#include <optional>

namespace cdna4::checked {

// nullopt when the exact result does not fit in T.
template <typename T>
constexpr std::optional<T> mul(T a, T b) {
  T out{};
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

template <typename T>
constexpr std::optional<T> add(T a, T b) {
  T out{};
  if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
  return out;
}

template <typename T, typename... Rest>
constexpr std::optional<T> mul(T a, T b, T c, Rest... rest) {
  const std::optional<T> ab = mul(a, b);
  if (!ab) return std::nullopt;
  return mul(*ab, c, rest...);
}

// ceil(a / b) for a >= 0, b > 0, without forming a + b - 1.
template <typename T>
constexpr T ceil_div(T a, T b) {
  return a / b + (a % b != 0);
}

// a rounded up to a multiple of b (b > 0); nullopt when that does not fit.
template <typename T>
constexpr std::optional<T> round_up(T a, T b) {
  return mul(ceil_div(a, b), b);
}

}  // namespace cdna4::checked
