// 64-bit scalar bit operations: s_bfe_u64/i64, s_bfm_b64, s_bitcmp0/1_b64, s_ff1/flbit_i32_b64, s_brev_b64.
#include <catch2/catch.hpp>

#include <bit>

#include "emulator_test_kernel.hpp"

using namespace cdna4;
using namespace cdna4::emutest;

namespace {

// Runs `ops` (which leave results in s[10:11], SCC) with s[20:21] = `a`, s22 = `b`;
// returns {lo, hi, scc}.
std::array<uint32_t, 3> run_scalar(const std::string& ops, uint64_t a, uint32_t b) {
  std::string body = fmt::format(R"(
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_waitcnt lgkmcnt(0)
  s_mov_b32 s20, {}
  s_mov_b32 s21, {}
  s_mov_b32 s22, {}
  s_mov_b64 s[10:11], 0
  s_cmp_eq_u32 0, 1
{}
  s_cselect_b32 s12, 1, 0
  v_mov_b32 v2, 0
  v_mov_b32 v1, s10
  global_store_dword v2, v1, s[4:5]
  v_mov_b32 v1, s11
  global_store_dword v2, v1, s[4:5] offset:4
  v_mov_b32 v1, s12
  global_store_dword v2, v1, s[4:5] offset:8
  s_endpgm
)",
                                 uint32_t(a), uint32_t(a >> 32), b, ops);
  auto k = TestKernel::build(body);
  std::vector<uint32_t> out(3, 0xffffffff);
  Args args;
  args.add(out);
  run(k, args.dispatch(), instant());
  return {out[0], out[1], out[2]};
}

uint64_t join(const std::array<uint32_t, 3>& r) { return r[0] | (uint64_t(r[1]) << 32); }

// ISA: D = (S0 >> S1[5:0]) & ((1 << S1[22:16]) - 1), sign-extended from the field for _i64.
uint64_t ref_bfe(uint64_t v, uint32_t ctl, bool sign) {
  uint32_t off = ctl & 63, width = (ctl >> 16) & 127;
  if (width == 0) return 0;
  uint64_t field = v >> off;
  if (width < 64) field &= (uint64_t(1) << width) - 1;
  if (sign && width < 64 && ((field >> (width - 1)) & 1)) field |= ~uint64_t(0) << width;
  return field;
}

}  // namespace

TEST_CASE("s_bfe_u64 extracts an unsigned 64-bit field, SCC = result != 0", "[emulator][scalar64]") {
  const uint64_t v = 0xf0e1d2c3b4a59687ull;
  for (uint32_t ctl : {0x00080004u, 0x00200010u, 0x0028001cu, 0x0040000cu, 0x00000005u, 0x0004003eu, 0x0001003fu}) {
    INFO("ctl 0x" << std::hex << ctl);
    auto r = run_scalar("  s_bfe_u64 s[10:11], s[20:21], s22", v, ctl);
    CHECK(join(r) == ref_bfe(v, ctl, false));
    CHECK(r[2] == (ref_bfe(v, ctl, false) != 0));
  }
}

TEST_CASE("s_bfe_i64 extracts a sign-extended 64-bit field", "[emulator][scalar64]") {
  const uint64_t v = 0x8123456789abcdefull;
  for (uint32_t ctl : {0x00080004u, 0x00240018u, 0x0001003fu, 0x0040003cu, 0x00100030u, 0x00000000u}) {
    INFO("ctl 0x" << std::hex << ctl);
    auto r = run_scalar("  s_bfe_i64 s[10:11], s[20:21], s22", v, ctl);
    CHECK(join(r) == ref_bfe(v, ctl, true));
    CHECK(r[2] == (ref_bfe(v, ctl, true) != 0));
  }
}

TEST_CASE("s_bfm_b64 builds ((1 << S0[5:0]) - 1) << S1[5:0] and leaves SCC", "[emulator][scalar64]") {
  for (auto [width, offset] : {std::pair{5u, 3u}, {32u, 16u}, {0u, 7u}, {63u, 1u}, {12u, 60u}, {64 + 4u, 32 + 8u}}) {
    INFO(width << " " << offset);
    uint64_t mask = (width & 63) == 0 ? 0 : (uint64_t(1) << (width & 63)) - 1;
    auto r = run_scalar(fmt::format("  s_mov_b32 s23, {}\n  s_bfm_b64 s[10:11], s23, s22", width), 0, offset);
    CHECK(join(r) == mask << (offset & 63));
    CHECK(r[2] == 0);
  }
}

TEST_CASE("s_bitcmp0_b64 / s_bitcmp1_b64 test bit S1[5:0] of a 64-bit value", "[emulator][scalar64]") {
  const uint64_t v = 0x8000000100000004ull;
  for (uint32_t bit : {2u, 3u, 32u, 33u, 63u, 64u + 2u}) {
    INFO("bit " << bit);
    bool set = (v >> (bit & 63)) & 1;
    CHECK(run_scalar("  s_bitcmp1_b64 s[20:21], s22", v, bit)[2] == uint32_t(set));
    CHECK(run_scalar("  s_bitcmp0_b64 s[20:21], s22", v, bit)[2] == uint32_t(!set));
  }
}

TEST_CASE("s_ff1_i32_b64 / s_flbit_i32_b64 find the lowest / highest set bit of 64 (-1 for zero)",
          "[emulator][scalar64]") {
  for (uint64_t v : {0x0ull, 0x1ull, 0x8000000000000000ull, 0x0000010000000000ull, 0x00f0000000000100ull}) {
    INFO("value 0x" << std::hex << v);
    uint32_t ff1 = v ? uint32_t(std::countr_zero(v)) : 0xffffffffu;
    uint32_t flbit = v ? uint32_t(std::countl_zero(v)) : 0xffffffffu;
    CHECK(run_scalar("  s_ff1_i32_b64 s10, s[20:21]", v, 0)[0] == ff1);
    CHECK(run_scalar("  s_flbit_i32_b64 s10, s[20:21]", v, 0)[0] == flbit);
  }
}

TEST_CASE("s_brev_b64 reverses the 64 bits", "[emulator][scalar64]") {
  const uint64_t v = 0x0123456789abcdefull;
  uint64_t want = 0;
  for (int i = 0; i < 64; ++i) want |= ((v >> i) & 1) << (63 - i);
  CHECK(join(run_scalar("  s_brev_b64 s[10:11], s[20:21]", v, 0)) == want);
}
