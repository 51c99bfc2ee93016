// Race and hazard reports carry their facts as fields: kind, both instructions
// and waves, the registers or LDS bytes, and the wait that was missing.
#include <catch2/catch.hpp>

#include "emulator_test_kernel.hpp"

using namespace cdna4;
using namespace cdna4::emutest;

namespace {

const RaceReport& only_first(const emu::RunStats& stats) {
  INFO(race_text(stats));
  REQUIRE_FALSE(stats.races.empty());
  return stats.races.front();
}

size_t race_count(const std::string& body) {
  std::vector<uint32_t> buffer(4 * 64, 1);
  Args args;
  args.add(buffer);
  return run(TestKernel::build(body, {}), args.dispatch(1, 64), instant()).races.size();
}

RaceReport first_race(const std::string& body, KernelShape shape = {}, uint32_t block = 64,
                      emu::EmulatorOptions options = randomized(3)) {
  std::vector<uint32_t> buffer(4 * 64, 1);
  Args args;
  args.add(buffer);
  const TestKernel k = TestKernel::build(body, shape);
  return only_first(run(k, args.dispatch(1, block), options));
}

// v3 = lane * 4, s[4:5] = the buffer.
const std::string kLoadBuffer = R"(
  s_load_dwordx2 s[4:5], s[0:1], 0
  s_waitcnt lgkmcnt(0)
  v_lshlrev_b32 v3, 2, v0
)";

// Two waves: wave 0 does `first` at LDS 0 (then waits when `wait`), wave 1 spins
// until wave 0 has long finished and does `second`. No barrier in between.
std::string two_wave_lds(const std::string& first, bool wait, const std::string& second) {
  return fmt::format(R"(
  v_lshrrev_b32 v1, 6, v0
  s_nop 0
  v_readfirstlane_b32 s6, v1
  v_mov_b32 v2, 0
  v_mov_b32 v10, 1
  v_mov_b32 v11, 2
  v_mov_b32 v12, 3
  v_mov_b32 v13, 4
  s_cmp_eq_u32 s6, 0
  s_cbranch_scc0 second
  {}
  {}
  s_endpgm
second:
  s_mov_b32 s7, 300
spin:
  s_sub_u32 s7, s7, 1
  s_cmp_lg_u32 s7, 0
  s_cbranch_scc1 spin
  {}
  s_waitcnt lgkmcnt(0)
  s_endpgm
)",
                     first, wait ? "s_waitcnt lgkmcnt(0)" : "", second);
}

KernelShape with_lds(uint32_t bytes) {
  KernelShape s;
  s.lds = bytes;
  return s;
}

}  // namespace

TEST_CASE("race report: a register read before its vmcnt names the load and the registers", "[emulator][races]") {
  const RaceReport r = first_race(kLoadBuffer + R"(
  global_load_dwordx2 v[10:11], v3, s[4:5]
  v_lshlrev_b64 v[12:13], 1, v[10:11]
  s_waitcnt vmcnt(0)
  s_endpgm
)");
  CHECK(r.kind == RaceKind::RegisterRead);
  CHECK(r.location.space == RaceLocation::Space::Vgpr);
  CHECK(r.location.first == 10);
  CHECK(r.location.count == 2);
  CHECK(r.missing == MissingWait::Vmcnt);
  CHECK(r.other_instruction == "global_load_dwordx2 v[10:11], v3, s[4:5]");
  CHECK(r.instruction == "v_lshlrev_b64 v[12:13], 1, v[10:11]");
  CHECK(r.other_pc + 8 == r.pc);
  CHECK(r.wave == r.other_wave);
  CHECK(r.rule == HazardRule::None);
  CHECK(to_string(r.location) == "v[10:11]");
  CHECK(r.what == describe(r));
  CHECK_THAT(r.what, Catch::Contains("reads v[10:11] while 'global_load_dwordx2") &&
                         Catch::Contains("s_waitcnt vmcnt"));
}

TEST_CASE("race report: overwriting a loading register, SGPRs before lgkmcnt, AGPRs", "[emulator][races]") {
  const RaceReport overwrite = first_race(kLoadBuffer + R"(
  global_load_dword v10, v3, s[4:5]
  v_mov_b32 v10, 0
  s_waitcnt vmcnt(0)
  s_endpgm
)");
  CHECK(overwrite.kind == RaceKind::RegisterOverwrite);
  CHECK(to_string(overwrite.location) == "v10");
  CHECK(overwrite.missing == MissingWait::Vmcnt);

  const RaceReport scalar = first_race(R"(
  s_load_dwordx2 s[4:5], s[0:1], 0
  s_add_u32 s6, s5, 1
  s_waitcnt lgkmcnt(0)
  s_endpgm
)");
  CHECK(scalar.kind == RaceKind::RegisterRead);
  CHECK(scalar.location.space == RaceLocation::Space::Sgpr);
  CHECK(scalar.location.first == 5);
  CHECK(scalar.location.count == 1);
  CHECK(scalar.missing == MissingWait::Lgkmcnt);
  CHECK(scalar.other_instruction == "s_load_dwordx2 s[4:5], s[0:1], 0x0");

  KernelShape agprs;
  agprs.accum_offset = 32;
  const RaceReport agpr = first_race(kLoadBuffer + R"(
  global_load_dword a1, v3, s[4:5]
  v_accvgpr_read_b32 v1, a1
  s_waitcnt vmcnt(0)
  s_endpgm
)",
                                     agprs);
  CHECK(agpr.location.space == RaceLocation::Space::Agpr);
  CHECK(agpr.location.first == 1);
  CHECK(to_string(agpr.location) == "a1");
}

TEST_CASE("race report: LDS between waves names both waves, the bytes and the missing wait", "[emulator][races]") {
  SECTION("read after write, waited for but no barrier") {
    const RaceReport r = first_race(two_wave_lds("ds_write_b128 v2, v[10:13]", true, "ds_read_b64 v[4:5], v2 offset:8"),
                                    with_lds(64), 128);
    CHECK(r.kind == RaceKind::LdsReadAfterWrite);
    CHECK(r.wave == 1);
    CHECK(r.other_wave == 0);
    CHECK(r.location.space == RaceLocation::Space::Lds);
    CHECK(r.location.first == 8);
    CHECK(r.location.count == 8);
    CHECK(to_string(r.location) == "lds:0x8+8");
    CHECK(r.missing == MissingWait::Barrier);
    CHECK(r.other_instruction == "ds_write_b128 v2, v[10:13]");
    CHECK(r.instruction == "ds_read_b64 v[4:5], v2 offset:8");
    CHECK_THAT(r.what, Catch::Contains("without an s_barrier after its s_waitcnt"));
  }
  SECTION("write after read, not waited for") {
    const RaceReport r = first_race(two_wave_lds("ds_read_b32 v4, v2", false, "ds_write_b32 v2, v10"), with_lds(64), 128);
    CHECK(r.kind == RaceKind::LdsWriteAfterRead);
    CHECK(r.other_wave == 0);
    CHECK(to_string(r.location) == "lds:0x0+4");
    CHECK(r.missing == MissingWait::LgkmcntAndBarrier);
  }
  SECTION("write after write") {
    const RaceReport r = first_race(two_wave_lds("ds_write_b32 v2, v10", true, "ds_write_b64 v2, v[10:11]"),
                                    with_lds(64), 128);
    CHECK(r.kind == RaceKind::LdsWriteAfterWrite);
    CHECK(to_string(r.location) == "lds:0x0+4");
    CHECK(r.missing == MissingWait::Barrier);
  }
}

TEST_CASE("race report: one wave's DS read of an LDS-DMA load without vmcnt", "[emulator][races]") {
  // An all-zero V# makes every lane out of range: the load writes zeros to LDS.
  const RaceReport r = first_race(R"(
  s_mov_b64 s[4:5], 0
  s_mov_b64 s[6:7], 0
  v_mov_b32 v1, 0
  s_mov_b32 m0, 0
  s_nop 0
  buffer_load_dword v1, s[4:7], 0 offen lds
  ds_read_b32 v2, v1 offset:8
  s_waitcnt vmcnt(0) lgkmcnt(0)
  s_endpgm
)",
                                  with_lds(1024));
  CHECK(r.kind == RaceKind::LdsDsAndDma);
  CHECK(r.wave == r.other_wave);
  CHECK(to_string(r.location) == "lds:0x8+4");
  CHECK(r.missing == MissingWait::Vmcnt);
  CHECK_THAT(r.other_instruction, Catch::StartsWith("buffer_load_dword v1, s[4:7], 0 offen lds"));
}

TEST_CASE("race report: hazards carry their rule and the wait states needed and passed", "[emulator][races][hazards]") {
  KernelShape shape;
  shape.accum_offset = 32;
  const RaceReport mfma = first_race(R"(
  v_mfma_f32_16x16x32_bf16 a[0:3], v[8:11], v[12:15], a[0:3]
  s_nop 2
  v_accvgpr_read_b32 v1, a2
  s_endpgm
)",
                                     shape, 64, instant());
  CHECK(mfma.kind == RaceKind::Hazard);
  CHECK(mfma.rule == HazardRule::MfmaResultReadByValuOrMemory);
  CHECK(mfma.wait_states_needed == 8);
  CHECK(mfma.wait_states_passed == 3);
  CHECK(mfma.missing == MissingWait::WaitStates);
  CHECK(mfma.other_pc == 0);
  CHECK(mfma.pc == 12);
  CHECK(to_string(mfma.location) == "a2");
  CHECK(std::string(to_string(mfma.rule)) == "mfma-result-read-by-valu-or-memory");
  CHECK_THAT(mfma.what, Catch::Contains("needs 8 wait states after 'v_mfma_f32_16x16x32_bf16 a[0:3]") &&
                            Catch::Contains("only 3 passed"));

  const RaceReport m0 = first_race(R"(
  s_mov_b64 s[4:5], 0
  s_mov_b64 s[6:7], 0
  v_mov_b32 v1, 0
  s_mov_b32 m0, 0
  buffer_load_dword v1, s[4:7], 0 offen lds
  s_waitcnt vmcnt(0)
  s_endpgm
)",
                                   with_lds(1024), 64, instant());
  CHECK(m0.rule == HazardRule::M0WrittenBeforeLdsDma);
  CHECK(m0.wait_states_needed == 1);
  CHECK(m0.wait_states_passed == 0);
  CHECK(m0.location.space == RaceLocation::Space::Sgpr);
  CHECK(m0.location.first == 124);
  CHECK(m0.other_instruction == "s_mov_b32 m0, 0");

  // gfx940+: a transcendental result read by the next, non-transcendental VALU.
  const RaceReport trans = first_race(R"(
  v_mov_b32 v1, 1.0
  v_exp_f32 v2, v1
  v_add_f32 v3, 1.0, v2
  s_endpgm
)",
                                      {}, 64, instant());
  CHECK(trans.rule == HazardRule::TransResultReadByValu);
  CHECK(trans.wait_states_needed == 1);
  CHECK(trans.wait_states_passed == 0);
  CHECK(std::string(to_string(trans.rule)) == "trans-result-read-by-valu");
  CHECK(trans.other_instruction == "v_exp_f32_e32 v2, v1");
  // One s_nop between them, or another transcendental reading it, is fine.
  CHECK(race_count("  v_mov_b32 v1, 1.0\n  v_exp_f32 v2, v1\n  s_nop 0\n  v_add_f32 v3, 1.0, v2\n  s_endpgm\n") == 0);
  CHECK(race_count("  v_mov_b32 v1, 1.0\n  v_exp_f32 v2, v1\n  v_rcp_f32 v3, v2\n  s_endpgm\n") == 0);
}

// Wave 1's lanes form one span of LDS; wave 0 wrote dwords 40 and 41 (0xa0) before.
// The report names the first conflicting lane's dwords, as lane by lane would.
TEST_CASE("race report: a conflict in the middle of a span of lanes names that lane's dwords", "[emulator][races]") {
  const std::string write = "ds_write_b64 v2, v[10:11] offset:160";
  const char* lanes = "v_and_b32 v3, 63, v0\n  v_lshlrev_b32 v5, 2, v3\n  v_lshlrev_b32 v6, 3, v3\n  s_mov_b32 m0, 0\n"
                      "  s_mov_b64 s[8:9], 0\n  s_mov_b64 s[10:11], 0\n  s_nop 1\n  ";
  struct Case {
    const char* access;
    RaceKind kind;
    const char* location;
  };
  const Case cases[] = {
      {"ds_read_b32 v4, v5", RaceKind::LdsReadAfterWrite, "lds:0xa0+4"},
      {"ds_read_b64 v[12:13], v6", RaceKind::LdsReadAfterWrite, "lds:0xa0+8"},
      {"ds_read2_b32 v[12:13], v6 offset1:1", RaceKind::LdsReadAfterWrite, "lds:0xa0+4"},
      {"ds_read2_b32 v[12:13], v5 offset1:64", RaceKind::LdsReadAfterWrite, "lds:0xa0+4"},
      {"ds_write_b32 v5, v10", RaceKind::LdsWriteAfterWrite, "lds:0xa0+4"},
      {"ds_write2_b32 v6, v10, v11 offset1:1", RaceKind::LdsWriteAfterWrite, "lds:0xa0+4"},
      {"ds_write_b8 v3, v10 offset:128", RaceKind::LdsWriteAfterWrite, "lds:0xa0+4"},
      {"buffer_load_dword v5, s[8:11], 0 offen lds", RaceKind::LdsWriteAfterWrite, "lds:0xa0+4"},
  };
  for (const Case& c : cases) {
    INFO(c.access);
    const RaceReport r = first_race(two_wave_lds(write, true, lanes + std::string(c.access)), with_lds(1024), 128);
    CHECK(r.kind == c.kind);
    CHECK(r.wave == 1);
    CHECK(r.other_wave == 0);
    CHECK(to_string(r.location) == c.location);
    CHECK(r.missing == MissingWait::Barrier);
  }
}

// Sixteen waves: the readers' sequence numbers are compared four waves at a time
// past the first eight. Waves 9..14 read dword 25, wave 15 later writes it.
TEST_CASE("race report: a write after reads of waves past the eighth names the first of them", "[emulator][races]") {
  const std::string body = R"(
  v_lshrrev_b32 v1, 6, v0
  s_nop 0
  v_readfirstlane_b32 s6, v1
  v_mov_b32 v2, 0
  v_mov_b32 v10, 1
  s_cmp_eq_u32 s6, 15
  s_cbranch_scc1 writer
  s_cmp_lt_u32 s6, 9
  s_cbranch_scc1 done
  ds_read_b32 v4, v2 offset:100
  s_waitcnt lgkmcnt(0)
done:
  s_endpgm
writer:
  s_mov_b32 s7, 300
spin:
  s_sub_u32 s7, s7, 1
  s_cmp_lg_u32 s7, 0
  s_cbranch_scc1 spin
  ds_write_b32 v2, v10 offset:100
  s_waitcnt lgkmcnt(0)
  s_endpgm
)";
  for (uint64_t seed : {1, 2, 3}) {
    const RaceReport r = first_race(body, with_lds(1024), 1024, randomized(seed));
    CHECK(r.kind == RaceKind::LdsWriteAfterRead);
    CHECK(r.wave == 15);
    CHECK(r.other_wave == 9);
    CHECK(to_string(r.location) == "lds:0x64+4");
    CHECK(r.missing == MissingWait::Barrier);
  }
}

// The race tracker is reused by the next workgroup on the same host thread: what
// workgroup 0's waves wrote (DS, sub-dword, LDS-DMA) is gone when workgroup 1's
// wave 0 reads those dwords without any write of its own workgroup.
TEST_CASE("race report: LDS records do not outlive their workgroup", "[emulator][races]") {
  const std::string body = R"(
  v_lshrrev_b32 v1, 6, v0
  s_nop 0
  v_readfirstlane_b32 s6, v1
  v_and_b32 v3, 63, v0
  v_lshlrev_b32 v2, 2, v3
  v_mov_b32 v10, 1
  s_mov_b64 s[8:9], 0
  s_mov_b64 s[10:11], 0
  s_mov_b32 m0, 0x200
  s_cmp_eq_u32 s2, 0
  s_cbranch_scc0 later
  s_cmp_eq_u32 s6, 1
  s_cbranch_scc0 done
  ds_write_b32 v2, v10
  ds_write_b8 v3, v10 offset:0x100
  buffer_load_dword v2, s[8:11], 0 offen lds
  s_waitcnt vmcnt(0) lgkmcnt(0)
  s_endpgm
later:
  s_cmp_eq_u32 s6, 0
  s_cbranch_scc0 done
  ds_read_b32 v4, v2
  ds_read_b32 v5, v2 offset:0x100
  ds_read_b32 v6, v2 offset:0x200
  s_waitcnt lgkmcnt(0)
done:
  s_endpgm
)";
  const TestKernel k = TestKernel::build(body, with_lds(1024));
  for (uint32_t threads : {1u, 2u})
    for (uint64_t seed : {1, 2, 3}) {
      emu::EmulatorOptions options = randomized(seed);
      options.threads = threads;
      std::vector<uint32_t> buffer(64, 0);
      Args args;
      args.add(buffer);
      emu::Dispatch d = args.dispatch(4, 128);
      const emu::RunStats stats = run(k, d, options);
      INFO("threads " << threads << " seed " << seed);
      CHECK(race_text(stats) == "");
    }
}
