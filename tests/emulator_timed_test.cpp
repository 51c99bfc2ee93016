// Timed mode: each wave issues one instruction per kIssueClocks, an MFMA holds
// its SIMD's MFMA pipe for its passes, and a global load lands
// gfx950::kL2HitLatencyClocks after it issued.
#include <catch2/catch.hpp>

#include "common/latencies.hpp"
#include "common/mfma_table.hpp"
#include "emulator_test_kernel.hpp"
#include "runtime/emulator/timed_issue.hpp"

using namespace cdna4;
using namespace cdna4::emutest;

namespace {

constexpr uint32_t kLoaded = 7;
constexpr const char* kMfma = "v_mfma_f32_16x16x32_bf16";

// Each lane loads in[lane] into v2 (0 before), then runs `filler` `count`
// times and stores v2 to out[lane] without waiting for the load.
TestKernel load_then_store(const std::string& filler, int count) {
  std::string body = R"(
  s_load_dwordx4 s[4:7], s[0:1], 0
  s_waitcnt lgkmcnt(0)
  v_lshlrev_b32 v1, 2, v0
  v_mov_b32 v2, 0
  global_load_dword v2, v1, s[6:7]
)";
  body += fmt::format("  .rept {}\n  {}\n  .endr\n", count, filler);
  body += "  global_store_dword v1, v2, s[4:5]\n  s_waitcnt vmcnt(0)\n  s_endpgm\n";
  KernelShape shape;
  shape.vgprs = 128;
  return TestKernel::build(body, shape);
}

struct Outcome {
  std::vector<uint32_t> out;
  emu::RunStats stats;
};

Outcome run_timed(const std::string& filler, int count, uint32_t waves = 1, uint64_t seed = 1, bool instant = false) {
  const TestKernel k = load_then_store(filler, count);
  Outcome r;
  r.out.assign(64 * waves, 0xdead);
  std::vector<uint32_t> in(64 * waves, kLoaded);
  Args args;
  args.add(r.out);
  args.add(in);
  emu::EmulatorOptions o;
  o.timed = true;
  o.seed = seed;
  o.instant_completion = instant;
  r.stats = run(k, args.dispatch(1, 64 * waves), o);
  return r;
}

bool all_equal(const std::vector<uint32_t>& v, uint32_t x) {
  return std::all_of(v.begin(), v.end(), [x](uint32_t e) { return e == x; });
}

// Wave 1 loads in[lane] into v2 (0 before), runs `count` v_nop and stores v2
// to out[64 + lane] without waiting; wave 0 meanwhile runs `other` `other_count`
// times on another SIMD.
std::vector<uint32_t> loader_beside(const std::string& other, int other_count, int count) {
  std::string body = R"(
  s_load_dwordx4 s[4:7], s[0:1], 0
  s_waitcnt lgkmcnt(0)
  v_lshrrev_b32 v3, 6, v0
  v_readfirstlane_b32 s8, v3
  v_lshlrev_b32 v1, 2, v0
  v_mov_b32 v2, 0
  s_cmp_eq_u32 s8, 0
  s_cbranch_scc0 loader
)";
  body += fmt::format("  .rept {}\n  {}\n  .endr\n  s_endpgm\nloader:\n", other_count, other);
  body += fmt::format("  global_load_dword v2, v1, s[6:7]\n  .rept {}\n  v_nop\n  .endr\n", count);
  body += "  global_store_dword v1, v2, s[4:5]\n  s_waitcnt vmcnt(0)\n  s_endpgm\n";
  KernelShape shape;
  shape.vgprs = 128;
  const TestKernel k = TestKernel::build(body, shape);
  std::vector<uint32_t> out(128, 0xdead), in(128, kLoaded);
  Args args;
  args.add(out);
  args.add(in);
  emu::EmulatorOptions o;
  o.timed = true;
  run(k, args.dispatch(1, 128), o);
  return std::vector<uint32_t>(out.begin() + 64, out.end());
}

// Instructions of `clocks` each that fit in the load's latency.
int fitting(int clocks) { return gfx950::kL2HitLatencyClocks / clocks; }

}  // namespace

TEST_CASE("timed: a global load lands after the L2 latency in clocks", "[emulator][timed]") {
  const int nop = int(emu::kIssueClocks);
  SECTION("one wave: the store sees the old value before the latency, the loaded one after") {
    const Outcome early = run_timed("v_nop", fitting(nop) - 20);
    CHECK(all_equal(early.out, 0));
    CHECK_FALSE(race_text(early.stats).empty());  // the unwaited read is still reported
    CHECK(all_equal(run_timed("v_nop", fitting(nop) + 20).out, kLoaded));
  }
  SECTION("waves issue side by side: a second wave does not speed the first one up") {
    CHECK(all_equal(run_timed("v_nop", fitting(nop) - 20, 2).out, 0));
    CHECK(all_equal(run_timed("v_nop", fitting(nop) + 20, 2).out, kLoaded));
  }
  SECTION("an MFMA holds the SIMD's MFMA pipe for its passes") {
    const int mfma = gfx950::kClocksPerMfmaPass * gfx950::find_mfma(kMfma)->passes;
    const std::string op = fmt::format("{} a[0:3], v[8:11], v[12:15], a[0:3]", kMfma);
    CHECK(all_equal(run_timed(op, fitting(mfma) - 2).out, 0));
    CHECK(all_equal(run_timed(op, fitting(mfma) + 2).out, kLoaded));
    // Waves 0 and 4 share SIMD 0, so with 8 waves each gets the pipe half the time.
    CHECK(all_equal(run_timed(op, fitting(2 * mfma) + 2, 8).out, kLoaded));
    CHECK(all_equal(run_timed(op, fitting(2 * mfma) - 2, 8).out, 0));
  }
  SECTION("deterministic: the seed changes nothing") {
    const Outcome a = run_timed("v_nop", fitting(nop), 2, 1), b = run_timed("v_nop", fitting(nop), 2, 99);
    CHECK(a.out == b.out);
    CHECK(a.stats.instructions == b.stats.instructions);
  }
  SECTION("with instant completion the load lands at issue") {
    CHECK(all_equal(run_timed("v_nop", 0, 2, 1, true).out, kLoaded));
  }
}

TEST_CASE("timed: s_nop, s_sleep and a busy MFMA pipe stall only their own wave", "[emulator][timed]") {
  const int nop = int(emu::kIssueClocks);
  SECTION("s_nop N takes N + 4 clocks of its wave, however many waves run beside it") {
    const int clocks = 15 + nop;
    CHECK(all_equal(run_timed("s_nop 15", fitting(clocks) - 1).out, 0));
    CHECK(all_equal(run_timed("s_nop 15", fitting(clocks) - 1, 2).out, 0));
    CHECK(all_equal(run_timed("s_nop 15", fitting(clocks) + 2, 2).out, kLoaded));
  }
  SECTION("s_sleep N takes 64 N + 4 clocks of its wave") {
    const int clocks = 64 + nop;
    CHECK(all_equal(run_timed("s_sleep 1", fitting(clocks) - 1, 2).out, 0));
    CHECK(all_equal(run_timed("s_sleep 1", fitting(clocks) + 2, 2).out, kLoaded));
  }
  SECTION("another wave's sleep does not hold this one") {
    CHECK(all_equal(loader_beside("s_sleep 127", 4, fitting(nop) - 20), 0));
    CHECK(all_equal(loader_beside("s_sleep 127", 4, fitting(nop) + 20), kLoaded));
  }
  SECTION("another SIMD's MFMA pipe does not hold this wave") {
    const std::string op = fmt::format("{} a[0:3], v[8:11], v[12:15], a[0:3]", kMfma);
    CHECK(all_equal(loader_beside(op, 200, fitting(nop) - 20), 0));
    CHECK(all_equal(loader_beside(op, 200, fitting(nop) + 20), kLoaded));
  }
}
