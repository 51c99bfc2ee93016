#include "runtime/model/device_model.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "runtime/model/parameters.hpp"

namespace cdna4::model {

uint32_t global_latency(double l2_miss_fraction, double memory_bytes, double grid_read_bytes) {
  const double warm = memory_bytes <= param::kMallBytes.value ? param::kL2MissLatency.value : param::kHbmLatency.value;
  const double f = std::clamp(l2_miss_fraction, 0.0, 1.0);
  const double missed = f * grid_read_bytes;
  const double first_touch = missed > 0 ? std::min(1.0, memory_bytes / missed) : 1.0;
  const double miss = first_touch * param::kHbmLatency.value + (1 - first_touch) * warm;
  return uint32_t(std::lround((1 - f) * param::kL2HitLatency.value + f * miss));
}

namespace {

// Seconds the MFMA pipes need at the power the board leaves them.
double power_seconds(const std::array<double, kMacClasses>& macs, const Fitted& f) {
  const double joules = macs[size_t(MacClass::bits16)] * f.mac_energy_16bit +
                        macs[size_t(MacClass::bits8)] * f.mac_energy_8bit +
                        macs[size_t(MacClass::narrow)] * f.mac_energy_8bit * param::kNarrowMacEnergyShare.value;
  return joules / (param::kBoardPower.value - param::kStaticPower.value);
}

struct Term {
  const char* name;
  double seconds;
};
constexpr size_t kTerms = 6;
constexpr ptrdiff_t kFirstBandwidthTerm = 3;

// The largest of the terms; the bandwidth terms come after the CU, MFMA peak
// and power ones.
const Term& largest(const std::array<Term, kTerms>& terms) {
  return *std::max_element(terms.begin(), terms.end(), [](auto& a, auto& b) { return a.seconds < b.seconds; });
}

std::array<Term, kTerms> terms_of(const ModelReport& r) {
  return {{{"CU", r.compute_seconds},
           {"MFMA peak", r.mfma_peak_seconds},
           {"power ceiling", r.power_seconds},
           {"L2 bandwidth", r.l2_seconds},
           {"MALL bandwidth", r.mall_seconds},
           {"HBM bandwidth", r.memory_seconds}}};
}

}  // namespace

double recompose_seconds(const ModelReport& r, const Fitted& fitted) {
  ModelReport copy = r;
  copy.power_seconds = power_seconds(r.mfma_macs, fitted);
  return fitted.launch_seconds + largest(terms_of(copy)).seconds + r.drain_seconds;
}

ModelReport compose(CuResult cu, const Occupancy& occupancy, const GridFacts& grid, const Fitted& fitted) {
  const double simulated = std::max<uint32_t>(grid.simulated_workgroups, 1);
  const GridShape line{{uint32_t(grid.workgroups), 1, 1}};
  auto same = [&](double value) { return GridEstimate(line, {{0, value}}); };
  auto macs = [&](MacClass c) { return same(double(cu.macs[size_t(c)]) / simulated); };
  const WorkgroupCosts costs{same(double(cu.cycles)),
                             same(double(cu.mfma_busy_cycles) / simulated),
                             same(grid.read_bytes_per_workgroup),
                             same(double(cu.stored_bytes) / simulated),
                             {macs(MacClass::bits16), macs(MacClass::bits8), macs(MacClass::narrow)}};
  return compose(std::move(cu), occupancy, grid, costs, fitted);
}

ModelReport compose(CuResult cu, const Occupancy& occupancy, const GridFacts& grid, const WorkgroupCosts& costs,
                    const Fitted& fitted) {
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

  const double read = costs.read_bytes.total();
  r.global_latency = global_latency(grid.l2_miss_fraction, grid.memory_bytes, read);
  const double stored = costs.stored_bytes.total();
  const double l2_bytes_per_second = param::kL2BytesPerClock.value * clock;
  // The dispatcher starts the first round's waves one XCD at a time: its last
  // CU starts that long after the first. Then every workgroup holds a slot of
  // its XCD for its cost (grid_sample.hpp), rounds x cu_cycles when alike.
  const double first_round = std::min<double>(workgroups, double(per_round));
  r.dispatch_seconds =
      std::ceil(first_round / xcds) * grid.waves_per_workgroup / param::kWavesDispatchedPerClock.value / clock;
  const uint64_t slots_per_xcd = per_round / uint64_t(xcds);
  r.compute_seconds =
      dispatch_makespan(costs.cycles, grid.workgroups, uint32_t(xcds), slots_per_xcd) / clock + r.dispatch_seconds;
  r.l2_seconds = (read + stored) / xcds / l2_bytes_per_second;
  r.mall_seconds = grid.l2_miss_fraction * read / param::kMallBytesPerSecond.value;
  r.memory_bytes = grid.memory_bytes;
  r.memory_seconds = grid.memory_bytes / param::kHbmBytesPerSecond.value;
  const double pipes = cus * param::kSimdsPerCu.value;
  const double mfma_cycles = costs.mfma_cycles.total();
  r.mfma_peak_seconds = mfma_cycles / (pipes * clock);
  for (size_t c = 0; c < kMacClasses; ++c) r.mfma_macs[c] = costs.macs[c].total();
  r.power_seconds = power_seconds(r.mfma_macs, fitted);
  r.launch_seconds = fitted.launch_seconds;
  const double last_round = workgroups - double(r.rounds - 1) * double(per_round);
  r.drain_seconds = stored / workgroups * last_round / xcds / l2_bytes_per_second;

  const std::array<Term, kTerms> terms = terms_of(r);
  const Term& bound = largest(terms);
  r.bound = bound.name;
  r.memory_bound = &bound - terms.data() >= kFirstBandwidthTerm;
  r.seconds = r.launch_seconds + bound.seconds + r.drain_seconds;
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
