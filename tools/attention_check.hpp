#pragma once
// cdna4-attn --check: a run's O and LSE against the policy reference, bit for
// bit (how many elements differ, and the first), and against the float64
// reference within docs/attention.md's tolerance ("Tolerance against float64"):
// |O - O64| <= 2^-8 * max|V| and |LSE - LSE64| <= 2^-18 * (1 + |LSE64|).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "cdna4/attention.hpp"
#include "cdna4/error.hpp"
#include "cdna4/reference.hpp"

namespace cdna4::tools {

// How far O and the LSE are from the float64 reference, and how many elements
// lie past the tolerance.
struct Float64Errors {
  double o = 0, o_tolerance = 0, lse = 0;  // largest |O - O64| and |LSE - LSE64|; 2^-8 max|V|
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

}  // namespace detail

// O (at the problem's strides, in shape.out) and the LSE of `got` against the float64 reference.
inline Float64Errors float64_errors(const AttentionProblem& p, const AttentionOutput& got, const AttentionValues& want) {
  const AttentionShape& s = p.shape;
  const TensorStrides so = p.strides_o();
  const size_t size = s.out == OutType::f32 ? 4 : 2;
  double v_max = 0;
  for (size_t i = 0; i + 1 < p.v.size(); i += 2)
    v_max = std::max(v_max, double(std::fabs(bf16_to_float(uint16_t(p.v[i] | p.v[i + 1] << 8)))));
  Float64Errors e;
  e.o_tolerance = 0x1p-8 * v_max;
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t i = 0; i < s.seqlen_q; ++i)
      for (int64_t h = 0; h < s.heads; ++h)
        for (int64_t d = 0; d < s.dim; ++d) {
          const int64_t at = b * so.batch + i * so.seq + h * so.head + d;
          const float value = detail::element_value(detail::element_bits_at(got.o, size, at), size);
          const double error = std::fabs(double(value) - want.o[size_t(at)]);
          e.o = std::isnan(error) ? INFINITY : std::max(e.o, error);
          e.o_outside += !(error <= e.o_tolerance);
        }
  if (s.lse)
    for (int64_t row = 0; row < s.batch * s.heads * s.seqlen_q; ++row) {
      const double w = want.lse[size_t(row)], g = detail::element_value(detail::element_bits_at(got.lse, 4, row), 4);
      const double error = std::isinf(w) && g == w ? 0.0 : std::fabs(g - w);
      e.lse = std::isnan(error) ? INFINITY : std::max(e.lse, error);
      e.lse_outside += !(error <= 0x1p-18 * (1 + std::fabs(w)));
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
