#pragma once
// Attention forward: the problem (shape, strided bf16 tensors) and its two CPU
// references. Per batch b and query head h (reading key/value head
// h / (H / Hkv): MHA, GQA, MQA):
//   O[b, i, h] = sum_j softmax_j(scale * Q[b, i, h] . K[b, j, hk]) V[b, j, hk]
//   LSE[b, h, i] = ln(sum_j exp(scale * Q[b, i, h] . K[b, j, hk]))
// over the keys j the row sees: all Nk, or with `causal` j <= i + Nk - Nq (the
// mask aligned to the bottom-right corner, as FlashAttention 2). A row that sees
// no key has O = +0 and LSE = -infinity. docs/attention.md states both
// references; the policy reference's arithmetic is the one the kernels follow.
#include <cstdint>
#include <optional>
#include <vector>

#include "cdna4/gemm.hpp"

namespace cdna4 {

struct AttentionShape {
  int64_t batch = 1;     // B
  int64_t seqlen_q = 0;  // Nq, queries
  int64_t seqlen_k = 0;  // Nk, keys and values
  int64_t heads = 0;     // H, query heads (and O's)
  int64_t heads_kv = 0;  // Hkv, key/value heads; H a multiple of it
  int64_t dim = 0;       // D, 64 or 128
  bool causal = false;
  std::optional<float> scale;   // the softmax scale, finite and > 0; absent: 1/sqrt(D) rounded to fp32
  OutType out = OutType::bf16;  // O's type: bf16 (round to nearest even) or f32
  bool lse = false;             // whether the LSE is wanted (the policy reference returns it only then)

  float softmax_scale() const;
};

// Element strides of a [B, S, H, D] tensor whose D elements are consecutive.
struct TensorStrides {
  int64_t batch = 0, seq = 0, head = 0;
  static TensorStrides bshd(int64_t seqlen, int64_t heads, int64_t dim);  // packed [B][S][H][D]
  static TensorStrides bhsd(int64_t seqlen, int64_t heads, int64_t dim);  // packed [B][H][S][D]
  bool operator==(const TensorStrides&) const = default;
};

// One attention forward. Q [B, Nq, H, D], K and V [B, Nk, Hkv, D] are the
// caller's bf16 bytes (HostBytes: borrowed for one call), read at their strides
// (absent: packed BSHD, and the buffer must hold exactly that; with strides, at
// least up to the last element). O [B, Nq, H, D] is written at o_strides (absent:
// packed BSHD; no two elements may overlap); LSE is [B][H][Nq] fp32, packed.
struct AttentionProblem {
  AttentionShape shape;
  HostBytes q, k, v;
  std::optional<TensorStrides> q_strides, k_strides, v_strides, o_strides;

  // The strides in use: the given ones, or packed BSHD.
  TensorStrides strides_q() const;
  TensorStrides strides_k() const;
  TensorStrides strides_v() const;
  TensorStrides strides_o() const;
  // Elements from O's first to its last ((B-1)*batch + (Nq-1)*seq + (H-1)*head + D).
  int64_t o_elements() const;
};

// Throws cdna4::Error naming what is wrong: B, Nq, Nk, H, Hkv >= 1, H % Hkv == 0,
// D 64 or 128, a finite positive scale, O bf16 or f32, non-negative strides,
// every element inside its buffer (sizes computed without overflow), O's
// elements apart.
void validate(const AttentionProblem& problem);

// The kernel's blocking, which the policy reference follows: the queries of a
// workgroup, the keys of one KV step, and the lanes a row's keys are spread over
// while the row sum is accumulated (key j of a step adds into partial j % sum_lanes;
// a power of two dividing `keys`).
struct AttentionBlocks {
  int64_t queries = 128;
  int64_t keys = 64;
  int64_t sum_lanes = 16;
};

// O as raw bits of shape.out laid out at O's strides (o_elements() elements,
// gaps zero); LSE fp32 [B][H][Nq] when shape.lse, else empty.
struct AttentionOutput {
  std::vector<uint8_t> o, lse;
};
// The policy reference: the blocked online softmax in a kernel's order, each
// fp32 step as docs/attention.md "The policy reference" states it (QK^T and PV
// through the MFMA arithmetic `policy`, exp2 as the emulator's v_exp_f32, P
// rounded to bf16). A kernel following that arithmetic matches it bit for bit.
AttentionOutput reference(const AttentionProblem& problem, const AttentionBlocks& blocks,
                          MfmaPolicy policy = MfmaPolicy::fp32_fma_chain_k_order);

// The float64 reference: O laid out as AttentionOutput::o (gaps zero) and LSE
// [B][H][Nq] (always), in double precision from the bf16 values and the fp32 scale.
struct AttentionValues {
  std::vector<double> o, lse;
};
AttentionValues reference_f64(const AttentionProblem& problem);

}  // namespace cdna4
