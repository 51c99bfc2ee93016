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
