#pragma once
// V_MAX / V_MIN on the raw bits of an IEEE binary format (f32, f16), as the CDNA4
// ISA guide's pseudocode defines them: in IEEE mode (the kernel descriptor's
// IEEE_MODE bit) a signalling NaN source is returned quieted, otherwise a NaN
// gives the other operand; -0 < +0. The emulator's v_max/min(3) and the CPU
// reference's epilogue share it.
#include <cstdint>

namespace cdna4::gfx950 {

struct F32Bits {
  static constexpr uint32_t kSign = 0x80000000u, kQuiet = 0x400000u, kExponent = 0x7f800000u;
};
struct F16Bits {
  static constexpr uint32_t kSign = 0x8000u, kQuiet = 0x200u, kExponent = 0x7c00u;
};

template <class F> constexpr bool is_nan_bits(uint32_t b) {
  return (b & F::kExponent) == F::kExponent && (b & ~(F::kSign | F::kExponent)) != 0;
}
template <class F> constexpr bool is_signalling_bits(uint32_t b) { return is_nan_bits<F>(b) && !(b & F::kQuiet); }

// Non-NaN values in order as integers (sign-magnitude to two's complement, -0 below +0).
template <class F> constexpr int64_t order_key(uint32_t b) {
  const int64_t magnitude = b & ~F::kSign;
  return (b & F::kSign) ? -magnitude - 1 : magnitude;
}

template <class F, bool kMax> constexpr uint32_t min_max_bits(uint32_t a, uint32_t b, bool ieee) {
  if (ieee && is_signalling_bits<F>(a)) return a | F::kQuiet;
  if (ieee && is_signalling_bits<F>(b)) return b | F::kQuiet;
  if (is_nan_bits<F>(a)) return b;
  if (is_nan_bits<F>(b)) return a;
  const int64_t x = order_key<F>(a), y = order_key<F>(b);
  return (kMax ? x >= y : x < y) ? a : b;
}

}  // namespace cdna4::gfx950
