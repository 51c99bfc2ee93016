#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "schedule_test_support.hpp"

using namespace cdna4;
using nlohmann::ordered_json;
using schedule_test::schedules_dir;

namespace {

ordered_json baseline_json() {
  return ordered_json::parse(schedule_test::read_text(schedules_dir() + "baseline_256x256x64_w8.json"));
}

// Parses `j` and returns the error message ("" when it parsed).
std::string parse_error(const ordered_json& j, const std::string& file = "sched.json") {
  try {
    parse_schedule(j.dump(), file);
  } catch (const ScheduleError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("parser errors name the file, the JSON path and what was expected", "[schedule][parser]") {
  auto j = baseline_json();
  j["ops"][7]["stage"] = "1";
  CHECK(parse_error(j, "schedules/x.json") ==
        "schedules/x.json: ops[7].stage: expected an integer in 0..15, got \"1\"");

  j = baseline_json();
  j["ops"][3]["order"] = -2;
  CHECK(parse_error(j) == "sched.json: ops[3].order: expected an integer in 0..65535, got -2");

  j = baseline_json();
  j["ops"][0]["part"] = 4;
  CHECK(parse_error(j) == "sched.json: ops[0].part: expected an integer in 0..3, got 4");

  j = baseline_json();
  j["waves"] = uint64_t(1) << 63;  // as written, not as a long long (negative)
  CHECK(parse_error(j) == "sched.json: waves: expected an integer in 4..8, got 9223372036854775808");

  j = baseline_json();
  j["mfma"] = "v_mfma_f32_16x16x16_bf16";
  CHECK_THAT(parse_error(j), Catch::StartsWith("sched.json: mfma: expected one of \"v_mfma_f32_16x16x32_bf16\""));

  j = baseline_json();
  j.erase("name");
  CHECK(parse_error(j) == "sched.json: name: missing; expected a kernel name");

  j = baseline_json();
  j["ops"][1].erase("op");
  CHECK(parse_error(j) == "sched.json: ops[1].op: missing; expected the op kind");

  j = baseline_json();
  j["waves"] = 6;
  CHECK(parse_error(j) == "sched.json: waves: expected 4 or 8, got 6");

  j = baseline_json();
  j["tile"]["k"] = 48;
  CHECK_THAT(parse_error(j), Catch::Contains("tile.k: expected a multiple of 32"));

  j = baseline_json();
  j["wave_grid"] = {{"m", 4}, {"n", 4}};
  CHECK_THAT(parse_error(j), Catch::Contains("wave_grid: expected m * n == waves (8), got 4 x 4"));

  j = baseline_json();
  j["ops"][8]["n_half"] = 0;  // an s2r of operand a
  CHECK_THAT(parse_error(j), Catch::Contains("ops[8].n_half: not allowed on an s2r of operand a"));

  j = baseline_json();
  j["num_stages"] = 2;
  CHECK_THAT(parse_error(j), Catch::Contains("num_stages: give either num_stages"));

  j = baseline_json();
  j["ops"][14] = {{"op", "wait"}, {"stage", 0}, {"order", 14}};
  CHECK(parse_error(j) == "sched.json: ops[14]: a wait op needs vmcnt, lgkmcnt or both");
}

TEST_CASE("unknown fields are errors, at every level", "[schedule][parser]") {
  auto j = baseline_json();
  j["ops"][2]["vmcnnt"] = 3;
  CHECK_THAT(parse_error(j), Catch::StartsWith("sched.json: ops[2].vmcnnt: unknown field (allowed here: op, operand, part"));

  j = baseline_json();
  j["tile_m"] = 256;
  CHECK_THAT(parse_error(j), Catch::StartsWith("sched.json: tile_m: unknown field"));

  j = baseline_json();
  j["tile"]["kk"] = 64;
  CHECK_THAT(parse_error(j), Catch::StartsWith("sched.json: tile.kk: unknown field (allowed here: m, n, k)"));

  j = baseline_json();
  j["types"]["d"] = "f32";
  CHECK_THAT(parse_error(j), Catch::StartsWith("sched.json: types.d: unknown field"));

  j = baseline_json();
  j["ops"][12]["part"] = 1;  // mfma has no part
  CHECK_THAT(parse_error(j), Catch::StartsWith("sched.json: ops[12].part: unknown field (allowed here: op, kpack"));
}

TEST_CASE("invalid JSON reports line and column", "[schedule][parser]") {
  try {
    parse_schedule("{\n  \"name\": \"x\",\n  \"waves\": 8,,\n}", "bad.json");
    FAIL("parsed");
  } catch (const ScheduleError& e) {
    CHECK_THAT(e.what(), Catch::StartsWith("bad.json: invalid JSON at line 3 column"));
  }
  CHECK_THROWS_WITH(parse_schedule("", "empty.json"), Catch::StartsWith("empty.json: invalid JSON"));
  CHECK_THROWS_WITH(parse_schedule("[1,2]", "arr.json"), Catch::Contains("expected a JSON object"));
  CHECK_THROWS_WITH(load_schedule("/nonexistent/s.json"), Catch::Contains("cannot open"));
  // Found by the fuzzer: a number that overflows a double is not a parse_error in nlohmann.
  CHECK_THROWS_WITH(parse_schedule("4444442222e288888", "big.json"), Catch::StartsWith("big.json: invalid JSON"));
}

TEST_CASE("round trip: parse -> print -> parse is the identity", "[schedule][parser][roundtrip]") {
  std::vector<std::string> files = schedule_test::shipped_files();
  for (const auto& f : schedule_test::fixture_files()) files.push_back(f);
  for (const auto& file : files) {
    INFO(file);
    const std::string text = schedule_test::read_text(schedules_dir() + file);
    const Schedule s = parse_schedule(text, file);
    CHECK(to_json(s) == text);  // shipped files are in canonical form
    CHECK(parse_schedule(to_json(s), file) == s);
    const Schedule p = plan(s);
    CHECK(parse_schedule(to_json(p), file) == p);
    CHECK(to_json(parse_schedule(to_json(p), file)) == to_json(p));
  }
}

TEST_CASE("defaults are filled in and printed", "[schedule][parser]") {
  const Schedule s = parse_schedule(R"({"name": "k", "target": "gfx950", "tile": {"m": 128, "n": 128, "k": 64},
      "waves": 4, "mfma": "v_mfma_f32_32x32x16_bf16", "num_stages": 3})");
  CHECK(s.wave_grid_m == 2);
  CHECK(s.wave_grid_n == 2);
  CHECK(s.lds_buffers == 3);
  CHECK(s.type_c == DataType::f32);
  CHECK(s.layout == Layout::nn);
  CHECK(parse_schedule(to_json(s)) == s);
}
