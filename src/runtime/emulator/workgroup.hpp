#pragma once
// Runs the waves of one workgroup to completion under a seeded, randomised
// interleaving (or long bursts with instant completion).
#include "runtime/emulator/run_limits.hpp"
#include "runtime/emulator/wave.hpp"

namespace cdna4::emu {

struct WorkgroupSetup {
  const Program* program = nullptr;
  const KernelInfo* kernel = nullptr;
  const GlobalMemory* memory = nullptr;
  const Dispatch* dispatch = nullptr;
  uint64_t kernarg_address = 0;
  uint64_t dispatch_packet_address = 0;
  EmulatorOptions options;
  RunLimits* limits = nullptr;
};

// Re-initialises `wg` (reusing its allocations) for workgroup `id` and runs it.
void run_workgroup(Workgroup& wg, const WorkgroupSetup& setup, const uint32_t id[3]);

}  // namespace cdna4::emu
