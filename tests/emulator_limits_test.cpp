// Every launch is bounded: an instruction budget, a time limit and a cancel flag
// stop a kernel that never ends, naming where it was.
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "cdna4/runtime.hpp"
#include "emulator_test_kernel.hpp"
#include "support/errors.hpp"
#include "support/process.hpp"

using namespace cdna4;
using cdna4::test::error_of;
using cdna4::test::limit_error_of;

namespace {

Kernel endless() { return Kernel::from_hsaco(emutest::endless_hsaco()); }

}  // namespace

TEST_CASE("limits: an endless kernel stops at the instruction budget, naming workgroup, wave and pc", "[emulator][limits]") {
  Device dev = Device::emulator();
  LaunchOptions o;
  o.max_instructions = 100000;
  for (bool instant : {false, true}) {
    o.instant_completion = instant;
    std::string e = limit_error_of([&] { dev.launch(endless(), {1}, {64}, KernargBlock(0), o); });
    CHECK_THAT(e, Catch::Contains("instruction budget of 100000 wave-instructions exhausted in workgroup (0,0,0) wave 0 at 0x4 's_branch"));
  }
}

TEST_CASE("limits: the time limit stops an endless kernel and a huge grid", "[emulator][limits]") {
  Device dev = Device::emulator();
  LaunchOptions o;
  o.max_instructions = 0;
  o.time_limit_seconds = 0.3;
  auto t0 = std::chrono::steady_clock::now();
  CHECK_THAT(limit_error_of([&] { dev.launch(endless(), {1}, {64}, KernargBlock(0), o); }),
             Catch::Contains("time limit of 0.3 s exceeded in workgroup (0,0,0)"));
  Kernel tiny = Kernel::from_hsaco(codegen::build_hsaco(emutest::kernel_source("  s_endpgm\n")));
  emutest::KernelShape shape;
  CHECK_THAT(limit_error_of([&] { dev.launch(tiny, {65536, 65536, 65536}, {64}, KernargBlock(0), o); }),
             Catch::Contains("time limit of 0.3 s exceeded"));
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 10.0);
}

TEST_CASE("limits: a launch can be cancelled from another thread", "[emulator][limits]") {
  Device dev = Device::emulator();
  std::atomic<bool> cancel{false};
  LaunchOptions o;
  o.max_instructions = 0;
  o.time_limit_seconds = 0;
  o.cancel = &cancel;
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    cancel = true;
  });
  std::string e = limit_error_of([&] { dev.launch(endless(), {4}, {256}, KernargBlock(0), o); });
  canceller.join();
  CHECK_THAT(e, Catch::Contains("launch cancelled"));
}

TEST_CASE("limits: the defaults are finite and a normal launch is within them", "[emulator][limits]") {
  EmulatorConfig config;
  CHECK(config.max_instructions == uint64_t(1) << 36);
  CHECK(config.time_limit_seconds == 600);
  Device dev = Device::emulator();
  LaunchOptions o;
  o.max_instructions = 5000;  // the kernel runs 64 waves x 2 instructions
  CHECK_NOTHROW(dev.launch(Kernel::from_hsaco(codegen::build_hsaco(emutest::kernel_source("  s_nop 0\n  s_endpgm\n"))),
                           {16}, {256}, KernargBlock(0), o));
}

TEST_CASE("cdna4-run: --max-instructions and --timeout stop an endless kernel with exit status 1", "[emulator][limits][cli]") {
  test::TempDir dir;
  test::write_binary(dir.file("loop.hsaco"), endless().hsaco());
  const std::string run = std::string(CDNA4_BINARY_DIR) + "/cdna4-run";
  auto budget = test::run_command({run, dir.file("loop.hsaco"), "--grid", "1", "--block", "64", "--kernarg-size", "0",
                                   "--max-instructions", "10000"});
  CHECK(budget.status == 1);
  CHECK_THAT(budget.output, Catch::Contains("instruction budget of 10000 wave-instructions exhausted in workgroup (0,0,0) wave 0 at 0x4"));
  auto timeout = test::run_command({run, dir.file("loop.hsaco"), "--grid", "1", "--block", "64", "--kernarg-size", "0",
                                    "--max-instructions", "0", "--timeout", "0.2"});
  CHECK(timeout.status == 1);
  CHECK_THAT(timeout.output, Catch::Contains("time limit of 0.2 s exceeded"));
  auto bad = test::run_command({run, dir.file("loop.hsaco"), "--grid", "1", "--block", "64", "--timeout", "-1"});
  CHECK(bad.status == 2);
  CHECK_THAT(bad.output, Catch::Contains("--timeout: '-1' is not a number of seconds"));
}

TEST_CASE("registers: a kernel may name only the registers its descriptor allocates", "[emulator][limits]") {
  emutest::KernelShape small;
  small.vgprs = 8;
  small.accum_offset = 4;
  small.sgprs = 8;
  auto run_body = [&](const std::string& body) {
    emutest::TestKernel k = emutest::TestKernel::build(body + "  s_endpgm\n", small);
    emutest::Args args;
    return error_of([&] { emutest::run(k, args.dispatch()); });
  };
  CHECK_THAT(run_body("  v_mov_b32 v255, 0\n"),
             Catch::Contains("names v255 but the kernel descriptor allocates 8 vector (VGPR + AGPR) registers"));
  CHECK_THAT(run_body("  v_accvgpr_write_b32 a255, 0\n"), Catch::Contains("names v259 but the kernel descriptor allocates 8"));
  CHECK_THAT(run_body("  s_mov_b32 s100, 0\n"),
             Catch::Contains("names s100 but the kernel descriptor allocates 16 scalar registers"));
  CHECK_THAT(run_body("  v_mov_b64 v[6:7], 0\n  v_accvgpr_write_b32 a3, 0\n  s_mov_b32 s15, 0\n  s_mov_b32 vcc_lo, 0\n  s_mov_b32 m0, 0\n"),
             Catch::Equals("no error"));
}

TEST_CASE("cdna4-gemm: --max-instructions and --timeout bound the launch", "[emulator][limits][cli]") {
  const std::string gemm = std::string(CDNA4_BINARY_DIR) + "/cdna4-gemm";
  const std::string schedule = test::source_path("schedules/baseline_256x256x64_w8.json");
  auto budget = test::run_command({gemm, schedule, "--shape", "512x512x512", "--max-instructions", "1000"});
  CHECK(budget.status == 1);
  CHECK_THAT(budget.output, Catch::Contains("instruction budget of 1000 wave-instructions exhausted in workgroup"));
  auto bad = test::run_command({gemm, schedule, "--shape", "512x512x512", "--timeout", "1s"});
  CHECK(bad.status != 0);
  CHECK_THAT(bad.output, Catch::Contains("--timeout: '1s' is not a number of seconds"));
  auto fine = test::run_command({gemm, schedule, "--shape", "256x256x64", "--timeout", "120", "--check"});
  INFO(fine.output);
  CHECK(fine.status == 0);
}

TEST_CASE("limits: short workgroups are charged too, and a batch ending on the last instruction is reported", "[emulator][limits]") {
  Device dev = Device::emulator();
  std::string nops;
  for (int i = 0; i < 4000; ++i) nops += "  s_nop 0\n";
  Kernel short_wg = Kernel::from_hsaco(codegen::build_hsaco(emutest::kernel_source(nops + "  s_endpgm\n")));
  LaunchOptions o;
  o.max_instructions = 10000;
  CHECK_THAT(limit_error_of([&] { dev.launch(short_wg, {1000}, {64}, KernargBlock(0), o); }),
             Catch::Contains("instruction budget of 10000 wave-instructions exhausted"));
  // 4095 instructions then s_endpgm: the 4096th, the last of .text, completes the first batch.
  std::string batch;
  for (int i = 0; i < 4095; ++i) batch += "  s_nop 0\n";
  Kernel exact = Kernel::from_hsaco(codegen::build_hsaco(emutest::kernel_source(batch + "  s_endpgm\n")));
  o.max_instructions = 1000;
  CHECK_THAT(limit_error_of([&] { dev.launch(exact, {1}, {64}, KernargBlock(0), o); }),
             Catch::Contains("exhausted in workgroup (0,0,0) wave 0 at 0x3ffc 's_endpgm'"));
}

TEST_CASE("limits: the timed mode stops endless loops of branches, sleeps and waits at the budget", "[emulator][limits][timed]") {
  Device dev = Device::emulator();
  LaunchOptions o;
  o.timed = true;
  o.max_instructions = 100000;
  auto endless_with = [](const std::string& body) {
    return Kernel::from_hsaco(codegen::build_hsaco(emutest::kernel_source(body)));
  };
  // Wave 0 loops; the other waves wait at a barrier it never reaches.
  const Kernel beside_barrier = endless_with(R"(
  v_lshrrev_b32 v1, 6, v0
  v_readfirstlane_b32 s6, v1
  s_cmp_eq_u32 s6, 0
  s_cbranch_scc1 loop
  s_barrier
  s_endpgm
loop:
  s_sleep 127
  s_waitcnt vmcnt(0) lgkmcnt(0)
  s_branch loop
)");
  for (uint32_t block : {64u, 512u}) {
    INFO("block " << block);
    CHECK_THAT(limit_error_of([&] { dev.launch(endless(), {1}, {block}, KernargBlock(0), o); }),
               Catch::Contains("instruction budget of 100000 wave-instructions exhausted"));
    CHECK_THAT(limit_error_of([&] { dev.launch(beside_barrier, {1}, {block}, KernargBlock(0), o); }),
               Catch::Contains("instruction budget of 100000 wave-instructions exhausted in workgroup (0,0,0) wave 0"));
    for (bool instant : {false, true}) {
      o.instant_completion = instant;
      CHECK_THAT(limit_error_of([&] { dev.launch(beside_barrier, {1}, {block}, KernargBlock(0), o); }),
                 Catch::Contains("exhausted in workgroup (0,0,0) wave 0"));
    }
    o.instant_completion = false;
  }
}
