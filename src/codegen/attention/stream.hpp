#pragma once
// The instance stream of an attention schedule over the KV blocks of one
// workgroup: iteration i runs op o on block t = i - o.stage when 0 <= t < n
// (n blocks). Waits are written for the steady state (every op runs); where
// fewer ops ran (the first and last iterations), translated_wait gives the
// count that waits for the same instances.
#include <cstdint>
#include <vector>

#include "codegen/attention_schedule/geometry.hpp"
#include "codegen/schedule/op_list.hpp"

namespace cdna4::codegen::attention {

enum class Counter { vm, lgkm };

// Instructions of `counter` an op issues.
int issued(const AttentionGeometry& g, const AttentionOp& op, Counter counter);

// An op's steady-state count `steady` means: all but the `steady` newest
// instructions of that counter issued before it are complete. At position
// `pos` (index into detail::emission_order(s.ops)) of iteration `iteration` with n blocks,
// the same instances are complete once all but this many are.
int translated_wait(const AttentionSchedule& s, const AttentionGeometry& g, const std::vector<int>& order, int pos,
                    int64_t iteration, int64_t n, int steady, Counter counter);

// vmcnt on the barrier before each s2r (or on the s2r) for its block's G2S,
// lgkmcnt on each dot for its s2r: the fewest waits the steady state needs.
void compute_waits(AttentionSchedule& s);

}  // namespace cdna4::codegen::attention
