#pragma once
// Collects what the model needs from a run: the full traces of the first
// `resident` workgroups of a grid (linear order: one CU's resident set) and of
// the sampled workgroups (grid_sample.hpp), and the read footprints of the
// `probes` (the workgroups one XCD runs at once). The host bytes its traces
// hold, from the first entry recorded, stay within `max_bytes` (0: no limit).
#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <vector>

#include "runtime/emulator/trace.hpp"

namespace cdna4::model {

class TraceCollector : public emu::TraceSink {
 public:
  TraceCollector(uint64_t resident, const std::vector<uint64_t>& samples, const std::vector<uint64_t>& probes,
                 uint32_t footprint_lines, uint64_t max_bytes = 0)
      : resident_(resident),
        samples_(samples.begin(), samples.end()),
        probes_(probes.begin(), probes.end()),
        footprint_lines_(footprint_lines),
        max_bytes_(max_bytes) {}
  bool wants(uint64_t wg) const override { return traced(wg) || probes_.count(wg); }
  bool footprint_only(uint64_t wg) const override { return !traced(wg); }
  uint32_t footprint_lines() const override { return footprint_lines_; }
  bool charge(int64_t bytes) override {
    const int64_t now = bytes_ += bytes;
    return bytes <= 0 || max_bytes_ == 0 || uint64_t(now) <= max_bytes_;
  }
  uint64_t budget_bytes() const override { return max_bytes_; }
  uint64_t bytes() const { return uint64_t(std::max<int64_t>(bytes_, 0)); }
  void deliver(emu::WorkgroupTrace trace) override {
    std::lock_guard lock(mutex_);
    if (probes_.count(trace.linear_id)) {
      footprints_.emplace_back(trace.read_lines.begin(),
                               trace.read_lines.begin() + std::min<size_t>(trace.read_lines.size(), footprint_lines_));
      charge(int64_t(footprints_.back().capacity() * sizeof(uint64_t)));
    }
    if (traced(trace.linear_id)) traces_.emplace(trace.linear_id, std::move(trace));
    else charge(-int64_t(emu::trace_bytes(trace)));
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
  uint64_t max_bytes_;
  std::atomic<int64_t> bytes_{0};
  std::mutex mutex_;
  std::map<uint64_t, emu::WorkgroupTrace> traces_;
  std::vector<std::vector<uint64_t>> footprints_;
};

}  // namespace cdna4::model
