#include "runtime/model/grid_sample.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>
#include <set>

#include "runtime/model/parameters.hpp"

namespace cdna4::model {

std::vector<uint64_t> sample_workgroups(const GridShape& grid) {
  std::set<uint64_t> ids{0};
  if (grid.count() <= as_int(param::kTraceAllWorkgroups)) {
    for (uint64_t i = 1; i < grid.count(); ++i) ids.insert(i);
    return {ids.begin(), ids.end()};
  }
  const int varying = int(std::count_if(grid.size.begin(), grid.size.end(), [](uint32_t n) { return n > 1; }));
  const uint32_t per_dim = 1 + (as_int(param::kGridSamples) - 1) / uint32_t(std::max(varying, 1));
  for (int d = 0; d < 3; ++d) {
    const uint32_t last = grid.size[d] - 1, points = std::min(per_dim, grid.size[d]);
    for (uint32_t k = 1; k < points; ++k) {
      std::array<uint32_t, 3> at{0, 0, 0};
      at[d] = uint32_t(std::lround(double(k) * last / double(points - 1)));
      ids.insert(grid.linear(at));
    }
  }
  return {ids.begin(), ids.end()};
}

GridEstimate::GridEstimate(const GridShape& grid, const std::map<uint64_t, double>& sampled)
    : grid_(grid), sampled_(sampled) {
  origin_ = sampled_.count(0) ? sampled_.at(0) : 0;
  lowest_ = highest_ = origin_;
  for (auto [id, value] : sampled_) {
    lowest_ = std::min(lowest_, value);
    highest_ = std::max(highest_, value);
    const auto at = grid_.position(id);
    for (int d = 0; d < 3; ++d)
      if (at[(d + 1) % 3] == 0 && at[(d + 2) % 3] == 0) axis_[d].push_back({at[d], value});
  }
  for (auto& a : axis_) std::sort(a.begin(), a.end());
}

double GridEstimate::along(int dim, uint32_t position) const {
  const auto& a = axis_[dim];
  if (a.empty()) return origin_;
  auto hi = std::lower_bound(a.begin(), a.end(), std::make_pair(position, -HUGE_VAL));
  if (hi == a.end()) return a.back().second;
  if (hi->first == position || hi == a.begin()) return hi->second;
  const auto lo = std::prev(hi);
  const double f = double(position - lo->first) / double(hi->first - lo->first);
  return lo->second + f * (hi->second - lo->second);
}

double GridEstimate::at(uint64_t linear) const {
  if (uniform()) return origin_;
  if (auto it = sampled_.find(linear); it != sampled_.end()) return it->second;
  const auto at = grid_.position(linear);
  double value = origin_;
  for (int d = 0; d < 3; ++d) value += along(d, at[d]) - origin_;
  return std::clamp(value, lowest_, highest_);
}

double GridEstimate::total() const {
  if (uniform()) return origin_ * double(grid_.count());
  double sum = 0;
  for (uint64_t i = 0; i < grid_.count(); ++i) sum += at(i);
  return sum;
}

double dispatch_makespan(const GridEstimate& cycles, uint64_t workgroups, uint32_t xcds, uint64_t slots_per_xcd) {
  if (cycles.uniform()) {
    const uint64_t per_xcd = (workgroups + xcds - 1) / xcds;
    return double((per_xcd + slots_per_xcd - 1) / slots_per_xcd) * cycles.lowest();
  }
  double makespan = 0;
  for (uint32_t x = 0; x < xcds && x < workgroups; ++x) {
    std::priority_queue<double, std::vector<double>, std::greater<>> free_at;
    for (uint64_t i = x; i < workgroups; i += xcds) {
      double start = 0;
      if (free_at.size() == slots_per_xcd) {
        start = free_at.top();
        free_at.pop();
      }
      free_at.push(start + cycles.at(i));
      makespan = std::max(makespan, start + cycles.at(i));
    }
  }
  return makespan;
}

}  // namespace cdna4::model
