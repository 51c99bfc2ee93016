// Launching with a raw kernarg block: kernels whose metadata lists no arguments,
// and kernels taking a by-value struct of buffer addresses.
#include <catch2/catch.hpp>

#include "cdna4/runtime.hpp"
#include "emulator_test_kernel.hpp"
#include "runtime/kernarg.hpp"
#include "foreign/hip_build.hpp"
#include "support/errors.hpp"
#include "support/process.hpp"

using namespace cdna4;
using cdna4::test::error_of;
using cdna4::test::run_command;

const std::string kRun = std::string(CDNA4_BINARY_DIR) + "/cdna4-run";

namespace {

// out[t] = in[t] + word 2 of the kernarg (a u32), out[64 + t] = word 6 (byte 24).
// Pointers: in at byte 0, out at byte 16.
const char* kBody = R"(
  s_load_dwordx2 s[4:5], s[0:1], 0
  s_load_dword s8, s[0:1], 8
  s_load_dwordx2 s[6:7], s[0:1], 16
  s_load_dword s9, s[0:1], 24
  s_waitcnt lgkmcnt(0)
  v_lshlrev_b32 v1, 2, v0
  global_load_dword v2, v1, s[4:5]
  s_waitcnt vmcnt(0)
  v_add_u32 v2, s8, v2
  global_store_dword v1, v2, s[6:7]
  v_mov_b32 v3, s9
  global_store_dword v1, v3, s[6:7] offset:256
  s_waitcnt vmcnt(0)
  s_endpgm
)";

Kernel no_metadata_args() {
  emutest::KernelShape shape;
  shape.kernarg_size = 32;
  return Kernel::from_hsaco(codegen::build_hsaco(emutest::kernel_source(kBody, shape), "no_args.s"));
}

// The same code described as one 24-byte by-value struct, then a hidden argument.
Kernel struct_arg() {
  emutest::KernelShape shape;
  shape.kernarg_size = 32;
  shape.args = R"(      - { .name: globals, .offset: 0, .size: 24, .value_kind: by_value }
      - { .offset: 24, .size: 4, .value_kind: hidden_block_count_x }
)";
  return Kernel::from_hsaco(codegen::build_hsaco(emutest::kernel_source(kBody, shape), "struct_arg.s"));
}

std::vector<uint32_t> expected(const std::vector<uint32_t>& in, uint32_t add, uint32_t word6) {
  std::vector<uint32_t> out(128, word6);
  for (int t = 0; t < 64; ++t) out[t] = in[t] + add;
  return out;
}

}  // namespace

TEST_CASE("kernarg block: a kernel whose metadata lists no arguments gets the bytes as given", "[runtime]") {
  Kernel kernel = no_metadata_args();
  REQUIRE(kernel.info().args.empty());
  Device dev = Device::emulator();
  std::vector<uint32_t> in(64);
  for (int t = 0; t < 64; ++t) in[t] = 1000u * t;
  Buffer din = dev.alloc(256), dout = dev.alloc(512);
  din.upload(in);
  KernargBlock block(32);
  block.pointer(0, din).put<uint32_t>(8, 7).pointer(16, dout).put<uint32_t>(24, 0xabcu);
  for (bool instant : {false, true}) {
    dout.fill_zero();
    LaunchOptions o;
    o.instant_completion = instant;
    dev.launch(kernel, {2}, {64}, block, o);
    CHECK(dout.download<uint32_t>() == expected(in, 7, 0xabc));
  }
}

TEST_CASE("kernarg block: a by-value struct of pointers, hidden arguments after it", "[runtime]") {
  Kernel kernel = struct_arg();
  Device dev = Device::emulator();
  std::vector<uint32_t> in(64);
  for (int t = 0; t < 64; ++t) in[t] = 3u * t + 1;
  Buffer din = dev.alloc(256), dout = dev.alloc(512);
  din.upload(in);

  SECTION("as a raw block: the launch fills hidden_block_count_x at byte 24") {
    KernargBlock block(24);
    block.pointer(0, din).put<uint32_t>(8, 5).pointer(16, dout);
    dev.launch(kernel, {3}, {64}, block);
    CHECK(dout.download<uint32_t>() == expected(in, 5, 3));
  }
  SECTION("as one Arg of raw bytes") {
    KernargBlock bytes(24);
    bytes.pointer(0, din.address()).put<uint32_t>(8, 9).pointer(16, dout.address());
    dev.launch(kernel, {4}, {64}, {Arg::bytes(bytes.bytes())});
    CHECK(dout.download<uint32_t>() == expected(in, 9, 4));
  }
  SECTION("a block reaching into the hidden arguments is refused") {
    CHECK_THAT(error_of([&] { dev.launch(kernel, {1}, {64}, KernargBlock(28)); }),
               Catch::Contains("hidden argument hidden_block_count_x at offset 24 overlaps the 28-byte kernarg block"));
  }
}

TEST_CASE("kernarg block: writes outside the block are refused", "[runtime]") {
  KernargBlock block(16);
  CHECK_THAT(error_of([&] { block.put<uint64_t>(12, 1); }),
             Catch::Contains("8 bytes at offset 12 do not fit its 16 bytes"));
  CHECK_THAT(error_of([&] { block.pointer(SIZE_MAX, 0); }), Catch::Contains("do not fit"));
  block.put<uint64_t>(8, 0x0102030405060708ull);
  CHECK(block.bytes()[8] == 0x08);
  CHECK(block.bytes()[15] == 0x01);
}

TEST_CASE("cdna4-run: raw kernarg block with buffers and scalars at offsets", "[runtime][cli]") {
  test::TempDir dir;
  std::vector<uint32_t> in(64);
  for (int t = 0; t < 64; ++t) in[t] = 5u * t;
  std::vector<uint8_t> in_bytes(256);
  std::memcpy(in_bytes.data(), in.data(), 256);
  test::write_binary(dir.file("in.bin"), in_bytes);
  auto out_words = [&](const std::string& path) {
    auto bytes = test::read_binary(path);
    std::vector<uint32_t> words(bytes.size() / 4);
    std::memcpy(words.data(), bytes.data(), words.size() * 4);
    return words;
  };

  SECTION("a kernel whose metadata lists no arguments") {
    test::write_binary(dir.file("k.hsaco"), no_metadata_args().hsaco());
    auto r = run_command({kRun, dir.file("k.hsaco"), "--grid", "1", "--block", "64", "--kernarg-size", "32", "--buf",
                          "in@0=" + dir.file("in.bin"), "--buf", "out@16=512", "--arg", "u32@8=11", "--arg",
                          "u32@24=0xabc", "--out", "out=" + dir.file("out.bin")});
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK(out_words(dir.file("out.bin")) == expected(in, 11, 0xabc));

    auto without = run_command({kRun, dir.file("k.hsaco"), "--grid", "1", "--block", "64"});
    CHECK(without.status == 1);
    CHECK_THAT(without.output, Catch::Contains("or a raw block (--kernarg or --kernarg-size)"));
  }
  SECTION("a by-value struct of pointers from --kernarg FILE; hidden arguments after it") {
    test::write_binary(dir.file("k.hsaco"), struct_arg().hsaco());
    std::vector<uint8_t> block(24, 0);
    block[8] = 2;  // the u32 at byte 8
    test::write_binary(dir.file("args.bin"), block);
    auto r = run_command({kRun, dir.file("k.hsaco"), "--grid", "5", "--block", "64", "--kernarg", dir.file("args.bin"),
                          "--buf", "in@0=" + dir.file("in.bin"), "--buf", "out@16=512", "--out",
                          "out=" + dir.file("out.bin")});
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK(out_words(dir.file("out.bin")) == expected(in, 2, 5));
  }
  SECTION("mistakes are named") {
    test::write_binary(dir.file("k.hsaco"), no_metadata_args().hsaco());
    auto base = std::vector<std::string>{kRun, dir.file("k.hsaco"), "--grid", "1", "--block", "64", "--kernarg-size", "32"};
    auto with = [&](std::vector<std::string> extra) {
      auto argv = base;
      argv.insert(argv.end(), extra.begin(), extra.end());
      return run_command(argv);
    };
    CHECK_THAT(with({"--arg", "u32@30=1"}).output, Catch::Contains("4 bytes at offset 30 do not fit its 32 bytes"));
    CHECK_THAT(with({"--arg", "u17@0=1"}).output, Catch::Contains("the type must be one of"));
    CHECK_THAT(with({"--arg", "u8@0=256"}).output, Catch::Contains("out of range"));
    CHECK_THAT(with({"--arg", "u32@0=-1"}).output, Catch::Contains("negative value for an unsigned type"));
    CHECK_THAT(with({"--buf", "in=64"}).output, Catch::Contains("buffers are NAME@OFFSET=..."));
    CHECK_THAT(with({"--out", "nope=x.bin"}).output, Catch::Contains("--out nope: no buffer of that name"));
    CHECK_THAT(with({"--kernarg", "x.bin"}).output, Catch::Contains("at most one of --kernarg and --kernarg-size"));
  }
}

TEST_CASE("cdna4-run: by-value bytes from hex or a file, and a null buffer", "[runtime][cli]") {
  test::TempDir dir;
  test::write_binary(dir.file("vadd.hsaco"), test::compile_foreign_hip("vector_add"));
  std::vector<uint8_t> a(64 * 4), b(64 * 4);
  for (int i = 0; i < 64; ++i) {
    float x = float(i), y = 0.5f;
    std::memcpy(&a[4 * i], &x, 4);
    std::memcpy(&b[4 * i], &y, 4);
  }
  test::write_binary(dir.file("a.bin"), a);
  test::write_binary(dir.file("b.bin"), b);
  test::write_binary(dir.file("n.bin"), {40, 0, 0, 0});
  auto run_with_n = [&](const std::string& n_spec) {
    return run_command({kRun, dir.file("vadd.hsaco"), "--grid", "1", "--block", "64", "--buf", "#0=" + dir.file("a.bin"),
                        "--buf", "#1=" + dir.file("b.bin"), "--buf", "#2=256", "--arg", "#3=" + n_spec, "--out",
                        "#2=" + dir.file("c.bin")});
  };
  for (const std::string& spec : std::vector<std::string>{"hex:28000000", "@" + dir.file("n.bin")}) {
    auto r = run_with_n(spec);
    INFO(spec << "\n" << r.output);
    REQUIRE(r.status == 0);
    auto c = test::read_binary(dir.file("c.bin"));
    for (int i = 0; i < 64; ++i) {
      float got;
      std::memcpy(&got, &c[4 * i], 4);
      CHECK(got == (i < 40 ? float(i) + 0.5f : 0.0f));  // the kernel's bound is n = 40
    }
  }
  CHECK_THAT(run_with_n("hex:2800").output, Catch::Contains("2 bytes given, the argument has 4"));
  CHECK_THAT(run_with_n("hex:28zz0000").output, Catch::Contains("'z' is not a hex digit"));

  // n = 0: the kernel touches no memory, so null pointers are fine.
  auto null = run_command({kRun, dir.file("vadd.hsaco"), "--grid", "1", "--block", "64", "--buf", "#0=null", "--buf",
                           "#1=null", "--buf", "#2=null", "--arg", "#3=0"});
  INFO(null.output);
  CHECK(null.status == 0);
}
