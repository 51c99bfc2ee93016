// Lowering does not depend on K: the steady-state loop is emitted once and a
// long K only changes its trip count. Long-K kernels stay bit-exact.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "cdna4/gemm.hpp"
#include "gemm_support.hpp"
#include "schedule_test_support.hpp"

using namespace cdna4;
using cdna4::test::shape;

namespace {


CompileOptions uncached() {
  CompileOptions o;
  o.use_cache = false;
  return o;
}

}  // namespace

TEST_CASE("compile time and kernel size are flat in K", "[gemm][codegen][k]") {
  for (const char* name : {"baseline_256x256x64_w8.json", "pingpong_256x256x64_w8.json",
                                  "interleave4_256x256x64_w8.json", "triton_ns3_128x128x64_w4.json"}) {
    INFO(name);
    const Schedule s = schedule_test::load(name);
    const GemmKernel small = compile(s, shape(16, 16, int64_t(1) << 16), uncached());
    const GemmKernel large = compile(s, shape(16, 16, int64_t(1) << 22), uncached());
    const GemmKernel largest = compile(s, shape(1, 1, int64_t(1) << 28), uncached());  // A: 512 MiB
    CHECK(large.stats.instructions == small.stats.instructions);
    CHECK(largest.stats.loop_instructions == small.stats.loop_instructions);
    CHECK(large.stats.lower_ms < 1000);
    CHECK(largest.stats.lower_ms < 1000);
  }
}

TEST_CASE("a long-K kernel counts its loop trips and keeps the prologue and epilogue", "[gemm][codegen][k]") {
  const Schedule s = schedule_test::load("baseline_256x256x64_w8.json");
  CompileOptions o = uncached();
  o.keep_assembly = true;
  const int64_t tiles = (int64_t(1) << 22) / s.tile_k;
  const GemmKernel k = compile(s, shape(16, 16, tiles * s.tile_k), o);
  const int per_trip = k.stats.loop_iterations;
  REQUIRE(per_trip > 0);
  // Iterations outside the loop are described with their place in the whole K.
  CHECK(k.assembly.find(fmt::format("epilogue iteration i={}", tiles)) != std::string::npos);
  CHECK(k.assembly.find("prologue iteration i=0") != std::string::npos);
  const auto at = k.assembly.find("steady state: ");
  REQUIRE(at != std::string::npos);
  const int64_t trips = std::stoll(k.assembly.substr(at + 14));
  CHECK(trips * per_trip > tiles - 64);
  CHECK(trips * per_trip <= tiles);
}

TEST_CASE("kernels past the stand-in K are bit-exact for every residue of the loop period", "[gemm][codegen][k]") {
  for (const char* name : {"baseline_256x256x64_w8.json", "pingpong2_256x128x64_w8.json",
                                  "tilelang_ns2_128x128x64_w4.json", "triton_ns3_128x128x64_w4.json"}) {
    const Schedule s = schedule_test::load(name);
    for (const int64_t tiles : {101, 102, 103, 104}) {
      INFO(name << " tiles " << tiles);
      const int64_t m = 16, n = 8, k = tiles * s.tile_k - 8;  // ragged last tile
      const auto a = test::integer_matrix(size_t(m * k), 5), b = test::integer_matrix(size_t(k * n), 6);
      EmulatorConfig config;
      config.instant_completion = true;
      Device device = Device::emulator(config);
      const GemmRun run = run_gemm(device, s, test::problem(m, n, k, test::bytes_of(a), test::bytes_of(b), OutType::f32));
      CHECK(run.launch.races.empty());
      CHECK(run.c == to_output_bits(reference_gemm(a, b, m, n, k), false));
    }
  }
}
