#pragma once
// Attention forward on the host in double precision, for checking foreign
// attention kernels: O = softmax(Q K^T * scale [causal: key j <= query i]) V per
// (batch, query head), the query head h reading key/value head h / (Hq / Hkv),
// and the log-sum-exp of each row, LSE = ln(sum_j exp(scale * q.k_j)).
// Tensors are BSHD (batch, sequence, head, dim) row-major; LSE is [B][Hq][S].
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace foreign {

struct AttentionShape {
  int64_t batch, heads_q, heads_kv, seqlen, dim;
  bool causal;
  int64_t q_elements() const { return batch * seqlen * heads_q * dim; }
  int64_t kv_elements() const { return batch * seqlen * heads_kv * dim; }
  int64_t rows() const { return batch * heads_q * seqlen; }  // LSE entries
};

struct AttentionResult {
  std::vector<double> o;    // BSHD, heads_q
  std::vector<double> lse;  // [B][Hq][S]
};

inline AttentionResult reference_attention(const AttentionShape& s, const std::vector<double>& q,
                                           const std::vector<double>& k, const std::vector<double>& v,
                                           double scale) {
  AttentionResult r{std::vector<double>(size_t(s.q_elements())), std::vector<double>(size_t(s.rows()))};
  const int64_t group = s.heads_q / s.heads_kv;
  std::vector<double> score(size_t(s.seqlen));
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t h = 0; h < s.heads_q; ++h) {
      const int64_t hk = h / group;
      for (int64_t i = 0; i < s.seqlen; ++i) {
        const double* qi = &q[size_t(((b * s.seqlen + i) * s.heads_q + h) * s.dim)];
        const int64_t keys = s.causal ? i + 1 : s.seqlen;
        double top = -INFINITY;
        for (int64_t j = 0; j < keys; ++j) {
          const double* kj = &k[size_t(((b * s.seqlen + j) * s.heads_kv + hk) * s.dim)];
          double dot = 0;
          for (int64_t d = 0; d < s.dim; ++d) dot += qi[d] * kj[d];
          score[size_t(j)] = dot * scale;
          top = std::max(top, score[size_t(j)]);
        }
        double sum = 0;
        for (int64_t j = 0; j < keys; ++j) sum += (score[size_t(j)] = std::exp(score[size_t(j)] - top));
        double* oi = &r.o[size_t(((b * s.seqlen + i) * s.heads_q + h) * s.dim)];
        for (int64_t j = 0; j < keys; ++j) {
          const double* vj = &v[size_t(((b * s.seqlen + j) * s.heads_kv + hk) * s.dim)];
          for (int64_t d = 0; d < s.dim; ++d) oi[d] += score[size_t(j)] / sum * vj[d];
        }
        r.lse[size_t((b * s.heads_q + h) * s.seqlen + i)] = top + std::log(sum);
      }
    }
  return r;
}

}  // namespace foreign
