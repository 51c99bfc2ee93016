// The emulator's modes (randomized late completion with race tracking, instant
// completion, and for shipped schedules the timed mode) must give the same
// output bits for every shipped schedule and every foreign test kernel: a
// difference means one mode applies a memory operation's result where the
// other does not, or a schedule's result depends on timing.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "cdna4/gemm.hpp"
#include "emulator_test_kernel.hpp"
#include "foreign/hip_build.hpp"
#include "gemm_support.hpp"
#include "schedule_test_support.hpp"
#include "support/completion_mode.hpp"

using namespace cdna4;
using cdna4::test::completion_mode;

namespace {

// Runs a foreign kernel on fresh output in both modes; returns the two outputs.
std::pair<std::vector<uint32_t>, std::vector<uint32_t>> both_modes(Device& dev, const Kernel& kernel, Dim3 grid,
                                                                   Dim3 block, Buffer out,
                                                                   const std::vector<Arg>& args,
                                                                   uint32_t dynamic_lds = 0) {
  std::vector<uint32_t> result[2];
  for (bool instant : {false, true}) {
    out.fill_zero();
    LaunchOptions o = completion_mode(instant);
    o.dynamic_lds = dynamic_lds;
    LaunchStats stats = dev.launch(kernel, grid, block, args, o);
    CHECK(stats.races.empty());
    result[instant] = out.download<uint32_t>();
  }
  return {result[0], result[1]};
}

// Spills eight per-lane dwords to scratch (the _ST and _SVS forms), clobbers
// them and reloads them swapped, as compiler spill code does: store then load
// with no wait in between. 4 waves per workgroup; out[32 g .. 32 g + 31] bytes
// for global work-item g.
constexpr uint32_t kSpillStep = 0x9e3779b1u;
uint32_t spill_constant(int i) { return uint32_t(i + 1) * 0x2545f491u; }

std::vector<uint8_t> spilling_kernel() {
  std::string body = fmt::format(R"(
  s_load_dwordx2 s[6:7], s[0:1], 0
  s_lshl_b32 s3, s2, 8
  v_add_u32 v1, s3, v0
  s_mov_b32 s8, 0x{:x}
  v_mul_lo_u32 v9, v1, s8
)",
                                 kSpillStep);
  for (int i = 0; i < 8; ++i) body += fmt::format("  s_mov_b32 s9, 0x{:x}\n  v_add_u32 v{}, s9, v9\n", spill_constant(i), 10 + i);
  body += R"(
  scratch_store_dwordx4 off, v[10:13], off
  v_mov_b32 v3, 8
  s_mov_b32 s5, 8
  scratch_store_dwordx4 v3, v[14:17], s5
)";
  for (int i = 0; i < 8; ++i) body += fmt::format("  v_mov_b32 v{}, 0\n", 10 + i);
  body += R"(
  scratch_load_dwordx4 v[14:17], off, off
  scratch_load_dwordx4 v[10:13], off, off offset:16
  s_waitcnt vmcnt(0)
  v_lshlrev_b32 v2, 5, v1
  s_waitcnt lgkmcnt(0)
  global_store_dwordx4 v2, v[10:13], s[6:7]
  global_store_dwordx4 v2, v[14:17], s[6:7] offset:16
  s_endpgm
)";
  emutest::KernelShape shape;
  shape.private_bytes = 32;
  shape.args = "      - { .name: out, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }\n";
  return codegen::build_hsaco(emutest::kernel_source(body, shape), "spill.s");
}

std::vector<float> small_floats(size_t n, uint32_t seed) {
  auto bits = test::integer_matrix(n, seed, 8);
  std::vector<float> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = bf16_to_float(bits[i]);
  return out;
}

}  // namespace

TEST_CASE("every shipped schedule gives the same bits in every emulator mode", "[emulator][modes]") {
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
      const GemmRun late = run_gemm(dev, s, test::scaled(test::problem(m, n, k, a, b, out), sa, sb), {}, completion_mode(false));
      const GemmRun instant = run_gemm(dev, s, test::scaled(test::problem(m, n, k, a, b, out), sa, sb), {}, completion_mode(true));
      LaunchOptions timed_mode = completion_mode(false);
      timed_mode.timed = true;
      const GemmRun timed = run_gemm(dev, s, test::scaled(test::problem(m, n, k, a, b, out), sa, sb), {}, timed_mode);
      CHECK(late.launch.races.empty());
      CHECK(timed.launch.races.empty());
      CHECK(late.c == instant.c);
      CHECK(late.c == timed.c);
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
  SECTION("spilling kernel (private segment)") {
    Kernel kernel = Kernel::from_hsaco(spilling_kernel());
    Buffer out = dev.alloc(2 * 256 * 32);
    auto [late, instant] = both_modes(dev, kernel, {2}, {256}, out, {out});
    CHECK(late == instant);
    for (uint32_t g = 0; g < 512; ++g)
      for (int i = 0; i < 8; ++i) {
        INFO("work-item " << g << " dword " << i);
        CHECK(late[8 * g + i] == g * kSpillStep + spill_constant((i + 4) % 8));
      }
  }
  SECTION("tiled_gemm") {
    Kernel kernel = Kernel::from_hsaco(test::compile_foreign_hip("tiled_gemm"));
    auto [late, instant] = both_modes(dev, kernel, {(n + 15) / 16, (m + 15) / 16}, {16, 16}, dc, {da, db, dc, m, n, k},
                                      2 * 16 * 16 * 4);
    CHECK(late == instant);
  }
}
