#pragma once
// The float64 attention forward on values: reference_f64 decodes the problem's
// bf16 tensors into it, and the foreign-kernel benchmarks feed it the decoded
// values their kernels read (fp8 or fp4 times descales).
#include <cstdint>
#include <span>

#include "cdna4/attention.hpp"

namespace cdna4::attention {

// A [B, S, H, D] tensor of values at its strides.
struct Tensor64 {
  std::span<const double> values;
  TensorStrides strides;
  const double* row(int64_t b, int64_t s, int64_t h) const {
    return &values[size_t(b * strides.batch + s * strides.seq + h * strides.head)];
  }
};

// Per (b, h, i), over the keys j < visible_keys(shape, i) in order, in double:
//   x_j = (sum_d q_d k_jd, d in order from 0) * scale;  top = max_j x_j
//   e_j = exp(x_j - top);  sum = sum_j e_j (j in order from 0)
//   O_d = sum_j (e_j / sum) v_jd (j in order from 0);  LSE = top + ln(sum)
// A row that sees no key: O = +0, LSE = -infinity. O is laid out at `o`'s
// strides (the span from its first to its last element, gaps zero), LSE
// [B][H][Nq]. The shape and strides must have passed validate().
AttentionValues forward_f64(const AttentionShape& shape, double scale, const Tensor64& q, const Tensor64& k,
                            const Tensor64& v, const TensorStrides& o);

}  // namespace cdna4::attention
