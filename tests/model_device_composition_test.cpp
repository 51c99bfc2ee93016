// From one CU's cycles to the device: rounds, the dispatch ramp, the launch,
// the power the MFMAs' energy needs, the bandwidth terms, utilisation.
#include <catch2/catch.hpp>
#include <cmath>

#include "runtime/model/device_model.hpp"
#include "runtime/model/parameters.hpp"

using namespace cdna4;

namespace {
// Round values for the fitted parameters: 1 pJ per 16-bit MAC, 0.5 pJ per 8-bit
// MAC, 1 us of launch.
const model::Fitted kRound{1e-12, 0.5e-12, 1e-6};
}  // namespace

TEST_CASE("model: device time is the launch plus rounds of one CU's cycles, or the HBM bound when larger", "[model]") {
  static_assert(model::param::kComputeUnits.value == 256);
  static_assert(model::param::kClockHz.value == 2.4e9);
  static_assert(model::param::kHbmBytesPerSecond.value == 8e12);
  static_assert(model::param::kWavesDispatchedPerClock.value == 1 && model::param::kXcds.value == 8);
  static_assert(model::param::kBoardPower.value - model::param::kStaticPower.value == 1000);
  model::CuResult cu;
  cu.cycles = 24000;             // 10 us at 2.4 GHz
  cu.mfma_busy_cycles = 4 * 12000;  // each of the 4 SIMDs busy half the time
  cu.macs = {2000000, 0, 0};     // 1 M 16-bit MACs per workgroup
  cu.wave_cycles[size_t(model::Slot::issued)] = 300;
  cu.wave_cycles[size_t(model::Slot::vmcnt)] = 100;
  model::Occupancy occ;
  occ.workgroups_per_cu = 2;

  // 1025 workgroups over 256 CUs x 2: 3 rounds (the last one nearly empty). The
  // first round's 512 one-wave workgroups start over 512 / 8 XCDs = 64 clocks.
  auto r = model::compose(cu, occ, {1025, 2, 1e6, 1, 0, 1}, kRound);
  CHECK(r.rounds == 3);
  CHECK(r.dispatch_seconds == Approx(64 / 2.4e9));
  CHECK(r.compute_seconds == Approx(30e-6 + 64 / 2.4e9));
  CHECK(r.memory_seconds == Approx(1e6 / 8e12));
  CHECK_FALSE(r.memory_bound);
  CHECK(r.bound == "CU");
  // 1025 M MACs x 1 pJ over the 1000 W the board leaves the pipes: 1.025 us.
  CHECK(r.mfma_macs[0] == Approx(1025e6));
  CHECK(r.power_seconds == Approx(1025e6 * 1e-12 / 1000));
  CHECK(r.launch_seconds == 1e-6);
  CHECK(r.seconds == Approx(1e-6 + 30e-6 + 64 / 2.4e9));
  CHECK(model::recompose_seconds(r, kRound) == Approx(r.seconds));
  CHECK(r.stalls.issued == Approx(0.75));
  CHECK(r.stalls.vmcnt == Approx(0.25));

  // 1 GB passed: 125 us at 8 TB/s, above 30 us of compute.
  auto bound = model::compose(cu, occ, {1025, 2, 1e9, 1, 0, 1}, kRound);
  CHECK(bound.memory_bound);
  CHECK(bound.bound == "HBM bandwidth");
  CHECK(bound.seconds == Approx(1e-6 + 125e-6));
}

TEST_CASE("model: the MFMAs' energy, L2 and MALL bandwidth bound a kernel the CU alone would not", "[model]") {
  static_assert(model::param::kL2BytesPerClock.value == 2048 && model::param::kMallBytesPerSecond.value == 17.2e12);
  static_assert(model::param::kNarrowMacEnergyShare.value == 0.5);
  model::CuResult cu;
  cu.cycles = 24000;                // 10 us
  cu.mfma_busy_cycles = 4 * 24000;  // all 4 pipes busy all the time
  cu.macs = {0, 2000000000, 0};     // 1 G 8-bit MACs per workgroup
  cu.stored_bytes = 2 * 1048576;    // two workgroups store 1 MiB each
  model::Occupancy occ;
  occ.workgroups_per_cu = 2;
  // 512 workgroups: one round. 512 G MACs x 0.5 pJ / 1000 W = 256 us.
  auto power = model::compose(cu, occ, {512, 2, 0, 1, 0, 1}, kRound);
  CHECK(power.bound == "power ceiling");
  CHECK(power.power_seconds == Approx(256e-6));
  // The drain: 512 MiB stored by the last round, through 8 XCDs' L2 at 2048 B/clock.
  CHECK(power.drain_seconds == Approx(512.0 * 1048576 / (8 * 2048 * 2.4e9)));
  CHECK(power.seconds == Approx(1e-6 + 256e-6 + power.drain_seconds));
  // The same MACs with fp6 / fp4 operands: half the 8-bit energy.
  cu.macs = {0, 0, 2000000000};
  CHECK(model::compose(cu, occ, {512, 2, 0, 1, 0, 1}, kRound).power_seconds == Approx(128e-6));
  // Other fitted values recompose without the CU model: 0.25 pJ per 8-bit MAC.
  model::Fitted cheaper = kRound;
  cheaper.mac_energy_8bit = 0.25e-12;
  CHECK(model::recompose_seconds(power, cheaper) == Approx(1e-6 + 128e-6 + power.drain_seconds));

  cu.macs = {0, 0, 0};
  cu.stored_bytes = 0;
  // 64 MiB read per workgroup: 32 GiB in all, 4 GiB per XCD at 4.9 TB/s = 874 us.
  auto l2 = model::compose(cu, occ, {512, 2, 0, 0.0, 64.0 * 1048576, 1}, kRound);
  CHECK(l2.bound == "L2 bandwidth");
  CHECK(l2.memory_bound);
  CHECK(l2.l2_seconds == Approx(512 * 64.0 * 1048576 / 8 / (2048 * 2.4e9)));
  CHECK(l2.l2_hit_rate == 1.0);
  // Every line a miss: 32 GiB through the MALL at 17.2 TB/s (2.0 ms) exceeds L2's 874 us.
  auto mall = model::compose(cu, occ, {512, 2, 0, 1.0, 64.0 * 1048576, 1}, kRound);
  CHECK(mall.bound == "MALL bandwidth");
  CHECK(mall.seconds == Approx(1e-6 + 512 * 64.0 * 1048576 / 17.2e12));
}

TEST_CASE("model: global latency between an L2 hit, a first touch from HBM and a MALL hit", "[model]") {
  using namespace model::param;
  CHECK(model::global_latency(0, 1e6, 1e9) == uint32_t(kL2HitLatency.value));
  // Every miss is a first touch of the buffers' bytes: HBM.
  CHECK(model::global_latency(1, 1e6, 1e6) == uint32_t(kHbmLatency.value));
  // A quarter of the missed bytes are first touches, the rest hit the MALL.
  CHECK(model::global_latency(1, 1e6, 4e6) ==
        uint32_t(std::lround(0.25 * kHbmLatency.value + 0.75 * kL2MissLatency.value)));
  CHECK(model::global_latency(1, 1e9, 4e9) == uint32_t(kHbmLatency.value));  // beyond the 256 MiB MALL
  CHECK(model::global_latency(0.5, 1e6, 4e6) ==
        uint32_t(std::lround(0.5 * kL2HitLatency.value +
                             0.5 * (0.5 * kHbmLatency.value + 0.5 * kL2MissLatency.value))));
}
