// The CU model on tiny kernels whose cycle counts are worked out by hand.
// One wave sits on SIMD 0 and gets an issue slot at clocks 0, 4, 8, ...;
// wave w of a workgroup sits on SIMD w % 4 with slots at w % 4 + 4i.
#include <catch2/catch.hpp>

#include <algorithm>
#include <tuple>

#include "model_test_support.hpp"
#include "runtime/model/parameters.hpp"

using namespace cdna4;
using emutest::Args;
using emutest::TestKernel;
using modeltest::model_first_workgroup;

namespace {

// The hand computations below use these values.
static_assert(model::param::kIssuePeriod.value == 4);
static_assert(model::param::kClocksPerMfmaPass.value == 4);
static_assert(model::param::kMfmaResultExtra.value == 2);
static_assert(model::param::kSmemLatency.value == 64);
static_assert(model::param::kLdsLatency.value == 64);
static_assert(modeltest::kGlobalLatency == 600);
static_assert(model::param::kL1BytesPerClock.value == 128);
static_assert(model::param::kL2HitLatency.value == 500);
static_assert(model::param::kTakenBranchPenalty.value == 8);
static_assert(model::param::kBarrierLatency.value == 4);
static_assert(model::param::kValuLatency.value == 8);

const char* kMfma = "v_mfma_f32_16x16x32_bf16";  // 4 passes: the SIMD's MFMA pipe for 16 clocks

emutest::KernelShape with_agprs() {
  emutest::KernelShape shape;
  shape.vgprs = 128;  // v0..v63 and a0..a63
  return shape;
}

uint64_t cycles_of(const std::string& body, uint32_t block = 64) {
  auto k = TestKernel::build(body, with_agprs());
  Args args;
  return model_first_workgroup(k, args.dispatch(1, block)).cu.cycles;
}

}  // namespace

TEST_CASE("model: independent MFMAs and srcC chains fill the pipe; an MFMA reading a result as A waits", "[model]") {
  // Four MFMAs at 0, 16, 32, 48 (the pipe frees every 16 clocks); the wave ends
  // when the last leaves the pipe at 64.
  std::string independent, chained, through_a;
  for (int i = 0; i < 4; ++i) {
    independent += fmt::format("  {} a[{}:{}], v[0:3], v[4:7], a[{}:{}]\n", kMfma, 4 * i, 4 * i + 3, 4 * i, 4 * i + 3);
    chained += fmt::format("  {} a[0:3], v[0:3], v[4:7], a[0:3]\n", kMfma);
    // Each reads the previous result as A: ready 16 + 2 clocks after issue,
    // so issues at the next slot, 20 clocks later: 0, 20, 40, 60; ends 76.
    through_a += fmt::format("  {} v[{}:{}], v[{}:{}], v[4:7], v[{}:{}]\n", kMfma, 8 + 4 * (i + 1), 11 + 4 * (i + 1),
                             8 + 4 * i, 11 + 4 * i, 8 + 4 * (i + 1), 11 + 4 * (i + 1));
  }
  CHECK(cycles_of(independent + "  s_endpgm\n") == 64);
  CHECK(cycles_of(chained + "  s_endpgm\n") == 64);
  CHECK(cycles_of(through_a + "  s_endpgm\n") == 76);

  auto k = TestKernel::build(independent + "  s_endpgm\n", with_agprs());
  Args args;
  auto t = model_first_workgroup(k, args.dispatch(1, 64));
  CHECK(t.cu.mfma_busy_cycles == 64);
  CHECK(t.cu.instructions == 5);
}

TEST_CASE("model: MFMA throughput of 1, 4 and 8 waves, bf16 and fp8, and their MACs by operand width", "[model]") {
  // Each wave runs 8 chained MFMAs; wave w sits on SIMD w % 4, so 1 wave uses
  // one pipe, 4 waves all four, 8 waves two per pipe back to back. bf16
  // 16x16x32: 4 passes (16 clocks), 8192 MACs; fp8 16x16x128: 8 passes (32
  // clocks), 32768 MACs: twice the MACs per clock.
  struct Kind {
    const char* mfma;
    uint64_t clocks, macs;
    size_t width;
  };
  const Kind kinds[] = {{"v_mfma_f32_16x16x32_bf16 a[0:3], v[0:3], v[4:7], a[0:3]", 16, 8192, 0},
                        {"v_mfma_f32_16x16x128_f8f6f4 a[0:3], v[0:7], v[8:15], a[0:3]", 32, 32768, 1}};
  for (const Kind& kind : kinds)
    for (uint32_t waves : {1u, 4u, 8u}) {
      INFO(kind.mfma << ", " << waves << " waves");
      std::string body;
      for (int i = 0; i < 8; ++i) body += fmt::format("  {}\n", kind.mfma);
      auto k = TestKernel::build(body + "  s_endpgm\n", with_agprs());
      Args args;
      auto t = model_first_workgroup(k, args.dispatch(1, 64 * waves));
      // The last SIMD used starts at its first slot, clock (SIMDs used - 1).
      const uint64_t per_simd = (waves + 3) / 4, last_simd = std::min(waves, 4u) - 1;
      CHECK(t.cu.cycles == last_simd + per_simd * 8 * kind.clocks);
      CHECK(t.cu.mfma_busy_cycles == waves * 8 * kind.clocks);
      CHECK(t.cu.mfma_busy_cycles <= 4 * t.cu.cycles);  // no pipe busier than all the time
      CHECK(t.cu.macs[kind.width] == waves * 8 * kind.macs);
      CHECK(t.cu.macs[1 - kind.width] == 0);
    }
}

TEST_CASE("model: s_waitcnt vmcnt(0) waits for a pending global load", "[model]") {
  // s_load at 0 (done 64); v_lshlrev at 4; s_waitcnt lgkmcnt(0) at 8, issues at 64;
  // global_load at 68: one 128-byte line... see each case; s_waitcnt vmcnt(0)
  // at 72 issues at the first slot at or after completion; s_endpgm 4 later.
  const std::string load = R"(
  s_load_dwordx2 s[4:5], s[0:1], 0
  v_lshlrev_b32 v1, {}, v0
  s_waitcnt lgkmcnt(0)
  global_load_dwordx4 v[2:5], v1, s[4:5]
  s_waitcnt vmcnt(0)
  s_endpgm
)";
  struct alignas(128) Line {
    uint8_t bytes[128];
  };
  std::vector<Line> data(64);  // line-aligned, so the line counts below are exact
  auto run = [&](int shift) {
    auto k = TestKernel::build(fmt::format(fmt::runtime(load), shift));
    Args args;
    args.add(data);
    return model_first_workgroup(k, args.dispatch(1, 64));
  };
  // Coalesced: lane l reads 16 bytes at 16 l: 1 KiB = 8 lines, one line a clock:
  // 8 clocks of the vector memory path, then 600: done 68 + 8 + 600 = 676; ends 681.
  auto coalesced = run(4);
  CHECK(modeltest::cost_of_first(TestKernel::build(fmt::format(fmt::runtime(load), 4)), coalesced, "GLOBAL_LOAD") == 8);
  CHECK(coalesced.cu.cycles == 681);
  // One 32-byte segment per lane (stride 32): 16 lines, 16 clocks: done 684; ends 689.
  auto segments = run(5);
  CHECK(segments.cu.cycles == 689);
  // The wave spent the load's flight in vmcnt.
  CHECK(coalesced.cu.wave_cycles[size_t(model::Slot::vmcnt)] == 676 - 72);
  CHECK(coalesced.cu.wave_cycles[size_t(model::Slot::lgkmcnt)] == 64 - 8);
}

TEST_CASE("model: a scratch reload is an L2 hit, a global load takes the grid's latency", "[model]") {
  // s_load at 0 (done 64); s_waitcnt lgkmcnt(0) issues at 64; the scratch store
  // at 68 (64 lanes x 4 bytes: 2 lines, 2 clocks of the path) completes at
  // 68 + 2 + 500 = 570 (the wave's own data: an L2 hit, below the grid's 600).
  // The reload at 72: a scratch load likewise 72 + 2 + 500 = 574; s_waitcnt
  // vmcnt(0) issues at 576, s_endpgm at 580: ends 581. A global load of 67
  // bytes (1 line) instead: 72 + 1 + 600 = 673; waits until 676: ends 681.
  const std::string body = R"(
  s_load_dwordx2 s[4:5], s[0:1], 0
  s_waitcnt lgkmcnt(0)
  scratch_store_dword off, v0, off
  {}
  s_waitcnt vmcnt(0)
  s_endpgm
)";
  emutest::KernelShape shape;
  shape.private_bytes = 16;
  std::vector<uint32_t> data(64);
  auto run = [&](const char* load) {
    auto k = TestKernel::build(fmt::format(fmt::runtime(body), load), shape);
    Args args;
    args.add(data);
    return model_first_workgroup(k, args.dispatch(1, 64)).cu.cycles;
  };
  CHECK(run("scratch_load_dword v1, off, off") == 581);
  CHECK(run("global_load_dword v1, v0, s[4:5]") == 681);
}

TEST_CASE("model: ds_read_b128 without and with bank conflicts", "[model]") {
  // v_lshlrev at 0; ds_read_b128 at 8 (the address is ready valu_latency
  // after the shift) holds the LDS for its bank cycles, the data arrives 64
  // clocks after; s_waitcnt lgkmcnt(0) issues at the first slot after;
  // s_endpgm 4 later.
  const std::string body = R"(
  {}
  ds_read_b128 v[2:5], v1
  s_waitcnt lgkmcnt(0)
  s_endpgm
)";
  emutest::KernelShape shape;
  shape.lds = 64 * 256;
  auto run = [&](const char* address) {
    auto k = TestKernel::build(fmt::format(fmt::runtime(body), address), shape);
    Args args;
    auto t = model_first_workgroup(k, args.dispatch(1, 64));
    return std::pair{modeltest::cost_of_first(k, t, "DS_READ_B128"), t.cu.cycles};
  };
  // 16 B per lane: 4 groups of 16 lanes at 2 clocks (common/lds_rules.hpp);
  // lane l at 16 l: every group hits 64 distinct banks once: 8 clocks. Done
  // 8 + 8 + 64 = 80; ends 85.
  CHECK(run("v_lshlrev_b32 v1, 4, v0") == std::pair<uint32_t, uint64_t>{8, 85});
  // Lane l at 256 l: a group's 16 lanes all use banks 0..3, 16 dwords each:
  // 32 clocks per group, 128 in all. Done 8 + 128 + 64 = 200; ends 205.
  CHECK(run("v_lshlrev_b32 v1, 8, v0") == std::pair<uint32_t, uint64_t>{128, 205});
  // Lanes reading the same address are broadcast: 4 groups of 2 clocks.
  CHECK(run("v_mov_b32 v1, 0").first == 8);
}

TEST_CASE("model: s_barrier holds the early wave until the late one arrives", "[model]") {
  // Wave 0 (SIMD 0): readfirstlane 0, s_cmp 4, taken branch 8 (refetch until
  // 16), s_barrier 16. Wave 1 (SIMD 1): 1, 5, branch not taken 9, s_nop 7 at 13
  // (8 slots: until 45), s_nop 7 at 45 (until 77), s_barrier 77. The barrier
  // opens at 77 + 4: wave 1 ends at 81 + 1, wave 0 at its next slot 84 + 1.
  const std::string body = R"(
  v_readfirstlane_b32 s6, v0
  s_cmp_lt_u32 s6, 64
  s_cbranch_scc1 arrive
  s_nop 7
  s_nop 7
arrive:
  s_barrier
  s_endpgm
)";
  auto k = TestKernel::build(body);
  Args args;
  auto t = model_first_workgroup(k, args.dispatch(1, 128));
  REQUIRE(t.cu.wave_end.size() == 2);
  CHECK(t.cu.wave_end[0] == 85);
  CHECK(t.cu.wave_end[1] == 82);
  // Wave 0 waited at the barrier in its slots 20 .. 76 (15 slots of 4 clocks).
  CHECK(t.cu.wave_cycles[size_t(model::Slot::barrier)] == 15 * 4);
}

TEST_CASE("model: s_setprio wins the MFMA pipe over an older wave on the same SIMD", "[model]") {
  // Five waves: waves 0 and 4 share SIMD 0. Wave 4 (threads 256..319) raises its
  // priority before the barrier; after it both want the MFMA pipe in the same
  // slot, and the higher priority goes first although wave 0 is older.
  const std::string body = R"(
  v_readfirstlane_b32 s6, v0
  s_cmp_lt_u32 s6, 256
  s_cbranch_scc1 go
  s_setprio {}
go:
  s_barrier
  {} a[0:3], v[0:3], v[4:7], a[0:3]
  s_endpgm
)";
  auto ends = [&](int prio) {
    auto k = TestKernel::build(fmt::format(fmt::runtime(body), prio, kMfma), with_agprs());
    Args args;
    return model_first_workgroup(k, args.dispatch(1, 320)).cu.wave_end;
  };
  auto plain = ends(0), raised = ends(3);
  REQUIRE(plain.size() == 5);
  // The MFMAs of waves 0 and 4 run back to back: the first ends 16 clocks before the second.
  CHECK(plain[4] == plain[0] + 16);
  CHECK(raised[0] == raised[4] + 16);
  CHECK(raised[4] == plain[0]);
}

TEST_CASE("model: the timeline has the load in flight, the waits and the MFMA, clock for clock", "[model]") {
  // The kernel of the vmcnt case plus an MFMA: s_load at 0 (not a slice);
  // s_waitcnt lgkmcnt(0) stalls in slots 8 .. 60; global_load 68 .. 676;
  // s_waitcnt vmcnt(0) stalls in slots 72 .. 672; the MFMA issues at 680.
  const std::string body = R"(
  s_load_dwordx2 s[4:5], s[0:1], 0
  v_lshlrev_b32 v1, 4, v0
  s_waitcnt lgkmcnt(0)
  global_load_dwordx4 v[2:5], v1, s[4:5]
  s_waitcnt vmcnt(0)
  v_mfma_f32_16x16x32_bf16 a[0:3], v[2:5], v[2:5], a[0:3]
  s_endpgm
)";
  struct alignas(128) Line {
    uint8_t bytes[128];
  };
  std::vector<Line> data(8);
  auto k = TestKernel::build(body, with_agprs());
  Args args;
  args.add(data);
  model::TraceCollector sink(1, {}, {}, 0);
  emu::EmulatorOptions o = emutest::instant();
  o.trace = &sink;
  emutest::run(k, args.dispatch(1, 64), o);
  auto program = emu::decode_program(k.code.text(), k.info.accum_offset);
  auto cu = model::simulate_cu(*program, model::classify(*program), sink.take_resident(), modeltest::kGlobalLatency, true);
  using K = ModelSliceKind;
  std::vector<std::tuple<K, uint64_t, uint64_t>> got;
  for (const ModelSlice& s : cu.timeline) got.emplace_back(s.kind, s.begin, s.end);
  std::sort(got.begin(), got.end(), [](auto& a, auto& b) { return std::get<1>(a) < std::get<1>(b); });
  const std::vector<std::tuple<K, uint64_t, uint64_t>> expected = {
      {K::wait_lgkmcnt, 8, 64}, {K::global_load, 68, 676}, {K::wait_vmcnt, 72, 676}, {K::mfma, 680, 696}};
  CHECK(got == expected);
  CHECK(cu.cycles == 696);
  for (const ModelSlice& s : cu.timeline) CHECK(s.simd == 0);
}

TEST_CASE("model: LDS-DMA data takes the LDS for its write when it arrives", "[model]") {
  // Wave 0 loads 1 KiB from memory, into LDS (LDS-DMA) or into VGPRs; waves 1..3
  // keep the LDS busy with conflicting ds_read_b128s (128 clocks each) long after
  // the data arrives. Written into LDS at 64 bytes a clock (lds_write_bytes_per_clock),
  // the 1 KiB delays them by 16 clocks.
  const std::string body = R"(
  s_load_dwordx2 s[8:9], s[0:1], 0
  s_waitcnt lgkmcnt(0)
  s_and_b32 s9, s9, 0xffff
  s_mov_b32 s10, 4096
  s_mov_b32 s11, 0x00020000
  v_readfirstlane_b32 s6, v0
  s_cmp_lt_u32 s6, 64
  s_cbranch_scc0 reader
  v_lshlrev_b32 v1, 4, v0
  s_mov_b32 m0, 0
  s_nop 0
  {}
  s_waitcnt vmcnt(0)
  s_endpgm
reader:
  v_and_b32 v1, 63, v0
  v_lshlrev_b32 v1, 8, v1
  s_movk_i32 s7, 40
again:
  ds_read_b128 v[2:5], v1
  s_sub_u32 s7, s7, 1
  s_cmp_eq_u32 s7, 0
  s_cbranch_scc0 again
  s_waitcnt lgkmcnt(0)
  s_endpgm
)";
  emutest::KernelShape shape;
  shape.lds = 64 * 256;
  std::vector<uint32_t> data(1024);
  auto run = [&](const char* load) {
    auto k = TestKernel::build(fmt::format(fmt::runtime(body), load), shape);
    Args args;
    args.add(data);
    return model_first_workgroup(k, args.dispatch(1, 256)).cu.cycles;
  };
  const uint64_t to_vgprs = run("buffer_load_dwordx4 v[6:9], v1, s[8:11], 0 offen");
  const uint64_t to_lds = run("buffer_load_dwordx4 v1, s[8:11], 0 offen lds");
  CHECK(to_vgprs > 3 * 40 * 128);  // the readers' LDS time sets the end
  CHECK(to_lds == to_vgprs + 16);
}

TEST_CASE("model: a transcendental holds its SIMD's VALU four slots; its result is read after it", "[model]") {
  static_assert(model::param::kTranscendentalClocks.value == 16);
  // Four independent v_add_f32: slots 0, 4, 8, 12, s_endpgm at 16: the wave ends at 17.
  // Four independent v_exp_f32: 0, 16, 32, 48 (the VALU is taken 16 clocks each), s_endpgm 52: 53.
  // v_exp_f32 then a v_add_f32 reading it: the add issues at 16, s_endpgm at 20: 21.
  std::string adds, exps;
  for (int i = 0; i < 4; ++i) {
    adds += fmt::format("  v_add_f32 v{}, v10, v11\n", i);
    exps += fmt::format("  v_exp_f32 v{}, v10\n", i);
  }
  CHECK(cycles_of(adds + "  s_endpgm\n") == 17);
  // Each add reading the one before waits valu_latency: 0, 8, 16, 24, s_endpgm at 28: 29.
  CHECK(cycles_of("  v_add_f32 v0, v10, v11\n  v_add_f32 v1, v0, v11\n  v_add_f32 v2, v1, v11\n"
                  "  v_add_f32 v3, v2, v11\n  s_endpgm\n") == 29);
  CHECK(cycles_of(exps + "  s_endpgm\n") == 53);
  CHECK(cycles_of("  v_exp_f32 v0, v10\n  v_add_f32 v1, v0, v11\n  s_endpgm\n") == 21);
  // An MFMA does not wait for the VALU: exp at 0, MFMA at 4 (pipe until 20).
  CHECK(cycles_of(fmt::format("  v_exp_f32 v20, v10\n  {} a[0:3], v[0:3], v[4:7], a[0:3]\n  s_endpgm\n", kMfma)) == 20);
}

TEST_CASE("model: an MFMA holds its SIMD's VALU while it reads its operands, packed fp32 longer", "[model]") {
  // gfx950 co-execution (common/mfma_coexec.hpp): VALU from slot 1 + widest A / B bytes / 16,
  // packed fp32 from passes + 2 (+ 1 with a 16-byte A).
  // bf16 16x16x32 (16-byte A and B): the MFMA at 0, four adds at 8, 12, 16, 20, s_endpgm at 24: ends at 25.
  std::string adds;
  for (int i = 0; i < 4; ++i) adds += fmt::format("  v_add_f32 v{}, v10, v11\n", 20 + i);
  CHECK(cycles_of(fmt::format("  {} a[0:3], v[0:3], v[4:7], a[0:3]\n", kMfma) + adds + "  s_endpgm\n") == 25);
  // fp8 16x16x128 f8f6f4 (32-byte A and B, 8 passes): the first add at 12, the last at 24, s_endpgm 28: 29,
  // but the MFMA leaves the pipe at 32.
  CHECK(cycles_of("  v_mfma_f32_16x16x128_f8f6f4 a[0:3], v[0:7], v[8:15], a[0:3]\n" + adds + "  s_endpgm\n") == 32);
  CHECK(cycles_of("  v_mfma_f32_16x16x128_f8f6f4 a[0:3], v[0:7], v[8:15], a[0:3]\n" + adds + adds + "  s_endpgm\n") ==
        45);
  // v_pk_fma_f32 after the bf16 MFMA: slot 4 + 2 + 1 = 7 (clock 28), s_endpgm at 32: 33.
  CHECK(cycles_of(fmt::format("  {} a[0:3], v[0:3], v[4:7], a[0:3]\n", kMfma) +
                  "  v_pk_fma_f32 v[20:21], v[10:11], v[12:13], v[14:15]\n  s_endpgm\n") == 33);
}

TEST_CASE("model: the co-execution hold by operand bytes: fp4 / fp6 f8f6f4, scaled and sparse MFMAs", "[model]") {
  // Eight independent adds after the MFMA; from slot s they issue at 4 s .. 4 s + 28, s_endpgm 4 later.
  std::string adds;
  for (int i = 0; i < 8; ++i) adds += fmt::format("  v_add_f32 v{}, v40, v41\n", 30 + i);
  auto ends_with_adds_from_slot = [](uint64_t slot) { return 4 * slot + 32 + 1; };
  // f8f6f4 with fp4 A and B (cbsz / blgp 4): 16-byte sources, slot 2.
  CHECK(cycles_of("  v_mfma_f32_16x16x128_f8f6f4 a[0:3], v[0:3], v[4:7], a[0:3] cbsz:4 blgp:4\n" + adds +
                  "  s_endpgm\n") == ends_with_adds_from_slot(2));
  // fp6 A (24 bytes) with fp8 B (32 bytes): the wider, slot 3.
  CHECK(cycles_of("  v_mfma_f32_16x16x128_f8f6f4 a[0:3], v[0:5], v[8:15], a[0:3] cbsz:2\n" + adds + "  s_endpgm\n") ==
        ends_with_adds_from_slot(3));
  // The scaled form reads the same A and B (fp8, 32 bytes): slot 3.
  CHECK(cycles_of("  v_mfma_scale_f32_16x16x128_f8f6f4 a[0:3], v[0:7], v[8:15], a[0:3], v20, v21\n" + adds +
                  "  s_endpgm\n") == ends_with_adds_from_slot(3));
  // A sparse 16x16x32 f16 (8-byte A, 16-byte B) would be slot 2 by its bytes; smfmac holds to slot 3.
  CHECK(cycles_of("  v_smfmac_f32_16x16x32_f16 a[0:3], v[0:1], v[2:5], v6\n" + adds + "  s_endpgm\n") ==
        ends_with_adds_from_slot(3));
}

TEST_CASE("model: the co-execution hold stays on the MFMA's SIMD and ends with its slot", "[model]") {
  std::string adds;
  for (int i = 0; i < 4; ++i) adds += fmt::format("  v_add_f32 v{}, v10, v11\n", 20 + i);
  const std::string body = fmt::format("  {} a[0:3], v[0:3], v[4:7], a[0:3]\n", kMfma) + adds + "  s_endpgm\n";
  // One wave: MFMA 0, adds 8 .. 20, s_endpgm 24: 25. Two waves on SIMDs 0 and 1 run the
  // same timeline, wave 1 a clock later (26): neither wave's MFMA holds the other SIMD.
  CHECK(cycles_of(body) == 25);
  CHECK(cycles_of(body, 128) == 26);
  // Three s_nop at 4, 8, 12, then an add at 16, past the hold (8): s_endpgm 20: 21.
  CHECK(cycles_of(fmt::format("  {} a[0:3], v[0:3], v[4:7], a[0:3]\n  s_nop 0\n  s_nop 0\n  s_nop 0\n", kMfma) +
                  "  v_add_f32 v20, v10, v11\n  s_endpgm\n") == 21);
}

TEST_CASE("model: a DS write pays its address clocks, a DS read of the same lanes does not", "[model]") {
  // v_lshlrev at 0; the DS instruction at 8 holds the LDS for its cost, done 64
  // later; s_waitcnt at the first slot after, s_endpgm 4 later.
  emutest::KernelShape shape;
  shape.lds = 64 * 16;
  auto run = [&](const char* ds, const char* name) {
    auto k = TestKernel::build(fmt::format("  v_lshlrev_b32 v1, 2, v0\n  {}\n  s_waitcnt lgkmcnt(0)\n  s_endpgm\n", ds),
                               shape);
    Args args;
    auto t = model_first_workgroup(k, args.dispatch(1, 64));
    return std::pair{modeltest::cost_of_first(k, t, name), t.cu.cycles};
  };
  // ds_read_b32, lane l at 4 l: 4 groups of 16 lanes, 1 clock each (the 4 address clocks): done 8 + 4 + 64 = 76; 81.
  CHECK(run("ds_read_b32 v2, v1", "DS_READ_B32") == std::pair<uint32_t, uint64_t>{4, 81});
  // ds_write_b32: the same 4 groups, but 4 + 4 address clocks: done 8 + 8 + 64 = 80; 85.
  CHECK(run("ds_write_b32 v1, v2", "DS_WRITE_B32") == std::pair<uint32_t, uint64_t>{8, 85});
  // ds_write_b64 of lane l at 4 l: 8 lanes a clock on 32 banks, lanes l and l + 1 both write dword
  // l + 1 (a write is not broadcast): 2 clocks a group, 16 in all, above the 12 address clocks.
  CHECK(run("ds_write_b64 v1, v[2:3]", "DS_WRITE_B64").first == 16);
  // ds_write_b8: a b32-wide write.
  CHECK(run("ds_write_b8 v1, v2", "DS_WRITE_B8").first == 8);
}
