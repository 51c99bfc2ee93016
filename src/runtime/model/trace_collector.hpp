#pragma once
// Collects what the model needs from a run: the full traces of the first
// `resident` workgroups of a grid (linear order: one CU's resident set), and
// the read footprints of the `probes` (the workgroups one XCD runs at once).
#include <algorithm>
#include <mutex>
#include <set>
#include <vector>

#include "runtime/emulator/trace.hpp"

namespace cdna4::model {

class TraceCollector : public emu::TraceSink {
 public:
  TraceCollector(uint64_t resident, const std::vector<uint64_t>& probes, uint32_t footprint_lines)
      : resident_(resident), probes_(probes.begin(), probes.end()), footprint_lines_(footprint_lines) {}
  bool wants(uint64_t wg) const override { return wg < resident_ || probes_.count(wg); }
  bool footprint_only(uint64_t wg) const override { return wg >= resident_; }
  uint32_t footprint_lines() const override { return footprint_lines_; }
  void deliver(emu::WorkgroupTrace trace) override {
    std::lock_guard lock(mutex_);
    if (probes_.count(trace.linear_id))
      footprints_.emplace_back(trace.read_lines.begin(),
                               trace.read_lines.begin() + std::min<size_t>(trace.read_lines.size(), footprint_lines_));
    if (trace.linear_id < resident_) traces_.push_back(std::move(trace));
  }
  // In linear workgroup order; call after the run.
  std::vector<emu::WorkgroupTrace> take_traces() {
    std::lock_guard lock(mutex_);
    std::sort(traces_.begin(), traces_.end(), [](auto& a, auto& b) { return a.linear_id < b.linear_id; });
    return std::move(traces_);
  }
  std::vector<std::vector<uint64_t>> take_footprints() {
    std::lock_guard lock(mutex_);
    return std::move(footprints_);
  }

 private:
  uint64_t resident_;
  std::set<uint64_t> probes_;
  uint32_t footprint_lines_;
  std::mutex mutex_;
  std::vector<emu::WorkgroupTrace> traces_;
  std::vector<std::vector<uint64_t>> footprints_;
};

}  // namespace cdna4::model
