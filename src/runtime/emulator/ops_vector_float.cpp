// VOP1 / VOP2 / VOP3 fp32 arithmetic and conversions (compares: ops_vector_compare.cpp). Host IEEE fp32
// with round-to-nearest-even and denormals kept, NaN results by gfx950's rule
// (common/nan_rules.hpp); VOP3 neg/abs on sources, omod then clamp on results.
#include <cmath>
#include <limits>

#include "common/nan_rules.hpp"
#include "runtime/emulator/handler_registry.hpp"
#include "runtime/emulator/ops_common.hpp"
#include "runtime/emulator/ops_float.hpp"

namespace cdna4::emu {
namespace {

// Float in, integer bits out (no output modifiers).
template <auto F> void fop1_to_int(Wave& w, const Inst& in) {
  LaneValues a, r;
  fetch_f32(w, in.src[0], a);
  for (int l = 0; l < kLanes; ++l) r[l] = F(as_float(a[l]));
  store_lanes(w, in.dst[0].index, r);
}
template <auto F> void iop1_to_float(Wave& w, const Inst& in) {
  LaneValues a, r;
  fetch(w, in.src[0], a);
  for (int l = 0; l < kLanes; ++l) r[l] = as_bits(output_modifiers(in, F(a[l])));
  store_lanes(w, in.dst[0].index, r);
}

// Round-to-nearest-even fp32 -> bf16; a NaN comes back quiet with its sign and
// top payload bits (cvtToQuietNAN, common/nan_rules.hpp).
uint32_t to_bf16(float f) {
  uint32_t bits = as_bits(f);
  if (std::isnan(f)) return (bits | gfx950::kQuietBit) >> 16;
  return (bits + 0x7fff + ((bits >> 16) & 1)) >> 16;
}
void v_cvt_pk_bf16_f32(Wave& w, const Inst& in) {
  LaneValues a, b, r;
  fetch_f32(w, in.src[0], a);
  fetch_f32(w, in.src[1], b);
  for (int l = 0; l < kLanes; ++l) r[l] = to_bf16(as_float(a[l])) | (to_bf16(as_float(b[l])) << 16);
  store_lanes(w, in.dst[0].index, r);
}

uint32_t cvt_u32(float f) {
  if (std::isnan(f) || f <= 0.0f) return 0;
  if (f >= 4294967296.0f) return 0xffffffffu;
  return uint32_t(f);
}
uint32_t cvt_i32(float f) {
  if (std::isnan(f)) return 0;
  if (f <= -2147483648.0f) return 0x80000000u;
  if (f >= 2147483648.0f) return 0x7fffffffu;
  return uint32_t(int32_t(f));
}

using gfx950::valu_result;

using Entry = VectorOpEntry;

constexpr uint16_t kMods = hflag::kFloatModifiers;

const Entry kVectorFloatOps[] = {
    {"V_ADD_F32", fop2<gfx950::add_f32>, kMods},
    {"V_SUB_F32", fop2<([](float a, float b) { return valu_result(a - b, a, b); })>, kMods},
    {"V_SUBREV_F32", fop2<([](float a, float b) { return valu_result(b - a, a, b); })>, kMods},
    {"V_MUL_F32", fop2<gfx950::mul_f32>, kMods},
    {"V_FMA_F32", fop3<gfx950::fma_f32>, kMods},
    {"V_FMAC_F32", fop3<gfx950::fma_f32>, kMods},
    {"V_TRUNC_F32", fop1<([](float a) { return valu_result(std::trunc(a), a); })>, kMods},
    {"V_FLOOR_F32", fop1<([](float a) { return valu_result(std::floor(a), a); })>, kMods},
    {"V_CEIL_F32", fop1<([](float a) { return valu_result(std::ceil(a), a); })>, kMods},
    {"V_RNDNE_F32", fop1<([](float a) { return valu_result(std::nearbyint(a), a); })>, kMods},
    {"V_CVT_F32_U32", iop1_to_float<([](uint32_t a) { return float(a); })>, 0},
    {"V_CVT_F32_I32", iop1_to_float<([](uint32_t a) { return float(int32_t(a)); })>, 0},
    {"V_CVT_F32_UBYTE0", iop1_to_float<([](uint32_t a) { return float(a & 0xff); })>, 0},
    {"V_CVT_F32_UBYTE1", iop1_to_float<([](uint32_t a) { return float((a >> 8) & 0xff); })>, 0},
    {"V_CVT_F32_UBYTE2", iop1_to_float<([](uint32_t a) { return float((a >> 16) & 0xff); })>, 0},
    {"V_CVT_F32_UBYTE3", iop1_to_float<([](uint32_t a) { return float(a >> 24); })>, 0},
    {"V_CVT_F32_BF16", iop1_to_float<([](uint32_t a) { return as_float(a << 16); })>, 0},
    {"V_CVT_U32_F32", fop1_to_int<cvt_u32>, hflag::kSourceModifiersOnly},
    {"V_CVT_I32_F32", fop1_to_int<cvt_i32>, hflag::kSourceModifiersOnly},
    {"V_CVT_PK_BF16_F32", v_cvt_pk_bf16_f32, hflag::kSourceModifiersOnly},
    {"V_CVT_F16_F32", fop1_to_int<to_f16>, hflag::kSourceModifiersOnly},
    {"V_CVT_F32_F16", iop1_to_float<from_f16>, 0},
};

}  // namespace

void register_vector_float(HandlerRegistry& r) { add_vector_ops(r, kVectorFloatOps); }

}  // namespace cdna4::emu
