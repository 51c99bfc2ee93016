#pragma once
// An attention output's elements (O as bf16 or f32 at an element index, LSE
// rows) and their names; the tolerance against float64 is
// tools/attention_check.hpp's, as cdna4-attn --check applies it.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cdna4/attention.hpp"
#include "cdna4/reference.hpp"

namespace cdna4::test {

inline uint32_t o_bits(const std::vector<uint8_t>& o, OutType type, int64_t element) {
  if (type == OutType::bf16) return uint32_t(o[size_t(element) * 2] | o[size_t(element) * 2 + 1] << 8);
  uint32_t u;
  std::memcpy(&u, &o[size_t(element) * 4], 4);
  return u;
}

inline float o_value(const std::vector<uint8_t>& o, OutType type, int64_t element) {
  const uint32_t bits = o_bits(o, type, element);
  if (type == OutType::bf16) return bf16_to_float(uint16_t(bits));
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline float lse_value(const std::vector<uint8_t>& lse, int64_t row) {
  float f;
  std::memcpy(&f, &lse[size_t(row) * 4], 4);
  return f;
}

// f(b, i, h, d, element) for every element of O at the problem's O strides, in
// b, h, i, d order; f returns "" to go on, and the first other text ends the
// walk and is returned.
template <typename F>
std::string for_each_o(const AttentionProblem& p, F&& f) {
  const AttentionShape& s = p.shape;
  const TensorStrides so = p.strides_o();
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t h = 0; h < s.heads; ++h)
      for (int64_t i = 0; i < s.seqlen_q; ++i)
        for (int64_t d = 0; d < s.dim; ++d) {
          std::string text = f(b, i, h, d, b * so.batch + i * so.seq + h * so.head + d);
          if (!text.empty()) return text;
        }
  return "";
}

// "LSE[b=0, h=1, i=5]" for row (b * H + h) * Nq + i of the [B][H][Nq] LSE.
inline std::string lse_name(const AttentionShape& s, int64_t row) {
  return fmt::format("LSE[b={}, h={}, i={}]", row / (s.heads * s.seqlen_q), row / s.seqlen_q % s.heads,
                     row % s.seqlen_q);
}

}  // namespace cdna4::test
