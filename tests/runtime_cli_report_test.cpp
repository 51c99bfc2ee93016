// cdna4-run's race report lines, --json and --check, as a script would use them.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "codegen/assembler.hpp"
#include "emulator_test_kernel.hpp"
#include "repeated_hazard_kernel.hpp"
#include "support/process.hpp"

using namespace cdna4;
using test::run_command;
using test::TempDir;

namespace {

const std::string kRun = std::string(CDNA4_BINARY_DIR) + "/cdna4-run";

// A kernel "k" with one buffer argument "out", in the way cdna4-run needs it
// (argument metadata), for `waves` waves with 256 LDS bytes each.
std::string kernel_with_buffer_arg(const std::string& body, int waves = 1) {
  emutest::KernelShape shape;
  shape.accum_offset = 32;
  shape.sgprs = 16;
  shape.kernarg_size = 8;
  shape.max_workgroup_size = 64 * waves;
  shape.lds = 256 * uint32_t(waves);
  shape.args = "      - { .name: out, .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }\n";
  return emutest::kernel_source(body, shape);
}

// A load used without vmcnt, a VALU result fed straight to an MFMA, the MFMA's
// result read at once: one register race and two hazards.
const char* kRacy = R"(
  s_load_dwordx2 s[4:5], s[0:1], 0
  s_waitcnt lgkmcnt(0)
  v_lshlrev_b32 v3, 2, v0
  global_load_dword v10, v3, s[4:5]
  v_add_u32 v12, v10, 1
  s_waitcnt vmcnt(0)
  v_mfma_f32_16x16x32_bf16 a[0:3], v[8:11], v[12:15], a[0:3]
  v_accvgpr_read_b32 v1, a2
  s_endpgm
)";

std::string write_kernel(const TempDir& dir, const std::string& name, const std::string& body) {
  const std::string path = dir.file(name);
  test::write_binary(path, codegen::build_hsaco(kernel_with_buffer_arg(body), name + ".s"));
  return path;
}

std::vector<std::string> lines_starting(const std::string& text, const std::string& prefix) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    if (text.compare(at, prefix.size(), prefix) == 0) out.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

}  // namespace

TEST_CASE("cdna4-run: one greppable line per race report", "[runtime][cli]") {
  TempDir dir;
  const std::string k = write_kernel(dir, "racy.hsaco", kRacy);
  auto r = run_command({kRun, k, "--grid", "1", "--block", "64", "--buf", "out=256", "--seed", "2"});
  INFO(r.output);
  CHECK(r.status == 3);
  const auto races = lines_starting(r.output, "race ");
  REQUIRE(races.size() == 3);
  CHECK(races[0] ==
        "race kind=register-read pc=0x18 count=1 wg=0,0,0 wave=0 other_pc=0x10 other_wave=0 at=v10 missing=vmcnt "
        "inst='v_add_u32_e64 v12, v10, 1' other_inst='global_load_dword v10, v3, s[4:5]'");
  CHECK(races[1] ==
        "race kind=hazard pc=0x24 count=1 wg=0,0,0 wave=0 other_pc=0x18 other_wave=0 at=v12 missing=wait-states "
        "rule=valu-result-read-by-mfma needed=2 passed=1 "
        "inst='v_mfma_f32_16x16x32_bf16 a[0:3], v[8:11], v[12:15], a[0:3]' other_inst='v_add_u32_e64 v12, v10, 1'");
  CHECK_THAT(races[2], Catch::StartsWith("race kind=hazard pc=0x2c count=1 ") &&
                           Catch::Contains(" at=a2 missing=wait-states rule=mfma-result-read-by-valu-or-memory "
                                           "needed=8 passed=0 inst='v_accvgpr_read_b32 v1, a2'"));
}

TEST_CASE("cdna4-run: --json prints the launch stats and the reports", "[runtime][cli]") {
  TempDir dir;
  const std::string k = write_kernel(dir, "racy.hsaco", kRacy);
  auto r = run_command({kRun, k, "--grid", "1", "--block", "64", "--buf", "out=256", "--seed", "2", "--json"});
  INFO(r.output);
  CHECK(r.status == 3);
  const nlohmann::json j = nlohmann::json::parse(r.output);
  CHECK(j["kernel"] == "k");
  CHECK(j["device"] == "emulator");
  CHECK(j["grid"] == nlohmann::json::array({1, 1, 1}));
  CHECK(j["block"] == nlohmann::json::array({64, 1, 1}));
  CHECK(j["instructions"].get<uint64_t>() == 9);
  CHECK(j["mfma_macs"].get<uint64_t>() > 0);
  const auto& races = j["races"];
  REQUIRE(races.size() == 3);
  CHECK(races[0]["kind"] == "register-read");
  CHECK(races[0]["pc"] == 0x18);
  CHECK(races[0]["count"] == 1);
  CHECK(races[0]["other_pc"] == 0x10);
  CHECK(races[0]["location"] == nlohmann::json({{"space", "vgpr"}, {"first", 10}, {"count", 1}}));
  CHECK(races[0]["missing"] == "vmcnt");
  CHECK(races[0]["workgroup"] == nlohmann::json::array({0, 0, 0}));
  CHECK_FALSE(races[0].contains("rule"));
  CHECK(j["dropped_races"] == 0);
  CHECK(races[2]["kind"] == "hazard");
  CHECK(races[2]["rule"] == "mfma-result-read-by-valu-or-memory");
  CHECK(races[2]["wait_states_needed"] == 8);
  CHECK(races[2]["wait_states_passed"] == 0);
  CHECK(races[2]["location"]["space"] == "agpr");
  CHECK(races[2]["other_instruction"] == "v_mfma_f32_16x16x32_bf16 a[0:3], v[8:11], v[12:15], a[0:3]");
  CHECK_THAT(races[2]["what"].get<std::string>(), Catch::Contains("needs 8 wait states"));
}

TEST_CASE("cdna4-run: reports grouped by kind, rule and pc with counts", "[runtime][cli]") {
  // Four waves, 10 trips: two groups, 40 and 4 occurrences.
  TempDir dir;
  const std::string k = dir.file("repeated.hsaco");
  test::write_binary(k, codegen::build_hsaco(kernel_with_buffer_arg(emutest::repeated_hazard_body(10), 4), "r.s"));

  auto r = run_command({kRun, k, "--grid", "1", "--block", "256", "--buf", "out=256"});
  INFO(r.output);
  CHECK(r.status == 3);
  auto races = lines_starting(r.output, "race ");
  REQUIRE(races.size() == 2);
  CHECK_THAT(races[0], Catch::Contains(" count=40 ") && Catch::Contains(" rule=m0-written-before-lds-dma "));
  CHECK_THAT(races[1], Catch::Contains(" count=4 ") && Catch::Contains(" rule=trans-result-read-by-valu "));
  CHECK(lines_starting(r.output, "races not kept").empty());

  auto capped = run_command({kRun, k, "--grid", "1", "--block", "256", "--buf", "out=256", "--max-races", "1"});
  INFO(capped.output);
  CHECK(capped.status == 3);
  races = lines_starting(capped.output, "race ");
  REQUIRE(races.size() == 1);
  CHECK_THAT(races[0], Catch::Contains(" count=40 "));
  CHECK(lines_starting(capped.output, "races not kept: 4 occurrences in groups beyond the first 1").size() == 1);

  auto json = run_command({kRun, k, "--grid", "1", "--block", "256", "--buf", "out=256", "--max-races", "1", "--json"});
  INFO(json.output);
  CHECK(json.status == 3);
  const nlohmann::json j = nlohmann::json::parse(json.output);
  REQUIRE(j["races"].size() == 1);
  CHECK(j["races"][0]["count"] == 40);
  CHECK(j["races"][0]["rule"] == "m0-written-before-lds-dma");
  CHECK(j["dropped_races"] == 4);
}

TEST_CASE("cdna4-run: --check lists what the emulator cannot execute", "[runtime][cli]") {
  TempDir dir;
  const std::string bad = write_kernel(dir, "bad.hsaco", R"(
  s_ttracedata
  s_trap 2
  s_ttracedata
  s_endpgm
  .long 0xffffffff
)");
  auto r = run_command({kRun, bad, "--check"});
  INFO(r.output);
  CHECK(r.status == 1);
  CHECK_THAT(r.output, Catch::Contains("k: 3 instructions the emulator cannot execute (2 distinct)"));
  const auto lines = lines_starting(r.output, "unsupported ");
  REQUIRE(lines.size() == 2);
  CHECK_THAT(lines[0], Catch::StartsWith("unsupported kernel=k count=2 first_pc=0x0 opcode=S_TTRACEDATA") &&
                           Catch::EndsWith(" inst='s_ttracedata' reason='unsupported instruction'"));
  CHECK_THAT(lines[1], Catch::StartsWith("unsupported kernel=k count=1 first_pc=0x4 opcode=S_TRAP"));

  auto json = run_command({kRun, bad, "--check", "--json"});
  INFO(json.output);
  CHECK(json.status == 1);
  const nlohmann::json j = nlohmann::json::parse(json.output);
  REQUIRE(j["kernels"].size() == 1);
  CHECK(j["kernels"][0]["name"] == "k");
  const auto& list = j["kernels"][0]["unsupported"];
  REQUIRE(list.size() == 2);
  CHECK(list[0]["count"] == 2);
  CHECK(list[0]["first_pc"] == 0);
  CHECK(list[0]["disassembly"] == "s_ttracedata");
  CHECK(list[1]["reason"] == "unsupported instruction");

  const std::string good = write_kernel(dir, "racy.hsaco", kRacy);
  auto ok = run_command({kRun, good, "--check"});
  INFO(ok.output);
  CHECK(ok.status == 0);
  CHECK_THAT(ok.output, Catch::Contains("k: the emulator can execute every reachable instruction"));
}

TEST_CASE("cdna4-gemm: --json prints the stats, the race reports and the comparison", "[runtime][cli][gemm]") {
  const std::string gemm = std::string(CDNA4_BINARY_DIR) + "/cdna4-gemm";
  const std::string schedule = std::string(CDNA4_SOURCE_DIR) + "/schedules/baseline_256x256x64_w8.json";
  auto r = run_command({gemm, schedule, "--shape", "64x48x64", "--data", "integer", "--check", "--json"});
  INFO(r.output);
  CHECK(r.status == 0);
  const nlohmann::json j = nlohmann::json::parse(r.output);
  CHECK(j["shape"] == nlohmann::json({{"m", 64}, {"n", 48}, {"k", 64}, {"batch", 1}}));
  CHECK(j["device"] == "emulator");
  CHECK(j["instructions"].get<uint64_t>() > 0);
  CHECK(j["races"].empty());
  CHECK(j["differing_elements"] == 0);
}
