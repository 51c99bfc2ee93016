#pragma once
// Collects what the model needs from a run: the full traces of the first
// `resident` workgroups of a grid (linear order: one CU's resident set) and of
// the sampled workgroups (grid_sample.hpp), and the read footprints of the
// `probes` (the workgroups one XCD runs at once).
#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <vector>

#include "runtime/emulator/trace.hpp"

namespace cdna4::model {

class TraceCollector : public emu::TraceSink {
 public:
  TraceCollector(uint64_t resident, const std::vector<uint64_t>& samples, const std::vector<uint64_t>& probes,
                 uint32_t footprint_lines)
      : resident_(resident),
        samples_(samples.begin(), samples.end()),
        probes_(probes.begin(), probes.end()),
        footprint_lines_(footprint_lines) {}
  bool wants(uint64_t wg) const override { return traced(wg) || probes_.count(wg); }
  bool footprint_only(uint64_t wg) const override { return !traced(wg); }
  uint32_t footprint_lines() const override { return footprint_lines_; }
  void deliver(emu::WorkgroupTrace trace) override {
    std::lock_guard lock(mutex_);
    if (probes_.count(trace.linear_id))
      footprints_.emplace_back(trace.read_lines.begin(),
                               trace.read_lines.begin() + std::min<size_t>(trace.read_lines.size(), footprint_lines_));
    if (traced(trace.linear_id)) traces_.emplace(trace.linear_id, std::move(trace));
  }
  // The first `resident` workgroups, in linear order; call after the run.
  std::vector<emu::WorkgroupTrace> take_resident() {
    std::lock_guard lock(mutex_);
    std::vector<emu::WorkgroupTrace> out;
    for (auto it = traces_.begin(); it != traces_.end() && it->first < resident_;) {
      out.push_back(std::move(it->second));
      it = traces_.erase(it);
    }
    return out;
  }
  // The other sampled workgroups, by linear id; call after take_resident().
  std::map<uint64_t, emu::WorkgroupTrace> take_samples() {
    std::lock_guard lock(mutex_);
    return std::move(traces_);
  }
  std::vector<std::vector<uint64_t>> take_footprints() {
    std::lock_guard lock(mutex_);
    return std::move(footprints_);
  }

 private:
  bool traced(uint64_t wg) const { return wg < resident_ || samples_.count(wg); }
  uint64_t resident_;
  std::set<uint64_t> samples_, probes_;
  uint32_t footprint_lines_;
  std::mutex mutex_;
  std::map<uint64_t, emu::WorkgroupTrace> traces_;
  std::vector<std::vector<uint64_t>> footprints_;
};

}  // namespace cdna4::model
