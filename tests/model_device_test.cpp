// The model device: the emulator's results, bit for bit, plus a modeled time;
// and the lines cdna4-run and cdna4-gemm print for it.
#include <catch2/catch.hpp>

#include <cmath>
#include <regex>

#include <nlohmann/json.hpp>

#include "cdna4/gemm.hpp"
#include "cdna4/runtime.hpp"
#include "codegen/assembler.hpp"
#include "emulator_test_kernel.hpp"
#include "gemm_support.hpp"
#include "runtime/model/parameters.hpp"
#include "support/process.hpp"

using namespace cdna4;

namespace {

std::string tool(const char* name) { return std::string(CDNA4_BINARY_DIR) + "/" + name; }
std::string schedule_path(const char* name) { return test::source_path(std::string("schedules/") + name); }

double number_after(const std::string& text, const std::string& label) {
  std::smatch m;
  REQUIRE(std::regex_search(text, m, std::regex(label + " ([0-9.]+)")));
  return std::stod(m[1]);
}

}  // namespace

TEST_CASE("model device: results bit-identical to the emulator's, with a modeled time", "[model]") {
  const int64_t m = 512, n = 512, k = 256;
  const auto a = test::random_matrix(size_t(m * k), 11), b = test::random_matrix(size_t(k * n), 12);
  for (const char* name : {"baseline_256x256x64_w8.json", "pingpong_256x256x64_w8.json"}) {
    INFO(name);
    const Schedule s = load_schedule(schedule_path(name));
    Device emulator = Device::open("emulator"), model = Device::open("model");
    CHECK(model.name() == "model");
    const GemmRun expected = run_gemm(emulator, s, test::problem(m, n, k, test::bytes_of(a), test::bytes_of(b), OutType::f32));
    const GemmRun modeled = run_gemm(model, s, test::problem(m, n, k, test::bytes_of(a), test::bytes_of(b), OutType::f32));
    CHECK(modeled.c == expected.c);
    CHECK_FALSE(expected.launch.model.has_value());
    REQUIRE(modeled.launch.model.has_value());
    const ModelReport& r = *modeled.launch.model;
    CHECK(r.cycles > 0);
    CHECK(r.cycles == uint64_t(std::ceil(r.seconds * r.clock_hz)));  // the modeled time in whole clocks, rounded up
    CHECK(r.workgroups_per_cu == 1);  // 128 KiB of LDS per workgroup
    CHECK(r.rounds == 1);
    CHECK(r.mfma_utilization > 0);
    CHECK(r.mfma_utilization <= 1);
    const double tflops = 2.0 * m * n * k / r.seconds / 1e12;
    CHECK(tflops < 2517);
    double shares = r.stalls.issued + r.stalls.vmcnt + r.stalls.lgkmcnt + r.stalls.barrier +
                    r.stalls.mfma_dependency + r.stalls.mfma_busy + r.stalls.issue + r.stalls.other;
    CHECK(shares == Approx(1.0));
    CHECK(r.memory_bytes == double(m * k * 2 + n * k * 2 + m * n * 4));
  }
}

TEST_CASE("model device: model_only runs just the timed workgroups and models the same time", "[model]") {
  static_assert(model::param::kTraceAllWorkgroups.value >= 4);
  const int64_t m = 512, n = 512, k = 256;
  const auto a = test::random_matrix(size_t(m * k), 13), b = test::random_matrix(size_t(k * n), 14);
  const Schedule s = load_schedule(schedule_path("baseline_256x256x64_w8.json"));
  EmulatorConfig only;
  only.model_only = true;
  Device full = Device::open("model"), fast = Device::open("model", only);
  const GemmRun everything = run_gemm(full, s, test::problem(m, n, k, test::bytes_of(a), test::bytes_of(b), OutType::f32));
  const GemmRun timed = run_gemm(fast, s, test::problem(m, n, k, test::bytes_of(a), test::bytes_of(b), OutType::f32));
  REQUIRE(timed.launch.model.has_value());
  CHECK(timed.launch.model->cycles == everything.launch.model->cycles);
  // A grid of 4 workgroups is traced whole ("Grids whose workgroups differ").
  CHECK(timed.launch.instructions == everything.launch.instructions);
}

TEST_CASE("cdna4-gemm --device model: modeled lines, and C equal to the emulator's", "[model][cli]") {
  test::TempDir dir;
  const std::string s = schedule_path("baseline_256x256x64_w8.json");
  auto emulated = test::run_command({tool("cdna4-gemm"), s, "--shape", "512x512x128", "--c-out", dir.file("e.bin")});
  auto modeled = test::run_command(
      {tool("cdna4-gemm"), s, "--shape", "512x512x128", "--device", "model", "--c-out", dir.file("m.bin"), "--check"});
  REQUIRE(emulated.status == 0);
  REQUIRE(modeled.status == 0);
  CHECK(test::read_binary(dir.file("e.bin")) == test::read_binary(dir.file("m.bin")));
  CHECK_THAT(modeled.output, Catch::Contains("bit-exact: yes"));
  const double tflops = number_after(modeled.output, "\nmodeled:");
  CHECK(tflops > 0);
  CHECK(tflops < 2517);
  CHECK(number_after(modeled.output, "\nmodeled cycles:") > 0);
  CHECK(number_after(modeled.output, "\nmodeled time:") > 0);
  CHECK_THAT(modeled.output, Catch::Matches("(.|\n)*\nmodeled time: [0-9.]+ us\n(.|\n)*"));
  CHECK_THAT(modeled.output, Catch::Contains("modeled MFMA utilisation: "));
  CHECK_THAT(modeled.output, Catch::Contains("modeled wave time: issued "));
  CHECK_THAT(emulated.output, !Catch::Contains("modeled"));

  auto traced = test::run_command({tool("cdna4-gemm"), s, "--shape", "256x256x128", "--device", "model", "--model-only",
                                   "--trace", dir.file("t.json")});
  REQUIRE(traced.status == 0);
  const std::string trace = test::read_text_file(dir.file("t.json"));
  CHECK_THAT(trace, Catch::StartsWith("{") && Catch::Contains("\"traceEvents\"") && Catch::Contains("\"MFMA\"") &&
                        Catch::Contains("\"SIMD 3\"") && Catch::Contains("workgroup 0 wave 7"));
  auto refused = test::run_command({tool("cdna4-gemm"), s, "--shape", "256x256x128", "--trace", dir.file("u.json")});
  CHECK(refused.status == 2);
  CHECK_THAT(refused.output, Catch::Contains("--trace needs --device model"));
}

TEST_CASE("cdna4-run --device model prints modeled cycles and time", "[model][cli]") {
  test::TempDir dir;
  test::write_binary(dir.file("k.hsaco"), emutest::mfma_only_hsaco());
  auto run = test::run_command(
      {tool("cdna4-run"), dir.file("k.hsaco"), "--device", "model", "--grid", "1", "--block", "64", "--kernarg-size", "64"});
  INFO(run.output);
  REQUIRE(run.status == 0);
  // One wave, four chained MFMAs: 64 clocks on its CU, one round, started one
  // clock after the dispatch (one wave on its XCD), after the launch latency.
  const double clock = model::param::kClockHz.value, seconds = model::param::kLaunchSeconds.value + 65 / clock;
  CHECK_THAT(run.output, Catch::Contains(fmt::format("\nmodeled cycles: {}\n", uint64_t(std::ceil(seconds * clock)))));
  CHECK_THAT(run.output, Catch::Contains(fmt::format("\nmodeled time: {:.3f} us\n", seconds * 1e6)));

  auto traced = test::run_command({tool("cdna4-run"), dir.file("k.hsaco"), "--device", "model", "--grid", "1", "--block",
                                   "64", "--kernarg-size", "64", "--trace", dir.file("t.json")});
  REQUIRE(traced.status == 0);
  const std::string trace = test::read_text_file(dir.file("t.json"));
  CHECK_THAT(trace, Catch::Contains("\"traceEvents\"") && Catch::Contains("\"MFMA\""));
  auto refused = test::run_command({tool("cdna4-run"), dir.file("k.hsaco"), "--grid", "1", "--block", "64",
                                    "--kernarg-size", "64", "--trace", dir.file("u.json")});
  CHECK(refused.status == 2);
  CHECK_THAT(refused.output, Catch::Contains("--trace needs --device model"));
}

TEST_CASE("cdna4-run --model-only runs the model's probes only and models the same time", "[model][cli]") {
  test::TempDir dir;
  test::write_binary(dir.file("k.hsaco"), emutest::mfma_only_hsaco());
  auto launch = [&](std::vector<std::string> extra) {
    std::vector<std::string> cmd = {tool("cdna4-run"), dir.file("k.hsaco"), "--device", "model", "--grid", "65536",
                                    "--block", "64", "--kernarg-size", "64", "--json"};
    cmd.insert(cmd.end(), extra.begin(), extra.end());
    auto r = test::run_command(cmd);
    INFO(r.output);
    REQUIRE(r.status == 0);
    return nlohmann::json::parse(r.output);
  };
  const nlohmann::json full = launch({}), only = launch({"--model-only"});
  CHECK(only["model"]["cycles"] == full["model"]["cycles"]);
  CHECK(only["model"]["seconds"] == full["model"]["seconds"]);
  const uint64_t per_workgroup = full["instructions"].get<uint64_t>() / 65536;
  CHECK(full["instructions"].get<uint64_t>() == 65536 * per_workgroup);
  CHECK(only["instructions"].get<uint64_t>() > 0);
  CHECK(only["instructions"].get<uint64_t>() < 65536 * per_workgroup / 16);  // the probes, not the grid

  auto refused = test::run_command({tool("cdna4-run"), dir.file("k.hsaco"), "--grid", "1", "--block", "64",
                                    "--kernarg-size", "64", "--model-only"});
  CHECK(refused.status == 2);
  CHECK_THAT(refused.output, Catch::Contains("--model-only needs --device model"));
  for (const char* mode : {"--timed", "--instant"}) {
    auto on_hardware = test::run_command({tool("cdna4-run"), dir.file("k.hsaco"), "--device", "hsa", "--grid", "1",
                                          "--block", "64", "--kernarg-size", "64", mode});
    CHECK(on_hardware.status == 2);
    CHECK_THAT(on_hardware.output, Catch::Contains("--device hsa runs the hardware"));
    auto gemm_on_hardware = test::run_command({tool("cdna4-gemm"), cdna4::test::source_path("schedules/baseline_256x256x64_w8.json"), "--shape",
                                               "64x64x64", "--device", "hsa", mode});
    CHECK(gemm_on_hardware.status == 2);
    CHECK_THAT(gemm_on_hardware.output, Catch::Contains("--device hsa runs the hardware"));
  }
  auto no_out = test::run_command({tool("cdna4-run"), dir.file("k.hsaco"), "--device", "model", "--grid", "1",
                                   "--block", "64", "--kernarg-size", "64", "--buf", "o@0=64", "--out",
                                   "o=" + dir.file("o.bin"), "--model-only"});
  CHECK(no_out.status == 2);
  CHECK_THAT(no_out.output, Catch::Contains("--model-only leaves the outputs incomplete"));
}

// The baseline's grid is 8 x 8 tiles of 256 x 256 with x (the N tile) fastest,
// so XCD 0 (linear ids 0, 8, ..., 56) runs the 8 tiles of column 0: 8 A
// panels and one B panel. Each probe's first 256 KiB are its first 4 K-steps of
// A and B alike, so of 16 panel-reads the XCD's L2 fetches 9: a hit rate of 7/16.
TEST_CASE("model device: the L2 hit rate comes from the grid order, the same with or without model_only", "[model]") {
  const int64_t m = 2048, n = 2048, k = 1024;
  const std::vector<uint16_t> a(size_t(m * k)), b(size_t(k * n));
  Schedule s = load_schedule(schedule_path("baseline_256x256x64_w8.json"));
  s.workgroup_order = {};  // dispatch order
  EmulatorConfig only;
  only.model_only = true;
  only.instant_completion = true;
  EmulatorConfig all = only;
  all.model_only = false;
  Device fast = Device::open("model", only), full = Device::open("model", all);
  const ModelReport timed = *run_gemm(fast, s, test::problem(m, n, k, test::bytes_of(a), test::bytes_of(b), OutType::f32)).launch.model;
  const ModelReport everything = *run_gemm(full, s, test::problem(m, n, k, test::bytes_of(a), test::bytes_of(b), OutType::f32)).launch.model;
  CHECK(timed.l2_hit_rate == Approx(7.0 / 16));
  CHECK(everything.l2_hit_rate == timed.l2_hit_rate);
  CHECK(everything.cycles == timed.cycles);
  // Latency between an L2 hit and a miss, weighted by the hit rate. The 64
  // workgroups read 1 MiB each (A and B panels of 256 x 1024 bf16): of the 36 MiB
  // missed, the 24 MiB of passed buffers (A, B and the f32 C) are first touches
  // from HBM, the other third MALL hits.
  using namespace model::param;
  const double miss = 2.0 / 3 * kHbmLatency.value + 1.0 / 3 * kL2MissLatency.value;
  CHECK(timed.global_latency == uint32_t(std::lround(7.0 / 16 * kL2HitLatency.value + 9.0 / 16 * miss)));
}

// workgroup_order {xcds 8, group_m 4}: XCD 0's eight workgroups get tiles 0..7,
// which run down 4 tile rows: rows 0..3 of columns 0 and 1, i.e. 4 A panels
// and 2 B panels of 16 panel-reads (hit rate 10/16); C stays bit-exact.
TEST_CASE("model device: a chiplet-aware workgroup order raises the L2 hit rate", "[model][gemm]") {
  const int64_t m = 2048, n = 2048, k = 1024;
  const auto a = test::integer_matrix(size_t(m * k), 1), b = test::integer_matrix(size_t(k * n), 2);
  Schedule s = load_schedule(schedule_path("baseline_256x256x64_w8.json"));
  s.workgroup_order = {8, 4};
  EmulatorConfig config;
  config.instant_completion = true;
  Device model = Device::open("model", config);
  const GemmRun run = run_gemm(model, s, test::problem(m, n, k, test::bytes_of(a), test::bytes_of(b), OutType::f32));
  CHECK(run.launch.model->l2_hit_rate == Approx(10.0 / 16));
  CHECK(differing_elements(run.c, to_output_bits(reference_gemm(a, b, m, n, k), DataType::f32), 4) == 0);
}
