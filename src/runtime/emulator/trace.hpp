#pragma once
// Optional recording of the dynamic instruction stream of selected workgroups,
// for timing models. Off (a null sink) costs one pointer test per memory lane.
// The summaries come from the real per-lane addresses (access_summary.hpp).
#include <cstdint>
#include <unordered_set>
#include <vector>

namespace cdna4::emu {

// One executed instruction of one wave. `cost` summarises a memory access:
// LDS (ds_*): bank cycles; global, buffer and LDS-DMA: distinct cache lines; 0 otherwise.
struct TraceEntry {
  uint32_t inst = 0;  // index into Program::insts
  uint32_t cost = 0;
};

struct WorkgroupTrace {
  uint64_t linear_id = 0;
  std::vector<std::vector<TraceEntry>> waves;  // per wave, in issue order
  // The distinct cache lines its vector memory reads (loads, LDS-DMA,
  // returning atomics) touched, in first-touch order: all of them, or for a
  // footprint_only() workgroup the first footprint_lines() (none when that is 0).
  std::vector<uint64_t> read_lines;
};

// Host bytes a trace holds (its vectors' capacities).
inline uint64_t trace_bytes(const WorkgroupTrace& t) {
  uint64_t bytes = t.read_lines.capacity() * sizeof(uint64_t) + t.waves.capacity() * sizeof(t.waves[0]);
  for (const auto& wave : t.waves) bytes += wave.capacity() * sizeof(TraceEntry);
  return bytes;
}

// Receives the traces; deliver() and charge() are called from the emulator's worker threads.
class TraceSink {
 public:
  virtual ~TraceSink() = default;
  virtual bool wants(uint64_t linear_workgroup) const = 0;
  virtual void deliver(WorkgroupTrace trace) = 0;
  // Recording took (or, negative, gave back) `bytes` of host memory; false
  // once the sink's budget is exceeded, and the run stops.
  virtual bool charge(int64_t /*bytes*/) { return true; }
  virtual uint64_t budget_bytes() const { return 0; }
  virtual uint32_t footprint_lines() const { return 0; }
  // A workgroup wanted only for its read footprint: in a trace-only run it
  // stops once footprint_lines() lines are recorded (its outputs are not needed).
  virtual bool footprint_only(uint64_t /*linear_workgroup*/) const { return false; }
};

// One lane's part of a memory instruction, collected while it executes.
struct LaneAccess {
  uint64_t address = 0;  // LDS byte address, or global address
  uint32_t bytes = 0;
  uint32_t lane = 0;
};

// Per-workgroup recording state while a traced workgroup runs. Every growth of
// its memory is charged to the sink, given back when the recorder ends.
struct TraceRecorder {
  // An unordered_set node and its bucket, about.
  static constexpr int64_t kSeenLineBytes = 40;
  explicit TraceRecorder(TraceSink* s) : sink(s) {}
  ~TraceRecorder() { sink->charge(-seen_bytes); }
  TraceRecorder(const TraceRecorder&) = delete;
  TraceRecorder& operator=(const TraceRecorder&) = delete;
  TraceSink* sink;
  bool over_budget = false;
  int64_t seen_bytes = 0;
  void charge(int64_t bytes) { over_budget |= !sink->charge(bytes); }
  WorkgroupTrace trace;
  std::vector<LaneAccess> lanes;  // of the instruction executing now
  uint32_t footprint_lines = 0;
  bool stop_at_footprint = false;
  std::unordered_set<uint64_t> seen_lines;
  void add(uint64_t address, uint32_t bytes, uint32_t lane) { lanes.push_back({address, bytes, lane}); }
  void add_read_lines();  // of `lanes`, up to footprint_lines
  bool footprint_done() const { return stop_at_footprint && trace.read_lines.size() >= footprint_lines; }
};

}  // namespace cdna4::emu
