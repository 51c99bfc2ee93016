// The tools' outputs never clobber each other or an input, and each is written
// whole or not at all: a failed output leaves no other output of the run behind.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "foreign/hip_build.hpp"
#include "support/process.hpp"

using cdna4::test::CommandResult;
using cdna4::test::run_command;
using cdna4::test::TempDir;

namespace {

std::string tool(const char* name) { return std::string(CDNA4_BINARY_DIR) + "/" + name; }
std::string schedule(const char* name) { return cdna4::test::source_path(std::string("schedules/") + name); }

CommandResult run(std::vector<std::string> argv) {
  argv.insert(argv.begin(), {"timeout", "-s", "KILL", "120"});
  return run_command(argv);
}

// A small GEMM on the model device, whole (so it may write C).
std::vector<std::string> small_model_gemm() {
  return {tool("cdna4-gemm"), schedule("baseline_256x256x64_w8.json"), "--shape", "64x64x64", "--device", "model",
          "--instant", "--quiet"};
}

std::vector<std::string> with(std::vector<std::string> command, const std::vector<std::string>& extra) {
  command.insert(command.end(), extra.begin(), extra.end());
  return command;
}

mode_t file_mode(const std::string& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

}  // namespace

TEST_CASE("cdna4-gemm refuses two outputs naming one file, and an output naming an input", "[cli][outputs]") {
  TempDir dir;
  const std::string x = dir.file("x");
  const auto same = run(with(small_model_gemm(), {"-o", x, "--trace", x}));
  INFO(same.output);
  CHECK(same.status == 2);
  CHECK_THAT(same.output, Catch::Contains("--trace " + x + " names the same file as -o " + x));
  CHECK(!std::filesystem::exists(x));

  // The same file by another name: a relative path and a hard link.
  cdna4::test::write_binary(dir.file("c.bin"), {1, 2, 3});
  REQUIRE(::link(dir.file("c.bin").c_str(), dir.file("hard.bin").c_str()) == 0);
  const auto linked = run(with(small_model_gemm(), {"-o", dir.file("c.bin"), "--timeline", dir.file("hard.bin")}));
  INFO(linked.output);
  CHECK(linked.status == 2);
  CHECK_THAT(linked.output, Catch::Contains("names the same file as -o"));
  const auto dotted = run(with(small_model_gemm(), {"-o", dir.path + "/./y", "--trace", dir.path + "/sub/../y"}));
  CHECK(dotted.status == 2);

  // An output over an input: the schedule, A.
  const std::string copy = dir.file("s.json");
  std::filesystem::copy_file(schedule("baseline_256x256x64_w8.json"), copy);
  const auto over_schedule = run({tool("cdna4-gemm"), copy, "--shape", "64x64x64", "--device", "model", "--model-only",
                                  "--trace", copy});
  INFO(over_schedule.output);
  CHECK(over_schedule.status == 2);
  CHECK_THAT(over_schedule.output, Catch::Contains("--trace " + copy + " names the same file as the schedule " + copy +
                                                   ", an input: it would be overwritten"));
  CHECK(cdna4::test::read_text_file(copy) == cdna4::test::read_text_file(schedule("baseline_256x256x64_w8.json")));
  const auto over_a = run(with(small_model_gemm(), {"--a", dir.file("c.bin"), "--b", dir.file("c.bin"), "-o",
                                                    dir.file("hard.bin")}));
  CHECK(over_a.status == 2);
  CHECK_THAT(over_a.output, Catch::Contains("names the same file as --a"));
  CHECK(cdna4::test::read_binary(dir.file("c.bin")) == std::vector<uint8_t>{1, 2, 3});
}

TEST_CASE("cdna4-gemm writes no output when one of them fails, and keeps an older file whole", "[cli][outputs]") {
  TempDir dir;
  const std::string out = dir.file("out.bin");
  const auto full = run(with(small_model_gemm(), {"-o", out, "--timeline", "/dev/full"}));
  INFO(full.output);
  CHECK(full.status == 1);
  CHECK_THAT(full.output, Catch::Contains("cannot write /dev/full (No space left on device)"));
  CHECK(!std::filesystem::exists(out));
  CHECK(dir.entry_count() == 0);  // no temporary left behind

  cdna4::test::write_binary(out, {7, 7, 7});
  const auto again = run(with(small_model_gemm(), {"-o", out, "--trace", "/dev/full"}));
  CHECK(again.status == 1);
  CHECK(cdna4::test::read_binary(out) == std::vector<uint8_t>{7, 7, 7});
  CHECK(dir.entry_count() == 1);

  // Into a missing directory: the other outputs stay unwritten too.
  const auto missing = run(with(small_model_gemm(), {"-o", out, "--trace", dir.file("none/t.json")}));
  CHECK(missing.status == 1);
  CHECK_THAT(missing.output, Catch::Contains("cannot write " + dir.file("none/t.json")));
  CHECK(cdna4::test::read_binary(out) == std::vector<uint8_t>{7, 7, 7});

  // Written: all of them, with the mode a new file gets, and nothing else in the directory.
  const auto fine = run(with(small_model_gemm(), {"-o", dir.file("c.bin"), "--trace", dir.file("t.json"), "--timeline",
                                                  dir.file("t.svg")}));
  INFO(fine.output);
  REQUIRE(fine.status == 0);
  CHECK(std::filesystem::file_size(dir.file("c.bin")) == 64 * 64 * 4);
  CHECK_THAT(cdna4::test::read_text_file(dir.file("t.json")), Catch::Contains("\"traceEvents\":[{"));
  CHECK(dir.entry_count() == 4);
  const mode_t mask = ::umask(0);
  ::umask(mask);
  CHECK(file_mode(dir.file("c.bin")) == (0666 & ~mask));

  // A device is written straight through.
  const auto to_stdout = run(with(small_model_gemm(), {"--trace", "/dev/stdout"}));
  CHECK(to_stdout.status == 0);
  CHECK_THAT(to_stdout.output, Catch::Contains("\"traceEvents\""));
}

TEST_CASE("cdna4-asmgen never writes over its input", "[cli][outputs]") {
  TempDir dir;
  const std::string copy = dir.file("s.json");
  std::filesystem::copy_file(schedule("baseline_256x256x64_w8.json"), copy);
  const auto over = run({tool("cdna4-asmgen"), copy, "--shape", "256x256x64", "-o", copy});
  INFO(over.output);
  CHECK(over.status == 2);
  CHECK_THAT(over.output, Catch::Contains("the output " + copy + " names the same file as the input " + copy));
  CHECK(cdna4::test::read_text_file(copy) == cdna4::test::read_text_file(schedule("baseline_256x256x64_w8.json")));

  // The default output of an input named like an output: k.hsaco from k.hsaco.
  const std::string example = cdna4::test::source_path("tools/examples/mfma_16x16x128.s");
  std::filesystem::copy_file(example, dir.file("k.hsaco"));
  const auto default_out = run({tool("cdna4-asmgen"), dir.file("k.hsaco")});
  CHECK(default_out.status == 2);
  CHECK(cdna4::test::read_text_file(dir.file("k.hsaco")) == cdna4::test::read_text_file(example));

  const auto full = run({tool("cdna4-asmgen"), example, "-o", "/dev/full"});
  CHECK(full.status == 1);
  CHECK_THAT(full.output, Catch::Contains("cannot write /dev/full (No space left on device)"));
  const auto fine = run({tool("cdna4-asmgen"), example, "-o", dir.file("k.o")});
  INFO(fine.output);
  CHECK(fine.status == 0);
  CHECK(dir.entry_count() == 3);
}

TEST_CASE("cdna4-run refuses outputs naming an input or each other, and writes none when one fails",
          "[cli][outputs][runtime]") {
  TempDir dir;
  const std::string k = dir.file("vadd.hsaco");
  cdna4::test::write_binary(k, cdna4::test::compile_foreign_hip("vector_add"));
  cdna4::test::write_binary(dir.file("a.bin"), std::vector<uint8_t>(256, 0));
  auto vadd = [&](std::vector<std::string> extra) {
    std::vector<std::string> command = {tool("cdna4-run"), k,       "--grid", "1",          "--block",
                                        "64",              "--buf", "#0=" + dir.file("a.bin"), "--buf",
                                        "#1=256",          "--buf", "#2=256", "--arg",      "#3=64"};
    command.insert(command.end(), extra.begin(), extra.end());
    return run(command);
  };
  const auto over_input = vadd({"--out", "#2=" + dir.file("a.bin")});
  INFO(over_input.output);
  CHECK(over_input.status == 2);
  CHECK_THAT(over_input.output, Catch::Contains("--out #2 " + dir.file("a.bin") + " names the same file as --buf #0"));
  const auto over_code = vadd({"--out", "#2=" + k});
  CHECK(over_code.status == 2);
  CHECK_THAT(over_code.output, Catch::Contains("names the same file as the code object"));
  const auto twice = vadd({"--out", "#1=" + dir.file("o.bin"), "--out", "#2=" + dir.file("o.bin")});
  CHECK(twice.status == 2);
  CHECK_THAT(twice.output, Catch::Contains("--out #2 " + dir.file("o.bin") + " names the same file as --out #1"));

  const auto full = vadd({"--out", "#1=" + dir.file("b.bin"), "--out", "#2=/dev/full"});
  CHECK(full.status == 1);
  CHECK_THAT(full.output, Catch::Contains("cannot write /dev/full"));
  CHECK(!std::filesystem::exists(dir.file("b.bin")));
  CHECK(dir.entry_count() == 2);
  const auto fine = vadd({"--out", "#1=" + dir.file("b.bin"), "--out", "#2=" + dir.file("c.bin")});
  INFO(fine.output);
  CHECK(fine.status == 0);
  CHECK(std::filesystem::file_size(dir.file("c.bin")) == 256);
  CHECK(dir.entry_count() == 4);
}
