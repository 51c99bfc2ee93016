// cdna4-run and cdna4-gemm refuse inputs they cannot hold before reading or
// allocating them: non-regular files, oversized code objects, huge buffers and
// kernarg blocks, and GEMM data past the host limit. Each command runs under
// `timeout`, so a tool that blocks (a FIFO) or reads forever (/dev/zero) fails
// the test with status 124 instead of hanging it.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/process.hpp"

using cdna4::test::CommandResult;
using cdna4::test::run_command;
using cdna4::test::TempDir;

namespace {

std::string tool(const char* name) { return std::string(CDNA4_BINARY_DIR) + "/" + name; }

CommandResult run_briefly(std::vector<std::string> argv) {
  argv.insert(argv.begin(), {"timeout", "-s", "KILL", "30"});
  return run_command(argv);
}

}  // namespace

TEST_CASE("cdna4-run reads its code object only from a regular file of bounded size", "[cli][runtime]") {
  TempDir dir;
  const auto zero = run_briefly({tool("cdna4-run"), "/dev/zero", "--list"});
  INFO(zero.output);
  CHECK(zero.status == 1);
  CHECK_THAT(zero.output, Catch::Contains("/dev/zero (code object) is not a regular file"));

  const auto directory = run_briefly({tool("cdna4-run"), dir.path, "--list"});
  INFO(directory.output);
  CHECK(directory.status == 1);
  CHECK_THAT(directory.output, Catch::Contains(dir.path + " (code object) is not a regular file"));

  // A FIFO with no writer: opening it would block forever.
  const std::string fifo = dir.file("fifo.hsaco");
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  for (const std::vector<std::string>& mode :
       {std::vector<std::string>{"--list"}, {"--check"}, {"--grid", "1", "--block", "64"}}) {
    std::vector<std::string> command = {tool("cdna4-run"), fifo};
    command.insert(command.end(), mode.begin(), mode.end());
    const auto r = run_briefly(command);
    INFO(mode.front() << ": " << r.output);
    CHECK(r.status == 1);
    CHECK_THAT(r.output, Catch::Contains(fifo + " (code object) is not a regular file"));
  }

  // Past the limit, refused from its size alone (the file is sparse: nothing is read).
  const std::string big = dir.file("big.hsaco");
  cdna4::test::write_binary(big, {});
  std::filesystem::resize_file(big, (uint64_t(256) << 20) + 1);
  const auto oversized = run_briefly({tool("cdna4-run"), big, "--list"});
  INFO(oversized.output);
  CHECK(oversized.status == 1);
  CHECK_THAT(oversized.output, Catch::Contains("has 268435457 bytes, more than the 268435456 this tool reads"));

  // A missing file keeps its message.
  const auto missing = run_briefly({tool("cdna4-run"), dir.file("none.hsaco"), "--list"});
  CHECK(missing.status == 1);
  CHECK_THAT(missing.output, Catch::Contains("cannot open code object " + dir.file("none.hsaco")));

  const auto help = run_command({tool("cdna4-run"), "--help"});
  CHECK_THAT(help.output, Catch::Contains("a code object holds at most 256M bytes"));
}

TEST_CASE("cdna4-run refuses a buffer or kernarg block past its bound as bad usage", "[cli][runtime]") {
  const auto buf = run_briefly({tool("cdna4-run"), "k.hsaco", "--grid", "1", "--block", "64", "--buf", "#0=100G"});
  INFO(buf.output);
  CHECK(buf.status == 2);
  CHECK_THAT(buf.output, Catch::Contains("--buf #0: '100G' is too large (at most 4294967296 bytes)"));

  const auto raw_buf =
      run_briefly({tool("cdna4-run"), "k.hsaco", "--grid", "1", "--block", "64", "--kernarg-size", "16", "--buf",
                   "x@0=0x100000001"});
  INFO(raw_buf.output);
  CHECK(raw_buf.status == 2);
  CHECK_THAT(raw_buf.output, Catch::Contains("--buf x@0: '0x100000001' is too large (at most 4294967296 bytes)"));

  const auto kernarg =
      run_briefly({tool("cdna4-run"), "k.hsaco", "--grid", "1", "--block", "64", "--kernarg-size", "100000000000"});
  INFO(kernarg.output);
  CHECK(kernarg.status == 2);
  CHECK_THAT(kernarg.output, Catch::Contains("--kernarg-size: '100000000000' is too large (at most 4096 bytes)"));

  // Files for buffers, kernarg blocks and by-value arguments are read as the code object is.
  TempDir dir;
  const std::string hsaco = cdna4::test::source_path("tests/fuzz/seeds/code_object/hip_vector_add.hsaco");
  const std::string fifo = dir.file("fifo");
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  cdna4::test::write_binary(dir.file("block.bin"), std::vector<uint8_t>(4097));
  const std::vector<std::string> launch = {tool("cdna4-run"), hsaco, "--grid", "1", "--block", "64"};
  const auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> command = launch;
    command.insert(command.end(), extra.begin(), extra.end());
    return run_briefly(command);
  };
  const auto zero_buf = with({"--buf", "#0=/dev/zero", "--buf", "#1=16", "--buf", "#2=16", "--arg", "#3=4"});
  INFO(zero_buf.output);
  CHECK(zero_buf.status == 1);
  CHECK_THAT(zero_buf.output, Catch::Contains("/dev/zero (--buf #0 (global_buffer, 8 bytes at offset 0)) is not a regular file"));
  const auto fifo_arg = with({"--buf", "#0=16", "--buf", "#1=16", "--buf", "#2=16", "--arg", "#3=@" + fifo});
  INFO(fifo_arg.output);
  CHECK(fifo_arg.status == 1);
  CHECK_THAT(fifo_arg.output, Catch::Contains(fifo + " (--arg file) is not a regular file"));
  const auto fifo_block = with({"--kernarg", fifo});
  INFO(fifo_block.output);
  CHECK(fifo_block.status == 1);
  CHECK_THAT(fifo_block.output, Catch::Contains(fifo + " (--kernarg) is not a regular file"));
  const auto big_block = with({"--kernarg", dir.file("block.bin")});
  INFO(big_block.output);
  CHECK(big_block.status == 1);
  CHECK_THAT(big_block.output, Catch::Contains("(--kernarg) has 4097 bytes, more than the 4096 this tool reads"));
  // Within the bounds the launch runs.
  const auto fine = with({"--buf", "#0=16", "--buf", "#1=16", "--buf", "#2=16", "--arg", "#3=4"});
  INFO(fine.output);
  CHECK(fine.status == 0);

  const auto help = run_command({tool("cdna4-run"), "--help"});
  CHECK_THAT(help.output, Catch::Contains("a buffer (SIZE or FILE) holds at most 4G bytes"));
  CHECK_THAT(help.output, Catch::Contains("(the block holds at most 4096 bytes)"));
}

TEST_CASE("cdna4-gemm bounds the bytes of its data before generating or reading any", "[cli][gemm]") {
  const std::string schedule = cdna4::test::source_path("schedules/interleave4_256x256x64_w8.json");
  const auto max_batch = run_briefly({tool("cdna4-gemm"), schedule, "--shape", "16x16x16", "--batch", "4294967295"});
  INFO(max_batch.output);
  CHECK(max_batch.status == 2);
  // bf16 A and B (512 bytes each), f32 C (1024 bytes) per GEMM.
  CHECK_THAT(max_batch.output, Catch::Contains("16x16x16 batch 4294967295 needs 8796093020160 bytes of A, B, C on the "
                                               "host, more than the limit of 1073741824 bytes (--max-bytes)"));

  const auto million = run_briefly({tool("cdna4-gemm"), schedule, "--shape", "16x16x16", "--batch", "1000000"});
  INFO(million.output);
  CHECK(million.status == 2);
  CHECK_THAT(million.output, Catch::Contains("needs 2048000000 bytes"));

  // Strides count: the last matrix starts (batch - 1) strides in.
  const auto strided = run_briefly({tool("cdna4-gemm"), schedule, "--shape", "16x16x16", "--batch", "2",
                                    "--stride-a", "1000000000"});
  INFO(strided.output);
  CHECK(strided.status == 2);
  CHECK_THAT(strided.output, Catch::Contains("16x16x16 batch 2 needs 2000003584 bytes"));

  // The largest matrices the kernel takes over the largest batch: counted exactly, no wrap-around.
  const auto huge = run_briefly({tool("cdna4-gemm"), schedule, "--shape", "16000x16000x16000", "--batch", "4294967295"});
  INFO(huge.output);
  CHECK(huge.status == 2);
  CHECK_THAT(huge.output, Catch::Contains("needs 8796093020160000000 bytes of A, B, C on the host, more than the limit "
                                          "of 1073741824 bytes (--max-bytes)"));

  // --max-bytes moves the limit either way.
  const auto lowered =
      run_briefly({tool("cdna4-gemm"), schedule, "--shape", "16x16x16", "--batch", "4", "--max-bytes", "4K"});
  INFO(lowered.output);
  CHECK(lowered.status == 2);
  CHECK_THAT(lowered.output, Catch::Contains("16x16x16 batch 4 needs 8192 bytes of A, B, C on the host, more than "
                                             "the limit of 4096 bytes (--max-bytes)"));
  const auto raised = run_briefly({tool("cdna4-gemm"), schedule, "--shape", "16x16x16", "--batch", "4", "--max-bytes",
                                   "8K", "--instant", "--check", "--quiet"});
  INFO(raised.output);
  CHECK(raised.status == 0);
  CHECK_THAT(raised.output, Catch::Contains("bit-exact: yes"));

  const auto help = run_command({tool("cdna4-gemm"), "--help"});
  CHECK_THAT(help.output, Catch::Contains("--max-bytes SIZE"));
  CHECK_THAT(help.output, Catch::Contains("default 1G"));
}
