// compile() refuses what it cannot do correctly, with a message that says why.
#include <catch2/catch.hpp>

#include "gemm_support.hpp"

#include "cdna4/gemm.hpp"
#include "schedule_test_support.hpp"
#include "support/errors.hpp"

using namespace cdna4;
using cdna4::test::shape;
using cdna4::test::error_of;

namespace {

Schedule baseline() { return schedule_test::load("baseline_256x256x64_w8.json"); }


}  // namespace

TEST_CASE("zero-size and inconsistent shapes are refused", "[gemm][errors]") {
  CHECK(error_of([] { compile(baseline(), shape(0, 256, 64)); }) == "shape 0x256x64 f32: M, N and K must be at least 1");
  CHECK(error_of([] { compile(baseline(), shape(256, 256, 12)); }).find("K must be a multiple of 8") != std::string::npos);
  GemmShape narrow_lda = shape(256, 256, 64);
  narrow_lda.lda = 32;
  CHECK(error_of([&] { compile(baseline(), narrow_lda); }).find("leading dimension is smaller") != std::string::npos);
  GemmShape odd_ldb = shape(256, 256, 64);
  odd_ldb.ldb = 68;
  CHECK(error_of([&] { compile(baseline(), odd_ldb); }).find("multiples of 8 elements") != std::string::npos);
  CHECK(error_of([] { compile(baseline(), shape(1 << 16, 1 << 16, 1 << 16)); }).find("below 1 GiB") != std::string::npos);
  CHECK(error_of([] { parse_shape("12x34"); }) == "shape '12x34': expected MxNxK, e.g. 1024x1024x1024");
}

TEST_CASE("a schedule the verifier rejects is not compiled", "[gemm][errors]") {
  const Schedule buggy = schedule_test::load("fixtures/seed001_interleave4_buggy.json");
  const std::string e = error_of([&] { compile(buggy, shape(256, 256, 256)); });
  CHECK(e.find("rejected") != std::string::npos);
  CHECK(e.find("war-race") != std::string::npos);
}

TEST_CASE("a tile that needs more registers than gfx950 has is refused", "[gemm][errors]") {
  Schedule big = schedule_test::load("tilelang_ns2_128x128x64_w4.json");
  big.name = "too_big";
  big.tile_m = 512;
  big.tile_n = 512;
  big.lds_buffers = 1;  // keep LDS within the verifier's limit so the register plan is what refuses
  big.num_stages = 1;
  // The verifier's register rule sees it first...
  CHECK(error_of([&] { compile(big, shape(512, 512, 64)); }).find("[registers]") != std::string::npos);
  // ...and the code generator's register plan refuses it on its own.
  CompileOptions unverified;
  unverified.verify = false;
  CHECK(error_of([&] { compile(big, shape(512, 512, 64), unverified); }) ==
        "schedule too_big: the wave tile 256x256 needs 330 VGPRs (256 for 1 S2R register version(s) of A/B "
        "fragments), gfx950 has 256");
}

TEST_CASE("compile caches by schedule and shape", "[gemm]") {
  const Schedule s = baseline();
  const GemmKernel first = compile(s, shape(512, 256, 128));
  const GemmKernel again = compile(s, shape(512, 256, 128));
  CHECK(again.stats.cached);
  CHECK((again.kernel.hsaco() == first.kernel.hsaco()));
  CHECK(first.grid.x == 1);
  CHECK(first.grid.y == 2);
  CHECK(first.block.x == 512);
  // 252 registers per lane -> 256 allocated -> 2 waves; 128 KiB LDS -> 1 workgroup of 8 waves per CU -> 2.
  CHECK(first.stats.vgprs == 252);
  CHECK(first.stats.waves_per_simd == 2);
  const GemmKernel small = compile(schedule_test::load("triton_ns3_128x128x64_w4.json"), shape(256, 256, 256));
  CHECK(small.stats.waves_per_simd == 1);  // 96 KiB LDS: one 4-wave workgroup per CU
  CHECK(std::string(small.stats.occupancy_limit) == "LDS");
  CompileOptions fresh;
  fresh.use_cache = false;
  const GemmKernel cold = compile(s, shape(512, 256, 128), fresh);
  CHECK_FALSE(cold.stats.cached);
  CHECK((cold.kernel.hsaco() == first.kernel.hsaco()));  // compiling is deterministic
}
