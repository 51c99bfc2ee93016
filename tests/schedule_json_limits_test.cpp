// Hostile schedule JSON: deep nesting, duplicate keys, huge values in errors.
#include <catch2/catch.hpp>

#include <chrono>

#include <nlohmann/json.hpp>

#include "codegen/schedule/geometry.hpp"
#include "schedule_test_support.hpp"
#include "support/process.hpp"

using namespace cdna4;

namespace {

std::string parse_error(const std::string& text) {
  try {
    parse_schedule(text, "sched.json");
  } catch (const ScheduleError& e) {
    return e.what();
  }
  return "";
}

std::string nested_arrays(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

std::string nested_objects(size_t depth) {
  std::string text;
  for (size_t i = 0; i < depth; ++i) text += "{\"a\":";
  return text + "1" + std::string(depth, '}');
}

// The baseline schedule with `field` set to the raw JSON text `value`.
std::string baseline_with(const std::string& field, const std::string& value) {
  auto j = nlohmann::ordered_json::parse(
      schedule_test::read_text(schedule_test::schedules_dir() + "baseline_256x256x64_w8.json"));
  j[field] = "@placeholder@";
  std::string text = j.dump();
  return text.replace(text.find("\"@placeholder@\""), 15, value);
}

std::string baseline_with_extra(const std::string& fields) {
  const std::string text = schedule_test::read_text(schedule_test::schedules_dir() + "baseline_256x256x64_w8.json");
  return "{" + fields + "," + text.substr(text.find('{') + 1);
}

std::string as_json_string(const std::string& text) { return std::string(1, '"').append(text).append(1, '"'); }

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("deeply nested JSON is refused before it becomes a tree", "[schedule][parser][limits]") {
  const std::string deep_document = parse_error(nested_arrays(100000));
  CHECK(contains(deep_document, "sched.json: [0][0][0]"));
  CHECK(contains(deep_document, "nested deeper than 64 levels"));
  CHECK(contains(parse_error(nested_objects(100000)), "sched.json: a.a.a.a"));
  const std::string deep_field = parse_error(baseline_with("name", nested_arrays(100000)));
  CHECK(contains(deep_field, "sched.json: name[0][0]"));
  CHECK(contains(deep_field, "nested deeper than 64 levels"));
  // Depth within the limit reaches the schedule checks as before.
  CHECK(parse_error(baseline_with("name", nested_arrays(60))) ==
        "sched.json: name: expected a kernel name made of letters, digits and '_' (not starting with a digit), "
        "got " + std::string(37, '[') + "...");
}

TEST_CASE("errors show a bounded excerpt of a huge value", "[schedule][parser][limits]") {
  std::string huge = "[";
  for (int i = 0; i < 2000000; ++i) huge += i ? ",1" : "1";
  huge += "]";
  const auto t0 = std::chrono::steady_clock::now();
  const std::string e = parse_error(baseline_with("layout", huge));
  std::string prefix = "[";
  for (int i = 0; i < 18; ++i) prefix += "1,";
  CHECK(e == "sched.json: layout: expected one of \"nn\", \"nt\", \"tn\", \"tt\", got " + prefix + "...");
  CHECK(parse_error(baseline_with("layout", as_json_string(std::string(1 << 20, 'x')))).size() < 200);
  // A string cut inside a UTF-8 sequence still makes a message.
  CHECK(contains(parse_error(baseline_with("layout", as_json_string(std::string(36, 'x').append("\xc3\xa9\xc3\xa9")))), "got \"xxx"));
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
}

TEST_CASE("duplicate keys are errors naming the key and its path", "[schedule][parser][limits]") {
  CHECK(parse_error(baseline_with_extra("\"num_stages\": 2, \"num_stages\": 3")) ==
        "sched.json: num_stages: duplicate key \"num_stages\" (each key may appear once per object)");
  CHECK(parse_error("{\"ops\": [{}, {}, {\"stage\": 1, \"order\": 0, \"stage\": 2}]}") ==
        "sched.json: ops[2].stage: duplicate key \"stage\" (each key may appear once per object)");
  CHECK(parse_error("{\"tile\": {\"m\": 256, \"n\": 256, \"m\": 128}}") ==
        "sched.json: tile.m: duplicate key \"m\" (each key may appear once per object)");
  // The same key in different objects is fine.
  CHECK(parse_error(schedule_test::read_text(schedule_test::schedules_dir() + "baseline_256x256x64_w8.json")).empty());
}

TEST_CASE("a schedule path that is not a regular file is refused before reading", "[schedule][parser][limits]") {
  CHECK_THROWS_WITH(load_schedule("/dev/zero"), "/dev/zero: not a regular file");
  CHECK_THROWS_WITH(load_schedule("/"), "/: not a regular file");
}

TEST_CASE("schedule text past 16 MiB is refused as a file of that size is", "[schedule][parser][limits]") {
  const std::string shipped = test::read_text_file(test::source_path("schedules/baseline_256x256x64_w8.json"));
  std::string padded = shipped;
  padded.insert(padded.find('{') + 1, (size_t(16) << 20) + 1 - shipped.size(), ' ');
  REQUIRE(padded.size() == (size_t(16) << 20) + 1);
  CHECK_THAT(parse_error(padded), Catch::Contains("larger than 16777216 bytes"));
  padded.erase(1, 1);  // exactly 16 MiB: parsed
  CHECK(parse_schedule(padded, "sched.json").name == parse_schedule(shipped).name);
}
