// The model device's memory is bounded like its time: the recorded
// wave-instruction traces and the timeline stop at max_trace_bytes with a
// LimitError naming the limit, instead of growing until std::bad_alloc.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>

#include "cdna4/runtime.hpp"
#include "emulator_test_kernel.hpp"
#include "model_test_support.hpp"
#include "support/errors.hpp"
#include "support/process.hpp"

#include <nlohmann/json.hpp>

using namespace cdna4;

namespace {

using cdna4::test::limit_error_of;

Kernel endless() { return Kernel::from_hsaco(emutest::endless_hsaco()); }

std::string tool(const char* name) { return std::string(CDNA4_BINARY_DIR) + "/" + name; }

}  // namespace

TEST_CASE("model limits: an endless kernel stops at max_trace_bytes, not at std::bad_alloc", "[model][limits]") {
  CHECK(EmulatorConfig{}.max_trace_bytes == uint64_t(2) << 30);
  EmulatorConfig config;
  config.max_trace_bytes = uint64_t(16) << 20;
  config.max_instructions = 0;  // no other limit: only the trace's bytes stop it
  config.time_limit_seconds = 0;
  Device dev = Device::model(config);
  const auto t0 = std::chrono::steady_clock::now();
  const std::string e = limit_error_of([&] { dev.launch(endless(), {1}, {256}, KernargBlock(0)); });
  CHECK_THAT(e, Catch::Contains("the timing model's traces passed the limit of 16777216 bytes (max_trace_bytes, "
                                "--max-trace-bytes) in workgroup (0,0,0) wave"));
  CHECK_THAT(e, Catch::Contains("s_branch"));
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 60.0);

  // The plain emulator keeps no trace: the same kernel ends at its instruction budget.
  LaunchOptions o;
  o.max_instructions = 1000000;
  CHECK_THAT(limit_error_of([&] { Device::emulator(config).launch(endless(), {1}, {256}, KernargBlock(0), o); }),
             Catch::Contains("instruction budget"));
}

TEST_CASE("model limits: the CU timeline grows only as far as its limit", "[model][limits]") {
  std::string body;
  for (int i = 0; i < 64; ++i) body += "  v_mfma_f32_16x16x32_bf16 a[0:3], v[0:3], v[4:7], a[0:3]\n";
  body += "  s_endpgm\n";
  emutest::KernelShape shape;
  shape.vgprs = 128;
  const auto k = emutest::TestKernel::build(body, shape);
  model::TraceCollector sink(1, {}, {}, 0);
  emu::EmulatorOptions o = emutest::instant();
  o.trace = &sink;
  emutest::run(k, emutest::Args{}.dispatch(1, 64), o);
  const auto traces = sink.take_resident();
  const auto program = emu::decode_program(k.code.text(), k.info.accum_offset);
  const auto timing = model::classify(*program);
  const auto whole = model::simulate_cu(*program, timing, traces, modeltest::kGlobalLatency, true);
  REQUIRE(whole.timeline.size() == 64);
  CHECK(model::simulate_cu(*program, timing, traces, modeltest::kGlobalLatency, true, 64).timeline.size() == 64);
  CHECK_THAT(limit_error_of([&] { model::simulate_cu(*program, timing, traces, modeltest::kGlobalLatency, true, 63); }),
             Catch::Contains("the timeline of one CU needs more than 63 slices"));
}

TEST_CASE("model limits: the trace collector charges traces and gives back what it drops", "[model][limits]") {
  model::TraceCollector sink(1, {}, {5}, 4, 1000);
  CHECK(sink.charge(600));
  CHECK(!sink.charge(600));  // 1200 > 1000
  CHECK(sink.charge(-600));
  CHECK(sink.bytes() == 600);
  emu::WorkgroupTrace probe;  // a footprint-only workgroup: only its first lines are kept
  probe.linear_id = 5;
  probe.waves.assign(1, std::vector<emu::TraceEntry>(50));
  probe.read_lines = {1, 2, 3, 4, 5, 6};
  sink.charge(int64_t(emu::trace_bytes(probe)));
  sink.deliver(std::move(probe));
  CHECK(sink.bytes() == 600 + 4 * sizeof(uint64_t));
}

TEST_CASE("model limits: cdna4-gemm --device model stops at --max-trace-bytes with a clear error", "[model][limits][cli]") {
  test::TempDir dir;
  const std::string s = test::source_path("schedules/baseline_256x256x64_w8.json");
  const auto refused = test::run_command({"timeout", "-s", "KILL", "300", tool("cdna4-gemm"), s, "--shape",
                                          "256x256x65536", "--device", "model", "--model-only", "--quiet", "--trace",
                                          dir.file("t.json"), "--max-trace-bytes", "4M"});
  INFO(refused.output);
  CHECK(refused.status == 1);
  CHECK_THAT(refused.output, Catch::Contains("passed the limit of 4194304 bytes (max_trace_bytes, --max-trace-bytes)"));
  CHECK(dir.entry_count() == 0);

  const auto bad = test::run_command({tool("cdna4-gemm"), s, "--shape", "256x256x64", "--device", "model",
                                      "--max-trace-bytes", "lots"});
  CHECK(bad.status == 2);
  CHECK_THAT(bad.output, Catch::Contains("--max-trace-bytes: 'lots' is not a non-negative integer"));
}

TEST_CASE("model limits: --trace streams the Chrome trace, its memory that of the timeline", "[model][limits][cli]") {
  test::TempDir dir;
  const std::string s = test::source_path("schedules/baseline_256x256x64_w8.json");
  const auto traced = test::run_command({"timeout", "-s", "KILL", "300", "/usr/bin/time", "-f", "max-rss-kib %M",
                                         tool("cdna4-gemm"), s, "--shape", "256x256x16384", "--device", "model",
                                         "--model-only", "--quiet", "--trace", dir.file("t.json")});
  INFO(traced.output);
  REQUIRE(traced.status == 0);
  const auto rss = traced.output.find("max-rss-kib ");
  REQUIRE(rss != std::string::npos);
  const uint64_t trace_kib = std::filesystem::file_size(dir.file("t.json")) / 1024;
  INFO("trace " << trace_kib << " KiB");
  // A tree of the events would take several times the text.
  CHECK(std::stoull(traced.output.substr(rss + 12)) < 300 * 1024 + trace_kib / 2);
  const std::string text = test::read_text_file(dir.file("t.json"));
  CHECK(text.starts_with("{\"displayTimeUnit\":\"ns\",\"otherData\":{"));
  CHECK(text.ends_with("]}\n"));
  CHECK(nlohmann::json::parse(text)["traceEvents"].size() > 100000);
}
