#pragma once
// The attention verifier's two halves; not part of the public API.
#include <cdna4/attention.hpp>

#include <vector>

namespace cdna4::detail {

// Static rules on the op list (wait ranges, unique orders, phases, coverage, LDS).
void check_attention_rules(const AttentionSchedule& s, std::vector<Finding>& findings);

// Every wave over `blocks` KV blocks: LDS RAW/WAR of the K and V slots, lgkmcnt
// before the dots, the register chain.
void simulate_attention(const AttentionSchedule& s, int blocks, std::vector<Finding>& findings, size_t max_findings);

}  // namespace cdna4::detail
