// Shapes whose sizes do not fit the kernel's limits (or 64 bits) are refused
// with a message, never wrapped into a small kernel or a short host buffer.
#include <catch2/catch.hpp>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "cdna4/gemm.hpp"
#include "common/checked.hpp"
#include "gemm_support.hpp"
#include "schedule_test_support.hpp"
#include "support/errors.hpp"
#include "support/process.hpp"

using namespace cdna4;
using cdna4::test::error_of;

namespace {

Schedule baseline() { return schedule_test::load("baseline_256x256x64_w8.json"); }

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("checked arithmetic reports products and sums that do not fit", "[gemm][limits]") {
  CHECK(checked::mul<int64_t>(int64_t(1) << 61, 4) == std::nullopt);
  CHECK(checked::mul<int64_t>(int64_t(1) << 61, 3) == int64_t(3) << 61);
  CHECK(checked::mul<int64_t>(int64_t(1) << 40, 1 << 20, 8) == std::nullopt);
  CHECK(checked::mul<uint64_t>(17179869184ull, 1ull << 30) == std::nullopt);
  CHECK(checked::add<int64_t>(INT64_MAX, 1) == std::nullopt);
  CHECK(checked::round_up<int64_t>(INT64_MAX, 8) == std::nullopt);
  CHECK(checked::round_up<int64_t>(9, 8) == 16);
}

TEST_CASE("shapes whose operand sizes overflow 64 bits are refused", "[gemm][limits]") {
  for (const char* text : {"2305843009213693952x1x8", "4611686018427387904x4x8", "2305843009213693953x1x8",
                           "1x2305843009213693952x8", "8x8x4611686018427387904"}) {
    INFO(text);
    CHECK(contains(error_of([&] { compile(baseline(), parse_shape(text)); }), "must stay below 1 GiB"));
  }
  GemmShape wide_ld = parse_shape("4x4x8");
  wide_ld.lda = int64_t(1) << 62;
  CHECK(contains(error_of([&] { compile(baseline(), wide_ld); }), "must stay below 1 GiB"));
}

TEST_CASE("parse_shape rejects numbers that do not fit instead of clamping them", "[gemm][limits]") {
  CHECK(error_of([] { parse_shape("18446744073709551616x8x8"); }) ==
        "shape '18446744073709551616x8x8': M does not fit in a signed 64-bit integer");
  CHECK(error_of([] { parse_shape("8x8x9223372036854775808"); }) ==
        "shape '8x8x9223372036854775808': K does not fit in a signed 64-bit integer");
  for (const char* text : {"+8x8x8", " 8x8x8", "8x-8x8", "8x8x8 ", "8x8x", "8xx8x8"}) {
    INFO(text);
    CHECK(contains(error_of([&] { parse_shape(text); }), "expected MxNxK"));
  }
  CHECK(parse_shape("9223372036854775807x1x8").m == INT64_MAX);
}

TEST_CASE("run_gemm refuses a shape whose element count wraps, before touching memory", "[gemm][limits]") {
  Device device = Device::open("emulator");
  const std::vector<uint16_t> a(8), b(8);
  // (2^61 + 1) * 8 wraps to 8 in 64 bits: A would look the right size.
  const auto problem = [&](int64_t m, const std::vector<uint16_t>& a_data) {
    return test::problem(m, 1, 8, test::bytes_of(a_data), test::bytes_of(b), OutType::f32);
  };
  CHECK(contains(error_of([&] { run_gemm(device, baseline(), problem((int64_t(1) << 61) + 1, a)); }), "does not fit"));
  CHECK(contains(error_of([&] { run_gemm(device, baseline(), problem(int64_t(1) << 40, std::vector<uint16_t>(8))); }),
                 "A has 8 elements"));
}

TEST_CASE("cdna4-gemm refuses a shape whose sizes wrap", "[gemm][limits][cli]") {
  const std::string tool = std::string(CDNA4_BINARY_DIR) + "/cdna4-gemm";
  const std::string schedule = schedule_test::schedules_dir() + "baseline_256x256x64_w8.json";
  for (const char* text : {"2305843009213693953x1x8", "2305843009213693952x1x8", "18446744073709551616x1x8"}) {
    INFO(text);
    const auto r = test::run_command({tool, schedule, "--shape", text});
    INFO(r.output);
    CHECK(r.status == 1);
    CHECK(contains(r.output, "cdna4-gemm: shape"));
  }
}

TEST_CASE("a kernel past the instruction limit is refused with the limit named", "[gemm][limits]") {
  auto j = nlohmann::ordered_json::parse(
      schedule_test::read_text(schedule_test::schedules_dir() + "baseline_256x256x64_w8.json"));
  int order = 0;
  for (const auto& op : j["ops"]) order = std::max(order, op["order"].get<int>());
  for (int i = 0; i < 4000; ++i)
    j["ops"].push_back({{"op", "setprio"}, {"prio", i % 2}, {"stage", 0}, {"order", ++order}});
  const Schedule many = parse_schedule(j.dump(), "many.json");
  const std::string e = error_of([&] { compile(many, parse_shape("256x256x4096")); });
  CHECK(contains(e, "instructions, more than the 16384 a kernel may have"));
}
