#pragma once
// L2 reuse from the grid order (docs/model.md "L2 reuse"): workgroups go to the
// XCDs round-robin, so XCD 0 runs linear ids 0, 8, 16, ... of the first round
// together. Their read footprints (the first lines each reads) are compared:
// a line several of them read is fetched into the XCD's L2 once.
#include <cstdint>
#include <vector>

namespace cdna4::model {

// The workgroups XCD 0 holds at once in the first round.
std::vector<uint64_t> first_round_on_one_xcd(uint64_t workgroups, uint32_t workgroups_per_cu);

struct L2Reuse {
  uint64_t requested_lines = 0;  // summed over the footprints
  uint64_t distinct_lines = 0;   // in their union
  // Lines the XCD's L2 must fetch per line requested (1 with no footprints).
  double miss_fraction() const { return requested_lines ? double(distinct_lines) / double(requested_lines) : 1.0; }
};

L2Reuse l2_reuse(const std::vector<std::vector<uint64_t>>& footprints);

}  // namespace cdna4::model
