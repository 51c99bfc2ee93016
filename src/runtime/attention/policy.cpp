// The attention policy reference (docs/attention.md, "The policy reference").
#include "runtime/attention/policy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <span>

#include "cdna4/error.hpp"
#include "runtime/attention/mask.hpp"
#include "runtime/emulator/mfma_arithmetic.hpp"

namespace cdna4 {
namespace attention {
namespace {

constexpr int64_t kMaxBlock = 4096;

void check_blocks(const AttentionBlocks& b) {
  if (b.queries < 1 || b.queries > kMaxBlock || b.keys < 1 || b.keys > kMaxBlock)
    throw Error(fmt::format("attention: blocks of {} queries and {} keys; each must be 1 to {}", b.queries, b.keys,
                            kMaxBlock));
  if (b.sum_lanes < 1 || (b.sum_lanes & (b.sum_lanes - 1)) != 0 || b.keys % b.sum_lanes != 0)
    throw Error(fmt::format("attention: sum_lanes must be a power of two dividing the {} keys of a block, got {}",
                            b.keys, b.sum_lanes));
}

// One [B, S, H, D] bf16 tensor of the problem at its strides.
struct Bf16Tensor {
  const HostBytes& bytes;
  TensorStrides st;
  float at(int64_t b, int64_t s, int64_t h, int64_t d) const {
    const size_t e = size_t(b * st.batch + s * st.seq + h * st.head + d);
    return bf16_to_float(uint16_t(bytes[2 * e] | bytes[2 * e + 1] << 8));
  }
};

// The row sum's lane partials added across lanes, halving: partial c += partial
// c + s for s = lanes / 2, lanes / 4, ..., 1 (a butterfly over lane strides
// lanes / 2 down to 1, which leaves every lane this same sum).
float sum_lanes(float* part, int64_t lanes, const Arithmetic& ar) {
  for (int64_t s = lanes / 2; s >= 1; s /= 2)
    for (int64_t c = 0; c < s; ++c) part[c] = ar.add(part[c], part[c + s]);
  return part[0];
}

// acc[m x n] += a[m x k] * b[k x n] through the MFMA policy. Under the fp32 chain
// the product runs as 16 x 16 x 32 MFMA tiles (rows past m zero, their results
// dropped): each element still takes its k terms in order from acc, so the bits
// are those of the one m x n x k call, and the emulator's vectorised MFMA runs it.
void dot(MfmaPolicy policy, int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* acc) {
  constexpr int64_t kM = 16, kN = 16, kK = 32;
  constexpr gfx950::Element kBf16 = gfx950::Element::bf16;
  if (policy != MfmaPolicy::fp32_fma_chain_k_order || n % kN != 0 || k % kK != 0)
    return emu::mfma_accumulate(policy, int(m), int(n), int(k), a, b, acc, kBf16, kBf16);
  float at[kM * kK], bt[kK * kN], ct[kM * kN];
  for (int64_t i0 = 0; i0 < m; i0 += kM)
    for (int64_t j0 = 0; j0 < n; j0 += kN) {
      const int64_t rows = std::min(kM, m - i0);
      std::fill(std::begin(ct), std::end(ct), 0.0f);
      for (int64_t i = 0; i < rows; ++i) std::copy_n(&acc[(i0 + i) * n + j0], kN, &ct[i * kN]);
      for (int64_t k0 = 0; k0 < k; k0 += kK) {
        std::fill(std::begin(at), std::end(at), 0.0f);
        for (int64_t i = 0; i < rows; ++i) std::copy_n(&a[(i0 + i) * k + k0], kK, &at[i * kK]);
        for (int64_t x = 0; x < kK; ++x) std::copy_n(&b[(k0 + x) * n + j0], kN, &bt[x * kN]);
        emu::mfma_accumulate(policy, kM, kN, kK, at, bt, ct, kBf16, kBf16);
      }
      for (int64_t i = 0; i < rows; ++i) std::copy_n(&ct[i * kN], kN, &acc[(i0 + i) * n + j0]);
    }
}

// K^T (D x Bk) and V (Bk x D) of the KV block from key j0; keys past Nk are
// zeros, as the kernel's bounded loads read them.
void load_kv_block(const Bf16Tensor& k, const Bf16Tensor& v, int64_t b, int64_t hk, int64_t j0, int64_t seqlen_k,
                   int64_t bk, int64_t dim, float* kt, float* vb) {
  for (int64_t x = 0; x < bk; ++x)
    for (int64_t d = 0; d < dim; ++d) {
      const bool real = j0 + x < seqlen_k;
      kt[d * bk + x] = real ? k.at(b, j0 + x, hk, d) : 0.0f;
      vb[x * dim + d] = real ? v.at(b, j0 + x, hk, d) : 0.0f;
    }
}

// One row of a KV block between the two dots: its scores and its P operand.
struct BlockRow {
  float* s;
  float* p;
  int64_t keys;
};

// One row's online-softmax step on a KV block whose first `seen` keys the row
// sees (none when seen <= 0): the max m, the row-sum lane partials and the O
// accumulator move to the block's max, and P is written.
void softmax_step(const Arithmetic& ar, float c, int64_t seen, const BlockRow& row, float& m, std::span<float> part,
                  std::span<float> o) {
  float m_new = m;
  for (int64_t x = 0; x < row.keys; ++x) {
    if (x >= seen) row.s[x] = -INFINITY;
    m_new = std::fmax(m_new, row.s[x]);  // maxNum, as v_max_f32 (a zero's sign changes nothing after)
  }
  const float mc = ar.max_scaled(m_new, c), alpha = ar.rescale(m, m_new, c);
  m = m_new;
  for (float& l : part) l = ar.rescaled(l, alpha);
  for (int64_t x = 0; x < row.keys; ++x) {
    const float px = ar.probability(row.s[x], c, mc);
    float& l = part[size_t(x) % part.size()];
    l = ar.add(l, px);
    row.p[x] = ar.p_operand(px);
  }
  for (float& x : o) x = ar.rescaled(x, alpha);
}

void store(std::vector<uint8_t>& out, OutType type, int64_t element, float value) {
  if (type == OutType::bf16) {
    const uint16_t bits = float_to_bf16(value);
    std::memcpy(&out[size_t(element) * 2], &bits, 2);
  } else {
    std::memcpy(&out[size_t(element) * 4], &value, 4);
  }
}

}  // namespace

int64_t kv_blocks(const AttentionShape& sh, const AttentionBlocks& blocks, int64_t q0) {
  const int64_t all = (sh.seqlen_k + blocks.keys - 1) / blocks.keys;
  if (!sh.causal) return all;
  const int64_t last_key = q0 + blocks.queries - 1 + sh.seqlen_k - sh.seqlen_q;
  return last_key < 0 ? 0 : std::min(all, last_key / blocks.keys + 1);
}

AttentionOutput blocked_reference(const AttentionProblem& problem, const AttentionBlocks& blocks, MfmaPolicy policy,
                                  const Arithmetic& ar) {
  validate(problem);
  check_blocks(blocks);
  const AttentionShape& sh = problem.shape;
  const int64_t dim = sh.dim, bq = blocks.queries, bk = blocks.keys, lanes = blocks.sum_lanes;
  const int64_t group = sh.heads / sh.heads_kv;
  const Bf16Tensor q{problem.q, problem.strides_q()}, k{problem.k, problem.strides_k()},
      v{problem.v, problem.strides_v()};
  const TensorStrides so = problem.strides_o();
  const float c = ar.scale_log2(sh.softmax_scale());

  AttentionOutput out{std::vector<uint8_t>(size_t(problem.o_elements()) * size_t(element_bytes(sh.out))), {}};
  if (sh.lse) out.lse.resize(size_t(sh.batch * sh.heads * sh.seqlen_q) * 4);
  std::vector<float> qb(size_t(bq * dim)), kt(size_t(dim * bk)), vb(size_t(bk * dim)), s(size_t(bq * bk)),
      p(size_t(bq * bk)), o(size_t(bq * dim)), m(static_cast<size_t>(bq)), part(size_t(bq * lanes));
  for (int64_t b = 0; b < sh.batch; ++b)
    for (int64_t h = 0; h < sh.heads; ++h)
      for (int64_t q0 = 0; q0 < sh.seqlen_q; q0 += bq) {
        const int64_t rows = std::min(bq, sh.seqlen_q - q0), hk = h / group;
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t d = 0; d < dim; ++d) qb[size_t(r * dim + d)] = q.at(b, q0 + r, h, d);
        std::fill(o.begin(), o.end(), 0.0f);
        std::fill(m.begin(), m.end(), -INFINITY);
        std::fill(part.begin(), part.end(), 0.0f);
        for (int64_t t = 0, steps = kv_blocks(sh, blocks, q0); t < steps; ++t) {
          const int64_t j0 = t * bk;
          load_kv_block(k, v, b, hk, j0, sh.seqlen_k, bk, dim, kt.data(), vb.data());
          std::fill(s.begin(), s.end(), 0.0f);
          dot(policy, rows, bk, dim, qb.data(), kt.data(), s.data());
          for (int64_t r = 0; r < rows; ++r)
            softmax_step(ar, c, visible_keys(sh, q0 + r) - j0, {&s[size_t(r * bk)], &p[size_t(r * bk)], bk},
                         m[size_t(r)], {&part[size_t(r * lanes)], size_t(lanes)}, {&o[size_t(r * dim)], size_t(dim)});
          dot(policy, rows, dim, bk, p.data(), vb.data(), o.data());
        }
        for (int64_t r = 0; r < rows; ++r) {
          const int64_t i = q0 + r;
          const float l = sum_lanes(&part[size_t(r * lanes)], lanes, ar);
          for (int64_t d = 0; d < dim; ++d)
            store(out.o, sh.out, b * so.batch + i * so.seq + h * so.head + d, ar.normalize(o[size_t(r * dim + d)], l));
          if (sh.lse) {
            const float lse = ar.lse(ar.max_scaled(m[size_t(r)], c), l);
            std::memcpy(&out.lse[size_t((b * sh.heads + h) * sh.seqlen_q + i) * 4], &lse, 4);
          }
        }
      }
  return out;
}

}  // namespace attention

AttentionOutput reference(const AttentionProblem& problem, const AttentionBlocks& blocks, MfmaPolicy policy) {
  return attention::blocked_reference(problem, blocks, policy, attention::kArithmetic);
}

}  // namespace cdna4
