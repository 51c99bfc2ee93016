#pragma once
// The attention policy reference's blocked loop, with its fp32 steps as a
// parameter: reference(problem, blocks, policy) runs it with kArithmetic, and a
// test can change one convention to see that the bits change.
#include "cdna4/attention.hpp"
#include "runtime/attention/arithmetic.hpp"

namespace cdna4::attention {

// The KV blocks the query block starting at q0 visits: all of them, or with
// `causal` up to the one holding the last key its last row (q0 + queries - 1)
// sees; blocks past that are never loaded. (The last query block sees every key
// whether its rows past Nq count or not.)
int64_t kv_blocks(const AttentionShape& shape, const AttentionBlocks& blocks, int64_t q0);

AttentionOutput blocked_reference(const AttentionProblem& problem, const AttentionBlocks& blocks, MfmaPolicy policy,
                                  const Arithmetic& arithmetic);

}  // namespace cdna4::attention
