#pragma once
// The causal mask, aligned to the bottom-right corner (FlashAttention 2): query
// row i sees keys j <= i + Nk - Nq; without `causal` every key. Both references
// and the kernels' diagonal blocks follow this one rule.
#include <algorithm>
#include <cstdint>

#include "cdna4/attention.hpp"

namespace cdna4::attention {

// Keys 0 .. visible_keys - 1 are the ones query row i sees (0: none).
inline int64_t visible_keys(const AttentionShape& shape, int64_t i) {
  if (!shape.causal) return shape.seqlen_k;
  return std::clamp<int64_t>(i + 1 + shape.seqlen_k - shape.seqlen_q, 0, shape.seqlen_k);
}

}  // namespace cdna4::attention
