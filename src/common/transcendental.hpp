#pragma once
// What the emulator computes for gfx950's fp32 transcendental VALU instructions,
// and so what the CPU reference of a fused epilogue computes. Each result is the
// double-precision function of the (fp32) source rounded once to fp32, nearest
// even. The ISA allows a gfx950 1 ulp for v_exp_f32, v_log_f32, v_rcp_f32,
// v_rsq_f32 and v_sqrt_f32, so hardware results may differ from these within that.
//
// Denormals (AMD CDNA4 ISA guide, chapter 12 notes): v_exp, v_log, v_rcp, v_rsq
// and v_sqrt flush them, whatever the MODE register says: a denormal source acts
// as a zero of its sign and a denormal result becomes a zero of its sign.
// v_sin and v_cos support denormals. An invalid operation (log or square root of
// a negative number, sine of an infinity) gives the default NaN and a NaN source
// comes back quiet (common/nan_rules.hpp).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <numbers>

#include "common/nan_rules.hpp"

namespace cdna4::gfx950 {

inline bool is_f32_denormal(float x) { return x != 0 && std::fabs(x) < 0x1p-126f; }
inline float flush_f32_denormal(float x) { return is_f32_denormal(x) ? std::copysign(0.0f, x) : x; }

// v_exp_f32: 2^x.
inline float exp2_f32(float x) {
  if (std::isnan(x)) return quiet(x);
  return flush_f32_denormal(float(std::exp2(double(x))));
}

// v_log_f32: log2(x); log2(+-0) = -infinity, log2(negative) = NaN.
inline float log2_f32(float x) {
  x = flush_f32_denormal(x);
  if (std::isnan(x)) return quiet(x);
  if (x == 0) return -INFINITY;
  if (x < 0) return default_nan();
  return float(std::log2(double(x)));
}

// v_rcp_f32 and v_rcp_iflag_f32: 1 / x (the quotient of two fp32 values, rounded
// once, is already the correctly rounded one).
inline float rcp_f32(float x) {
  if (std::isnan(x)) return quiet(x);
  return flush_f32_denormal(1.0f / flush_f32_denormal(x));
}

// v_rsq_f32: 1 / sqrt(x); rsq(+-0) = +-infinity, rsq(+inf) = +0, negative: NaN.
inline float rsq_f32(float x) {
  x = flush_f32_denormal(x);
  if (std::isnan(x)) return quiet(x);
  if (x == 0) return std::copysign(INFINITY, x);
  if (x < 0) return default_nan();
  return float(1.0 / std::sqrt(double(x)));
}

// v_sqrt_f32: sqrt(x) (correctly rounded); sqrt(-0) = -0, negative: NaN.
inline float sqrt_f32(float x) {
  x = flush_f32_denormal(x);
  if (std::isnan(x)) return quiet(x);
  if (x < 0) return default_nan();
  return std::sqrt(x);
}

// sin(2 pi x) for |x| <= 0.25 (the reduced argument below), in double.
inline double sin_two_pi(double r) { return std::sin(2 * std::numbers::pi * r); }

// v_sin_f32: sin(2 pi x). The argument is reduced exactly (x minus the nearest
// integer, then folded into [-1/4, 1/4]), so multiples of 1/2 give exact zeros,
// odd multiples of 1/4 exact +-1, and every x beyond 2^23 (an integer) +0.
inline float sin_f32(float x) {
  if (std::isnan(x)) return quiet(x);
  if (std::isinf(x)) return default_nan();
  if (x == 0) return x;
  double r = double(x) - std::nearbyint(double(x));  // [-1/2, 1/2], exact
  if (r > 0.25) r = 0.5 - r;
  else if (r < -0.25) r = -0.5 - r;
  return float(sin_two_pi(r));
}

// v_cos_f32: cos(2 pi x) = sin(2 pi (1/4 - |r|)) with r as for sin.
inline float cos_f32(float x) {
  if (std::isnan(x)) return quiet(x);
  if (std::isinf(x)) return default_nan();
  const double r = double(x) - std::nearbyint(double(x));
  return float(sin_two_pi(0.25 - std::fabs(r)));
}

// v_ldexp_f32: x * 2^n for a signed 32-bit n, rounded once (denormal results kept,
// as for other non-transcendental fp32 arithmetic).
inline float ldexp_f32(float x, int32_t n) {
  if (std::isnan(x)) return quiet(x);
  return float(std::ldexp(double(x), std::clamp(n, -400, 400)));
}

}  // namespace cdna4::gfx950
