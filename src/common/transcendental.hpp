#pragma once
// What the emulator computes for gfx950's transcendental VALU instructions, and
// so what the CPU reference of a fused epilogue computes: each result is the
// double-precision function rounded once to fp32 (v_exp_f32: 2^x), or the
// correctly rounded quotient (v_rcp_f32: 1 / x). The ISA allows a gfx950 1 ulp
// (v_exp_f32, v_rcp_f32), so hardware results may differ from these within that.
#include <cmath>

namespace cdna4::gfx950 {

inline float exp2_f32(float x) { return float(std::exp2(double(x))); }
inline float rcp_f32(float x) { return 1.0f / x; }

}  // namespace cdna4::gfx950
