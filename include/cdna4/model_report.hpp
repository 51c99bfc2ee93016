#pragma once
// What the "model" device says about a launch: modeled gfx950 (MI355X) time,
// never a measurement. docs/model.md describes the model and its parameters.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace cdna4 {

// Shares of the simulated waves' time (sum over waves of the CU's cycles), by
// what each wave did at its SIMD's issue slots. They add up to 1.
struct ModelStallShares {
  double issued = 0;           // issued an instruction
  double vmcnt = 0;            // s_waitcnt on vector memory
  double lgkmcnt = 0;          // s_waitcnt on LDS / scalar memory
  double barrier = 0;          // at s_barrier
  double mfma_dependency = 0;  // reads an MFMA result not yet written
  double mfma_busy = 0;        // MFMA ready, the SIMD's MFMA pipe busy
  double issue = 0;            // ready, lost the arbitration for the slot
  double other = 0;            // s_nop, taken-branch refetch
};

// One interval of the simulated CU's timeline (EmulatorConfig::model_timeline).
enum class ModelSliceKind : uint8_t {
  mfma,             // the MFMA holds its SIMD's pipe
  global_load,      // a vector memory load (LDS-DMA included), issue to data arrival
  global_store,     // a vector memory store, issue to completion
  lds,              // a DS instruction, issue to completion
  wait_vmcnt,       // the wave stalls in s_waitcnt on vector memory
  wait_lgkmcnt,     // ... on LDS / scalar memory
  barrier,          // the wave waits at s_barrier
  mfma_dependency,  // the wave waits for an MFMA result
};

struct ModelSlice {
  ModelSliceKind kind = ModelSliceKind::mfma;
  uint32_t workgroup = 0;  // index in the simulated resident set
  uint32_t wave = 0;       // wave in its workgroup
  uint32_t simd = 0;
  uint64_t begin = 0, end = 0;  // clocks of the CU, from the start of the resident set
  uint32_t pc = 0;              // byte offset in .text of the instruction (waits: the one that waits)
};

struct ModelReport {
  uint64_t cycles = 0;              // whole dispatch, clocks of the modeled clock
  double seconds = 0;               // modeled time from the launch to the kernel's end
  double clock_hz = 0;
  double mfma_utilization = 0;      // MFMA pipes busy / (all SIMDs x cycles)
  uint64_t cu_cycles = 0;           // one round of resident workgroups on one CU (the first ones)
  uint32_t sampled_workgroups = 0;  // workgroups traced in full to estimate every other one's cost
  uint64_t lightest_cu_cycles = 0;  // the cheapest and dearest resident set among the sampled ones
  uint64_t heaviest_cu_cycles = 0;
  uint64_t rounds = 0;              // ceil(workgroups / (CUs x workgroups per CU))
  uint32_t workgroups_per_cu = 0;   // occupancy
  uint32_t waves_per_simd = 0;
  double compute_seconds = 0;       // the sampled costs dispatched over the CUs (rounds x cu_cycles / clock if alike)
  double memory_seconds = 0;        // memory_bytes / HBM bandwidth
  double memory_bytes = 0;          // bytes of the buffers the launch passes (read or written)
  bool memory_bound = false;        // bound by L2, MALL or HBM bandwidth
  double l2_hit_rate = 0;           // estimated from the grid order (first round, one XCD)
  uint32_t global_latency = 0;      // clocks a vector memory access takes, from the hit rate
  double l2_seconds = 0;            // the vector memory traffic of one XCD / its L2 bandwidth
  double mall_seconds = 0;          // L2 misses / MALL bandwidth
  double mfma_peak_seconds = 0;     // MFMA pipe time / all pipes: no kernel is faster
  double power_seconds = 0;         // the MFMAs' energy / the board power left for them
  double drain_seconds = 0;         // the last round's stores leaving through L2 after the CUs end
  double launch_seconds = 0;        // from the launch to the first wave (added to the time)
  double dispatch_seconds = 0;      // starting the first round's waves (part of compute_seconds)
  std::array<double, 3> mfma_macs{};  // the grid's MFMA multiply-adds: 16-bit, 8-bit, narrower operands
  std::string bound;                // the largest term: "CU", "MFMA peak", "power ceiling", "L2", "MALL" or "HBM" bandwidth
  ModelStallShares stalls;
  std::vector<ModelSlice> timeline;  // one CU's resident set; empty unless EmulatorConfig::model_timeline
};

}  // namespace cdna4
