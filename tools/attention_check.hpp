#pragma once
// cdna4-attn --check: a run's O and LSE against the policy reference, bit for
// bit (how many elements differ, and the first), and against the float64
// reference within docs/attention.md's tolerance ("Tolerance against float64").
// float64_tolerance() is the one implementation of that bound: cdna4-attn, the
// C++ tests and cdna4jit.attention_tolerance (the Python tests) all use it.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numbers>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cdna4/attention.hpp"
#include "cdna4/error.hpp"
#include "cdna4/reference.hpp"
#include "runtime/attention/mask.hpp"

namespace cdna4::tools {

// The bound's terms for one query row (docs/attention.md, "Tolerance against
// float64", gives each and why): the fp32 O lies within o_relative * M +
// o_floor of float64's, M = sum_j w_j |v_jd| (the softmax weights times |V|);
// the LSE within lse.
struct RowTolerance {
  int64_t keys = 0;  // n, the keys the row sees; 0: O and the LSE must be exact (+0, -inf)
  double o_relative = 0, o_floor = 0, lse = 0;
};

// n keys, D, the scale, a = scale |q_i| max_j |k_j| (bounds scale sum_d |q_d k_jd|),
// the row's float64 LSE and max|V|.
inline RowTolerance row_tolerance(int64_t keys, int64_t dim, double scale, double score_magnitude, double lse64,
                                  double v_max) {
  constexpr double u = 0x1p-24 + 0x1p-53;  // fp32's unit roundoff, plus float64's own
  const auto gamma = [&](double k) { return k * u < 0.5 ? k * u / (1 - k * u) : INFINITY; };
  const double n = double(keys), d = double(dim), ln_n = std::log(std::max(n, 1.0)), lse = std::fabs(lse64);
  // One key's weight relative to the others, natural-log units: S's MFMA chain;
  // c's two roundings, the fma and the alpha arguments over <= 128 binades; mc's
  // rounding; exp2 of p and of <= n alphas at 1 ulp each.
  const double delta = gamma(3 * d) * score_magnitude + scale * d * 0x1p-149 +
                       256 * std::numbers::ln2 * (gamma(2) + u) + gamma(2) * (lse + ln_n) + gamma(2 * n + 2);
  // P in bf16; O's MFMA chain and rescales; l's sums, rescales and butterfly; rcp and the multiply.
  const double sum = gamma(2 * n + 12);
  const double g = (1 + 0x1p-8) * (1 + gamma(4 * n)) * (1 + gamma(3)) / (1 - sum) - 1;
  RowTolerance t;
  t.keys = keys;
  t.o_relative = std::exp(2 * delta) * (1 + g) - 1;
  t.o_floor = n * 0x1p-124 * v_max + (8 * n + 4) * 0x1p-149;  // flushed p and alpha; fp32 underflow
  t.lse = delta + gamma(5) * (lse + 2 * ln_n + 1) + sum / (1 - sum) + gamma(2) * (ln_n + 1) + n * 0x1p-125;
  return t;
}

// One O element of magnitude M, float64's value o64, in the output type.
inline double o_tolerance(const RowTolerance& t, double magnitude, double o64, OutType out) {
  if (t.keys == 0) return 0;
  const double fp32 = t.o_relative * magnitude + t.o_floor;
  return out == OutType::bf16 ? fp32 + 0x1p-8 * (std::fabs(o64) + fp32) + 0x1p-134 : fp32;
}

// The tolerance of every O element (at O's strides, as AttentionValues::o) and
// LSE value ([B][H][Nq]) of a problem whose float64 reference is `f64`.
struct Float64Tolerance {
  std::vector<double> o, lse;
};

namespace detail {

inline double bf16_at(const HostBytes& bytes, int64_t element) {
  return bf16_to_float(uint16_t(bytes[size_t(element) * 2] | bytes[size_t(element) * 2 + 1] << 8));
}

// |x| of the D elements at `first`.
inline double norm_at(const HostBytes& bytes, int64_t first, int64_t dim) {
  double sum = 0;
  for (int64_t d = 0; d < dim; ++d) sum += bf16_at(bytes, first + d) * bf16_at(bytes, first + d);
  return std::sqrt(sum);
}

}  // namespace detail

inline Float64Tolerance float64_tolerance(const AttentionProblem& p, const AttentionValues& f64) {
  const AttentionShape& s = p.shape;
  // M: the float64 attention of |V| (sign bits cleared; bf16 is little-endian, the sign in the high byte).
  std::vector<uint8_t> v_abs(p.v.begin(), p.v.end());
  double v_max = 0;
  for (size_t i = 0; i + 1 < v_abs.size(); i += 2) {
    v_abs[i + 1] &= 0x7f;
    v_max = std::max(v_max, double(std::fabs(bf16_to_float(uint16_t(v_abs[i] | v_abs[i + 1] << 8)))));
  }
  AttentionProblem magnitude_problem = p;
  magnitude_problem.v = v_abs;
  const AttentionValues magnitude = reference_f64(magnitude_problem);
  const TensorStrides sq = p.strides_q(), sk = p.strides_k(), so = p.strides_o();
  std::vector<double> k_max(size_t(s.batch * s.heads_kv));  // max_j |k_j| per (b, hk)
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t hk = 0; hk < s.heads_kv; ++hk)
      for (int64_t j = 0; j < s.seqlen_k; ++j)
        k_max[size_t(b * s.heads_kv + hk)] = std::max(k_max[size_t(b * s.heads_kv + hk)],
                                                      detail::norm_at(p.k, b * sk.batch + j * sk.seq + hk * sk.head, s.dim));
  const double scale = double(s.softmax_scale());
  Float64Tolerance t{std::vector<double>(f64.o.size()), std::vector<double>(f64.lse.size())};
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t h = 0; h < s.heads; ++h)
      for (int64_t i = 0; i < s.seqlen_q; ++i) {
        const int64_t row = (b * s.heads + h) * s.seqlen_q + i, hk = h / (s.heads / s.heads_kv);
        const double a = scale * detail::norm_at(p.q, b * sq.batch + i * sq.seq + h * sq.head, s.dim) *
                         k_max[size_t(b * s.heads_kv + hk)];
        const RowTolerance r = row_tolerance(attention::visible_keys(s, i), s.dim, scale, a, f64.lse[size_t(row)], v_max);
        t.lse[size_t(row)] = r.lse;
        const int64_t first = b * so.batch + i * so.seq + h * so.head;
        for (int64_t d = first; d < first + s.dim; ++d)
          t.o[size_t(d)] = o_tolerance(r, magnitude.o[size_t(d)], f64.o[size_t(d)], s.out);
      }
  return t;
}

// How far O and the LSE are from the float64 reference: the largest error and
// the tolerance of that element, the largest share of its tolerance an element
// uses (1: at the bound), and how many elements lie past the tolerance.
struct Float64Errors {
  double o = 0, o_tolerance = 0, o_share = 0;
  double lse = 0, lse_tolerance = 0, lse_share = 0;
  int64_t o_outside = 0, lse_outside = 0;
  bool within() const { return o_outside == 0 && lse_outside == 0; }
};

struct AttentionCheck {
  int64_t o_elements = 0, o_differ = 0;  // O's elements (B Nq H D), those whose bits differ
  int64_t lse_rows = 0, lse_differ = 0;  // LSE values (B H Nq) when wanted
  std::string first_difference;          // "O[b=0, i=3, h=1, d=5] = ..., reference ..."; empty when bit-exact
  Float64Errors f64;
  bool bit_exact() const { return o_differ == 0 && lse_differ == 0; }
};

namespace detail {

inline uint32_t element_bits_at(const std::vector<uint8_t>& bytes, size_t size, int64_t index) {
  uint32_t bits = 0;
  std::memcpy(&bits, &bytes[size_t(index) * size], size);
  return bits;
}

inline float element_value(uint32_t bits, size_t size) {
  if (size == 2) return bf16_to_float(uint16_t(bits));
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline std::string element_text(uint32_t bits, size_t size) {
  return fmt::format("0x{:0{}x} ({:g})", bits, size * 2, element_value(bits, size));
}


// One element's error against its tolerance into the largest error, its tolerance, the largest share, the count outside.
inline void account(double error, double tolerance, double& largest, double& largest_tolerance, double& share,
                    int64_t& outside) {
  if (std::isnan(error)) error = INFINITY;
  if (error >= largest) largest = error, largest_tolerance = tolerance;
  share = std::max(share, error == 0 ? 0.0 : error / tolerance);
  outside += !(error <= tolerance);
}

}  // namespace detail

// O (at the problem's strides, in shape.out) and the LSE of `got` against the float64 reference.
inline Float64Errors float64_errors(const AttentionProblem& p, const AttentionOutput& got, const AttentionValues& want) {
  const AttentionShape& s = p.shape;
  const TensorStrides so = p.strides_o();
  const size_t size = s.out == OutType::f32 ? 4 : 2;
  const Float64Tolerance tolerance = float64_tolerance(p, want);
  Float64Errors e;
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t i = 0; i < s.seqlen_q; ++i)
      for (int64_t h = 0; h < s.heads; ++h)
        for (int64_t d = 0; d < s.dim; ++d) {
          const int64_t at = b * so.batch + i * so.seq + h * so.head + d;
          const float value = detail::element_value(detail::element_bits_at(got.o, size, at), size);
          detail::account(std::fabs(double(value) - want.o[size_t(at)]), tolerance.o[size_t(at)], e.o, e.o_tolerance,
                          e.o_share, e.o_outside);
        }
  if (s.lse)
    for (int64_t row = 0; row < s.batch * s.heads * s.seqlen_q; ++row) {
      const double w = want.lse[size_t(row)], g = detail::element_value(detail::element_bits_at(got.lse, 4, row), 4);
      detail::account(std::isinf(w) && g == w ? 0.0 : std::fabs(g - w), tolerance.lse[size_t(row)], e.lse,
                      e.lse_tolerance, e.lse_share, e.lse_outside);
    }
  return e;
}

// `got` against the policy reference's output bit for bit, and against float64.
inline AttentionCheck check_attention(const AttentionProblem& p, const AttentionOutput& got,
                                      const AttentionOutput& policy, const AttentionValues& f64) {
  if (got.o.size() != policy.o.size() || got.lse.size() != policy.lse.size())
    throw Error(fmt::format("the run returned {} bytes of O and {} of LSE, the reference {} and {}", got.o.size(),
                            got.lse.size(), policy.o.size(), policy.lse.size()));
  const AttentionShape& s = p.shape;
  const TensorStrides so = p.strides_o();
  const size_t size = s.out == OutType::f32 ? 4 : 2;
  AttentionCheck c;
  // 1 when the bits differ; the first difference is named by `where()`.
  const auto compare = [&](uint32_t g, uint32_t w, size_t bytes, const auto& where) {
    if (g != w && c.first_difference.empty())
      c.first_difference = fmt::format("{} = {}, reference {}", where(), detail::element_text(g, bytes),
                                       detail::element_text(w, bytes));
    return g != w;
  };
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t i = 0; i < s.seqlen_q; ++i)
      for (int64_t h = 0; h < s.heads; ++h)
        for (int64_t d = 0; d < s.dim; ++d) {
          const int64_t at = b * so.batch + i * so.seq + h * so.head + d;
          ++c.o_elements;
          c.o_differ += compare(detail::element_bits_at(got.o, size, at), detail::element_bits_at(policy.o, size, at),
                                size, [&] { return fmt::format("O[b={}, i={}, h={}, d={}]", b, i, h, d); });
        }
  if (s.lse)
    for (int64_t row = 0; row < s.batch * s.heads * s.seqlen_q; ++row) {
      const int64_t i = row % s.seqlen_q, h = row / s.seqlen_q % s.heads, b = row / s.seqlen_q / s.heads;
      ++c.lse_rows;
      c.lse_differ += compare(detail::element_bits_at(got.lse, 4, row), detail::element_bits_at(policy.lse, 4, row), 4,
                              [&] { return fmt::format("LSE[b={}, h={}, i={}]", b, h, i); });
    }
  c.f64 = float64_errors(p, got, f64);
  return c;
}

}  // namespace cdna4::tools
