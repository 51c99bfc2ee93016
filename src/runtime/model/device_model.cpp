#include "runtime/model/device_model.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "runtime/model/parameters.hpp"

namespace cdna4::model {

ModelReport compose(CuResult cu, const Occupancy& occupancy, const GridFacts& grid) {
  ModelReport r;
  const double clock = param::kClockHz.value;
  const uint64_t per_round = uint64_t(as_int(param::kComputeUnits)) * occupancy.workgroups_per_cu;
  r.clock_hz = clock;
  r.workgroups_per_cu = occupancy.workgroups_per_cu;
  r.waves_per_simd = occupancy.waves_per_simd;
  r.cu_cycles = cu.cycles;
  r.rounds = (grid.workgroups + per_round - 1) / per_round;
  r.compute_seconds = double(r.rounds) * double(cu.cycles) / clock;
  r.memory_bytes = grid.memory_bytes;
  r.memory_seconds = grid.memory_bytes / param::kHbmBytesPerSecond.value;
  r.memory_bound = r.memory_seconds > r.compute_seconds;
  r.seconds = std::max(r.compute_seconds, r.memory_seconds);
  r.cycles = uint64_t(std::ceil(r.seconds * clock));

  const double mfma_per_workgroup = double(cu.mfma_busy_cycles) / std::max<uint32_t>(grid.simulated_workgroups, 1);
  const double pipes = double(as_int(param::kComputeUnits)) * as_int(param::kSimdsPerCu);
  r.mfma_utilization = r.cycles ? mfma_per_workgroup * double(grid.workgroups) / (pipes * double(r.cycles)) : 0;

  double total = 0;
  for (uint64_t c : cu.wave_cycles) total += double(c);
  auto share = [&](Slot s) { return total > 0 ? double(cu.wave_cycles[size_t(s)]) / total : 0.0; };
  r.stalls.issued = share(Slot::issued);
  r.stalls.vmcnt = share(Slot::vmcnt);
  r.stalls.lgkmcnt = share(Slot::lgkmcnt);
  r.stalls.barrier = share(Slot::barrier);
  r.stalls.mfma_dependency = share(Slot::mfma_dependency);
  r.stalls.mfma_busy = share(Slot::mfma_busy);
  r.stalls.issue = share(Slot::issue);
  r.stalls.other = share(Slot::other);
  r.timeline = std::move(cu.timeline);
  return r;
}

}  // namespace cdna4::model
