// From one CU's cycles to the device: rounds, the HBM roofline, utilisation.
#include <catch2/catch.hpp>
#include <cmath>

#include "runtime/model/device_model.hpp"
#include "runtime/model/parameters.hpp"

using namespace cdna4;

TEST_CASE("model: device time is rounds of one CU's cycles, or the HBM bound when larger", "[model]") {
  static_assert(model::param::kMfmaPowerCeiling.value == 0.65);
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
  auto r = model::compose(cu, occ, {1025, 2, 1e6, 1, 0});
  CHECK(r.rounds == 3);
  CHECK(r.compute_seconds == Approx(30e-6));
  CHECK(r.memory_seconds == Approx(1e6 / 8e12));
  CHECK_FALSE(r.memory_bound);
  CHECK(r.bound == "CU");
  // Half the pipe time over 0.65 of it: 10 us x 0.5 / 0.65 per round, scaled to 1025 workgroups.
  CHECK(r.power_seconds == Approx(24000.0 * 1025 / (1024 * 2.4e9 * 0.65)));
  CHECK(r.seconds == Approx(30e-6));
  CHECK(r.cycles == 72000);
  // MFMA clocks per workgroup (24000) x 1025 workgroups over 1024 SIMDs x 72000 clocks.
  CHECK(r.mfma_utilization == Approx(24000.0 * 1025 / (1024.0 * 72000)));
  CHECK(r.stalls.issued == Approx(0.75));
  CHECK(r.stalls.vmcnt == Approx(0.25));

  // 1 GB passed: 125 us at 8 TB/s, above 30 us of compute.
  auto bound = model::compose(cu, occ, {1025, 2, 1e9, 1, 0});
  CHECK(bound.memory_bound);
  CHECK(bound.bound == "HBM bandwidth");
  CHECK(bound.seconds == Approx(125e-6));
  CHECK(bound.cycles == 300000);
}

TEST_CASE("model: the power ceiling, L2 and MALL bandwidth bound a kernel the CU alone would not", "[model]") {
  static_assert(model::param::kL2BytesPerClock.value == 2048 && model::param::kMallBytesPerSecond.value == 17.2e12);
  model::CuResult cu;
  cu.cycles = 24000;                // 10 us
  cu.mfma_busy_cycles = 4 * 24000;  // all 4 pipes busy all the time
  cu.stored_bytes = 2 * 1048576;    // two workgroups store 1 MiB each
  model::Occupancy occ;
  occ.workgroups_per_cu = 2;
  // 512 workgroups: one round. Full pipes over a 0.65 ceiling: 10 us / 0.65.
  auto power = model::compose(cu, occ, {512, 2, 0, 1, 0});
  CHECK(power.bound == "power ceiling");
  CHECK(power.power_seconds == Approx(10e-6 / 0.65));
  // The drain: 512 MiB stored by the last round, through 8 XCDs' L2 at 2048 B/clock.
  CHECK(power.drain_seconds == Approx(512.0 * 1048576 / (8 * 2048 * 2.4e9)));
  CHECK(power.seconds == Approx(10e-6 / 0.65 + power.drain_seconds));
  CHECK(power.mfma_utilization < 0.65);

  cu.mfma_busy_cycles = 0;
  cu.stored_bytes = 0;
  // 64 MiB read per workgroup: 32 GiB in all, 4 GiB per XCD at 4.9 TB/s = 874 us.
  auto l2 = model::compose(cu, occ, {512, 2, 0, 0.0, 64.0 * 1048576});
  CHECK(l2.bound == "L2 bandwidth");
  CHECK(l2.memory_bound);
  CHECK(l2.l2_seconds == Approx(512 * 64.0 * 1048576 / 8 / (2048 * 2.4e9)));
  CHECK(l2.l2_hit_rate == 1.0);
  // Every line a miss: 32 GiB through the MALL at 17.2 TB/s (2.0 ms) exceeds L2's 874 us.
  auto mall = model::compose(cu, occ, {512, 2, 0, 1.0, 64.0 * 1048576});
  CHECK(mall.bound == "MALL bandwidth");
  CHECK(mall.seconds == Approx(512 * 64.0 * 1048576 / 17.2e12));
}

TEST_CASE("model: global latency between an L2 hit and a MALL or HBM access", "[model]") {
  using namespace model::param;
  CHECK(model::global_latency(0, 1e6) == uint32_t(kL2HitLatency.value));
  CHECK(model::global_latency(1, 1e6) == uint32_t(kL2MissLatency.value));
  CHECK(model::global_latency(1, 1e9) == uint32_t(kHbmLatency.value));  // beyond the 256 MiB MALL
  CHECK(model::global_latency(0.5, 1e6) == uint32_t(std::lround((kL2HitLatency.value + kL2MissLatency.value) / 2)));
}
