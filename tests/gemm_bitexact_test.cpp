// Bit-exact GEMM on the emulator for every shipped schedule, output type and a
// set of shapes (tile-exact, two tiles, ragged, K below one tile, M=1, N=1, K=1),
// under randomized memory completion with several seeds.
//
// References (raw bits of every element compared):
// - integer-valued bf16 inputs: every partial sum is exact in fp32, so the
//   result is the same under any summation order and holds on any hardware;
// - normally distributed bf16 inputs: the emulator's documented MFMA policy
//   (one fp32 FMA chain per element in k order from 0), see docs/emulator.md.
// bf16 output is the fp32 result rounded to nearest even.
#include <catch2/catch.hpp>

#include <tuple>

#include <fmt/format.h>

#include "cdna4/gemm.hpp"
#include "gemm_support.hpp"
#include "schedule_test_support.hpp"
#include "support/process.hpp"

using namespace cdna4;

namespace {

struct Case {
  int64_t m, n, k;
  const char* what;
};

std::vector<Case> shapes_for(const Schedule& s) {
  const int64_t tm = s.tile_m, tn = s.tile_n, tk = s.tile_k;
  return {{tm, tn, tk, "tile-exact"},
          {2 * tm, 2 * tn, 2 * tk, "2x tiles"},
          {257, 130, 96, "ragged"},
          {tm, tn, tk / 2, "K < tile K"},
          {1, tn, tk, "M=1"},
          {tm, 1, tk, "N=1"},
          {33, 17, 1, "K=1"}};
}

void check_gemm(const Schedule& s, const Case& c, OutType out, bool integer_data, uint64_t seed) {
  const auto a = integer_data ? test::integer_matrix(size_t(c.m * c.k), 11 + uint32_t(seed))
                              : test::random_matrix(size_t(c.m * c.k), 11 + uint32_t(seed));
  const auto b = integer_data ? test::integer_matrix(size_t(c.k * c.n), 23 + uint32_t(seed))
                              : test::random_matrix(size_t(c.k * c.n), 23 + uint32_t(seed));
  EmulatorConfig config;
  config.seed = seed;
  Device device = Device::emulator(config);
  const GemmRun run = run_gemm(device, s, c.m, c.n, c.k, a, b, out);
  const auto expected = to_output_bits(reference_gemm(a, b, c.m, c.n, c.k), out == OutType::bf16);
  INFO(fmt::format("{} {} {}x{}x{} {} {} data, seed {}", s.name, c.what, c.m, c.n, c.k,
                   out == OutType::f32 ? "f32" : "bf16", integer_data ? "integer" : "random", seed));
  CHECK(run.launch.races.empty());
  CHECK(differing_elements(run.c, expected, out == OutType::f32 ? 4 : 2) == 0);
}

}  // namespace

TEST_CASE("every shipped schedule is bit-exact on the emulator", "[gemm][bitexact]") {
  const auto& files = schedule_test::shipped_files();
  REQUIRE(files.size() >= 7);
  for (const auto& file : files) {
    const Schedule s = schedule_test::load(file);
    SECTION(s.name) {
      for (const Case& c : shapes_for(s))
        for (OutType out : {OutType::f32, OutType::bf16}) {
          check_gemm(s, c, out, true, 1);
          check_gemm(s, c, out, false, 2);
        }
    }
  }
}

TEST_CASE("results do not depend on the completion order", "[gemm][bitexact][seeds]") {
  const Schedule s = load_schedule(test::source_path("schedules/baseline_256x256x64_w8.json"));
  for (uint64_t seed : {3, 4, 5, 6}) check_gemm(s, {300, 260, 640, "multi-trip loop, ragged"}, OutType::f32, false, seed);
}
