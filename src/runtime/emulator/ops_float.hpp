#pragma once
// Lane loops and half-precision conversions shared by the fp32 / f16 VALU handler
// files: host IEEE arithmetic, VOP3 neg/abs on sources, omod then clamp on results.
#include <cmath>
#include <cstdint>

#include "runtime/emulator/ops_common.hpp"

namespace cdna4::emu {

template <auto F> inline void fop1(Wave& w, const Inst& in) {
  LaneValues a, r;
  fetch_f32(w, in.src[0], a);
  for (int l = 0; l < kLanes; ++l) r[l] = as_bits(output_modifiers(in, F(as_float(a[l]))));
  store_lanes(w, in.dst[0].index, r);
}
template <auto F> inline void fop2(Wave& w, const Inst& in) {
  LaneValues a, b, r;
  fetch_f32(w, in.src[0], a);
  fetch_f32(w, in.src[1], b);
  for (int l = 0; l < kLanes; ++l) r[l] = as_bits(output_modifiers(in, F(as_float(a[l]), as_float(b[l]))));
  store_lanes(w, in.dst[0].index, r);
}
template <auto F> inline void fop3(Wave& w, const Inst& in) {
  LaneValues a, b, c, r;
  fetch_f32(w, in.src[0], a);
  fetch_f32(w, in.src[1], b);
  fetch_f32(w, in.src[2], c);
  for (int l = 0; l < kLanes; ++l)
    r[l] = as_bits(output_modifiers(in, F(as_float(a[l]), as_float(b[l]), as_float(c[l]))));
  store_lanes(w, in.dst[0].index, r);
}
// Round-to-nearest-even fp32 -> f16 (IEEE binary16, subnormals kept, overflow to
// infinity); NaN becomes the quiet NaN of the same sign (0x7e00). The upper 16
// bits of the result are 0.
inline uint32_t to_f16(float f) {
  const uint32_t bits = as_bits(f), sign = (bits >> 16) & 0x8000;
  if (std::isnan(f)) return sign | 0x7e00;
  const float a = std::fabs(f);
  if (a >= 65520.0f) return sign | 0x7c00;  // rounds past the largest finite half, 65504
  if (a < 0x1p-14f) return sign | uint32_t(std::nearbyint(a * 0x1p24f));  // subnormal: multiples of 2^-24
  const uint32_t m = as_bits(a);
  const uint32_t rounded = m + 0xfff + ((m >> 13) & 1);  // to nearest even on the 13 dropped bits
  return sign | (((rounded >> 13) - (112u << 10)) & 0x7fff);
}

// The half in bits 15:0 as fp32 (exact: subnormals, infinities; NaN stays quiet NaN).
inline float from_f16(uint32_t h) {
  const uint32_t sign = (h & 0x8000u) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e == 0) return std::copysign(float(m) * 0x1p-24f, sign ? -1.0f : 1.0f);
  if (e == 31) return as_float(sign | 0x7f800000u | (m << 13) | (m ? 0x400000u : 0));
  return as_float(sign | ((e + 112) << 23) | (m << 13));
}

}  // namespace cdna4::emu
