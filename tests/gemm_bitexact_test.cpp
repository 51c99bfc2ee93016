// Bit-exact GEMM on the emulator for every shipped schedule, output type and a
// set of shapes (tile-exact, two tiles, ragged, K below one tile, M=1, N=1, K=1),
// under randomized memory completion with several seeds.
//
// Inputs in each schedule's types.a / types.b. References (raw bits of every
// element compared):
// - integer-valued inputs: every partial sum is exact in fp32, so the result is
//   the same under any summation order and holds on any hardware;
// - normally distributed inputs rounded into the type: the emulator's
//   documented MFMA policy (one fp32 FMA chain per element in k order from 0,
//   every product exact), see docs/emulator.md.
// bf16 and f16 output: the fp32 result rounded to nearest even.
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

void check_gemm(const Schedule& s, Case c, OutType out, bool integer_data, uint64_t seed) {
  if (s.scaled) c.k = (c.k + 31) / 32 * 32;  // whole MX scale blocks
  const auto a = test::typed_matrix(s.type_a, size_t(c.m * c.k), integer_data, 11 + uint32_t(seed));
  const auto b = test::typed_matrix(s.type_b, size_t(c.k * c.n), integer_data, 23 + uint32_t(seed));
  // Scales 2^-3 .. 2^3 (1.0 for integer data: sums stay exact).
  const auto sa = s.scaled ? test::scale_bytes(size_t(c.m * (c.k / 32)), integer_data, 31 + uint32_t(seed)) : std::vector<uint8_t>{};
  const auto sb = s.scaled ? test::scale_bytes(size_t((c.k / 32) * c.n), integer_data, 37 + uint32_t(seed)) : std::vector<uint8_t>{};
  EmulatorConfig config;
  config.seed = seed;
  Device device = Device::emulator(config);
  const GemmRun run = run_gemm(device, s, test::scaled(test::problem(c.m, c.n, c.k, a, b, out), sa, sb));
  const DataType out_type = data_type(out);
  const auto expected = to_output_bits(reference_gemm(s.type_a, a, s.type_b, b, c.m, c.n, c.k, sa, sb), out_type);
  INFO(fmt::format("{} {} {}x{}x{} {} {} data, seed {}", s.name, c.what, c.m, c.n, c.k, to_string(out),
                   integer_data ? "integer" : "random", seed));
  CHECK(run.launch.races.empty());
  CHECK(differing_elements(run.c, expected, size_t(element_bytes(out))) == 0);
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
      check_gemm(s, {257, 130, 96, "ragged, f16 C"}, OutType::f16, false, 2);
    }
  }
}

TEST_CASE("results do not depend on the completion order", "[gemm][bitexact][seeds]") {
  const Schedule s = load_schedule(test::source_path("schedules/baseline_256x256x64_w8.json"));
  for (uint64_t seed : {3, 4, 5, 6}) check_gemm(s, {300, 260, 640, "multi-trip loop, ragged"}, OutType::f32, false, seed);
}
