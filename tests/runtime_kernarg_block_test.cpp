// Launching with a raw kernarg block: kernels whose metadata lists no arguments,
// and kernels taking a by-value struct of buffer addresses.
#include <catch2/catch.hpp>

#include "cdna4/runtime.hpp"
#include "emulator_test_kernel.hpp"
#include "runtime/kernarg.hpp"
#include "support/errors.hpp"

using namespace cdna4;
using cdna4::test::error_of;

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
  std::string source = emutest::kernel_source(kBody, shape);
  const std::string anchor = "    .kernarg_segment_align: 8\n";
  source.insert(source.find(anchor) + anchor.size(), R"(    .args:
      - { .name: globals, .offset: 0, .size: 24, .value_kind: by_value }
      - { .offset: 24, .size: 4, .value_kind: hidden_block_count_x }
)");
  return Kernel::from_hsaco(codegen::build_hsaco(source, "struct_arg.s"));
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
