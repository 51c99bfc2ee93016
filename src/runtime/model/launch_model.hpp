#pragma once
// The timing model of one launch on the model device: before the emulator runs
// it says which workgroups to trace; afterwards it turns their traces into the
// modeled time of the whole dispatch.
#include <memory>

#include "cdna4/code_object.hpp"
#include "cdna4/model_report.hpp"
#include "runtime/emulator/emulator.hpp"
#include "runtime/model/grid_sample.hpp"
#include "runtime/model/occupancy.hpp"
#include "runtime/model/trace_collector.hpp"

namespace cdna4::model {

class LaunchModel {
 public:
  // `max_trace_bytes`: what the traces, their copies and the timeline may hold
  // on the host at once (0: no limit); past it the run stops with LimitError.
  LaunchModel(const KernelInfo& kernel, const emu::Dispatch& dispatch, bool timeline = false,
              uint64_t max_trace_bytes = 0);
  emu::TraceSink* sink() { return &collector_; }
  // After the emulator ran the dispatch with sink().
  ModelReport report(const CodeObject& code);

 private:
  const KernelInfo& kernel_;
  Occupancy occupancy_;
  uint64_t workgroups_;
  uint32_t simulated_;
  GridShape grid_;
  double memory_bytes_;
  bool timeline_;
  uint64_t max_trace_bytes_;
  TraceCollector collector_;
};

// Bytes of the dispatch's memory regions whose base address the kernarg
// segment holds: the buffers the launch passes, each counted once.
double passed_buffer_bytes(const emu::Dispatch& dispatch);

}  // namespace cdna4::model
