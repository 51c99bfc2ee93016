#pragma once
// Values of the floating-point element types of mfma_table.hpp, rounding into
// them, and the block-scaled multiply-add step of the f8f6f4 MFMA policy
// (docs/emulator.md): shared by the emulator and the CPU reference.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "common/mfma_table.hpp"

namespace cdna4::gfx950 {

constexpr int exponent_bias(const ElementInfo& f) { return (1 << (f.exponent_bits - 1)) - 1; }

// Encodings are ordered by magnitude below the sign bit; the largest finite one.
constexpr uint32_t largest_finite_code(const ElementInfo& f) {
  const uint32_t top = (1u << f.exponent_bits) - 1, mantissa = (1u << f.mantissa_bits) - 1;
  switch (f.specials) {
    case Specials::ieee: return (top - 1) << f.mantissa_bits | mantissa;
    case Specials::nan_all_ones: return top << f.mantissa_bits | (mantissa - 1);
    default: return top << f.mantissa_bits | mantissa;
  }
}

// The value of `bits` (the low bits_of(e) bits) for a floating-point type e.
inline float element_value(Element e, uint32_t bits) {
  const ElementInfo& f = element_info(e);
  const uint32_t top = (1u << f.exponent_bits) - 1, mantissa_mask = (1u << f.mantissa_bits) - 1;
  const uint32_t exponent = (bits >> f.mantissa_bits) & top, mantissa = bits & mantissa_mask;
  const bool negative = (bits >> (f.bits - 1)) & 1;
  float value;
  if (f.specials == Specials::ieee && exponent == top)
    value = mantissa ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  else if (f.specials == Specials::nan_all_ones && exponent == top && mantissa == mantissa_mask)
    value = std::numeric_limits<float>::quiet_NaN();
  else if (exponent == 0)
    value = std::ldexp(float(mantissa), 1 - exponent_bias(f) - f.mantissa_bits);
  else
    value = std::ldexp(float(mantissa | 1u << f.mantissa_bits), int(exponent) - exponent_bias(f) - f.mantissa_bits);
  return negative ? -value : value;
}

// `value` rounded to the nearest encoding of e, ties to even. Beyond the
// largest finite value: infinity where e has one (bf8, f16, bf16), otherwise
// that largest value (saturation, as OCP's SAT conversions). NaN: e's NaN
// (bf8: quiet 0x7e, fp8: 0x7f, with the sign); fp6, bf6 and fp4 have none and
// saturate it like an infinity of its sign.
inline uint32_t encode_element(Element e, float value) {
  const ElementInfo& f = element_info(e);
  const uint32_t sign = std::signbit(value) ? 1u << (f.bits - 1) : 0;
  const uint32_t top = (1u << f.exponent_bits) - 1, mantissa_mask = (1u << f.mantissa_bits) - 1;
  const uint32_t largest = largest_finite_code(f);
  const uint32_t overflow = f.specials == Specials::ieee ? top << f.mantissa_bits : largest;
  if (std::isnan(value)) {
    if (f.specials == Specials::ieee) return sign | top << f.mantissa_bits | 1u << (f.mantissa_bits - 1);
    if (f.specials == Specials::nan_all_ones) return sign | top << f.mantissa_bits | mantissa_mask;
    return sign | largest;
  }
  if (std::isinf(value)) return sign | overflow;
  const double magnitude = std::fabs(double(value));
  const int bias = exponent_bias(f);
  int exponent = 1 - bias;  // of the binade holding `magnitude`, at least the smallest normal one
  if (magnitude != 0) {
    int x;
    std::frexp(magnitude, &x);
    exponent = std::max(x - 1, exponent);
  }
  double steps = std::nearbyint(std::ldexp(magnitude, f.mantissa_bits - exponent));  // ties to even
  const double implicit = std::ldexp(1.0, f.mantissa_bits);
  if (steps == 2 * implicit) {
    steps = implicit;
    ++exponent;
  }
  const uint64_t biased = steps >= implicit ? uint64_t(exponent + bias) : 0;
  const uint64_t code = biased << f.mantissa_bits | (uint64_t(steps) & mantissa_mask);
  return sign | (code > largest ? overflow : uint32_t(code));
}

// The unscaled fp32 -> fp8 / bf8 conversions (v_cvt_pk_fp8_f32, v_cvt_pk_bf8_f32):
// round to nearest even, NaN to e's NaN. A finite value that rounds beyond the
// largest finite one becomes that largest value when `saturate` (the wave's
// FP16_OVFL mode bit) is set, otherwise e's overflow: NaN for fp8, infinity for
// bf8; an infinity stays fp8's NaN / bf8's infinity either way.
inline uint32_t convert_to_f8(Element e, float value, bool saturate) {
  const ElementInfo& f = element_info(e);
  const uint32_t sign = std::signbit(value) ? 1u << (f.bits - 1) : 0;
  const uint32_t nan_or_infinity = (1u << (f.bits - 1)) - (f.specials == Specials::ieee ? 1u << f.mantissa_bits : 1u);
  const uint32_t largest = largest_finite_code(f);
  if (std::isinf(value)) return sign | nan_or_infinity;
  if (std::isnan(value)) return encode_element(e, value);
  // Halfway between the largest finite value and the next code up rounds up when
  // the largest one's mantissa is odd (ties to even).
  const double top = element_value(e, largest), halfway = top + std::ldexp(1.0, int(std::ilogb(top)) - f.mantissa_bits - 1);
  const double magnitude = std::fabs(double(value));
  if (magnitude > halfway || (magnitude == halfway && (largest & 1))) return sign | (saturate ? largest : nan_or_infinity);
  return encode_element(e, value);
}

// acc + x * y * 2^exponent, rounded once (fp32, to nearest even): an fma of the
// exact scaled product. Finite non-zero x and y are split into two normal fp32
// factors whose product is exact; products beyond 2^254 or below 2^-250 round
// like any product that far out (to +-infinity, or to acc / a signed zero), so
// the exponent is clamped there.
inline float fma_scaled(float x, float y, int exponent, float acc) {
  if (exponent == 0 || x == 0 || y == 0 || !std::isfinite(x) || !std::isfinite(y)) return std::fma(x, y, acc);
  int ex, ey;
  const float mx = std::frexp(x, &ex), my = std::frexp(y, &ey);  // |m| in [0.5, 1)
  const int total = std::clamp(ex + ey + exponent, -250, 254);
  const int half = total / 2;
  return std::fma(std::ldexp(mx, half), std::ldexp(my, total - half), acc);
}

// One step of the scaled f8f6f4 policy: acc + x * 2^(sx - 127) * y * 2^(sy - 127)
// for E8M0 scale bytes sx, sy; a NaN scale (255) makes the step NaN.
inline float fma_block_scaled(float x, float y, uint8_t sx, uint8_t sy, float acc) {
  if (sx == kScaleNaN || sy == kScaleNaN) return std::numeric_limits<float>::quiet_NaN();
  return fma_scaled(x, y, int(sx) + int(sy) - 2 * kScaleBias, acc);
}

}  // namespace cdna4::gfx950
