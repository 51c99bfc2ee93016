// Grids whose workgroups differ: which workgroups are sampled, the estimate
// between them, the dispatch of unequal workgroups, and a deliberately
// unbalanced kernel on the model device.
#include <catch2/catch.hpp>

#include <map>

#include "cdna4/runtime.hpp"
#include "emulator_test_kernel.hpp"
#include "runtime/model/device_model.hpp"
#include "runtime/model/grid_sample.hpp"
#include "runtime/model/parameters.hpp"

using namespace cdna4;
using model::GridEstimate;
using model::GridShape;

TEST_CASE("model grid: small grids are traced whole, larger ones along each dimension from first to last", "[model]") {
  static_assert(model::param::kTraceAllWorkgroups.value == 16 && model::param::kGridSamples.value == 16);
  CHECK(model::sample_workgroups(GridShape{{4, 2, 2}}).size() == 16);
  // 1-D: 16 evenly spaced ids, 0 and the last among them.
  const auto line = model::sample_workgroups(GridShape{{1000, 1, 1}});
  REQUIRE(line.size() == 16);
  CHECK(line.front() == 0);
  CHECK(line[1] == 67);  // round(999 / 15)
  CHECK(line.back() == 999);
  // 3-D (64 heads x 8 query tiles x 16 batches): 1 + 5 per dimension, each
  // dimension's last position sampled with the others at 0.
  const GridShape grid{{64, 8, 16}};
  const auto ids = model::sample_workgroups(grid);
  CHECK(ids.size() == 16);
  for (auto at : {std::array<uint32_t, 3>{63, 0, 0}, {0, 7, 0}, {0, 0, 15}})
    CHECK(std::count(ids.begin(), ids.end(), grid.linear(at)) == 1);
}

TEST_CASE("model grid: a quantity sampled along each dimension is estimated additively in between", "[model]") {
  const GridShape grid{{10, 5, 1}};
  // cost = 100 + 10 x + 50 y, sampled at x = 0, 9 (y = 0) and y = 0, 4 (x = 0).
  const GridEstimate cost(grid, {{grid.linear({0, 0, 0}), 100}, {grid.linear({9, 0, 0}), 190},
                                 {grid.linear({0, 4, 0}), 300}});
  CHECK(cost.at(grid.linear({3, 0, 0})) == Approx(130));
  CHECK(cost.at(grid.linear({3, 2, 0})) == Approx(230));
  CHECK(cost.at(grid.linear({9, 4, 0})) == Approx(300));  // 390 kept within the sampled range
  CHECK(cost.lowest() == 100);
  CHECK(cost.highest() == 300);
  CHECK_FALSE(cost.uniform());
}

TEST_CASE("model grid: unequal workgroups are dispatched in order to the slot that frees first", "[model]") {
  // One XCD of two slots, workgroups costing 10, 1, 1, 1, 10: slot A runs
  // 10; slot B runs 1, 1, 1 (ends at 3), then the last 10: ends at 13.
  const GridShape grid{{5, 1, 1}};
  const GridEstimate cost(grid, {{0, 10}, {1, 1}, {2, 1}, {3, 1}, {4, 10}});
  CHECK(model::dispatch_makespan(cost, 5, 1, 2) == 13);
  // Two XCDs of one slot: XCD 0 gets 0, 2, 4 (21), XCD 1 gets 1, 3 (2).
  CHECK(model::dispatch_makespan(cost, 5, 2, 1) == 21);
  // Alike workgroups: rounds x cost.
  const GridEstimate same(GridShape{{1025, 1, 1}}, {{0, 7}});
  CHECK(model::dispatch_makespan(same, 1025, 8, 64) == 3 * 7);
}

// Workgroup i runs i / 64 + 1 trips of 8 chained MFMAs (16 clocks each): the
// first are the lightest, the last 128 times heavier. 8192 one-wave
// workgroups, 16 per CU (128 registers: 4 waves per SIMD): two rounds of
// 4096. On one CU four copies share each SIMD's MFMA pipe: 512 clocks a trip.
TEST_CASE("model grid: an unbalanced grid is timed by its heaviest rounds, never above the MFMA peak", "[model]") {
  emutest::KernelShape shape;
  shape.vgprs = 128;
  std::string body = "  s_lshr_b32 s3, s2, 6\n  s_add_u32 s3, s3, 1\nloop:\n";
  for (int i = 0; i < 8; ++i) body += "  v_mfma_f32_16x16x32_bf16 a[0:3], v[0:3], v[4:7], a[0:3]\n";
  body += "  s_sub_u32 s3, s3, 1\n  s_cmp_lg_u32 s3, 0\n  s_cbranch_scc1 loop\n  s_endpgm\n";
  const auto k = emutest::TestKernel::build(body, shape);
  EmulatorConfig config;
  config.model_only = true;
  Device dev = Device::open("model", config);
  const uint32_t workgroups = 8192;
  const ModelReport r = *dev.launch(Kernel::from_hsaco(k.hsaco), {workgroups}, {64}, KernargBlock(64)).model;
  REQUIRE(r.workgroups_per_cu == 16);
  CHECK(r.rounds == 2);
  // The first resident set (16) and the 15 other samples of a 1-D grid.
  CHECK(r.sampled_workgroups == 16 + 15);
  // The lightest resident set: one trip (512 clocks of pipe plus start-up);
  // the heaviest: 128 trips.
  CHECK(r.lightest_cu_cycles >= 512);
  CHECK(r.lightest_cu_cycles < 2 * 512);
  CHECK(r.heaviest_cu_cycles >= 128 * 512);
  CHECK(r.heaviest_cu_cycles < 129 * 512);
  // The last workgroup (128 trips) starts when its XCD's heaviest first-round
  // workgroup (64 trips) frees a slot: about 1.5 x the heaviest set.
  const double cu_cycles = r.compute_seconds * model::param::kClockHz.value;
  CHECK(cu_cycles >= 1.45 * double(r.heaviest_cu_cycles));
  CHECK(cu_cycles <= 1.55 * double(r.heaviest_cu_cycles));
  CHECK(double(r.cycles) >= cu_cycles);
  // Every MFMA of the grid over 1024 pipes is a floor no figure goes below.
  double pipe_clocks = 0;
  for (uint32_t i = 0; i < workgroups; ++i) pipe_clocks += (i / 64 + 1) * 8 * 16.0;
  CHECK(double(r.cycles) >= pipe_clocks / 1024);
  CHECK(r.mfma_utilization <= 1.0);
  // The pipes are busy nearly all the CU time, so the power ceiling binds.
  CHECK(r.bound == "power ceiling");
  CHECK(r.mfma_peak_seconds == Approx(pipe_clocks / 1024 / model::param::kClockHz.value).epsilon(0.02));
}

// The merge of the sampled grid with the calibration's terms: the MACs of each
// operand width are the sums of the workgroups' estimates (as the MFMA pipe
// clocks are), the first round's dispatch sits on top of the slot-by-slot
// dispatch, and the recomposition weighs the MFMA peak too.
TEST_CASE("model grid: MACs by width are grid sums, dispatch adds to the makespan, recomposition knows the MFMA peak",
          "[model]") {
  static_assert(model::param::kXcds.value == 8 && model::param::kComputeUnits.value == 256);
  // 512 one-wave workgroups, one per CU: two rounds. Workgroup i costs
  // 1000 + 10 i clocks and does 1000 (1 + i) 16-bit MACs and 2000 8-bit ones.
  const GridShape grid{{512, 1, 1}};
  std::map<uint64_t, double> cycles, pipe, macs16, macs8, zero;
  for (uint64_t i = 0; i < 512; ++i) {
    cycles[i] = 1000 + 10.0 * double(i);
    pipe[i] = 500;
    macs16[i] = 1000 * double(1 + i);
    macs8[i] = 2000;
    zero[i] = 0;
  }
  const model::WorkgroupCosts costs{GridEstimate(grid, cycles),
                                    GridEstimate(grid, pipe),
                                    GridEstimate(grid, zero),
                                    GridEstimate(grid, zero),
                                    {GridEstimate(grid, macs16), GridEstimate(grid, macs8), GridEstimate(grid, zero)},
                                    512};
  model::CuResult cu;
  cu.cycles = 1000;
  model::Occupancy occ;
  occ.workgroups_per_cu = 1;
  const model::Fitted fitted{1e-12, 0.5e-12, 1e-6};
  const ModelReport r = model::compose(cu, occ, {512, 1, 0, 1, 0, 1}, costs, fitted);
  CHECK(r.mfma_macs[0] == Approx(1000.0 * 512 * 513 / 2));
  CHECK(r.mfma_macs[1] == Approx(2000.0 * 512));
  CHECK(r.mfma_macs[2] == 0);
  // 256 first-round workgroups over 8 XCDs: 32 one-wave starts, 32 clocks.
  const double clock = model::param::kClockHz.value;
  CHECK(r.dispatch_seconds == Approx(32 / clock));
  const double makespan = model::dispatch_makespan(costs.cycles, 512, 8, 32);
  CHECK(r.compute_seconds == Approx(makespan / clock + 32 / clock));
  CHECK(r.bound == "CU");
  CHECK(r.seconds == Approx(1e-6 + r.compute_seconds));
  CHECK(model::recompose_seconds(r, fitted) == Approx(r.seconds));
  CHECK(r.mfma_peak_seconds == Approx(500.0 * 512 / 1024 / clock));
  // With the MFMA pipe time above the CU time, the peak bounds the
  // recomposition even when the energies are refitted to nothing.
  ModelReport busy = r;
  busy.mfma_peak_seconds = 2 * r.compute_seconds;
  CHECK(model::recompose_seconds(busy, {0, 0, 0}) == Approx(busy.mfma_peak_seconds));
}
