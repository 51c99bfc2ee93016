// From one CU's cycles to the device: rounds, the HBM roofline, utilisation.
#include <catch2/catch.hpp>

#include "runtime/model/device_model.hpp"
#include "runtime/model/parameters.hpp"

using namespace cdna4;

TEST_CASE("model: device time is rounds of one CU's cycles, or the HBM bound when larger", "[model]") {
  static_assert(model::param::kComputeUnits.value == 256);
  static_assert(model::param::kClockHz.value == 2.4e9);
  static_assert(model::param::kHbmBytesPerSecond.value == 8e12);
  model::CuResult cu;
  cu.cycles = 24000;             // 10 us at 2.4 GHz
  cu.mfma_busy_cycles = 4 * 12000;  // each of the 4 SIMDs busy half the time
  cu.wave_cycles[size_t(model::Slot::issued)] = 300;
  cu.wave_cycles[size_t(model::Slot::vmcnt)] = 100;
  model::Occupancy occ;
  occ.workgroups_per_cu = 2;

  // 1025 workgroups over 256 CUs x 2: 3 rounds (the last one nearly empty).
  auto r = model::compose(cu, occ, {1025, 2, 1e6});
  CHECK(r.rounds == 3);
  CHECK(r.compute_seconds == Approx(30e-6));
  CHECK(r.memory_seconds == Approx(1e6 / 8e12));
  CHECK_FALSE(r.memory_bound);
  CHECK(r.seconds == Approx(30e-6));
  CHECK(r.cycles == 72000);
  // MFMA clocks per workgroup (24000) x 1025 workgroups over 1024 SIMDs x 72000 clocks.
  CHECK(r.mfma_utilization == Approx(24000.0 * 1025 / (1024.0 * 72000)));
  CHECK(r.stalls.issued == Approx(0.75));
  CHECK(r.stalls.vmcnt == Approx(0.25));

  // 1 GB passed: 125 us at 8 TB/s, above 30 us of compute.
  auto bound = model::compose(cu, occ, {1025, 2, 1e9});
  CHECK(bound.memory_bound);
  CHECK(bound.seconds == Approx(125e-6));
  CHECK(bound.cycles == 300000);
}
