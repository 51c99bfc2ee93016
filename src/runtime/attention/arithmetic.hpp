#pragma once
// The fp32 steps of the attention policy reference, one row of this table per
// convention; the blocked loop (policy.cpp) calls them in the order
// docs/attention.md "The policy reference" gives, and a kernel's lowering
// computes each the same way. Every operation is one IEEE fp32 operation rounded
// to nearest even, its NaN as the emulator's VALU writes it (common/nan_rules.hpp);
// exp2, log2 and rcp are the emulator's v_exp_f32, v_log_f32 and v_rcp_f32
// (common/transcendental.hpp).
#include <bit>
#include <cmath>

#include "cdna4/reference.hpp"
#include "common/nan_rules.hpp"
#include "common/transcendental.hpp"

namespace cdna4::attention {

inline constexpr float kLog2e = std::bit_cast<float>(0x3fb8aa3bu);  // log2(e) rounded to fp32
inline constexpr float kLn2 = std::bit_cast<float>(0x3f317218u);    // ln(2) rounded to fp32

struct Arithmetic {
  // c: the softmax scale folded into log2(e), c = scale * log2e (computed once, on the host).
  float (*scale_log2)(float scale);
  // The running max as the exponents subtract it: mc = m * c, with m = 0 while
  // the row has seen no key (m = -infinity).
  float (*max_scaled)(float m, float c);
  // p of a score s (a masked one is -infinity: p = 0): exp2(fma(s, c, -mc)), one rounding in the fma.
  float (*probability)(float s, float c, float mc);
  // The rescale factor of l and O when the max moves from m_old to m_new (m_new
  // taken as max_scaled takes it): alpha = exp2((m_old - m_new) * c), two roundings.
  float (*rescale)(float m_old, float m_new, float c);
  // A row-sum partial or an O accumulator times alpha.
  float (*rescaled)(float x, float alpha);
  // One step of the row sum: a partial plus p, or two partials across lanes.
  float (*add)(float sum, float p);
  // P as the second dot reads it: bf16, round to nearest even (v_cvt_pk_bf16_f32).
  float (*p_operand)(float p);
  // The final O of an accumulator o and row sum l: o * rcp(l); +0 when l = 0 (no key seen).
  float (*normalize)(float o, float l);
  // The natural-log LSE: (mc + log2(l)) * ln2, two roundings; -infinity when l = 0.
  float (*lse)(float mc, float l);
};

inline constexpr Arithmetic kArithmetic = {
    [](float scale) { return scale * kLog2e; },
    [](float m, float c) { return gfx950::mul_f32(m == -INFINITY ? 0.0f : m, c); },
    [](float s, float c, float mc) { return gfx950::exp2_f32(gfx950::fma_f32(s, c, -mc)); },
    [](float m_old, float m_new, float c) {
      const float m = m_new == -INFINITY ? 0.0f : m_new;
      return gfx950::exp2_f32(gfx950::mul_f32(gfx950::valu_result(m_old - m, m_old, m), c));
    },
    [](float x, float alpha) { return gfx950::mul_f32(x, alpha); },
    [](float sum, float p) { return gfx950::add_f32(sum, p); },
    [](float p) { return bf16_to_float(float_to_bf16(p)); },
    [](float o, float l) { return l == 0 ? 0.0f : gfx950::mul_f32(o, gfx950::rcp_f32(l)); },
    [](float mc, float l) {
      return l == 0 ? -INFINITY : gfx950::mul_f32(gfx950::add_f32(mc, gfx950::log2_f32(l)), kLn2);
    },
};

}  // namespace cdna4::attention
