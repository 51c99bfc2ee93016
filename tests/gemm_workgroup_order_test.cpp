// Schedule::workgroup_order: the XCD renumbering and the tile-row grouping give
// every output tile to exactly one workgroup (a tile left out or computed twice
// leaves C wrong somewhere), on grids that are and are not whole rounds of 8
// and whose last group has fewer tile rows.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "cdna4/gemm.hpp"
#include "cdna4/reference.hpp"
#include "gemm_support.hpp"
#include "schedule_test_support.hpp"
#include "support/errors.hpp"

using namespace cdna4;
using cdna4::test::error_of;

TEST_CASE("a workgroup order computes every tile once, bit-exact", "[gemm][workgroup_order]") {
  Schedule s = load_schedule(schedule_test::schedules_dir() + "tilelang_ns2_128x128x64_w4.json");
  Device device = Device::emulator();
  const WorkgroupOrder orders[] = {{8, 1}, {8, 4}, {1, 3}, {8, 64}};
  // Tiles (N x M): 9 x 7 (63: 56 renumbered, 7 kept; groups of 4 rows leave 3),
  // 2 x 1 (fewer than 8), 8 x 4 (whole rounds).
  const std::pair<int64_t, int64_t> grids[] = {{9, 7}, {2, 1}, {8, 4}};
  for (const WorkgroupOrder& order : orders)
    for (auto [tiles_n, tiles_m] : grids) {
      s.workgroup_order = order;
      const int64_t m = tiles_m * 128 - 5, n = tiles_n * 128 - 8, k = 64;
      INFO(fmt::format("xcds {} group_m {}, {} x {} tiles", order.xcds, order.group_m, tiles_n, tiles_m));
      const auto a = test::integer_matrix(size_t(m * k), 3), b = test::integer_matrix(size_t(k * n), 4);
      const GemmRun run = run_gemm(device, s, test::problem(m, n, k, test::bytes_of(a), test::bytes_of(b), OutType::f32));
      CHECK(differing_elements(run.c, to_output_bits(reference_gemm(a, b, m, n, k), DataType::f32), 4) == 0);
    }
}

TEST_CASE("workgroup_order in schedule JSON: parsed, printed, refused when off", "[schedule][workgroup_order]") {
  auto j = schedule_test::read_text(schedule_test::schedules_dir() + "tilelang_ns2_128x128x64_w4.json");
  const auto with = [&](const std::string& order) {
    std::string text = j;
    text.insert(text.find("\"tile\""), "\"workgroup_order\": " + order + ",\n  ");
    return text;
  };
  const Schedule s = parse_schedule(with(R"({"xcds": 8, "group_m": 4})"));
  CHECK(s.workgroup_order == WorkgroupOrder{8, 4});
  CHECK(parse_schedule(to_json(s)) == s);
  CHECK(parse_schedule(j).workgroup_order == WorkgroupOrder{});
  CHECK_THAT(error_of([&] { parse_schedule(with(R"({"xcds": 4})")); }),
             Catch::Contains("workgroup_order.xcds: expected 1 or 8 (gfx950's XCDs), got 4"));
  CHECK_THAT(error_of([&] { parse_schedule(with(R"({"group_m": 0})")); }), Catch::Contains("workgroup_order.group_m"));
  CHECK_THAT(error_of([&] { parse_schedule(with(R"({"order": 1})")); }), Catch::Contains("order"));
}
