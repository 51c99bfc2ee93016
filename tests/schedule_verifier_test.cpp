#include <catch2/catch.hpp>

#include "codegen/schedule/geometry.hpp"
#include "schedule_test_support.hpp"

using namespace cdna4;
using schedule_test::finding;
using schedule_test::op_index;
using schedule_test::planned;

namespace {

Schedule baseline() { return planned("baseline_256x256x64_w8.json"); }
Schedule interleave() { return planned("interleave4_256x256x64_w8.json"); }

}  // namespace

TEST_CASE("every shipped schedule is accepted", "[schedule][verifier]") {
  for (const auto& file : schedule_test::shipped_files()) {
    const VerifyReport report = verify(planned(file));
    INFO(file << "\n" << report.summary());
    CHECK(report.accepted());
    CHECK(report.k_tiles_checked.back() == 1);  // down to a single K tile
  }
}

TEST_CASE("rule wait-range", "[schedule][verifier][rules]") {
  Schedule s = baseline();
  s.ops[op_index(s, 14)].vmcnt = 63;  // in range (and, waiting for nothing, racy)
  CHECK(finding(verify(s), "wait-range").empty());
  s.ops[op_index(s, 14)].vmcnt = 64;
  CHECK_THAT(finding(verify(s), "wait-range"), Catch::Contains("vmcnt 64 is out of range: s_waitcnt vmcnt takes 0..63"));
  s = baseline();
  s.ops[op_index(s, 12)].lgkmcnt = 16;
  CHECK_THAT(finding(verify(s), "wait-range"), Catch::Contains("lgkmcnt 16 is out of range"));
}

TEST_CASE("rule unique-order", "[schedule][verifier][rules]") {
  Schedule s = baseline();
  CHECK(finding(verify(s), "unique-order").empty());
  s.ops[5].order = 3;
  CHECK_THAT(finding(verify(s), "unique-order"), Catch::Contains("order 3 is already used by ops[3]"));
}

TEST_CASE("rule phase-order", "[schedule][verifier][rules]") {
  Schedule s = interleave();
  CHECK(finding(verify(s), "phase-order").empty());
  s.ops[op_index(s, 20)].phase = 1;  // the phase-3 S2R claims phase 1
  CHECK_THAT(finding(verify(s), "phase-order"), Catch::Contains("phases must not decrease along order"));
}

TEST_CASE("rule g2s-coverage", "[schedule][verifier][rules]") {
  Schedule s = baseline();
  CHECK(finding(verify(s), "g2s-coverage").empty());
  s.ops[7].part = 2;  // b part 3 never loaded, b part 2 twice
  CHECK_THAT(verify(s).summary(), Catch::Contains("[g2s-coverage] no G2S op loads part b[3]") &&
                                      Catch::Contains("part b[2] is already loaded by ops[6]"));
}

TEST_CASE("rule mfma-coverage", "[schedule][verifier][rules]") {
  Schedule s = baseline();
  CHECK(finding(verify(s), "mfma-coverage").empty());
  s.ops[13].kpack = 0;
  const VerifyReport r = verify(s);
  CHECK_THAT(finding(r, "mfma-coverage"), Catch::Contains("kpack 0 m_half 0 n_half 0 is already computed by ops[12]"));
  s.ops.erase(s.ops.begin() + 13);
  CHECK_THAT(finding(verify(s), "mfma-coverage"), Catch::Contains("no MFMA op computes kpack 1"));
}

TEST_CASE("rule stage-order (seed 004)", "[schedule][verifier][rules]") {
  Schedule s = baseline();
  CHECK(finding(verify(s), "stage-order").empty());
  s.ops[0].stage = 2;  // G2S a part 0 after its reader's stage
  CHECK_THAT(finding(verify(s), "stage-order"),
             Catch::Contains("reads LDS written by ops[0] (g2s a part=0") && Catch::Contains("producer stage 2 > consumer stage 1"));
  s = baseline();
  s.ops[0].stage = 1;
  s.ops[0].order = 20;  // same stage as the S2R, but later
  CHECK_THAT(finding(verify(s), "stage-order"), Catch::Contains("same stage 1 but producer order 20 is not below consumer order 8"));
  s = baseline();
  s.ops[12].order = 7;
  s.ops[7].order = 12;  // MFMA kpack 0 now before its S2Rs
  CHECK_THAT(finding(verify(s), "stage-order"), Catch::Contains("consumes a kpack 0 m_half 0 loaded by ops[8]"));
}

TEST_CASE("rule s2r-unused and mfma-operands", "[schedule][verifier][rules]") {
  Schedule s = baseline();
  CHECK(finding(verify(s), "s2r-unused").empty());
  CHECK(finding(verify(s), "mfma-operands").empty());
  ScheduleOp extra = s.ops[8];
  extra.order = 30;
  s.ops.push_back(extra);
  CHECK_THAT(finding(verify(s), "s2r-unused"), Catch::Contains("ops[15] (s2r a kpack=0 stage=1 order=30"));
  s = baseline();
  s.ops.erase(s.ops.begin() + 11);  // no S2R of b kpack 1
  CHECK_THAT(finding(verify(s), "mfma-operands"), Catch::Contains("consumes b kpack 1 n_half 0 but no S2R op loads it"));
}

TEST_CASE("rule lds-capacity", "[schedule][verifier][rules]") {
  Schedule s = baseline();
  CHECK(lds_bytes(s) == 128 * 1024);
  CHECK(finding(verify(s), "lds-capacity").empty());
  s.lds_buffers = 3;
  CHECK_THAT(finding(verify(s), "lds-capacity"), Catch::Contains("= 196608 bytes, more than the 163840 bytes (160 KiB)"));
}

TEST_CASE("rule registers", "[schedule][verifier][rules]") {
  Schedule s = baseline();
  CHECK(accumulator_registers(s) == 128);
  CHECK(finding(verify(s), "registers").empty());
  s.wave_grid_m = 1;
  s.wave_grid_n = 8;
  s.tile_n = 512;  // wave tile 256 x 64 -> 256 AGPRs, plus S2R registers
  s.ops[8].kpack.reset();
  s.ops[10].kpack.reset();
  CHECK_THAT(finding(verify(s), "registers"), Catch::Contains("more than the 512 of gfx950"));
  s.tile_m = 512;  // 512 x 64
  CHECK_THAT(finding(verify(s), "registers"), Catch::Contains("512 f32 accumulator registers per lane, more than the 256 AGPRs"));
}

TEST_CASE("rule raw-race: loads must be waited for and published by a barrier", "[schedule][verifier][rules]") {
  Schedule s = baseline();
  CHECK(finding(verify(s), "raw-race").empty());
  s.ops[14].vmcnt = 1;  // the last G2S of the tile may still be in flight at the barrier
  const std::string m = finding(verify(s), "raw-race");
  CHECK_THAT(m, Catch::Contains("reads LDS slot") && Catch::Contains("part b[3]") &&
                    Catch::Contains("no s_barrier follows that wait before this read") &&
                    Catch::Contains("read-after-write race") && Catch::Contains("steady-state iteration"));
  s = baseline();
  s.ops[14].kind = OpKind::wait;  // waits, but nothing publishes the data to the other waves
  CHECK_THAT(finding(verify(s), "raw-race"), Catch::Contains("read-after-write race"));
}

TEST_CASE("rule war-race: refills wait for every reader", "[schedule][verifier][rules]") {
  Schedule s = interleave();
  CHECK(finding(verify(s), "war-race").empty());
  const Schedule buggy = schedule_test::load("fixtures/seed001_interleave4_buggy.json");
  const std::string m = finding(verify(buggy), "war-race");
  CHECK_THAT(m, Catch::Contains("overwrites LDS slot 0 part b[") && Catch::Contains("with tile k=2 while wave") &&
                    Catch::Contains("may still be reading tile k=0") &&
                    Catch::Contains("its ds_reads are waited for (lgkmcnt) only before") &&
                    Catch::Contains("write-after-read race; the G2S of tile 2 lands in the slot still being read"));
  const std::string one = finding(verify(schedule_test::load("fixtures/seed001_interleave4_one_slot.json")), "war-race");
  CHECK_THAT(one, Catch::Contains("overwrites LDS slot 0 part a[0] with tile k=1") &&
                      Catch::Contains("may still be reading tile k=0"));
}

TEST_CASE("seed 000's kpack-phase prefetch refills A while kpack 1 is still read", "[schedule][verifier][rules]") {
  const std::string m = finding(verify(schedule_test::load("fixtures/seed000_prefetch2_kpack_phases.json")), "war-race");
  CHECK_THAT(m, Catch::Contains("ops[9] (g2s a part=0 stage=0 order=9 phase=1)") &&
                    Catch::Contains("(s2r a kpack=1 stage=2 order=15 phase=2)"));
}

TEST_CASE("rule mfma-lgkmcnt: MFMA operands must have returned", "[schedule][verifier][rules]") {
  Schedule s = baseline();
  CHECK(finding(verify(s), "mfma-lgkmcnt").empty());
  s.ops[12].lgkmcnt = 13;
  CHECK_THAT(finding(verify(s), "mfma-lgkmcnt"),
             Catch::Contains("consumes the registers of ops[9] (s2r b kpack=0") && Catch::Contains("lgkmcnt(12) or lower"));
  s = interleave();
  s.ops[op_index(s, 25)].lgkmcnt.reset();  // the epilogue has no barrier to wait for it
  CHECK_THAT(finding(verify(s), "mfma-lgkmcnt"), Catch::Contains("in epilogue iteration"));
}

TEST_CASE("ping-pong groups are simulated half a cluster apart", "[schedule][verifier][pingpong]") {
  Schedule s = planned("pingpong_256x256x64_w8.json");
  REQUIRE(verify(s).accepted());
  // Publishing the B tile at the end of dot3 instead of mem3 is enough when all
  // waves run in lockstep, but the lagging group waits one barrier too late.
  const int mem3 = op_index(s, 31), last = op_index(s, 35);
  REQUIRE(s.ops[mem3].kind == OpKind::barrier);
  REQUIRE(s.ops[last].kind == OpKind::barrier);
  s.ops[mem3].vmcnt.reset();
  s.ops[last].vmcnt = 0;
  s.ops[last].stage = 0;
  s.ops[mem3].stage = 1;
  Schedule lockstep = s;
  lockstep.pingpong_groups = 1;
  CHECK(verify(lockstep).accepted());
  CHECK_THAT(finding(verify(s), "raw-race"), Catch::Contains("read-after-write race"));
}

TEST_CASE("small K: one and two tiles, fewer than the pipeline depth", "[schedule][verifier]") {
  Schedule s = planned("prefetch2_256x256x64_w8.json");
  REQUIRE(depth(s) == 3);
  VerifyOptions one;
  one.k_tiles = {1};
  CHECK(verify(s, one).accepted());
  // Without the barrier between phase 0's reads and phase 1's refill of A, the
  // race needs tile k and tile k+2 in one iteration: K >= 3.
  const int barrier = op_index(s, 7);
  REQUIRE(s.ops[barrier].kind == OpKind::barrier);
  s.ops.erase(s.ops.begin() + barrier);
  VerifyOptions small;
  small.k_tiles = {1, 2};
  CHECK(verify(s, small).accepted());
  VerifyOptions three;
  three.k_tiles = {3};
  CHECK_THAT(finding(verify(s, three), "war-race"), Catch::Contains("with K=3 tiles"));
  CHECK_FALSE(verify(s).accepted());
}
