// Barriers across waves, race detection under randomized completion, and
// independence of results from the number of host threads.
#include <catch2/catch.hpp>

#include "emulator_test_kernel.hpp"

using namespace cdna4;
using namespace cdna4::emutest;

namespace {

// 8 waves: wave w writes LDS[w] = w + 1, then every lane sums all 8 slots.
std::string barrier_kernel(bool wait_before_barrier, bool barrier) {
  std::string body = R"(
  s_load_dwordx2 s[4:5], s[0:1], 0
  v_lshrrev_b32 v1, 6, v0
  s_nop 0
  v_readfirstlane_b32 s6, v1
  v_lshlrev_b32 v2, 2, v1
  v_add_u32 v3, 1, v1
  ds_write_b32 v2, v3
)";
  if (wait_before_barrier) body += "  s_waitcnt lgkmcnt(0)\n";
  if (barrier) body += "  s_barrier\n";
  body += "  v_mov_b32 v4, 0\n  v_mov_b32 v5, 0\n";
  for (int w = 0; w < 8; ++w) body += fmt::format("  ds_read_b32 v{}, v5 offset:{}\n", 10 + w, 4 * w);
  body += "  s_waitcnt lgkmcnt(0)\n";
  for (int w = 0; w < 8; ++w) body += fmt::format("  v_add_u32 v4, v4, v{}\n", 10 + w);
  body += R"(
  v_lshlrev_b32 v6, 2, v0
  s_waitcnt lgkmcnt(0)
  global_store_dword v6, v4, s[4:5]
  s_endpgm
)";
  return body;
}

KernelShape lds_shape(uint32_t lds) {
  KernelShape s;
  s.lds = lds;
  return s;
}

// A load whose destination is used with or without the wait that covers it.
std::string load_use_kernel(bool wait) {
  return fmt::format(R"(
  s_load_dwordx2 s[4:5], s[0:1], 0
  s_waitcnt lgkmcnt(0)
  v_lshlrev_b32 v3, 2, v0
  global_load_dword v10, v3, s[4:5]
  global_load_dword v11, v3, s[4:5] offset:256
  {}
  v_add_u32 v12, v10, 1
  global_store_dword v3, v12, s[4:5] offset:512
  s_waitcnt vmcnt(0)
  s_endpgm
)",
                     wait ? "s_waitcnt vmcnt(1)" : "");
}

// G2S by LDS-DMA, then every wave reads what another wave loaded; each
// workgroup stores to its own 1 KiB of out.
std::string lds_dma_kernel(bool wait) {
  return fmt::format(R"(
  s_load_dwordx2 s[8:9], s[0:1], 0
  s_load_dwordx2 s[4:5], s[0:1], 8
  s_waitcnt lgkmcnt(0)
  s_and_b32 s9, s9, 0xffff
  s_mov_b32 s10, 0x4000
  s_mov_b32 s11, 0x00020000
  v_lshrrev_b32 v1, 6, v0
  s_nop 0
  v_readfirstlane_b32 s6, v1
  s_lshl_b32 s7, s6, 10
  s_mov_b32 m0, s7
  v_lshlrev_b32 v3, 4, v0
  buffer_load_dwordx4 v3, s[8:11], 0 offen lds
  {}
  s_barrier
  v_xor_b32 v4, 0x400, v3
  ds_read_b128 v[12:15], v4
  s_waitcnt lgkmcnt(0)
  v_lshlrev_b32 v5, 2, v0
  s_lshl_b32 s12, s2, 10
  v_add_u32 v5, s12, v5
  global_store_dword v5, v12, s[4:5]
  s_waitcnt vmcnt(0)
  s_endpgm
)",
                     wait ? "s_waitcnt vmcnt(0)" : "");
}

}  // namespace

TEST_CASE("s_barrier synchronises 8 waves and published LDS is race-free", "[emulator]") {
  auto k = TestKernel::build(barrier_kernel(true, true), lds_shape(64));
  std::vector<uint32_t> out(512, 0);
  Args args;
  args.add(out);
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    std::fill(out.begin(), out.end(), 0);
    auto stats = run(k, args.dispatch(1, 512), randomized(seed));
    INFO("seed " << seed << "\n" << race_text(stats));
    CHECK(stats.races.empty());
    for (uint32_t v : out) REQUIRE(v == 36);
  }
}

TEST_CASE("LDS shared without a barrier, or published without a wait, is reported as a race", "[emulator]") {
  for (auto [wait, barrier] : {std::pair{true, false}, std::pair{false, true}}) {
    auto k = TestKernel::build(barrier_kernel(wait, barrier), lds_shape(64));
    std::vector<uint32_t> out(512, 0);
    Args args;
    args.add(out);
    for (uint64_t seed = 1; seed <= 10; ++seed) {
      auto stats = run(k, args.dispatch(1, 512), randomized(seed));
      INFO("wait " << wait << " barrier " << barrier << " seed " << seed);
      REQUIRE_FALSE(stats.races.empty());
      CHECK(stats.races[0].what.find("LDS") != std::string::npos);
    }
  }
}

TEST_CASE("a missing s_waitcnt is reported as a race for every seed; the correct kernel never is", "[emulator]") {
  std::vector<uint32_t> buffer(3 * 64, 5);
  Args args;
  args.add(buffer);
  auto racy = TestKernel::build(load_use_kernel(false));
  auto good = TestKernel::build(load_use_kernel(true));
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    auto bad_stats = run(racy, args.dispatch(), randomized(seed));
    REQUIRE(bad_stats.races.size() >= 1);
    const auto& r = bad_stats.races[0];
    CHECK(r.instruction.find("v_add_u32") != std::string::npos);
    CHECK(r.what.find("global_load_dword v10") != std::string::npos);
    CHECK(r.what.find("vmcnt") != std::string::npos);
    CHECK(r.pc > 0);
    auto good_stats = run(good, args.dispatch(), randomized(seed));
    INFO(race_text(good_stats));
    CHECK(good_stats.races.empty());
  }
}

TEST_CASE("LDS-DMA read by other waves without vmcnt(0) before the barrier is a race for every seed", "[emulator]") {
  std::vector<uint32_t> in(4096), out(256);
  for (size_t i = 0; i < in.size(); ++i) in[i] = uint32_t(i * 3);
  Args args;
  args.add(in);
  args.add(out);
  auto racy = TestKernel::build(lds_dma_kernel(false), lds_shape(4096));
  auto good = TestKernel::build(lds_dma_kernel(true), lds_shape(4096));
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    auto bad = run(racy, args.dispatch(1, 256), randomized(seed));
    INFO("seed " << seed);
    REQUIRE_FALSE(bad.races.empty());
    CHECK(bad.races[0].what.find("buffer_load_dwordx4") != std::string::npos);
    auto ok = run(good, args.dispatch(1, 256), randomized(seed));
    INFO(race_text(ok));
    CHECK(ok.races.empty());
    // wave w reads the 1 KiB that wave w^1 loaded: lane l gets in[4 * (64 * (w ^ 1) + l)]
    for (uint32_t t = 0; t < 256; ++t) REQUIRE(out[t] == in[4 * (t ^ 64)]);
  }
}

TEST_CASE("results and race reports do not depend on the number of host threads", "[emulator]") {
  // 12 workgroups of 4 waves; the racy variant reports per workgroup.
  for (bool racy : {false, true}) {
    std::vector<uint32_t> in(4096), out(12 * 256);
    for (size_t i = 0; i < in.size(); ++i) in[i] = uint32_t(i * 7 + 1);
    auto k = TestKernel::build(lds_dma_kernel(!racy), lds_shape(4096));
    std::vector<std::vector<uint32_t>> outputs;
    std::vector<std::string> reports;
    std::vector<uint64_t> counts;
    for (unsigned threads : {1u, 2u, 3u}) {
      std::fill(out.begin(), out.end(), 0);
      Args args;
      args.add(in);
      args.add(out);
      auto opts = randomized(42);
      opts.threads = threads;
      opts.max_races = 64;
      auto stats = run(k, args.dispatch(12, 256), opts);
      outputs.push_back(out);
      std::string text;
      for (auto& r : stats.races) text += fmt::format("{} {} {} {}\n", r.workgroup[0], r.wave, r.pc, r.what);
      reports.push_back(text);
      counts.push_back(stats.instructions);
      CHECK(stats.races.empty() == !racy);
    }
    CHECK(outputs[0] == outputs[1]);
    CHECK(outputs[0] == outputs[2]);
    CHECK(reports[0] == reports[1]);
    CHECK(reports[0] == reports[2]);
    CHECK(counts[0] == counts[1]);
    CHECK(counts[0] == counts[2]);
  }
}
