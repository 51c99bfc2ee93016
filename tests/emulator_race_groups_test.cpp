// Race and hazard reports are grouped by (kind, rule, pc) with counts, so an
// instruction that races on every loop trip of every wave fills one report and
// a second finding stays visible; memory stays bounded by max_races groups.
#include <catch2/catch.hpp>

#include "emulator_test_kernel.hpp"
#include "repeated_hazard_kernel.hpp"

using namespace cdna4;
using namespace cdna4::emutest;

namespace {

constexpr uint32_t kTrips = 20, kWaves = 4, kWorkgroups = 3;

emu::RunStats run_repeated(emu::EmulatorOptions options) {
  KernelShape shape;
  shape.lds = 1024;
  shape.max_workgroup_size = 64 * kWaves;
  std::vector<uint32_t> buffer(64, 0);
  Args args;
  args.add(buffer);
  const TestKernel k = TestKernel::build(repeated_hazard_body(int(kTrips)), shape);
  return run(k, args.dispatch(kWorkgroups, 64 * kWaves), options);
}

}  // namespace

TEST_CASE("race groups: a repeated hazard is one report with its count, the next finding follows",
          "[emulator][races]") {
  for (bool instant_mode : {true, false}) {
    INFO("instant " << instant_mode);
    const emu::RunStats stats = run_repeated(instant_mode ? instant() : randomized(7));
    INFO(race_text(stats));
    REQUIRE(stats.races.size() == 2);
    const RaceReport& m0 = stats.races[0];
    CHECK(m0.rule == HazardRule::M0WrittenBeforeLdsDma);
    CHECK(m0.count == uint64_t(kTrips) * kWaves * kWorkgroups);
    CHECK(m0.workgroup[0] == 0);  // the first occurrence's facts
    const RaceReport& trans = stats.races[1];
    CHECK(trans.rule == HazardRule::TransResultReadByValu);
    CHECK(trans.count == uint64_t(kWaves) * kWorkgroups);
    CHECK(trans.pc > m0.pc);
    CHECK(stats.dropped_races == 0);
  }
}

TEST_CASE("race groups: groups beyond max_races are counted, not kept", "[emulator][races]") {
  emu::EmulatorOptions options = instant();
  options.max_races = 1;
  const emu::RunStats stats = run_repeated(options);
  REQUIRE(stats.races.size() == 1);
  CHECK(stats.races[0].rule == HazardRule::M0WrittenBeforeLdsDma);
  CHECK(stats.races[0].count == uint64_t(kTrips) * kWaves * kWorkgroups);
  CHECK(stats.dropped_races == uint64_t(kWaves) * kWorkgroups);

  options.max_races = 0;
  const emu::RunStats none = run_repeated(options);
  CHECK(none.races.empty());
  CHECK(none.dropped_races == uint64_t(kTrips + 1) * kWaves * kWorkgroups);
}

TEST_CASE("race groups: the counts do not depend on the thread count", "[emulator][races]") {
  emu::EmulatorOptions one = randomized(11), two = randomized(11);
  one.threads = 1;
  two.threads = 2;
  const emu::RunStats a = run_repeated(one), b = run_repeated(two);
  REQUIRE(a.races.size() == b.races.size());
  for (size_t i = 0; i < a.races.size(); ++i) {
    CHECK(a.races[i].pc == b.races[i].pc);
    CHECK(a.races[i].count == b.races[i].count);
    CHECK(a.races[i].what == b.races[i].what);
  }
}

TEST_CASE("race groups: a race and a hazard at one pc are two groups", "[emulator][races]") {
  std::vector<uint32_t> buffer(64, 1);
  Args args;
  args.add(buffer);
  const TestKernel k = TestKernel::build(R"(
  s_load_dwordx2 s[4:5], s[0:1], 0
  s_waitcnt lgkmcnt(0)
  v_lshlrev_b32 v3, 2, v0
  global_load_dword v10, v3, s[4:5]
  v_mov_b32 v2, 1.0
  v_exp_f32 v2, v2
  v_add_f32 v4, v10, v2
  s_waitcnt vmcnt(0)
  s_endpgm
)");
  const emu::RunStats stats = run(k, args.dispatch(2, 64), randomized(3));
  INFO(race_text(stats));
  REQUIRE(stats.races.size() == 2);
  CHECK(stats.races[0].pc == stats.races[1].pc);
  CHECK(stats.races[0].kind != stats.races[1].kind);
  CHECK(stats.races[0].count == 2);
  CHECK(stats.races[1].count == 2);
}
