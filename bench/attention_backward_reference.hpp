#pragma once
// Attention backward on the host in double precision, for checking foreign
// attention backward kernels. With P = softmax(Q K^T * scale [causal: key j <=
// query i]) recomputed from the given per-row LSE (P_ij = exp(scale q_i.k_j -
// LSE_i)) and D_i = dO_i . O_i (the row dot of the O and dO the kernel reads):
//   dV_j = sum_i P_ij dO_i,  dS_ij = P_ij (dO_i . v_j - D_i),
//   dQ_i = scale sum_j dS_ij k_j,  dK_j = scale sum_i dS_ij q_i.
// Heads are one-to-one (Hq = Hkv); tensors BSHD, LSE and D [B][H][S].
#include <cmath>
#include <cstdint>
#include <vector>

#include "attention_reference.hpp"

namespace foreign {

struct AttentionGradients {
  std::vector<double> d;           // [B][H][S]
  std::vector<double> dq, dk, dv;  // BSHD
};

inline AttentionGradients reference_attention_backward(const AttentionShape& s, const std::vector<double>& q,
                                                       const std::vector<double>& k, const std::vector<double>& v,
                                                       const std::vector<double>& o, const std::vector<double>& d_o,
                                                       const std::vector<double>& lse, double scale) {
  const size_t elements = size_t(s.q_elements());
  AttentionGradients g{std::vector<double>(size_t(s.rows())), std::vector<double>(elements),
                       std::vector<double>(elements), std::vector<double>(elements)};
  auto at = [&](int64_t b, int64_t i, int64_t h) { return size_t(((b * s.seqlen + i) * s.heads_q + h) * s.dim); };
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t h = 0; h < s.heads_q; ++h)
      for (int64_t i = 0; i < s.seqlen; ++i) {
        const size_t row = size_t((b * s.heads_q + h) * s.seqlen + i);
        const size_t qi = at(b, i, h);
        double dot_do_o = 0;
        for (int64_t x = 0; x < s.dim; ++x) dot_do_o += d_o[qi + size_t(x)] * o[qi + size_t(x)];
        g.d[row] = dot_do_o;
        const int64_t keys = s.causal ? i + 1 : s.seqlen;
        for (int64_t j = 0; j < keys; ++j) {
          const size_t kj = at(b, j, h);
          double score = 0, dp = 0;
          for (int64_t x = 0; x < s.dim; ++x) {
            score += q[qi + size_t(x)] * k[kj + size_t(x)];
            dp += d_o[qi + size_t(x)] * v[kj + size_t(x)];
          }
          const double p = std::exp(score * scale - lse[row]);
          const double ds = p * (dp - dot_do_o);
          for (int64_t x = 0; x < s.dim; ++x) {
            g.dv[kj + size_t(x)] += p * d_o[qi + size_t(x)];
            g.dq[qi + size_t(x)] += scale * ds * k[kj + size_t(x)];
            g.dk[kj + size_t(x)] += scale * ds * q[qi + size_t(x)];
          }
        }
      }
  return g;
}

}  // namespace foreign
