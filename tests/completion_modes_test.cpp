// The two completion modes of the emulator (randomized late completion with race
// tracking, and instant completion) must give the same output bits for every
// shipped schedule and every foreign test kernel: a difference means one mode
// applies a memory operation's result where the other does not.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "cdna4/gemm.hpp"
#include "foreign/hip_build.hpp"
#include "gemm_support.hpp"
#include "schedule_test_support.hpp"

using namespace cdna4;

namespace {

LaunchOptions mode(bool instant) {
  LaunchOptions o;
  o.instant_completion = instant;
  o.seed = 7;
  return o;
}

// Runs a foreign kernel on fresh output in both modes; returns the two outputs.
std::pair<std::vector<uint32_t>, std::vector<uint32_t>> both_modes(Device& dev, const Kernel& kernel, Dim3 grid,
                                                                   Dim3 block, Buffer out,
                                                                   const std::vector<Arg>& args,
                                                                   uint32_t dynamic_lds = 0) {
  std::vector<uint32_t> result[2];
  for (bool instant : {false, true}) {
    out.fill_zero();
    LaunchOptions o = mode(instant);
    o.dynamic_lds = dynamic_lds;
    LaunchStats stats = dev.launch(kernel, grid, block, args, o);
    CHECK(stats.races.empty());
    result[instant] = out.download<uint32_t>();
  }
  return {result[0], result[1]};
}

std::vector<float> small_floats(size_t n, uint32_t seed) {
  auto bits = test::integer_matrix(n, seed, 8);
  std::vector<float> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = bf16_to_float(bits[i]);
  return out;
}

}  // namespace

TEST_CASE("every shipped schedule gives the same bits in both completion modes", "[emulator][modes]") {
  for (const auto& file : schedule_test::shipped_files()) {
    const Schedule s = schedule_test::load(file);
    const int64_t m = 2 * s.tile_m + 37, n = s.tile_n + 19, k = 3 * s.tile_k;  // ragged, several K trips
    const auto a = test::typed_matrix(s.type_a, size_t(m * k), false, 5);
    const auto b = test::typed_matrix(s.type_b, size_t(k * n), false, 6);
    const auto sa = s.scaled ? test::scale_bytes(size_t(m * (k / 32)), false, 7) : std::vector<uint8_t>{};
    const auto sb = s.scaled ? test::scale_bytes(size_t((k / 32) * n), false, 8) : std::vector<uint8_t>{};
    Device dev = Device::emulator();
    for (OutType out : {OutType::f32, OutType::bf16}) {
      INFO(fmt::format("{} {}x{}x{} {}", s.name, m, n, k, to_string(out)));
      const GemmRun late = run_gemm(dev, s, test::scaled(test::problem(m, n, k, a, b, out), sa, sb), {}, mode(false));
      const GemmRun instant = run_gemm(dev, s, test::scaled(test::problem(m, n, k, a, b, out), sa, sb), {}, mode(true));
      CHECK(late.launch.races.empty());
      CHECK(late.c == instant.c);
    }
  }
}

TEST_CASE("foreign test kernels give the same bits in both completion modes", "[emulator][modes][runtime]") {
  Device dev = Device::emulator();
  const int m = 37, n = 45, k = 19;
  auto a = small_floats(size_t(m) * k, 1), b = small_floats(size_t(k) * n, 2);
  Buffer da = dev.alloc(a.size() * 4), db = dev.alloc(b.size() * 4), dc = dev.alloc(size_t(m) * n * 4);
  da.upload(a);
  db.upload(b);
  SECTION("vector_add") {
    Kernel kernel = Kernel::from_hsaco(test::compile_foreign_hip("vector_add"));
    const uint32_t count = uint32_t(a.size());
    auto [late, instant] = both_modes(dev, kernel, {(count + 255) / 256}, {256}, dc, {da, db, dc, int(count)});
    CHECK(late == instant);
  }
  SECTION("naive_gemm") {
    Kernel kernel = Kernel::from_hsaco(test::compile_foreign_hip("naive_gemm"));
    auto [late, instant] = both_modes(dev, kernel, {(n + 15) / 16, (m + 15) / 16}, {16, 16}, dc, {da, db, dc, m, n, k});
    CHECK(late == instant);
  }
  SECTION("tiled_gemm") {
    Kernel kernel = Kernel::from_hsaco(test::compile_foreign_hip("tiled_gemm"));
    auto [late, instant] = both_modes(dev, kernel, {(n + 15) / 16, (m + 15) / 16}, {16, 16}, dc, {da, db, dc, m, n, k},
                                      2 * 16 * 16 * 4);
    CHECK(late == instant);
  }
}
