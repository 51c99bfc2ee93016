#include "runtime/attention/f64.hpp"

#include <algorithm>
#include <cmath>

#include "runtime/attention/mask.hpp"

namespace cdna4 {
namespace attention {

AttentionValues forward_f64(const AttentionShape& sh, double scale, const Tensor64& q, const Tensor64& k,
                            const Tensor64& v, const TensorStrides& o) {
  const int64_t last = (sh.batch - 1) * o.batch + (sh.seqlen_q - 1) * o.seq + (sh.heads - 1) * o.head + sh.dim;
  AttentionValues r{std::vector<double>(size_t(last)), std::vector<double>(size_t(sh.batch * sh.heads * sh.seqlen_q))};
  const int64_t group = sh.heads / sh.heads_kv;
  std::vector<double> score(size_t(sh.seqlen_k));
  for (int64_t b = 0; b < sh.batch; ++b)
    for (int64_t h = 0; h < sh.heads; ++h) {
      const int64_t hk = h / group;
      for (int64_t i = 0; i < sh.seqlen_q; ++i) {
        const double* qi = q.row(b, i, h);
        const int64_t keys = visible_keys(sh, i);
        double top = -INFINITY;
        for (int64_t j = 0; j < keys; ++j) {
          const double* kj = k.row(b, j, hk);
          double dot = 0;
          for (int64_t d = 0; d < sh.dim; ++d) dot += qi[d] * kj[d];
          score[size_t(j)] = dot * scale;
          top = std::max(top, score[size_t(j)]);
        }
        double sum = 0;
        for (int64_t j = 0; j < keys; ++j) sum += (score[size_t(j)] = std::exp(score[size_t(j)] - top));
        double* oi = &r.o[size_t(b * o.batch + i * o.seq + h * o.head)];
        for (int64_t j = 0; j < keys; ++j) {
          const double* vj = v.row(b, j, hk);
          for (int64_t d = 0; d < sh.dim; ++d) oi[d] += score[size_t(j)] / sum * vj[d];
        }
        r.lse[size_t((b * sh.heads + h) * sh.seqlen_q + i)] = keys ? top + std::log(sum) : -INFINITY;
      }
    }
  return r;
}

}  // namespace attention

AttentionValues reference_f64(const AttentionProblem& problem) {
  validate(problem);
  auto decode = [](const HostBytes& bytes) {
    std::vector<double> values(bytes.size() / 2);
    for (size_t i = 0; i < values.size(); ++i)
      values[i] = bf16_to_float(uint16_t(bytes[2 * i] | bytes[2 * i + 1] << 8));
    return values;
  };
  const std::vector<double> q = decode(problem.q), k = decode(problem.k), v = decode(problem.v);
  return attention::forward_f64(problem.shape, double(problem.shape.softmax_scale()), {q, problem.strides_q()},
                                {k, problem.strides_k()}, {v, problem.strides_v()}, problem.strides_o());
}

}  // namespace cdna4
