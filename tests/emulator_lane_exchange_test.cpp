// ds_bpermute_b32, ds_permute_b32 and ds_swizzle_b32 (every offset mode) under a
// partial EXEC: expected values from the ISA guide's definitions, written out
// here (lane index = byte address / 4 mod 64, inactive sources read 0, inactive
// destinations keep their value, permute's highest source lane wins), and the
// guide's worked FFT and rotate examples. They are counted by lgkmcnt and never
// touch LDS memory.
#include <catch2/catch.hpp>

#include <functional>

#include "emulator_test_kernel.hpp"

using namespace cdna4;
using namespace cdna4::emutest;

namespace {

constexpr uint64_t kExec = 0xfff0ffff0fff7ffeull;  // lanes 0, 15, 28-31, 48-51 inactive
constexpr uint32_t kPreset = 0xdeadbeef;
bool active(uint32_t lane) { return (kExec >> lane) & 1; }
uint32_t data(uint32_t lane) { return lane * 0x01010101u + 0x100u; }
uint32_t read(uint32_t lane) { return active(lane) ? data(lane) : 0u; }

struct ExchangeCase {
  std::string line;  // writes v20 from v1 (data) and v6 (address)
  std::function<uint32_t(uint32_t)> want;  // for active lanes
};

uint32_t swizzle_bitmask(uint32_t i, uint32_t and_mask, uint32_t or_mask, uint32_t xor_mask) {
  return ((((i & 31) & and_mask) | or_mask) ^ xor_mask) | (i & 32);
}

}  // namespace

TEST_CASE("ds_bpermute, ds_permute and ds_swizzle under a partial EXEC", "[emulator][lane-exchange]") {
  // v6 = 4 * ((7 lane + 3) mod 64) + 0x1000 (bits above the lane index are ignored), v7 = 4 * (lane / 2).
  const std::vector<ExchangeCase> cases = {
      {"ds_bpermute_b32 v20, v6, v1", [](uint32_t l) { return read((7 * l + 3) % 64); }},
      {"ds_bpermute_b32 v20, v6, v1 offset:8", [](uint32_t l) { return read((7 * l + 5) % 64); }},
      {"ds_permute_b32 v20, v7, v1",
       [](uint32_t l) {
         if (l >= 32) return 0u;
         return active(2 * l + 1) ? data(2 * l + 1) : active(2 * l) ? data(2 * l) : 0u;
       }},
      {"ds_swizzle_b32 v20, v1 offset:swizzle(QUAD_PERM,3,1,0,2)",
       [](uint32_t l) {
         const uint32_t sel[4] = {3, 1, 0, 2};
         return read((l & ~3u) | sel[l & 3]);
       }},
      {"ds_swizzle_b32 v20, v1 offset:swizzle(SWAP,16)", [](uint32_t l) { return read(swizzle_bitmask(l, 31, 0, 16)); }},
      {"ds_swizzle_b32 v20, v1 offset:swizzle(REVERSE,8)", [](uint32_t l) { return read(swizzle_bitmask(l, 31, 0, 7)); }},
      {"ds_swizzle_b32 v20, v1 offset:swizzle(BROADCAST,8,3)",
       [](uint32_t l) { return read(swizzle_bitmask(l, 0x18, 3, 0)); }},
      {"ds_swizzle_b32 v20, v1 offset:swizzle(BITMASK_PERM,\"01pi0\")",
       // bit 4 forced 0, bit 3 forced 1, bit 2 kept, bit 1 kept and inverted, bit 0 forced 0
       [](uint32_t l) { return read(swizzle_bitmask(l, 0x06, 0x08, 0x02)); }},
      {"ds_swizzle_b32 v20, v1 offset:swizzle(ROTATE,0,3)",
       [](uint32_t l) { return read(((l + 3) & 31) | (l & 32)); }},
      {"ds_swizzle_b32 v20, v1 offset:swizzle(ROTATE,1,5)",
       [](uint32_t l) { return read(((l - 5) & 31) | (l & 32)); }},
  };
  std::string body = fmt::format(R"(
  s_load_dwordx2 s[6:7], s[0:1], 0
  v_lshlrev_b32 v2, 2, v0
  s_mov_b32 s8, 0x01010101
  v_mul_lo_u32 v1, v0, s8
  v_add_u32 v1, 0x100, v1
  v_mul_u32_u24 v6, 7, v0
  v_add_u32 v6, 3, v6
  v_and_b32 v6, 63, v6
  s_movk_i32 s12, 0x1000
  v_lshl_add_u32 v6, v6, 2, s12
  v_lshrrev_b32 v7, 1, v0
  v_lshlrev_b32 v7, 2, v7
  s_mov_b32 s9, 0x{:x}
  s_mov_b32 s10, 0x{:x}
  s_mov_b32 s11, 0x{:x}
  s_waitcnt lgkmcnt(0)
)",
                                 kPreset, uint32_t(kExec), uint32_t(kExec >> 32));
  for (const ExchangeCase& c : cases)
    body += fmt::format("  v_mov_b32 v20, s9\n  s_mov_b64 exec, s[10:11]\n  {}\n  s_waitcnt lgkmcnt(0)\n  s_mov_b64 exec, -1\n",
                        c.line) +
            store_and_advance(20, 2, 6);
  body += "  s_endpgm\n";
  TestKernel k = TestKernel::build(body);
  for (bool instant_mode : {true, false}) {
    std::vector<uint32_t> out(cases.size() * 64, 0);
    Args args;
    args.add(out);
    auto stats = run(k, args.dispatch(1, 64), instant_mode ? instant() : randomized(2));
    CHECK(stats.races.empty());
    for (size_t c = 0; c < cases.size(); ++c)
      for (uint32_t l = 0; l < 64; ++l) {
        INFO(cases[c].line << " lane " << l);
        CHECK(out[c * 64 + l] == (active(l) ? cases[c].want(l) : kPreset));
      }
  }
}

TEST_CASE("ds_swizzle FFT and rotate modes reproduce the ISA guide's examples", "[emulator][lane-exchange]") {
  // Lane i holds i + 1; the guide lists what lanes 0-31 receive (hex values).
  struct Example {
    uint32_t offset;
    std::vector<uint32_t> want;
  };
  const std::vector<Example> examples = {
      {0xe000, {0x1, 0x11, 0x9, 0x19, 0x5, 0x15, 0xd, 0x1d, 0x3, 0x13, 0xb, 0x1b, 0x7, 0x17, 0xf, 0x1f,
                0x2, 0x12, 0xa, 0x1a, 0x6, 0x16, 0xe, 0x1e, 0x4, 0x14, 0xc, 0x1c, 0x8, 0x18, 0x10, 0x20}},
      {0xe010, {0x1, 0x9, 0x5, 0xd, 0x3, 0xb, 0x7, 0xf, 0x2, 0xa, 0x6, 0xe, 0x4, 0xc, 0x8, 0x10,
                0x11, 0x19, 0x15, 0x1d, 0x13, 0x1b, 0x17, 0x1f, 0x12, 0x1a, 0x16, 0x1e, 0x14, 0x1c, 0x18, 0x20}},
      {0xc020, {0x2, 0x3, 0x4, 0x5, 0x6, 0x7, 0x8, 0x9, 0xa, 0xb, 0xc, 0xd, 0xe, 0xf, 0x10, 0x11,
                0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x1}},
      {0xc420, {0x20, 0x1, 0x2, 0x3, 0x4, 0x5, 0x6, 0x7, 0x8, 0x9, 0xa, 0xb, 0xc, 0xd, 0xe, 0xf,
                0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f}},
      {0xc021, {0x1, 0x4, 0x3, 0x6, 0x5, 0x8, 0x7, 0xa, 0x9, 0xc, 0xb, 0xe, 0xd, 0x10, 0xf, 0x12,
                0x11, 0x14, 0x13, 0x16, 0x15, 0x18, 0x17, 0x1a, 0x19, 0x1c, 0x1b, 0x1e, 0x1d, 0x20, 0x1f, 0x2}},
      {0xc421, {0x1f, 0x2, 0x1, 0x4, 0x3, 0x6, 0x5, 0x8, 0x7, 0xa, 0x9, 0xc, 0xb, 0xe, 0xd, 0x10,
                0xf, 0x12, 0x11, 0x14, 0x13, 0x16, 0x15, 0x18, 0x17, 0x1a, 0x19, 0x1c, 0x1b, 0x1e, 0x1d, 0x20}},
  };
  std::string body = R"(
  s_load_dwordx2 s[6:7], s[0:1], 0
  v_lshlrev_b32 v2, 2, v0
  v_add_u32 v1, 1, v0
  s_waitcnt lgkmcnt(0)
)";
  for (const Example& e : examples)
    body += fmt::format("  ds_swizzle_b32 v20, v1 offset:0x{:x}\n  s_waitcnt lgkmcnt(0)\n", e.offset) +
            store_and_advance(20, 2, 6);
  body += "  s_endpgm\n";
  TestKernel k = TestKernel::build(body);
  std::vector<uint32_t> out(examples.size() * 64, 0);
  Args args;
  args.add(out);
  run(k, args.dispatch(1, 64), instant());
  for (size_t e = 0; e < examples.size(); ++e)
    for (uint32_t l = 0; l < 64; ++l) {
      INFO("offset 0x" << std::hex << examples[e].offset << std::dec << " lane " << l);
      // The second half of the wave repeats the pattern on lanes 32-63 (values + 32).
      CHECK(out[e * 64 + l] == examples[e].want[l % 32] + (l >= 32 ? 32 : 0));
    }
}

TEST_CASE("lane exchanges are counted by lgkmcnt and never touch LDS", "[emulator][lane-exchange]") {
  KernelShape shape;
  shape.lds = 256;
  SECTION("reading the result before lgkmcnt is a register race") {
    TestKernel k = TestKernel::build(R"(
  ds_swizzle_b32 v20, v0 offset:swizzle(SWAP,1)
  v_mov_b32 v21, v20
  s_endpgm
)",
                                     shape);
    Args args;
    auto stats = run(k, args.dispatch(1, 64), randomized(1));
    REQUIRE(stats.races.size() == 1);
    CHECK(stats.races[0].kind == RaceKind::RegisterRead);
    CHECK(stats.races[0].missing == MissingWait::Lgkmcnt);
  }
  SECTION("another wave writing LDS at the 'address' of a bpermute is no race") {
    TestKernel k = TestKernel::build(R"(
  v_mov_b32 v1, 0
  ds_write_b32 v1, v0
  ds_bpermute_b32 v20, v1, v0
  ds_permute_b32 v21, v1, v0
  s_waitcnt lgkmcnt(0)
  s_endpgm
)",
                                     shape);
    Args args;
    auto stats = run(k, args.dispatch(1, 256), randomized(3));
    // Four waves write LDS dword 0 without a barrier: those writes race with
    // each other, but the permutes, which address lane 0 with the same
    // "address", are never part of a report.
    for (const auto& r : stats.races) {
      CHECK_THAT(r.instruction, !Catch::Contains("permute"));
      CHECK_THAT(r.other_instruction, !Catch::Contains("permute"));
    }
  }
}
