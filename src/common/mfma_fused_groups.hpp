#pragma once
// The "cdna3-fused-groups" MFMA arithmetic: CDNA3's matrix-core addition as
// MMA-Sim measured it (Xie et al., "MMA-Sim: Bit-Accurate Reference Model of
// Tensor Cores and Matrix Cores", arXiv:2511.10909; github.com/microsoft/MMA-Sim,
// simulator/arithmetic.py, amd_fused_dot_rd_add). Written from that description;
// docs/emulator.md states what is measured and what is extrapolated.
//
// K is consumed in groups of consecutive k (8 for 16-bit elements, 16 for 8-bit
// ones). Each group is one fused step with the accumulator c:
//   - every value x is split as sig * 2^e with e = max(floor(log2 |x|), emin) for
//     its type's smallest normal exponent emin (zero: sig 0, e = -126); a
//     product has sig_a * sig_b and e_a + e_b;
//   - products are aligned to the largest e among them (zeros included) and each
//     truncated toward zero to 24 fraction bits there, then added exactly
//     (8-bit types: the even-k and odd-k halves separately, each half's sum then
//     aligned to the larger half's e and rounded toward -infinity to 24 bits);
//   - the sum and c are aligned to the larger of the two exponents, the sum
//     rounded toward -infinity to 31 fraction bits, c to 24 (8-bit types: c
//     counts as 0 when its e is more than 25 below), added exactly, and rounded
//     once to fp32, nearest even.
// A NaN or infinite operand gives the IEEE sum of the exact products and c (NaN
// as the default NaN, common/nan_rules.hpp); a product of 2^128 or more in
// magnitude makes the step infinite (NaN with both signs).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include "common/element_formats.hpp"
#include "common/mfma_table.hpp"
#include "common/nan_rules.hpp"

namespace cdna4::gfx950 {

// Consecutive k per fused step.
constexpr int fused_group_size(Element e) { return bits_of(e) == 8 ? 16 : 8; }

// Whether a kind of CDNA3's (or a gfx950 bf16 / f16 kind, by the same rule) has this arithmetic.
constexpr bool has_fused_groups(const MfmaInfo& kind) {
  return !kind.f8f6f4 && !kind.sparse && kind.element != Element::i8;
}

namespace fused_detail {

struct Split {
  int64_t m;  // x = m * 2^(e - fraction)
  int e;
};

inline Split split(float x, int min_exponent, int fraction) {
  if (x == 0) return {0, -126};
  const int e = std::max(std::ilogb(x), min_exponent);
  return {int64_t(std::ldexp(x, fraction - e)), e};
}

// v * 2^s, rounded toward zero (truncate) or toward -infinity (floor) for s < 0.
inline int64_t shift_truncate(int64_t v, int s) {
  if (s >= 0) return v << s;
  const int64_t magnitude = (v < 0 ? -v : v) >> std::min(-s, 63);
  return v < 0 ? -magnitude : magnitude;
}
inline int64_t shift_floor(int64_t v, int s) { return s >= 0 ? v << s : v >> std::min(-s, 63); }

constexpr int kInputFraction = 11;  // every 16- and 8-bit significand is an integer at 11 fraction bits

struct Sum {
  int64_t s;  // in units of 2^(e - 24)
  int e;
};

// Products p[first], p[first + step], ... (significands at 22 fraction bits) aligned and truncated.
inline Sum fused_sum(const Split* p, int count, int first, int step) {
  int e = p[first].e;
  for (int i = first; i < count; i += step) e = std::max(e, p[i].e);
  int64_t s = 0;
  for (int i = first; i < count; i += step) s += shift_truncate(p[i].m, 24 - 2 * kInputFraction - (e - p[i].e));
  return {s, e};
}

}  // namespace fused_detail

// One fused step: c + sum of a[i] * b[i], i < count (a group; count <= 16), a[i]
// of type ta and b[i] of type tb exactly as values.
inline float fused_group_step(const float* a, const float* b, int count, Element ta, Element tb, float c) {
  using namespace fused_detail;
  bool finite = std::isfinite(c);
  for (int i = 0; i < count; ++i) finite = finite && std::isfinite(a[i]) && std::isfinite(b[i]);
  if (!finite) {
    double sum = c;
    for (int i = 0; i < count; ++i) sum += double(a[i]) * double(b[i]);
    return mfma_result(float(sum));
  }
  bool positive_overflow = false, negative_overflow = false;
  for (int i = 0; i < count; ++i) {
    const double p = double(a[i]) * double(b[i]);
    positive_overflow = positive_overflow || p >= 0x1p128;
    negative_overflow = negative_overflow || p <= -0x1p128;
  }
  if (positive_overflow || negative_overflow)
    return positive_overflow && negative_overflow ? default_nan() : positive_overflow ? INFINITY : -INFINITY;

  const int min_a = 1 - exponent_bias(element_info(ta)), min_b = 1 - exponent_bias(element_info(tb));
  Split products[16] = {};
  for (int i = 0; i < count; ++i) {
    const Split x = split(a[i], min_a, kInputFraction), y = split(b[i], min_b, kInputFraction);
    products[i] = {x.m * y.m, x.e + y.e};
  }
  const bool eight_bit = bits_of(ta) == 8;
  Sum sum;
  if (eight_bit) {
    const Sum even = fused_sum(products, count, 0, 2), odd = fused_sum(products, count, 1, 2);
    sum.e = std::max(even.e, odd.e);
    sum.s = shift_floor(even.s, even.e - sum.e) + shift_floor(odd.s, odd.e - sum.e);
  } else {
    sum = fused_sum(products, count, 0, 1);
  }
  const Split acc = split(c, -126, 23);
  const int e = std::max(sum.e, acc.e);
  const int64_t products_31 = shift_floor(sum.s, 7 + sum.e - e);  // units of 2^(e - 31)
  const bool c_counts = !eight_bit || acc.e >= e - 25;
  const int64_t c_24 = c_counts ? shift_floor(acc.m, 1 + acc.e - e) : 0;  // units of 2^(e - 24)
  return float(std::ldexp(double(products_31 + c_24 * 128), e - 31));
}

}  // namespace cdna4::gfx950
