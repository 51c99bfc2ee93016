// Command-line numbers and input files: strict, named in every message, never
// wrapped; input files are checked before they are read.
#include <catch2/catch.hpp>

#include <filesystem>
#include <tuple>

#include "../tools/cli_numbers.hpp"
#include "support/errors.hpp"
#include "support/process.hpp"

using namespace cdna4;
using cdna4::test::error_of;

namespace {

std::string tool(const char* name) { return std::string(CDNA4_BINARY_DIR) + "/" + name; }
std::string baseline() { return test::source_path("schedules/baseline_256x256x64_w8.json"); }

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("parse_unsigned accepts digits and 0x hex only", "[cli][numbers]") {
  CHECK(tools::parse_unsigned("0", "--n") == 0);
  CHECK(tools::parse_unsigned("18446744073709551615", "--n") == UINT64_MAX);
  CHECK(tools::parse_unsigned("0x10", "--n") == 16);
  CHECK(error_of([] { tools::parse_unsigned("-5", "--threads"); }) == "--threads: '-5' is not a non-negative integer");
  CHECK(error_of([] { tools::parse_unsigned("+5", "--threads"); }) == "--threads: '+5' is not a non-negative integer");
  CHECK(error_of([] { tools::parse_unsigned("abc", "--threads"); }) == "--threads: 'abc' is not a non-negative integer");
  CHECK(error_of([] { tools::parse_unsigned("1x", "--seed"); }) == "--seed: '1x' is not a non-negative integer");
  CHECK(error_of([] { tools::parse_unsigned(" 1", "--seed"); }) == "--seed: ' 1' is not a non-negative integer");
  CHECK(error_of([] { tools::parse_unsigned("", "--seed"); }) == "--seed: '' is not a non-negative integer");
  CHECK(error_of([] { tools::parse_unsigned("0x", "--seed"); }) == "--seed: '0x' is not a non-negative integer");
  CHECK(error_of([] { tools::parse_unsigned("18446744073709551616", "--seed"); }) ==
        "--seed: '18446744073709551616' is too large (at most 18446744073709551615)");
  CHECK(error_of([] { tools::parse_unsigned("4097", "--threads", 4096); }) ==
        "--threads: '4097' is too large (at most 4096)");
}

TEST_CASE("parse_size takes K/M/G suffixes and refuses sizes that wrap", "[cli][numbers]") {
  CHECK(tools::parse_size("4096", "--buf") == 4096);
  CHECK(tools::parse_size("64K", "--buf") == 64 << 10);
  CHECK(tools::parse_size("2m", "--buf") == 2 << 20);
  CHECK(tools::parse_size("1G", "--buf") == uint64_t(1) << 30);
  CHECK(error_of([] { tools::parse_size("17179869184G", "--buf a"); }) ==
        "--buf a: '17179869184G' is too large (at most 18446744073709551615 bytes)");
  CHECK(error_of([] { tools::parse_size("G", "--buf a"); }) == "--buf a: '' is not a non-negative integer");
  CHECK(error_of([] { tools::parse_size("-1K", "--buf a"); }) == "--buf a: '-1' is not a non-negative integer");
  CHECK(error_of([] { tools::parse_size("2K", "--lds", 1024); }) == "--lds: '2K' is too large (at most 1024 bytes)");
}

TEST_CASE("cdna4-gemm refuses loose numbers, naming the flag", "[cli][numbers][gemm]") {
  const auto run = [](const std::string& flag, const std::string& value) {
    return test::run_command({tool("cdna4-gemm"), baseline(), "--shape", "8x8x8", flag, value});
  };
  for (const auto& [flag, value, message] :
       {std::tuple{"--threads", "-5", "--threads: '-5' is not a non-negative integer"},
        std::tuple{"--threads", "abc", "--threads: 'abc' is not a non-negative integer"},
        std::tuple{"--threads", "5000", "--threads: '5000' is too large (at most 4096)"},
        std::tuple{"--seed", "1x", "--seed: '1x' is not a non-negative integer"}}) {
    const auto r = run(flag, value);
    INFO(r.output);
    CHECK(r.status == 2);  // bad usage
    CHECK(contains(r.output, message));
  }
}

TEST_CASE("cdna4-gemm checks input files before reading them", "[cli][numbers][gemm]") {
  test::TempDir dir;
  test::write_binary(dir.file("a.bin"), std::vector<uint8_t>(128));
  // A sparse terabyte: reading it first would take forever.
  test::write_binary(dir.file("huge.bin"), {});
  std::filesystem::resize_file(dir.file("huge.bin"), uint64_t(1) << 40);
  const auto from = [&](const std::string& a, const std::string& b) {
    return test::run_command({tool("cdna4-gemm"), baseline(), "--shape", "8x8x8", "--a", a, "--b", b});
  };
  const auto zero = from("/dev/zero", dir.file("a.bin"));
  CHECK(zero.status == 1);
  CHECK(contains(zero.output, "/dev/zero (A) is not a regular file"));
  const auto huge = from(dir.file("a.bin"), dir.file("huge.bin"));
  CHECK(huge.status == 1);
  CHECK(contains(huge.output, "(B) has 1099511627776 bytes; B needs 64 bf16 elements = 128 bytes"));
  const auto missing = from(dir.file("none.bin"), dir.file("a.bin"));
  CHECK(contains(missing.output, "cannot open " + dir.file("none.bin") + " (A)"));
  const auto ok = from(dir.file("a.bin"), dir.file("a.bin"));
  INFO(ok.output);
  CHECK(ok.status == 0);
}

TEST_CASE("cdna4-asmgen refuses an input that is not a regular file", "[cli][numbers][codegen]") {
  const auto r = test::run_command({tool("cdna4-asmgen"), "/dev/zero", "-o", "/dev/null"});
  CHECK(r.status == 1);
  CHECK(contains(r.output, "/dev/zero (assembly input) is not a regular file"));
  const auto schedule = test::run_command({tool("cdna4-asmgen"), "/dev/zero.json", "--shape", "8x8x8"});
  CHECK(schedule.status == 1);
}

TEST_CASE("cdna4-run sizes that wrap are usage errors", "[cli][numbers][runtime]") {
  test::TempDir dir;
  const auto assembled = test::run_command({tool("cdna4-asmgen"), test::source_path("tools/examples/mfma_16x16x128.s"),
                                            "-o", dir.file("k.hsaco")});
  REQUIRE(assembled.status == 0);
  const auto run = [&](const std::string& flag, const std::string& value) {
    return test::run_command({tool("cdna4-run"), dir.file("k.hsaco"), "--grid", "1", "--block", "64", flag, value});
  };
  const auto buf = run("--buf", "a=17179869184G");  // 2^34 GiB = 2^64 bytes: used to wrap to 0
  CHECK(buf.status == 2);
  CHECK(contains(buf.output, "'17179869184G' is too large"));
  const auto lds = run("--dynamic-lds", "4G");
  CHECK(lds.status == 2);
  CHECK(contains(lds.output, "--dynamic-lds: '4G' is too large (at most 4294967295 bytes)"));
  const auto seed = run("--seed", "-1");
  CHECK(seed.status == 2);
  CHECK(contains(seed.output, "--seed: '-1' is not a non-negative integer"));
}
