// LaunchOptions::on_progress: one call per workgroup, counts 1..total in order;
// a cancel set from the callback stops the launch with a clear error.
#include <catch2/catch.hpp>

#include <atomic>
#include <vector>

#include "cdna4/gemm.hpp"
#include "gemm_support.hpp"
#include "schedule_test_support.hpp"

using namespace cdna4;

TEST_CASE("the emulator reports progress after every workgroup and stops on cancel", "[emulator][progress]") {
  const Schedule s = load_schedule(schedule_test::schedules_dir() + "baseline_256x256x64_w8.json");
  const GemmKernel k = compile(s, test::shape(700, 600, 64));  // 3 x 3 workgroups
  REQUIRE(k.grid.x * k.grid.y == 9);
  EmulatorConfig config;
  config.threads = 2;
  Device device = Device::emulator(config);
  Buffer a = device.alloc(700 * 64 * 2), b = device.alloc(600 * 64 * 2), c = device.alloc(700 * 600 * 4);
  a.fill_zero();
  b.fill_zero();

  std::vector<LaunchProgress> seen;
  LaunchOptions launch;
  launch.on_progress = [&](const LaunchProgress& p) { seen.push_back(p); };  // calls never overlap
  device.launch(k.kernel, k.grid, k.block, {a, b, c}, launch);
  REQUIRE(seen.size() == 9);
  for (size_t i = 0; i < seen.size(); ++i) {
    CHECK(seen[i].workgroups_done == i + 1);
    CHECK(seen[i].workgroups_total == 9);
    CHECK(seen[i].elapsed_seconds >= (i ? seen[i - 1].elapsed_seconds : 0.0));
  }

  std::atomic<bool> cancel{false};
  size_t calls = 0;
  launch.cancel = &cancel;
  launch.on_progress = [&](const LaunchProgress& p) {
    ++calls;
    if (p.workgroups_done == 2) cancel = true;
  };
  config.threads = 1;
  Device serial = Device::emulator(config);
  Buffer a1 = serial.alloc(700 * 64 * 2), b1 = serial.alloc(600 * 64 * 2), c1 = serial.alloc(700 * 600 * 4);
  a1.fill_zero();
  b1.fill_zero();
  CHECK_THROWS_WITH(serial.launch(k.kernel, k.grid, k.block, {a1, b1, c1}, launch), Catch::Contains("launch cancelled"));
  CHECK(calls == 2);  // one thread: the third workgroup never starts
}
