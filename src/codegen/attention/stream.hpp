#pragma once
// The planner's waits for an attention schedule: over the instance stream of
// the steady state (iteration i runs op o on block t = i - o.stage), the fewest
// vmcnt / lgkmcnt each consumer needs. The lowering translates them for the
// first and last iterations as the verifier does (codegen/schedule/stream_expansion.hpp).
#include "cdna4/attention.hpp"

namespace cdna4::codegen::attention {

// vmcnt on the barrier before each s2r (or on the s2r) for its block's G2S,
// lgkmcnt on each dot for its s2r: the fewest waits the steady state needs.
void compute_waits(AttentionSchedule& s);

}  // namespace cdna4::codegen::attention
