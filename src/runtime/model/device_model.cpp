#include "runtime/model/device_model.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "runtime/model/parameters.hpp"

namespace cdna4::model {

uint32_t global_latency(double l2_miss_fraction, double memory_bytes) {
  const double miss = memory_bytes <= param::kMallBytes.value ? param::kL2MissLatency.value : param::kHbmLatency.value;
  const double f = std::clamp(l2_miss_fraction, 0.0, 1.0);
  return uint32_t(std::lround((1 - f) * param::kL2HitLatency.value + f * miss));
}

ModelReport compose(CuResult cu, const Occupancy& occupancy, const GridFacts& grid) {
  const double simulated = std::max<uint32_t>(grid.simulated_workgroups, 1);
  const GridShape line{{uint32_t(grid.workgroups), 1, 1}};
  auto same = [&](double value) { return GridEstimate(line, {{0, value}}); };
  const WorkgroupCosts costs{same(double(cu.cycles)), same(double(cu.mfma_busy_cycles) / simulated),
                             same(grid.read_bytes_per_workgroup), same(double(cu.stored_bytes) / simulated)};
  return compose(std::move(cu), occupancy, grid, costs);
}

ModelReport compose(CuResult cu, const Occupancy& occupancy, const GridFacts& grid, const WorkgroupCosts& costs) {
  ModelReport r;
  const double clock = param::kClockHz.value;
  const double cus = param::kComputeUnits.value, xcds = param::kXcds.value;
  const uint64_t per_round = uint64_t(cus) * occupancy.workgroups_per_cu;
  const double workgroups = double(grid.workgroups);
  r.clock_hz = clock;
  r.workgroups_per_cu = occupancy.workgroups_per_cu;
  r.waves_per_simd = occupancy.waves_per_simd;
  r.cu_cycles = cu.cycles;
  r.sampled_workgroups = costs.sampled;
  r.lightest_cu_cycles = uint64_t(costs.cycles.lowest());
  r.heaviest_cu_cycles = uint64_t(costs.cycles.highest());
  r.rounds = (grid.workgroups + per_round - 1) / per_round;
  r.l2_hit_rate = 1 - std::clamp(grid.l2_miss_fraction, 0.0, 1.0);
  r.global_latency = global_latency(grid.l2_miss_fraction, grid.memory_bytes);

  const double read = costs.read_bytes.total();
  const double stored = costs.stored_bytes.total();
  const double l2_bytes_per_second = param::kL2BytesPerClock.value * clock;
  const uint64_t slots_per_xcd = per_round / uint64_t(xcds);
  r.compute_seconds = dispatch_makespan(costs.cycles, grid.workgroups, uint32_t(xcds), slots_per_xcd) / clock;
  r.l2_seconds = (read + stored) / xcds / l2_bytes_per_second;
  r.mall_seconds = grid.l2_miss_fraction * read / param::kMallBytesPerSecond.value;
  r.memory_bytes = grid.memory_bytes;
  r.memory_seconds = grid.memory_bytes / param::kHbmBytesPerSecond.value;
  const double pipes = cus * param::kSimdsPerCu.value;
  const double mfma_cycles = costs.mfma_cycles.total();
  r.mfma_peak_seconds = mfma_cycles / (pipes * clock);
  r.power_seconds = r.mfma_peak_seconds / param::kMfmaPowerCeiling.value;
  const double last_round = workgroups - double(r.rounds - 1) * double(per_round);
  r.drain_seconds = stored / workgroups * last_round / xcds / l2_bytes_per_second;

  const std::pair<const char*, double> terms[] = {
      {"CU", r.compute_seconds},          {"MFMA peak", r.mfma_peak_seconds}, {"power ceiling", r.power_seconds},
      {"L2 bandwidth", r.l2_seconds},     {"MALL bandwidth", r.mall_seconds}, {"HBM bandwidth", r.memory_seconds}};
  const auto largest = std::max_element(std::begin(terms), std::end(terms),
                                        [](auto& a, auto& b) { return a.second < b.second; });
  r.bound = largest->first;
  r.memory_bound = largest - std::begin(terms) >= 3;
  r.seconds = largest->second + r.drain_seconds;
  r.cycles = uint64_t(std::ceil(r.seconds * clock));
  r.mfma_utilization = r.cycles ? mfma_cycles / (pipes * double(r.cycles)) : 0;

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
