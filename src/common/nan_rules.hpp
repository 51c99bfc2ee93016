#pragma once
// The fp32 NaN a gfx950 operation writes, shared by the emulator and the CPU
// reference so that NaN outputs compare bit for bit.
//
// Documented (AMD "CDNA4" ISA guide, chapter 12): an invalid operation on
// non-NaN operands writes the default NaN 0xffc00000, sign bit set: V_DIV_FIXUP_F32's
// pseudocode writes 32'F(0xffc00000) for 0/0 and inf/inf (V_DIV_FIXUP_F64:
// 0xfff8000000000000), and the functional examples of V_LOG_F32, V_RSQ_F32,
// V_SQRT_F32, V_SIN_F32 and V_COS_F32 give 0xffc00000 for log(-1), sqrt(-inf),
// sin(inf). A NaN source comes back as cvtToQuietNAN of it: sign and payload
// kept, quiet bit (22) set.
//
// Chosen where the guide is silent (docs/emulator.md, "NaN results"):
//   - VALU: with several NaN sources the first in operand order (S0, S1, S2);
//     inf * 0 and inf - inf inside v_fma / v_add / v_mul write the default NaN
//     like the division and transcendental cases;
//   - MFMA (every kind and policy): every NaN in D is the default NaN, whatever
//     the NaN sources' payloads (matrix cores add many products at once; no
//     source is "first").
// The generic LLVM folding (APFloat's +0x7fc00000) and MMA-Sim's CDNA3 model
// (no NaN bits for AMD) say nothing about the hardware's bits.
#include <bit>
#include <cmath>
#include <cstdint>
#include <initializer_list>

namespace cdna4::gfx950 {

inline constexpr uint32_t kDefaultNaN = 0xffc00000u;
inline constexpr uint32_t kQuietBit = 0x00400000u;

inline float default_nan() { return std::bit_cast<float>(kDefaultNaN); }
inline float quiet(float nan) { return std::bit_cast<float>(std::bit_cast<uint32_t>(nan) | kQuietBit); }

// The NaN written when an operation on `sources` has a NaN result.
template <class... F> inline float nan_from(F... sources) {
  for (const float s : {float(sources)...})
    if (std::isnan(s)) return quiet(s);
  return default_nan();
}

// The VALU result: the host's IEEE value r unless it is NaN, then the rule above.
template <class... F> inline float valu_result(float r, F... sources) {
  return std::isnan(r) ? nan_from(sources...) : r;
}

inline float add_f32(float a, float b) { return valu_result(a + b, a, b); }
inline float mul_f32(float a, float b) { return valu_result(a * b, a, b); }
inline float fma_f32(float a, float b, float c) { return valu_result(std::fma(a, b, c), a, b, c); }

// An MFMA's D element.
inline float mfma_result(float d) { return std::isnan(d) ? default_nan() : d; }

}  // namespace cdna4::gfx950
