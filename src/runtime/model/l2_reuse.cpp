#include "runtime/model/l2_reuse.hpp"

#include <algorithm>

#include "runtime/model/parameters.hpp"

namespace cdna4::model {

std::vector<uint64_t> first_round_on_one_xcd(uint64_t workgroups, uint32_t workgroups_per_cu) {
  const uint64_t xcds = as_int(param::kXcds);
  const uint64_t per_xcd = uint64_t(as_int(param::kComputeUnits)) / xcds * workgroups_per_cu;
  std::vector<uint64_t> ids;
  for (uint64_t id = 0; id < workgroups && ids.size() < per_xcd; id += xcds) ids.push_back(id);
  return ids;
}

L2Reuse l2_reuse(const std::vector<std::vector<uint64_t>>& footprints) {
  L2Reuse r;
  std::vector<uint64_t> all;
  for (const auto& f : footprints) {
    r.requested_lines += f.size();
    all.insert(all.end(), f.begin(), f.end());
  }
  std::sort(all.begin(), all.end());
  r.distinct_lines = uint64_t(std::unique(all.begin(), all.end()) - all.begin());
  return r;
}

}  // namespace cdna4::model
