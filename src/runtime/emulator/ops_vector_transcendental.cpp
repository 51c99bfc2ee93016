// VOP1 / VOP3 fp32 transcendentals (v_exp, v_log, v_rcp, v_rcp_iflag, v_rsq, v_sqrt,
// v_sin, v_cos) and v_ldexp_f32: what each computes is gfx950::*_f32 of
// common/transcendental.hpp, with VOP3 neg/abs on the source and omod then clamp
// on the result.
#include "common/transcendental.hpp"
#include "runtime/emulator/handler_registry.hpp"
#include "runtime/emulator/ops_float.hpp"

namespace cdna4::emu {
namespace {

// src1 is a signed 32-bit exponent: integer bits, never float-modified.
void v_ldexp_f32(Wave& w, const Inst& in) {
  LaneValues a, n, r;
  fetch_f32(w, in.src[0], a);
  fetch(w, in.src[1], n);
  for (int l = 0; l < kLanes; ++l) r[l] = as_bits(output_modifiers(in, gfx950::ldexp_f32(as_float(a[l]), int32_t(n[l]))));
  store_lanes(w, in.dst[0].index, r);
}

constexpr uint16_t kMods = hflag::kFloatModifiers;

const VectorOpEntry kTranscendentalOps[] = {
    {"V_EXP_F32", fop1<gfx950::exp2_f32>, kMods},
    {"V_LOG_F32", fop1<gfx950::log2_f32>, kMods},
    {"V_RCP_F32", fop1<gfx950::rcp_f32>, kMods},
    // The integer flag only changes which exception a zero source signals; exceptions are not modelled.
    {"V_RCP_IFLAG_F32", fop1<gfx950::rcp_f32>, kMods},
    {"V_RSQ_F32", fop1<gfx950::rsq_f32>, kMods},
    {"V_SQRT_F32", fop1<gfx950::sqrt_f32>, kMods},
    {"V_SIN_F32", fop1<gfx950::sin_f32>, kMods},
    {"V_COS_F32", fop1<gfx950::cos_f32>, kMods},
    {"V_LDEXP_F32", v_ldexp_f32, kMods},
};

}  // namespace

void register_vector_transcendental(HandlerRegistry& r) { add_vector_ops(r, kTranscendentalOps); }

}  // namespace cdna4::emu
