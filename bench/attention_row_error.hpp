#pragma once
// How bench_foreign judges an attention output against its float64 reference:
// per row (one token of one head, `width` consecutive elements of a BSHD
// tensor), max |x - reference| / max(max |reference in the row|, floor), the
// worst row reported. A row is the unit the kernels normalise (softmax row sums
// in the forward, one query's or key's gradient in the backward), so an error
// in a row's scale shows at its full size however small the row's values are
// next to the tensor's largest; a whole-tensor metric lets small rows be
// anything below the tolerance times the tensor's max.
//
// The floor, kRowErrorFloor x max |reference| of the whole tensor, only matters
// for rows whose reference is (nearly) zero: e.g. causal dQ of token 0, exactly
// 0 (one key, dS = P (dP - D) = 0), where the kernel leaves fp32 rounding
// residue. 2^-12 is 16 times below one bf16 step of the tensor's largest value
// (2^-8 relative), so every row holding a value above the kernels' rounding
// noise is judged relative to itself.
// NaN (e.g. an output never written, the buffers being NaN-poisoned): infinity.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "cdna4/reference.hpp"

namespace foreign {

inline constexpr double kRowErrorFloor = 1.0 / 4096;  // of the tensor's max |reference|

inline double row_relative_error(const std::vector<double>& got, const std::vector<double>& want, size_t width) {
  if (width == 0 || got.size() != want.size() || want.size() % width != 0) return INFINITY;
  double top = 0;
  for (double w : want) top = std::max(top, std::fabs(w));
  const double floor = kRowErrorFloor * top;
  double worst = 0;
  for (size_t row = 0; row + width <= want.size(); row += width) {
    double row_top = floor, row_err = 0;
    for (size_t i = row; i < row + width; ++i) {
      row_top = std::max(row_top, std::fabs(want[i]));
      const double diff = std::fabs(got[i] - want[i]);
      row_err = std::isnan(diff) ? INFINITY : std::max(row_err, diff);
    }
    worst = std::max(worst, row_top > 0 ? row_err / row_top : (row_err > 0 ? INFINITY : 0.0));
  }
  return worst;
}

// max |got - want| / scale, element by element, for values whose rounding is
// bounded relative to a known scale (a dot product's sum of |terms|); NaN:
// infinity.
inline double scaled_error(const std::vector<double>& got, const std::vector<double>& want,
                           const std::vector<double>& scale) {
  if (got.size() != want.size() || scale.size() != want.size()) return INFINITY;
  double worst = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const double ratio = std::fabs(got[i] - want[i]) / scale[i];
    worst = std::isnan(ratio) ? INFINITY : std::max(worst, ratio);
  }
  return worst;
}

inline std::vector<double> bf16_values(const std::vector<uint16_t>& bits) {
  std::vector<double> values(bits.size());
  for (size_t i = 0; i < bits.size(); ++i) values[i] = cdna4::bf16_to_float(bits[i]);
  return values;
}

}  // namespace foreign
