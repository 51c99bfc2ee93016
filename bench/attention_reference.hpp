#pragma once
// Attention forward on the host in double precision, for checking foreign
// attention kernels: the library's float64 reference (runtime/attention/f64.hpp)
// on the decoded values the kernel reads, with Nq = Nk = seqlen.
// Tensors are BSHD (batch, sequence, head, dim) row-major; LSE is [B][Hq][S].
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "runtime/attention/f64.hpp"

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
  cdna4::AttentionShape shape;
  shape.batch = s.batch;
  shape.seqlen_q = shape.seqlen_k = s.seqlen;
  shape.heads = s.heads_q;
  shape.heads_kv = s.heads_kv;
  shape.dim = s.dim;
  shape.causal = s.causal;
  const auto q_strides = cdna4::TensorStrides::bshd(s.seqlen, s.heads_q, s.dim);
  const auto kv_strides = cdna4::TensorStrides::bshd(s.seqlen, s.heads_kv, s.dim);
  cdna4::AttentionValues r = cdna4::attention::forward_f64(shape, scale, {q, q_strides}, {k, kv_strides},
                                                           {v, kv_strides}, q_strides);
  return {std::move(r.o), std::move(r.lse)};
}

}  // namespace foreign
