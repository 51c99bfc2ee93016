#pragma once
// Collects the traces of the first `count` workgroups of a grid (linear order).
#include <algorithm>
#include <mutex>
#include <vector>

#include "runtime/emulator/trace.hpp"

namespace cdna4::model {

class FirstWorkgroups : public emu::TraceSink {
 public:
  explicit FirstWorkgroups(uint64_t count) : count_(count) {}
  bool wants(uint64_t linear_workgroup) const override { return linear_workgroup < count_; }
  void deliver(emu::WorkgroupTrace trace) override {
    std::lock_guard lock(mutex_);
    traces_.push_back(std::move(trace));
  }
  // In linear workgroup order; call after the run.
  std::vector<emu::WorkgroupTrace> take() {
    std::lock_guard lock(mutex_);
    std::sort(traces_.begin(), traces_.end(), [](auto& a, auto& b) { return a.linear_id < b.linear_id; });
    return std::move(traces_);
  }

 private:
  uint64_t count_;
  std::mutex mutex_;
  std::vector<emu::WorkgroupTrace> traces_;
};

}  // namespace cdna4::model
