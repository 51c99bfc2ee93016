#include <catch2/catch.hpp>

#include <sstream>

#include "codegen/schedule/geometry.hpp"
#include "verify_cli.hpp"
#include "schedule_test_support.hpp"

using namespace cdna4;
using schedule_test::op_index;

namespace {

Schedule without_waits(Schedule s) {
  for (auto& op : s.ops) op.vmcnt = op.lgkmcnt = std::nullopt;
  return s;
}

int count(const Schedule& s, OpKind kind) {
  int n = 0;
  for (const auto& op : s.ops) n += op.kind == kind;
  return n;
}

}  // namespace

TEST_CASE("planner: num_stages=2 becomes TileLang's pipeline", "[schedule][planner]") {
  const Schedule s = schedule_test::planned("tilelang_ns2_128x128x64_w4.json");
  CHECK_FALSE(s.num_stages);
  CHECK(s.lds_buffers == 2);
  CHECK(depth(s) == 2);
  CHECK(count(s, OpKind::g2s) == 8);  // 4 parts of A + 4 of B (4 waves x 1 KiB each)
  for (const auto& op : s.ops) CHECK(op.stage == (op.kind == OpKind::g2s ? 0 : 1));
  // The publishing barrier lets the next tile's 8 loads stay in flight (TileLang's wait(1)).
  const ScheduleOp& publish = s.ops[op_index(s, 8)];
  CHECK(publish.kind == OpKind::barrier);
  CHECK(publish.vmcnt == 8);
  CHECK(verify(s).accepted());
}

TEST_CASE("planner: other depths and shapes verify", "[schedule][planner]") {
  for (int stages : {1, 2, 3, 4}) {
    Schedule s = schedule_test::load("tilelang_ns2_128x128x64_w4.json");
    s.num_stages = stages;
    s.lds_buffers = stages;
    const Schedule p = plan(s);
    INFO("num_stages " << stages << "\n" << to_json(p));
    CHECK(depth(p) == stages);
    CHECK(verify(p).accepted());
  }
  Schedule big = schedule_test::load("baseline_256x256x64_w8.json");
  big.ops.clear();
  big.num_stages = 3;
  big.lds_buffers = 3;
  CHECK_THAT(verify(plan(big)).summary(), Catch::Contains("more than the 163840 bytes"));
  big.num_stages = 2;
  big.lds_buffers = 2;
  big.mfma = MfmaKind::f32_32x32x16_bf16;
  CHECK(verify(plan(big)).accepted());
}

TEST_CASE("planner: manual stage/order without waits gets waits computed", "[schedule][planner]") {
  for (const auto& file : schedule_test::shipped_files()) {
    const Schedule shipped = schedule_test::planned(file);
    const Schedule p = plan(without_waits(shipped));
    INFO(file << "\n" << to_json(p));
    CHECK(verify(p).accepted());
  }
  // seed 000's vmcnt(6): two tiles ahead, the last six loads stay in flight.
  const Schedule p = plan(without_waits(schedule_test::planned("prefetch2_256x256x64_w8.json")));
  CHECK(p.ops[op_index(p, 26)].vmcnt == 6);
}

TEST_CASE("planner leaves explicit waits alone", "[schedule][planner]") {
  const Schedule s = schedule_test::load("interleave4_256x256x64_w8.json");
  CHECK(plan(s) == s);
}

TEST_CASE("expansion: prologue and epilogue emit the counts the hardware needs", "[schedule][expansion]") {
  const Schedule s = schedule_test::planned("prefetch2_256x256x64_w8.json");
  const int end = op_index(s, 26);
  auto count_at = [&](int k_tiles, int iteration) {
    for (const OpInstance& inst : expand(s, k_tiles, 0))
      if (inst.op == end && inst.iteration == iteration) return inst.vmcnt.value_or(-1);
    return -2;  // absent
  };
  CHECK(count_at(6, 0) == -2);  // stage 1: not in iteration 0
  CHECK(count_at(6, 1) == 6);
  CHECK(count_at(6, 3) == 6);
  CHECK(count_at(6, 6) == 0);  // epilogue: tile 6 is never loaded, wait for everything
  CHECK(count_at(1, 1) == 0);
  CHECK(region_of(s, 0, 6) == Region::prologue);
  CHECK(region_of(s, 2, 6) == Region::steady);
  CHECK(region_of(s, 6, 6) == Region::epilogue);
  const auto stream = expand(s, 6, 0);
  CHECK(stream.front().iteration == 0);
  CHECK(stream.back().iteration == 7);
}

TEST_CASE("expansion: ping-pong groups get one extra barrier each", "[schedule][expansion][pingpong]") {
  const Schedule s = schedule_test::planned("pingpong_256x256x64_w8.json");
  auto shift_barrier = [&](int group) {
    const auto stream = expand(s, 5, group);
    for (size_t i = 0; i < stream.size(); ++i)
      if (stream[i].op < 0) return stream[i].iteration;
    return -1;
  };
  CHECK(shift_barrier(1) == 1);  // before the first steady-state iteration
  CHECK(shift_barrier(0) == 5);  // after the last one
  CHECK(wave_coord(s, 3).group == 0);
  CHECK(wave_coord(s, 4).group == 1);
}

TEST_CASE("geometry of the 256x256x64 8-wave tile", "[schedule][geometry]") {
  const Schedule s = schedule_test::planned("baseline_256x256x64_w8.json");
  CHECK(part_bytes(s) == 8192);
  CHECK(g2s_parts(s, Operand::a) == 4);
  CHECK(part_rows(s, Operand::a, 2).begin == 128);
  CHECK(lds_offset(s, Operand::b, 1, 1) == 65536 + 32768 + 8192);
  ScheduleOp r;
  r.kind = OpKind::s2r;
  r.operand = Operand::a;
  r.m_half = 1;
  CHECK(parts_read(s, r, 5) == std::vector<int>{3});  // wave 5 = (wm 1, wn 1): rows 192..255
  r.operand = Operand::b;
  r.m_half.reset();
  r.n_half = 0;
  CHECK(parts_read(s, r, 6) == std::vector<int>{2});  // wn 2: cols 128..159
  CHECK(ds_reads(s, r) == 4);                         // 2 N blocks x 2 kpacks
  r.kpack = 1;
  CHECK(ds_reads(s, r) == 2);
}

TEST_CASE("verify CLI prints the verdict and the planned schedule", "[schedule][cli]") {
  std::ostringstream out;
  CHECK(cdna4::tools::run_verify_cli(schedule_test::schedules_dir() + "tilelang_ns2_128x128x64_w4.json", out) == 0);
  CHECK_THAT(out.str(), Catch::Contains("accepted") && Catch::Contains("\"op\": \"barrier\", \"stage\": 1, \"order\": 8, \"phase\": 0, \"vmcnt\": 8"));
  std::ostringstream bad;
  CHECK(cdna4::tools::run_verify_cli(schedule_test::schedules_dir() + "fixtures/seed001_interleave4_buggy.json", bad) == 3);
  CHECK_THAT(bad.str(), Catch::Contains("rejected") && Catch::Contains("write-after-read race"));
  std::ostringstream missing;
  CHECK(cdna4::tools::run_verify_cli("/nonexistent.json", missing) == 1);
  CHECK_THAT(missing.str(), Catch::Contains("cannot open"));
}
