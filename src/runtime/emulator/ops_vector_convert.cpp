// VOP1 / VOP3 conversions between fp32 and the 8-bit formats: v_cvt_pk_fp8_f32,
// v_cvt_pk_bf8_f32 (two values into the low or, with op_sel[3], high 16 bits; the
// other half kept), v_cvt_f32_fp8 / v_cvt_f32_bf8 (byte 0: the byte-selecting form
// is SDWA), v_cvt_pk_f32_fp8 / v_cvt_pk_f32_bf8 (bytes 0 and 1 into a register
// pair) and v_cvt_pk_u8_f32 (one byte of S2 replaced).
#include <cmath>

#include "common/element_formats.hpp"
#include "runtime/emulator/handler_registry.hpp"
#include "runtime/emulator/ops_common.hpp"

namespace cdna4::emu {
namespace {

using gfx950::Element;

// S0 -> bits 7:0, S1 -> bits 15:8 of the selected destination half; src[2] is the
// destination's old value (LLVM's tied operand).
template <Element E> void v_cvt_pk_f8_f32(Wave& w, const Inst& in) {
  LaneValues a, b, old, r;
  fetch_f32(w, in.src[0], a);
  fetch_f32(w, in.src[1], b);
  fetch(w, in.src[2], old);
  const bool saturate = w.wg->kernel->fp16_overflow();
  const bool high = in.dst[0].packed & packed_sel::kHalfHigh;
  for (int l = 0; l < kLanes; ++l) {
    const uint32_t pair = gfx950::convert_to_f8(E, as_float(a[l]), saturate) |
                          gfx950::convert_to_f8(E, as_float(b[l]), saturate) << 8;
    r[l] = with_half(old[l], pair, high);
  }
  store_lanes(w, in.dst[0].index, r);
}

template <Element E> void v_cvt_f32_f8(Wave& w, const Inst& in) {
  LaneValues a, r;
  fetch(w, in.src[0], a);
  for (int l = 0; l < kLanes; ++l) r[l] = as_bits(gfx950::element_value(E, a[l] & 0xff));
  store_lanes(w, in.dst[0].index, r);
}

template <Element E> void v_cvt_pk_f32_f8(Wave& w, const Inst& in) {
  LaneValues a, lo, hi;
  fetch(w, in.src[0], a);
  for (int l = 0; l < kLanes; ++l) {
    lo[l] = as_bits(gfx950::element_value(E, a[l] & 0xff));
    hi[l] = as_bits(gfx950::element_value(E, (a[l] >> 8) & 0xff));
  }
  store_lanes(w, in.dst[0].index, lo);
  store_lanes(w, in.dst[0].index + 1, hi);
}

// f32_to_u8 (the guide does not spell it out): round to nearest even as the MODE
// default, clamp to [0, 255], NaN -> 0.
uint32_t f32_to_u8(float f) {
  if (std::isnan(f) || f <= 0.0f) return 0;
  return f >= 255.0f ? 255u : uint32_t(std::nearbyint(f));
}

void v_cvt_pk_u8_f32(Wave& w, const Inst& in) {
  LaneValues a, select, base, r;
  fetch_f32(w, in.src[0], a);
  fetch(w, in.src[1], select);
  fetch(w, in.src[2], base);
  for (int l = 0; l < kLanes; ++l) {
    const uint32_t shift = 8 * (select[l] & 3);
    r[l] = (base[l] & ~(0xffu << shift)) | f32_to_u8(as_float(a[l])) << shift;
  }
  store_lanes(w, in.dst[0].index, r);
}

constexpr uint16_t kSourceMods = hflag::kSourceModifiersOnly;

const VectorOpEntry kConvertOps[] = {
    {"V_CVT_PK_FP8_F32", v_cvt_pk_f8_f32<Element::fp8>, kSourceMods | hflag::kOpSelDestination},
    {"V_CVT_PK_BF8_F32", v_cvt_pk_f8_f32<Element::bf8>, kSourceMods | hflag::kOpSelDestination},
    {"V_CVT_F32_FP8", v_cvt_f32_f8<Element::fp8>, kSourceMods},
    {"V_CVT_F32_BF8", v_cvt_f32_f8<Element::bf8>, kSourceMods},
    {"V_CVT_PK_F32_FP8", v_cvt_pk_f32_f8<Element::fp8>, kSourceMods},
    {"V_CVT_PK_F32_BF8", v_cvt_pk_f32_f8<Element::bf8>, kSourceMods},
    {"V_CVT_PK_U8_F32", v_cvt_pk_u8_f32, kSourceMods},
};

}  // namespace

void register_vector_convert(HandlerRegistry& r) { add_vector_ops(r, kConvertOps); }

}  // namespace cdna4::emu
