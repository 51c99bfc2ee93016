#pragma once
// gfx950 emulator: executes the .text bytes of a code object for a whole grid.
// It depends only on the code-object reader, never on the code generator.
#include <atomic>
#include <functional>
#include <cstdint>
#include <string>
#include <vector>

#include "cdna4/code_object.hpp"
#include "cdna4/race_report.hpp"
#include "cdna4/vocabulary.hpp"

namespace cdna4::emu {

// Host memory the kernel may touch through global/buffer instructions. Device
// addresses are host addresses; an access outside every region is an error.
struct MemoryRegion {
  uint64_t base = 0;
  uint64_t size = 0;
};

struct Dispatch {
  uint32_t grid[3] = {1, 1, 1};   // in workgroups
  uint32_t block[3] = {64, 1, 1}; // work-items per workgroup
  std::vector<uint8_t> kernarg;   // laid out by the caller (shared kernarg code)
  uint32_t dynamic_lds = 0;       // bytes requested at launch on top of the fixed size
  uint32_t dynamic_private = 0;   // private bytes per work-item on top of the kernel's fixed size
  std::vector<MemoryRegion> regions;
};

// Private (scratch) bytes each work-item gets: the kernel's fixed size (descriptor
// or metadata) plus the dispatch's dynamic part, rounded up to whole dwords as
// the command processor does for the dispatch packet's private_segment_size.
inline uint32_t private_lane_bytes(const KernelInfo& k, const Dispatch& d) {
  uint32_t fixed = k.private_segment_fixed_size > k.md_private_segment_fixed_size ? k.private_segment_fixed_size
                                                                                  : k.md_private_segment_fixed_size;
  return (fixed + d.dynamic_private + 3) / 4 * 4;
}

class TraceSink;  // trace.hpp

struct EmulatorOptions {
  bool instant_completion = false;  // memory ops complete at issue (fast, finds no races)
  uint64_t seed = 1;                // seeds the random completion delays
  uint32_t max_delay = 64;          // max extra issue slots before a memory op completes
  // Waves issue in turn, one instruction each, and memory operations complete
  // after gfx950's latencies (common/latencies.hpp) counted in issue slots:
  // deterministic, races still tracked (docs/emulator.md, "Lockstep mode").
  bool timed = false;
  unsigned threads = 0;             // host threads for workgroups; 0 = hardware concurrency
  size_t max_races = 16;            // report groups kept (race_groups.hpp); repeats are counted
  uint64_t max_instructions = 0;    // wave-instructions per run; 0 = no limit
  double time_limit_seconds = 0;    // wall clock per run; 0 = no limit
  const std::atomic<bool>* cancel = nullptr;  // stops the run when set
  // After each workgroup (one call at a time): workgroups done, total, seconds since the start.
  std::function<void(uint64_t done, uint64_t total, double seconds)> on_progress;
  TraceSink* trace = nullptr;       // records the workgroups it wants (trace.hpp); null = off
  bool trace_only = false;          // run only the workgroups `trace` wants (timing without results)
  MfmaPolicy mfma_policy = MfmaPolicy::fp32_fma_chain_k_order;  // how MFMAs add (mfma_arithmetic.hpp)
};

using RaceReport = cdna4::RaceReport;  // races and wait-state hazards, as the public API reports them

struct RunStats {
  uint64_t instructions = 0;        // wave-instructions executed
  uint64_t mfma_macs = 0;           // multiply-accumulates done by MFMAs
  double seconds = 0;
  std::vector<RaceReport> races;    // one per (kind, rule, pc), with its count
  uint64_t dropped_races = 0;       // occurrences of groups beyond max_races
};

// Runs the kernel. Throws cdna4::Error for an unknown instruction (name and
// address), an access outside every region, or a malformed dispatch.
RunStats run(const CodeObject& code, const KernelInfo& kernel, const Dispatch& dispatch,
             const EmulatorOptions& options = {});

}  // namespace cdna4::emu
