// V_MIN_F32 / V_MAX_F32, and VOP3 v_min3 / v_max3 / v_med3 for f32, f16, i32
// and u32, as the CDNA4 ISA guide's pseudocode defines them: max3 = max(max(S0, S1), S2), min3 likewise, and
// med3 through max3 (any NaN source: min3 of the three). The float minimum and
// maximum are V_MIN_F32 / V_MAX_F32's: in IEEE mode (the kernel descriptor's
// IEEE_MODE bit) a signalling NaN source gives itself quieted, otherwise a NaN
// gives the other operand; -0 < +0. f16: op_sel[s] reads source s's high half,
// op_sel[3] writes the destination's high half, the other half is kept.
#include <algorithm>
#include <cstdint>

#include "common/float_min_max.hpp"
#include "runtime/emulator/handler_registry.hpp"
#include "runtime/emulator/ops_float.hpp"

namespace cdna4::emu {
namespace {

// A float format on raw bits (common/float_min_max.hpp) with its value.
struct F32 : gfx950::F32Bits {
  static float value(uint32_t b) { return as_float(b); }
};
struct F16 : gfx950::F16Bits {
  static float value(uint32_t b) { return from_f16(b); }
};

template <class F> bool is_nan(uint32_t b) { return gfx950::is_nan_bits<F>(b); }
template <class F, bool kMax> uint32_t min_max(uint32_t a, uint32_t b, bool ieee) {
  return gfx950::min_max_bits<F, kMax>(a, b, ieee);
}
template <class F> uint32_t max3(uint32_t a, uint32_t b, uint32_t c, bool ieee) {
  return min_max<F, true>(min_max<F, true>(a, b, ieee), c, ieee);
}
template <class F> uint32_t min3(uint32_t a, uint32_t b, uint32_t c, bool ieee) {
  return min_max<F, false>(min_max<F, false>(a, b, ieee), c, ieee);
}
// `==` is the float comparison (-0 == +0).
template <class F> uint32_t med3(uint32_t a, uint32_t b, uint32_t c, bool ieee) {
  if (is_nan<F>(a) || is_nan<F>(b) || is_nan<F>(c)) return min3<F>(a, b, c, ieee);
  const float top = F::value(max3<F>(a, b, c, ieee));
  if (top == F::value(a)) return min_max<F, true>(b, c, ieee);
  if (top == F::value(b)) return min_max<F, true>(a, c, ieee);
  return min_max<F, true>(a, b, ieee);
}

template <bool kMax> void float2_f32(Wave& w, const Inst& in) {
  LaneValues a, b, r;
  fetch_f32(w, in.src[0], a);
  fetch_f32(w, in.src[1], b);
  const bool ieee = w.wg->kernel->ieee_mode(), modify = in.omod || in.clamp;
  for (int l = 0; l < kLanes; ++l) {
    r[l] = min_max<F32, kMax>(a[l], b[l], ieee);
    if (modify) r[l] = as_bits(output_modifiers(in, as_float(r[l])));
  }
  store_lanes(w, in.dst[0].index, r);
}

template <auto Op> void float3_f32(Wave& w, const Inst& in) {
  LaneValues a, b, c, r;
  fetch_f32(w, in.src[0], a);
  fetch_f32(w, in.src[1], b);
  fetch_f32(w, in.src[2], c);
  const bool ieee = w.wg->kernel->ieee_mode(), modify = in.omod || in.clamp;
  for (int l = 0; l < kLanes; ++l) {
    r[l] = Op(a[l], b[l], c[l], ieee);
    if (modify) r[l] = as_bits(output_modifiers(in, as_float(r[l])));
  }
  store_lanes(w, in.dst[0].index, r);
}

// Source s's selected half with VOP3 abs / neg on its sign bit.
uint32_t half_source(const Operand& o, uint32_t v) {
  uint32_t h = (o.packed & packed_sel::kHalfHigh) ? v >> 16 : v & 0xffff;
  if (o.abs) h &= 0x7fff;
  if (o.neg) h ^= 0x8000;
  return h;
}

template <auto Op> void float3_f16(Wave& w, const Inst& in) {
  LaneValues a, b, c, r;
  fetch(w, in.src[0], a);
  fetch(w, in.src[1], b);
  fetch(w, in.src[2], c);
  const bool ieee = w.wg->kernel->ieee_mode(), modify = in.omod || in.clamp;
  const bool high = in.dst[0].packed & packed_sel::kHalfHigh;
  const uint32_t* old = w.v(in.dst[0].index);
  for (int l = 0; l < kLanes; ++l) {
    uint32_t h = Op(half_source(in.src[0], a[l]), half_source(in.src[1], b[l]), half_source(in.src[2], c[l]), ieee);
    if (modify) h = to_f16(output_modifiers(in, from_f16(h)));
    r[l] = with_half(old[l], h, high);
  }
  store_lanes(w, in.dst[0].index, r);
}

template <class T> uint32_t med3_int(T a, T b, T c) { return uint32_t(std::max(std::min(a, b), std::min(std::max(a, b), c))); }

template <class T, auto Op> void int3(Wave& w, const Inst& in) {
  LaneValues a, b, c, r;
  fetch(w, in.src[0], a);
  fetch(w, in.src[1], b);
  fetch(w, in.src[2], c);
  for (int l = 0; l < kLanes; ++l) r[l] = Op(T(a[l]), T(b[l]), T(c[l]));
  store_lanes(w, in.dst[0].index, r);
}
template <class T> uint32_t max3_int(T a, T b, T c) { return uint32_t(std::max({a, b, c})); }
template <class T> uint32_t min3_int(T a, T b, T c) { return uint32_t(std::min({a, b, c})); }

constexpr uint16_t kMods = hflag::kFloatModifiers;
constexpr uint16_t kHalfMods = hflag::kFloatModifiers | hflag::kOpSelSources | hflag::kOpSelDestination;

const VectorOpEntry kMinMax3Ops[] = {
    {"V_MAX_F32", float2_f32<true>, kMods},
    {"V_MIN_F32", float2_f32<false>, kMods},
    {"V_MAX3_F32", float3_f32<max3<F32>>, kMods},
    {"V_MIN3_F32", float3_f32<min3<F32>>, kMods},
    {"V_MED3_F32", float3_f32<med3<F32>>, kMods},
    {"V_MAX3_F16", float3_f16<max3<F16>>, kHalfMods},
    {"V_MIN3_F16", float3_f16<min3<F16>>, kHalfMods},
    {"V_MED3_F16", float3_f16<med3<F16>>, kHalfMods},
    {"V_MAX3_I32", int3<int32_t, max3_int<int32_t>>, 0},
    {"V_MIN3_I32", int3<int32_t, min3_int<int32_t>>, 0},
    {"V_MED3_I32", int3<int32_t, med3_int<int32_t>>, 0},
    {"V_MAX3_U32", int3<uint32_t, max3_int<uint32_t>>, 0},
    {"V_MIN3_U32", int3<uint32_t, min3_int<uint32_t>>, 0},
    {"V_MED3_U32", int3<uint32_t, med3_int<uint32_t>>, 0},
};

}  // namespace

void register_vector_minmax3(HandlerRegistry& r) { add_vector_ops(r, kMinMax3Ops); }

}  // namespace cdna4::emu
