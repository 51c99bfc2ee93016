// The activation table (common/activations.hpp) is the one list of activations:
// names round-trip through to_string, the parser and the schedule JSON; the
// schema's enum and docs/codegen.md's list name exactly its rows.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "cdna4/vocabulary.hpp"
#include "common/activations.hpp"
#include "schedule_test_support.hpp"

using namespace cdna4;

TEST_CASE("activations: every row's name round-trips", "[epilogue][activations]") {
  for (const activations::Row& row : activations::kRows) {
    INFO(row.name);
    CHECK(std::string(to_string(row.value)) == row.name);
    CHECK(try_parse<Activation>(row.name) == row.value);
    CHECK(activations::find(row.value) == &row);
  }
  CHECK_FALSE(try_parse<Activation>("softmax"));
  CHECK_FALSE(try_parse<Activation>(""));
  CHECK(activations::names("|").starts_with("none|relu|"));
}

TEST_CASE("activations: the schedule JSON reads and prints every row", "[epilogue][activations][schedule]") {
  const std::string base = schedule_test::read_text(schedule_test::schedules_dir() + "baseline_256x256x64_w8.json");
  for (const activations::Row& row : activations::kRows) {
    auto doc = nlohmann::ordered_json::parse(base);
    doc["epilogue"] = {{"activation", row.name}};
    const Schedule s = parse_schedule(doc.dump(), "<activation>");
    REQUIRE(s.epilogue);
    CHECK(s.epilogue->activation == row.value);
    CHECK(parse_schedule(to_json(s), "<printed>") == s);
  }
  auto doc = nlohmann::ordered_json::parse(base);
  doc["epilogue"] = {{"activation", "softmax"}};
  CHECK_THROWS_WITH(parse_schedule(doc.dump(), "<bad>"),
                    Catch::Contains("expected one of \"" + activations::names("\", \"") + "\", got \"softmax\""));
}

TEST_CASE("activations: the schema's enum is the table's names", "[epilogue][activations][schema]") {
  const auto schema = nlohmann::json::parse(schedule_test::read_text(schedule_test::schedules_dir() + "schedule.schema.json"));
  std::vector<std::string> names;
  for (const activations::Row& row : activations::kRows) names.push_back(row.name);
  CHECK(schema.at("properties").at("epilogue").at("properties").at("activation").at("enum").get<std::vector<std::string>>() ==
        names);
}

TEST_CASE("activations: docs/codegen.md lists every row's steps", "[epilogue][activations]") {
  const std::string docs = schedule_test::read_text(std::string(CDNA4_SOURCE_DIR) + "/docs/codegen.md");
  const size_t section = docs.find("### Fused epilogue");
  REQUIRE(section != std::string::npos);
  const std::string text = docs.substr(section, docs.find("\n### ", section + 1) - section);
  for (const activations::Row& row : activations::kRows) {
    if (row.value == Activation::none) continue;
    INFO(row.name);
    CHECK(text.find(fmt::format("\n    {:<6}", row.name)) != std::string::npos);
  }
}
