// Values on the command line reach the kernel as the user wrote them or are
// refused: alpha and beta round to a finite, nonzero-if-given fp32, and a float
// never lands in an integer argument as bits.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "../tools/cli_numbers.hpp"
#include "foreign/hip_build.hpp"
#include "support/errors.hpp"
#include "support/process.hpp"

using cdna4::test::run_command;
using cdna4::test::TempDir;

namespace {

std::string tool(const char* name) { return std::string(CDNA4_BINARY_DIR) + "/" + name; }

std::string float_error(const std::string& text) {
  try {
    cdna4::tools::parse_float(text, "--alpha");
  } catch (const cdna4::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("parse_float takes every finite fp32 and refuses what rounds to 0 or infinity", "[cli][numbers]") {
  CHECK(cdna4::tools::parse_float("3.4028234e38", "--alpha") == 3.4028234e38f);
  CHECK(cdna4::tools::parse_float("-3.4028235e38", "--alpha") == -3.4028235e38f);  // rounds to the largest
  CHECK(cdna4::tools::parse_float("1e-45", "--alpha") == 1e-45f);                   // the smallest subnormal
  CHECK(cdna4::tools::parse_float("0", "--alpha") == 0.0f);
  CHECK(std::signbit(cdna4::tools::parse_float("-0", "--alpha")));
  CHECK(cdna4::tools::parse_float("0.5", "--alpha") == 0.5f);
  CHECK_THAT(float_error("1e-50"), Catch::Contains("--alpha: '1e-50' rounds to 0 in fp32"));
  CHECK_THAT(float_error("-1e-400"), Catch::Contains("rounds to 0 in fp32"));
  CHECK_THAT(float_error("1e39"), Catch::Contains("--alpha: '1e39' rounds to infinity in fp32"));
  CHECK_THAT(float_error("3.4028236e38"), Catch::Contains("rounds to infinity"));
  CHECK_THAT(float_error("1e400"), Catch::Contains("rounds to infinity"));
  for (const char* bad : {"", "inf", "-inf", "nan", "1.5x", " 1", "0x10", "1e"})
    CHECK_THAT(float_error(bad), Catch::Contains("is not a finite fp32 number"));
}

TEST_CASE("cdna4-gemm --alpha takes the largest fp32 and refuses a value it would change", "[cli][numbers][gemm]") {
  const std::string s = cdna4::test::source_path("schedules/baseline_256x256x64_w8.json");
  auto gemm = [&](const std::string& alpha) {
    return run_command({tool("cdna4-gemm"), s, "--shape", "64x64x64", "--instant", "--quiet", "--data", "integer",
                        "--alpha", alpha, "--check"});
  };
  const auto largest = gemm("3.4028234e38");
  INFO(largest.output);
  CHECK(largest.status != 2);
  CHECK_THAT(largest.output, Catch::Contains("bit-exact: yes"));
  const auto tiny = gemm("1e-50");
  CHECK(tiny.status == 2);
  CHECK_THAT(tiny.output, Catch::Contains("--alpha: '1e-50' rounds to 0 in fp32"));
  const auto huge = gemm("1e39");
  CHECK(huge.status == 2);
  CHECK_THAT(huge.output, Catch::Contains("--alpha: '1e39' rounds to infinity in fp32"));
}

TEST_CASE("cdna4-run puts no float into an integer argument", "[cli][runtime]") {
  TempDir dir;
  // HIP's metadata names no types: a float literal needs f32: / f64:.
  const std::string vadd = dir.file("vadd.hsaco");
  cdna4::test::write_binary(vadd, cdna4::test::compile_foreign_hip("vector_add"));
  auto run_vadd = [&](const std::string& n) {
    return run_command({tool("cdna4-run"), vadd, "--grid", "1", "--block", "64", "--buf", "#0=256", "--buf", "#1=256",
                        "--buf", "#2=256", "--arg", "#3=" + n});
  };
  const auto float_in_int = run_vadd("1.5");
  INFO(float_in_int.output);
  CHECK(float_in_int.status == 2);
  CHECK_THAT(float_in_int.output, Catch::Contains("--arg #3 (by_value, 4 bytes at offset 24): '1.5' is a float, but the "
                                                  "metadata does not say the argument is one"));
  CHECK_THAT(float_in_int.output, Catch::Contains("write f32:1.5 for a float"));
  CHECK(run_vadd("1e3").status == 2);
  CHECK(run_vadd("64").status == 0);
  CHECK(run_vadd("f32:1.5").status == 0);  // said explicitly
  const auto wide = run_vadd("f64:1.5");
  CHECK(wide.status == 2);
  CHECK_THAT(wide.output, Catch::Contains("'f64:1.5' has 8 bytes, the argument 4"));

  // OpenCL's metadata does (.type_name): n is an int, x a float.
  const std::string typed = dir.file("typed.hsaco");
  cdna4::test::write_binary(typed, cdna4::test::compile_foreign_opencl("typed_args"));
  auto run_typed = [&](const std::string& n, const std::string& x) {
    return run_command({tool("cdna4-run"), typed, "--grid", "1", "--block", "64", "--buf", "#0=4", "--arg", "#1=" + n,
                        "--arg", "#2=" + x, "--out", "#0=" + dir.file("out.bin")});
  };
  const auto int_given_float = run_typed("1.5", "2");
  CHECK(int_given_float.status == 2);
  CHECK_THAT(int_given_float.output, Catch::Contains("'1.5' is a float, but the argument is an integer (int)"));
  CHECK(run_typed("f32:1.5", "2").status == 2);
  const auto fine = run_typed("3", "2");  // x = 2 is the float 2.0, not the bits 0x2
  INFO(fine.output);
  REQUIRE(fine.status == 0);
  const std::vector<uint8_t> out = cdna4::test::read_binary(dir.file("out.bin"));
  REQUIRE(out.size() == 4);
  float value = 0;
  std::memcpy(&value, out.data(), 4);
  CHECK(value == 5.0f);
  const auto list = run_command({tool("cdna4-run"), typed, "--list"});
  CHECK(list.status == 0);
}
